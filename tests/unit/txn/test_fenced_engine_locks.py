"""A transaction of a query engine declared dead (cluster mode: paused past its ZooKeeper
session, then resumed) releases its locks when its commit is refused.

The reaper fences the engine at the MasterMind and the loggers and releases what it held
at the conflict managers; a session of the engine that resumes may still take a lock
there, since the managers do not know who is fenced. Its commit then fails: the logger
refuses the record and the MasterMind refuses to hear of its timestamp. The lock was
released only after that report, so it outlived the transaction and every later writer
of the row waited for ever.

The MasterMind, logger and conflict manager are the real state machines, called in
process (over `kivi.remote` in a cluster).
"""

from __future__ import annotations

from typing import Any

import pytest

from cumulo.server.cluster.mastermind import MasterMindService, RemoteSequencer, RemoteSnapshots
from cumulo.server.cluster.services import (
    LTM_SHIFT,
    ConflictService,
    FenceLtm,
    From,
    LoggerService,
    LogRecord,
    ReleaseLtm,
)
from cumulo.server.errors import SQLError
from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn.conflicts import AcquireSpace, ConflictManager, Granted
from cumulo.server.txn.ltm import LocalTxnManager

S, K = 7, b"k"
LTM = 1


class InProcess:
    """A role's client, minus the socket (`kivi.remote.RemoteNode` in cluster mode)."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def handle(self, msg: Any) -> Any:
        return self.service.handle(msg)


class OneLogger:
    """`proxies.RemoteLogGroup`'s `log` over one logger, in process."""

    def __init__(self, service: LoggerService) -> None:
        self.service = service

    def log(self, ts: int, payload: bytes, durable: bool = True) -> None:
        self.service.handle(LogRecord(ts, payload, LTM))


def test_a_fenced_engines_refused_commit_releases_its_lock(tmp_path: Any) -> None:
    mm = MasterMindService()
    logger = LoggerService(str(tmp_path))
    cm = ConflictManager()
    client = InProcess(mm)
    ltm = LocalTxnManager(KiviNode(None), sequencer=RemoteSequencer(client),
                          snapshots=RemoteSnapshots(client), conflict_managers=[cm],
                          log=OneLogger(logger), ltm_id=LTM, shared_snapshots=True)
    try:
        t = ltm.begin()
        t.put(S, [(K, (1,))])
        ltm._next_ts()  # NB: its batch of timestamps, taken before the engine was fenced
        mm.fence(LTM)  # the reaper declares the engine dead ...
        logger.handle(FenceLtm(LTM))
        with pytest.raises(SQLError):
            t.commit()  # ... and its resumed session's commit is refused
        assert cm.holder(S, K) is None
    finally:
        logger.close()


def test_a_conflict_manager_refuses_locks_to_an_engine_declared_dead() -> None:
    """The reaper released the dead engine's locks (`ReleaseLtm`); a lock its resumed
    session took after that would never be released by anyone: the manager refuses it."""
    svc = ConflictService()
    dead, live = LTM << LTM_SHIFT, 2 << LTM_SHIFT
    assert svc.handle(From(LTM, AcquireSpace(dead | 1, 5, S, (K,)))) == [Granted(dead | 1)]
    svc.handle(ReleaseLtm(LTM, 10))
    with pytest.raises(SQLError) as e:
        svc.handle(From(LTM, AcquireSpace(dead | 2, 10, S, (b"other",))))
    assert e.value.sqlstate == "57P01"
    assert svc.cm.holder(S, b"other") is None
    assert svc.handle(From(2, AcquireSpace(live | 1, 10, S, (K,)))) == [Granted(live | 1)]
