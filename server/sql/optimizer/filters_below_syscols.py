"""Rule: a Filter over a table's system-column Project moves below it, as far as it can.

Why: a statement that names xmin, ctid or tableoid reads them from a Project that
passes the scan's columns through and appends the system columns (`plan.builder`'s
`_with_version` and `_with_tableoid`). The other filter rules look for a Filter right
over its Scan, so `UPDATE t SET ... WHERE id = $1 AND xmin = $2` (an ORM's optimistic
concurrency check) would scan the whole table instead of getting one row by its key.
Conjuncts that read only the passed-through columns commute with such a Project; they
go below it, where `point_get` and `pushdown_filters` find them, and the conjuncts that
read a system column stay above.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.filters_below_syscols import filters_below_syscols
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(filters_below_syscols, "select b from t where a = 1 and xmin = '5'")
    Project b
      Filter ((a = 1) AND (xmin = 5))
        Project a, b, c, __cumulo_rowkey, xmin(#3, #0, #1, #2)
          Scan t keys
    =>
    Project b
      Filter (xmin = 5)
        Project a, b, c, __cumulo_rowkey, xmin(#3, #0, #1, #2)
          Filter (a = 1)
            Scan t keys
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..plan import nodes as N

_SUBPLANS = ("subquery", "exists", "in_sub", "array_sub", "outer")


def _passes_through(p: N.Node) -> bool:
    """A Project over a scan (or over another such Project) whose first expressions are its
    input's columns, in order."""
    if not isinstance(p, N.Project):
        return False
    n = len(p.child.cols)
    return ((isinstance(p.child, N.Scan | N.VirtualScan) or _passes_through(p.child))
            and len(p.exprs) > n
            and all(e.kind == "col" and e.data == i for i, e in enumerate(p.exprs[:n])))


def _reads_only(e: E, n: int) -> bool:
    return all(x.kind not in _SUBPLANS and (x.kind != "col" or x.data < n) for x in e.walk())


def filters_below_syscols(plan: N.Node, ctx: Any) -> N.Node:
    """Moves the conjuncts of Filter(system-column Project(scan)) that read no system column
    under the Project."""

    def fn(node: N.Node) -> N.Node:
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Project)
                and _passes_through(node.child)):
            return node
        project = node.child
        n = len(project.child.cols)
        below = [c for c in conjuncts(node.pred) if _reads_only(c, n)]
        if not below:
            return node
        above = [c for c in conjuncts(node.pred) if not _reads_only(c, n)]
        pred = below[0] if len(below) == 1 else E("and", None, below, 16)
        project.child = fn(N.Filter(list(project.child.cols), child=project.child, pred=pred))
        if not above:
            return project
        node.pred = above[0] if len(above) == 1 else E("and", None, above, 16)
        return node

    return N.transform(plan, fn)
