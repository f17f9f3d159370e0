"""The logger's decisions as a state machine: group commit, segment rolls, trimming.

`logger.RedoLog` does the I/O (write, fsync, open, close, unlink) and the
blocking; this module decides *when*, with no I/O and no threads, so tests can
drive any interleaving of appends, fsyncs and ticks deterministically.

Group commit by leader/follower. Every committer appends its record
(`Append` -> `Write(lsn)`) and then asks to be durable (`WaitDurable(lsn)`).
If no fsync is in flight, the asker becomes the leader (`StartFsync(upto)`:
everything written so far); otherwise it waits, and the commits that arrive
during an fsync share the next one:

    committer A: Append a1 | WaitDurable -> StartFsync(1) ..... FsyncDone(1) -> Durable(1)
    committer B:    Append b1 | WaitDurable -> (wait) ............................. StartFsync(3)
    committer C:       Append c1 | WaitDurable -> (wait) .......................... (covered)

A segment rolls when it is full. If an fsync of the old segment is in
flight, the old segment is closed (fsync + close) only once that fsync is
done, so the leader never syncs a closed file; the close makes every record of
the old segment durable. With `sync_commit` off, nobody waits: `Tick(now)`
starts an fsync every `flush_interval` seconds while there is unsynced data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Append:
    """A record of `nbytes` bytes with commit ts `ts` is to be written."""

    ts: int
    nbytes: int


@dataclass(frozen=True)
class WaitDurable:
    lsn: int


@dataclass(frozen=True)
class FsyncDone:
    upto: int


@dataclass(frozen=True)
class Tick:
    now: float


@dataclass(frozen=True)
class Trim:
    """Segments whose records are all <= upto_ts are no longer needed."""

    upto_ts: int


# -- outputs -------------------------------------------------------------------


@dataclass(frozen=True)
class OpenSegment:
    seq: int


@dataclass(frozen=True)
class CloseSegment:
    """fsync and close segment seq (its records become durable)."""

    seq: int


@dataclass(frozen=True)
class Write:
    """Write the record now, into the current segment; it gets this LSN."""

    lsn: int


@dataclass(frozen=True)
class StartFsync:
    """The caller leads: fsync segment seq, then send FsyncDone(upto)."""

    seq: int
    upto: int


@dataclass(frozen=True)
class Durable:
    """Every record with LSN <= upto is on disk."""

    upto: int


@dataclass(frozen=True)
class DeleteSegment:
    seq: int


class GroupCommit:
    """One logger's state: LSNs written and synced, the flush in flight, the segments."""

    def __init__(
        self,
        first_seq: int = 1,
        old_segments: dict[int, int | None] | None = None,
        segment_bytes: int = 64 << 20,
        flush_interval: float = 0.2,
    ) -> None:
        self.written = 0
        self.synced = 0
        self.flushing: StartFsync | None = None
        self.seq = first_seq  # the current segment (the driver opens it first)
        self.size = 0
        self.max_ts = 0
        # Closed segments: seq -> max ts in it (None: unknown, from before a restart).
        self.closed: dict[int, int | None] = dict(old_segments or {})
        self.retiring: list[tuple[int, int]] = []  # (seq, last lsn) to close after the fsync
        self.segment_bytes = segment_bytes
        self.flush_interval = flush_interval
        self.last_flush = 0.0

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Processes one message and returns what the driver must do, in order."""
        match msg:
            case Append(ts, nbytes):
                out = self.append(ts, nbytes)
                out.append(Write(self.written))
                return out
            case WaitDurable(lsn):
                return self.wait_durable(lsn, now)
            case FsyncDone(upto):
                return self.fsync_done(upto)
            case Tick(t):
                if (self.flushing is None and self.synced < self.written
                        and t - self.last_flush >= self.flush_interval):
                    return [self._start(t)]
                return []
            case Trim(upto_ts):
                out = self._roll() if self.size else []
                gone = [s for s, m in self.closed.items() if m is not None and m <= upto_ts]
                for s in gone:
                    del self.closed[s]
                out.extend(DeleteSegment(s) for s in gone)
                return out
        raise TypeError(f"group commit: unexpected message {msg!r}")

    # NB: `handle`'s three messages of every durable commit, as methods: the logger calls
    # them directly, without building a message and matching it (a few Python calls each)

    def append(self, ts: int, nbytes: int) -> list[Any]:
        """`Append`, less its final `Write`: the record gets LSN `written` after the call,
        once the returned orders (a segment roll) are carried out."""
        out: list[Any] = self._roll() if self.size >= self.segment_bytes else []
        self.written += 1
        self.size += nbytes
        if ts > self.max_ts:
            self.max_ts = ts
        return out

    def wait_durable(self, lsn: int, now: float = 0.0) -> list[Any]:
        """`WaitDurable(lsn)`."""
        if lsn <= self.synced:
            return [Durable(self.synced)]
        if self.flushing is None:
            return [self._start(now)]
        return []

    def fsync_done(self, upto: int) -> list[Any]:
        """`FsyncDone(upto)`."""
        self.flushing = None
        if upto > self.synced:
            self.synced = upto
        if not self.retiring:  # NB: the usual case (no segment rolled meanwhile)
            return [Durable(self.synced)]
        out: list[Any] = []
        for seq, last in self.retiring:
            out.append(CloseSegment(seq))
            self.synced = max(self.synced, last)
        self.retiring = []
        out.append(Durable(self.synced))
        return out

    def widen(self) -> StartFsync | None:
        """The fsync in flight, made to cover every record written so far if it has not
        started yet (the driver calls this just before it starts the fsync) and the
        segment did not roll since it was ordered: an fsync makes durable whatever its
        file holds when it starts."""
        f = self.flushing
        if f is not None and f.seq == self.seq and f.upto < self.written:
            self.flushing = f = StartFsync(f.seq, self.written)
        return f

    def _start(self, now: float) -> StartFsync:
        self.flushing = StartFsync(self.seq, self.written)
        self.last_flush = now
        return self.flushing

    def _roll(self) -> list[Any]:
        old = self.seq
        self.closed[old] = self.max_ts
        self.seq += 1
        self.size = 0
        self.max_ts = 0
        if self.flushing is not None and self.flushing.seq == old:
            self.retiring.append((old, self.written))  # NB: the leader is syncing its fd
            return [OpenSegment(self.seq)]
        self.synced = max(self.synced, self.written)
        return [CloseSegment(old), OpenSegment(self.seq)]

    def learn_max_ts(self, seq: int, max_ts: int) -> None:
        """Records the max ts of an old segment the driver has read (for trimming)."""
        if seq in self.closed:
            self.closed[seq] = max_ts
