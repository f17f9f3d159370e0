"""Exported snapshots: pg_export_snapshot() and SET TRANSACTION SNAPSHOT, as in PostgreSQL.

A snapshot here is one timestamp, so exporting it is naming it: the
identifier carries a serial number and the timestamp. Another transaction of
the same query engine can then read at exactly that snapshot, which is how
parallel readers (the Spark `cumulo` source's partitions, or Spark JDBC's
partitions through `sessionInitStatement`) see one consistent state while
writers commit.

As in PostgreSQL, an identifier is valid only while the exporting
transaction is open: its snapshot is registered with the LTM's active set
for the garbage collector's low-water mark, so the versions it needs cannot
be collected under the importers. An importer registers the same snapshot
for itself, so it stays safe after the exporter ends.

    >>> parse_ident("00000001-00000000000003E8-1")
    1000
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from typing import Any

from ..errors import FeatureNotSupported, InvalidParameterValue

_IDENT = re.compile(r"^[0-9A-F]{8}-([0-9A-F]{16})-1$")
_serial = itertools.count(1)
_lock = threading.Lock()
_exported: dict[str, Any] = {}  # ident -> the exporting Transaction


def parse_ident(ident: str) -> int:
    """Returns the timestamp an identifier names; 22023 if it is not one of ours."""
    m = _IDENT.match(ident)
    if m is None:
        raise InvalidParameterValue(f'invalid snapshot identifier: "{ident}"')
    return int(m.group(1), 16)


def export_snapshot(txn: Any) -> str:
    """Takes txn's snapshot if it has none yet and returns an identifier naming it."""
    ts = txn._snap()  # NB: the transaction's own lazy snapshot (registered with the LTM)
    ident = f"{next(_serial):08X}-{ts:016X}-1"
    with _lock:
        for k in [k for k, t in _exported.items() if t.done]:
            del _exported[k]
        _exported[ident] = txn
    return ident


class Lease:
    """An exported snapshot that outlives its transaction for `seconds` (a parallel reader's).

    Spark plans a read in one process and runs its partitions in others, later:
    the planning transaction cannot stay open for them. A lease keeps the
    snapshot registered with the LTM (for the GC) until it expires; each
    importer registers it for itself as well, so only the gap between
    planning and the last partition's start must fit in the lease.
    """

    isolation = "repeatable read"
    read_only = True

    def __init__(self, ltm: Any, ts: int, seconds: float) -> None:
        self.ltm = ltm
        self.tid = -next(_serial)  # NB: negative, so no transaction id can collide
        self.deadline = time.monotonic() + seconds
        with ltm._active_lock:
            ltm._active[self.tid] = ts
        timer = threading.Timer(seconds, self.release)
        timer.daemon = True
        timer.start()

    @property
    def done(self) -> bool:
        return time.monotonic() >= self.deadline

    def release(self) -> None:
        """Unregisters the snapshot (at expiry)."""
        self.deadline = 0.0
        with self.ltm._active_lock:
            self.ltm._active.pop(self.tid, None)


def export_leased(txn: Any, seconds: float) -> str:
    """Exports txn's snapshot under a lease of `seconds`, valid after txn ends."""
    ts = txn._snap()
    ident = f"{next(_serial):08X}-{ts:016X}-1"
    lease = Lease(txn.ltm, ts, seconds)
    with _lock:
        for k in [k for k, t in _exported.items() if t.done]:
            del _exported[k]
        _exported[ident] = lease
    return ident


def import_snapshot(txn: Any, ident: str) -> int:
    """Makes txn read at the exported snapshot `ident` (before its first data access)."""
    ts = parse_ident(ident)
    with _lock:
        exporter = _exported.get(ident)
    if exporter is None or exporter.done or exporter.ltm is not txn.ltm:
        raise InvalidParameterValue(f'invalid snapshot identifier: "{ident}"')
    if txn.isolation == "serializable" and exporter.isolation != "serializable":
        raise FeatureNotSupported("a serializable transaction cannot import a snapshot from a "
                                  "non-serializable transaction")
    if txn.isolation == "serializable" and not txn.read_only and exporter.read_only:
        raise FeatureNotSupported("a non-read-only serializable transaction cannot import a "
                                  "snapshot from a read-only transaction")
    ltm = txn.ltm
    with ltm._active_lock:  # NB: as LocalTxnManager.take_snapshot registers a snapshot
        if exporter.done:
            raise InvalidParameterValue(f'invalid snapshot identifier: "{ident}"')
        ltm._active[txn.tid] = ts
        if txn.reads is not None:
            ltm._ser_active.add(txn.tid)
    txn._ts = ts
    return ts
