"""`StatementRead`, the snapshot-only read of an autocommit READ COMMITTED point query: it
reads as a `Transaction` would (session consistency, the snapshot registered for garbage
collection), can be cancelled while it waits for its session's commit, and ends once."""

from __future__ import annotations

import doctest

from cumulo.server.errors import QueryCanceled
from cumulo.server.txn import statementread
from tests.unit.txn.threads import in_thread, wait_blocked

S = 7
K = b"\0\0\0\1"


def test_doctests():
    assert doctest.testmod(statementread).failed == 0


def test_reads_the_sessions_commit_and_gives_its_snapshot_back(tm):
    session = object()
    t = tm.begin(session=session)
    t.put(S, [(K, ("a",))])
    t.commit()
    ltm = tm.ltm
    before = ltm.stats["read_only_commits"]
    r = tm.statement_read(session)
    assert r.get(S, [K, b"x"]) == [("a",), None]
    assert ltm.low_water() == r.start_ts  # NB: registered: GC cannot pass it
    newer = tm.begin()
    newer.put(S, [(K, ("b",))])
    newer.commit()
    assert r.get(S, [K]) == [("a",)]  # the same snapshot for the statement
    assert ltm.low_water() < ltm.snapshots.snapshot
    r.end()
    r.abort()
    assert ltm.low_water() == ltm.snapshots.snapshot
    assert ltm.stats["read_only_commits"] == before + 1


def test_a_wait_for_the_sessions_commit_can_be_cancelled(tm):
    session = object()
    tm.ltm.pause_apply()  # NB: the commit is durable, not yet visible: the snapshot lags
    t = tm.begin(session=session)
    t.put(S, [(K, ("a",))])
    t.commit()
    r = tm.statement_read(session)
    th, box = in_thread(lambda: r.get(S, [K]))
    wait_blocked(tm, r)
    r.cancel()
    th.join(5)
    assert isinstance(box.get("error"), QueryCanceled)
    r.end()
    tm.ltm.resume_apply()
    again = tm.statement_read(session)
    assert again.get(S, [K]) == [("a",)]
    again.end()
    assert tm.ltm.low_water() == tm.ltm.snapshots.snapshot
    assert not tm.ltm.is_waiting(r)


def test_read_rows_reads_the_newest_snapshot_unregistered_and_stands_aside(tm):
    """`read_rows`: a point read with no read id (nothing in `_active`); None when the
    session's commit is not yet readable or a GC mark was taken during the read."""
    session = object()
    ltm = tm.ltm
    t = tm.begin(session=session)
    t.put(S, [(K, ("a",))])
    t.commit()
    before = ltm.stats["read_only_commits"]
    assert tm.read_rows(session, S, [K, b"x"]) == [("a",), None]
    assert not ltm._active and ltm.stats["read_only_commits"] == before + 1

    class MarkDuring:  # GC's mark taken between the snapshot and the rows
        def __init__(self, kivi):
            self.kivi = kivi

        def get_rows(self, space, ts, keys):
            ltm.low_water()
            return self.kivi.get_rows(space, ts, keys)

    kivi, ltm.kivi = ltm.kivi, MarkDuring(ltm.kivi)
    try:
        assert tm.read_rows(session, S, [K]) is None
    finally:
        ltm.kivi = kivi
    ltm.pause_apply()  # the session's next commit is durable, not yet visible
    t = tm.begin(session=session)
    t.put(S, [(K, ("b",))])
    t.commit()
    assert tm.read_rows(session, S, [K]) is None
    ltm.resume_apply()
    assert tm.read_rows(session, S, [K]) == [("b",)]
