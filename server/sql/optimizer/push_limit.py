"""Rule: a LIMIT (plus OFFSET) directly over a table scan, possibly through a projection,
becomes the scan's own limit, so KiVi stops after that many rows that pass its filter.

The Limit node stays (it still applies OFFSET and guards the count); only the
scan's `limit` is set to LIMIT + OFFSET. Scans with a Filter left above them
(predicates KiVi cannot evaluate) are not limited.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.push_limit import push_limit
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(push_limit, "select * from t limit 3")
    Limit limit=3
      Project a, b, c
        Scan t
    =>
    Limit limit=3
      Project a, b, c
        Scan t limit=3
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..plan import nodes as N


def push_limit(plan: N.Node, ctx: Any) -> N.Node:
    """Copies LIMIT + OFFSET into the scan beneath a Limit."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Limit) or node.limit is None or node.ties is not None:
            return node
        child = node.child
        while isinstance(child, N.Project) and not any(
            x.kind in ("srf", "subquery", "exists", "in_sub", "array_sub")
            for e in child.exprs for x in e.walk()
        ):
            child = child.child
        if not isinstance(child, N.Scan) or child.limit is not None or child.aggregate is not None:
            return node
        lim = node.limit
        if node.offset is not None:
            lim = E("op", "+", [node.limit, node.offset], 20)
        child.limit = lim
        return node

    return N.transform(plan, fn)
