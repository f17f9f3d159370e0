"""SERIALIZABLE as write-snapshot isolation: the conflict managers' rules and the LTM's tracking."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cumulo.server.errors import SerializationFailure
from cumulo.server.sql.functions.isotest import session_is_blocked
from cumulo.server.txn.api import ScanSpec
from cumulo.server.txn.conflicts import Acquire, ConflictManager, Granted, Prune, Release
from cumulo.server.txn.embedded import open_embedded
from cumulo.server.txn.readset import ReadSet
from cumulo.server.txn.validate import (
    AT_COMMIT,
    AT_READ,
    AT_WRITE,
    RW_HINT,
    RW_MESSAGE,
    Probe,
    Settle,
    Validate,
    slot_of,
)

S = 7


def k(i: int) -> bytes:
    return i.to_bytes(2, "big")


def other_slot_key(key: tuple[int, bytes]) -> tuple[int, bytes]:
    """A key of space S in a different read_ts slot than key."""
    for i in range(1000, 2000):
        if slot_of((S, k(i))) != slot_of(key):
            return (S, k(i))
    raise AssertionError


# -- the conflict manager's rules, as a state machine ----------------------------------------


def test_reader_validates_first_then_the_earlier_writer_fails():
    # Out-of-order batches: a reader at ct 200 (LTM A) validates before a writer at ct 150
    # (LTM B's older batch) that it did not see; the writer must abort.
    cm = ConflictManager()
    key = (S, k(1))
    (ok,) = cm.handle(Validate(1, 100, 200, points=(key,), writes=((S, k(9)),)))
    assert ok.ok
    assert cm.handle(Acquire(2, 100, (key,))) == [Granted(2)]
    (bad,) = cm.handle(Validate(2, 100, 150, writes=(key,)))
    assert not bad.ok
    # a writer serialized after the reader is fine
    (later,) = cm.handle(Validate(3, 100, 250, writes=(key,)))
    assert later.ok


def test_writer_validates_first_then_the_later_reader_fails():
    cm = ConflictManager()
    key = (S, k(1))
    assert cm.handle(Acquire(2, 100, (key,))) == [Granted(2)]
    (w,) = cm.handle(Validate(2, 100, 150, writes=(key,)))
    assert w.ok
    # prepared (validated, still logging) at 150, in the reader's (st, ct) = (100, 200)
    (r,) = cm.handle(Validate(1, 100, 200, points=(key,)))
    assert not r.ok and "prepared" in r.why
    # a reader whose snapshot is newer, or whose ct is older, is not concerned
    assert cm.handle(Validate(3, 150, 200, points=(key,)))[0].ok
    assert cm.handle(Validate(4, 90, 140, points=(key,)))[0].ok
    # once committed, last_commit carries the conflict
    cm.handle(Release(2, (key,), 150))
    cm.handle(Settle(2, 150))
    (r2,) = cm.handle(Validate(5, 100, 300, points=(key,)))
    assert not r2.ok and "committed at 150" in r2.why


def test_unrelated_slots_do_not_conflict():
    cm = ConflictManager()
    key = (S, k(1))
    other = other_slot_key(key)
    assert cm.handle(Validate(1, 100, 200, points=(key,)))[0].ok
    assert cm.handle(Validate(2, 100, 150, writes=(other,)))[0].ok


def test_range_tracker_both_orders():
    cm = ConflictManager()
    # reader of [k2, k5) validated at 200; a writer at 150 inside the range fails, outside not
    assert cm.handle(Validate(1, 100, 200, ranges=((S, k(2), k(5)),)))[0].ok
    assert not cm.handle(Validate(2, 100, 150, space_writes=((S, (k(3),)),)))[0].ok
    assert cm.handle(Validate(3, 100, 150, space_writes=((S, (k(5),)),)))[0].ok
    assert cm.handle(Validate(4, 100, 250, space_writes=((S, (k(3),)),)))[0].ok
    # a prepared writer inside a later reader's range fails that reader; after its commit,
    # the recent writes do; after pruning past it, a newer snapshot is free again
    cm.handle(Settle(3, None, ((S, (k(5),)),)))
    cm.handle(Settle(2, None, ((S, (k(3),)),)))
    assert not cm.handle(Validate(5, 100, 300, ranges=((S, k(3), None),)))[0].ok  # 4: 250
    assert cm.handle(Validate(5, 100, 300, ranges=((S, k(4), None),)))[0].ok
    cm.handle(Settle(4, 250, ((S, (k(3),)),)))
    assert not cm.handle(Validate(6, 200, 300, ranges=((S, None, k(4)),)))[0].ok
    assert cm.handle(Validate(7, 260, 300, ranges=((S, None, None),)))[0].ok
    cm.handle(Prune(260))
    assert cm.handle(Validate(8, 260, 400, ranges=((S, None, None),)))[0].ok


def test_probe_sees_commits_not_prepared_writers():
    cm = ConflictManager()
    key = (S, k(1))
    cm.handle(Acquire(2, 100, (key,)))
    assert cm.handle(Validate(2, 100, 150, writes=(key,), space_writes=((S, (k(1),)),)))[0].ok
    assert cm.handle(Probe(1, 100, (key,), ((S, None, None),)))[0].ok
    cm.handle(Release(2, (key,), 150))
    cm.handle(Settle(2, 150, ((S, (k(1),)),)))
    assert not cm.handle(Probe(1, 100, (key,)))[0].ok
    assert not cm.handle(Probe(1, 100, (), ((S, k(0), k(2)),)))[0].ok
    assert cm.handle(Probe(1, 100, (), ((S, k(2), None),)))[0].ok


def test_restart_sets_everything_to_the_high_mark():
    cm = ConflictManager()
    cm.ser.restart(500)
    key = (S, k(1))
    assert not cm.handle(Validate(1, 400, 600, points=(key,)))[0].ok
    assert not cm.handle(Validate(2, 400, 600, ranges=((S, None, None),)))[0].ok
    assert not cm.handle(Validate(3, 400, 450, writes=(key,)))[0].ok  # read at 500 > 450
    assert cm.handle(Validate(4, 500, 600, points=(key,), writes=(key,)))[0].ok


# -- read sets and coarsening ------------------------------------------------------------------

keys_st = st.integers(0, 60)


@settings(max_examples=150, deadline=None)
@given(
    points=st.lists(keys_st, max_size=30),
    ranges=st.lists(st.tuples(keys_st, keys_st), max_size=10),
    writes=st.lists(keys_st, min_size=1, max_size=8),
    budget=st.integers(2, 8),
)
def test_a_coarsened_read_set_finds_a_superset_of_the_conflicts(points, ranges, writes, budget):
    exact, coarse = ReadSet(budget=10_000), ReadSet(budget=budget)
    for rs in (exact, coarse):
        for p in points:
            rs.add_points(S, [k(p)])
        for a, b in ranges:
            rs.add_range(S, k(min(a, b)), k(max(a, b)))
    assert len(coarse) <= budget
    for w in writes:  # coverage is monotone
        if exact.covers(S, k(w)):
            assert coarse.covers(S, k(w))
    cm = ConflictManager()
    keys = tuple((S, k(w)) for w in set(writes))
    cm.handle(Acquire(9, 0, keys))
    cm.handle(Release(9, keys, 50))
    cm.handle(Settle(9, 50, ((S, tuple(x[1] for x in keys)),)))

    def conflicts(rs: ReadSet) -> bool:
        v = cm.handle(Validate(1, 10, 100, tuple(rs.points), tuple(rs.ranges)))[0]
        return not v.ok

    if conflicts(exact):
        assert conflicts(coarse)


def test_coarsening_floor_is_whole_spaces():
    rs = ReadSet(budget=2)
    for space in range(5):
        rs.add_points(space, [b"a", b"b"])
    assert all(lo is None and hi is None for _, lo, hi in rs.ranges)
    assert rs.covers(3, b"zzz") and rs.coarsenings >= 1


# -- the LTM: tracking, validation, eager detection -----------------------------------------


def _load(tm, n=10):
    t = tm.begin()
    t.put(S, [(k(i), (i, 100)) for i in range(n)])
    t.commit()


def test_read_only_and_non_serializable_transactions_track_nothing(tm):
    _load(tm)
    for iso, ro in (("serializable", True), ("repeatable read", False), ("read committed", False)):
        t = tm.begin(isolation=iso, read_only=ro)
        t.get(S, [k(1)])
        list(t.scan(ScanSpec(S)))
        assert t.reads is None
        t.commit()


def test_a_reader_that_wrote_nothing_never_fails(tm):
    _load(tm)
    r = tm.begin(isolation="serializable")
    assert r.get(S, [k(1)]) == [(1, 100)]
    w = tm.begin(isolation="serializable")
    w.put(S, [(k(1), (1, 0))])
    w.commit()
    assert r.get(S, [k(1)]) == [(1, 100)]  # doomed, but it never writes
    assert r.commit() is None
    assert tm.stats["ser_validations"] == 1  # only w's


def test_write_skew_is_a_40001_with_postgres_detail_and_hint(tm):
    _load(tm, 2)
    t1, t2 = tm.begin(isolation="serializable"), tm.begin(isolation="serializable")
    t1.get(S, [k(0), k(1)])
    t2.get(S, [k(0), k(1)])
    t1.put(S, [(k(0), (0, -100))])
    t2.put(S, [(k(1), (1, -100))])
    t1.commit()
    with pytest.raises(SerializationFailure) as e:
        t2.commit()
    assert (str(e.value), e.value.detail, e.value.hint) == (RW_MESSAGE, AT_COMMIT, RW_HINT)
    assert tm.stats["ser_failures"] == 1
    # the failed commit's timestamp was discarded: the snapshot moves on
    t3 = tm.begin()
    t3.put(S, [(k(5), (5, 5))])
    assert t3.commit() == tm.ltm.snapshots.snapshot


def test_repeatable_read_writers_are_never_aborted_for_serializable_readers(tm):
    _load(tm, 2)
    r = tm.begin(isolation="serializable")
    r.get(S, [k(0)])
    r.put(S, [(k(1), (1, 1))])
    rr = tm.begin(isolation="repeatable read")
    rr.put(S, [(k(0), (0, 0))])
    assert r.commit() is not None  # r validated first; rr's write is serialized after it
    assert rr.commit() is not None  # REPEATABLE READ keeps SI semantics


def test_limit_cuts_the_read_range(tm):
    _load(tm)
    t = tm.begin(isolation="serializable")
    assert [r for b in t.scan(ScanSpec(S, limit=3)) for r in b] == [(0, 100), (1, 100), (2, 100)]
    w = tm.begin()
    w.put(S, [(k(8), (8, 0))])
    w.commit()
    t.put(S, [(k(20), (20, 0))])
    assert t.commit() is not None  # k8 lies beyond what the limited scan read


def test_abandoned_scan_covers_only_the_batches_fetched(tm):
    _load(tm)
    t = tm.begin(isolation="serializable")
    it = t.scan(ScanSpec(S, batch_size=2))
    assert next(it) == [(0, 100), (1, 100)]
    w = tm.begin()
    w.put(S, [(k(1), (1, 0)), (k(9), (9, 0))])
    w.commit()
    with pytest.raises(SerializationFailure):
        t.put(S, [(k(20), (20, 0))])  # k1 was in the fetched batch: doomed, fails at its write
    t.abort()
    t2 = tm.begin(isolation="serializable")
    it = t2.scan(ScanSpec(S, batch_size=2))
    assert next(it) == [(0, 100), (1, 0)]
    w = tm.begin()
    w.put(S, [(k(9), (9, 1))])
    w.commit()
    t2.put(S, [(k(20), (20, 0))])
    assert t2.commit() is not None  # k9 lies in batches never fetched


def test_several_conflict_managers(tmp_path):
    m = open_embedded(None, gc_interval=None, conflict_managers=3, buckets=64)
    try:
        _load(m, 20)
        t1, t2 = m.begin(isolation="serializable"), m.begin(isolation="serializable")
        assert len([r for b in t1.scan(ScanSpec(S, k(5), k(15))) for r in b]) == 10
        t2.get(S, [k(i) for i in range(20)])
        t1.put(S, [(k(30), (30, 1))])
        t2.put(S, [(k(12), (12, 1))])
        t2.commit()
        with pytest.raises(SerializationFailure):
            t1.commit()
        # the failed transaction left no prepared marks behind
        assert all(not cm.ser.prepared for cm in m.ltm.cms)
        assert all(not t.prepared for cm in m.ltm.cms for t in cm.ser.trackers.values())
    finally:
        m.close()


def test_blocked_writer_shows_as_blocked(tm):
    _load(tm, 2)

    class Sess:
        def __init__(self, pid, txn):
            self.backend_pid, self.txn = pid, txn

    a, b = tm.begin(isolation="serializable"), tm.begin(isolation="serializable")
    a.put(S, [(k(0), (0, 1))])
    sessions = [Sess(11, a), Sess(22, b), Sess(33, None)]
    done = threading.Event()

    def write():
        try:
            b.put(S, [(k(0), (0, 2))])
        except SerializationFailure:
            pass
        done.set()

    th = threading.Thread(target=write)
    th.start()
    while not tm.ltm.is_waiting(b):
        time.sleep(0.001)
    assert session_is_blocked(sessions, 22, [11, 22])
    assert not session_is_blocked(sessions, 22, [22, 33])  # not by an interesting pid
    assert not session_is_blocked(sessions, 11, [11, 22])
    assert not session_is_blocked(sessions, 33, [11, 22])
    a.commit()
    done.wait(10)
    th.join()
    assert not session_is_blocked(sessions, 22, [11, 22])


def test_eager_failures_carry_postgres_reason_codes(tm):
    _load(tm, 3)
    # Fekete: doomed by its read, fails at its first write ("during write")
    t1 = tm.begin(isolation="serializable")
    t1.get(S, [k(0), k(1)])
    w = tm.begin(isolation="serializable")
    w.put(S, [(k(1), (1, 5))])
    ct = w.commit()
    with pytest.raises(SerializationFailure) as e:
        t1.put(S, [(k(0), (0, 0))])
    assert e.value.detail == AT_WRITE
    t1.abort()
    # total-cash: wrote, then reads a range overwritten after its snapshot ("during read")
    t2 = tm.begin(isolation="serializable")
    t2.put(S, [(k(2), (2, 0))])
    w = tm.begin()
    w.put(S, [(k(0), (0, 7))])
    ct = w.commit()
    with pytest.raises(SerializationFailure) as e:
        list(t2.scan(ScanSpec(S)))
    assert e.value.detail == AT_READ.format(ct)
    assert e.value.detail == f"Reason code: Canceled on conflict out to pivot {ct}, during read."
    t2.abort()
    # read-write-unique: a key it looked for, inserted by a concurrent writer
    a, b = tm.begin(isolation="serializable"), tm.begin(isolation="serializable")
    assert a.get(S, [k(50)]) == [None] and b.get(S, [k(50)]) == [None]
    a.put(S, [(k(50), (50, 1))])
    a.commit()
    with pytest.raises(SerializationFailure) as e:
        b.put(S, [(k(50), (50, 2))])
    assert e.value.detail == AT_WRITE  # NB: PostgreSQL 15's reason here
    b.abort()
    # a plain lost update stays PostgreSQL's "concurrent update"
    c = tm.begin(isolation="serializable")
    c.get(S, [k(50)])
    d = tm.begin()
    d.put(S, [(k(50), (50, 3))])
    d.commit()
    with pytest.raises(SerializationFailure) as e:
        c.put(S, [(k(50), (50, 4))])
    assert str(e.value) == "could not serialize access due to concurrent update"


def test_untracked_spaces_are_not_validated(tm):
    _load(tm, 2)
    tm.ltm.untracked_spaces = frozenset({S})
    t1, t2 = tm.begin(isolation="serializable"), tm.begin(isolation="serializable")
    t1.get(S, [k(0), k(1)])
    t2.get(S, [k(0), k(1)])
    assert len(t1.reads) == 0
    t1.put(S, [(k(0), (0, -100))])
    t2.put(S, [(k(1), (1, -100))])
    t1.commit()
    assert t2.commit() is not None  # as REPEATABLE READ would: the space is not tracked
