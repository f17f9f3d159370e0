"""A session waiting for the shared snapshot (cluster mode) is woken by whichever thread of
its engine learns that the snapshot moved, not only by the snapshot poller.

A READ COMMITTED statement that met a commit made on another engine waits until the shared
snapshot covers it (`LocalTxnManager.take_snapshot`). The poller's long poll asks the
MasterMind for a snapshot newer than the one the engine knows; if another session's
transaction start (`RemoteSnapshots.refresh`) learnt the new snapshot first, the poller sees
nothing new and wakes nobody. The waiter then slept until some later commit moved the
snapshot again, and if it held the row lock that every other writer waited for (a lock
taken before the rerun, as PostgreSQL's EvalPlanQual), no commit ever came: the MasterMind
fail-over test's increments stopped (test_cluster_role_failures).

The MasterMind here is the real state machine (`MasterMindService`), called in process.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from cumulo.server.cluster.mastermind import MasterMindService, RemoteSequencer, RemoteSnapshots
from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn.conflicts import ConflictManager
from cumulo.server.txn.ltm import LocalTxnManager
from cumulo.server.txn.sequencer import RequestBatch
from cumulo.server.txn.snapshot import Readable


class InProcess:
    """The MasterMind's client, minus the socket (`kivi.remote.RemoteNode` in cluster mode)."""

    def __init__(self, service: MasterMindService) -> None:
        self.service = service

    def handle(self, msg: Any) -> Any:
        return self.service.handle(msg)


def test_a_snapshot_learnt_by_another_session_wakes_the_waiter() -> None:
    mm = MasterMindService()
    client = InProcess(mm)
    snapshots = RemoteSnapshots(client)
    ltm = LocalTxnManager(KiviNode(None), sequencer=RemoteSequencer(client), snapshots=snapshots,
                          conflict_managers=[ConflictManager()], ltm_id=1, shared_snapshots=True)
    try:
        (batch,) = mm.handle(RequestBatch(2, 3))  # another engine's commits, in flight
        txn = ltm.begin()
        txn.min_snapshot = batch.last  # its statement met the last of them (a rerun)
        got: list[int] = []
        waiter = threading.Thread(target=lambda: got.append(ltm.take_snapshot(txn)), daemon=True)
        waiter.start()
        deadline = time.monotonic() + 10
        while not ltm.is_waiting(txn):
            assert time.monotonic() < deadline, "the statement did not wait for the snapshot"
            time.sleep(0.01)
        mm.handle(Readable(tuple(range(batch.first, batch.last + 1))))
        ltm.take_snapshot(ltm.begin())  # another session's transaction starts: it learns it
        assert not snapshots.poll(0.0)  # so the poller finds nothing new (and wakes nobody)
        waiter.join(10)
        assert got == [batch.last]
    finally:
        ltm.close()
