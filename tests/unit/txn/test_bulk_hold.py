"""Bulk holds (`Transaction.put_bulk`, `ConflictManager.acquire_bulk`): a batch held whole
behaves as the same keys held one by one: waits, lost updates, rollbacks, row locks, commits."""

from __future__ import annotations

import pytest

from cumulo.server.errors import SerializationFailure
from cumulo.server.txn import writeset
from cumulo.server.txn.api import RetryStatement, ScanSpec
from cumulo.server.txn.codec import pack_record, unpack_bulk
from cumulo.server.txn.embedded import open_embedded
from cumulo.server.txn.rowlocks import NO_KEY_UPDATE, SHARE
from cumulo.server.txn.writeset import WriteSet
from tests.unit.txn.threads import in_thread, wait_blocked

S = 7
N = 100


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


KEYS = [key(i) for i in range(N)]


def batch(tag: str, keys: list[bytes] = KEYS) -> tuple[list[bytes], list[tuple]]:
    return list(keys), [(tag, i) for i in range(len(keys))]


def cm(tm):
    return tm.ltm.cms[0]


def test_a_fresh_batch_is_held_whole_and_sealed_at_commit(tm):
    t = tm.begin()
    t.put_bulk(S, *batch("a"))
    assert cm(tm).bulk_held(t.tid)
    assert not cm(tm)._holds  # no holder entry per key
    assert dict(cm(tm).holders) == {(S, k): t.tid for k in KEYS}
    cts = t.commit()
    assert not cm(tm).bulk_held(t.tid) and not cm(tm).holders
    assert all(cm(tm).committed_at(S, k) == cts for k in KEYS)
    r = tm.begin()
    assert r.get(S, [KEYS[0], KEYS[-1]]) == [("a", 0), ("a", N - 1)]


@pytest.mark.parametrize("isolation,error", [("repeatable read", SerializationFailure),
                                             ("read committed", RetryStatement)])
def test_a_writer_of_a_bulk_held_key_waits_then_loses(tm, isolation, error):
    t1 = tm.begin()
    t2 = tm.begin(isolation=isolation)
    t2.get(S, [KEYS[5]])  # the snapshot, before t1's commit
    t1.put_bulk(S, *batch("a"))
    th, box = in_thread(lambda: t2.put(S, [(KEYS[5], ("b", 5))]))
    wait_blocked(tm, t2)
    t1.commit()
    th.join(5)
    assert isinstance(box.get("error"), error)
    assert box["error"].sqlstate == "40001"
    t2.abort()


def test_a_second_bulk_batch_over_held_keys_waits(tm):
    t1, t2 = tm.begin(), tm.begin(isolation="repeatable read")
    t2.get(S, [KEYS[0]])
    t1.put_bulk(S, *batch("a"))
    th, box = in_thread(lambda: t2.put_bulk(S, *batch("b", KEYS[50:])))
    wait_blocked(tm, t2)
    t1.abort()  # an abort frees the keys with no commit recorded: t2 goes on
    th.join(5)
    assert "error" not in box
    t2.commit()
    assert tm.begin().get(S, [KEYS[60], KEYS[10]]) == [("b", 10), None]


def test_an_older_snapshot_cannot_overwrite_a_sealed_batch(tm):
    old, old2 = tm.begin(isolation="repeatable read"), tm.begin(isolation="repeatable read")
    old.get(S, [KEYS[0]])
    old2.get(S, [KEYS[0]])
    t = tm.begin()
    t.put_bulk(S, *batch("a"))
    t.commit()
    with pytest.raises(SerializationFailure):
        old.put(S, [(KEYS[7], ("x",))])
    old.abort()
    with pytest.raises(SerializationFailure):  # the bulk way checks the seal too
        old2.put_bulk(S, *batch("z"))
    old2.abort()
    assert not cm(tm).holders


def test_one_key_of_a_sealed_batch_is_checked_against_the_seal(tm):
    # `try_acquire`'s one-key way reads the sealed sets itself: a newer snapshot writes a
    # sealed key plainly, READ COMMITTED's lock of it from an older snapshot is granted as
    # of the seal's commit (the recheck's ts), REPEATABLE READ's write of it fails
    rr, rc = tm.begin(isolation="repeatable read"), tm.begin()
    rr.get(S, [KEYS[0]])
    rc.get(S, [KEYS[0]])
    t = tm.begin()
    t.put_bulk(S, *batch("a"))
    cts = t.commit()
    assert rc.lock_row(S, [KEYS[3]], NO_KEY_UPDATE) == cts
    new = tm.begin()
    new.put(S, [(KEYS[4], ("n", 4))])
    with pytest.raises(SerializationFailure):
        rr.put(S, [(KEYS[5], ("x", 5))])
    rr.abort()
    rc.abort()
    new.commit()
    assert tm.begin().get(S, [KEYS[4], KEYS[5]]) == [("n", 4), ("a", 5)]


def test_a_savepoint_rollback_frees_the_batch(tm):
    t1 = tm.begin()
    t1.put(S, [(key(1000), ("keep",))])
    sp = t1.savepoint()
    t1.put_bulk(S, *batch("a"))
    t1.rollback_to(sp)
    assert cm(tm).holder(S, KEYS[3]) is None
    t2 = tm.begin()
    t2.put(S, [(KEYS[3], ("b",))])  # no wait: the key is free again
    t2.commit()
    t1.commit()
    r = tm.begin()
    assert r.get(S, [KEYS[3], KEYS[4], key(1000)]) == [("b",), None, ("keep",)]


def test_a_row_lock_on_a_bulk_held_key_waits(tm):
    t1, t2 = tm.begin(), tm.begin(isolation="repeatable read")
    t2.get(S, [KEYS[0]])
    t1.put_bulk(S, *batch("a"))
    th, box = in_thread(lambda: t2.lock_row(S, [KEYS[9]], SHARE))
    wait_blocked(tm, t2)
    t1.commit()
    th.join(5)
    assert isinstance(box.get("error"), SerializationFailure)  # changed since the snapshot
    t2.abort()


def test_keys_held_elsewhere_take_the_key_by_key_way(tm):
    t1, t2 = tm.begin(), tm.begin(isolation="repeatable read")
    t2.get(S, [KEYS[0]])
    t1.put(S, [(KEYS[40], ("a",))])  # one key held the usual way
    th, box = in_thread(lambda: t2.put_bulk(S, *batch("b")))
    wait_blocked(tm, t2)
    t1.commit()
    th.join(5)
    assert isinstance(box.get("error"), SerializationFailure)
    t2.abort()
    assert not cm(tm).holders


def test_repeated_and_rewritten_keys_keep_the_last_row(tm):
    t = tm.begin()
    t.put_bulk(S, [key(1), key(2)] * 10, [(i,) for i in range(20)])
    t.put_bulk(S, *batch("a"))  # overlaps key(1) and key(2): the key-by-key way
    t.put_bulk(S, [key(5000 + i) for i in range(40)] + [key(5000)], [(i,) for i in range(41)])
    t.commit()
    r = tm.begin()
    assert r.get(S, [key(1), key(2), key(5000)]) == [("a", 1), ("a", 2), (40,)]
    assert sum(map(len, r.scan(ScanSpec(S, None, None)))) == N + 40


def test_a_bulk_batch_is_durable_and_replayed(tmp_path):
    m = open_embedded(str(tmp_path), gc_interval=None)
    t = m.begin()
    t.put_bulk(S, *batch("a"))
    t.commit()
    m.close()
    m = open_embedded(str(tmp_path), gc_interval=None)
    assert m.begin().get(S, [KEYS[0], KEYS[-1]]) == [("a", 0), ("a", N - 1)]
    m.close()


def _cols(rows):
    return [list(c) for c in zip(*rows, strict=True)]


def test_the_redo_record_takes_the_batches_columns_while_they_are_all_the_writes():
    ws = WriteSet()
    k1, r1 = batch("a", KEYS[:50])
    k2, r2 = batch("b", KEYS[50:])
    ws.put_new(S, k1, r1, _cols(r1))
    ws.put_new(S, k2, r2, _cols(r2))
    assert ws.columns() == {S: _cols(ws.for_commit()[1][0].rows)}
    writes, spaces = ws.for_commit()
    with_cols = unpack_bulk(pack_record(5, writes, (), spaces, ws.columns()))
    assert with_cols == unpack_bulk(pack_record(5, writes, (), spaces))  # same record
    token = ws.savepoint()
    ws.put(S, KEYS[0], ("c", 0))  # another write: the columns no longer tell the rows
    assert ws.columns() == {}
    ws.rollback_to(token)
    assert ws.columns() == {}


def test_columns_past_the_cap_are_not_kept(monkeypatch):
    """A wide COPY's columns would double its pointers until the commit: past COLS_MAX
    cells the redo record transposes the rows instead (one column at a time)."""
    monkeypatch.setattr(writeset, "COLS_MAX", 150)
    ws = WriteSet()
    k1, r1 = batch("a", KEYS[:50])
    k2, r2 = batch("b", KEYS[50:])
    ws.put_new(S, k1, r1, _cols(r1))
    assert ws.columns() == {S: _cols(r1)}
    ws.put_new(S, k2, r2, _cols(r2))
    assert ws.columns() == {}
    writes, spaces = ws.for_commit()
    assert unpack_bulk(pack_record(5, writes, (), spaces))[3][0].rows == r1 + r2


def test_columns_are_dropped_by_a_rollback_or_a_repeated_key():
    ws = WriteSet()
    k1, r1 = batch("a", KEYS[:50])
    ws.put_new(S, k1, r1, _cols(r1))
    token = ws.savepoint()
    k2, r2 = batch("b", KEYS[50:])
    ws.put_new(S, k2, r2, _cols(r2))
    ws.rollback_to(token)
    assert ws.columns() == {}
    other = WriteSet()
    other.put_new(S, [KEYS[0], KEYS[0]], [("x",), ("y",)], [["x", "y"]])
    assert other.columns() == {} and other.spaces[S] == {KEYS[0]: ("y",)}


def test_a_bulk_batch_with_columns_is_replayed_from_them(tmp_path):
    m = open_embedded(str(tmp_path), gc_interval=None)
    t = m.begin()
    for part in (KEYS[:50], KEYS[50:]):
        keys, rows = batch("a", part)
        t.put_bulk(S, keys, rows, _cols(rows))
    t.commit()
    m.close()
    m = open_embedded(str(tmp_path), gc_interval=None)
    assert m.begin().get(S, [KEYS[0], KEYS[-1]]) == [("a", 0), ("a", N - 51)]
    m.close()
