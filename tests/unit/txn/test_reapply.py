"""A commit whose KiVi apply fails stays unpublished until a retry gets it in (`reapply`).

Publishing it anyway (the old behaviour) let the snapshot pass a timestamp whose rows
KiVi lacked: readers saw the old value and a writer's x = x + 1 overwrote the commit.
"""

from __future__ import annotations

import threading
import time

import pytest

from cumulo.server.errors import LockNotAvailable, StatementCompletionUnknown
from cumulo.server.txn.rowlocks import NOWAIT, UPDATE

S = 7
K = b"x"


def _until(cond, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


class Flaky:
    """Wraps a node's apply: fails while `broken` is set."""

    def __init__(self, apply) -> None:
        self.apply = apply
        self.broken = threading.Event()
        self.failures = 0

    def __call__(self, req):
        if self.broken.is_set():
            self.failures += 1
            raise ConnectionError("kivi node unreachable")
        return self.apply(req)


def test_a_failed_apply_holds_its_snapshot_and_locks_until_retried(tm, monkeypatch):
    node = tm.ltm.kivi
    flaky = Flaky(node.apply)
    monkeypatch.setattr(node, "apply", flaky)
    t = tm.begin()
    t.put(S, [(K, (1,))])
    t.commit()
    flaky.broken.set()
    t = tm.begin()
    t.put(S, [(K, (2,))])
    with pytest.raises(StatementCompletionUnknown):
        t.commit()
    cts = tm.ltm.snapshots.snapshot + 1
    _until(lambda: flaky.failures >= 3, "the apply is retried")
    assert tm.ltm.reapplier.pending() == 1
    assert tm.ltm.snapshots.snapshot < cts  # nobody reads past the missing commit
    r = tm.begin()
    assert r.get(S, [K]) == [(1,)]
    w = tm.begin()
    with pytest.raises(LockNotAvailable):  # and nobody overwrites it: its lock is held
        w.lock_row(S, [K], UPDATE, NOWAIT)
    w.abort()
    flaky.broken.clear()
    _until(lambda: tm.ltm.reapplier.pending() == 0, "the retry gets the commit in")
    assert tm.ltm.snapshots.snapshot >= cts
    assert tm.begin().get(S, [K]) == [(2,)]
    assert tm.ltm.stats["apply_failures"] == 1


def test_a_session_sees_its_commit_once_applied(tm, monkeypatch):
    node = tm.ltm.kivi
    flaky = Flaky(node.apply)
    monkeypatch.setattr(node, "apply", flaky)
    flaky.broken.set()
    t = tm.begin(session="s")
    t.put(S, [(K, (5,))])
    with pytest.raises(StatementCompletionUnknown):
        t.commit()
    threading.Timer(0.1, flaky.broken.clear).start()
    t = tm.begin(session="s")  # session consistency: waits for the retry, then sees it
    assert t.get(S, [K]) == [(5,)]
    t.commit()
