"""Bulk write sets (`SpaceWrites`) mean exactly what the same writes as `Write`s mean.

A commit sends a space with many writes as one `SpaceWrites` (two lists) instead
of a `Write` per row: through the redo record, a node, a cluster client that
splits it between nodes, and replay after a crash. Each path is checked against
the per-write path on the same data.
"""

from __future__ import annotations

import datetime
import uuid
from decimal import Decimal

from cumulo.server.kivi.api import Apply, Get, Scan, SpaceWrites, SplitRegion, Write
from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.wire import packb, unpackb
from cumulo.server.txn.codec import pack_record, unpack_bulk, unpack_record
from cumulo.server.txn.recovery import replay_records
from cumulo.server.txn.writeset import WriteSet


def _k(i: int) -> bytes:
    return encode_key((i,))


def _dump(node, space: int, ts: int) -> list:
    return node.scan(Scan(space, ts, batch_size=10**6, with_keys=True)).rows


def _both(writes: list[Write]) -> tuple[KiviNode, KiviNode]:
    """Applies writes one node per-write and one node in bulk, per space, at ts 1."""
    one, bulk = KiviNode(), KiviNode()
    one.apply(Apply(1, writes))
    spaces: dict[int, SpaceWrites] = {}
    for w in writes:
        sw = spaces.setdefault(w.space, SpaceWrites(w.space, [], []))
        sw.keys.append(w.key)
        sw.rows.append(w.row)
    bulk.apply(Apply(1, [], list(spaces.values())))
    return one, bulk


def test_node_applies_space_writes_like_writes():
    writes = [Write(1, _k(i), (i, "a")) for i in range(5000)]
    writes += [Write(2, _k(i), (i,)) for i in range(0, 300, 3)]
    one, bulk = _both(writes)
    for node in (one, bulk):  # later commits over it: updates, deletes, mixed with Write
        node.apply(Apply(2, [Write(2, _k(3), None)], [SpaceWrites(1, [_k(7), _k(9000)],
                                                                   [(7, "b"), None])]))
    for space in (1, 2):
        for ts in (1, 2):
            assert _dump(one, space, ts) == _dump(bulk, space, ts)
    assert bulk.get(Get(1, 2, [_k(7), _k(8)])).rows == [(7, "b"), (8, "a")]
    assert len(_dump(bulk, 2, 2)) == 99


def test_node_routes_space_writes_to_regions():
    node = KiviNode()
    node.apply(Apply(1, [], [SpaceWrites(4, [_k(i) for i in range(100)],
                                         [(i,) for i in range(100)])]))
    node.split_region(SplitRegion(4, _k(50)))
    node.apply(Apply(2, [], [SpaceWrites(4, [_k(10), _k(60), _k(200)], [None, (-60,), (200,)])]))
    got = [r[1:] for r in _dump(node, 4, 2)]
    assert len(got) == 100 and (10,) not in got and (-60,) in got and got[-1] == (200,)


def test_cluster_client_splits_space_writes_by_node():
    nodes = {"a": KiviNode(None, "a"), "b": KiviNode(None, "b")}
    client = KiviClient(nodes)
    client.apply(Apply(1, [], [SpaceWrites(2, [_k(i) for i in range(10)],
                                           [(i,) for i in range(10)])]))  # one node: whole
    _, upper = client.split(2, _k(5))
    client.move(upper, "b")  # space 2 starts on "a" (2 mod 2 = 0)
    client.apply(Apply(2, [Write(3, _k(1), (1,))], [SpaceWrites(2, [_k(i) for i in range(10)],
                                                                [(i * 10,) for i in range(10)])]))
    rows = client.scan(Scan(2, 2, batch_size=100)).rows
    assert rows == [(i * 10,) for i in range(10)]
    per_node = [len(_dump(n, 2, 2)) for n in nodes.values()]
    assert sorted(per_node) == [5, 5]  # each node holds its half, at both versions
    assert client.scan(Scan(2, 1, batch_size=100)).rows == [(i,) for i in range(10)]


def test_redo_record_keeps_bulk_writes():
    tz = datetime.timezone(datetime.timedelta(hours=-3))
    row = (1, None, Decimal("1.50"), datetime.datetime(2024, 1, 1, tzinfo=tz), uuid.UUID(int=3),
           [1, 2], 1 << 70)
    bulk = [SpaceWrites(5, [b"a", b"b", b"c"], [row, None, (2,)]),
            SpaceWrites(6, [b"x"], [(3,)])]
    data = pack_record(7, [Write(1, b"k", (0,))], [9], bulk)
    ts, writes, drops, spaces = unpack_bulk(data)
    assert (ts, writes, drops, spaces) == (7, [Write(1, b"k", (0,))], [9], bulk)
    assert type(spaces[0].rows[0]) is tuple and type(spaces[0].rows[0][5]) is list
    # the flat view (and records without bulk writes, as older logs have them) still read
    assert unpack_record(data)[1] == [Write(1, b"k", (0,)), Write(5, b"a", row),
                                      Write(5, b"b", None), Write(5, b"c", (2,)),
                                      Write(6, b"x", (3,))]
    old = packb([3, [[1, b"k", [5]]], []])
    assert unpack_bulk(old) == (3, [Write(1, b"k", (5,))], [], [])


def test_redo_record_packs_uniform_rows_by_column():
    rows = [(i, ("t", i), [i], None, Decimal(i)) for i in range(100)]  # a tuple value, NULLs
    shapes = {
        "columns": SpaceWrites(1, [_k(i) for i in range(100)], rows),
        "ragged": SpaceWrites(2, [_k(0), _k(1)], [(1, 2), (1,)]),  # rows of another width
        "deletes": SpaceWrites(3, [_k(0), _k(1)], [(1,), None]),
        "no columns": SpaceWrites(4, [_k(0), _k(1)], [(), ()]),
    }
    for name, sw in shapes.items():
        (back,) = unpack_bulk(pack_record(1, [], (), [sw]))[3]
        assert back == sw, name
        assert all(r is None or type(r) is tuple for r in back.rows), name
    back = unpack_bulk(pack_record(1, [], (), [shapes["columns"]]))[3][0]
    assert type(back.rows[5][1]) is tuple and type(back.rows[5][2]) is list
    assert unpackb(pack_record(1, [], (), [shapes["columns"]]))[3][0][2] is None  # by column


def test_replay_of_bulk_records_rebuilds_the_same_state():
    ws = WriteSet()
    ws.put_many(1, [(_k(i), (i,)) for i in range(200)])
    ws.put(2, _k(1), (1,))
    writes, spaces = ws.for_commit()
    assert [w.space for w in writes] == [2] and [(s.space, len(s.keys)) for s in spaces] == [
        (1, 200)]
    live = KiviNode()
    live.apply(Apply(4, writes, spaces))
    live.apply(Apply(5, [], [SpaceWrites(1, [_k(0), _k(1)], [None, (-1,)])]))
    records = [pack_record(4, writes, (), spaces),
               pack_record(5, [], (), [SpaceWrites(1, [_k(0), _k(1)], [None, (-1,)])])]
    replayed = KiviNode()
    assert replay_records(reversed(records), replayed, 0) == (5, 2)
    for space in (1, 2):
        for ts in (4, 5):
            assert _dump(replayed, space, ts) == _dump(live, space, ts)
