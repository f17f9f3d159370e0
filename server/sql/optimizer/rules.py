"""The ordered optimizer rules, and the driver that records the plan after each one.

Each rule is `rule(plan, ctx) -> plan` in a module of its own name. The
driver keeps, for the golden tests and EXPLAIN (VERBOSE), the plan text after
every rule that changed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan import nodes as N
from .index_lookup import index_lookup
from .join_algorithm import join_algorithm
from .join_order import join_order
from .point_get import point_get
from .push_aggregate import push_aggregate
from .push_limit import push_limit
from .push_projection import push_projection
from .pushdown_filters import pushdown_filters
from .pushdown_join_filters import pushdown_join_filters

RULES = (
    join_order,
    pushdown_join_filters,
    point_get,
    index_lookup,
    pushdown_filters,
    push_aggregate,
    push_limit,
    push_projection,
    join_algorithm,
)


@dataclass
class OptContext:
    catalog: Any


def optimize(plan: N.Node, catalog: Any) -> tuple[N.Node, list[tuple[str, list[str]]]]:
    """Applies RULES in order; returns the plan and [(rule name, plan lines)] for changes."""
    from ..plan.explain import explain_lines

    ctx = OptContext(catalog)
    trace: list[tuple[str, list[str]]] = [("initial", explain_lines(plan))]
    for rule in RULES:
        plan = rule(plan, ctx)
        lines = explain_lines(plan)
        if lines != trace[-1][1]:
            trace.append((rule.__name__, lines))
    return plan, trace
