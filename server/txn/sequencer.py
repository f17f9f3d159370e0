"""The commit sequencer: hands out commit timestamps in batches to the LTMs.

Why batches: a commit must not pay a round trip to the MasterMind for its
timestamp. Each local transaction manager asks for a range of timestamps at a
time and takes commit timestamps from it locally (`LocalBatch`). A timestamp
handed out but never used must be *discarded* (told to the snapshot server),
or the snapshot would stop at the gap forever once a later timestamp is done;
an LTM does that for the rest of its batch when it closes. (With several
LTMs, an idle LTM's batch holds the others' snapshot back: cluster mode must
also drain batches that sit idle, which `LocalBatch.since` is kept for.)

This is a state machine with no I/O: `handle(message, now) -> outputs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RequestBatch:
    """An LTM asks for `size` fresh commit timestamps."""

    ltm: int
    size: int


@dataclass(frozen=True)
class Batch:
    """The timestamps [first, last] now belong to `ltm`."""

    ltm: int
    first: int
    last: int


@dataclass(frozen=True)
class Recovered:
    """Recovery found timestamps up to `max_ts` in use: never hand them out again."""

    max_ts: int


class CommitSequencer:
    """Hands out disjoint, increasing ranges of commit timestamps."""

    def __init__(self, next_ts: int = 1) -> None:
        self.next_ts = next_ts

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Processes one message and returns the replies."""
        match msg:
            case RequestBatch(ltm, size):
                first = self.next_ts
                self.next_ts += max(1, size)
                return [Batch(ltm, first, self.next_ts - 1)]
            case Recovered(max_ts):
                self.next_ts = max(self.next_ts, max_ts + 1)
                return []
        raise TypeError(f"sequencer: unexpected message {msg!r}")


class LocalBatch:
    """The LTM's side: the unused part of its current batch (not thread-safe; the LTM locks)."""

    __slots__ = ("next", "last", "since")

    def __init__(self) -> None:
        self.next = 1
        self.last = 0  # empty
        self.since = 0.0

    def refill(self, batch: Batch, now: float) -> None:
        """Installs a fresh batch from the sequencer."""
        self.next, self.last, self.since = batch.first, batch.last, now

    def take(self) -> int | None:
        """Returns the next unused timestamp, or None when the batch is exhausted."""
        ts = self.next
        if ts > self.last:
            return None
        self.next = ts + 1
        return ts

    def drain(self) -> list[int]:
        """Gives up the rest of the batch; the caller must discard these timestamps."""
        rest = list(range(self.next, self.last + 1))
        self.next, self.last = 1, 0
        return rest


class BatchSizer:
    """How many timestamps an LTM should ask for: its commits in the last period.

    A batch that is too small costs a sequencer round trip per few commits; one that
    is too large sits unused, and an unused timestamp holds every LTM's snapshot back
    until it is discarded. So an LTM asks for about what it used in the last
    `period` seconds (at least `floor`, at most `ceiling`), and gives back what is left
    of a batch older than a period (`stale`).
    """

    __slots__ = ("period", "floor", "ceiling", "count", "last", "start")

    def __init__(self, period: float = 0.01, floor: int = 1, ceiling: int = 65536) -> None:
        self.period, self.floor, self.ceiling = period, floor, ceiling
        self.count = 0  # commits in the current period
        self.last = floor  # commits in the previous period
        self.start = 0.0

    def _roll(self, now: float) -> None:
        if now - self.start >= self.period:
            # A period with no commits at all in between counts as idle: start small again.
            self.last = self.count if now - self.start < 2 * self.period else 0
            self.count, self.start = 0, now

    def commit(self, now: float) -> None:
        """Counts one commit."""
        self._roll(now)
        self.count += 1

    def size(self, now: float) -> int:
        """The size of the next batch to request."""
        self._roll(now)
        return max(self.floor, min(self.ceiling, max(self.last, self.count)))

    def stale(self, batch: LocalBatch, now: float) -> bool:
        """Tells whether the batch's rest should be discarded (it is older than a period)."""
        return batch.next <= batch.last and now - batch.since >= self.period
