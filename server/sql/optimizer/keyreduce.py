"""A decorrelated aggregate reads only the groups its outer rows can meet (a semi-join reduction).

Why: `scalar_subquery` turns TPC-H Q2's `ps_supplycost = (SELECT min(ps_supplycost)
... WHERE ps_partkey = p_partkey ...)` into a LEFT JOIN to the aggregate grouped
by `ps_partkey`. That aggregate covers every part (SF 1: 160,000 groups from
800,000 partsupp rows) while the outer side keeps a few hundred parts
(`p_size = 15 AND p_type LIKE '%BRASS'`); Q17 is the same with 0.1 % of the
parts against all of lineitem. The groups are computed, turned into rows and
hashed, and all but a few are never probed. PostgreSQL runs such a subquery per
outer row through an index; DuckDB and HyPer pass the outer keys into the
aggregate ("magic sets", sideways information passing).

What this does: it follows an outer key column down the enclosing plan (the
builder's plan, before any other rule) to the base table that produces it, and
collects the WHERE and inner-join conjuncts that read only that table. The
aggregate's input gets a semi join with that table, filtered by them: only rows
whose correlation key a filtered row of that table holds reach the grouping.

Exact: the aggregate is grouped by the correlation keys and each outer row
meets at most the one group of its own key values, which come from a row of
that table passing those conjuncts (the enclosing plan only removes rows on top
of them). A group whose key no such row holds is never met, so dropping its
input rows changes no answer. A semi join never matches NULL, and a NULL outer
key meets no group either. Only stable conjuncts with no sub-plans and no outer
references are copied, and only when statistics expect them to keep at most
half of the table (otherwise the reduction costs more than it saves).

Example:
    >>> from cumulo.server.sql.optimizer.keyreduce import reduce_groups
    >>> reduce_groups.__name__
    'reduce_groups'
"""

from __future__ import annotations

import dataclasses

from ..expr.bound import E, col
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from .pushdown_join_filters import conj_all
from .semijoin import _SUBPLANS, _node_exprs
from .stats import estimate

KEEP = 0.5  # apply only when the copied conjuncts are expected to keep at most this share


def _stable(c: E) -> bool:
    return not any(x.kind in _SUBPLANS or x.kind == "outer"
                   or (x.kind == "call" and x.data.volatile) for x in c.walk())


def _within(c: E, lo: int, hi: int) -> bool:
    used = [x.data for x in c.walk() if x.kind == "col"]
    return bool(used) and all(lo <= i < hi for i in used)


def _shift(e: E, by: int) -> E:
    if e.kind == "col":
        return col(e.data + by, e.type, e.name, e.typmod)
    if not e.args:
        return e
    return E(e.kind, e.data, [_shift(a, by) for a in e.args], e.type, e.typmod, e.name, e.fields)


def _trace(node: N.Node, i: int) -> tuple[N.Scan, int, list[E]] | tuple[N.Node, int] | None:
    """The base scan producing column `i` of `node`, where its columns start in `node`'s row,
    and the conjuncts over that scan's columns alone that every row of `node` passed; or
    (plan, j) when a semi join keeps only values of `i` that column j of that uncorrelated
    plan holds (TPC-H Q20's `ps_partkey IN (SELECT p_partkey ... LIKE 'forest%')`)."""
    if isinstance(node, N.Scan):
        plain = node.lo is None and node.hi is None and node.ir is None and node.limit is None
        return (node, 0, []) if plain and node.aggregate is None else None
    if isinstance(node, N.Filter):
        found = _trace(node.child, i)
        if found is None or len(found) == 2:
            return found
        scan, at, conds = found
        return scan, at, conds + _local(node.pred, scan, at)
    if isinstance(node, N.Join) and not node.lateral:
        nl = len(node.left.cols)
        if i < nl and node.kind == "semi":
            j = _semi_key(node, i)
            if j is not None:
                return node.right, j
        if i < nl and node.kind in ("inner", "cross", "left", "semi", "anti"):
            found = _trace(node.left, i)
            shift = 0
        elif i >= nl and node.kind in ("inner", "cross"):
            found = _trace(node.right, i - nl)
            shift = nl
        else:
            return None
        if found is None or len(found) == 2:
            return found if shift == 0 else None
        scan, at, conds = found
        at += shift
        if node.kind in ("inner", "cross") and node.cond is not None:
            conds = conds + _local(node.cond, scan, at)
        return scan, at, conds
    return None


def _semi_key(join: N.Join, i: int) -> int | None:
    """Column j of the semi join's right side if its condition has `left i = right j` and
    the right side is a plain, uncorrelated plan that can be copied."""
    nl = len(join.left.cols)
    if join.null_aware or join.cond is None or not _copyable(join.right):
        return None
    for c in conjuncts(join.cond):
        if c.kind != "op" or c.data != "=" or len(c.args) != 2:
            continue
        a, b = c.args
        for x, y in ((a, b), (b, a)):
            if x.kind == "col" and x.data == i and y.kind == "col" and y.data >= nl \
                    and x.type == y.type:
                return y.data - nl
    return None


def _copyable(plan: N.Node) -> bool:
    for n in N.walk(plan):
        if not isinstance(n, (N.Scan, N.Filter, N.Project, N.Join)) or \
                (isinstance(n, N.Join) and n.lateral):
            return False
        if any(not _stable(e) for e in _node_exprs(n)):
            return False
    return True


def _clone(plan: N.Node) -> N.Node:
    """A copy of a plan made of `_copyable` nodes: rules rewrite nodes in place, so the
    reducer may not share them with the enclosing plan."""
    new = dataclasses.replace(plan)
    for k, v in vars(plan).items():
        if isinstance(v, N.Node):
            setattr(new, k, _clone(v))
        elif isinstance(v, list):
            setattr(new, k, list(v))
    return new


def _local(pred: E | None, scan: N.Scan, at: int) -> list[E]:
    if pred is None:
        return []
    hi = at + len(scan.cols)
    return [_shift(c, -at) for c in conjuncts(pred) if _within(c, at, hi) and _stable(c)]


def reduce_groups(source: N.Node, enclosing: N.Node, eqs: list[tuple[E, E]]) -> N.Node:
    """`source` (the aggregate's input) semi-joined with the filtered table that produces an
    outer key, when one is found and expected to be selective; else `source` unchanged.

    `eqs` are the correlated conjuncts as (inner side over `source`'s row, the enclosing
    row's column as a `col` over `enclosing`)."""
    for inner, outer in eqs:
        if outer.kind != "col" or inner.type != outer.type:
            continue
        found = _trace(enclosing, outer.data)
        if found is None:
            continue
        if len(found) == 2:
            plan, j = found
            if estimate(plan) > KEEP * estimate(source):
                continue
            pc = plan.cols[j]
            reducer = N.Project([pc], child=_clone(plan),
                                exprs=[col(j, pc.type, pc.name, pc.typmod)])
            key = col(len(source.cols), pc.type, pc.name, pc.typmod)
            cond = E("op", "=", [inner, key], 16)
            return N.Join(list(source.cols), left=source, right=reducer, kind="semi", cond=cond)
        scan, at, conds = found
        if not conds:
            continue
        copy = dataclasses.replace(scan, cols=list(scan.cols))
        keep = N.Filter(copy.cols, child=copy, pred=conj_all(conds))
        if estimate(keep) > KEEP * estimate(copy):
            continue
        k = outer.data - at
        kc = copy.cols[k]
        reducer = N.Project([kc], child=keep, exprs=[col(k, kc.type, kc.name, kc.typmod)])
        key = col(len(source.cols), kc.type, kc.name, kc.typmod)
        cond = E("op", "=", [inner, key], 16)
        return N.Join(list(source.cols), left=source, right=reducer, kind="semi", cond=cond)
    return source
