"""Semi-join reduction of an n-ary inner join's inputs before they are joined.

In an inner equi-join a row whose key has no partner on the other side of any of its
edges can never reach the result. So, before ordering and pairing (`join._inner`), each
input much smaller than a neighbour filters that neighbour to the rows whose key it
holds: one `is_in` over the big side against the small side's keys, the work of a hash
probe, without materializing pairs. TPC-H Q8's 147 parts cut lineitem's 600,572 rows to
4,485 before any join; the reduced lineitem then cuts orders, and so on along the edges
(the smallest input filters first, and a pair is tried again only once its sizes changed:
`_next_step`). The join order chosen afterwards sees the reduced sizes.

Exact by construction: only rows that an inner join on that key drops anyway are dropped
(a NULL key matches nothing, and the keys are compared as `join._pair` makes them
comparable: PostgreSQL's `=`). LEFT, semi and anti joins are not touched here.

    >>> small = np.array([3, 5]); big = np.array([1, 3, 3, 9, 5])
    >>> keep(small, None, big, np.array([True, True, False, True, True])).tolist()
    [1, 4]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...expr.bound import E
from ...expr.vectorize import V
from .frame import Frame, Stored

RATIO = 4  # an input filters a neighbour at least this many times its size
PASSES = 3  # reductions per edge and direction, at most (`reduce_inputs`)
_TABLE = 1 << 20  # a lookup table of up to this many entries (bytes) is always fine
_LIMIT = 2**63


def keep(small: np.ndarray, small_valid: np.ndarray | None, big: np.ndarray,
         big_valid: np.ndarray | None) -> np.ndarray:
    """Positions of the big side's rows whose key the small side holds (NULLs never).

    >>> keep(np.array([5, 7, 9]), np.array([True, True, False]), np.array([9, 7, 1, 5, 7]),
    ...      None).tolist()
    [1, 3, 4]
    >>> keep(np.array([2**62]), None, np.array([-2**63, 2**62, 0]), None).tolist()
    [1]
    >>> keep(np.array([-2**63, 3]), None, np.array([3, 4, -2**63]), None).tolist()
    [0, 2]
    """
    values = small if small_valid is None else small[small_valid]
    hit = _lookup(values, big)
    if hit is None:
        hit = pc.is_in(pa.array(big), value_set=pa.array(values)).to_numpy(zero_copy_only=False)
    if big_valid is not None:
        hit &= big_valid
    return np.flatnonzero(hit)


def _lookup(values: np.ndarray, big: np.ndarray) -> np.ndarray | None:
    """Which of `big` are among `values` by a table over the values' range, when both are
    integers and the range is narrow (keys usually are): one gather per row, 5-10 times
    quicker than Arrow's hash set. Rows outside the range land on the table's two False
    ends; None when the range is wide or a shift could overflow int64."""
    t = _Table.over(values, len(big))
    return None if t is None or not len(big) else t.probe(big)


class _Table:
    """The lookup table of `_lookup`, built once and probed by any number of packs."""

    __slots__ = ("table", "base", "span")

    def __init__(self, table: np.ndarray, base: int, span: int) -> None:
        self.table, self.base, self.span = table, base, span

    @classmethod
    def over(cls, values: np.ndarray, nbig: int) -> _Table | None:
        if values.dtype.kind != "i" or not len(values):
            return None
        lo, hi = int(values.min()), int(values.max())
        span = hi - lo + 1
        if span > max(_TABLE, 2 * nbig):
            return None
        base = lo - 1
        if base < -_LIMIT:
            return None
        table = np.zeros(span + 2, bool)
        table[values - base] = True
        return cls(table, base, span)

    def probe(self, big: np.ndarray, lo: Any = None, hi: Any = None) -> np.ndarray | None:
        """Hits of big (non-empty; `lo`/`hi`: bounds of its values when known), or None
        when shifting it could overflow int64."""
        if big.dtype.kind != "i":
            return None
        base = self.base
        lo = int(big.min()) if lo is None else int(lo)
        hi = int(big.max()) if hi is None else int(hi)
        if lo - base < -_LIMIT or hi - base >= _LIMIT:
            return None
        idx = np.subtract(big, base, dtype=np.int64)
        np.clip(idx, 0, self.span + 1, out=idx)
        return self.table[idx]


def by_pack(big: Frame, key: E, values: np.ndarray) -> np.ndarray | None:
    """`keep` for a big side that is a table's stored rows keyed by one of its integer
    columns, pack by pack: positions of the rows whose key is among `values` (int64, no
    NULL), without first concatenating the key column across every pack (the copy of
    lineitem's keys was ~28 % of TPC-H Q5); None when that does not apply (a computed key,
    a gathered frame, another kind, a wide range, a filtered scan): the caller concatenates.

    Why not over a filtered scan: its packs' keys must be gathered either way, and the
    caller's concatenation keeps them (`Stored.column`) for the join that follows, which
    here gathered them again (TPC-H Q7 and Q3, lineitem filtered by date: 5-7 % more
    server CPU with this than without; Q5 and Q21, lineitem whole: 3 % less).
    """
    if key.kind != "col" or len(big.parts) != 1:
        return None
    src, idx = big.parts[0]
    p, c = big.colmap[key.data]
    if p != 0 or idx is not None or not isinstance(src, Stored) or not src.packwise(c):
        return None
    if any(sel.idx is not None for sel in src.selected):
        return None
    table = _Table.over(values, src.n)
    if table is None:
        return None
    out: list[np.ndarray] = []
    base = 0
    for sel in src.selected:
        col = sel.pack.column(c)
        if col.kind != "i8":
            return None
        if col.lo is None:  # every row NULL
            base += len(sel)
            continue
        lo, hi = (col.lo, col.hi) if col.valid is None else (min(col.lo, 0), max(col.hi, 0))
        hit = table.probe(col.values, lo, hi)  # (a NULL's slot holds 0)
        if hit is None:
            return None
        if col.valid is not None:
            hit &= col.valid
        out.append(np.flatnonzero(hit) + base)
        base += len(sel)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def small_keys(fn: Any, frame: Frame, ctx: Any) -> np.ndarray | None:
    """The small side's non-NULL integer keys (for `by_pack`); None for another kind."""
    v = fn(frame.column, ctx)
    if not isinstance(v, V) or v.kind != "i8":
        return None
    return v.values if v.valid is None else v.values[v.valid]


def reduce_inputs(frames: list[Frame], edges: list[tuple[int, int, Any, Any]],
                  keyfns: list[tuple[Any, Any]], ctx: Any,
                  pair: Any) -> list[Frame]:
    """The inputs with rows that no inner join along `edges` can match dropped.

    `keyfns[e]` are the compiled keys of edge e (over input i, over input j), and
    `pair(a, b)` makes two key values comparable int64 arrays (`join._keys`)."""
    frames = list(frames)
    tried: set[tuple[int, int, int, int]] = set()
    for _ in range(PASSES * 2 * len(edges)):
        step = _next_step(frames, edges, tried)
        if step is None:
            break
        e, s, b, fs, fb, bkey = step
        nb = frames[b].n
        tried.add((e, s, frames[s].n, nb))
        ctx.check_cancel()
        vals = small_keys(keyfns[e][fs], frames[s], ctx)
        pos = None if vals is None else by_pack(frames[b], bkey, vals)
        if pos is None:
            sk, sv, bk, bv = pair([keyfns[e][fs]], [keyfns[e][fb]], frames[s].column,
                                  frames[b].column, ctx)
            pos = keep(sk[0], sv, bk[0], bv)
        if len(pos) < nb:
            frames[b] = frames[b].take(pos)
            tried.add((e, s, frames[s].n, len(pos)))  # (the same keys again cut nothing)
    return frames


def _next_step(frames: list[Frame], edges: list[tuple[int, int, Any, Any]],
               tried: set[tuple[int, int, int, int]]
               ) -> tuple[int, int, int, int, int, Any] | None:
    """The next reduction (edge, small input, big input, key sides, the big side's key):
    the smallest input that can filter a neighbour RATIO times its size, and has not yet
    tried it at these two sizes (the same sizes are the same rows: inputs only shrink).

    Why the smallest first: a reduction by a side that is itself still to be cut probes
    the big side for nothing. TPC-H Q7 probed lineitem's 182,762 rows with all 1,000
    suppliers before nation cut them to 85, then again with the 85 (and orders with all
    15,000 customers), in edge order; and every pass probed again at unchanged sizes.

    >>> from .frame import Materialized
    >>> f = [Frame.of(Materialized([], [])) for _ in range(3)]
    >>> for frame, n in zip(f, (1000, 2, 180000)): frame.n = n
    >>> _next_step(f, [(0, 2, None, "k"), (1, 0, None, "s")], set())[:3]
    (1, 1, 0)
    >>> _next_step(f, [(0, 2, None, "k"), (1, 0, None, "s")], {(1, 1, 2, 1000)})[:3]
    (0, 0, 2)
    """
    best: tuple[int, tuple[int, int, int, int, int, Any]] | None = None
    for e, (i, j, ki, kj) in enumerate(edges):
        for s, b, fs, fb, bkey in ((i, j, 0, 1, kj), (j, i, 1, 0, ki)):
            ns, nb = frames[s].n, frames[b].n
            if nb == 0 or ns * RATIO > nb or (e, s, ns, nb) in tried:
                continue
            if best is None or ns < best[0]:
                best = (ns, (e, s, b, fs, fb, bkey))
    return None if best is None else best[1]


__all__ = ["keep", "reduce_inputs"]
