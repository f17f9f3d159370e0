"""The bound expressions a plan node holds, and whether a plan reads its enclosing row.

The planner (subquery flattening), the optimizer rules, EXPLAIN and the
executor all walk a node's expressions; they live here, beside `nodes`, so
none of them reaches into another's module for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..expr.bound import E
from . import nodes as N


def node_exprs(v: Any) -> Iterator[E]:
    """Yields the expressions in one node field: an expression, or a (nested) list of
    expressions, sort keys and aggregate or window calls."""
    if isinstance(v, E):
        yield v
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, E):
                yield x
            elif isinstance(x, list):
                yield from node_exprs(x)
            elif isinstance(x, N.SortKey):
                yield x.expr
            elif isinstance(x, N.AggCall | N.WinCall):
                yield from node_exprs(x.args)
                if isinstance(x, N.WinCall):
                    yield from node_exprs(x.partition)


def correlated(plan: N.Node) -> bool:
    """Tells whether a plan (or a subquery or CTE inside it) reads the enclosing query's
    row; the answer is cached on the plan."""
    cached = plan.correlated
    if cached is None:
        cached = False
        for n in N.walk(plan):
            if isinstance(n, N.CTEScan) and n.cte.plan is not plan:
                cached = cached or correlated(n.cte.plan)
            for v in vars(n).values():
                for e in node_exprs(v):
                    for x in e.walk():
                        if x.kind == "outer":
                            cached = True
                        elif x.kind in ("subquery", "exists", "array_sub", "in_sub"):
                            sub = x.data[0] if x.kind == "in_sub" else x.data
                            cached = cached or correlated(sub)
        plan.correlated = cached
    return cached
