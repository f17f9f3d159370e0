"""GROUP BY a dimension's key over fact ⋈ dimension: the fact table aggregated first.

`SELECT b.bid, count(*), sum(a.abalance) FROM accounts a JOIN branches b ON a.bid = b.bid
GROUP BY b.bid`: the join key is the dimension's primary key, so each fact row matches
one dimension row or none, and the groups are the fact rows' own join keys. The fact
table's packs are then aggregated by that key as a single-table GROUP BY is (per-run
partials, `kivi.columnar.aggregate`), and a group is kept when the dimension (after its
own filter) has its key: the same rows as the join then the aggregate, without building
the joined frame (a position pair and a gathered value per fact row). Why: in `bench
htap` the join query was three quarters of the analytic stream's CPU (17-19 ms a query
against 1 ms for the same GROUP BY over the fact table alone), and the analytic stream's
CPU is what it takes from the OLTP beside it.

Applies to an inner join of two tables, one equality of integer columns of the same type,
no residual, the grouping keys all that key (on either side), the aggregates over fact
columns only, and the dimension's primary key exactly its join column; else None, and
the join runs as before.
"""

from __future__ import annotations

from typing import Any

from ....kivi.columnar.aggregate import partial_columns
from ....pgtypes import oids as T
from ...plan import nodes as N
from ..aggregate import finished_columns
from ..runner import compiled
from .aggframe import waits
from .explain import note
from .plan import SourceInner, SourceScan, VectorSpec
from .scan import VectorScan

_INTS = (T.INT2, T.INT4, T.INT8)
Shape = tuple[int, int, int, int, tuple[tuple[str, int | None], ...]]


def _shape(spec: VectorSpec) -> Shape | None:
    """(fact input, dimension input, fact key column, dimension key column, the aggregates
    over the fact's own columns) when the join has the shape above, else None."""
    src = spec.source
    if not isinstance(src, SourceInner) or len(src.inputs) != 2 or len(src.edges) != 1 \
            or src.residuals or not src.unique or spec.exprs or spec.rescale \
            or spec.count_distinct or not spec.group_by \
            or not isinstance(spec.merge, N.Aggregate) or not spec.merge.pushed \
            or not all(isinstance(s, SourceScan) for s in src.inputs):
        return None
    i, j, ki, kj = src.edges[0]
    if ki.kind != "col" or kj.kind != "col" or ki.type != kj.type or ki.type not in _INTS:
        return None
    starts = (0, src.widths[0])
    for fact, dim, kf, kd in ((i, j, ki.data, kj.data), (j, i, kj.data, ki.data)):
        if src.unique[dim] != frozenset({kd}):
            continue
        if any(g not in (starts[fact] + kf, starts[dim] + kd) for g in spec.group_by):
            continue
        lo, stored = starts[fact], len(src.inputs[fact].table.columns)
        if kf >= stored or any(a is not None and not lo <= a < lo + stored
                               for _, a in spec.aggs):
            continue
        aggs = tuple((fn, None if a is None else a - lo) for fn, a in spec.aggs)
        return fact, dim, kf, kd, aggs
    return None


def grouped_by_dimension(spec: VectorSpec, ctx: Any) -> list[tuple] | None:
    """The aggregate's rows by aggregating the fact table first (see the module doc); None
    when the shape does not apply or a table has no columnar copy here."""
    shape = compiled(spec, "eager", lambda: _shape(spec))
    if shape is None:
        return None
    fact, dim, kf, kd, aggs = shape
    src = spec.source
    assert isinstance(src, SourceInner) and isinstance(spec.merge, N.Aggregate)
    selected = []
    for s in (src.inputs[fact], src.inputs[dim]):
        snaps = ctx.txn.columnar(s.table.space, waits(ctx))
        if snaps is None:
            return None
        scan = compiled(s, "vscan", _scan_of(s))
        selected.append(list(scan.packs(snaps, ctx, ctx.check_cancel)))
    keys: set[Any] = set()
    for sel in selected[1]:
        keys.update(sel.column(kd).to_pylist())
    keys.discard(None)
    cols = partial_columns(selected[0], (kf,), aggs)
    if not cols:
        return []
    kept = [g for g, k in enumerate(cols[0]) if k in keys]
    if len(kept) < len(cols[0]):
        cols = [[c[g] for g in kept] for c in cols]
    note(ctx, src, f"{src.inputs[fact].describe()} grouped by its key first "
                   f"({len(cols[0])} groups) ⋈ {src.inputs[dim].describe()}")
    if not cols[0]:
        return []
    done = finished_columns(spec.merge, cols[1:])
    return list(zip(*[cols[0]] * len(spec.group_by), *done, strict=True))


def _scan_of(s: SourceScan) -> Any:
    return lambda: VectorScan(s.pred)


__all__ = ["grouped_by_dimension"]
