"""Rule: EXISTS / NOT EXISTS / IN / NOT IN / = ANY / <> ALL conjuncts of a WHERE become
semi- and anti-joins, so a correlated sub-plan runs once instead of once per outer row.

Why: a correlated subquery re-runs its plan for every outer row (CH-benCHmark
Q21 probes order_line once per order line); a semi join builds one hash table
of the sub-plan's rows and probes it. PostgreSQL does the same ("Hash Semi
Join", "Hash Anti Join").

What qualifies: a top-level conjunct of a Filter (a NOT or OR around it would
need three-valued results a join cannot give), whose sub-plan is, after
peeling the select list (and Sort / Distinct for EXISTS),

    Filter(local AND correlated, body)     or an uncorrelated plan.

`correlated` conjuncts read the Filter's input row only through depth-1
`outer` references; they move into the join condition, where equalities
become hash keys and the rest (Q21's `l2.ol_delivery_d > l1.ol_delivery_d`)
the residual. Nothing else in the sub-plan (including its own sub-plans) may
reach an enclosing row. The new join sits above a Filter of the remaining
conjuncts, so `join_order` still sees the FROM tree under its Filter.

NULLs: a semi join never matches a NULL key, which is what IN and EXISTS need
in a WHERE (NULL and false both reject). NOT EXISTS is a plain anti join.
`x NOT IN (subquery)` is NULL, not true, when x is NULL or the subquery yields
a NULL, so it becomes a plain anti join only when both x and the subquery's
column are provably non-null (NOT NULL or primary-key columns); otherwise an
uncorrelated NOT IN becomes a null-aware anti join (empty right side: every
row qualifies; a NULL on the right: none does; a NULL x: never, unless the
right side is empty), and a correlated one stays a subquery.

The rule reads sub-plans before the other rules have optimized them (point
gets with `outer` keys could not be decorrelated), so `rules.optimize` runs it
before optimizing nested plans.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.semijoin import semijoin
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(semijoin, "select b from t where a in (select x from u)")
    Project b
      Filter in_sub(...)
        Scan t
        SubPlan
          Project x
            Scan u
    =>
    Project b
      Nested Loop Semi Join on=(a = x)
        Scan t
        Scan u
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E, col
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from ..plan.nodeexprs import node_exprs
from .join_algorithm import hashable_pair
from .pushdown_join_filters import conj, conj_all

_SUBPLANS = ("subquery", "exists", "array_sub", "in_sub")


def _sub_of(x: E) -> N.Node:
    return x.data[0] if x.kind == "in_sub" else x.data


def _node_exprs(n: N.Node):
    for v in vars(n).values():
        if isinstance(v, N.AggCall):
            yield from node_exprs([v])
        else:
            yield from node_exprs(v)
        if isinstance(v, list):
            for a in v:
                if isinstance(a, N.AggCall) and a.filter is not None:
                    yield a.filter


def _escapes(e: E, level: int) -> bool:
    """True if `e`, evaluated `level` sub-plans deep, reads a row outside the level-0 plan."""
    for x in e.walk():
        if x.kind == "outer" and x.data[0] > level:
            return True
        if x.kind in _SUBPLANS and _plan_escapes(_sub_of(x), level + 1):
            return True
    return False


def _plan_escapes(plan: N.Node, level: int = 0) -> bool:
    """True if any expression in `plan` (or its sub-plans and WITH queries) reads an outer row
    that lies outside the plan found `level` sub-plans above."""
    if isinstance(plan, N.CTEScan) and _plan_escapes(plan.cte.plan, level):
        return True
    for e in _node_exprs(plan):
        if _escapes(e, level):
            return True
    if isinstance(plan, N.Join) and plan.lateral:
        # a LATERAL right side reads the left row as its depth-1 outer row: one level deeper
        return _plan_escapes(plan.left, level) or _plan_escapes(plan.right, level + 1)
    return any(_plan_escapes(c, level) for c in plan.children)


def _to_join_row(e: E, nl: int) -> E | None:
    """Rewrites a correlated conjunct over (sub-plan row, outer row) to the join's row
    (left = outer row, right = sub-plan row); None if it reads anything else."""
    if e.kind == "outer":
        depth, idx = e.data
        return col(idx, e.type, e.name, e.typmod) if depth == 1 else None
    if e.kind == "col":
        return col(e.data + nl, e.type, e.name, e.typmod)
    if e.kind in _SUBPLANS or (e.kind == "call" and e.data.volatile):
        return None
    args = []
    for a in e.args:
        r = _to_join_row(a, nl)
        if r is None:
            return None
        args.append(r)
    return E(e.kind, e.data, args, e.type, e.typmod, e.name, e.fields)


def _cols_used(exprs: list[E]) -> set[int]:
    return {x.data for e in exprs for x in e.walk() if x.kind == "col"}


def _remap(e: E, mapping: dict[int, int]) -> E:
    if e.kind == "col":
        return col(mapping[e.data], e.type, e.name, e.typmod)
    if not e.args:
        return e
    return E(e.kind, e.data, [_remap(a, mapping) for a in e.args], e.type, e.typmod, e.name,
             e.fields)


def never_null(e: E, node: N.Node) -> bool:
    """True if `e` over `node`'s rows can never be NULL (NOT NULL / primary-key columns)."""
    if e.kind == "const":
        return e.data is not None
    if e.kind != "col":
        return False
    i = e.data
    while True:
        if isinstance(node, N.Scan | N.PointGet | N.IndexLookup):
            if i >= len(node.cols):
                return False
            pc = node.cols[i]
            table = node.table
            if pc.attnum in table.primary_key:
                return True
            return any(c.attnum == pc.attnum and c.not_null for c in table.columns)
        if isinstance(node, N.Filter | N.Sort | N.Limit | N.Distinct):
            node = node.child
        elif isinstance(node, N.Project):
            if i >= len(node.exprs):
                return False
            return never_null(node.exprs[i], node.child)
        elif isinstance(node, N.Join) and not node.lateral:
            nl = len(node.left.cols)
            if i < nl and node.kind in ("inner", "left", "semi", "anti"):
                node = node.left
            elif i >= nl and node.kind == "inner":
                node, i = node.right, i - nl
            else:
                return False
        else:
            return False


class _Sub:
    """One subquery conjunct, classified."""

    def __init__(self, kind: str, plan: N.Node, lhs: E | None) -> None:
        self.kind = kind  # exists, not_exists, in, not_in
        self.plan = plan
        self.lhs = lhs


def _classify(c: E) -> _Sub | None:
    neg = False
    if c.kind == "not" and c.args:
        neg, c = True, c.args[0]
    if c.kind == "exists":
        return _Sub("not_exists" if neg else "exists", c.data, None)
    if c.kind == "in_sub":
        plan, op, is_all = c.data
        if op == "=" and not is_all:
            return _Sub("not_in" if neg else "in", plan, c.args[0])
        if op == "<>" and is_all and not neg:
            return _Sub("not_in", plan, c.args[0])
    return None


def _peel(plan: N.Node, keep_project: bool) -> tuple[N.Node, E | None]:
    """Strips what a semi join ignores; returns (body, the compared value over body's rows)."""
    node = plan
    while True:
        if isinstance(node, N.Sort) or (isinstance(node, N.Distinct) and not keep_project):
            node = node.child
        elif (not keep_project and isinstance(node, N.Limit) and node.offset is None
              and node.ties is None and node.limit is not None and node.limit.kind == "const"
              and isinstance(node.limit.data, int) and node.limit.data >= 1):
            node = node.child  # EXISTS (... LIMIT 1) needs one row either way
        elif isinstance(node, N.Distinct) and keep_project and isinstance(node.child, N.Project):
            node = node.child  # IN ignores duplicates of the compared value
        elif isinstance(node, N.Project) and not any(
            x.kind == "srf" for e in node.exprs for x in e.walk()
        ):
            if keep_project:
                visible = [e for e, c in zip(node.exprs, node.cols, strict=True) if not c.hidden]
                if len(visible) != 1:
                    return plan, None
                return node.child, visible[0]
            node = node.child
        else:
            return node, None


def _rewrite(left: N.Node, sub: _Sub) -> N.Join | None:
    """Builds the semi/anti join of `left` with the sub-plan, or None if it does not qualify."""
    nl = len(left.cols)
    plan = sub.plan
    is_in = sub.kind in ("in", "not_in")
    if is_in and (sub.lhs is None or _escapes(sub.lhs, 0)
                  or any(x.kind in _SUBPLANS for x in sub.lhs.walk())):
        return None
    if _plan_escapes(plan, 1):
        return None  # something reads a row beyond the Filter's input row
    correlated = _plan_escapes(plan, 0)
    if not correlated and not is_in:
        return None  # uncorrelated EXISTS: the cached subquery stops at its first row
    body, value = _peel(plan, keep_project=is_in)
    if is_in and value is None:
        if correlated:
            return None
        visible = [i for i, c in enumerate(plan.cols) if not c.hidden]
        if len(visible) != 1:
            return None
        c0 = plan.cols[visible[0]]
        body, value = plan, col(visible[0], c0.type, c0.name, c0.typmod)
    local: list[E] = []
    corr: list[E] = []
    if isinstance(body, N.Filter):
        for c in conjuncts(body.pred):
            (corr if _escapes(c, 0) else local).append(c)
        inner = body.child
    else:
        inner = body
    if _plan_escapes(inner, 0) or (value is not None and _escapes(value, 0)):
        return None  # the correlation is not (only) in the top Filter
    null_aware = False
    if sub.kind == "not_in":
        assert sub.lhs is not None and value is not None
        if not (never_null(sub.lhs, left) and never_null(value, inner)):
            if corr or not hashable_pair(sub.lhs.type, value.type):
                return None  # correlated NOT IN with possible NULLs: keep the subquery
            null_aware = True
    # the right side: the sub-plan's rows restricted by the local conjuncts, narrowed to the
    # columns the join reads (push_projection then narrows the scan); a bare table scan stays
    # whole, so that join_algorithm may still make it a bind join
    if not local and isinstance(inner, N.Scan):
        right: N.Node = inner
        mapping = {i: i for i in range(len(inner.cols))}
    else:
        needed = sorted(_cols_used(corr + ([value] if value is not None else [])))
        right_body = N.Filter(inner.cols, child=inner, pred=conj_all(local)) if local else inner
        mapping = {old: new for new, old in enumerate(needed)}
        right = N.Project([inner.cols[i] for i in needed], child=right_body,
                          exprs=[col(i, inner.cols[i].type, inner.cols[i].name,
                                     inner.cols[i].typmod) for i in needed])
    parts = []
    for c in corr:
        r = _to_join_row(_remap(c, mapping), nl)
        if r is None:
            return None
        parts.append(r)
    if is_in:
        assert value is not None and sub.lhs is not None
        rv = _to_join_row(_remap(value, mapping), nl)
        if rv is None:
            return None
        parts.insert(0, E("op", "=", [sub.lhs, rv], 16))
    kind = "semi" if sub.kind in ("exists", "in") else "anti"
    join = N.Join(list(left.cols), left=left, right=right, kind=kind, cond=conj(parts))
    if null_aware:
        assert value is not None and sub.lhs is not None
        join.null_aware = True  # executed by key alone: set the keys now
        join.left_keys = [sub.lhs]
        join.right_keys = [_remap(value, mapping)]
        join.algo = "hash"
    if isinstance(right, N.Project):
        right.child = semijoin(right.child, None)
    else:
        join.right = semijoin(right, None)
    return join


def semijoin(plan: N.Node, ctx: Any) -> N.Node:
    """Turns qualifying subquery conjuncts of Filters into semi and anti joins."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Filter):
            return node
        rest: list[E] = []
        subs: list[tuple[E, _Sub]] = []
        for c in conjuncts(node.pred):
            s = _classify(c)
            (subs.append((c, s)) if s is not None else rest.append(c))
        if not subs:
            return node
        left: N.Node = node.child
        joins: list[N.Join] = []
        kept: list[E] = []
        for c, s in subs:
            j = _rewrite(left, s)
            if j is None:
                kept.append(c)
            else:
                joins.append(j)
        if not joins:
            return node
        rest = rest + kept
        out: N.Node = N.Filter(node.child.cols, child=node.child, pred=conj_all(rest)) \
            if rest else node.child
        for j in joins:
            j.left = out
            out = j
        return out

    return N.transform(plan, fn)
