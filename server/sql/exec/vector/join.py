"""Vectorized hash equi-joins: a join tree of filtered scans computed as position arrays.

Keys are made comparable first (`_pair`): both sides of each key become int64
arrays whose equality is PostgreSQL's `=`: integers and numerics at one scale,
dates and timestamps as their integers, strings as codes into one dictionary
(text equality is byte equality), floats as the bits of their value with -0
made 0 and every NaN one NaN (PostgreSQL: NaN = NaN). Rows with a NULL key are
left out of the match, so they never match. Arrow's hash join (Acero,
`pa.Table.join`, C++ without the GIL) then pairs row positions, hashing the
smaller side.

An inner join of n inputs (`SourceInner`) is ordered at run time, when the
filtered input sizes are known: it starts from the smallest input and adds,
each time, the smallest input joined to the ones already in by some key. A
residual conjunct (`o_entry_d <= ol_delivery_d`) filters as soon as the inputs
it reads are in; it keeps the rows where it is true (three-valued: NULL drops
them). LEFT, semi and anti joins (`SourceJoin`) match the same way, test their
residual on the candidate pairs, and then pad, keep or drop left rows.

Every failure to do this exactly raises `Fallback`; the caller reruns the row
plan, before any row was emitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from ....kivi.columnar import Column
from ...expr.vectorize import Fallback, V
from ..runner import compiled, rows_of
from . import memcap
from .aggframe import aggregate_frame, waits
from .explain import note
from .frame import Computed, Frame, Rows, Stored
from .plan import (
    Columnar,
    SourceFilter,
    SourceInner,
    SourceJoin,
    SourceProject,
    SourceRows,
    SourceScan,
)
from .reduce import RATIO, by_pack, keep, reduce_inputs, small_keys
from .rowexpr import compile_any, mask_any
from .scan import VectorScan

_LIMIT = 2**63


def evaluate(src: Any, ctx: Any) -> Frame | None:
    """The rows of a join tree as a frame; None when a table has no columnar copy here."""
    if isinstance(src, SourceScan):
        snaps = ctx.txn.columnar(src.table.space, waits(ctx))
        if snaps is None:
            return None
        scan = compiled(src, "vscan", lambda: VectorScan(src.pred))
        sel = list(scan.packs(snaps, ctx, ctx.check_cancel))
        return Frame.of(Stored(sel, src.types, src.typmods, len(src.table.columns)))
    if isinstance(src, SourceRows):
        if isinstance(src.node, Columnar):  # an aggregate's columns, when they have a form
            cols = aggregate_frame(src.node, ctx, evaluate)
            if cols is not None:
                return Frame.of(cols)
        return Frame.of(Rows(rows_of(src.node, ctx), src.types, src.typmods))
    if isinstance(src, SourceFilter):
        child = evaluate(src.child, ctx)
        if child is None:
            return None
        return _filter(child, compiled(src, "mask", lambda: mask_any(src.pred)), ctx)
    if isinstance(src, SourceProject):
        child = evaluate(src.child, ctx)
        if child is None:
            return None
        fns = compiled(src, "fns", lambda: [compile_any(e) for e in src.exprs])
        return Frame.of(Computed(child, fns, [e.type for e in src.exprs],
                                 [e.typmod for e in src.exprs], ctx))
    if isinstance(src, SourceInner):
        return _inner(src, ctx)
    assert isinstance(src, SourceJoin)
    return _outer(src, ctx)


def _filter(frame: Frame, mask_fn: Callable[..., np.ndarray | None], ctx: Any,
            col: Callable[[int], Column] | None = None) -> Frame:
    if frame.n == 0:
        return frame
    m = mask_fn(col or frame.column, ctx)
    if m is None:
        return frame
    if len(m) != frame.n:
        if len(m):
            raise Fallback("mask length")
        return frame.take(np.zeros(0, np.int64))
    return frame.take(np.flatnonzero(m))


# --- keys -----------------------------------------------------------------------------------


def _ints(v: V) -> np.ndarray:
    if v.kind in ("i8", "b1"):
        return v.values.astype(np.int64, copy=False)
    if v.kind in ("date", "ts"):
        return v.values.view(np.int64)
    raise Fallback(f"a {v.kind} join key")


def _scaled(v: V, scale: int) -> np.ndarray:
    s = v.scale if v.kind == "dec" else 0
    vals = v.values.astype(np.int64, copy=False)
    if s == scale:
        return vals
    f = 10 ** (scale - s)
    live = vals if v.valid is None else vals[v.valid]
    if len(live) and int(np.abs(live).max()) * f >= _LIMIT:
        raise Fallback("a numeric key out of int64 at the common scale")
    return vals * f


def _float_bits(v: V) -> np.ndarray:
    x = v.values.astype(np.float64) + 0.0  # -0.0 + 0.0 is 0.0
    x[np.isnan(x)] = np.nan  # one NaN: PostgreSQL's NaN equals NaN
    return x.view(np.int64)


def _pair(a: V, b: V) -> tuple[np.ndarray, np.ndarray]:
    """Both keys as int64 arrays, equal exactly where PostgreSQL's `=` is true."""
    ka, kb = a.kind, b.kind
    if ka == kb and ka in ("i8", "b1", "date", "ts"):
        if ka in ("date", "ts") and a.values.dtype != b.values.dtype:
            raise Fallback("date against timestamp key")
        return _ints(a), _ints(b)
    if ka in ("i8", "dec") and kb in ("i8", "dec"):
        s = max(a.scale if ka == "dec" else 0, b.scale if kb == "dec" else 0)
        return _scaled(a, s), _scaled(b, s)
    if ka in ("i8", "f8") and kb in ("i8", "f8"):
        return _float_bits(a), _float_bits(b)
    if ka == kb == "str":
        da, db = a.dictionary, b.dictionary
        assert da is not None and db is not None
        ca = a.values.astype(np.int64)
        if da is db or (len(da) == len(db) and (da == db).all()):
            return ca, b.values.astype(np.int64)
        if not len(da) or not len(db):
            return ca, b.values.astype(np.int64) + len(da)
        pos = np.searchsorted(da, db)
        hit = pos < len(da)
        hit[hit] = da[pos[hit]] == db[hit]
        remap = np.where(hit, pos, len(da) + np.arange(len(db)))
        return ca, remap[b.values]
    raise Fallback(f"{ka} against {kb} join key")


def _keys(fns_l: list[Any], fns_r: list[Any], left: Callable[[int], Column],
          right: Callable[[int], Column], ctx: Any
          ) -> tuple[list[np.ndarray], np.ndarray | None, list[np.ndarray], np.ndarray | None]:
    lk: list[np.ndarray] = []
    rk: list[np.ndarray] = []
    lv: np.ndarray | None = None
    rv: np.ndarray | None = None
    for fl, fr in zip(fns_l, fns_r, strict=True):
        a, b = fl(left, ctx), fr(right, ctx)
        if not isinstance(a, V) or not isinstance(b, V):
            raise Fallback("a constant join key")
        x, y = _pair(a, b)
        lk.append(x)
        rk.append(y)
        if a.valid is not None:
            lv = a.valid if lv is None else lv & a.valid
        if b.valid is not None:
            rv = b.valid if rv is None else rv & b.valid
    return lk, lv, rk, rv


def match(lk: list[np.ndarray], lv: np.ndarray | None, rk: list[np.ndarray],
          rv: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Positions (l, r) of every pair of rows whose keys are equal; NULL keys match nothing.

    >>> l, r = match([np.array([1, 2, 2, 7])], None, [np.array([2, 7, 9])],
    ...              np.array([True, True, False]))
    >>> sorted(zip(l.tolist(), r.tolist()))
    [(1, 0), (2, 0), (3, 1)]
    """
    nl, nr = len(lk[0]), len(rk[0])
    li = np.arange(nl, dtype=np.int64) if lv is None else np.flatnonzero(lv)
    ri = np.arange(nr, dtype=np.int64) if rv is None else np.flatnonzero(rv)
    if not len(li) or not len(ri):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a = [k if len(li) == nl else k[li] for k in lk]
    b = [k if len(ri) == nr else k[ri] for k in rk]
    one = combined(a, b)
    if one is not None:
        a, b = [one[0]], [one[1]]
        # a key unique on one side over a narrow range (a primary key, a dictionary's codes):
        # a table indexed by it, no hashing
        for x, px, y, py, swap in ((b[0], ri, a[0], li, False), (a[0], li, b[0], ri, True)):
            got = direct(x, y)
            if got is not None:
                at_x, at_y = got
                return (px[at_x], py[at_y]) if swap else (py[at_y], px[at_x])
    names = [f"k{i}" for i in range(len(a))]

    def table(keys: list[np.ndarray], pos: np.ndarray, name: str) -> pa.Table:
        return pa.table([*map(pa.array, keys), pa.array(pos)], names=[*names, name])

    lt, rt = table(a, li, "l"), table(b, ri, "r")
    # Acero builds its hash table on the right input: the smaller one
    out = lt.join(rt, names, join_type="inner", use_threads=False) if len(ri) <= len(li) \
        else rt.join(lt, names, join_type="inner", use_threads=False)
    return (out.column("l").to_numpy().astype(np.int64, copy=False),
            out.column("r").to_numpy().astype(np.int64, copy=False))


_SPAN = 1 << 26  # entries of a direct-address table at most (512 MiB of int64: never near)
_HEAD = 4096  # keys checked for a repeat before a table is built


def combined(a: list[np.ndarray], b: list[np.ndarray]
             ) -> tuple[np.ndarray, np.ndarray] | None:
    """Several int64 keys as one per side, `(k0 - lo0) * span1 * ... + (k1 - lo1) * ...`, equal
    exactly where every key is (each offset lies in [0, span) of the two sides' union); the
    keys as they are when there is one; None when the product of the spans passes int64.

    >>> x, y = combined([np.array([1, 2]), np.array([10, 11])],
    ...                 [np.array([2, 1]), np.array([11, 11])])
    >>> x.tolist(), y.tolist()
    ([0, 3], [3, 1])
    """
    if len(a) == 1:
        return a[0], b[0]
    x = np.zeros(len(a[0]), np.int64)
    y = np.zeros(len(b[0]), np.int64)
    total = 1
    for ka, kb in zip(a, b, strict=True):
        lo = min(int(ka.min()), int(kb.min()))
        span = max(int(ka.max()), int(kb.max())) - lo + 1
        total *= span
        if total >= _LIMIT:
            return None
        x = x * span + (ka - lo)
        y = y * span + (kb - lo)
    return x, y


def direct(build: np.ndarray, probe: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Positions (in build, in probe) of the pairs with equal keys, by a table over the build
    keys' range; None when a build key repeats or the range is wide (the hash join then).

    >>> [p.tolist() for p in direct(np.array([7, 5, 6]), np.array([5, 9, 7, 5, -2**63]))]
    [[1, 0, 1], [0, 2, 3]]
    >>> direct(np.array([1, 1]), np.array([1])) is None
    True
    """
    head = np.sort(build[:_HEAD])
    if (head[1:] == head[:-1]).any():
        return None  # a repeated key seen early (a line item's order: stored side by side)
    lo, hi = int(build.min()), int(build.max())
    span = hi - lo + 1
    if span > min(8 * len(build) + 65536, _SPAN) or span < len(build):
        return None
    slot = np.full(span, -1, np.int64)
    slot[build - lo] = np.arange(len(build), dtype=np.int64)
    if np.count_nonzero(slot >= 0) != len(build):
        return None  # a repeated key
    inside = np.flatnonzero((probe >= lo) & (probe <= hi))
    at = slot[probe[inside] - lo]
    hit = at >= 0
    return at[hit], inside[hit]


# --- inner joins of n inputs ----------------------------------------------------------------


def _inner(src: SourceInner, ctx: Any) -> Frame | None:
    frames: list[Frame] = []
    for s in src.inputs:
        f = evaluate(s, ctx)
        if f is None:
            return None
        frames.append(f)
    starts = np.cumsum([0, *src.widths]).tolist()
    keyfns = compiled(src, "keys", lambda: [(compile_any(a), compile_any(b))
                                            for _, _, a, b in src.edges])
    resfns = compiled(src, "res", lambda: [mask_any(e) for _, e in src.residuals])
    before = [f.n for f in frames]
    frames = reduce_inputs(frames, src.edges, keyfns, ctx, _keys)

    def size(i: int) -> str:
        n = frames[i].n
        return f"{n} rows" if n == before[i] else f"{n} of {before[i]} rows"

    todo = set(range(len(frames)))
    first = min(todo, key=lambda i: (frames[i].n, i))
    g = frames[first]
    offset = {first: 0}  # input -> where its columns start in g
    todo.discard(first)
    done_res: set[int] = set()
    g = _residuals(src, resfns, done_res, g, offset, starts, ctx)
    steps = [f"{src.inputs[first].describe()} ({size(first)})"]
    while todo:
        ctx.check_cancel()
        linked = {j for i, j, _, _ in src.edges if i in offset and j in todo} | \
                 {i for i, j, _, _ in src.edges if j in offset and i in todo}
        if not linked:
            raise Fallback("a join without an equality (a cross product)")
        k = min(linked, key=lambda i: (_growth(src, offset, i), frames[i].n, i))
        grows = _growth(src, offset, k)
        fl: list[Any] = []
        fr: list[Any] = []
        inside: list[int] = []
        for e, (i, j, _, _) in enumerate(src.edges):
            if i in offset and j == k:
                fl.append(keyfns[e][0])
                fr.append(keyfns[e][1])
                inside.append(i)
            elif j in offset and i == k:
                fl.append(keyfns[e][1])
                fr.append(keyfns[e][0])
                inside.append(j)
        # each key of the joined side reads its own input's columns, wherever they are in g
        lk: list[np.ndarray] = []
        rk: list[np.ndarray] = []
        lv: np.ndarray | None = None
        rv: np.ndarray | None = None
        for a, b, i in zip(fl, fr, inside, strict=True):
            x, xv, y, yv = _keys([a], [b], _shifted(g, offset[i]), frames[k].column, ctx)
            lk += x
            rk += y
            lv = xv if lv is None else lv if xv is None else lv & xv
            rv = yv if rv is None else rv if yv is None else rv & yv
        # at most one match per row of g when k's keys cover its primary key; at most one per
        # row of k when they cover that of g's only input
        memcap.check(lk, lv, rk, rv, len(offset) + 1, ctx, g.n if grows == 0 else
                     frames[k].n if grows == 1 and len(offset) == 1 else None)
        li, ri = match(lk, lv, rk, rv)
        offset[k] = g.width
        g = g.take(li).beside(frames[k].take(ri))
        todo.discard(k)
        g = _residuals(src, resfns, done_res, g, offset, starts, ctx)
        steps.append(f"⋈ {src.inputs[k].describe()} ({size(k)}) → {g.n} rows")
    note(ctx, src, " ".join(steps))
    order = [offset[i] + c for i in range(len(frames)) for c in range(src.widths[i])]
    return g.reorder(order)


def _growth(src: SourceInner, inside: dict[int, int], k: int) -> int:
    """How joining input k may multiply rows: 0 when its keys cover its primary key (each row
    in finds at most one), 1 when the keys on the joined side cover the primary key of an
    input there (the result has at most as many rows as k), 2 otherwise (a many-to-many)."""
    mine: set[int] = set()
    theirs: dict[int, set[int]] = {}
    for i, j, a, b in src.edges:
        for x, y, ex, ey in ((i, j, a, b), (j, i, b, a)):
            if x == k and y in inside:
                if ex.kind == "col":
                    mine.add(ex.data)
                if ey.kind == "col":
                    theirs.setdefault(y, set()).add(ey.data)
    pk = src.unique[k] if src.unique else None
    if pk is not None and pk <= mine:
        return 0
    for y, cols in theirs.items():
        pk = src.unique[y] if src.unique else None
        if pk is not None and pk <= cols:
            return 1
    return 2


def _shifted(g: Frame, at: int) -> Callable[[int], Column]:
    return lambda c: g.column(at + c)


def _residuals(src: SourceInner, fns: list[Any], done: set[int], g: Frame,
               offset: dict[int, int], starts: list[int], ctx: Any) -> Frame:
    """Applies every residual whose inputs are all in g and that has not run yet."""
    for r, (inputs, _) in enumerate(src.residuals):
        if r in done or not inputs <= offset.keys():
            continue
        done.add(r)
        g = _filter(g, fns[r], ctx, _global(g, offset, starts))
    return g


def _global(g: Frame, offset: dict[int, int], starts: list[int]) -> Callable[[int], Column]:
    """Column x of the inputs' concatenation (the residuals' numbering), read from g."""

    def col(x: int) -> Column:
        i = int(np.searchsorted(starts, x, side="right")) - 1
        return g.column(offset[i] + x - starts[i])

    return col


# --- LEFT, semi and anti joins --------------------------------------------------------------


def _outer(src: SourceJoin, ctx: Any) -> Frame | None:
    left = evaluate(src.left, ctx)
    if left is None:
        return None
    right = evaluate(src.right, ctx)
    if right is None:
        return None
    fl = compiled(src, "lk", lambda: [compile_any(e) for e in src.left_keys])
    fr = compiled(src, "rk", lambda: [compile_any(e) for e in src.right_keys])
    lv: np.ndarray | None = None
    right_n = right.n  # (before the reduction: NOT IN over a non-empty set)
    if left.n and right.n >= RATIO * left.n and len(fl) == 1 and not src.null_aware:
        vals = small_keys(fl[0], left, ctx)
        pos = None if vals is None else by_pack(right, src.right_keys[0], vals)
        if pos is not None:  # (else `_reduced` below, over the concatenated keys)
            right = right.take(pos)
    if left.n and right.n:
        lk, lv, rk, rv = _keys(fl, fr, left.column, right.column, ctx)
        if src.null_aware and rv is not None and not rv.all():
            return left.take(np.zeros(0, np.int64))  # x NOT IN (..., NULL) is never true
        memcap.check(lk, lv, rk, rv, 2, ctx)
        if right.n >= RATIO * left.n:
            right, rk, rv = _reduced(lk, lv, rk, rv, right)
        li, ri = match(lk, lv, rk, rv)
    else:
        li = ri = np.zeros(0, np.int64)
    residual = src.residual
    if residual is not None and len(li):
        res = compiled(src, "res", lambda: mask_any(residual))
        pairs = left.take(li).beside(right.take(ri))
        m = res(pairs.column, ctx)
        if m is not None:
            if len(m) != len(li):
                if len(m):
                    raise Fallback("mask length")
                m = np.zeros(len(li), bool)
            li, ri = li[m], ri[m]
    matched = np.zeros(left.n, bool)
    matched[li] = True
    if src.kind == "semi":
        return left.take(np.flatnonzero(matched))
    if src.kind == "anti":
        if src.null_aware and right_n and lv is not None:
            matched |= ~lv  # NULL NOT IN (a non-empty set) is NULL
        return left.take(np.flatnonzero(~matched))
    alone = np.flatnonzero(~matched)
    li = np.concatenate([li, alone])
    ri = np.concatenate([ri, np.full(len(alone), -1, np.int64)])
    return left.take(li).beside(right.pad(ri))


def _reduced(lk: list[np.ndarray], lv: np.ndarray | None, rk: list[np.ndarray],
             rv: np.ndarray | None, right: Frame
             ) -> tuple[Frame, list[np.ndarray], np.ndarray | None]:
    """The right side of a LEFT, semi or anti join cut to the rows whose key the (much
    smaller) left side holds, with its keys: the others pair with nothing, and their
    residual columns are then never gathered. Why: TPC-H Q21's EXISTS and NOT EXISTS probe
    all of lineitem with a few thousand orders' keys, and Arrow's hash join over the
    600,572 rows (and the residual's columns read for every row) was most of the query;
    `reduce.keep` is one lookup per row in a table over the keys' range.

    >>> from cumulo.server.kivi.columnar import encode
    >>> from .frame import Materialized
    >>> f = Frame.of(Materialized([encode([5, 6, 7, None])], [23]))
    >>> g, rk, rv = _reduced([np.array([7, 5])], None, [np.array([5, 6, 7, 0])],
    ...                      np.array([True, True, True, False]), f)
    >>> g.column(0).to_pylist(), rk[0].tolist(), rv
    ([5, 7], [5, 7], None)
    """
    one = combined(lk, rk)
    if one is None:
        return right, rk, rv
    pos = keep(one[0], lv, one[1], rv)
    if len(pos) == right.n:
        return right, rk, rv
    return right.take(pos), [k[pos] for k in rk], None  # (keep drops NULL keys)


__all__ = ["evaluate", "match"]
