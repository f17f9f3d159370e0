"""What the MasterMind does when a query engine dies (`cluster.reaper`, CLUSTER.md §3.2),
step by step on the real components (MasterMind service, logger, conflict manager, KiVi
node), in-process and without ZooKeeper, so that each case is exact:

- a commit the dead engine logged but neither applied nor reported is applied and made
  readable; the rest of its batch is discarded, and the snapshot moves past both;
- its write lock is released as committed at its largest timestamp: the waiter of another
  engine is woken, conflicts at an older snapshot and wins at a newer one;
- from then on the dead engine (a paused one that woke up) can take no batch, publish no
  timestamp, log no record and hold GC back: each gives 57P01.

The same with real processes, SIGKILL and ZooKeeper is in `test_cluster_role_failures.py`.
"""

from __future__ import annotations

import pytest

from cumulo.server.cluster.mastermind import LowWater, MasterMindService
from cumulo.server.cluster.reaper import reap
from cumulo.server.cluster.services import (
    ConflictService,
    From,
    LoggerService,
    LogRecord,
    PollWoken,
)
from cumulo.server.errors import SQLError
from cumulo.server.kivi.api import Get, Write
from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn.codec import pack_record
from cumulo.server.txn.conflicts import AcquireSpace, Conflict, Granted, Wait
from cumulo.server.txn.sequencer import Batch, RequestBatch
from cumulo.server.txn.snapshot import Advanced, Readable

DEAD, LIVE = 1, 2
T_DEAD, T_LIVE = DEAD << 48 | 1, LIVE << 48 | 1
SPACE = 7


def _fails_57p01(call) -> None:
    with pytest.raises(SQLError) as e:
        call()
    assert e.value.sqlstate == "57P01", e.value


def test_reap_resolves_timestamps_releases_locks_and_fences(tmp_path):
    mm = MasterMindService()
    logger = LoggerService(str(tmp_path / "log"), "L0")
    cm = ConflictService()
    node = KiviNode(None)
    try:
        assert mm.handle(RequestBatch(DEAD, 10)) == [Batch(DEAD, 1, 10)]
        assert mm.handle(RequestBatch(LIVE, 10)) == [Batch(LIVE, 11, 20)]
        mm.handle(LowWater(DEAD, 0))
        # The dead engine's transaction wrote key a (holds it), committed at 2: logged only.
        assert cm.handle(From(DEAD, AcquireSpace(T_DEAD, 0, SPACE, (b"a",)))) == [Granted(T_DEAD)]
        logger.handle(LogRecord(2, pack_record(2, [Write(SPACE, b"a", (1, "dead"))]), DEAD))
        mm.handle(Readable((1,)))
        # The live engine's transaction waits for key a; its own commit at 11 is stuck
        # behind the dead engine's gap 2..10.
        assert cm.handle(From(LIVE, AcquireSpace(T_LIVE, 1, SPACE, (b"a",)))) == [
            Wait(T_LIVE, T_DEAD, (SPACE, b"a"))]
        mm.handle(Readable((11,)))
        assert mm.snapshots.snapshot == 1

        done = reap(mm, DEAD, [logger], [cm], node)

        assert (done.reapplied, done.discarded, done.released) == (1, 8, 1)
        assert mm.snapshots.snapshot == 11
        assert node.get(Get(SPACE, 11, [b"a"])).rows == [(1, "dead")]
        assert cm.handle(PollWoken(LIVE, 0.0)).txns == (T_LIVE,)
        # Released as committed at 10, the largest timestamp the dead engine was handed.
        assert cm.handle(From(LIVE, AcquireSpace(T_LIVE, 1, SPACE, (b"a",)))) == [
            Conflict(T_LIVE, (SPACE, b"a"), 10)]
        assert cm.handle(From(LIVE, AcquireSpace(T_LIVE + 1, 11, SPACE, (b"a",)))) == [
            Granted(T_LIVE + 1)]
        # GC: the dead engine's low water of 0 no longer counts.
        assert mm.handle(LowWater(LIVE, 11)).lw == 11

        # Fenced: a dead engine that wakes up gets 57P01 for everything.
        _fails_57p01(lambda: mm.handle(RequestBatch(DEAD, 10)))
        _fails_57p01(lambda: mm.handle(Readable((5,))))
        _fails_57p01(lambda: mm.handle(LowWater(DEAD, 0)))
        _fails_57p01(lambda: logger.handle(LogRecord(5, pack_record(5, []), DEAD)))
        # The live engine goes on.
        assert mm.handle(RequestBatch(LIVE, 5)) == [Batch(LIVE, 21, 25)]
        logger.handle(LogRecord(12, pack_record(12, []), LIVE))
        assert mm.handle(Readable(tuple(range(12, 21)))) == [Advanced(20)]
    finally:
        logger.close()


def test_reap_of_an_engine_that_ended_cleanly_changes_nothing(tmp_path):
    """A query engine stopped with SIGTERM gives its batch back and releases its locks;
    its znode goes too, and the reaper then has nothing to do."""
    mm = MasterMindService()
    logger = LoggerService(str(tmp_path / "log"), "L0")
    cm = ConflictService()
    try:
        mm.handle(RequestBatch(DEAD, 3))
        mm.handle(Readable((1, 2, 3)))
        done = reap(mm, DEAD, [logger], [cm], KiviNode(None))
        assert (done.reapplied, done.discarded, done.released) == (0, 0, 0)
        assert mm.snapshots.snapshot == 3
    finally:
        logger.close()
