"""The ordered optimizer rules, and the driver that records the plan after each one.

Each rule is `rule(plan, ctx) -> plan` in a module of its own name. The
driver keeps, for the golden tests and EXPLAIN (VERBOSE), the plan text after
every rule that changed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan import nodes as N
from .hash_join import hash_join
from .point_get import point_get
from .pushdown_filters import pushdown_filters

RULES = (point_get, pushdown_filters, hash_join)


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
