"""The executor of `Columnar`: the vector form when allowed and safe, else the row plan.

The vector form computes everything before it emits a row (aggregates and
top-N read all their input first), so a `Fallback` raised by any kernel can
still switch to the row plan without duplicating output.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from ....kivi.columnar.aggregate import Unsafe, partial_aggregate, partial_columns
from ....kivi.columnar.pace import begin as pace_begin
from ....kivi.columnar.pace import billed, offload, pace, settle
from ....txn.api import ScanSpec
from ....txn.transaction import Transaction
from ...plan import nodes as N
from ..aggregate import finished_columns
from ..runner import Batch, cache_of, compiled, executes, rebatch, rows_of, run
from ..scan import key_range
from .aggframe import SETTING, expr_fns, mode, waits
from .distinct import Unhandled, count_distinct
from .eager import grouped_by_dimension
from .explain import note
from .join import evaluate
from .jointopn import candidates as join_candidates
from .plan import Columnar, ColumnarJoin, Prepared, VectorSpec
from .runs import note_run
from .scan import Computed, VectorScan
from .topn import candidates

SMALL_RANGE = 20_000  # rows: a key range no larger stays on the row path under `auto`
log = logging.getLogger(__name__)


@executes(ColumnarJoin)
@executes(Columnar)
def run_columnar(node: Columnar, ctx: Any) -> Iterator[Batch]:
    rows = offload(vector_rows, node, ctx)
    if rows is None:
        note(ctx, node, "row plan" if mode(ctx) != "off" else "row plan (cumulo.columnar = off)")
        note_run(ctx, "rows")
        yield from run(node.row, ctx)
        return
    note(ctx, node, "vector form")
    note_run(ctx, "vector")
    # NB: counted afresh on this thread: the vector work may have run on an analytic worker
    # (`offload`, which began the count there), and the loop thread's count of an earlier
    # statement holds every OLTP session's CPU since, so the first batch slept MAX_PAUSE
    # (100 ms) beside OLTP: `bench htap`'s analytic loop 6.6-9.3 q/s -> 15-21, same tps
    paced = not billed()  # NB: an offloaded statement's loop work is paced by `settle`
    if paced:
        pace_begin()
    for batch in rebatch(rows):
        # NB: the Pacer counts the thread's CPU since its last pause, so pacing here, as each
        # batch is pulled, also keeps to the analytic share the Python work of the operators
        # above and of the result's encoding (a 100k-row result is ~100 pulls)
        if paced:
            pace()
        yield batch
    settle()  # the statement's share: its loop-thread work and the worker's, paced together


def vector_rows(node: Columnar, ctx: Any) -> list[tuple] | None:
    """The subtree's rows by the vector form; None when the row plan must run."""
    if mode(ctx) == "off" or not isinstance(ctx.txn, Transaction):
        return None
    pace_begin()  # the analytic share is counted per statement: a short one never pauses
    spec = node.spec
    if compiled(node, "keyed", lambda: _reads_keys(node.row)):
        return None  # a later rule made the row plan return keys (ctid, row locks)
    if spec.source is not None:
        return _joined(node, spec, ctx)
    scan = compiled(node, "vscan", lambda: VectorScan(spec.pred))
    if spec.key_range and mode(ctx) == "auto" and _small_range(node, scan, ctx):
        return None
    snaps = ctx.txn.columnar(spec.table.space, waits(ctx))
    if snaps is None:
        return None
    try:
        packs = scan.packs(snaps, ctx, ctx.check_cancel)
        if spec.op == "aggregate":
            return _aggregate(spec, packs, ctx)
        return _topn(spec, packs, ctx)
    except Unsafe as ex:  # vectorize.Fallback too
        log.debug("columnar path fell back to rows: %s", ex)
        note(ctx, node, f"fell back: {ex}")
        note_run(ctx, "fallback")
        return None


def _small_range(node: Columnar, scan: VectorScan, ctx: Any) -> bool:
    """Whether the key range of the scan holds at most SMALL_RANGE rows: by the zone maps
    of a copy already built, else by counting the range's rows in the row store, up to
    SMALL_RANGE + 1. Why not build the copy to ask its zone maps: a build costs about a
    second per million rows, and a small range, which the row path then reads anyway,
    must not pay it (nor a restart's first query wait for it)."""
    space = node.spec.table.space
    built = ctx.txn.columnar_built(space)
    if built is not None:
        return scan.reach(built, ctx) <= SMALL_RANGE
    rows = next((n for n in N.walk(node.row) if isinstance(n, N.Scan)), None)
    if rows is None or rows.table.space != space:
        return False
    lo, hi, ok = key_range(rows, ctx)
    if not ok:
        return True  # a NULL bound: no row
    seen = 0
    for batch in ctx.txn.scan(ScanSpec(space, lo, hi, projection=(), limit=SMALL_RANGE + 1)):
        seen += len(batch)
    return seen <= SMALL_RANGE


def _joined(node: Columnar, spec: VectorSpec, ctx: Any) -> list[tuple] | None:
    """The aggregate over a join tree (the joined frame is its one batch of rows), or the
    top-N or the sorted rows of a join (`jointopn`)."""
    try:
        if spec.op in ("topn", "sort"):
            picked = join_candidates(spec, ctx)
            if picked is None:
                return None
            assert spec.above is not None and spec.rows is not None
            cache_of(ctx)[id(spec.rows)] = picked
            return rows_of(spec.above, ctx)
        rows = grouped_by_dimension(spec, ctx)  # the fact table aggregated before the join
        if rows is not None:
            return rows
        frame = evaluate(spec.source, ctx)
        if frame is None:
            return None
        return _aggregate(spec, [frame] if frame.n else [], ctx)
    except Unsafe as ex:  # vectorize.Fallback too
        log.debug("columnar join fell back to rows: %s", ex)
        note(ctx, node, f"fell back: {ex}")
        note_run(ctx, "fallback")
        return None


def _reads_keys(row: N.Node) -> bool:
    return any(isinstance(n, N.Scan) and n.with_keys for n in N.walk(row))


def _aggregate(spec: VectorSpec, packs: Any, ctx: Any) -> list[tuple]:
    assert spec.merge is not None and spec.partials is not None
    if spec.exprs:
        fns = compiled(spec, "exprs", lambda: expr_fns(spec))
        packs = (Computed(sel, fns, spec.base, ctx) for sel in packs)
    if spec.count_distinct:
        packs = list(packs)
        if len(packs) == 1:  # a joined frame: Arrow counts per group (`distinct`)
            assert isinstance(spec.merge, N.Aggregate)
            try:
                return count_distinct(packs[0].column, len(packs[0]), spec.group_by[:-1],
                                      spec.group_by[-1], len(spec.merge.aggs))
            except Unhandled:
                pass
    if spec.group_by and not spec.rescale and not spec.count_distinct \
            and isinstance(spec.merge, N.Aggregate) and spec.merge.pushed:
        # the partials are one row per group already: finished column by column, no merge,
        # and zipped into rows with the keys in one pass (no key tuples built on the way)
        cols = partial_columns(packs, spec.group_by, spec.aggs)
        if not cols:
            return []
        ng = len(spec.group_by)
        return list(zip(*cols[:ng], *finished_columns(spec.merge, cols[ng:]), strict=True))
    partials = partial_aggregate(packs, spec.group_by, spec.aggs)
    if spec.rescale:
        partials = rescale(partials, len(spec.group_by), spec.rescale)
    if spec.count_distinct:
        assert isinstance(spec.merge, N.Aggregate)
        return count_pairs(partials, len(spec.group_by) - 1, len(spec.merge.aggs))
    cache_of(ctx)[id(spec.partials)] = partials
    return rows_of(spec.merge, ctx)


def rescale(partials: list[tuple], ng: int, pairs: tuple[tuple[int, int], ...]) -> list[tuple]:
    """Each partial sum set to the largest scale among its group's rows (the partial MAX of
    their scales), as PostgreSQL's numeric SUM has it; the merge's sum of such partials then
    has the group's scale. Exact: the sum at the common scale ends in zeros past it.

    >>> from decimal import Decimal
    >>> rescale([("a", Decimal("2.5000"), 1), ("b", Decimal("0E-4"), 0)], 1, ((0, 1),))
    [('a', Decimal('2.5'), 1), ('b', Decimal('0'), 0)]
    """
    out = []
    for row in partials:
        r = list(row)
        for s, m in pairs:
            v, sc = r[ng + s], r[ng + m]
            if v is not None and sc is not None:
                r[ng + s] = Decimal(v).quantize(Decimal(1).scaleb(-sc))
        out.append(tuple(r))
    return out


def count_pairs(pairs: list[tuple], ng: int, naggs: int) -> list[tuple]:
    """The rows of an Aggregate whose every aggregate is COUNT(DISTINCT x), from the distinct
    (keys..., x) tuples: per group, how many non-NULL x (NULL keys group together, as in
    SQL); without keys, one row even for no input.

    >>> count_pairs([(1, "a"), (1, "b"), (2, None), (None, "a")], 1, 2)
    [(1, 2, 2), (2, 0, 0), (None, 1, 1)]
    >>> count_pairs([], 0, 1), count_pairs([], 1, 1)
    ([(0,)], [])
    """
    counts: dict[tuple, int] = {}
    for r in pairs:
        k = r[:ng]
        counts[k] = counts.get(k, 0) + (r[ng] is not None)
    if not ng and not counts:
        counts[()] = 0
    return [k + (n,) * naggs for k, n in counts.items()]


def _topn(spec: VectorSpec, packs: Any, ctx: Any) -> list[tuple]:
    assert spec.above is not None and spec.rows is not None
    cache_of(ctx)[id(spec.rows)] = candidates(spec, packs, ctx)
    return rows_of(spec.above, ctx)


@executes(Prepared)
def run_prepared(node: Prepared, ctx: Any) -> Iterator[Batch]:
    yield from rebatch(cache_of(ctx).pop(id(node), []))


__all__ = ["SETTING", "count_pairs", "mode", "rescale", "run_columnar", "vector_rows"]
