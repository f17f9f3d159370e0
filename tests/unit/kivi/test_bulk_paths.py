"""The bulk paths under COPY and GROUP BY give what the one-key-at-a-time paths give.

Each fast path (bulk apply into a version store, the columnar copy for aggregates,
column-wise partial aggregates, batch key encoding, the bulk write set and the
bulk lock acquire/release) is checked against the general path it bypasses,
on data that makes both paths run, including the cases that must fall back.
"""

from __future__ import annotations

import random

from cumulo.server.kivi.agg import PartialAgg, merge_partials
from cumulo.server.kivi.api import AggSpec, Apply, Scan, Write
from cumulo.server.kivi.columnar.aggregate import partial_aggregate, visible
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.mvcc import VersionStore
from cumulo.server.kivi.node import KiviNode
from cumulo.server.sql.dml.writer import int_keys
from cumulo.server.txn.conflicts import Acquire, Conflict, ConflictManager, Granted, Release, Wait
from cumulo.server.txn.writeset import WriteSet


def _key(i: int) -> bytes:
    return encode_key((i,))


def _state(store: VersionStore, ts: int) -> list:
    keys, rows, _ = store.chunk(None, None, ts, False, 10**9)
    return list(zip(keys, rows, strict=True))


def _one_by_one(batches) -> VersionStore:
    store = VersionStore(cache_limit=10**9)  # never bulk: every write takes the per-key path
    for ts, writes in batches:
        for w in writes:
            store.apply(ts, [w])
    return store


def test_bulk_apply_matches_per_key_apply():
    rnd = random.Random(7)
    batches = [(1, [(_key(i), (i, 0)) for i in range(0, 20000, 2)])]  # the first load
    batches.append((2, [(_key(i), (i, 1)) for i in range(20000, 30000)]))  # appends above
    batches.append((3, [(_key(i), None if i % 3 else (i, 3)) for i in rnd.sample(range(30000),
                                                                                   12000)]))
    batches.append((4, [(_key(i), (i, 4)) for i in range(1, 20000, 2)]))  # between stored keys
    bulk = VersionStore(cache_limit=64)
    for ts, writes in batches:
        shuffled = list(writes)
        rnd.shuffle(shuffled)
        bulk.apply(ts, shuffled)
    ref = _one_by_one(batches)
    for ts in range(0, 6):
        assert _state(bulk, ts) == _state(ref, ts)
    bulk.apply(*batches[2])  # replaying a commit is harmless
    assert _state(bulk, 5) == _state(ref, 5)
    assert bulk.collect(5) == ref.collect(5)
    assert _state(bulk, 5) == _state(ref, 5)


def test_bulk_apply_keeps_the_last_write_of_a_repeated_key():
    store = VersionStore(cache_limit=4)
    writes = [(_key(i), (i,)) for i in range(10)] + [(_key(3), (33,))]
    store.apply(1, writes)
    assert store.read(_key(3), 1) == (33,)
    assert len(store) == 10


def _columns(store: VersionStore, ts: int, wanted: list[int]):
    """Returns (n, {column: values}) of the columnar copy's rows visible at ts, in key order."""
    snap = store.columnar(ts)
    assert snap is not None
    rows = sorted(snap.rows())
    assert rows == sorted(r for _, r in _state(store, ts))  # what the row path sees
    return len(rows), {j: [r[j] for r in rows] for j in wanted}


def test_columnar_copy_follows_every_write():
    store = VersionStore(cache_limit=8)
    store.apply(5, [(_key(i), (i, i % 3)) for i in range(100)])
    assert _columns(store, 4, [0]) == (0, {0: []})  # before the load
    n, cols = _columns(store, 5, [1, 0])
    assert n == 100 and cols[0] == list(range(100)) and cols[1] == [i % 3 for i in range(100)]
    store.apply(6, [(_key(7), (7, 99))])  # an update: two versions, and one in the cache
    assert _columns(store, 6, [1])[1][1][7] == 99
    assert _columns(store, 5, [1])[1][1][7] == 1  # the old snapshot still sees the old one
    store.compact()
    store.collect(6)
    assert _columns(store, 6, [1])[1][1][7] == 99
    store.apply(7, [(_key(8), None)])  # a delete
    store.compact()
    assert _columns(store, 7, [1])[0] == 99
    store.collect(7)
    assert _columns(store, 7, [1])[1][1][7] == 99


def test_columnar_copy_after_bulk_appends_and_updates():
    store = VersionStore(cache_limit=8)
    store.apply(1, [(_key(i), (i, i % 5)) for i in range(50)])
    assert _columns(store, 1, [0, 1])[0] == 50
    store.apply(2, [(_key(i), (i, None if i == 60 else i % 5)) for i in range(50, 80)])  # a COPY
    n, cols = _columns(store, 2, [1, 0])
    assert cols[0] == list(range(80)) and n == 80 and cols[1][60] is None
    assert _columns(store, 1, [0])[0] == 50  # a snapshot before the append
    store.apply(4, [(_key(i), (i, -1)) for i in range(0, 100, 2)])  # updates (new versions)
    store.collect(4)
    n, cols = _columns(store, 4, [1])
    assert cols[1][:4] == [-1, 1, -1, 3] and n == 90
    store.apply(5, [(_key(i), (i, 0)) for i in range(100, 200, 2)])  # an append
    store.apply(6, [(_key(i), (i, 1)) for i in range(101, 200, 2)])  # keys between stored ones
    n, cols = _columns(store, 6, [0, 1])
    want = sorted(set(range(80)) | set(range(0, 100, 2)) | set(range(100, 200)))
    at = want.index(100)
    assert cols[0] == want and cols[1][at:at + 4] == [0, 1, 0, 1]
    for k in range(100):  # many small appends
        store.apply(7 + k, [(_key(i), (i, k)) for i in range(200 + 10 * k, 210 + 10 * k)])
        store.compact()
    n, cols = _columns(store, 106, [0, 1])
    assert n == len(want) + 1000 and cols[1][-1] == 99


def _partials(spec: AggSpec, rows: list[tuple]) -> list[tuple]:
    """The node's partials from rows (PartialAgg) and from the columnar kernel agree."""
    by_rows = PartialAgg(spec)
    for i in range(0, len(rows), 1000):
        by_rows.add(rows[i:i + 1000])
    store = VersionStore()
    store.apply(1, [(_key(i), r) for i, r in enumerate(rows)])
    snap = store.columnar(1)
    assert snap is not None
    by_cols = partial_aggregate(visible(snap), spec.group_by, spec.aggs)
    a = sorted(by_rows.rows(), key=repr)
    b = sorted(merge_partials(spec, by_cols), key=repr)
    assert repr(a) == repr(b), spec
    return a


def test_column_aggregates_match_row_aggregates():
    rnd = random.Random(3)
    rows = [(i, rnd.randrange(9), rnd.choice([None, "a", "b"]),
             None if i % 11 == 0 else rnd.randrange(-50, 50), rnd.random()) for i in range(5000)]
    aggs = (("count_star", None), ("count", 3), ("sum", 3), ("min", 3), ("max", 4))
    out = _partials(AggSpec((1,), aggs), rows)
    assert len(out) == 9
    assert sum(r[1] for r in out) == 5000
    _partials(AggSpec((1, 2), aggs), rows)
    _partials(AggSpec((2,), (("count_star", None),)), rows)
    assert _partials(AggSpec((), aggs), rows)[0][0] == 5000
    assert _partials(AggSpec((), (("count_star", None),)), rows) == [(5000,)]


def test_node_group_by_through_columns_and_chunks_agree():
    node = KiviNode()
    node.apply(Apply(1, [Write(9, _key(i), (i, i % 10, i * 2)) for i in range(20000)]))
    spec = AggSpec((1,), (("count_star", None), ("sum", 2)))
    want = sorted((g, 2000, sum(2 * i for i in range(g, 20000, 10))) for g in range(10))

    def group_by(ts):
        return sorted(node.scan(Scan(9, ts, aggregate=spec)).rows)

    assert group_by(1) == want  # columns
    node.apply(Apply(2, [Write(9, _key(5), (5, 5, 1000))]))
    assert group_by(1) == want  # chunks: the snapshot predates commit 2
    changed = [(g, c, s + (1000 - 10 if g == 5 else 0)) for g, c, s in want]
    assert group_by(2) == changed
    assert sorted(node.scan(Scan(9, 2, lo=_key(0), hi=_key(100), aggregate=spec)).rows)[0] == (
        0, 10, sum(2 * i for i in range(0, 100, 10)))


def test_int_keys_encode_as_encode_key():
    values = [0, 1, -1, 2**63 - 1, -(2**63), 123456789, -98765]
    assert int_keys(values) == [encode_key((v,)) for v in values]
    assert int_keys(range(5, 10)) == [encode_key((v,)) for v in range(5, 10)]
    assert int_keys([1, 2**63]) is None  # beyond int64: the general encoder's other tag
    assert int_keys([1, True]) is None
    assert int_keys([1.0]) is None


def test_write_set_bulk_put_and_rollback():
    ws = WriteSet()
    ws.put(1, b"a", (1,))
    token = ws.savepoint()
    ws.put_many(1, [(b"k%d" % i, (i,)) for i in range(100)])
    ws.put(1, b"k5", (55,))
    ws.put_many(1, [(b"a", (2,)), (b"z", (3,))])  # overlaps: one undo entry per key
    assert ws.range(1, b"k5", b"k50") == [(b"k5", (55,))]
    assert len(ws.spaces[1]) == 102
    gone = ws.rollback_to(token)
    assert sorted(gone) == sorted([(1, b"z")] + [(1, b"k%d" % i) for i in range(100)])
    assert ws.spaces[1] == {b"a": (1,)}
    assert ws.range(1, None, None) == [(b"a", (1,))]


def test_conflict_manager_bulk_acquire_and_release():
    cm = ConflictManager()
    keys = tuple((1, b"%05d" % i) for i in range(1000))
    assert cm.handle(Acquire(1, 10, keys)) == [Granted(1)]
    assert cm.handle(Acquire(2, 10, keys[500:])) == [Wait(2, 1, keys[500])]
    cm.handle(Release(1, keys + keys[:3], 11))  # NB: a key both written and locked
    assert not cm.holders
    assert cm.last_commit[keys[999]] == 11
    assert cm.handle(Acquire(3, 10, keys[::-1])) == [Conflict(3, keys[999], 11)]
    assert cm.handle(Acquire(4, 11, keys)) == [Granted(4)]
    cm.handle(Release(4, keys, None))  # aborted: nothing recorded
    assert not cm.holders and cm.last_commit[keys[0]] == 11


def test_apply_lists_matches_apply():
    rnd = random.Random(11)
    batches = [
        (1, list(range(0, 3000, 3))),  # ascending above everything: appended
        (2, list(range(3000, 3100))),  # small: the general path
        (3, [5000, 4000] + list(range(6000, 7000))),  # not ascending
        (4, list(range(1, 3000, 3))),  # ascending, but among stored keys
        (5, list(range(7000, 8000))),  # appended again, with deletes
    ]
    lists, pairs = VersionStore(cache_limit=16), VersionStore(cache_limit=16)
    for ts, ids in batches:
        rows = [None if ts == 5 and i % 7 == 0 else (i, ts) for i in ids]
        keys = [_key(i) for i in ids]
        lists.apply_lists(ts, keys, list(rows))
        pairs.apply(ts, list(zip(keys, rows, strict=True)))
        rnd.shuffle(keys)  # the caller's lists are not kept
    for ts in range(6):
        assert _state(lists, ts) == _state(pairs, ts)
    assert lists.collect(5) == pairs.collect(5)
    assert _state(lists, 5) == _state(pairs, 5)


def test_region_of_single_versions_checkpoints_by_column(tmp_path):
    from decimal import Decimal

    from cumulo.server.kivi.api import Checkpoint, RegionData, Scan
    from cumulo.server.kivi.region import Region
    from cumulo.server.kivi.wire import packb, unpackb

    rows = [(i, ("t", i), [i], None, Decimal(i) / 4) for i in range(3000)]
    node = KiviNode(tmp_path)
    node.apply(Apply(3, [Write(5, _key(i), r) for i, r in enumerate(rows)]))
    data = node.regions()[0].export(3)
    assert unpackb(packb(data)).chains == [((3, r),) for r in rows]  # the column form
    assert unpackb(packb(data)).chains[7][0][1][1] == ("t", 7)  # a tuple value stays one
    node.apply(Apply(4, [Write(5, _key(1), None), Write(5, _key(2), (2, None, [], 1, 1))]))
    old = node.regions()[0].export(3)  # a snapshot below the newest version
    assert len(old.keys) == 3000 and old.chains[1] == ((3, rows[1]),)
    node.checkpoint(Checkpoint(4))
    again = KiviNode(tmp_path)  # mixed chains: the per-key form
    for ts in (3, 4):
        assert again.scan(Scan(5, ts, batch_size=10**6)).rows == node.scan(
            Scan(5, ts, batch_size=10**6)).rows
    lists = RegionData(5, b"", None, [_key(0)], [[(3, (0,))]])  # chains as lists still load
    assert Region.from_data(lists).store.read(_key(0), 3) == (0,)
