"""Rule: a correlated scalar subquery over an aggregate becomes a LEFT JOIN to that aggregate
grouped by the correlation keys, so the sub-plan runs once instead of once per outer row.

Why: TPC-H Q2, Q17 and Q20 compare each outer row with an aggregate of the rows
that match it (`l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE
l_partkey = p_partkey)`). Run per row, that is one scan of lineitem per part;
grouped once by `l_partkey` and hash-joined, it is one scan in all.

What qualifies: a `(SELECT v FROM ... )` in a Filter's predicate or a
Project's select list whose sub-plan is

    Project(v over the aggregates, Aggregate(no GROUP BY, Filter(local AND corr, body)))

where every correlated conjunct is `inner = outer` (one side reads only the
sub-plan's rows, the other only the enclosing row, depth 1), nothing else in
the sub-plan reaches an enclosing row, there is no volatile function, and
every aggregate is one whose value over no rows is known (COUNT: 0; SUM, AVG,
MIN, MAX, ...: NULL).

The rewrite, for a Filter over `child`:

    Project(child's columns,
      Filter(pred with the subquery replaced by the joined value,
        Left Join(Filter(the other conjuncts, child),
                  Project(keys, v, true, Aggregate(group by keys, Filter(local, body))),
                  on outer_1 = key_1 AND ...)))

NULLs and empty groups, exactly as the subquery: the aggregate is grouped by
values that `=` compares, so each outer row meets at most one group; an outer
row with no group (no matching row, or a NULL key, since `NULL = x` matches
nothing) gets the subquery's value over no rows. That value is NULL when v is
strict in aggregates that are NULL over no rows (the join's NULL padding is
already right); otherwise (COUNT, COALESCE, ...) the replacement is
`CASE WHEN matched IS NULL THEN v(empty) ELSE value END`, where `matched` is
the constant TRUE column of the right side and v(empty) is v with each
aggregate replaced by its value over no rows (COUNT over no rows is 0).

When not to: a correlated subquery that reads its table by a key (a primary
key prefix or an index's first column equals the correlation key) beats a
whole-table aggregate when the outer side is small, so the rule leaves it
when statistics expect fewer than SMALL outer rows.

Example:
    >>> from cumulo.server.sql.optimizer.scalar_subquery import scalar_subquery
    >>> scalar_subquery.__name__
    'scalar_subquery'
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...pgtypes import oids as T
from ..expr.bound import E, col, const
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from ..plan.nodeexprs import node_exprs
from .keyreduce import reduce_groups
from .pushdown_join_filters import conj_all
from .semijoin import _cols_used, _escapes, _plan_escapes, _remap, _to_join_row, semijoin
from .stats import estimate

SMALL = 100.0  # outer rows below which a keyed correlated subquery stays as it is

# aggregates whose value over no rows is known: COUNT's is 0, the others' NULL
_ZERO_WHEN_EMPTY = {"count", "count_star"}
_NULL_WHEN_EMPTY = {
    "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "string_agg", "array_agg",
    "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "bit_and", "bit_or",
}
# expression kinds that are NULL whenever an argument is (so v over NULL aggregates is NULL)
_STRICT = {"col", "const", "param", "op", "neg", "cast"}
# what v may be made of (no sub-plans, no context functions; volatile calls are checked apart)
_VALUE_KINDS = {"col", "const", "param", "op", "neg", "not", "and", "or", "cast", "call", "case",
                "isnull", "notnull", "istrue", "isfalse", "distinct", "coalesce", "nullif",
                "greatest", "least", "in_list"}
_STRICT_OPS = {"+", "-", "*", "/", "%", "^", "=", "<>", "<", ">", "<=", ">="}


def _volatile(plan: N.Node) -> bool:
    for n in N.walk(plan):
        for v in vars(n).values():
            items = [v] if isinstance(v, N.AggCall) else v
            for e in node_exprs(items):
                if any(x.kind == "call" and x.data.volatile for x in e.walk()):
                    return True
    return False


class _Decorrelated:
    """One scalar subquery as a grouped aggregate: the right side, the keys and the value."""

    def __init__(self, right: N.Node, outer_keys: list[E], value_type: int, empty: E | None,
                 strict: bool) -> None:
        self.right = right  # columns: keys..., value, matched
        self.outer_keys = outer_keys  # over the enclosing row (as columns 0..)
        self.nkeys = len(outer_keys)
        self.value_type = value_type
        self.empty = empty  # v over no rows (with NULL or 0 aggregates)
        self.strict = strict  # v(empty) is NULL: the join's padding is the answer


def _split_eq(c: E) -> tuple[E, E] | None:
    """(inner side, outer side) of a correlated `inner = outer`, else None."""
    if c.kind != "op" or c.data != "=" or len(c.args) != 2:
        return None
    a, b = c.args
    for inner, outer in ((a, b), (b, a)):
        if _escapes(inner, 0) or any(x.kind == "col" for x in outer.walk()):
            continue
        if not _escapes(outer, 0) or any(x.kind in ("subquery", "exists", "array_sub", "in_sub")
                                         for x in outer.walk()):
            continue
        if not any(x.kind == "col" for x in inner.walk()):
            continue
        return inner, outer
    return None


def _keyed(inner: N.Node, keys: list[E], ctx: Any) -> bool:
    """True if the sub-plan reads a base table by one of `keys` (a key or index prefix)."""
    scan = inner.child if isinstance(inner, N.Filter) else inner
    if not isinstance(scan, N.Scan):
        return False
    table = scan.table
    firsts = {table.primary_key[0]} if table.primary_key else set()
    if ctx is not None:
        firsts |= {i.columns[0] for i in ctx.catalog.indexes_of(table.oid)
                   if i.columns and not i.predicate}
    for k in keys:
        if k.kind == "col" and k.data < len(scan.cols) and scan.cols[k.data].attnum in firsts:
            return True
    return False


def _decorrelate(plan: N.Node, outer_rows: float, ctx: Any,
                 enclosing: N.Node | None = None) -> _Decorrelated | None:
    """Builds the grouped right side for one scalar sub-plan, or None if it does not qualify;
    with the `enclosing` plan, its input keeps only the keys that plan can produce."""
    if not isinstance(plan, N.Project) or not isinstance(plan.child, N.Aggregate):
        return None
    visible = [i for i, c in enumerate(plan.cols) if not c.hidden]
    if len(visible) != 1:
        return None
    v = plan.exprs[visible[0]]
    agg = plan.child
    if agg.groups or agg.pushed or not agg.aggs:
        return None
    if any(a.func not in _ZERO_WHEN_EMPTY | _NULL_WHEN_EMPTY for a in agg.aggs):
        return None
    if _plan_escapes(plan, 1) or _volatile(plan):
        return None  # reads a row beyond the enclosing one, or must run per row
    if _escapes(v, 0) or any(x.kind not in _VALUE_KINDS for x in v.walk()):
        return None
    if not isinstance(agg.child, N.Filter):
        return None  # uncorrelated (or correlated deeper): cached or left alone
    body = agg.child
    local: list[E] = []
    inner_keys: list[E] = []
    outer_keys: list[E] = []
    for c in conjuncts(body.pred):
        if not _escapes(c, 0):
            local.append(c)
            continue
        pair = _split_eq(c)
        if pair is None:
            return None
        inner_keys.append(pair[0])
        outer_keys.append(pair[1])
    if not inner_keys:
        return None
    inner = body.child
    if _plan_escapes(inner, 0) or any(_escapes(e, 0) for a in agg.aggs
                                      for e in [*a.args, *(k.expr for k in a.order),
                                                *([a.filter] if a.filter is not None else [])]):
        return None
    if outer_rows < SMALL and _keyed(inner, inner_keys, ctx):
        return None
    # the enclosing row's key values as columns of the join's left side
    left_keys = []
    for k in outer_keys:
        r = _to_join_row(k, 0)
        if r is None:
            return None
        left_keys.append(r)
    source: N.Node = N.Filter(inner.cols, child=inner, pred=conj_all(local)) if local else inner
    # the body joins the enclosing plan: its own subqueries get the pre-rules it would have had
    source = scalar_subquery(semijoin(source, ctx), ctx)
    if enclosing is not None:
        source = reduce_groups(source, enclosing, list(zip(inner_keys, left_keys, strict=True)))
    gcols = [N.PCol(k.name, k.type, k.typmod) for k in inner_keys]
    for k, pc in zip(inner_keys, gcols, strict=True):
        if k.kind == "col":
            src = inner.cols[k.data]
            pc.qualifier, pc.table_oid, pc.attnum = src.qualifier, src.table_oid, src.attnum
    acols = agg.cols[len(agg.groups):]
    grouped = N.Aggregate([*gcols, *acols], child=source, groups=list(inner_keys), aggs=agg.aggs)
    nk = len(inner_keys)
    shifted = _remap(v, {i: i + nk for i in _cols_used([v])})
    vcol = plan.cols[visible[0]]
    right = N.Project(
        [*gcols, N.PCol(vcol.name, v.type, v.typmod), N.PCol("matched", T.BOOL)],
        child=grouped,
        exprs=[*(col(i, k.type, k.name, k.typmod) for i, k in enumerate(inner_keys)), shifted,
               const(True, T.BOOL)],
    )
    empty_values = [const(0, a.type) if a.func in _ZERO_WHEN_EMPTY else const(None, a.type)
                    for a in agg.aggs]
    strict = all(a.func in _NULL_WHEN_EMPTY for a in agg.aggs) and _strict(v)
    empty = None if strict else _substitute_cols(v, empty_values)
    return _Decorrelated(right, left_keys, v.type, empty, strict)


def _strict(v: E) -> bool:
    """True if v is NULL whenever its aggregates are: strict operators all the way down to at
    least one aggregate column."""
    nodes = list(v.walk())
    return any(x.kind == "col" for x in nodes) and all(
        x.kind in _STRICT and (x.kind != "op" or x.data in _STRICT_OPS) for x in nodes)


def _substitute_cols(e: E, values: list[E]) -> E:
    if e.kind == "col":
        return values[e.data]
    if not e.args:
        return e
    return E(e.kind, e.data, [_substitute_cols(a, values) for a in e.args], e.type, e.typmod,
             e.name, e.fields)


def _replace(e: E, repl: dict[int, E]) -> E:
    hit = repl.get(id(e))
    if hit is not None:
        return hit
    if not e.args:
        return e
    return E(e.kind, e.data, [_replace(a, repl) for a in e.args], e.type, e.typmod, e.name,
             e.fields)


def _join(left: N.Node, d: _Decorrelated, sub: E) -> tuple[N.Join, E]:
    """Left-joins `left` with the grouped side; returns the join and the subquery's value."""
    nl = len(left.cols)
    parts = [E("op", "=", [k, col(nl + i, d.right.cols[i].type, d.right.cols[i].name,
                                 d.right.cols[i].typmod)], T.BOOL)
             for i, k in enumerate(d.outer_keys)]
    join = N.Join([*left.cols, *d.right.cols], left=left, right=d.right, kind="left",
                  cond=conj_all(parts))
    value = col(nl + d.nkeys, d.value_type, sub.name, sub.typmod)
    if not d.strict:
        assert d.empty is not None
        matched = col(nl + d.nkeys + 1, T.BOOL, "matched")
        value = E("case", True, [E("isnull", None, [matched], T.BOOL), d.empty, value],
                  d.value_type, sub.typmod, sub.name)
    return join, value


def _subqueries(exprs: list[E]) -> list[E]:
    return [x for e in exprs for x in e.walk() if x.kind == "subquery"]


def _filter_above_semi(node: N.Node) -> N.Node:
    """`semijoin` puts its join above a Filter of the remaining conjuncts; one holding a
    scalar subquery goes above the semi join instead (a filter on the left row commutes
    with a semi join), so the subquery's outer keys are seen to come from the semi join
    (`keyreduce`: TPC-H Q20's `ps_partkey IN (...)` bounds the lineitem aggregate)."""
    if isinstance(node, N.Join) and node.kind == "semi" and not node.null_aware \
            and not node.lateral and isinstance(node.left, N.Filter) \
            and _subqueries([node.left.pred]):
        f = node.left
        return N.Filter(list(node.cols), child=dataclasses.replace(node, left=f.child),
                        pred=f.pred)
    return node


def scalar_subquery(plan: N.Node, ctx: Any) -> N.Node:
    """Turns qualifying correlated scalar subqueries of Filters and Projects into left joins."""
    plan = N.transform(plan, _filter_above_semi)

    def fn(node: N.Node) -> N.Node:
        if isinstance(node, N.Filter):
            preds = conjuncts(node.pred)
            with_sub = [c for c in preds if _subqueries([c])]
            if not with_sub:
                return node
            rest = [c for c in preds if not any(c is w for w in with_sub)]
            left: N.Node = N.Filter(node.child.cols, child=node.child, pred=conj_all(rest)) \
                if rest else node.child
            out, repl = _attach(left, with_sub, ctx)
            if out is left:
                return node
            top = N.Filter(out.cols, child=out, pred=conj_all([_replace(c, repl) for c in with_sub]))
            return _restore(top, node.cols)
        if isinstance(node, N.Project):
            if not _subqueries(node.exprs):
                return node
            out, repl = _attach(node.child, node.exprs, ctx)
            if out is node.child:
                return node
            return N.Project(node.cols, child=out, exprs=[_replace(e, repl) for e in node.exprs])
        return node

    return N.transform(plan, fn)


def _attach(left: N.Node, exprs: list[E], ctx: Any) -> tuple[N.Node, dict[int, E]]:
    """Joins every qualifying subquery of `exprs` onto `left`; returns it and the replacements."""
    repl: dict[int, E] = {}
    rows: float | None = None
    for sub in _subqueries(exprs):
        if rows is None:
            rows = estimate(left)
        d = _decorrelate(sub.data, rows, ctx, left)
        if d is None:
            continue
        left, repl[id(sub)] = _join(left, d, sub)
    return left, repl


def _restore(node: N.Node, cols: list[N.PCol]) -> N.Node:
    """Projects away the joined columns: the rewrite's output is the original node's."""
    return N.Project(list(cols), child=node,
                     exprs=[col(i, c.type, c.name, c.typmod) for i, c in enumerate(cols)])
