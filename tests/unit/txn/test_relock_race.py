"""READ COMMITTED's lock of a row in its newest version, against a manager that another
engine's commit reaches between two asks (cluster mode: the managers are remote).

The LTM asks again, after a Conflict, as of the commit the Conflict reported, so that a
commit of the same key made in between is a Conflict again and the recheck reads at a
snapshot that covers it too. Asked at "any commit" (`LATEST`) the second ask passes that
commit unseen, and the recheck reads below it: a lost update in cluster mode. The
manager here is the real one, with the rival's commit slipped in once, right after it
answered the first Conflict."""

from __future__ import annotations

import pytest

from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn.api import RetryStatement
from cumulo.server.txn.conflicts import LATEST, Acquire, Conflict, ConflictManager, Release
from cumulo.server.txn.ltm import LocalTxnManager
from cumulo.server.txn.rowlocks import UPDATE
from cumulo.server.txn.sequencer import CommitSequencer
from cumulo.server.txn.snapshot import SnapshotServer

S, K = 7, b"k"
RIVAL = 1 << 40


class RacedManager(ConflictManager):
    """A manager that, once, lets a rival commit the Conflict's key right after the answer."""

    def __init__(self) -> None:
        super().__init__()
        self.rival_ts: int | None = None

    def handle(self, msg, now=0.0):  # type: ignore[no-untyped-def]
        out = super().handle(msg, now)
        if self.rival_ts is None and out and type(out[0]) is Conflict:
            self.rival_ts = out[0].commit_ts + 5
            super().handle(Acquire(RIVAL, LATEST, (out[0].key,)))
            super().handle(Release(RIVAL, (out[0].key,), self.rival_ts))
        return out


@pytest.fixture
def ltm():  # type: ignore[no-untyped-def]
    m = LocalTxnManager(KiviNode(None), sequencer=CommitSequencer(1), snapshots=SnapshotServer(0),
                        conflict_managers=[RacedManager()])
    yield m
    m.close()


def _changed_after_snapshot(m: LocalTxnManager):  # type: ignore[no-untyped-def]
    """A READ COMMITTED transaction whose snapshot misses a committed write of K."""
    t = m.begin()
    t.get(S, [K])
    w = m.begin()
    w.put(S, [(K, (1,))])
    w.commit()
    return t


def test_for_update_relock_covers_a_commit_between_the_asks(ltm):
    t = _changed_after_snapshot(ltm)
    newest = t.lock_row(S, [K], UPDATE)
    assert newest == t.min_snapshot == ltm.cms[0].rival_ts
    t.abort()


def test_write_recheck_lock_covers_a_commit_between_the_asks(ltm):
    t = _changed_after_snapshot(ltm)
    with pytest.raises(RetryStatement) as ei:
        t.put(S, [(K, (2,))])
    assert ei.value.locked and ei.value.commit_ts == ltm.cms[0].rival_ts
    assert t.min_snapshot == ltm.cms[0].rival_ts
    t.abort()
