"""Transactions over the embedded manager: merged reads, pushdown semantics, conflicts, threads."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cumulo.server.errors import (
    DeadlockDetected,
    InternalError,
    LockNotAvailable,
    QueryCanceled,
    ReadOnlySQLTransaction,
    SerializationFailure,
)
from cumulo.server.kivi.api import AggSpec, Collect
from cumulo.server.txn.api import RetryStatement, ScanSpec
from cumulo.server.txn.embedded import open_embedded
from tests.unit.txn.threads import in_thread, wait_blocked

from .memnode import MemNode

S = 7


def key(i: int) -> bytes:
    return i.to_bytes(2, "big")


def rows(it):
    return [r for batch in it for r in batch]


ops = st.lists(
    st.tuples(st.sampled_from(["put", "del"]), st.integers(0, 12), st.integers(-5, 5)),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(committed=ops, own=ops, lo=st.integers(0, 4), span=st.integers(3, 14),
       limit=st.none() | st.integers(1, 4), reverse=st.booleans(), batch=st.integers(1, 4),
       threshold=st.none() | st.integers(-5, 5))
def test_merged_scan_matches_model(committed, own, lo, span, limit, reverse, batch, threshold):
    for node in (None, MemNode()):
        _merged_scan_matches_model(node, committed, own, lo, span, limit, reverse, batch, threshold)


def _merged_scan_matches_model(node, committed, own, lo, span, limit, reverse, batch, threshold):
    tm = open_embedded(None, node, gc_interval=None)
    try:
        model: dict[int, tuple | None] = {}
        t = tm.begin()
        for k in range(13):  # a dense start, so that own deletes often hide stored rows
            t.put(S, [(key(k), (k, k % 5))])
            model[k] = (k, k % 5)
        for op, k, v in committed:
            if op == "put":
                t.put(S, [(key(k), (k, v))])
                model[k] = (k, v)
            else:
                t.delete(S, [key(k)])
                model[k] = None
        t.commit()
        t = tm.begin(isolation="repeatable read")
        for op, k, v in own:
            if op == "put":
                t.put(S, [(key(k), (k, v * 10))])
                model[k] = (k, v * 10)
            else:
                t.delete(S, [key(k)])
                model[k] = None
        hi = lo + span
        flt = None if threshold is None else ("cmp", ">=", ("col", 1), ("const", threshold))
        expect = [
            (key(k), r[1]) for k, r in sorted(model.items(), reverse=reverse)
            if r is not None and lo <= k < hi and (threshold is None or r[1] >= threshold)
        ]
        got = rows(t.scan(ScanSpec(S, key(lo), key(hi), projection=(1,), filter=flt, limit=limit,
                                   with_keys=True, reverse=reverse, batch_size=batch)))
        assert got == expect[:limit] if limit is not None else got == expect
        agg = rows(t.scan(ScanSpec(S, key(lo), key(hi), filter=flt,
                                   aggregate=AggSpec((), (("count_star", None), ("sum", 1))))))
        vals = [v for _, v in expect]
        assert agg == [(len(vals), sum(vals) if vals else None)]
        probe = list(range(14))
        assert t.get(S, [key(k) for k in probe]) == [model.get(k) for k in probe]
        t.abort()
    finally:
        tm.close()


def test_scan_batches_respect_batch_size(tm):
    t = tm.begin()
    t.put(S, [(key(i), (i,)) for i in range(10)])
    t.commit()
    t = tm.begin()
    assert [len(b) for b in t.scan(ScanSpec(S, batch_size=4))] == [4, 4, 2]
    t.put(S, [(key(20), (20,))])
    assert [len(b) for b in t.scan(ScanSpec(S, batch_size=4))] == [4, 4, 3]
    t.abort()


def test_grouped_aggregate_with_own_writes(tm):
    t = tm.begin()
    t.put(S, [(key(i), (i % 2, i)) for i in range(6)])
    t.commit()
    t = tm.begin()
    t.delete(S, [key(0)])
    t.put(S, [(key(9), (1, 100))])
    got = sorted(rows(t.scan(ScanSpec(S, aggregate=AggSpec((0,), (("sum", 1), ("max", 1)))))))
    assert got == [(0, 2 + 4, 4), (1, 1 + 3 + 5 + 100, 100)]
    t.abort()


def test_snapshot_is_lazy_and_scan_takes_it_at_call(tm):
    t = tm.begin(isolation="repeatable read")
    assert t.start_ts is None
    it = t.scan(ScanSpec(S))
    assert t.start_ts == 0
    w = tm.begin()
    w.put(S, [(key(1), (1,))])
    w.commit()
    assert rows(it) == []  # the snapshot was taken when scan was called


def test_statement_does_not_see_its_own_writes_mid_scan(tm):
    t = tm.begin()
    t.put(S, [(key(i), (i,)) for i in range(5)])
    t.commit()
    t = tm.begin()
    t.put(S, [(key(1), (1,))])
    seen = []
    for batch in t.scan(ScanSpec(S, batch_size=1, with_keys=True)):
        for _k, v in batch:
            seen.append(v)
            t.put(S, [(key(v + 10), (v + 10,))])  # "UPDATE t SET k = k + 10"
    assert seen == [0, 1, 2, 3, 4]
    t.abort()


def test_read_only_and_finished(tm):
    t = tm.begin(read_only=True)
    with pytest.raises(ReadOnlySQLTransaction):
        t.put(S, [(key(1), (1,))])
    assert t.commit() is None
    t.abort()
    t.abort()
    with pytest.raises(InternalError):
        t.get(S, [key(1)])


def test_read_only_commit_logs_nothing(tmp_path):
    m = open_embedded(str(tmp_path), gc_interval=None)
    t = m.begin()
    t.get(S, [key(1)])
    assert t.commit() is None
    t = m.begin()
    t.put(S, [(key(1), (1,))])
    t.rollback_to(0)
    assert t.commit() is None
    assert m.stats["fsyncs"] == 0 and m.stats["commits"] == 0
    m.close()


@pytest.mark.parametrize("isolation,error", [("repeatable read", SerializationFailure),
                                             ("serializable", SerializationFailure),
                                             ("read committed", RetryStatement)])
def test_writer_blocks_then_fails_when_holder_commits(tm, isolation, error):
    t1 = tm.begin()
    t2 = tm.begin(isolation=isolation)
    t1.put(S, [(key(1), ("a",))])
    t2.get(S, [key(1)])
    th, box = in_thread(lambda: t2.put(S, [(key(1), ("b",))]))
    wait_blocked(tm, t2)
    t1.commit()
    th.join(5)
    assert isinstance(box.get("error"), error)
    assert box["error"].sqlstate == "40001"
    t2.abort()


def test_read_committed_retry_sees_the_winner(tm):
    t1 = tm.begin()
    t2 = tm.begin()
    t1.put(S, [(key(1), (1,))])
    sp = t2.savepoint()
    th, box = in_thread(lambda: t2.put(S, [(key(1), (2,))]))
    wait_blocked(tm, t2)
    c = t1.commit()
    th.join(5)
    assert isinstance(box["error"], RetryStatement)
    t2.rollback_to(sp)
    t2.new_statement()
    assert t2.get(S, [key(1)]) == [(1,)]
    assert t2.start_ts >= c
    t2.put(S, [(key(1), (2,))])
    assert t2.commit() > c


def test_writer_proceeds_when_holder_aborts(tm):
    t1 = tm.begin(isolation="repeatable read")
    t2 = tm.begin(isolation="repeatable read")
    t1.put(S, [(key(1), ("a",))])
    t2.get(S, [])
    th, box = in_thread(lambda: t2.put(S, [(key(1), ("b",))]))
    wait_blocked(tm, t2)
    t1.abort()
    th.join(5)
    assert "error" not in box
    t2.commit()
    t3 = tm.begin()
    assert t3.get(S, [key(1)]) == [("b",)]


def test_three_way_deadlock(tm):
    ts = [tm.begin(isolation="repeatable read") for _ in range(3)]
    for i, t in enumerate(ts):
        t.put(S, [(key(i), (i,))])
    th0, box0 = in_thread(lambda: ts[0].put(S, [(key(1), (0,))]))
    wait_blocked(tm, ts[0])
    th1, box1 = in_thread(lambda: ts[1].put(S, [(key(2), (1,))]))
    wait_blocked(tm, ts[1])
    with pytest.raises(DeadlockDetected) as ei:
        ts[2].put(S, [(key(0), (2,))])
    assert ei.value.sqlstate == "40P01"
    ts[2].abort()
    th1.join(5)
    assert "error" not in box1
    ts[1].commit()
    th0.join(5)
    assert isinstance(box0["error"], SerializationFailure)
    ts[0].abort()


def test_failed_multi_key_put_releases_its_partial_locks(tm):
    t1 = tm.begin(isolation="repeatable read")
    t1.put(S, [(key(2), (0,))])
    t1.get(S, [])
    w = tm.begin()
    w.put(S, [(key(5), (9,))])
    w.commit()
    with pytest.raises(SerializationFailure):
        t1.put(S, [(key(3), (1,)), (key(5), (1,))])  # key 3 granted, then key 5 conflicts
    t2 = tm.begin()
    t2.put(S, [(key(3), (2,))])  # must not block on t1's failed statement
    t2.commit()
    t1.abort()


def test_concurrent_increments_lose_nothing(tm):
    t = tm.begin()
    t.put(S, [(key(0), (0,))])
    t.commit()
    retries = [0]

    def worker():
        for _ in range(100):
            while True:
                t = tm.begin(isolation="repeatable read", session=threading.get_ident())
                try:
                    (row,) = t.get(S, [key(0)])
                    t.put(S, [(key(0), (row[0] + 1,))])
                    t.commit()
                    break
                except SerializationFailure:
                    t.abort()
                    retries[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert tm.begin().get(S, [key(0)]) == [(400,)]
    assert tm.stats["commits"] == 401


def test_gc_keeps_what_active_snapshots_need(tm):
    t = tm.begin()
    t.put(S, [(key(1), (0,))])
    t.commit()
    old = tm.begin(isolation="repeatable read")
    old.get(S, [])
    for i in range(1, 5):
        t = tm.begin()
        t.put(S, [(key(1), (i,))])
        t.commit()
    assert tm.collect() == old.start_ts
    assert old.get(S, [key(1)]) == [(0,)]
    old.commit()
    assert tm.kivi.collect(Collect(tm.ltm.low_water())).value > 0
    assert tm.begin().get(S, [key(1)]) == [(4,)]


def test_limit_with_own_deletes_and_overwrites(tm):
    t = tm.begin()
    t.put(S, [(key(i), (i,)) for i in range(10)])
    t.commit()
    t = tm.begin()
    t.delete(S, [key(0), key(1)])
    t.put(S, [(key(2), (-2,))])
    got = rows(t.scan(ScanSpec(S, limit=3, filter=("cmp", ">=", ("col", 0), ("const", 0)))))
    assert got == [(3,), (4,), (5,)]
    got = rows(t.scan(ScanSpec(S, limit=2, reverse=True, projection=(0,))))
    assert got == [(9,), (8,)]
    t.abort()


def test_cancel_interrupts_a_wait(tm):
    t1 = tm.begin()
    t2 = tm.begin()
    t1.put(S, [(key(1), (1,))])
    th, box = in_thread(lambda: t2.put(S, [(key(1), (2,))]))
    wait_blocked(tm, t2)
    t2.cancel()
    th.join(5)
    assert box["error"].sqlstate == "57014"
    t2.abort()
    t1.commit()


def test_several_conflict_managers_and_loggers(tmp_path):
    m = open_embedded(str(tmp_path), conflict_managers=4, loggers=3, buckets=64, gc_interval=None)
    owners = {m.ltm._owner[b] for b in range(64)}
    assert owners == {0, 1, 2, 3}
    t1 = m.begin(isolation="repeatable read")
    t1.put(S, [(key(i), (i,)) for i in range(50)])
    t2 = m.begin(isolation="repeatable read")
    t2.get(S, [])
    th, box = in_thread(lambda: t2.put(S, [(key(200), (0,)), (key(49), (0,))]))
    wait_blocked(m, t2)
    t1.commit()
    th.join(5)
    assert isinstance(box["error"], SerializationFailure)
    t2.abort()
    t3 = m.begin()
    t3.put(S, [(key(200), (1,))])  # t2's partial lock on key 200 was released
    t3.commit()
    for i in range(6):
        t = m.begin()
        t.put(S, [(key(300 + i), (i,))])
        t.commit()
    m.close()
    assert len({p.name.split("-")[0] for p in tmp_path.joinpath("log").iterdir()}) == 3
    m = open_embedded(str(tmp_path), gc_interval=None)
    got = rows(m.begin().scan(ScanSpec(S)))
    assert len(got) == 50 + 1 + 6
    m.close()


def test_gc_runs_periodically():
    m = open_embedded(None, gc_interval=0.01)
    deadline = time.monotonic() + 5
    while m.stats["gc_runs"] < 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    m.close()


def test_ended_sessions_are_not_kept_alive(tm):
    import gc
    import weakref

    class Session:
        pass

    refs = []
    for i in range(300):
        s = Session()
        refs.append(weakref.ref(s))
        t = tm.begin(session=s)
        t.put(S, [(key(i), (i,))])
        t.commit()
        del s, t
    gc.collect()
    assert sum(r() is not None for r in refs) <= 256
    tm.collect()
    gc.collect()
    assert all(r() is None for r in refs)


def test_bank_transfers_keep_every_snapshot_consistent(tmp_path):
    """Concurrent transfers (with deadlocks and conflicts) never show a reader a partial one."""
    import random

    from cumulo.server.errors import SQLError

    m = open_embedded(str(tmp_path), sync_commit=False, conflict_managers=2, gc_interval=0.01)
    n_acc, total = 8, 8 * 100
    t = m.begin()
    t.put(S, [(key(i), (100,)) for i in range(n_acc)])
    t.commit()
    stop = threading.Event()
    bad: list = []

    def transfer(seed):
        rng = random.Random(seed)
        for _ in range(60):
            a, b = rng.sample(range(n_acc), 2)
            while True:
                t = m.begin(isolation=rng.choice(["repeatable read", "read committed"]))
                try:
                    ra, rb = t.get(S, [key(a), key(b)])
                    t.put(S, [(key(a), (ra[0] - 1,))])
                    t.put(S, [(key(b), (rb[0] + 1,))])
                    t.commit()
                    break
                except SQLError as e:  # 40001, 40P01 (RetryStatement is a 40001 too)
                    t.abort()
                    if e.sqlstate not in ("40001", "40P01"):
                        raise

    def audit():
        while not stop.is_set():
            t = m.begin(isolation="repeatable read", read_only=True)
            s1 = sum(r[0] for b in t.scan(ScanSpec(S)) for r in b)
            s2 = rows(t.scan(ScanSpec(S, aggregate=AggSpec((), (("sum", 0),)))))[0][0]
            t.commit()
            if s1 != total or s2 != total:
                bad.append((s1, s2))

    workers = [threading.Thread(target=transfer, args=(i,), daemon=True) for i in range(4)]
    auditor = threading.Thread(target=audit, daemon=True)
    auditor.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    stop.set()
    auditor.join(10)
    assert not any(w.is_alive() for w in workers), f"transfers stuck: {m.stats}"
    assert not bad
    assert sum(r[0] for r in rows(m.begin().scan(ScanSpec(S)))) == total
    assert m.stats["commits"] == 1 + 4 * 60
    m.close()


def test_lock_timeout(tm):
    t1 = tm.begin()
    t2 = tm.begin()
    t1.put(S, [(key(1), (1,))])
    t2.lock_timeout = 0.05
    t0 = time.monotonic()
    with pytest.raises(LockNotAvailable):
        t2.put(S, [(key(1), (2,))])
    assert time.monotonic() - t0 >= 0.05
    t1.commit()  # the timed-out waiter left no trace behind
    assert not tm.ltm._graph.edges and not tm.ltm.cms[0].waiters
    t2.abort()


def test_cancel_lasts_for_the_statement(tm):
    t1 = tm.begin()
    t2 = tm.begin()
    t1.put(S, [(key(1), (1,))])
    t2.cancel()  # arrives before the wait: the statement's wait is still cancelled
    with pytest.raises(QueryCanceled):
        t2.put(S, [(key(1), (2,))])
    t2.new_statement()
    t2.put(S, [(key(2), (2,))])  # the next statement is not affected
    t1.abort()
    t2.put(S, [(key(1), (2,))])
    t2.commit()


def test_gc_spares_an_open_portal_of_an_earlier_statement(tm):
    t = tm.begin()
    t.put(S, [(key(i), (0,)) for i in range(4)])
    t.commit()
    rc = tm.begin()
    portal = rc.scan(ScanSpec(S, batch_size=1))  # statement 1's cursor, read lazily
    assert next(portal) == [(0,)]
    rc.new_statement()
    for v in (1, 2):
        w = tm.begin()
        w.put(S, [(key(i), (v,)) for i in range(4)])
        w.commit()
    rc.get(S, [key(0)])  # statement 2 takes a newer snapshot
    tm.collect()
    assert [r for b in portal for r in b] == [(0,), (0,), (0,)]
    rc.commit()


def test_a_failed_apply_is_published_once_retried(tm, monkeypatch):
    from cumulo.server.errors import StatementCompletionUnknown

    def broken(req):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tm.kivi, "apply", broken)
    t = tm.begin(session="s")
    t.put(S, [(key(1), (1,))])
    with pytest.raises(StatementCompletionUnknown):
        t.commit()
    monkeypatch.undo()
    t = tm.begin(session="s")  # waits for the background retry (see test_reapply)
    t.put(S, [(key(1), (2,))])  # and the key's lock is released then
    assert t.commit() == 2


def test_abort_from_another_thread_frees_a_waiting_statement(tm):
    t1 = tm.begin()
    t2 = tm.begin()
    t1.put(S, [(key(1), (1,))])
    th, box = in_thread(lambda: t2.put(S, [(key(1), (2,)), (key(2), (2,))]))
    wait_blocked(tm, t2)
    t2.abort()  # e.g. pg_terminate_backend
    th.join(5)
    assert box["error"].sqlstate == "57014"
    t1.commit()
    t3 = tm.begin()
    t3.put(S, [(key(1), (3,)), (key(2), (3,))])  # nothing of t2 is left holding a key
    t3.commit()
    assert not tm.ltm.cms[0].holders


sp_ops = st.lists(
    st.tuples(st.sampled_from(["put", "del", "sp", "rb"]), st.integers(0, 6), st.integers(0, 9)),
    max_size=30,
)


@settings(max_examples=80, deadline=None)
@given(ops=sp_ops)
def test_savepoints_match_model(ops):
    tm = open_embedded(None, gc_interval=None)
    try:
        t = tm.begin()
        t.put(S, [(key(k), (k, 0)) for k in range(0, 7, 2)])
        t.commit()
        t = tm.begin()
        model = {k: (k, 0) for k in range(0, 7, 2)}
        saved: list[tuple[object, dict]] = []
        for op, k, v in ops:
            if op == "put":
                t.put(S, [(key(k), (k, v))])
                model[k] = (k, v)
            elif op == "del":
                t.delete(S, [key(k)])
                model.pop(k, None)
            elif op == "sp":
                saved.append((t.savepoint(), dict(model)))
            elif saved:
                token, state = saved[v % len(saved)]
                del saved[v % len(saved) + 1:]  # later savepoints are gone, as in SQL
                t.rollback_to(token)
                model = dict(state)
        assert rows(t.scan(ScanSpec(S))) == [model[k] for k in sorted(model)]
        assert t.get(S, [key(k) for k in range(7)]) == [model.get(k) for k in range(7)]
        assert set(tm.ltm.cms[0].holders) == set(t.ws.keys())  # rolled-back keys are released
        t.commit()
        # What commits is exactly the final state, and no lock is left behind.
        assert rows(tm.begin().scan(ScanSpec(S))) == [model[k] for k in sorted(model)]
        assert not tm.ltm.cms[0].holders
    finally:
        tm.close()
