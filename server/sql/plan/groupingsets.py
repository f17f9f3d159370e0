"""GROUP BY ROLLUP / CUBE / GROUPING SETS and GROUPING(...), as a union of grouped sub-plans.

PostgreSQL's GROUP BY list is a cross product: each item contributes a list
of grouping sets (a plain expression one set of itself, `ROLLUP (a, b)` the
sets (a, b), (a), (), `CUBE` every subset, `GROUPING SETS (...)` the
concatenation of its elements' sets), and the query groups by every
combination. Duplicate sets are kept, as PostgreSQL keeps them.

The plan is the ordinary `Aggregate` the planner builds over every distinct
key (its output layout is the query's), copied once per grouping set with
only that set's keys, each copy reading one shared, materialised input (a
`CTEScan`) and padded back to the full layout with typed NULLs, then glued
with UNION ALL. `GROUPING(a, b)` is a per-branch constant: bit i (the last
argument is bit 0) is set when argument i is not grouped in that branch.

Example:
    >>> import sqlglot
    >>> g = sqlglot.parse_one("select 1 from t group by a, rollup (b, c)", read="postgres")
    >>> keys, sets = expand(g.args["group"].expressions, lambda x: x)
    >>> [k.sql() for k in keys], sets
    (['a', 'b', 'c'], [(0, 1, 2), (0, 1), (0,)])
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from sqlglot import exp

from ...errors import GroupingError
from ...pgtypes import oids as T
from ..expr.bound import col, const
from . import nodes as N

SET_NODES = (exp.Rollup, exp.Cube, exp.GroupingSets)


def has_sets(items: list[exp.Expression]) -> bool:
    """Tells whether a GROUP BY list needs grouping sets (ROLLUP, CUBE, GROUPING SETS, `()`)."""
    return any(isinstance(g, SET_NODES) or _is_empty(g) for g in items)


def _is_empty(g: exp.Expression) -> bool:
    return isinstance(g, exp.Tuple) and not g.expressions


def expand(items: list[exp.Expression], resolve: Callable[[exp.Expression], exp.Expression]
           ) -> tuple[list[exp.Expression], list[tuple[int, ...]]]:
    """Returns (distinct key expressions, grouping sets as sorted key indexes) of a GROUP BY
    list; `resolve` maps a written key (ordinal, output alias) to the expression it means."""
    keys: list[exp.Expression] = []

    def key(g: exp.Expression) -> int:
        g = resolve(g)
        if g not in keys:
            keys.append(g)
        return keys.index(g)

    def element(g: exp.Expression) -> tuple[int, ...]:
        """One ROLLUP / CUBE element: an expression or a parenthesised list of them."""
        if isinstance(g, exp.Tuple):
            return tuple(key(x) for x in g.expressions)
        if isinstance(g, exp.Paren):
            return element(g.this)
        return (key(g),)

    def sets_of(g: exp.Expression) -> list[tuple[int, ...]]:
        if isinstance(g, exp.Rollup):
            parts = [element(x) for x in g.expressions]
            return [sum(parts[:n], ()) for n in range(len(parts), -1, -1)]
        if isinstance(g, exp.Cube):
            parts = [element(x) for x in g.expressions]
            out: list[tuple[int, ...]] = []
            for n in range(len(parts), -1, -1):
                out.extend(sum(c, ()) for c in combinations(parts, n))
            return out
        if isinstance(g, exp.GroupingSets):
            return [s for x in g.expressions for s in sets_of(x)]
        return [element(g)]

    product: list[tuple[int, ...]] = [()]
    for g in items:
        product = [a + b for a in product for b in sets_of(g)]
    return keys, [tuple(sorted(set(s))) for s in product]


def grouping_bits(call: exp.Grouping, keys: list[exp.Expression],
                  resolve: Callable[[exp.Expression], exp.Expression]) -> list[int]:
    """The key index of each GROUPING argument (42803 for one that is not a GROUP BY key)."""
    out = []
    for a in call.expressions:
        a = resolve(a)
        if a not in keys:
            raise GroupingError(
                "arguments to GROUPING must be grouping expressions of the associated query level")
        out.append(keys.index(a))
    return out


def plan_sets(template: N.Aggregate, sets: list[tuple[int, ...]],
              grouping_args: list[list[int]]) -> N.Node:
    """Returns the UNION ALL of one copy of `template` per grouping set, in its column layout
    plus one int4 column per GROUPING call."""
    nk = len(template.groups)
    extra = [N.PCol("grouping", T.INT4) for _ in grouping_args]
    cols = [*template.cols, *extra]
    shared = template.child
    if len(sets) > 1:
        cte = N.CTEDef("*grouping sets*", plan=template.child)
        shared = N.CTEScan([_copy(c) for c in template.child.cols], cte=cte)
    branches: list[N.Node] = []
    for s in sets:
        kcols = [template.cols[i] for i in s]
        acols = template.cols[nk:]
        agg = N.Aggregate([*kcols, *acols], child=shared, groups=[template.groups[i] for i in s],
                          aggs=list(template.aggs))
        exprs = []
        for i in range(nk):
            c = template.cols[i]
            exprs.append(col(s.index(i), c.type, c.name, c.typmod) if i in s
                         else const(None, c.type))
        exprs += [col(len(s) + j, c.type, c.name, c.typmod) for j, c in enumerate(acols)]
        exprs += [const(_bits(args, s), T.INT4) for args in grouping_args]
        branches.append(N.Project(cols, child=agg, exprs=exprs))
    node = branches[0]
    for b in branches[1:]:
        node = N.SetOp(cols, left=node, right=b, op="union", all=True)
    return node


def _bits(args: list[int], s: tuple[int, ...]) -> int:
    v = 0
    for k in args:
        v = (v << 1) | (k not in s)
    return v


def _copy(c: N.PCol) -> N.PCol:
    return N.PCol(c.name, c.type, c.typmod, c.qualifier, c.table_oid, c.attnum, c.hidden,
                  c.dropped, c.fields)


def find_groupings(node: exp.Expression) -> list[exp.Grouping]:
    """Finds GROUPING(...) calls in an expression, not inside subqueries."""
    if isinstance(node, exp.Subquery | exp.Select | exp.Exists | exp.Union):
        return []
    if isinstance(node, exp.Grouping):
        return [node]
    return [g for c in node.iter_expressions() for g in find_groupings(c)]
