"""The snapshot server: the newest timestamp at which a new transaction may read.

Commits finish out of timestamp order: a commit that took ts 7 can become
readable (applied to every KiVi node) before the one that took ts 6. A
snapshot at 7 would then miss 6's writes and see them appear later, which is
not a snapshot at all. So the snapshot is the largest T such that *every*
timestamp <= T is readable or discarded: the gap-free prefix.

    timestamps   1   2   3   4   5   6   7   8
    state        R   R   D   R   .   R   R   .      R readable, D discarded,
                             ^                      . handed out, not yet done
                         snapshot = 4

    5 becomes readable:
    state        R   R   D   R   R   R   R   .
                                         ^
                                     snapshot = 7   (jumps over 6 and 7 at once)

Discarded timestamps are the ones an LTM took but will never use (an aborted
commit, the rest of a batch it gives back); they count as done, since nothing
will ever be written at them.

This is a state machine with no I/O: `handle(message, now) -> outputs`; the
only output is `Advanced(snapshot)`, sent when the snapshot moves.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Readable:
    """These commit timestamps are applied everywhere and may be read."""

    ts: tuple[int, ...]


@dataclass(frozen=True)
class Discarded:
    """These timestamps were handed out but will never carry writes."""

    ts: tuple[int, ...]


@dataclass(frozen=True)
class Advanced:
    """The snapshot moved to `snapshot`."""

    snapshot: int


class SnapshotServer:
    """Tracks the gap-free prefix of finished timestamps."""

    def __init__(self, snapshot: int = 0) -> None:
        self.snapshot = snapshot
        self._done: list[int] = []  # min-heap of finished timestamps above the snapshot

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Processes one message and returns `[Advanced(T)]` if the snapshot moved."""
        match msg:
            case Readable(ts) | Discarded(ts):
                return [Advanced(self.snapshot)] if self.finish(ts) else []
        raise TypeError(f"snapshot server: unexpected message {msg!r}")

    def finish(self, stamps: tuple[int, ...]) -> bool:
        """`Readable` or `Discarded` (the same here) with no message and no answer: the LTM
        calls an in-process server directly, once per commit. Tells whether the snapshot
        moved.

        >>> s = SnapshotServer(4)
        >>> s.finish((6,)), s.snapshot, s.finish((5,)), s.snapshot
        (False, 4, True, 6)
        """
        snap = self.snapshot
        done = self._done
        if not done and stamps and stamps[0] == snap + 1:
            n = len(stamps)
            # The common cases, with no heap work: in-order commits, one at a time or a
            # batch of consecutive timestamps (an LTM reporting a whole batch at once).
            if n == 1 or stamps == tuple(range(snap + 1, snap + 1 + n)):
                self.snapshot = snap + n
                return True
        for t in stamps:
            if t > snap:
                heapq.heappush(done, t)
        while done and done[0] <= snap + 1:
            snap = max(snap, heapq.heappop(done))
        if snap == self.snapshot:
            return False
        self.snapshot = snap
        return True

    def finished(self, ts: int) -> bool:
        """Tells whether ts is readable or discarded (cluster mode: the MasterMind resolves
        what a dead query engine left unfinished, `cluster.reaper`).

        >>> s = SnapshotServer(4); _ = s.handle(Readable((6,)))
        >>> [s.finished(t) for t in (4, 5, 6)]
        [True, False, True]
        """
        return ts <= self.snapshot or ts in self._done

    def refresh(self) -> int:
        """Returns the snapshot as of now: in-process it is always current."""
        return self.snapshot

    @property
    def pending(self) -> int:
        """How many finished timestamps wait above a gap."""
        return len(self._done)
