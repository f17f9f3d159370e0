"""Partial aggregation over columnar packs: GROUP BY with Arrow's hash aggregate.

Each pack becomes a small partial table (group keys, then one column per
partial: count_star, count, sum, min, max, as `kivi.api.AggSpec` lists them),
computed by `pyarrow.Table.group_by`, which runs in C++ without the GIL and
groups dictionary-encoded strings by their codes. The partial tables of every
pack of every region are then merged by a second `group_by` (sums of sums and
counts, min of mins, max of maxes): the partial aggregates merged across
regions. The result has the shape the KiVi pushed aggregate returns, so the
SQL layer's merge (`exec.aggregate`, `Aggregate.pushed`) finishes it exactly
as it finishes KiVi's partials (AVG as SUM over COUNT, numeric and int8
rules): the two paths share their last step. Two callers: the SQL layer's
vectorized operators (`sql.exec.vector`, after their filter kernels) and the
node's pushed aggregate without a filter (`KiviNode.scan`), which replaced the
Python-list column segments the version store used to keep.

Exactness guards raise `Unsafe` (the caller reruns on rows): an integer
sum that could pass 2**62 (Arrow's int64 sums wrap), float keys holding NaN or
-0.0 (PostgreSQL groups them by value, Arrow by bits), float MIN/MAX over NaN,
numeric columns whose packs disagree on scale or are not scaled integers.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa

from .copy import Pack, Snapshot
from .encode import Column
from .pace import pace


class Unsafe(Exception):
    """The data make a columnar kernel inexact or unsupported here: compute from rows."""


class Selected:
    """The rows of one pack a scan selected: positions (None: every row of the pack).

    A scan may give the selection as a bool mask instead (`mask`); the positions are then
    found on first use: the run-based partials (`_by_runs`) read only the rows left out.
    A column of a subset is gathered once and kept: `SUM(x), MIN(x), MAX(x)` read x three
    times, and each gather copies most of the pack (after updates every pack has a few
    superseded rows, so a scan selects nearly all of each).

        >>> import numpy as np
        >>> from .copy import Pack
        >>> s = Selected(Pack(1, [b"a", b"b", b"c"], [(1,), (2,), (3,)], None, None), None,
        ...              np.array([True, False, True]))
        >>> len(s), s.idx.tolist(), s.column(0).values.tolist(), s.left_out().tolist()
        (2, [0, 2], [1, 3], [1])
    """

    __slots__ = ("pack", "_idx", "mask", "_taken")

    def __init__(self, pack: Pack, idx: np.ndarray | None,
                 mask: np.ndarray | None = None) -> None:
        self.pack = pack
        self._idx = idx
        self.mask = mask if idx is None else None
        self._taken: dict[int, Column] | None = None

    @property
    def idx(self) -> np.ndarray | None:
        """The selected positions, ascending (None: every row of the pack)."""
        idx = self._idx
        if idx is None and self.mask is not None:
            idx = self._idx = np.flatnonzero(self.mask)
        return idx

    def __len__(self) -> int:
        if self._idx is not None:
            return len(self._idx)
        return self.pack.n if self.mask is None else int(np.count_nonzero(self.mask))

    def left_out(self) -> np.ndarray | None:
        """The positions of the pack's rows not selected, ascending (None: none)."""
        if self.mask is not None:
            return np.flatnonzero(~self.mask)
        if self._idx is None:
            return None
        out = np.ones(self.pack.n, bool)
        out[self._idx] = False
        return np.flatnonzero(out)

    def column(self, j: int) -> Column:
        """Column j of the selected rows."""
        c = self.pack.column(j)
        idx = self.idx
        if idx is None:
            return c
        taken = self._taken
        if taken is None:
            taken = self._taken = {}
        t = taken.get(j)
        if t is None:
            t = taken[j] = c.take(idx)
        return t


def visible(snap: Snapshot) -> list[Selected]:
    """Every row of a snapshot, as selections (no filter)."""
    return [Selected(v.pack, None, v.mask) for v in snap.views]


_MERGE_FN = {"count_star": "sum", "count": "sum", "sum": "sum", "min": "min", "max": "max"}
_LIMIT = 2**62


class _Kinds:
    """The physical kind (and numeric scale) each output column had in every pack."""

    def __init__(self, n: int) -> None:
        self.kinds: list[tuple[str, int] | None] = [None] * n

    def note(self, i: int, c: Column) -> None:
        k = (c.kind, c.scale if c.kind == "dec" else 0)
        if c.lo is None and c.kind == "i8" and c.valid is not None and not c.valid.any():
            return  # an all-NULL column says nothing about the kind
        cur = self.kinds[i]
        if cur is None:
            self.kinds[i] = k
        elif cur != k:
            raise Unsafe("a column changes kind between packs")


def _key_array(c: Column) -> pa.Array:
    if c.kind == "f8":
        v = c.values if c.valid is None else c.values[c.valid]
        if np.isnan(v).any() or (np.signbit(v) & (v == 0)).any():
            raise Unsafe("NaN or -0 in a float key")
    if c.kind == "obj":
        raise Unsafe("object key")
    if c.kind == "str":
        return c.to_arrow().dictionary_decode()
    return c.to_arrow()


def _decoded(codes: Any, d: np.ndarray) -> pa.Array:
    """A group key's dictionary codes (with NULLs) as its strings: a string key is grouped
    by its int32 codes (a pack has one dictionary), which hash quicker than the strings,
    and only the groups' keys are decoded.

    >>> _decoded(pa.chunked_array([pa.array([1, None, 0], pa.int32())]),
    ...          np.array(["a", "b"], dtype=object)).to_pylist()
    ['b', None, 'a']
    """
    a = codes.combine_chunks() if isinstance(codes, pa.ChunkedArray) else codes
    valid = None if a.null_count == 0 else np.asarray(a.is_valid())
    if not len(d):
        return pa.nulls(len(a), pa.string())
    strings = d[a.fill_null(0).to_numpy(zero_copy_only=False)]
    return pa.array(strings, pa.string(), mask=None if valid is None else ~valid)


def _arg_array(fn: str, c: Column) -> pa.Array:
    if fn == "count":
        return pa.array(np.ones(len(c), bool), mask=None if c.valid is None else ~c.valid)
    if c.kind in ("obj", "b1"):
        raise Unsafe(f"{fn} over {c.kind}")
    if c.kind == "f8" and fn in ("min", "max"):
        v = c.values if c.valid is None else c.values[c.valid]
        if np.isnan(v).any():
            raise Unsafe("min/max over NaN")
    if c.kind == "str":
        if fn == "sum":
            raise Unsafe("sum over strings")
        return c.to_arrow().dictionary_decode()
    return c.to_arrow()


def _bound(c: Column, n: int) -> int:
    if c.kind not in ("i8", "dec") or c.lo is None:
        return 0
    lo, hi = (c.lo, c.hi) if c.kind == "i8" else (c.lo.scaleb(c.scale), c.hi.scaleb(c.scale))
    return n * max(abs(int(lo)), abs(int(hi)))


def partial_aggregate(selected: Iterable[Selected], group_by: tuple[int, ...],
                      aggs: tuple[tuple[str, int | None], ...],
                      check: Any = None) -> list[tuple]:
    """Partial aggregate rows (keys, then partials in `aggs` order) of the selected rows."""
    return list(zip(*partial_columns(selected, group_by, aggs, check), strict=True))


def partial_columns(selected: Iterable[Selected], group_by: tuple[int, ...],
                    aggs: tuple[tuple[str, int | None], ...],
                    check: Any = None) -> list[list[Any]]:
    """`partial_aggregate` as Python columns (keys, then partials): one entry per group,
    every group once (the partials of all packs are merged); [] for no rows."""
    merged = merged_partials(selected, group_by, aggs, check)
    if merged is None:
        return []
    arrays, kinds = merged
    return _finish([pylist(a) for a in arrays], kinds, len(group_by), aggs)


def pylist(a: Any) -> list[Any]:
    """An Arrow array's (or chunked array's) values as `to_pylist` gives them; naive
    timestamps and dates through numpy. Why: pyarrow makes each datetime through a scalar
    object, about 2 us a value (CH-benCHmark Q18's 30,000 groups keyed by o_entry_d: a
    fifth of its server CPU), numpy about a tenth of that; NULLs (NaT) become None.

    >>> import datetime as dt
    >>> pylist(pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 6), None]))
    [datetime.datetime(2024, 1, 2, 3, 4, 5, 6), None]
    >>> pylist(pa.chunked_array([[dt.date(1, 1, 1)], [None]])), pylist(pa.array([1, None]))
    ([datetime.date(1, 1, 1), None], [1, None])
    """
    t = a.type
    if (pa.types.is_timestamp(t) and t.tz is None and t.unit == "us") or pa.types.is_date32(t):
        return a.to_numpy(zero_copy_only=False).astype(object).tolist()
    return a.to_pylist()


def merged_partials(selected: Iterable[Selected], group_by: tuple[int, ...],
                    aggs: tuple[tuple[str, int | None], ...],
                    check: Any = None) -> tuple[list[Any], list[tuple[str, int] | None]] | None:
    """The partials of the selected rows merged to one row per group, as Arrow arrays (keys,
    then partials in `aggs` order; numerics as scaled integers, strings decoded, counts with
    NULL for none), with the physical kind each had in the packs; None for no rows."""
    ng = len(group_by)
    names = [f"k{i}" for i in range(ng)] + [f"a{i}" for i in range(len(aggs))]
    kinds = _Kinds(ng + len(aggs))
    parts: list[pa.Table] = []
    by_runs: list[list[np.ndarray]] = []  # `_by_runs` partials: one table for them all
    runs_ok = ng == 1 and all(fn in _RUN_FNS for fn, _ in aggs)
    bound = 0
    for sel in selected:
        pace()
        n = len(sel)
        if ng == 1:
            got = (_by_runs(sel, group_by[0], aggs, kinds)
                   if runs_ok and type(sel) is Selected and sel.pack.pid else None)
            dense = _dense(sel, group_by[0], aggs, names, kinds) if got is None else None
            if got is not None or dense is not None:
                bound += sum(_bound(_zoned(sel, a), n) for fn, a in aggs
                             if fn == "sum" and a is not None)
                if bound >= _LIMIT:
                    raise Unsafe("an integer sum might overflow int64")
                if got is not None:
                    by_runs.append(got)
                else:
                    parts.append(dense)
                if check is not None:
                    check()
                continue
        cols: list[pa.Array] = []
        coded: dict[int, np.ndarray] = {}  # string keys grouped by code: key -> dictionary
        for i, j in enumerate(group_by):
            c = sel.column(j)
            kinds.note(i, c)
            if c.kind == "str":
                assert c.dictionary is not None
                coded[i] = c.dictionary
                cols.append(pa.array(c.values.astype(np.int32, copy=False),
                                     mask=None if c.valid is None else ~c.valid))
            else:
                cols.append(_key_array(c))
        specs: list[tuple[Any, str]] = []
        for i, (fn, arg) in enumerate(aggs):
            if fn == "count_star":  # a count of a column with no NULL
                cols.append(pa.array(np.zeros(n, np.int8)))
            else:
                assert arg is not None
                c = sel.column(arg)
                if fn != "count":
                    kinds.note(ng + i, c)
                if fn == "sum":
                    bound += _bound(c, n)
                    if bound >= _LIMIT:
                        raise Unsafe("an integer sum might overflow int64")
                cols.append(_arg_array(fn, c))
            specs.append((names[ng + i], "count" if fn == "count_star" else fn))
        t = pa.table(cols, names=names)
        if ng:
            out = t.group_by(names[:ng], use_threads=False).aggregate(specs)
        else:
            out = pa.table([_scalar_agg(t.column(c), f) for c, f in specs],
                           names=[f"{c}_{f}" for c, f in specs])
        # group_by names its outputs "<col>_<fn>", keys last
        out = out.rename_columns([_plain(x) for x in out.column_names])
        for i, d in coded.items():
            at = out.column_names.index(names[i])
            out = out.set_column(at, names[i], _decoded(out.column(at), d))
        parts.append(out.select(names[ng:] + names[:ng]) if ng else out)
        if check is not None:
            check()
    single = len(parts) + len(by_runs) == 1
    if by_runs:
        # NB: one Arrow table for every such pack: pa.array per column per pack was the
        # largest single cost of `bench htap`'s GROUP BY once the runs were kept
        parts.append(pa.table([pa.array(np.concatenate(c)) for c in zip(*by_runs, strict=True)],
                              names=names[1:] + names[:1]))
    if not parts:
        return None
    if ng and single:  # one pack (a joined frame): its groups are each there once
        t = parts[0]
        return [t.column(k) for k in names[:ng]] + [t.column(c) for c in names[ng:]], kinds.kinds
    try:
        table = pa.concat_tables(parts, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as ex:
        raise Unsafe(str(ex)) from ex
    return _merge(table, names, ng, aggs), kinds.kinds


_DENSE = 1 << 16  # an integer key spanning fewer values than this is grouped by bincount
_EXACT = 2**53  # float64 sums of integers are exact below this


def _zoned(sel: Selected, j: int) -> Column:
    """Column j's kind and zone map for the selected rows: the pack's own column (a subset
    keeps both), not a gather of the subset."""
    return sel.pack.column(j) if type(sel) is Selected else sel.column(j)


def _dense(sel: Selected, j: int, aggs: tuple[tuple[str, int | None], ...],
           names: list[str], kinds: _Kinds) -> pa.Table | None:
    """One pack's partials by `np.bincount` over dense codes (key - min), the fast path for
    an integer key with a narrow range (its zone map) and COUNT / SUM / MIN / MAX
    aggregates; None when it does not apply (then Arrow's hash aggregate runs).

    When the codes do not decrease (a pack holds its keys in order, so a key that follows
    the primary key, as pgbench's bid does aid, has one run or a few per pack) each
    aggregate is one `ufunc.reduceat` over the runs instead: integer sums exact in int64,
    and MIN/MAX without the scatter of `ufunc.at` (~10x slower than a reduction)."""
    if any(fn not in ("count_star", "count", "sum", "min", "max") for fn, _ in aggs):
        return None
    key = sel.column(j)
    if key.kind != "i8" or key.lo is None or key.hi - key.lo >= _DENSE:
        return None
    n = len(sel)
    codes = key.values - key.lo
    groups = key.hi - key.lo + 1
    if key.valid is not None:  # NULL keys form one more group, the last
        codes = np.where(key.valid, codes, groups)
        groups += 1
    if n and (groups == 1 or not (codes[1:] < codes[:-1]).any()):
        return _runs(sel, key, codes, groups, aggs, names, kinds)
    counts = np.bincount(codes, minlength=groups)
    present = np.flatnonzero(counts)
    out: list[pa.Array] = []
    for i, (fn, arg) in enumerate(aggs):
        if fn == "count_star":
            out.append(pa.array(counts[present]))
            continue
        assert arg is not None
        c = sel.column(arg)
        nn = counts if c.valid is None else np.bincount(codes[c.valid], minlength=groups)
        if fn == "count":
            out.append(pa.array(nn[present]))
            continue
        if fn in ("min", "max"):
            extremes = _dense_extreme(fn, c, codes, groups)
            if extremes is None:
                return None
            kinds.note(1 + i, c)
            empty = nn[present] == 0
            out.append(pa.array(extremes[present], mask=empty if empty.any() else None))
            continue
        if c.kind not in ("i8", "f8", "dec") or (c.kind != "f8" and _bound(c, n) >= _EXACT):
            return None
        kinds.note(1 + i, c)
        w = c.values if c.valid is None else np.where(c.valid, c.values, 0)
        sums = np.bincount(codes, weights=w.astype(np.float64), minlength=groups)[present]
        empty = nn[present] == 0
        vals = sums if c.kind == "f8" else sums.astype(np.int64)
        out.append(pa.array(vals, mask=empty if empty.any() else None))
    return _keyed(out, key, present, groups, names, kinds)


def _keyed(out: list[pa.Array], key: Column, present: np.ndarray, groups: int,
           names: list[str], kinds: _Kinds) -> pa.Table:
    """The partial table of `_dense`: the aggregates, then the keys of the present codes."""
    kinds.note(0, key)
    null_key = key.valid is not None and present.size > 0 and present[-1] == groups - 1
    keys = present + key.lo
    out.append(pa.array(keys, mask=(present == groups - 1) if null_key else None))
    return pa.table(out, names=names[1:] + names[:1])


def _runs(sel: Selected, key: Column, codes: np.ndarray, groups: int,
          aggs: tuple[tuple[str, int | None], ...], names: list[str],
          kinds: _Kinds) -> pa.Table | None:
    """`_dense` over codes that never decrease: one reduction per run of equal codes."""
    n = len(codes)
    if groups == 1:
        starts = np.zeros(1, np.intp)
    else:
        starts = np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))
    present = codes[starts]
    counts = np.diff(np.append(starts, n))
    out: list[pa.Array] = []
    for i, (fn, arg) in enumerate(aggs):
        if fn == "count_star":
            out.append(pa.array(counts))
            continue
        assert arg is not None
        c = sel.column(arg)
        nn = counts if c.valid is None else np.add.reduceat(c.valid.astype(np.int64), starts)
        if fn == "count":
            out.append(pa.array(nn))
            continue
        if c.kind == "f8" and fn == "sum":
            # float sums keep bincount's order of additions (the other path's rounding)
            w = c.values if c.valid is None else np.where(c.valid, c.values, 0)
            vals = np.bincount(codes, weights=w, minlength=groups)[present]
        elif c.kind in ("i8", "f8") and fn in ("min", "max"):
            v = c.values
            if c.kind == "f8":
                if np.isnan(v if c.valid is None else v[c.valid]).any():
                    return None
                init: Any = np.inf if fn == "min" else -np.inf
            else:
                info = np.iinfo(np.int64)
                init = info.max if fn == "min" else info.min
            if c.valid is not None:
                v = np.where(c.valid, v, init)
            vals = (np.minimum if fn == "min" else np.maximum).reduceat(v, starts)
        elif c.kind in ("i8", "dec") and fn == "sum":  # exact: the caller bounds the total
            v = c.values if c.valid is None else np.where(c.valid, c.values, 0)
            vals = np.add.reduceat(v, starts)
        else:
            return None
        kinds.note(1 + i, c)
        empty = nn == 0
        out.append(pa.array(vals, mask=empty if empty.any() else None))
    return _keyed(out, key, present, groups, names, kinds)


_NOT = np.empty(0, np.int64)  # a pack's memo entry: this does not apply (`_by_runs`)


_RUN_FNS = ("count_star", "count", "sum", "min", "max")


def _by_runs(sel: Selected, j: int, aggs: tuple[tuple[str, int | None], ...],
             kinds: _Kinds) -> list[np.ndarray] | None:
    """A frozen pack's partials (the aggregates' columns, then the key's) from per-run totals
    kept with the pack, less the rows the selection leaves out; None when that does not
    apply (then `_dense` runs as before).

    It applies when the key column of the whole pack (integers, no NULL) never decreases
    and has few runs (pgbench's bid in aid order: one or two runs a pack), the aggregates
    are COUNT(*), and COUNT / SUM / MIN / MAX of integer (or SUM of scaled numeric)
    columns with no NULL, and the selection leaves out at most a quarter of the rows.
    Why: a pack's columns never change (only its end stamps do), so the runs and each
    run's count, sum, min and max are computed once per pack and kept (`Pack.memo`);
    a query then reads only the rows left out (superseded versions, rows of newer
    commits): their counts and sums are subtracted, exactly, in int64. A MIN or MAX a
    left-out row may have given is not used (None: the pack goes the ordinary way).
    Before, every query gathered the selected rows of every column (after updates every
    pack has a few superseded rows) and found the runs again: `bench htap`'s GROUP BY
    bid over 1M accounts beside TPC-B cost ~10 ms of CPU, most of it those passes.
    """
    p = sel.pack
    memo = p.memo
    if memo is None:
        memo = p.memo = {}
    runs = memo.get(("runs", j))
    if runs is None:
        runs = memo[("runs", j)] = _key_runs(p.column(j))
    if runs is _NOT:
        return None
    starts = runs
    n = p.n
    totals: list[tuple[np.ndarray, Column | None]] = []
    for fn, arg in aggs:
        c = None if arg is None else p.column(arg)
        t = _run_totals(memo, starts, n, fn, arg, c)
        if t is None:
            return None
        totals.append((t, c))
    counts = _run_totals(memo, starts, n, "count_star", None, None)
    assert counts is not None
    out_counts = counts
    dead = sel.left_out()
    sub: dict[int | None, np.ndarray] = {}
    if dead is not None and len(dead):
        if len(dead) * 4 > n:
            return None
        at = np.searchsorted(dead, starts)  # each run's first left-out row, in `dead`
        gone = np.diff(np.append(at, len(dead)))
        out_counts = counts - gone
        hit = np.flatnonzero(gone)
        at = at[hit]
        for (fn, arg), (_, c) in zip(aggs, totals, strict=True):
            if fn in ("sum", "min", "max") and arg not in sub:
                assert c is not None
                sub[arg] = c.values[dead]  # the left-out rows' values: a few
        adjusted = []
        for (fn, arg), (t, c) in zip(aggs, totals, strict=True):
            if fn == "sum":
                t = t.copy()
                t[hit] -= np.add.reduceat(sub[arg], at)
            elif fn in ("min", "max"):
                # the run's MIN / MAX stands while a row holding it is still selected
                ties = _run_totals(memo, starts, n, fn + "_ties", arg, c)
                assert ties is not None
                held = np.add.reduceat(sub[arg] == np.repeat(t[hit], gone[hit]), at)
                if ((held >= ties[hit]) & (out_counts[hit] > 0)).any():
                    return None
            elif fn in ("count_star", "count"):
                t = out_counts
            adjusted.append(t)
        keep = out_counts > 0
        cols = [a[keep] for a in adjusted]
    else:
        keep = None
        cols = [t for t, _ in totals]
    for i, ((fn, _), (_, c)) in enumerate(zip(aggs, totals, strict=True)):
        if c is not None and fn != "count":
            kinds.note(1 + i, c)
    key = p.column(j)
    kinds.note(0, key)
    return [*cols, key.values[starts] if keep is None else key.values[starts[keep]]]


def _key_runs(c: Column) -> np.ndarray:
    """The first position of each run of equal values of an integer column with no NULL
    that never decreases and has few runs (at most one per 16 rows); `_NOT` otherwise."""
    v = c.values
    if c.kind != "i8" or c.valid is not None or c.lo is None or len(v) < 2:
        return _NOT
    step = v[1:] != v[:-1]
    if (v[1:] < v[:-1]).any() or np.count_nonzero(step) * 16 > len(v):
        return _NOT
    return np.concatenate(([0], np.flatnonzero(step) + 1))


def _run_totals(memo: dict[Any, np.ndarray], starts: np.ndarray, n: int, fn: str,
                arg: int | None, c: Column | None) -> np.ndarray | None:
    """Aggregate fn of column c over each run of a whole pack (kept in `memo`); None when
    `_by_runs` does not apply to it."""
    if fn == "count" and c is not None and c.valid is None:
        fn, arg = "count_star", None
    key = (fn, arg)
    got = memo.get(key)
    if got is None:
        if fn == "count_star":
            got = np.diff(np.append(starts, n))
        elif c is None or c.valid is not None:
            got = _NOT
        elif fn == "sum" and c.kind in ("i8", "dec") and _bound(c, n) < _LIMIT:
            got = np.add.reduceat(c.values, starts)
        elif fn in ("min", "max") and c.kind == "i8":
            got = (np.minimum if fn == "min" else np.maximum).reduceat(c.values, starts)
        elif fn in ("min_ties", "max_ties"):  # how many rows of each run hold its MIN / MAX
            extreme = _run_totals(memo, starts, n, fn[:3], arg, c)
            assert extreme is not None
            got = np.add.reduceat(c.values == np.repeat(extreme, np.diff(np.append(starts, n))),
                                  starts)
        else:
            got = _NOT
        memo[key] = got
    return None if got is _NOT else got


def _dense_extreme(fn: str, c: Column, codes: np.ndarray, groups: int) -> np.ndarray | None:
    """MIN or MAX per dense code by `np.minimum.at` / `np.maximum.at` (an unbuffered scatter,
    about 25 times faster than a hash aggregate on one pack), integers and floats without NaN
    only (PostgreSQL orders NaN above every number); groups with no value keep the identity."""
    if c.kind not in ("i8", "f8"):
        return None
    v, cc = (c.values, codes) if c.valid is None else (c.values[c.valid], codes[c.valid])
    if c.kind == "f8":
        if np.isnan(v).any():
            return None
        init: Any = np.inf if fn == "min" else -np.inf
    else:
        info = np.iinfo(np.int64)
        init = info.max if fn == "min" else info.min
    out = np.full(groups, init, v.dtype)
    (np.minimum if fn == "min" else np.maximum).at(out, cc, v)
    return out


def _plain(name: str) -> str:
    return name.rsplit("_", 1)[0] if "_" in name else name


def _scalar_agg(col: pa.ChunkedArray, fn: str) -> pa.Array:
    # NB: lazy: pyarrow.compute takes ~0.2 s to import, and a KiVi node that never
    # aggregates a pack without grouping (most) should not pay it at start
    import pyarrow.compute as pc

    if fn == "count":
        return pa.array([pc.count(col).as_py()], pa.int64())
    v = getattr(pc, fn)(col)
    return pa.array([v.as_py()], v.type)


def _merge(table: pa.Table, names: list[str], ng: int,
           aggs: tuple[tuple[str, int | None], ...]) -> list[Any]:
    """Merges partial tables into one row per group; returns Arrow columns (keys first)."""
    import pyarrow.compute as pc  # NB: lazy, as in _scalar_agg

    cols = [c for c in table.column_names if c not in names[:ng]]
    if ng:
        specs = [(c, _MERGE_FN[fn]) for c, (fn, _) in zip(cols, aggs, strict=True)]
        out = table.group_by(names[:ng], use_threads=False).aggregate(specs)
        return [out.column(k) for k in names[:ng]] + [out.column(f"{c}_{f}") for c, f in specs]
    res = []
    for c, (fn, _) in zip(cols, aggs, strict=True):
        v = getattr(pc, _MERGE_FN[fn])(table.column(c))
        res.append(pa.array([v.as_py()], v.type))
    return res


def _finish(cols: list[list[Any]], kinds: list[tuple[str, int] | None], ng: int,
            aggs: tuple[tuple[str, int | None], ...]) -> list[list[Any]]:
    for i, col in enumerate(cols):
        k = kinds[i]
        fn = aggs[i - ng][0] if i >= ng else None
        if fn in ("count", "count_star"):
            cols[i] = [0 if v is None else v for v in col]
        elif k is not None and k[0] == "dec":
            cols[i] = scaled_decimals(col, k[1])
    return cols


def scaled_decimals(col: list[int | None], scale: int) -> list[Decimal | None]:
    """Scaled integers as Decimals of that scale (exponent -scale, as PostgreSQL keeps a
    numeric's scale). One exact multiply by 10**-scale per value: about a third cheaper than
    `Decimal(v).scaleb(-scale)` (values stay below 2**62 here, far inside the context's 28
    digits). With a NULL the values go one at a time.

    >>> scaled_decimals([1250, -5, 0, None], 2)
    [Decimal('12.50'), Decimal('-0.05'), Decimal('0.00'), None]
    """
    unit = Decimal(1).scaleb(-scale)
    if None not in col:
        return list(map(unit.__mul__, map(Decimal, col)))  # type: ignore[arg-type]
    return [None if v is None else unit * Decimal(v) for v in col]


__all__ = ["Selected", "Unsafe", "merged_partials", "partial_aggregate", "partial_columns", "pylist",
           "scaled_decimals", "visible"]
