"""The LTM's half of SERIALIZABLE (write-snapshot isolation): probes, validation, settling.

`LocalTxnManager` mixes this in. The conflict managers' rules are in `validate`
(read that module first); here is what the LTM sends them and when:

- `probe`: eager detection. Once a SERIALIZABLE transaction has written, the
  reads recorded since the last probe are checked against commits after its
  snapshot; an overwritten read dooms it, and a doomed transaction that has
  written fails at once (40001, PostgreSQL's reason codes "during write" /
  "during read"), as PostgreSQL fails it in total-cash and Hermitage g2_fekete.
- `_validate`: after the commit ts is taken, one `Validate` per involved
  manager (owners of read and written keys, hosts of scanned and written
  spaces); in embedded mode with one manager that is a single in-process call.
- `_settle`: after the commit (any isolation level) or the abort of a validated
  transaction, one `Settle` per range-tracker host.
- `_hidden_insert`: a write-write conflict on a key the transaction's snapshot
  lacks, committed by a SERIALIZABLE rival that had read that key, is PostgreSQL's
  read/write-dependency 40001 ("during write"): its unique check reports the SIREAD
  lock the rival holds (nbtinsert.c). A rival that had not read the key (its own
  primary-key check is no read: `Transaction.get_unread`) leaves the plain conflict,
  which the inserter reports as 23505, as PostgreSQL does. `_note_read_writes`
  remembers, at a successful validation, the keys a transaction both read and wrote.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..kivi.api import Get
from .conflicts import bucket_of
from .transaction import Transaction
from .validate import AT_READ, AT_WRITE, Probe, Settle, Validate, Verdict, rw_failure

if TYPE_CHECKING:
    from ..kivi.api import KiviNodeAPI

_NOTED_WRITES = 256  # a committer's write set larger than this is not noted
_NOTED_KEYS = 4096  # read-and-written keys remembered, newest first


class SerializableMixin:
    """Probes, validation and settling of SERIALIZABLE transactions (see the module doc)."""

    kivi: KiviNodeAPI
    cms: list[Any]
    buckets: int
    stats: dict[str, Any]
    _owner: list[int]
    _cm_lock: threading.Lock
    _active_lock: threading.Lock
    _ser_active: set[int]
    _alone: bool
    _read_writes: dict[tuple[int, bytes], int]

    def _by_manager(self, keys: Any) -> dict[int, tuple]:
        raise NotImplementedError

    def _hidden_insert(self, txn: Transaction, key: tuple[int, bytes], commit_ts: int) -> bool:
        """Whether key, absent from txn's snapshot, was committed at commit_ts by a
        transaction that had read it (whether txn read it does not matter in PG 15)."""
        if txn._ts is None or txn.reads is None or self._read_writes.get(key) != commit_ts:
            return False
        return self.kivi.get(Get(key[0], txn._ts, [key[1]])).rows[0] is None

    def _note_read_writes(self, txn: Transaction, cts: int) -> None:
        """Remembers (holding _cm_lock) the keys txn, validated at cts, read and wrote.

        Only this LTM's transactions and only small write sets: a rival on another
        engine, one that wrote more than `_NOTED_WRITES` keys or scanned many ranges
        counts as not having read a key its point reads miss (23505 instead of 40001:
        either fails the statement, so no anomaly)."""
        reads = txn.reads
        if reads is None or not len(reads):
            return
        keys = txn.ws.keys()
        if len(keys) > _NOTED_WRITES:
            return
        noted = self._read_writes
        points = reads.points
        # NB: a key inside a scanned range counts too, unless that costs more than a commit
        spans = len(keys) * len(reads.ranges) <= _NOTED_WRITES * 16
        for key in keys:
            if key in points or (spans and reads.covers(*key)):
                noted.pop(key, None)  # NB: to the end: the oldest go first
                noted[key] = cts
        while len(noted) > _NOTED_KEYS:
            del noted[next(iter(noted))]

    def _host(self, space: int) -> int:
        """The index of the conflict manager hosting space's range tracker."""
        if len(self.cms) == 1:
            return 0
        return self._owner[bucket_of((space, b""), self.buckets)]

    def _space_writes(self, txn: Transaction) -> dict[int, list]:
        out: dict[int, list] = {}
        for space, keys in txn.ws.space_keys().items():
            out.setdefault(self._host(space), []).append((space, tuple(keys)))
        return out

    def probe(self, txn: Transaction, at_write: bool) -> None:
        """Eager detection: dooms txn if a fresh read was overwritten after its snapshot.

        A doomed transaction that has written fails now (40001); one that has not
        fails at its first write, or commits as read-only if it never writes.
        """
        reads = txn.reads
        if reads is None or txn._ts is None:
            return
        if not txn.doomed:
            points, ranges = reads.take_fresh()
            if points or ranges:
                out = self._ask_probe(txn, points, ranges)
                if not out.ok:
                    txn.doomed = out.why
                    txn.pivot = out.ts
                    self.stats["ser_doomed"] += 1
        if txn.doomed and txn.ws:
            raise rw_failure(AT_WRITE if at_write else AT_READ.format(txn.pivot))

    def _ask_probe(self, txn: Transaction, points: list, ranges: list) -> Verdict:
        st = txn._ts or 0
        if len(self.cms) == 1:  # embedded default: one message, no grouping
            with self._cm_lock:
                (out,) = self.cms[0].handle(Probe(txn.tid, st, tuple(points), tuple(ranges)))
            return out
        groups: dict[int, tuple[list, list]] = {}
        for i, ks in self._by_manager(points).items():
            groups.setdefault(i, ([], []))[0].extend(ks)
        for r in ranges:
            groups.setdefault(self._host(r[0]), ([], []))[1].append(r)
        with self._cm_lock:
            for i, (ps, rs) in groups.items():
                (out,) = self.cms[i].handle(Probe(txn.tid, st, tuple(ps), tuple(rs)))
                if not out.ok:
                    return out
        return Verdict(txn.tid, True)

    def _validate(self, txn: Transaction, cts: int) -> str:
        """Sends one Validate per involved conflict manager; returns why it failed, or ''."""
        reads = txn.reads
        assert reads is not None
        self.stats["ser_coarsenings"] += reads.coarsenings
        st = txn._ts or 0
        if len(self.cms) == 1:  # embedded default: one message, no grouping
            msg = Validate(txn.tid, st, cts, tuple(reads.points), tuple(reads.ranges),
                           txn.ws.keys(), tuple((s, tuple(keys))
                                                for s, keys in txn.ws.space_keys().items()))
            with self._cm_lock:
                self.stats["ser_validations"] += 1
                txn.validated = True
                (out,) = self.cms[0].handle(msg)
                if out.ok:
                    self._note_read_writes(txn, cts)
            return out.why
        parts: dict[int, dict[str, list]] = {}

        def part(i: int) -> dict[str, list]:
            p = parts.get(i)
            if p is None:
                p = parts[i] = {"points": [], "ranges": [], "writes": [], "space_writes": []}
            return p

        for i, ks in self._by_manager(list(reads.points)).items():
            part(i)["points"].extend(ks)
        for r in reads.ranges:
            part(self._host(r[0]))["ranges"].append(r)
        for i, ks in self._by_manager(txn.ws.keys()).items():
            part(i)["writes"].extend(ks)
        for i, sw in self._space_writes(txn).items():
            part(i)["space_writes"].extend(sw)
        with self._cm_lock:
            self.stats["ser_validations"] += 1
            txn.validated = True
            for i, p in parts.items():
                (out,) = self.cms[i].handle(Validate(
                    txn.tid, st, cts, tuple(p["points"]), tuple(p["ranges"]),
                    tuple(p["writes"]), tuple(p["space_writes"])))
                if not out.ok:
                    return out.why
            self._note_read_writes(txn, cts)
        return ""

    def _settle(self, txn: Transaction, cts: int | None) -> None:
        """Drops txn's prepared keys in the range trackers; after a commit, records them there."""
        if cts is None and not txn.validated:
            return
        if not txn.validated and self._alone:
            # NB: a commit at cts matters only to serializable txns whose snapshot is older,
            # and those registered it (under _active_lock) before cts became readable.
            with self._active_lock:
                if not self._ser_active:
                    return
        sw = self._space_writes(txn)
        with self._cm_lock:
            for i, ws in sw.items():
                self.cms[i].handle(Settle(txn.tid, cts, tuple(ws)))
