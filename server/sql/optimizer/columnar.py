"""Rule: analytic subtrees over one table get a columnar (vectorized) alternative.

Two shapes, over a full scan of one table with an optional filter:

    Aggregate(groups and count(*), count, sum, avg, min, max of columns or of
              vectorizable expressions over them) <- [Filter] <- Scan
    Limit(n) <- [Project] <- Sort <- [Project] <- [Filter] <- Scan      (top-N)

(the builder sorts a Project, whose expressions the first sort key is read through).
A third, over a join tree only, is taken after those two (top-down, so a top-N keeps its
Limit): `Sort <- [Project] <- join tree` (TPC-H Q20's outer query, `_sorted`).
An aggregate or a top-N may also read a join tree of such scans (inner, LEFT, semi,
anti and NOT IN's null-aware anti hash equi-joins, `columnar_joins.source_of`), or
one scan whose filter has no vector form: it becomes a `ColumnarJoin`, whose vector
form joins the filtered scans by position arrays (`exec.vector.join`; a top-N turns
only its candidates into rows, `exec.vector.jointopn`). COUNT(DISTINCT x) groups by
the keys and x, and the node's own Aggregate counts the distinct pairs (`_distinct`).
An uncorrelated scalar subquery in a filter is one constant per execution.

Each becomes `Columnar(row=<the subtree>, spec=<its vector form>)`: the row
subtree stays as the child, and the rules after this one optimize it as
before (push_aggregate, pushdown_filters, ...), so `cumulo.columnar = off`
runs exactly the plan Cumulo ran without this rule. The predicate and sort
key must compile to vector code (`expr.vectorize`), which this rule tries.

Cost: the vector form reads every pack of the table, so lookups that the row
path answers by key stay there: a filter fixing the whole primary key (a
point get) or any equality on its first column (a key range) is left alone,
as are tables whose statistics say they are small (`MIN_ROWS`). A range
(`<`, `>`, ...) on the first key column is decided at run time under `auto`
(`VectorSpec.key_range`): the zone maps count the rows the range can hold,
and a small range goes to the row path.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.columnar import columnar
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(columnar, "select b, sum(c) from t group by b")
    Project b, sum
      Aggregate group=[b] aggs=[sum(c)]
        Scan t
    =>
    Project b, sum
      Columnar
        Aggregate group=[b] aggs=[sum(c)]
          Scan t
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from ...kivi.api import AggSpec
from ...pgtypes import oids as T
from ..exec.vector.jointopn import rows_capable
from ..exec.vector.plan import Columnar, ColumnarJoin, Prepared, SourceScan, VectorSpec, inputs_of
from ..expr.bound import E
from ..expr.vectorize import PLAIN_TYPES, vectorizable
from ..plan import nodes as N
from ..plan.nodeexprs import node_exprs
from .columnar_joins import MIN_ROWS, bridged, keyed, plain, same, source_of
from .stats import STATS

_AGGS = ("count_star", "count", "sum", "min", "max", "avg")


def columnar(plan: N.Node, ctx: Any) -> N.Node:
    """Wraps vectorizable aggregate and top-N subtrees in `Columnar`."""

    def fn(node: N.Node) -> N.Node:
        if isinstance(node, N.Aggregate):
            return _aggregate(node) or node
        if isinstance(node, N.Limit):
            return _topn(node) or node
        return node

    return _sorts(N.transform(plan, fn))


def _sorts(node: N.Node) -> N.Node:
    """Top-down, after the other shapes (a Limit over a Sort is a top-N, never a sort): a
    Sort over a join tree gets the vector form of the join (`_sorted`)."""
    if isinstance(node, Columnar):
        return node
    if isinstance(node, N.Sort):
        wrapped = _sorted(node)
        if wrapped is not None:
            return wrapped
    for k, v in list(vars(node).items()):
        if isinstance(v, N.Node):
            setattr(node, k, _sorts(v))
    return node


def _base(node: N.Node) -> tuple[N.Scan, E | None] | None:
    """The plain full Scan under an optional Filter, with the filter's predicate."""
    pred = None
    if isinstance(node, N.Filter):
        pred, node = node.pred, node.child
    if not isinstance(node, N.Scan) or node.table is None or not node.table.space:
        return None
    s = node
    if (s.lo is not None or s.hi is not None or s.ir is not None or s.limit is not None
            or s.with_keys or s.aggregate is not None or s.projection is not None or s.reverse):
        return None
    if pred is not None and (_keyed(pred, s) or not vectorizable(pred)):
        return None
    if pred is not None and not plain(pred):
        return None
    ts = STATS.get(s.table.oid)
    if ts is not None and ts.rows < MIN_ROWS:
        return None
    return s, pred


def _keyed(pred: E, scan: N.Scan, ops: tuple[str, ...] = ("=",)) -> bool:
    return keyed(pred, scan, ops)


def _ranged(pred: E | None, scan: N.Scan) -> bool:
    """A range on the first primary-key column: the row path reads only that key range."""
    return pred is not None and _keyed(pred, scan, ("<", "<=", ">", ">="))


def _plain(e: E) -> bool:
    return plain(e)


def _ncols(scan: N.Scan) -> int:
    return len(scan.table.columns)


def _aggregate(node: N.Aggregate) -> Columnar | None:
    if node.pushed:
        return None
    base = _base(node.child)
    source = None
    if base is None:
        source = source_of(node.child)
        if source is None:
            return None
        ncols = len(node.child.cols)
    else:
        ncols = _ncols(base[0])
    exprs: list[E] = []  # computed columns, numbered from ncols on

    scaled: set[int] = set()  # computed numerics that may mix scales (see `bridged`)

    def column(e: E, summed: bool = False) -> int | None:
        """The stored column e reads, or the number of a computed column for it. `summed`:
        e is the argument of SUM or AVG over a single group, where PostgreSQL's result has
        the largest scale of all values: a numeric CASE of several scales may be aligned."""
        if e.kind == "col":
            return e.data if e.data < ncols and e.type in PLAIN_TYPES else None
        if any(x.kind == "col" and x.data >= ncols for x in e.walk()) or not _plain(e):
            return None
        if not (vectorizable(e) or source is not None and bridged(e, summed)):
            return None
        exprs.append(e)
        if summed and not bridged(e):
            scaled.add(len(exprs) - 1)
        return ncols + len(exprs) - 1

    row_scales: dict[int, int] = {}

    def mixed(e: E) -> int | None:
        """A numeric SUM / AVG argument whose rows may differ in scale, under GROUP BY over a
        join tree (TPC-H Q8's `sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END)`):
        its values at the largest scale, plus a column of each row's scale."""
        if source is None or e.type != T.NUMERIC or bridged(e) or not bridged(e, True) \
                or any(x.kind == "col" and x.data >= ncols for x in e.walk()):
            return None
        exprs.extend((e, e))
        row_scales[len(exprs) - 1] = len(exprs) - 2
        return ncols + len(exprs) - 2

    groups = [column(g) for g in node.groups]
    if any(g is None for g in groups):
        return None
    if any(a.distinct for a in node.aggs):
        dist = _distinct(node, column)
        if dist is None:
            return None
        spec, merge, partials = dist
        return _wrap(node, spec, merge, partials, source, base, exprs, ncols, scaled, True)
    specs: list[tuple[str, int | None]] = []
    scales: list[tuple[int, int]] = []  # (partial sum, column of its rows' scales)
    for a in node.aggs:
        if a.func not in _AGGS or a.distinct or a.order or a.filter is not None:
            return None
        if a.func == "count_star":
            specs.append(("count_star", None))
            continue
        if len(a.args) != 1:
            return None
        c = column(a.args[0], not node.groups and a.func in ("sum", "avg"))
        if c is None and node.groups and a.func in ("sum", "avg"):
            c = mixed(a.args[0])
            if c is not None:
                scales.append((len(specs), c + 1))
        if c is None:
            return None
        specs += [("sum", c), ("count", c)] if a.func == "avg" else [(a.func, c)]
    rescale = []
    for at, sc in scales:  # hidden partials after the node's own: the merge ignores them
        rescale.append((at, len(specs)))
        specs.append(("max", sc))
    spec = AggSpec(tuple(g for g in groups if g is not None), tuple(specs))
    partials = Prepared([], aggregate=spec)
    merge = copy.copy(node)
    merge.child = partials
    merge.pushed = True
    out = _wrap(node, spec, merge, partials, source, base, exprs, ncols, scaled)
    out.spec.row_scales = row_scales
    out.spec.rescale = tuple(rescale)
    return out


def _wrap(node: N.Aggregate, spec: AggSpec, merge: N.Node, partials: Prepared, source: Any,
          base: tuple[N.Scan, E | None] | None, exprs: list[E], ncols: int,
          scaled: set[int], count_distinct: bool = False) -> Columnar:
    if source is not None:
        js = VectorSpec(None, None, "aggregate", spec.group_by, spec.aggs, merge, partials,
                        exprs=exprs, base=ncols, source=source, scaled=frozenset(scaled),
                        count_distinct=count_distinct)
        return ColumnarJoin(node.cols, row=node, spec=js)
    assert base is not None
    scan, pred = base
    vs = VectorSpec(scan.table, pred, "aggregate", spec.group_by, spec.aggs, merge, partials,
                    key_range=_ranged(pred, scan), exprs=exprs, base=ncols,
                    count_distinct=count_distinct)
    return Columnar(node.cols, row=node, spec=vs)


def _distinct(node: N.Aggregate, column: Any) -> tuple[AggSpec, N.Node, Prepared] | None:
    """COUNT(DISTINCT x) (every aggregate of the node, over one x): the vector form groups
    by the keys and x, which leaves each distinct (keys, x) once, and the node's own row
    Aggregate, over those few rows, counts x per group (NULLs not counted) exactly as the
    row path does. CH-benCHmark and TPC-H Q16's `count(DISTINCT supplier)`."""
    arg = node.aggs[0].args[0] if node.aggs[0].args else None
    if arg is None or arg.type not in PLAIN_TYPES:
        return None
    for a in node.aggs:
        if a.func != "count" or not a.distinct or a.order or a.filter is not None \
                or len(a.args) != 1 or not same(a.args[0], arg):
            return None
    keys = [column(g) for g in node.groups]
    x = column(arg)
    if x is None or any(k is None for k in keys):
        return None
    spec = AggSpec((*(k for k in keys if k is not None), x), ())
    types = [(g.type, g.typmod) for g in node.groups] + [(arg.type, arg.typmod)]
    partials = Prepared([N.PCol(f"k{i}", t, m) for i, (t, m) in enumerate(types)],
                        aggregate=spec)
    merge = copy.copy(node)
    merge.child = partials
    merge.groups = [E("col", i, [], g.type, g.typmod) for i, g in enumerate(node.groups)]
    ng = len(node.groups)
    merge.aggs = [dataclasses.replace(a, args=[E("col", ng, [], arg.type, arg.typmod)])
                  for a in node.aggs]
    return spec, merge, partials


def _topn(node: N.Limit) -> Columnar | None:
    if node.limit is None or node.ties is not None:
        return None
    if any(x.kind not in ("const", "param") for e in (node.limit, node.offset)
           if e is not None for x in [e]):
        return None
    chain: list[N.Node] = [node]
    cur = node.child
    if isinstance(cur, N.Project):
        chain.append(cur)
        cur = cur.child
    if not isinstance(cur, N.Sort) or not cur.keys:
        return None
    sort = cur
    chain.append(sort)
    cur = sort.child
    key = sort.keys[0].expr
    if isinstance(cur, N.Project):  # the builder sorts a projection: see through it
        chain.append(cur)
        if key.kind != "col":
            return None
        key = cur.exprs[key.data]
        cur = cur.child
    base = _base(cur)
    source = None
    if base is None:  # a join tree whose rows are stored rows (`jointopn`)
        source = source_of(cur)
        if source is None or not rows_capable(source):
            return None
        ncols = len(cur.cols)
    else:
        ncols = _ncols(base[0])
    if any(x.kind == "col" and x.data >= ncols for x in key.walk()):
        return None
    if not vectorizable(key) or any(x.kind != "col" for x in key.walk()) \
            or key.type == T.BPCHAR:  # char(n) sorts without its trailing blanks
        return None
    if _opaque(chain):
        return None
    rows = Prepared(cur.cols if base is None else base[0].cols)
    above = _above(chain, rows)
    first = N.SortKey(key, sort.keys[0].desc, sort.keys[0].nulls_first)
    if base is None:
        js = VectorSpec(None, None, "topn", keys=[first], limit=node.limit, offset=node.offset,
                        above=above, rows=rows, source=source)
        return ColumnarJoin(node.cols, row=node, spec=js)
    scan, pred = base
    vs = VectorSpec(scan.table, pred, "topn", keys=[first], limit=node.limit,
                    offset=node.offset, above=above, rows=rows, key_range=_ranged(pred, scan))
    return Columnar(node.cols, row=node, spec=vs)


def _opaque(chain: list[N.Node]) -> bool:
    """Whether an operator of the chain reads an outer query or a sub-plan."""
    return any(x.kind in ("outer", "subquery", "exists", "in_sub", "array_sub")
               for n in chain for v in vars(n).values() for e in node_exprs(v)
               for x in e.walk())


def _above(chain: list[N.Node], rows: N.Node) -> N.Node:
    """Private copies of the chain's operators (later rules rewrite the originals in place),
    the last one reading `rows`."""
    above: N.Node = rows
    for n in reversed(chain):
        c = copy.copy(n)
        c.child = above  # type: ignore[attr-defined]
        if isinstance(c, N.Sort):
            c.keys = [N.SortKey(k.expr, k.desc, k.nulls_first) for k in c.keys]
        elif isinstance(c, N.Project):
            c.exprs = list(c.exprs)
        above = c
    return above


_SYSTEM = frozenset(("ctid", "xmin", "xmax", "cmin", "cmax", "tableoid"))


def _sorted(node: N.Sort) -> ColumnarJoin | None:
    """`Sort <- [Project] <- join tree`: the vector join computes the joined rows, each
    becomes the tuple the row join gives (`jointopn.stored_rows`), and the plan's own
    Project and Sort finish them. Only over a table that ANALYZE found large (a join of
    small or unanalyzed tables keeps the row path), and never when an operator above
    reads a system column (ctid), which stored rows do not hold."""
    chain: list[N.Node] = [node]
    cur = node.child
    if isinstance(cur, N.Project):
        chain.append(cur)
        cur = cur.child
    if not isinstance(cur, (N.Join, N.Filter)) or _opaque(chain):
        return None
    read = {x.data for v in vars(chain[-1]).values() for e in node_exprs(v) for x in e.walk()
            if x.kind == "col"}
    if any(cur.cols[c].hidden and cur.cols[c].name in _SYSTEM for c in read
           if c < len(cur.cols)):
        return None
    source = source_of(cur)
    if source is None or not rows_capable(source) or not _analyzed_large(source):
        return None
    rows = Prepared(cur.cols)
    js = VectorSpec(None, None, "sort", above=_above(chain, rows), rows=rows, source=source)
    return ColumnarJoin(node.cols, row=node, spec=js)


def _analyzed_large(src: Any) -> bool:
    """Some table the join reads has statistics of at least MIN_ROWS rows."""
    stack = [src]
    while stack:
        s = stack.pop()
        if isinstance(s, SourceScan):
            ts = STATS.get(s.table.oid)
            if ts is not None and ts.rows >= MIN_ROWS:
                return True
        stack.extend(inputs_of(s))
    return False


__all__ = ["columnar"]
