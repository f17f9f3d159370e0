"""Sub-plans evaluated inside expressions: scalar subqueries, EXISTS, IN / ANY / ALL, ARRAY(...).

A sub-plan runs with the current row pushed on `ctx.outer`, where its
`outer` references find it. Uncorrelated sub-plans (no reference to any
enclosing row) run once per execution; their result is cached per plan.
"""

from __future__ import annotations

from typing import Any

from ...errors import CardinalityViolation
from ...pgtypes import oids as T
from ..expr import codegen as cg
from ..expr import runtime as rt
from ..expr.runtime import any_op
from ..plan import nodes as N
from ..plan.nodeexprs import correlated as _correlated
from ..plan.nodeexprs import node_exprs as _exprs  # noqa: F401  (plan.builder imports it here)
from .runner import cache_of, run


def _rows(plan: N.Node, row: tuple, ctx: Any, first_only: bool = False, limit: int = 0) -> list:
    corr = _correlated(plan)
    if not corr:
        cache = cache_of(ctx)
        key = ("sub", id(plan), first_only)
        hit = cache.get(key)
        if hit is not None:
            return hit
    outer = ctx.outer
    outer.append(row)
    out: list = []
    try:
        for b in run(plan, ctx):
            out.extend(b)
            if limit and len(out) >= limit:
                break
    finally:
        outer.pop()
    if not corr:
        cache_of(ctx)[("sub", id(plan), first_only)] = out
    return out


def scalar(plan: N.Node, row: tuple, ctx: Any) -> Any:
    """(SELECT ...) as a value: NULL for no row, 21000 for several."""
    rows = _rows(plan, row, ctx, limit=2)
    if not rows:
        return None
    if len(rows) > 1:
        raise CardinalityViolation("more than one row returned by a subquery used as an expression")
    return rows[0][0]


def exists(plan: N.Node, row: tuple, ctx: Any) -> bool:
    """EXISTS (SELECT ...)."""
    return bool(_rows(plan, row, ctx, first_only=True, limit=1))


def in_sub(v: Any, plan: N.Node, row: tuple, ctx: Any, op: Any, is_all: bool) -> bool | None:
    """v IN (SELECT ...), v op ANY/ALL (SELECT ...)."""
    rows = _rows(plan, row, ctx)
    if not rows:
        return is_all
    return any_op(v, [r[0] for r in rows], op, is_all)


def array(plan: N.Node, row: tuple, ctx: Any) -> list:
    """ARRAY(SELECT ...); of arrays, one more dimension, as array_agg accumulates them."""
    vals = [r[0] for r in _rows(plan, row, ctx)]
    if vals and plan.cols[0].type in T.ELEMENT_OF:
        return rt.accumulate_arrays(vals)
    return vals


cg.SUBQUERY_RUNTIME.update(scalar=scalar, exists=exists, array=array)
cg.SUBQUERY_RUNTIME["correlated"] = _correlated  # the vector path runs only uncorrelated ones
cg.SUBQUERY_RUNTIME["in"] = in_sub
