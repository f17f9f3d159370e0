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
snapshot, as in PostgreSQL. The registry is per LTM, in memory: `txid_status` knows the
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

_KEEP = 100_000  # ended ids remembered for txid_status (PostgreSQL keeps its commit log)


class XidRegistry:
    """The ids handed out by one LTM and how their transactions ended (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._ended: dict[int, tuple[int, bool]] = {}  # id -> (end ts, committed)
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
            if len(self._ended) > _KEEP:
                for old in sorted(self._ended)[: _KEEP // 10]:
                    del self._ended[old]

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


def current_snapshot(txn: Any) -> str:
    """The statement's snapshot as PostgreSQL's `xmin:xmax:xip`."""
    return registry(txn.ltm).snapshot(txn.read_ts(), txn.xid)


def status(txn: Any, xid: int) -> str | None:
    """txid_status: 22023 for an id not handed out yet is the caller's (`is_future`)."""
    return registry(txn.ltm).status(xid, txn.xid)


def is_future(txn: Any, xid: int) -> bool:
    """Whether no transaction can have had this id yet (above every timestamp handed out)."""
    return xid > txn.ltm.last_ts()
