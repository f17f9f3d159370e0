"""A vector aggregate read by a vector join as columns, never as Python rows.

A grouped aggregate under a join or a filter that runs on the vector path (TPC-H
Q18's `o_orderkey IN (SELECT l_orderkey ... GROUP BY l_orderkey HAVING sum(...) >
300)`: 150,000 groups at SF 0.1) used to turn every group into a tuple of Python
values (a Decimal per sum), which the join's `Rows` frame encoded straight back into
columns for the HAVING filter and the join keys: two conversions per value, most
of the query's time. Here the merged partials stay Arrow arrays and become
`Column`s directly: COUNT, SUM, MIN and MAX over integer, float, numeric (scaled
integers), date and string columns, grouped by such keys. Anything else (AVG,
whose numeric result has a scale per group; booleans; timestamps; an empty result;
a `Fallback`) returns None and the caller reads the rows as before, which also
records the path taken.

    >>> import pyarrow as pa
    >>> [c.to_pylist() for c in _columns([pa.array(["b", None, "a"]), pa.array([150, 5, 0])],
    ...                                  [("str", 0), ("dec", 2)], ["sum"], [0])]
    [['b', None, 'a'], [Decimal('1.50'), Decimal('0.05'), Decimal('0.00')]]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from ....kivi.columnar import Column
from ....kivi.columnar.aggregate import Unsafe, merged_partials
from ....pgtypes import oids as T
from ....txn.transaction import Transaction
from ...plan import nodes as N
from ..runner import compiled
from .explain import note
from .frame import Materialized
from .plan import Columnar
from .rowexpr import compile_any, compile_scaled
from .runs import note_run
from .scan import Computed, VectorScan

SETTING = "cumulo.columnar"
_FNS = ("count", "count_star", "sum", "min", "max")


def mode(ctx: Any) -> str:
    """The session's `cumulo.columnar`: on, off or auto."""
    return ctx.settings.get(SETTING, "auto") if ctx.settings else "auto"


def waits(ctx: Any) -> bool:
    """Whether a read waits for a columnar copy that is being built (`on`); under `auto` the
    row path answers meanwhile (after a restart the copies build in the background,
    `kivi.columnar.warm`, and the first query must not wait seconds for them)."""
    return mode(ctx) != "auto"


def _simple(node: Columnar) -> bool:
    """A grouped aggregate whose every output is a key or a partial as it stands."""
    spec = node.spec
    merge = spec.merge
    if spec.op != "aggregate" or not spec.group_by or spec.rescale or spec.count_distinct \
            or not isinstance(merge, N.Aggregate) or not merge.pushed:
        return False
    if any(c.func not in _FNS or c.distinct for c in merge.aggs):
        return False
    if any(isinstance(n, N.Scan) and n.with_keys for n in N.walk(node.row)):
        return False
    return len(node.cols) == len(spec.group_by) + len(spec.aggs) == \
        len(merge.groups) + len(merge.aggs)


def aggregate_frame(node: Columnar, ctx: Any, evaluate: Callable[[Any, Any], Any]) -> Any:
    """The aggregate's result as a frame source of columns (`Materialized`), or None: then
    the caller reads the node's rows. `evaluate` computes a join tree (`join.evaluate`)."""
    if mode(ctx) == "off" or not isinstance(ctx.txn, Transaction) \
            or not compiled(node, "aggframe", lambda: _simple(node)):
        return None
    spec = node.spec
    try:
        if spec.source is not None:
            frame = evaluate(spec.source, ctx)
            if frame is None:
                return None
            packs: Any = [frame] if frame.n else []
        else:
            if spec.key_range:
                return None  # the row path may serve a small range: `vector_rows` decides
            snaps = ctx.txn.columnar(spec.table.space, waits(ctx))
            if snaps is None:
                return None
            scan = compiled(node, "vscan", lambda: VectorScan(spec.pred))
            packs = scan.packs(snaps, ctx, ctx.check_cancel)
        if spec.exprs:
            fns = compiled(spec, "exprs", lambda: expr_fns(spec))
            packs = (Computed(sel, fns, spec.base, ctx) for sel in packs)
        merged = merged_partials(packs, spec.group_by, spec.aggs)
    except Unsafe:
        return None  # NB: the rows path reruns it and notes the fallback
    if merged is None:
        return None
    arrays, kinds = merged
    assert isinstance(spec.merge, N.Aggregate)
    cols = _columns(arrays, kinds, [fn for fn, _ in spec.aggs],
                    [c.type for c in spec.merge.aggs], len(spec.group_by))
    if cols is None:
        return None
    note(ctx, node, "vector form (columns)")
    note_run(ctx, "vector")
    return Materialized(cols, [c.type for c in node.cols])


def expr_fns(spec: Any) -> list[Any]:
    """The computed columns' vector code; a numeric of several scales and its column of
    per-row scales share one evaluation (`rowexpr.compile_scaled`)."""
    fns = [None if i in spec.row_scales or i in spec.row_scales.values()
           else compile_any(e, i in spec.scaled) for i, e in enumerate(spec.exprs)]
    for k, v in spec.row_scales.items():
        fns[v], fns[k] = compile_scaled(spec.exprs[v])
    return fns


def _columns(arrays: list[Any], kinds: list[tuple[str, int] | None], fns: list[str],
             types: list[int], ng: int = -1) -> list[Column] | None:
    """Columns of the merged arrays (keys, then partials); None when one has no column form."""
    if ng < 0:
        ng = len(arrays) - len(fns)
    out = []
    for i, arr in enumerate(arrays):
        a = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        if i < ng:
            c = _column(a, kinds[i])
        else:
            fn = fns[i - ng]
            if fn in ("count", "count_star"):
                c = _column(a.fill_null(0), ("i8", 0))
            elif fn == "sum" and kinds[i] == ("i8", 0) and types[i - ng] == T.NUMERIC:
                c = _column(a, ("dec", 0))  # sum(int8) is a numeric of scale 0
            else:
                c = _column(a, kinds[i])
        if c is None:
            return None
        out.append(c)
    return out


def _column(a: pa.Array, kind: tuple[str, int] | None) -> Column | None:
    if kind is None or kind[0] not in ("i8", "f8", "dec", "date", "str"):
        return None
    k, scale = kind
    valid = None if a.null_count == 0 else np.asarray(a.is_valid())
    if k == "str":
        if not pa.types.is_string(a.type) and not pa.types.is_large_string(a.type):
            return None
        vals = np.asarray(a.to_numpy(zero_copy_only=False), dtype=object)
        if valid is not None:
            vals = np.where(valid, vals, "")
        d, codes = np.unique(vals if valid is None else vals[valid], return_inverse=True)
        full = np.zeros(len(a), np.int32)
        full[slice(None) if valid is None else valid] = codes.reshape(-1)
        if not len(d):
            return None
        return Column("str", full, valid, d, d[0], d[-1])
    if k == "date":
        if not pa.types.is_date32(a.type):
            return None
        v = a.fill_null(0).to_numpy(zero_copy_only=False).astype("datetime64[D]")
    elif k == "f8":
        if not pa.types.is_floating(a.type):
            return None
        v = a.fill_null(0.0).to_numpy(zero_copy_only=False).astype(np.float64)
        if np.isnan(v).any():
            return None
    else:
        if not pa.types.is_integer(a.type):
            return None
        v = a.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    live = v if valid is None else v[valid]
    if not len(live):
        return None
    lo, hi = live.min(), live.max()
    if k == "date":
        return Column("date", v, valid, lo=lo.astype(dt.date), hi=hi.astype(dt.date))
    if k == "f8":
        return Column("f8", v, valid, lo=float(lo), hi=float(hi))
    if k == "dec":
        return Column("dec", v, valid, lo=Decimal(int(lo)).scaleb(-scale),
                      hi=Decimal(int(hi)).scaleb(-scale), scale=scale)
    return Column("i8", v, valid, lo=int(lo), hi=int(hi))


__all__ = ["SETTING", "aggregate_frame", "expr_fns", "mode", "waits"]
