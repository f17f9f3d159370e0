"""A lock waiter of a cluster-mode engine asks its manager again when no wake-up comes.

The holder's release wakes a waiter of another engine through the conflict manager's
mailbox, which that engine's thread fetches (`PollWoken`); a reply lost on its way left
the waiter asleep for ever. Here nobody fetches the mailbox at all: the waiter must get
the lock by asking again (`LocalTxnManager.reask_after`), and asking again must not
stretch its lock_timeout. The conflict manager is the real service (`ConflictService`)
behind the real proxy, called in process instead of over its socket; the socket version
is `tests/integration/test_cluster_lock_waits_pg15.py`.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from cumulo.server.cluster.proxies import RemoteConflictManager
from cumulo.server.cluster.services import ConflictService, PollWoken
from cumulo.server.errors import LockNotAvailable
from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn.ltm import LocalTxnManager
from cumulo.server.txn.sequencer import CommitSequencer
from cumulo.server.txn.snapshot import SnapshotServer

S, K = 7, b"k"


class InProcess:
    """A role's client, minus the socket (`kivi.remote.RemoteNode` in a cluster)."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def handle(self, msg: Any) -> Any:
        return self.service.handle(msg)

    def close(self) -> None:
        pass


def _engine(svc: ConflictService, ltm_id: int, reask_after: float | None) -> LocalTxnManager:
    cm = RemoteConflictManager("127.0.0.1", 0, None, ltm_id)
    cm.client = InProcess(svc)
    return LocalTxnManager(KiviNode(None), sequencer=CommitSequencer(1),
                           snapshots=SnapshotServer(0), conflict_managers=[cm],
                           ltm_id=ltm_id, reask_after=reask_after)


def _blocked_put(ltm: LocalTxnManager, txn: Any) -> tuple[threading.Thread, list[str]]:
    """Starts txn's write of K in a thread; returns once it waits for the lock."""
    outcome: list[str] = []

    def put() -> None:
        try:
            txn.put(S, [(K, (2,))])
            outcome.append("granted")
        except Exception as e:  # noqa: BLE001 - the outcome is what is checked
            outcome.append(type(e).__name__)

    th = threading.Thread(target=put, daemon=True)
    th.start()
    deadline = time.monotonic() + 60
    while not ltm.is_waiting(txn) and not outcome:
        assert time.monotonic() < deadline, "the writer never blocked"
        time.sleep(0.001)
    assert not outcome, outcome
    return th, outcome


def _finish(ltm: LocalTxnManager, txn: Any, th: threading.Thread, outcome: list[str]) -> list[str]:
    th.join(60)
    if th.is_alive():  # never woken: free the thread, then fail
        ltm.abort(txn)
        th.join(60)
        outcome.append("never woken")
    assert not th.is_alive()
    return outcome


def test_a_waiter_nobody_wakes_gets_the_lock_by_asking_again() -> None:
    svc = ConflictService()
    a, b = _engine(svc, 0, None), _engine(svc, 1, 0.05)
    ta, tb = a.begin(), b.begin()
    ta.put(S, [(K, (1,))])
    th, outcome = _blocked_put(b, tb)
    ta.abort()  # the Woken goes to engine 1's mailbox, which nobody fetches
    assert _finish(b, tb, th, outcome) == ["granted"]
    assert b.stats["reasks"] >= 1
    # the wake-up, fetched late, finds tb waiting no more: it changes nothing
    assert svc.handle(PollWoken(1, 0.0)).txns == (tb.tid,)
    b.wake((tb.tid,))
    b.abort(tb)
    assert svc.cm.holder(S, K) is None


def test_asking_again_keeps_the_lock_timeout() -> None:
    svc = ConflictService()
    a, b = _engine(svc, 0, None), _engine(svc, 1, 0.02)
    ta, tb = a.begin(), b.begin()
    tb.lock_timeout = 1.0  # NB: about six asks (0.02 s, then twice as long each time)
    ta.put(S, [(K, (1,))])
    th, outcome = _blocked_put(b, tb)
    # a deadline renewed at each ask would never come: the thread would wait for ever
    assert _finish(b, tb, th, outcome) == [LockNotAvailable.__name__]
    b.abort(tb)
    ta.abort()
    assert svc.cm.holder(S, K) is None
