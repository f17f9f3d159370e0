"""`Transaction.fresh_snapshot`: READ COMMITTED's recheck block reads at a newer snapshot
(`latest`: every applied commit) and leaves the statement's snapshot as it found it, when
the block ends, when its body raises, and when the transaction had no snapshot yet."""

from __future__ import annotations

import pytest

from cumulo.server.txn.conflicts import LATEST
from cumulo.server.txn.embedded import EmbeddedTxnManager

S, K = 7, b"k"


def _write(tm: EmbeddedTxnManager, value: int) -> int:
    t = tm.ltm.begin()
    t.put(S, [(K, (value,))])
    cts = t.commit()
    assert cts is not None
    return cts


def test_the_block_reads_newer_commits_then_the_statement_snapshot_again() -> None:
    tm = EmbeddedTxnManager(None, gc_interval=None)
    _write(tm, 1)
    t = tm.ltm.begin(isolation="read committed")
    assert t.get(S, [K]) == [(1,)]
    before = t.start_ts
    assert before is not None
    cts = _write(tm, 2)
    with t.fresh_snapshot() as ts:
        assert ts >= cts and t.start_ts == ts
        assert t.get(S, [K]) == [(2,)]
    assert t.start_ts == before and t.get(S, [K]) == [(1,)]
    with t.fresh_snapshot(latest=True) as ts:
        assert ts == LATEST and t.get(S, [K]) == [(2,)]
    assert t.start_ts == before and t.get(S, [K]) == [(1,)]
    t.abort()


def test_a_failing_body_still_restores_the_snapshot() -> None:
    tm = EmbeddedTxnManager(None, gc_interval=None)
    _write(tm, 1)
    t = tm.ltm.begin(isolation="read committed")
    before = t.read_ts()
    _write(tm, 2)
    for latest in (False, True):
        with pytest.raises(KeyError), t.fresh_snapshot(latest=latest):
            assert t.get(S, [K]) == [(2,)]
            raise KeyError("the body failed")
        assert t.start_ts == before and t.get(S, [K]) == [(1,)]
    t.abort()


def test_a_transaction_without_a_snapshot_has_none_again_after_the_block() -> None:
    tm = EmbeddedTxnManager(None, gc_interval=None)
    _write(tm, 1)
    t = tm.ltm.begin(isolation="read committed")
    assert t.start_ts is None
    with t.fresh_snapshot() as ts:
        assert t.get(S, [K]) == [(1,)] and t.start_ts == ts
    assert t.start_ts is None
    cts = _write(tm, 2)
    assert t.read_ts() >= cts and t.get(S, [K]) == [(2,)]
    t.abort()


def test_the_block_of_an_ended_transaction_raises_and_changes_nothing() -> None:
    tm = EmbeddedTxnManager(None, gc_interval=None)
    t = tm.ltm.begin(isolation="read committed")
    t.abort()
    with pytest.raises(Exception, match="already ended"), t.fresh_snapshot():
        pytest.fail("the block ran")
    assert t.start_ts is None
