"""Freezing: a region's settled base rows moved into cold segments (`kivi.coldrows`).

Why a module of its own: the version store (`kivi.mvcc`) keeps versions and answers
reads; deciding which rows may go cold, encoding them outside the node lock and
installing the result under it is a separate concern with its own invariants:
- a key goes cold only with one committed version, a row (no tombstone), at or below
  the garbage-collection watermark: every snapshot that may read the store sees it;
- segments stay disjoint: a new segment never spans an existing one's key range (keys
  that went hot inside one stay hot in the base);
- fewer than MIN_SEGMENT freezable keys in a run stay hot: a segment's fixed cost,
  and small tables (TPC-C's warehouse and district rows, updated by nearly every
  transaction) never pay for a freeze and a thaw per write.

`Freezing` is the freeze half of `mvcc.VersionStore`, as a mixin sharing its slots.

>>> from .coldrows import ColdRows
>>> keys = [i.to_bytes(2, "big") for i in range(300)]
>>> segs = _freezable(keys, [((1, (i,)),) for i in range(300)], 5, [])
>>> [(seg.n, seg.first == keys[0], len(at)) for seg, at in segs]
[(300, True, 300)]
"""

from __future__ import annotations

import contextvars
import ctypes
import time
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from itertools import compress
from operator import is_not, itemgetter, not_
from typing import Any

from sortedcontainers import SortedDict

from .coldrows import ColdRows, Segment, merge
from .columnar.pace import background

Row = tuple[Any, ...]
Chain = tuple[tuple[int, Row | None], ...]

SEGMENT_ROWS = 8192  # base keys read per hold of the lock by a freeze, and a segment's most
MIN_SEGMENT = 256  # fewer freezable keys in a run are left hot (a segment's fixed cost)
REWRITE_SHARE = 8  # a segment is rewritten once 1/8 as many keys went hot in its range
FREE_CHUNK = 32768  # list slots freed per GIL hold after a freeze

READER_WAIT = 0.1  # seconds a freeze waits at most between two windows while readers run
READER_POLL = 0.002

# Whether readers are running now, and nothing else (the transaction manager's test, set by its
# collecting thread for itself: `EmbeddedTxnManager._gc_loop`); unset, a freeze does not wait.
# Why: a load's freeze runs at the first quiet moment, and a user who reads what was loaded a
# moment later (a COPY TO, a SELECT *: no commit, so no OLTP to pace by) shared the GIL with
# its encoding (~1.5 s of CPU per million rows) for the whole read.
readers: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "freeze_readers", default=None)

TRIM_AFTER = 1 << 16  # rows frozen in a pass after which the C heap's free pages go back

# The rows a freeze lets go of leave free pages inside the C heap (a segment's blobs are
# malloc'd among them); glibc's malloc_trim hands them back to the system.
try:
    _malloc_trim: Callable[[int], int] | None = ctypes.CDLL(None).malloc_trim
except (OSError, AttributeError):  # not glibc
    _malloc_trim = None

_head = itemgetter(0)
_row_of = itemgetter(1)


class Freezing:
    """`freeze` for `mvcc.VersionStore`, whose state a freeze reads and replaces is declared
    here (the store sets it up)."""

    __slots__ = ("_keys", "_chains", "_cache", "_cold", "_low_water", "_epoch", "_dirty", "_aged")
    _keys: list[bytes]
    _chains: list[Chain]
    _cache: SortedDict
    _cold: ColdRows
    _low_water: int
    _epoch: int
    _dirty: list[int] | None
    _aged: int  # the watermark of the previous freeze: keys at or below it sat out a pass

    def freeze(self, low_water: int, lock: AbstractContextManager[Any] | None = None) -> int:
        """Moves base keys whose one version is a row <= low_water into cold segments
        (`kivi.coldrows`); returns how many. Raises the watermark as `collect` does.

        With `lock` (not held by the caller) no hold is longer than a few ms at any size:
        the base is read SEGMENT_ROWS keys per hold, encoded outside the lock, and the base
        without the frozen keys is built outside it too, a window at a time. Base writes
        meanwhile note their positions (`_dirty`); the last hold installs the segments
        and the new base, copying in the chains written since, and moving a frozen key
        written since to the write cache (dead in its segment). If the base was replaced
        meanwhile (a cache merge, a removal, a split) nothing changes and the next pass
        tries again. The old lists are then freed from their end a slice at a time
        (freeing a 10M-key list is a 1-2 s GIL hold).
        """
        guard = lock if lock is not None else nullcontext()
        with guard:
            self._low_water = max(self._low_water, low_water)
            lw = self._low_water
            keys0, chains0, epoch, n0 = self._keys, self._chains, self._epoch, len(self._keys)
            taken = [(s.first, s.last) for s in self._cold.segs]
            if n0 < MIN_SEGMENT or self._dirty is not None:
                return 0
            self._dirty = []
            aged, self._aged = self._aged, lw
        try:
            frozen = self._freeze(keys0, chains0, epoch, n0, lw, taken, lock)
            frozen += self._rewrite(aged, lock)
            if frozen >= TRIM_AFTER and _malloc_trim is not None:
                _malloc_trim(0)  # NB: a foreign call: the GIL is released meanwhile
            return frozen
        finally:
            with guard:
                self._dirty = None

    def _freeze(self, keys0: list[bytes], chains0: list[Chain], epoch: int, n0: int, lw: int,
                taken: list[tuple[bytes, bytes]], lock: AbstractContextManager[Any] | None
                ) -> int:
        guard = lock if lock is not None else nullcontext()
        pause = _give_way if lock is not None else _no_pause
        sel = bytearray(b"\x01") * n0  # 0: frozen
        # window start -> its segments and the window positions each holds
        placed: dict[int, list[tuple[Segment, Sequence[int]]]] = {}
        for start in range(0, n0, SEGMENT_ROWS):
            if start:
                pause()  # gives way to OLTP between windows (`pace.background`)
            with guard:
                if self._keys is not keys0 or self._epoch != epoch:
                    return 0
                ks, cs = keys0[start:start + SEGMENT_ROWS], chains0[start:start + SEGMENT_ROWS]
            segs = _freezable(ks, cs, lw, taken)
            if segs:
                placed[start] = segs
                for _, at in segs:
                    if isinstance(at, range):
                        sel[start + at.start:start + at.stop] = bytes(len(at))
                    else:
                        for p in at:
                            sel[start + p] = 0
        if not placed:
            return 0
        del ks, cs
        # the new base, outside the lock: positions stay put until the lists are replaced
        # (checked below); chains written meanwhile are copied in at the install
        new_k: list[bytes] = []
        new_c: list[Chain] = []
        for start in range(0, n0, SEGMENT_ROWS):
            if lock is not None:
                background()
            w = sel[start:start + SEGMENT_ROWS]
            new_k += compress(keys0[start:start + SEGMENT_ROWS], w)
            new_c += compress(chains0[start:start + SEGMENT_ROWS], w)
        frozen = 0
        with guard:
            if self._keys is not keys0 or self._epoch != epoch:
                return 0
            cold, cache = self._cold, self._cache
            segs_all = [seg for segs in placed.values() for seg, _ in segs]
            if any(cold.overlaps(seg.first, seg.last) for seg in segs_all):
                return 0  # NB: cannot happen while collections do not overlap
            dirty = sorted(set(self._dirty or ()))
            zeros, prev = 0, 0
            for p in dirty:
                if p >= n0:
                    break  # appended since the pass began: copied below
                zeros += sel.count(0, prev, p)
                prev = p
                if sel[p]:  # still hot: its new chain
                    new_c[p - zeros] = chains0[p]
                else:  # frozen, and written since: hot again, in the write cache
                    start = p - p % SEGMENT_ROWS
                    for seg, at in placed[start]:
                        n = bisect_left(at, p - start)
                        if n < len(at) and at[n] == p - start:
                            seg.alive[n] = 0
                            seg.dead += 1
                            break
                    cache[keys0[p]] = chains0[p]
            for seg in segs_all:
                if seg.dead < seg.n:
                    cold.add(seg)
                    frozen += seg.n - seg.dead
            new_k += keys0[n0:]  # appended since the pass began
            new_c += chains0[n0:]
            self._keys, self._chains = new_k, new_c
        placed.clear()
        if lock is not None:
            # NB: no one else holds the old lists (readers copy slices under the lock)
            while keys0:
                del keys0[-FREE_CHUNK:]
                del chains0[-FREE_CHUNK:]
                background()
        return frozen



    def _rewrite(self, aged: int, lock: AbstractContextManager[Any] | None) -> int:
        """Folds the keys that went hot inside a segment's range, and have not been written
        since the previous pass (<= aged: a key written all the time stays hot), back into
        it: a new segment of its live entries and those keys, encoded outside the lock and
        installed if neither the base nor the segment changed meanwhile. Without it a
        segment's range keeps every key ever written in it hot (TPC-C's stock rows, one
        by one), and its dead entries. Returns how many keys went cold."""
        guard = lock if lock is not None else nullcontext()
        with guard:
            keys = self._keys
            todo = []
            for seg in self._cold.segs:
                h = bisect_right(keys, seg.last) - bisect_left(keys, seg.first)
                if h * REWRITE_SHARE >= seg.n and h >= MIN_SEGMENT // 4:
                    todo.append(seg)
        frozen = 0
        for seg in todo:
            if lock is not None:
                background()
            with guard:
                keys0, chains0 = self._keys, self._chains
                a, b = bisect_left(keys0, seg.first), bisect_right(keys0, seg.last)
                hk, hc, mask, dead = keys0[a:b], chains0[a:b], bytes(seg.alive), seg.dead
                epoch = self._epoch
            ok = [len(c) == 1 and c[0][1] is not None and c[0][0] <= aged for c in hc]
            n = ok.count(True)
            if n * REWRITE_SHARE < seg.n or n < MIN_SEGMENT // 4:
                continue
            ck, cr = seg.span(0, seg.n, mask if dead else None)
            fk = list(compress(hk, ok))
            fh = list(map(_head, compress(hc, ok)))
            mk, mr = merge(ck, cr, fk, list(map(_row_of, fh)))
            new = Segment.encode(mk, mr, max(seg.max_ts, *map(_head, fh)))
            keep = list(map(not_, ok))
            with guard:
                cold = self._cold
                s = bisect_left(cold.firsts, seg.first)
                if (self._keys is not keys0 or self._epoch != epoch or seg.dead != dead
                        or s >= len(cold.segs) or cold.segs[s] is not seg
                        or any(map(is_not, chains0[a:b], hc))):
                    continue  # written meanwhile: the next pass tries again
                cold.replace(s, new)
                self._keys = keys0[:a] + list(compress(hk, keep)) + keys0[b:]
                self._chains = chains0[:a] + list(compress(hc, keep)) + chains0[b:]
                if self._dirty is not None:
                    self._dirty = []  # NB: positions of lists no one reads any more
            frozen += n
        return frozen


def _give_way() -> None:
    """Between a freeze's windows: keeps to the analytic share beside OLTP (`background`),
    then waits while readers run (`readers`), READER_WAIT at most: the freeze goes on in
    the gaps, and beside a long read at about a tenth of its pace."""
    background()
    running = readers.get()
    if running is None or not running():
        return
    end = time.monotonic() + READER_WAIT
    while time.monotonic() < end:
        time.sleep(READER_POLL)
        if not running():
            return


def _no_pause() -> None:
    """`background`'s stand-in when no lock is shared: nothing to give way to."""


def _freezable(keys: list[bytes], chains: list[Chain], low_water: int,
               taken: list[tuple[bytes, bytes]]) -> list[tuple[Segment, Sequence[int]]]:
    """Encodes the base keys among `keys` that may go cold, as segments with the positions
    they came from: keys whose chain is one row <= low_water, outside the ranges `taken`
    by existing segments; a segment never spans such a range (segments stay disjoint).

    The taken ranges are cut out first, and only the gaps long enough for a segment are
    tested key by key: a busy table's hot keys are mostly rows updated inside its
    segments' ranges (pgbench's accounts, TPC-C's stock), which no pass can freeze until
    `_rewrite` folds them back, and testing each of them on every pass (every ~2,000
    commits) took the collector thread's GIL share beside OLTP up from ~3 % to ~8 % as
    they piled up over a 40 s run.

    >>> keys = [i.to_bytes(2, "big") for i in range(600)]
    >>> chains = [((1, (i,)),) for i in range(600)]
    >>> [(seg.n, at) for seg, at in _freezable(keys, chains, 5, [(keys[10], keys[20])])]
    [(579, range(21, 600))]
    """
    # cut points: the positions of the taken ranges that meet this window
    cuts: list[tuple[int, int]] = []
    lo_k, hi_k = keys[0], keys[-1]
    t = max(0, bisect_left(taken, (lo_k,)) - 1)
    for first, last in taken[t:]:
        if first > hi_k:
            break
        if last < lo_k:
            continue
        cuts.append((bisect_left(keys, first), bisect_right(keys, last)))
    out: list[tuple[Segment, Sequence[int]]] = []
    g0 = 0
    for a, b in [*cuts, (len(keys), len(keys))]:
        if a - g0 >= MIN_SEGMENT:
            gap = chains[g0:a]
            heads = list(map(_head, gap))
            if (set(map(len, gap)) == {1} and max(map(_head, heads)) <= low_water
                    and None not in map(_row_of, heads)):
                at: Sequence[int] = range(g0, a)  # the common case (a bulk load): C-level passes
            else:
                ok = [len(c) == 1 and h[1] is not None and h[0] <= low_water
                      for c, h in zip(gap, heads, strict=True)]
                # NB: compact: 10M positions as a list of ints would cost 360 MB during a pass
                at = range(g0, a) if all(ok) else array("I", compress(range(g0, a), ok))
            if len(at) >= MIN_SEGMENT:
                if len(at) == len(keys):
                    seg_k, seg_h = keys, heads
                elif len(at) == a - g0:
                    seg_k, seg_h = keys[g0:a], heads
                else:
                    seg_k = list(itemgetter(*at)(keys))
                    seg_h = list(itemgetter(*[p - g0 for p in at])(heads))
                out.append((Segment.encode(seg_k, list(map(_row_of, seg_h)),
                                           max(map(_head, seg_h))), at))
        g0 = max(g0, b)
    return out


__all__ = ["FREE_CHUNK", "MIN_SEGMENT", "READER_WAIT", "REWRITE_SHARE", "SEGMENT_ROWS",
           "Freezing", "readers"]
