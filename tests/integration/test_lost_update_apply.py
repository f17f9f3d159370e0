"""The lost-update check (issue 14): x = x + 1 from many clients while KiVi applies fail.

Each client increments one row under READ COMMITTED (lock the row, read its newest
version, write it plus one, commit). An injected fault makes some applies fail: the
commit is durable, so the client is told 40003 (outcome unknown) and the commit must
still land. At the end the row must equal every increment that committed, acknowledged
or not: an increment lost to a stale read (a snapshot or a lock released before the
apply) makes it smaller. Run in embedded mode and in cluster mode (KiVi nodes,
conflict managers and loggers in their own processes, `test_cluster_rpc.Cluster`).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from cumulo.server.errors import SerializationFailure, StatementCompletionUnknown
from cumulo.server.txn.api import RetryStatement
from cumulo.server.txn.embedded import open_embedded
from tests.integration.test_cluster_rpc import Cluster

SPACE = 1  # the cluster's split space (test_cluster_rpc splits it over both nodes)
KEY = b"a-counter"
CLIENTS, EACH = 4, 12


class EveryNth:
    """An apply that fails once every `n` calls (its retry is another call)."""

    def __init__(self, apply: Any, n: int) -> None:
        self.apply, self.n = apply, n
        self.calls = self.failures = 0
        self.lock = threading.Lock()

    def __call__(self, req: Any) -> Any:
        with self.lock:
            self.calls += 1
            fail = self.calls % self.n == 0
            self.failures += fail
        if fail:
            raise ConnectionError("injected: kivi apply failed")
        return self.apply(req)


def increments(tm: Any) -> tuple[int, int]:
    """Runs the clients; returns (acknowledged, outcome unknown) increments."""
    t = tm.begin()
    t.put(SPACE, [(KEY, (0,))])
    t.commit()
    counts = {"ack": 0, "unknown": 0}
    lock = threading.Lock()
    errors: list[BaseException] = []

    def client() -> None:
        try:
            for _ in range(EACH):
                while True:
                    txn = tm.begin()
                    try:
                        (row,) = txn.lock(SPACE, [KEY])
                        txn.put(SPACE, [(KEY, (row[0] + 1,))])
                        txn.commit()
                        outcome = "ack"
                    except StatementCompletionUnknown:
                        outcome = "unknown"
                    except (SerializationFailure, RetryStatement):
                        txn.abort()
                        continue
                    with lock:
                        counts[outcome] += 1
                    break
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors, errors
    return counts["ack"], counts["unknown"]


def final_value(tm: Any) -> int:
    deadline = time.monotonic() + 30
    while tm.ltm.reapplier.pending():
        assert time.monotonic() < deadline, "failed applies were never retried"
        time.sleep(0.01)
    t = tm.begin()
    (row,) = t.get(SPACE, [KEY])
    t.commit()
    return row[0]


def check(tm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    kivi = tm.ltm.kivi
    fault = EveryNth(kivi.apply, 4)
    monkeypatch.setattr(kivi, "apply", fault)
    ack, unknown = increments(tm)
    assert fault.failures > 0 and unknown > 0  # the fault did hit commits
    assert ack + unknown == CLIENTS * EACH
    assert final_value(tm) == ack + unknown  # nothing lost, every durable commit applied


def test_lost_update_check_embedded(monkeypatch):
    tm = open_embedded(None, gc_interval=None)
    try:
        check(tm, monkeypatch)
    finally:
        monkeypatch.undo()
        tm.close()


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    yield c
    c.close()


def test_lost_update_check_cluster(cluster, monkeypatch):
    tm = cluster.manager()
    try:
        check(tm, monkeypatch)
    finally:
        monkeypatch.undo()
        tm.close()
