"""Building a region's columnar copy outside the node lock, so writers are not stalled.

The first columnar read of a region builds its copy from the version chains:
about a second per million rows. Done under the node lock, it stalls every
writer of the node (every table, not only this one) for that long. Instead:

1. under the lock, the store takes a *snapshot* of its sorted keys and chains
   (two list copies, C-level; the chains are immutable tuples) and installs a
   `PendingBuild` where the copy goes (`VersionStore._col`). From then on every
   apply that would go to the copy is logged in it instead (`apply`);
2. outside the lock, one reader builds the copy from the snapshot (`finish`;
   readers that meet the same pending build wait for it, not for the lock);
3. under the lock again, the logged writes are replayed onto the copy, in the
   order they were applied, and the copy takes the pending build's place
   (`VersionStore.columnar_install`). The copy is then exactly what a build
   at that moment would give, so MVCC reads are unchanged.

Anything that replaces the store's versions meanwhile (a split, a reload, a
drop) clears `_col`; the install sees that the pending build is no longer in
place, or that the node's stores changed, and the read starts again (rare).

    >>> p = PendingBuild([b"a"], [((3, (1,)),)])
    >>> p.apply(5, [b"a"], [(2,)])
    >>> copy = p.finish()
    >>> sorted(p.catch_up(copy).snapshot(9).rows()), sorted(copy.snapshot(4).rows())
    ([(2,)], [(1,)])
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ...waits import Lock
from .copy import ColumnarCopy, Pack, Snapshot
from .pace import pace

Row = tuple[Any, ...]

TRIM_ROWS = 1 << 18  # after building copies this large, give freed heap pages back
ADOPT_PACKS = 4  # tracked packs a read makes sorted ones, per region (`adopt_packs`)


def _malloc_trim() -> Any:
    """glibc's malloc_trim, or None (another C library)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def release_free_memory() -> None:
    """Returns the heap's free pages to the system (glibc keeps them otherwise).

    A first build frees as much as it keeps (per-pack lists, the chains' snapshot),
    and a bulk load before it freed more; the process's RSS stays at that high-water
    mark unless the pages are given back. At 1M rows this was 35 MB of 530 MB.
    """
    if _TRIM is not None:
        _TRIM(0)


class PendingBuild:
    """A copy being built from a snapshot of the chains, and the writes applied since."""

    __slots__ = ("keys", "chains", "low_water", "log", "copy", "mutex", "broken")

    def __init__(self, keys: list[bytes], chains: list[Any], low_water: int = 0) -> None:
        self.low_water = low_water  # the store's GC watermark (see `ColumnarCopy.low_water`)
        self.keys: list[bytes] | None = keys
        self.chains: list[Any] | None = chains
        self.log: list[tuple[int, list[bytes], list[Row | None]]] = []
        self.copy: ColumnarCopy | None = None
        # One reader builds; the others wait for it. A `waits.Lock`: the builder parks its
        # greenlet in `pace()` on the event-loop front end, so a second reader on the loop's
        # thread must park too (a plain lock blocked the loop and the builder never resumed)
        self.mutex = Lock()
        self.broken = False  # the store's test for "rebuild me": a pending build is not broken

    # --- the store's view: it stands where the copy goes ----------------------------------------

    def apply(self, ts: int, keys: Sequence[bytes], rows: Sequence[Row | None]) -> None:
        """Logs one commit's writes (under the node lock), for `catch_up`."""
        self.log.append((ts, list(keys), list(rows)))

    def collect(self, low_water: int) -> int:
        """Nothing to collect yet (the copy's own `collect` runs at the next GC)."""
        return 0

    @property
    def nbytes(self) -> int:
        return 0

    # --- the builder's side -------------------------------------------------------------------

    def finish(self) -> ColumnarCopy:
        """Builds the copy from the snapshot (outside the node lock); once, whoever calls."""
        with self.mutex:
            if self.copy is None:
                assert self.keys is not None and self.chains is not None
                self.copy = ColumnarCopy.build(self.keys, self.chains, self.low_water, True)  # unlocked
                self.keys = self.chains = None  # the snapshot's lists: free them now
            return self.copy

    def catch_up(self, copy: ColumnarCopy) -> ColumnarCopy:
        """Replays the logged writes onto the built copy (under the node lock)."""
        log, self.log = self.log, []
        for ts, keys, rows in log:
            copy.apply(ts, keys, rows)
        return copy


class Store(Protocol):
    """What `snapshots` needs of a version store (`kivi.mvcc.VersionStore`)."""

    def columnar(self, ts: int) -> Snapshot | None: ...

    def columnar_begin(self, ts: int) -> Snapshot | PendingBuild | None: ...

    def columnar_pending(self, pending: PendingBuild) -> bool: ...

    def columnar_install(self, pending: PendingBuild, copy: ColumnarCopy) -> None: ...

    def columnar_abandon(self, pending: PendingBuild) -> None: ...


def adopt_packs(lock: AbstractContextManager[Any], todo: list[tuple[ColumnarCopy, Pack]]) -> None:
    """Makes tracked packs with ascending keys compact sorted ones (`ColumnarCopy.adopt`):
    encoded outside `lock` (the node lock), installed under it.

    Why here: a table loaded after its copy was built keeps its rows in packs frozen
    from the tail, which pin the row store's objects and a `latest` entry a row; the
    encoding (~1 us a row) must not run under the node lock, and the reader that found
    them is outside it. At most ADOPT_PACKS a region per read, pacing itself: a read
    pays a bounded share once."""
    for copy, old in todo:
        pace()
        new = old.ascending_compacted()
        with lock:
            if not copy.adopt(old, new):
                return  # the next pack would be refused too (it is not above this one)


def snapshots(lock: AbstractContextManager[Any], stores_of: Callable[[], Sequence[Store]],
              ts: int) -> list[Snapshot | None]:
    """Columnar snapshots at ts of the stores `stores_of()` lists (called under `lock`),
    building missing copies outside `lock`, the node lock that guards the stores.

    The lock is taken once to look (stores without a copy hand out a snapshot of
    their chains), and, when something had to be built, once more to install every
    copy and take every snapshot together. If the stores changed meanwhile (a split,
    a move, a drop), the built copies are installed where still wanted and the whole
    read starts again, so the result is always one consistent look at the node.
    None for a store means the row path must answer (a snapshot below GC).
    """
    while True:
        with lock:
            stores = list(stores_of())
            got = [s.columnar_begin(ts) for s in stores]
            adopt = [(g.source, p) for g in got if isinstance(g, Snapshot) and g.source is not None
                     for p in g.source.adoptable()[:ADOPT_PACKS]]
        todo = [(s, g) for s, g in zip(stores, got, strict=True) if isinstance(g, PendingBuild)]
        if not todo:
            if adopt:
                adopt_packs(lock, adopt)
            return got  # type: ignore[return-value]  # no PendingBuild
        built = []
        for store, pending in todo:
            try:
                built.append((store, pending, pending.finish()))
            except BaseException:
                with lock:
                    store.columnar_abandon(pending)
                raise
        with lock:
            same = [*map(id, stores_of())] == [*map(id, stores)]
            for store, pending, copy in built:
                if store.columnar_pending(pending):
                    store.columnar_install(pending, copy)
                else:
                    same = False
            if same:
                out = [s.columnar(ts) for s in stores]
        if sum(len(copy) for _, _, copy in built) >= TRIM_ROWS:
            release_free_memory()
        if same:
            return out


__all__ = ["PendingBuild", "Store", "adopt_packs", "release_free_memory", "snapshots"]
