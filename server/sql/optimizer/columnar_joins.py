"""The join trees the columnar rule may compute with vectorized hash joins (`exec.vector.join`).

`source_of(node)` turns a row subtree into its vector form (`exec.vector.plan`'s
`Source*` descriptions), or says None. The subtree is read as the builder made
it, before `join_order` and the pushdown rules (the rule runs first): a Filter
over a tree of inner and cross joins is one n-ary inner join whose conjuncts
this module sorts out itself:

- a conjunct over one input filters that input (its scan's predicate, so zone
  maps prune with it); one with no vector form (run as row code) waits until
  that input is joined, usually to far fewer rows;
- `a = b` with a over one input and b over another, of types that compare alike
  (`join_algorithm.hashable_pair`, and not char(n), whose padding `=` ignores), is
  a join key between them;
- any other conjunct is a residual, applied once the inputs it reads are joined.

LEFT, semi and anti joins keep their place: their ON keys are split the same
way; an ON conjunct over the right side only filters the right input (PostgreSQL
does the same), the rest is the residual. NOT IN's null-aware anti join is one
when it has a single key and nothing else. RIGHT and FULL joins, LATERAL, and
every expression with no vector form (`expr.vectorize`) or reading an outer query
or a sub-plan (but an uncorrelated scalar subquery), keep the row path for the
whole subtree.

    >>> source_of(N.Values([], rows=[])) is None
    True
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..exec.vector.plan import (
    Columnar,
    SourceFilter,
    SourceInner,
    SourceJoin,
    SourceProject,
    SourceRows,
    SourceScan,
    inputs_of,
)
from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..expr.vectorize import vectorizable
from ..plan import nodes as N
from .join_algorithm import hashable_pair
from .pushdown_join_filters import conj, conj_all, shift
from .stats import STATS

MIN_ROWS = 1000  # analyzed tables smaller than this stay on the row path
_OPAQUE = ("outer", "subquery", "exists", "in_sub", "array_sub", "srf", "srf_field")


def plain(e: E) -> bool:
    """No outer reference and no sub-plan but uncorrelated scalar subqueries (one value per
    execution, `vectorize._v_subquery`): an expression over the input row only."""
    return not any(x.kind in _OPAQUE and not (x.kind == "subquery" and vectorizable(x))
                   for x in e.walk())


# result types whose Python values `encode` turns into a typed column: an expression with no
# vector form but one of these types runs as row code over the frame (`exec.vector.rowexpr`)
_BRIDGED = frozenset((T.INT2, T.INT4, T.INT8, T.FLOAT4, T.FLOAT8, T.NUMERIC, T.BOOL, T.TEXT,
                      T.VARCHAR, T.DATE, T.TIMESTAMP))


# a numeric chosen among values of several scales (`CASE ... THEN ol_amount ELSE 0 END`) has
# a scale per row, which a numeric column cannot hold: PostgreSQL's sum keeps, per group, the
# largest scale of its own rows
_SCALES = frozenset(("case", "coalesce", "greatest", "least", "nullif"))


def bridged(e: E, scales: bool = False) -> bool:
    """Tells whether the vector path computes e: by vector code, or by row code over columns
    (`scales`: even a numeric whose values have several scales, aligned to the largest)."""
    if not plain(e):
        return False
    if vectorizable(e):
        return True
    if not scales and e.type == T.NUMERIC and any(x.kind in _SCALES for x in e.walk()):
        return False
    return e.type in _BRIDGED


_vector = bridged


def first_key(scan: N.Scan) -> int | None:
    t = scan.table
    if not t.primary_key:
        return None
    pos = {c.attnum: i for i, c in enumerate(sorted(t.columns, key=lambda c: c.attnum))}
    return pos.get(t.primary_key[0])


def keyed(pred: E, scan: N.Scan, ops: tuple[str, ...] = ("=",)) -> bool:
    """Tells whether the row path reads this by key: `=` (or one of `ops`) on the first
    primary-key column against a constant or parameter, or an IN list on it."""
    first = first_key(scan)
    if first is None:
        return False
    for c in conjuncts(pred):
        if c.kind == "op" and c.data in ops:
            a, b = c.args
            for x, y in ((a, b), (b, a)):
                if x.kind == "col" and x.data == first and y.kind in ("const", "param"):
                    return True
        if c.kind == "in_list" and c.args[0].kind == "col" and c.args[0].data == first:
            return True
    return False


def _cols(e: E) -> set[int]:
    return {x.data for x in e.walk() if x.kind == "col"}


def _scan(node: N.Scan, pred: E | None) -> SourceScan | SourceFilter | None:
    s = node
    if s.table is None or not s.table.space:
        return None
    if (s.lo is not None or s.hi is not None or s.ir is not None or s.limit is not None
            or s.with_keys or s.aggregate is not None or s.projection is not None or s.reverse):
        return None
    if pred is not None and (keyed(pred, s) or not _vector(pred)):
        return None
    fast = [c for c in conjuncts(pred) if vectorizable(c)] if pred is not None else []
    slow = [c for c in conjuncts(pred) if not vectorizable(c)] if pred is not None else []
    src = SourceScan(s.table, conj(fast), [c.type for c in s.cols], [c.typmod for c in s.cols])
    return SourceFilter(src, conj_all(slow)) if slow else src


def _restrict(src: Any, preds: list[E]) -> Any:
    """src filtered by preds (over its columns): into the scan's predicate when it is a scan."""
    if not preds:
        return src
    if isinstance(src, SourceScan) and all(vectorizable(p) for p in preds):
        p = conj(([src.pred] if src.pred is not None else []) + preds)
        return SourceScan(src.table, p, src.types, src.typmods)
    return SourceFilter(src, conj_all(preds))


def source_of(node: N.Node) -> Any:
    """The vector form of a row subtree, or None (see the module doc)."""
    src = _source(node, [])
    if src is None or not _worth_it(src):
        return None
    return src


def _worth_it(src: Any) -> bool:
    """A join of tables that are all known to be small stays on the row path; so does one
    table, which the rule's own single-scan shapes cover, unless a filter on it has no
    vector form (row code over its columns: CH-benCHmark Q22's `substring(c_phone ...) IN`).
    An aggregate's rows (`SourceRows`) alone are worth it: a vector aggregate read as
    columns (`aggframe`) instead of a tuple per group (TPC-H Q13's count per customer,
    grouped again by that count)."""
    scans = list(_scans(src))
    if not any(isinstance(s, (SourceInner, SourceJoin, SourceFilter, SourceRows))
               for s in _walk(src)):
        return False
    if not scans:
        return True
    for s in scans:
        ts = STATS.get(s.table.oid)
        if ts is None or ts.rows >= MIN_ROWS:
            return True
    return False


def _walk(src: Any) -> Any:
    """src and every source under it, parents first."""
    yield src
    for c in inputs_of(src):
        yield from _walk(c)


def _scans(src: Any) -> Any:
    return (s for s in _walk(src) if isinstance(s, SourceScan))


def _source(node: N.Node, preds: list[E]) -> Any:
    """node's vector form, filtered by preds (conjuncts over node's columns)."""
    if isinstance(node, N.Filter):
        return _source(node.child, preds + conjuncts(node.pred))
    if isinstance(node, N.Scan):
        return _scan(node, conj(preds))
    if isinstance(node, Columnar):  # an aggregate computed by vector code already: its rows
        # (an AVG's numerics may have a scale per group: such a column holds the Decimals as
        # objects, which no key or aggregate kernel takes and row code compares exactly)
        if not isinstance(node.row, N.Aggregate) or not all(_vector(p) for p in preds):
            return None
        rows = SourceRows(node, [c.type for c in node.cols], [c.typmod for c in node.cols])
        return _restrict(rows, preds)
    if isinstance(node, N.Project):
        if not all(_vector(e) for e in node.exprs) or not all(_vector(p) for p in preds):
            return None
        child = _source(node.child, [])
        return None if child is None else _restrict(SourceProject(child, list(node.exprs)), preds)
    if isinstance(node, N.Join) and not node.lateral:
        if node.kind in ("inner", "cross"):
            return _inner(node, preds)
        if node.kind in ("left", "semi", "anti") and (not node.null_aware or node.kind == "anti"):
            if not all(_vector(p) for p in preds):
                return None
            j = _outer(node)
            return None if j is None else _restrict(j, preds)
    return None


def _flatten(node: N.Node, at: int, inputs: list[N.Node], conds: list[E]) -> None:
    """The inputs of a tree of inner / cross joins (and Filters above them), conjuncts
    renumbered to the whole tree's columns."""
    if isinstance(node, N.Join) and node.kind in ("inner", "cross") and not node.lateral:
        if node.cond is not None:
            conds.extend(shift(c, -at) for c in conjuncts(node.cond))
        _flatten(node.left, at, inputs, conds)
        _flatten(node.right, at + len(node.left.cols), inputs, conds)
        return
    if isinstance(node, N.Filter) and isinstance(node.child, N.Join) \
            and node.child.kind in ("inner", "cross") and not node.child.lateral:
        conds.extend(shift(c, -at) for c in conjuncts(node.pred))
        _flatten(node.child, at, inputs, conds)
        return
    inputs.append(node)


def _key_type(e: E) -> bool:
    return e.type != T.BPCHAR


def _inner(node: N.Join, preds: list[E]) -> Any:
    inputs: list[N.Node] = []
    conds: list[E] = []
    _flatten(node, 0, inputs, conds)
    conds = [x for c in conds + preds for x in factor(c)]
    widths = [len(i.cols) for i in inputs]
    starts = [sum(widths[:k]) for k in range(len(widths) + 1)]

    def owner(c: int) -> int:
        return next(k for k in range(len(inputs)) if starts[k] <= c < starts[k + 1])

    own: list[list[E]] = [[] for _ in inputs]
    edges: list[tuple[int, int, E, E]] = []
    residuals: list[tuple[frozenset[int], E]] = []
    for c in conds:
        if not _vector(c):
            return None
        cols = _cols(c)
        if not cols:
            return None  # a constant conjunct: rare; the row path
        ins = frozenset(owner(x) for x in cols)
        if len(ins) == 1 and vectorizable(c):
            (k,) = ins
            own[k].append(shift(c, starts[k]))
            continue
        # a conjunct over one input with no vector form costs Python per row: it waits until
        # that input is joined, usually to far fewer rows (a residual of that input alone)
        if c.kind == "op" and c.data == "=" and len(ins) == 2:
            a, b = c.args
            sa, sb = {owner(x) for x in _cols(a)}, {owner(x) for x in _cols(b)}
            if len(sa) == 1 and len(sb) == 1 and sa != sb and hashable_pair(a.type, b.type) \
                    and _key_type(a) and _key_type(b):
                (i,), (j,) = sa, sb
                edges.append((i, j, shift(a, starts[i]), shift(b, starts[j])))
                continue
        residuals.append((ins, c))
    if not _connected(len(inputs), edges):
        return None  # a cross product: the row path
    for ins, r in list(residuals):  # each input's part of an OR over several: implied filters
        for k in ins:
            d = implied(r, starts[k], starts[k + 1])
            if d is not None and vectorizable(d):
                own[k].append(shift(d, starts[k]))
            elif d is not None:  # row code: once k is joined, or at once if k comes first
                residuals.append((frozenset((k,)), d))
    srcs = []
    for k, n in enumerate(inputs):
        s = _source(n, own[k])
        if s is None:
            return None
        srcs.append(s)
    if len(srcs) == 1:
        return _restrict(srcs[0], [r for _, r in residuals])
    return SourceInner(srcs, widths, edges, residuals, [_pk(n) for n in inputs])


def _pk(node: N.Node) -> frozenset[int] | None:
    while isinstance(node, N.Filter):
        node = node.child
    if not isinstance(node, N.Scan) or not node.table.primary_key:
        return None
    pos = {c.attnum: i for i, c in enumerate(sorted(node.table.columns, key=lambda c: c.attnum))}
    return frozenset(pos[a] for a in node.table.primary_key)


def implied(c: E, lo: int, hi: int) -> E | None:
    """What an OR says about columns lo..hi-1 alone: the OR of each branch's conjuncts over
    them (None when some branch says nothing). CH-benCHmark Q7's
    `(n1.n_name = 'Germany' AND n2.n_name = 'Cambodia') OR (...)` implies
    `n1.n_name = 'Germany' OR n1.n_name = 'Cambodia'`, a filter on n1 before any join."""
    if c.kind != "or":
        return None
    parts = []
    for b in disjuncts(c):
        mine = [x for x in conjuncts(b) if (cols := _cols(x)) and lo <= min(cols)
                and max(cols) < hi and _vector(x)]
        if not mine:
            return None
        parts.append(conj_all(mine))
    return E("or", None, parts, c.type)


def _connected(n: int, edges: list[tuple[int, int, E, E]]) -> bool:
    seen = {0}
    grew = True
    while grew:
        grew = False
        for i, j, _, _ in edges:
            if (i in seen) != (j in seen):
                seen |= {i, j}
                grew = True
    return len(seen) == n


def disjuncts(e: E) -> list[E]:
    """The branches of an OR, nested ORs flattened."""
    if e.kind != "or":
        return [e]
    return [d for a in e.args for d in disjuncts(a)]


def _shape(e: E) -> tuple:
    """A structural key: equal shapes are the same expression (columns by position)."""
    return (e.kind, e.data if e.kind == "col" else repr(e.data), e.type,
            tuple(_shape(a) for a in e.args))


def same(a: E, b: E) -> bool:
    """Whether a and b are the same expression (columns by position)."""
    return _shape(a) == _shape(b)



def factor(c: E) -> list[E]:
    """An OR whose every branch has the same conjunct (`(k = x AND a) OR (k = x AND b)`, as in
    CH-benCHmark Q19) as that conjunct AND the OR of the rest, so the join finds its key.

    >>> from cumulo.server.sql.expr.bound import col, const
    >>> k = E("op", "=", [col(0, T.INT4), col(1, T.INT4)], T.BOOL)
    >>> a = E("op", ">", [col(0, T.INT4), const(1, T.INT4)], T.BOOL)
    >>> b = E("op", "<", [col(1, T.INT4), const(5, T.INT4)], T.BOOL)
    >>> [repr(x) for x in factor(E("or", None, [E("and", None, [k, a], T.BOOL),
    ...                                          E("and", None, [k, b], T.BOOL)], T.BOOL))]
    ['(#0 = #1)', '((#0 > 1) OR (#1 < 5))']
    """
    if c.kind != "or":
        return [c]
    branches = [conjuncts(b) for b in disjuncts(c)]
    common = [x for x in branches[0] if all(any(same(x, y) for y in b) for b in branches[1:])]
    if not common:
        return [c]
    keys = {_shape(x) for x in common}
    rest = [[y for y in b if _shape(y) not in keys] for b in branches]
    if any(not r for r in rest):
        return common  # a branch is the common part alone: the OR adds nothing
    return common + [E("or", None, [conj_all(r) for r in rest], c.type)]


def _outer(node: N.Join) -> Any:
    nl = len(node.left.cols)
    lk: list[E] = []
    rk: list[E] = []
    right_only: list[E] = []
    rest: list[E] = []
    for c in conjuncts(node.cond) if node.cond is not None else []:
        if not _vector(c):
            return None
        cols = _cols(c)
        if cols and min(cols) >= nl:
            right_only.append(shift(c, nl))
            continue
        if c.kind == "op" and c.data == "=":
            a, b = c.args
            ca, cb = _cols(a), _cols(b)
            for x, y, cx, cy in ((a, b, ca, cb), (b, a, cb, ca)):
                if cx and cy and max(cx) < nl and min(cy) >= nl \
                        and hashable_pair(x.type, y.type) and _key_type(x) and _key_type(y):
                    lk.append(x)
                    rk.append(shift(y, nl))
                    break
            else:
                rest.append(c)
            continue
        rest.append(c)
    if not lk or node.null_aware and (len(lk) != 1 or rest or right_only):
        return None
    left = _source(node.left, [])
    right = _source(node.right, right_only)
    if left is None or right is None:
        return None
    return SourceJoin(left, right, node.kind, lk, rk, conj(rest), nl, node.null_aware)


__all__ = ["MIN_ROWS", "bridged", "factor", "first_key", "keyed", "plain", "same", "source_of"]
