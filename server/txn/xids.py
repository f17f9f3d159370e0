"""PostgreSQL-style transaction ids and snapshots (`txid_current()`, `pg_current_snapshot()`)
over Cumulo's commit timestamps.

Cumulo's MVCC has no transaction ids: a row version carries the timestamp of the commit
that wrote it, and a snapshot is one timestamp S (every commit at or below S is visible).
PostgreSQL's functions need ids that are unique, increase, and can be tested against a
snapshot written `xmin:xmax:xip`. So the ids live in the timestamp space:

- a transaction's id is a fresh commit timestamp taken when it first asks for one
  (`assign`) and given back at once (discarded: nothing is ever written at it, so the
  snapshot does not wait for it). Ids therefore increase, never collide with another
  transaction's id or commit, and survive restarts as the timestamps do;
- it ends at its commit timestamp, or, when it wrote nothing or aborted, at a fresh
  discarded timestamp taken then (`finish`);
- a snapshot S is `xmin:xmax:xip`: xmax is one above the newest timestamp at or below S
  that is not the id of a transaction running at S (PostgreSQL's latest completed id + 1;
  every id above S was assigned after the snapshot), xip the ids below xmax whose
  transaction had not ended at S (still running, or ended above S), and xmin the least of
  those (xmax when none). The asking transaction's own id is left out of xip but counted in
  xmin, as PostgreSQL does.

So `txid_visible_in_snapshot(id, snap)` says whether the transaction's writes are in the
snapshot, as in PostgreSQL.

A row version's xmin (`row_xmins`) names the transaction that wrote it, as PostgreSQL's
does, so it changes on every UPDATE, even one that writes the same values. Inside the
writer it is the writer's id (`txid_current() % 2^32`, assigned then); once committed, the
version's commit timestamp stands for its writer, mapped back to the writer's id when the
writer had one, so the value RETURNING xmin gave holds after the COMMIT. NB: that map is
in memory (as the registry is): after a restart, or 100,000 ids later, such a version's
xmin becomes its commit timestamp's low 32 bits, a change an optimistic-locking client
sees as a concurrent update (the safe side). Versions carry their commit timestamp
already, so nothing more is written per row; a read that names xmin asks the store for
each row's version timestamp. The registry is per LTM, in memory: `txid_status` knows the
ids of this server since it started (others are NULL, as PostgreSQL's are once its commit
log is truncated), and in cluster mode another engine's running transactions are not in xip.

>>> r = XidRegistry()
>>> r.assigned(7); r.assigned(9); r.ended(7, 12, True)
>>> r.snapshot(10, own=0), r.snapshot(12, own=0), r.snapshot(12, own=9), r.snapshot(9, own=9)
('7:11:7,9', '9:13:9', '9:13:', '7:9:7')
>>> r.status(7, 20), r.status(9, 20), r.status(8, 20)
('committed', 'in progress', None)
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ..kivi.api import LatestCommit

_KEEP = 100_000  # ended ids remembered for txid_status (PostgreSQL keeps its commit log)


class XidRegistry:
    """The ids handed out by one LTM and how their transactions ended (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._ended: dict[int, tuple[int, bool]] = {}  # id -> (end ts, committed)
        self._by_commit: dict[int, int] = {}  # commit ts -> id, for the xmin of its writes
        self.first = 0  # the first id handed out: below it, nothing is known

    def assigned(self, xid: int) -> None:
        """Records a new id of a running transaction."""
        with self._lock:
            self._running.add(xid)
            if not self.first:
                self.first = xid

    def ended(self, xid: int, end_ts: int, committed: bool) -> None:
        """Records that the transaction of `xid` ended at `end_ts`."""
        with self._lock:
            self._running.discard(xid)
            self._ended[xid] = (end_ts, committed)
            if committed:
                self._by_commit[end_ts] = xid
            if len(self._ended) > _KEEP:
                for old in sorted(self._ended)[: _KEEP // 10]:
                    self._by_commit.pop(self._ended.pop(old)[0], None)

    def snapshot(self, snap: int, own: int) -> str:
        """The text `xmin:xmax:xip` of the snapshot at timestamp `snap`."""
        with self._lock:
            running = {x for x in self._running if x <= snap}
            running.update(x for x, (end, _) in self._ended.items() if x <= snap < end)
        xmax = snap + 1
        while xmax - 1 in running:  # NB: PostgreSQL's xmax is the latest *completed* id + 1
            xmax -= 1
        xip = sorted(x for x in running if x < xmax)
        xmin = min([*xip, xmax])
        return f"{xmin}:{xmax}:{','.join(str(x) for x in xip if x != own)}"

    def writer(self, cts: int) -> int:
        """The id of the transaction that committed at `cts`; `cts` itself if it had none."""
        return self._by_commit.get(cts, cts)

    def status(self, xid: int, own: int) -> str | None:
        """'in progress', 'committed', 'aborted', or None when the id is not known here."""
        if xid == own:
            return "in progress"
        with self._lock:
            if xid in self._running:
                return "in progress"
            ended = self._ended.get(xid)
        if ended is None:
            return None
        return "committed" if ended[1] else "aborted"


_REGISTRIES: weakref.WeakKeyDictionary[Any, XidRegistry] = weakref.WeakKeyDictionary()
_REG_LOCK = threading.Lock()


def registry(ltm: Any) -> XidRegistry:
    """The id registry of an LTM."""
    with _REG_LOCK:
        reg = _REGISTRIES.get(ltm)
        if reg is None:
            reg = _REGISTRIES[ltm] = XidRegistry()
        return reg


def assign(txn: Any) -> int:
    """The transaction's id, taking one (a discarded commit timestamp) on first use."""
    if not txn.xid:
        xid = txn.ltm.discarded_ts()
        registry(txn.ltm).assigned(xid)
        txn.xid = xid
    return int(txn.xid)


def finish(txn: Any, cts: int | None, committed: bool) -> None:
    """Records the end of a transaction that has an id (cts: its commit timestamp)."""
    end = cts if cts is not None else txn.ltm.discarded_ts()
    registry(txn.ltm).ended(txn.xid, end, committed)


_XID_MASK = (1 << 32) - 1
_FIRST_NORMAL_XID = 3  # 0 is invalid, 1 bootstrap, 2 frozen in PostgreSQL


def as_xid(xid8: int) -> int:
    """A 64-bit id as the 32-bit xid a row's xmin shows: `xid8 % 2^32`, stepping over the
    special ids 0..2 when it wraps (a fresh server's first ids are 1 and 2 themselves).

    >>> as_xid(2), as_xid(5), as_xid((1 << 32) + 7), as_xid(1 << 32)
    (2, 5, 7, 3)
    """
    x = xid8 & _XID_MASK
    return x if x >= _FIRST_NORMAL_XID or x == xid8 else x + _FIRST_NORMAL_XID


def own_xmin(txn: Any) -> int:
    """The xmin of the versions the transaction writes: its id, assigned now if need be."""
    return as_xid(assign(txn))


def row_xmins(txn: Any, space: int, keys: list[bytes]) -> list[int]:
    """The xmin of the row versions of `keys` the transaction sees (see above)."""
    ws = txn.ws if txn.has_writes else None
    out: list[int] = []
    todo = [i for i, k in enumerate(keys) if ws is None or not ws.contains(space, k)]
    if len(todo) < len(keys):
        out = [own_xmin(txn)] * len(keys)
    else:
        out = [0] * len(keys)
    if todo:
        snap = txn.start_ts if txn.start_ts is not None else txn.ltm.last_ts()
        stamps = txn.ltm.kivi.latest_commit(
            LatestCommit(space, [keys[i] for i in todo], snap)).ts
        reg = registry(txn.ltm)
        for i, cts in zip(todo, stamps, strict=True):
            out[i] = as_xid(reg.writer(cts if cts is not None else snap))
    return out


def current_snapshot(txn: Any) -> str:
    """The statement's snapshot as PostgreSQL's `xmin:xmax:xip`."""
    return registry(txn.ltm).snapshot(txn.read_ts(), txn.xid)


def status(txn: Any, xid: int) -> str | None:
    """txid_status: 22023 for an id not handed out yet is the caller's (`is_future`)."""
    return registry(txn.ltm).status(xid, txn.xid)


def is_future(txn: Any, xid: int) -> bool:
    """Whether no transaction can have had this id yet (above every timestamp handed out)."""
    return xid > txn.ltm.last_ts()
