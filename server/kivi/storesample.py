"""A region's rows sampled by position, for ANALYZE: the count exact, only the sample read.

Why: PostgreSQL's ANALYZE reads 300 x the statistics target rows (30,000) from
random blocks, never the whole table. Cumulo's read every row through the row
path (decoding every cold segment, building a tuple per row) and kept a
reservoir: a manual ANALYZE of a freshly loaded 1M-row table took 2.2 s of server
CPU against PostgreSQL's 0.12, and the automatic one ran right after every load,
beside the user's first statements (30 % of the server's samples during a COPY TO
right after a COPY FROM, 45-58 % of a pandas `read_sql` after `to_sql`).

How. A region's live keys are in three places, disjoint (`kivi.mvcc`): the hot
base (sorted lists of keys and version chains), the write cache, and the cold
segments (`kivi.coldrows`). Numbered in that order, the rows visible at a snapshot
get positions 0..n-1, and a uniform sample of positions is cheap to read back:
- cold rows are all visible to every snapshot the store serves (one version, at or
  below the garbage-collection watermark): a segment's count is its alive mask's;
- a base chain's visible row is its head's unless the head is newer than the
  snapshot; when no version in the store is (`newest_ts <= ts`, a load then an
  ANALYZE), the only invisible base keys are tombstones, and every key that may
  hold one is in the store's `_gc` set (or the list a running `collect` took from
  it): they are looked up one by one. Otherwise, or with many of them, the base is
  read a window at a time (one list slice under the lock per WINDOW chains) and
  the invisible positions found in C-level passes (~0.1 us a chain);
- the cache is small (at most 1/64 of the base past CACHE_LIMIT): copied whole.
`sample_cut` takes this under the node lock (`Cut`, the state between the two holds);
`Cut.rows_at` fetches the picked base chains in a second hold, after checking that
the base is still the same list (a freeze, a merge or a split since then replace
or cut it: the caller then tries again), and decodes the picked cold records
outside the lock, one C call per segment (`coldrows.Segment.rows_at`).

Later writes do not disturb a cut: a chain replaced in place keeps every version
a snapshot at or above the watermark can see, appended keys lie past the cut's
end, and a cold key that goes hot was copied with its mask.

    >>> from .mvcc import VersionStore
    >>> s = VersionStore()
    >>> s.apply_lists(5, [b"%04d" % i for i in range(5000)], [(i,) for i in range(5000)])
    >>> s.apply(6, [(b"0001", None), (b"0002", (-2,))])  # a delete and an update
    >>> c = s.sample_cut(6)
    >>> c.n, rows_of(c, [0, 1, 4998])
    (4999, [(0,), (-2,), (4999,)])
    >>> s.sample_cut(5).n  # the snapshot before the delete
    5000
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import Any

import numpy as np

from .coldrows import Segment

Row = tuple[Any, ...]
Chain = tuple[tuple[int, Row | None], ...]

WINDOW = 1 << 15  # base chains copied per hold of the lock when the base is read whole
FEW = 2048  # keys that may hold a tombstone looked up one by one (more: the windows)

_head = itemgetter(0)
_row_of = itemgetter(1)


def visible(chain: Chain, ts: int) -> Row | None:
    """Returns the row of the newest version <= ts, None when there is none or it is a tombstone."""
    for vts, row in chain:
        if vts <= ts:
            return row
    return None


class Cut:
    """One region's rows visible at ts, numbered: the base's (less `skip`, sorted base
    positions of invisible keys), then the cache's (`cached`, copied), then the cold
    segments' alive entries (`cold`: each segment with its alive mask copy, None: all)."""

    __slots__ = ("store", "ts", "chains", "epoch", "base", "skip", "cached", "cold", "counts",
                 "n")

    def __init__(self, store: Sampling, ts: int, chains: list[Chain], epoch: int, base: int,
                 skip: np.ndarray, cached: list[Row], cold: list[tuple[Segment, bytes | None]]
                 ) -> None:
        self.store, self.ts, self.chains, self.epoch = store, ts, chains, epoch
        self.base, self.skip, self.cached, self.cold = base, skip, cached, cold
        # visible rows per part: the base, the cache, each segment
        self.counts = np.array([base - len(skip), len(cached),
                                *(s.n if a is None else a.count(1) for s, a in cold)], np.int64)
        self.n = int(self.counts.sum())

    def rows_at(self, picks: np.ndarray, lock: AbstractContextManager[Any] | None
                ) -> list[Row] | None:
        """The rows at visible positions `picks` (ascending, < n); None when the base was
        replaced or cut since the cut (the caller cuts again)."""
        ends = np.cumsum(self.counts)
        cuts = np.searchsorted(picks, ends).tolist()
        out: list[Row] = []
        nb = cuts[0]
        if nb:
            v = picks[:nb]
            if len(self.skip):  # the v-th visible base entry: v plus the skipped ones before it
                v = v + np.searchsorted(self.skip - np.arange(len(self.skip)), v, "right")
            pos = v.tolist()
            with lock if lock is not None else nullcontext():
                if not self.store.same_base(self.chains, self.epoch):
                    return None
                chains = [self.chains[p] for p in pos]
            ts = self.ts
            got = [visible(c, ts) for c in chains]
            if None in got:  # NB: cannot happen while collections keep what ts sees
                return None
            out += got  # type: ignore[arg-type]
        lo = nb
        if cuts[1] > lo:
            out += [self.cached[i] for i in (picks[lo:cuts[1]] - int(ends[0])).tolist()]
        lo = cuts[1]
        for (seg, alive), cut_, start in zip(self.cold, cuts[2:], ends[1:-1].tolist(), strict=True):
            if cut_ > lo:
                local = picks[lo:cut_] - start
                if alive is not None:
                    local = np.flatnonzero(np.frombuffer(alive, np.uint8))[local]
                out += seg.rows_at(local.tolist())
            lo = cut_
        return out


class Sampling:
    """`sample_cut` for `mvcc.VersionStore`, whose state it reads is declared here (the
    store sets it up; `freeze.Freezing` declares the slots)."""

    __slots__ = ()
    _keys: list[bytes]
    _chains: list[Chain]
    _cache: Any  # SortedDict: key -> chain
    _cold: Any  # coldrows.ColdRows
    _gc: set[bytes]
    _collecting: list[bytes]
    _max_ts: int
    _low_water: int
    _epoch: int

    def sample_cut(self, ts: int, lock: AbstractContextManager[Any] | None = None
                   ) -> Cut | None:
        """The store's rows visible at ts, numbered (see the module doc); None below the
        garbage-collection watermark (no snapshot reads there) or when the base changed
        between two windows (the caller tries again). `lock`: the node lock, not held by
        the caller (None: the caller owns the store)."""
        guard = lock if lock is not None else nullcontext()
        with guard:
            if ts < self._low_water:
                return None
            keys, chains, epoch = self._keys, self._chains, self._epoch
            base = len(chains)
            cache = list(self._cache.values())
            cold = [(s, bytes(s.alive) if s.dead else None) for s in self._cold.segs]
            skip: list[int] | None = None
            if self._max_ts <= ts and len(self._gc) + len(self._collecting) <= FEW:
                skip = []
                for k in self._gc.union(self._collecting):
                    i = bisect_left(keys, k)
                    if i < base and keys[i] == k and chains[i][0][1] is None:
                        skip.append(i)  # NB: every head is <= ts: a tombstone hides its key
        cached = [r for r in (visible(c, ts) for c in cache) if r is not None]
        if skip is None:
            skip = []
            for a in range(0, base, WINDOW):
                with guard:
                    if not self.same_base(chains, epoch):
                        return None
                    window = chains[a:min(a + WINDOW, base)]
                skip += _invisible(window, ts, a)
        return Cut(self, ts, chains, epoch, base, np.array(sorted(skip), np.int64), cached,
                   cold)

    def same_base(self, chains: list[Chain], epoch: int) -> bool:
        """Tells whether the base is still `chains`, its positions unmoved (under the lock)."""
        return self._chains is chains and self._epoch == epoch


def _invisible(window: list[Chain], ts: int, offset: int) -> list[int]:
    """Positions (plus offset) of the chains in window with no row visible at ts."""
    heads = list(map(_head, window))
    rows = list(map(_row_of, heads))
    newer = np.flatnonzero(np.fromiter(map(_head, heads), np.int64, len(heads)) > ts).tolist()
    out = [i for i in newer if visible(window[i], ts) is None]
    if None in rows:  # tombstone heads (a head newer than ts was looked at above)
        seen = set(newer)
        out += [i for i in compress(range(len(rows)), map(is_, rows, repeat(None)))
                if i not in seen]
    return [offset + i for i in out]


def take(cuts: list[Cut], picks: np.ndarray, lock: AbstractContextManager[Any] | None
         ) -> list[Row] | None:
    """The rows at positions `picks` (ascending) of the cuts' rows numbered one after the
    other (a space's regions); None when some region's base changed (`Cut.rows_at`)."""
    counts = np.array([c.n for c in cuts], np.int64)
    ends = np.cumsum(counts)
    out: list[Row] = []
    lo = 0
    for c, start, end in zip(cuts, (ends - counts).tolist(), np.searchsorted(picks, ends).tolist(),
                             strict=True):
        if end > lo:
            got = c.rows_at(picks[lo:end] - start, lock)
            if got is None:
                return None
            out += got
        lo = end
    return out


def rows_of(c: Cut, picks: Sequence[int]) -> list[Row] | None:
    """`Cut.rows_at` of a plain list of positions, without a lock (tests, doctests)."""
    return c.rows_at(np.array(sorted(picks), np.int64), None)


__all__ = ["Cut", "Sampling", "rows_of", "take", "visible"]
