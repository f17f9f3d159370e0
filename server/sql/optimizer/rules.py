"""The ordered optimizer rules, and the driver that records the plan after each one.

Each rule is `rule(plan, ctx) -> plan` in a module of its own name. The
driver keeps, for the golden tests and EXPLAIN (VERBOSE), the plan text after
every rule that changed it. `PRE_RULES` (decorrelation into semi / anti joins)
run first, on sub-plans as the builder made them; then every sub-plan left in
an expression is optimized on its own ("subplans" in the trace); then `RULES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan import nodes as N
from ..plan.explain import explain_lines
from ..plan.nodeexprs import node_exprs
from .columnar import columnar
from .expr_index import expr_index
from .filters_below_syscols import filters_below_syscols
from .index_lookup import index_lookup
from .join_algorithm import join_algorithm
from .join_order import join_order
from .merge_projects import merge_projects
from .minmax_ends import minmax_ends
from .partition_prune import partition_prune
from .point_get import point_get
from .prune_columns import prune_columns
from .push_aggregate import push_aggregate
from .push_limit import push_limit
from .push_projection import push_projection
from .pushdown_filters import pushdown_filters
from .pushdown_join_filters import pushdown_join_filters
from .scalar_subquery import scalar_subquery
from .semijoin import semijoin
from .tid_scan import tid_scan

# Rules that read sub-plans as the builder made them, so they run before nested plans are
# optimized (point_get would otherwise turn a correlated `pk = outer.x` into a keyed get).
PRE_RULES = (semijoin, scalar_subquery)

RULES = (
    filters_below_syscols,
    tid_scan,
    minmax_ends,  # NB: twice: before `columnar` (a whole table's max(pk) is one row, not a
    columnar,  # column), and after `pushdown_filters` put the key prefix into the scan
    join_order,
    pushdown_join_filters,
    partition_prune,
    point_get,
    index_lookup,
    expr_index,
    pushdown_filters,
    minmax_ends,
    push_aggregate,
    push_limit,
    push_projection,
    join_algorithm,
    prune_columns,
    merge_projects,
)


@dataclass
class OptContext:
    catalog: Any


def optimize(plan: N.Node, catalog: Any,
             trace: bool = False) -> tuple[N.Node, list[tuple[str, list[str]]]]:
    """Applies RULES in order; returns the plan and, with `trace`, [(rule name, plan lines)]
    for each rule that changed it (the golden tests ask; printing a plan after every rule
    costs more than the rules, so queries never do).

    Sub-plans (scalar, EXISTS, IN and ARRAY subqueries inside expressions, and WITH queries)
    are optimized too, each as a plan of its own, before the plan that contains them."""
    ctx = OptContext(catalog)
    steps: list[tuple[str, list[str]]] = []

    def note(name: str, node: N.Node) -> None:
        if trace:
            lines = explain_lines(node)
            if not steps or lines != steps[-1][1]:
                steps.append((name, lines))

    note("initial", plan)
    for rule in PRE_RULES:
        plan = rule(plan, ctx)
        note(rule.__name__, plan)
    _optimize_nested(plan, ctx, set())
    note("subplans", plan)
    for rule in RULES:
        plan = rule(plan, ctx)
        note(rule.__name__, plan)
    return plan, steps


def _apply(plan: N.Node, ctx: OptContext, seen: set[int]) -> N.Node:
    for rule in PRE_RULES:
        plan = rule(plan, ctx)
    _optimize_nested(plan, ctx, seen)
    for rule in RULES:
        plan = rule(plan, ctx)
    return plan


def _optimize_nested(plan: N.Node, ctx: OptContext, seen: set[int]) -> None:
    for n in N.walk(plan):
        if isinstance(n, N.CTEScan) and id(n.cte) not in seen:
            seen.add(id(n.cte))
            n.cte.plan = _apply(n.cte.plan, ctx, seen)
        for v in list(vars(n).values()):
            for e in node_exprs(v if not isinstance(v, N.AggCall) else [v]):
                for x in e.walk():
                    if id(x) in seen:
                        continue
                    if x.kind in ("subquery", "exists", "array_sub"):
                        seen.add(id(x))
                        x.data = _apply(x.data, ctx, seen)
                    elif x.kind == "in_sub":
                        seen.add(id(x))
                        x.data = (_apply(x.data[0], ctx, seen), *x.data[1:])
