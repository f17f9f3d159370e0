"""Spaces a transaction created itself (`Txn.claim_space`), and the commit-driven GC.

A new table's, TRUNCATE's or ADD PRIMARY KEY's space is invisible to every
other transaction until the creator commits, so its writes skip the conflict
managers (pgbench's load writes a million rows there). What must still hold:
the commit records those keys as committed, so a transaction whose snapshot is
older than the commit cannot overwrite them unnoticed (40001), and an abort or
a rolled-back savepoint leaves nothing behind in the managers.
"""

from __future__ import annotations

import time

import pytest

from cumulo.server.errors import SerializationFailure
from cumulo.server.txn import embedded
from cumulo.server.txn.embedded import open_embedded

NEW = 11  # the claimed space
OLD = 7  # an ordinary one


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def holders(tm) -> dict:
    return tm.ltm.cms[0].holders


def test_claimed_space_writes_take_no_locks(tm):
    t = tm.begin()
    t.claim_space(NEW)
    t.put(NEW, [(key(i), (i,)) for i in range(1000)])
    t.put(OLD, [(key(1), ("x",))])
    assert set(holders(tm)) == {(OLD, key(1))}  # only the ordinary space's key is held
    t.commit()
    assert holders(tm) == {}
    r = tm.begin()
    assert r.get(NEW, [key(0), key(999), key(1000)]) == [(0,), (999,), None]
    r.commit()


def test_older_snapshot_cannot_overwrite_a_claimed_space_commit(tm):
    older = tm.begin(isolation="repeatable read")
    older.get(OLD, [key(0)])  # takes its snapshot before the creator commits
    creator = tm.begin()
    creator.claim_space(NEW)
    creator.put(NEW, [(key(i), (i,)) for i in range(100)])
    creator.commit()
    assert older.get(NEW, [key(5)]) == [None]  # committed after its snapshot
    with pytest.raises(SerializationFailure):
        older.put(NEW, [(key(5), (-5,))])
    older.abort()
    newer = tm.begin(isolation="repeatable read")
    newer.put(NEW, [(key(5), (55,))])  # a snapshot after the commit writes freely
    newer.commit()


def test_serializable_read_of_a_claimed_space_commit_fails(tm):
    reader = tm.begin(isolation="serializable")
    reader.get(OLD, [key(0)])  # snapshot before the creator's commit
    creator = tm.begin()
    creator.claim_space(NEW)
    creator.put(NEW, [(key(1), (1,))])
    creator.commit()
    assert reader.get(NEW, [key(1)]) == [None]  # it read the key as missing...
    with pytest.raises(SerializationFailure):  # ...which the creator committed after st
        reader.put(OLD, [(key(0), ("w",))])  # (eager detection: at its next write)
        reader.commit()
    reader.abort()


def test_abort_and_rollback_to_leave_nothing_behind(tm):
    t = tm.begin()
    t.claim_space(NEW)
    t.put(OLD, [(key(1), ("a",))])
    token = t.savepoint()
    t.put(NEW, [(key(i), (i,)) for i in range(200)])
    t.put(OLD, [(key(2), ("b",))])
    t.rollback_to(token)
    assert set(holders(tm)) == {(OLD, key(1))}
    assert t.get(NEW, [key(3)]) == [None]
    t.abort()
    assert holders(tm) == {}
    assert tm.ltm.cms[0].last_commit == {} and tm.ltm.cms[0].born == {}  # no commit recorded
    other = tm.begin(isolation="repeatable read")
    other.put(NEW, [(key(3), (3,))])  # nothing recorded: no false conflict
    other.commit()


def test_gc_follows_the_commit_rate():
    # a long interval, but a collection after every 50 commits
    m = open_embedded(None, gc_interval=3600, gc_commits=50)
    try:
        for i in range(60):
            t = m.begin()
            t.put(OLD, [(key(0), (i,))])
            t.commit()
        deadline = time.monotonic() + 10
        while m.stats["gc_runs"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        r = m.begin()
        assert r.get(OLD, [key(0)]) == [(59,)]
        r.commit()
    finally:
        m.close()


def _until(cond) -> None:
    deadline = time.monotonic() + 10
    while not cond():
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.fixture
def quiet_gc(monkeypatch):
    """A manager whose GC neither the interval nor the commit count triggers (only a start
    and quiet ticks, every 10 ms), once its start pass has run."""
    monkeypatch.setattr(embedded, "GC_TICK", 0.01)
    m = open_embedded(None, gc_interval=3600, gc_commits=10**6)
    try:
        _until(lambda: m.stats["gc_runs"] >= 1)
        yield m
    finally:
        m.close()


def test_gc_runs_once_the_server_goes_quiet(quiet_gc):
    # a start, and a quiet tick after commits (a bulk load's end), collect once each; an
    # idle server does not collect again
    m = quiet_gc
    runs = m.stats["gc_runs"]
    t = m.begin()
    t.put(OLD, [(key(0), (1,))])
    t.commit()
    _until(lambda: m.stats["gc_runs"] > runs)
    runs = m.stats["gc_runs"]
    time.sleep(0.1)
    assert m.stats["gc_runs"] == runs


def test_the_quiet_pass_waits_for_a_running_reader(quiet_gc):
    # a load's end, then a reader at once (a COPY TO of what was loaded): the pass that
    # freezes the load waits until the reader's transaction ends, not beside it
    m = quiet_gc
    runs = m.stats["gc_runs"]
    reader = m.begin()
    assert reader.get(OLD, [key(0)]) == [None]  # NB: its snapshot, before the load's end
    t = m.begin()
    t.put(OLD, [(key(0), (1,))])
    t.commit()
    time.sleep(0.1)
    assert m.stats["gc_runs"] == runs
    reader.commit()
    _until(lambda: m.stats["gc_runs"] > runs)


def test_a_freeze_waits_for_readers_only():
    # `freeze.readers`: transactions run and none committed since the last look (a COPY TO
    # of what was loaded), not OLTP or a loader, which the freeze must keep up with
    m = open_embedded(None, gc_interval=None)
    try:
        readers_only = m._readers_only  # noqa: SLF001
        assert not readers_only() and not readers_only()  # nothing runs
        reader = m.begin()
        assert reader.get(OLD, [key(0)]) == [None]
        assert readers_only()
        t = m.begin()
        t.put(OLD, [(key(0), (1,))])
        t.commit()
        assert not readers_only()  # a commit since the last look
        assert readers_only()
        reader.commit()
        assert not readers_only()
    finally:
        m.close()
