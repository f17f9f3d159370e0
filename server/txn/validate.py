"""SERIALIZABLE as write-snapshot isolation (WSI): the conflict managers' validation rules.

Design: `shared/SERIALIZABLE.md` (Yabandeh and Gomez Ferro, EuroSys '12). An
update transaction T commits only if nothing T read (key or key range) was
written by a transaction whose commit timestamp lies between T's snapshot st
and T's commit ct. Update transactions are then serialized in commit order and
read-only ones at their snapshot, which is always a gap-free prefix of that
order: READ ONLY transactions, autocommit SELECTs and transactions that wrote
nothing are never validated and never fail.

After taking ct, the LTM sends one `Validate` to each involved conflict manager
(the owners of the read and written keys' buckets, and the hosts of the
scanned and written spaces' range trackers). A manager answers in one atomic
step, both directions:

- *reader rule*: a read key committed after st (`last_commit > st`), or held
  by a writer already prepared (validated) with st < ct' < ct, conflicts. A
  scanned range conflicts the same way with the tracker's recent writes.
- *writer rule*: a written key conflicts if a reader with a larger ct has
  already validated a read of it: per hash slot, `read_ts` (the largest ct of a
  validated point reader), and per space the tracker's read intervals. Commit
  timestamps come from per-LTM batches, so they are not in real-time order: a
  reader at ct 200 may validate before a writer at ct 150 that it did not see.
  Whichever of the two validates second catches the pair (CockroachDB's
  timestamp cache, kept per slot).

On success the manager records the reads (`read_ts`, intervals) and marks the
written keys prepared at ct. The `Release` that drops a key's hold (recording
its last commit) drops its prepared mark in the same step, so no reader can
fall between the two. `Settle` does the same for the range trackers: it drops
the transaction's prepared keys there and, on commit, records them as
committed (every update commit does this, whatever its isolation, so that a
serializable scan sees phantoms written by anybody). Every step is one message
to one manager, so the rules hold however messages to different managers
interleave.

`Probe` is eager detection: a read whose key or range was committed after st
dooms the transaction at once (`last_commit` only grows), so it fails where
PostgreSQL fails it (at its next write, or at a read once it has written).

Deviations from the design note, deliberate and simple to lift:

- range trackers are per *space* (table or index), not per KiVi region: the
  LTM does not see region boundaries; a space is hosted by the manager that
  owns `hash(space)`;
- a reader that meets a prepared writer in (st, ct) conflicts at once instead
  of waiting for the writer's outcome (a false positive if that writer then
  fails; in embedded mode the window is one log write);
- catalog reads are tracked like any other (they occur only in DDL
  transactions, which write the catalog anyway);
- eager detection is a `Probe` message, not a KiVi reply flag: the LTM sends
  the reads made since the last probe once the transaction has written (so a
  transaction that never writes never probes), then at every later read
  batch and write;
- in embedded mode an update commit skips recording its keys in the range
  trackers when no SERIALIZABLE update transaction has a snapshot (nobody could
  conflict with them); with remote managers it always records them.

The managers are state machines with no I/O and no threads, as `conflicts`.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sortedcontainers import SortedDict

from ..errors import SerializationFailure, SQLError
from .readset import Key, Range

if TYPE_CHECKING:
    from .conflicts import ConflictManager

RW_MESSAGE = "could not serialize access due to read/write dependencies among transactions"
RW_HINT = "The transaction might succeed if retried."
AT_COMMIT = "Reason code: Canceled on identification as a pivot, during commit attempt."
AT_WRITE = "Reason code: Canceled on identification as a pivot, during write."
AT_READ = "Reason code: Canceled on conflict out to pivot {}, during read."  # the writer's ct
AT_CONFLICT_IN = ("Reason code: Canceled on identification as a pivot, during conflict in "
                  "checking.")

SLOTS = 4096  # read_ts slots per manager: one integer each; collisions add false positives
RECENT_MAX = 65536  # committed keys per space tracker before folding into coarse_commit_ts
READS_MAX = 4096  # read intervals per space tracker before folding into its read_ts


def rw_failure(detail: str = AT_COMMIT) -> SQLError:
    """PostgreSQL's 40001 for a read/write dependency cycle (strings from predicate.c)."""
    return SerializationFailure(RW_MESSAGE, detail=detail, hint=RW_HINT)


def slot_of(key: Key) -> int:
    """The read_ts slot of a key (crc32: stable across processes)."""
    return zlib.crc32(key[1], key[0] & 0xFFFFFFFF) % SLOTS


@dataclass(frozen=True)
class Validate:
    """Validates txn (snapshot st, commit ct): the parts of its reads and writes this manager owns."""

    txn: int
    st: int
    ct: int
    points: tuple[Key, ...] = ()
    ranges: tuple[Range, ...] = ()
    writes: tuple[Key, ...] = ()
    space_writes: tuple[tuple[int, tuple[bytes, ...]], ...] = ()


@dataclass(frozen=True)
class Probe:
    """Asks whether reads of a transaction with snapshot st were overwritten by a later commit."""

    txn: int
    st: int
    points: tuple[Key, ...] = ()
    ranges: tuple[Range, ...] = ()


@dataclass(frozen=True)
class Settle:
    """txn ended (committed at commit_ts, or aborted if None): drop its prepared marks."""

    txn: int
    commit_ts: int | None
    space_writes: tuple[tuple[int, tuple[bytes, ...]], ...] = ()


@dataclass(frozen=True)
class Verdict:
    """The answer to Validate or Probe: ok, or the first conflict found."""

    txn: int
    ok: bool
    why: str = ""
    ts: int = 0  # a probe's conflicting commit ts (PostgreSQL names the pivot's xid there)


class RangeTracker:
    """Recent committed writes and validated read intervals of one space (phantom protection)."""

    __slots__ = ("recent", "coarse_commit_ts", "prepared", "reads", "read_ts", "max_read")

    def __init__(self, high_mark: int = 0) -> None:
        self.recent: SortedDict = SortedDict()  # key -> newest commit ts
        self.coarse_commit_ts = high_mark  # every key counts as committed at this ts
        self.prepared: dict[int, tuple[int, tuple[bytes, ...]]] = {}  # txn -> (ct, keys)
        self.reads: list[tuple[bytes | None, bytes | None, int]] = []  # (lo, hi, reader ct)
        self.read_ts = high_mark  # every key counts as read at this ts
        self.max_read = high_mark

    def range_conflict(self, txn: int, lo: bytes | None, hi: bytes | None, st: int,
                       ct: int | None) -> tuple[str, int]:
        """Why [lo, hi) read at st (committing at ct, None: a probe) conflicts, and the
        conflicting commit ts; ('', 0) if it does not."""
        if self.coarse_commit_ts > st:
            return "a write committed after the snapshot (coarse)", self.coarse_commit_ts
        rec = self.recent
        if rec:
            for k in rec.irange(lo, hi, inclusive=(True, False)):
                if rec[k] > st:
                    return f"key {k!r} committed at {rec[k]} after snapshot {st}", rec[k]
        if ct is not None:
            for other, (pct, keys) in self.prepared.items():
                if other != txn and st < pct < ct:
                    for k in keys:
                        if (lo is None or lo <= k) and (hi is None or k < hi):
                            return f"key {k!r} prepared at {pct}", pct
        return "", 0

    def write_conflict(self, key: bytes, ct: int) -> str:
        """Why writing key at ct conflicts with a validated later reader, or ''."""
        if self.max_read <= ct:
            return ""
        if self.read_ts > ct:
            return "the space was read at a later ts (coarse)"
        for lo, hi, rct in self.reads:
            if rct > ct and (lo is None or lo <= key) and (hi is None or key < hi):
                return f"key {key!r} read at {rct} by a later reader"
        return ""

    def add_read(self, lo: bytes | None, hi: bytes | None, ct: int) -> None:
        """Records a validated range read at ct."""
        self.reads.append((lo, hi, ct))
        if ct > self.max_read:
            self.max_read = ct
        if len(self.reads) > READS_MAX:
            self.read_ts = max(self.read_ts, max(r[2] for r in self.reads))
            self.reads = []

    def add_commit(self, keys: tuple[bytes, ...], ct: int) -> None:
        """Records keys committed at ct."""
        rec = self.recent
        if len(rec) + len(keys) > RECENT_MAX:  # a bulk load: fold instead of sorting it all
            self.coarse_commit_ts = max(self.coarse_commit_ts, ct, *rec.values())
            rec.clear()
            return
        for k in keys:
            old = rec.get(k)
            if old is None or old < ct:
                rec[k] = ct

    def prune(self, low_water: int) -> None:
        """Forgets commits and reads at or below low_water (no snapshot or future ct is older)."""
        if self.recent:
            keep = [(k, t) for k, t in self.recent.items() if t > low_water]
            if len(keep) < len(self.recent):
                self.recent = SortedDict(keep)
        if self.reads:
            self.reads = [r for r in self.reads if r[2] > low_water]

    def empty(self) -> bool:
        """Tells whether the tracker holds nothing but its watermarks."""
        return not self.recent and not self.prepared and not self.reads


class SerialState:
    """The SERIALIZABLE half of one conflict manager: read_ts slots, prepared writers, trackers."""

    def __init__(self, high_mark: int = 0) -> None:
        self.read_ts: dict[int, int] = {}
        self.floor = high_mark  # every slot's read_ts is at least this (after a restart)
        self.prepared: dict[Key, tuple[int, int]] = {}  # key -> (txn, ct): validated, held
        self.trackers: dict[int, RangeTracker] = {}
        self.high_mark = high_mark

    def tracker(self, space: int) -> RangeTracker:
        """The range tracker of a space hosted here (created at the high mark)."""
        t = self.trackers.get(space)
        if t is None:
            t = self.trackers[space] = RangeTracker(self.high_mark)
        return t

    def restart(self, high_mark: int) -> None:
        """After a restart nothing is known: everything counts as read and written at high_mark.

        In-flight serializable transactions then fail safely (Omid's TSO does the same).
        """
        self.read_ts.clear()
        self.floor = high_mark
        self.prepared.clear()
        self.trackers.clear()
        self.high_mark = high_mark

    # -- the rules ---------------------------------------------------------------

    def _read_conflict(self, cm: ConflictManager, txn: int, st: int, ct: int | None,
                       points: tuple[Key, ...], ranges: tuple[Range, ...]) -> tuple[str, int]:
        if self.high_mark > st:
            return "restarted after the snapshot", self.high_mark
        prepared = self.prepared
        committed_at = cm.committed_at  # NB: a key of a space created later: its creation
        for key in points:
            lc = committed_at(key[0], key[1])
            if lc is not None and lc > st:
                return f"key {key!r} committed at {lc} after snapshot {st}", lc
            if ct is not None and prepared:
                p = prepared.get(key)
                if p is not None and p[0] != txn and st < p[1] < ct:
                    return f"key {key!r} prepared at {p[1]}", p[1]
        for space, lo, hi in ranges:
            why, ts = self.tracker(space).range_conflict(txn, lo, hi, st, ct)
            if why:
                return why, ts
        return "", 0

    def validate(self, cm: ConflictManager, m: Validate) -> Verdict:
        """Both WSI rules for the parts of one transaction this manager owns; records them if ok."""
        why, _ = self._read_conflict(cm, m.txn, m.st, m.ct, m.points, m.ranges)
        if not why:
            read_ts, floor, ct = self.read_ts, self.floor, m.ct
            for key in m.writes:
                if max(read_ts.get(slot_of(key), floor), floor) > ct:
                    why = f"key {key!r} was read by a later committer"
                    break
        if not why:
            for space, keys in m.space_writes:
                t = self.tracker(space)
                for k in keys:
                    why = t.write_conflict(k, m.ct)
                    if why:
                        break
                if why:
                    break
        if why:
            return Verdict(m.txn, False, why)
        ct = m.ct
        read_ts = self.read_ts
        for key in m.points:
            s = slot_of(key)
            if read_ts.get(s, 0) < ct:
                read_ts[s] = ct
        for space, lo, hi in m.ranges:
            self.tracker(space).add_read(lo, hi, ct)
        for key in m.writes:
            self.prepared[key] = (m.txn, ct)
        for space, keys in m.space_writes:
            self.tracker(space).prepared[m.txn] = (ct, keys)
        return Verdict(m.txn, True)

    def probe(self, cm: ConflictManager, m: Probe) -> Verdict:
        """Eager detection: was anything read overwritten by a commit after st?"""
        why, ts = self._read_conflict(cm, m.txn, m.st, None, m.points, m.ranges)
        return Verdict(m.txn, not why, why, ts)

    def release(self, txn: int, space: int, keys: Collection[bytes]) -> None:
        """Drops txn's prepared marks of keys of space (with their holds: see
        `ConflictManager`)."""
        prepared = self.prepared
        for k in keys:
            key = (space, k)
            p = prepared.get(key)
            if p is not None and p[0] == txn:
                del prepared[key]

    def settle(self, m: Settle) -> None:
        """Drops txn's prepared keys in the hosted trackers; on commit records them there."""
        for space, keys in m.space_writes:
            t = self.trackers.get(space)
            if t is not None:
                t.prepared.pop(m.txn, None)
            if m.commit_ts is not None:
                if t is None:
                    t = self.tracker(space)
                t.add_commit(keys, m.commit_ts)

    def prune(self, low_water: int) -> None:
        """Forgets what no snapshot or future commit can conflict with any more."""
        for space in list(self.trackers):
            t = self.trackers[space]
            t.prune(low_water)
            if t.empty() and t.coarse_commit_ts <= low_water and t.read_ts <= low_water:
                del self.trackers[space]

    def handle(self, cm: ConflictManager, msg: Any) -> list[Any]:
        """Dispatches a SERIALIZABLE message (called by `ConflictManager.handle`)."""
        match msg:
            case Validate():
                return [self.validate(cm, msg)]
            case Probe():
                return [self.probe(cm, msg)]
            case Settle():
                self.settle(msg)
                return []
        raise TypeError(f"conflict manager: unexpected message {msg!r}")
