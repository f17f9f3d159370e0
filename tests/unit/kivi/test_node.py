"""The KiviNodeAPI contract, run against a local node, a remote node and sharded clusters."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from cumulo.server.errors import DivisionByZero, FeatureNotSupported
from cumulo.server.kivi.api import (
    AggSpec,
    Apply,
    Collect,
    DropSpace,
    Get,
    LatestCommit,
    Scan,
    Write,
)
from cumulo.server.kivi.keycodec import decode_key, encode_key

SPACE = 7


def k(i):
    return encode_key((i,))


def load(api, n=50, space=SPACE):
    """Rows (id, id % 3 or NULL, text, Decimal) for ids 0..n-1, committed at ts 10."""
    rows = {i: (i, None if i % 5 == 0 else i % 3, f"name{i}", Decimal(i) / 4) for i in range(n)}
    api.apply(Apply(10, [Write(space, k(i), r) for i, r in rows.items()]))
    return rows


def scan_all(api, req):
    """Follows resume keys until the scan is done; checks each batch respects batch_size."""
    out, limit = [], req.limit
    while True:
        reply = api.scan(req)
        assert len(reply.rows) <= req.batch_size
        out += reply.rows
        if reply.resume_key is None:
            return out
        if limit is not None:
            limit -= len(reply.rows)
        if req.reverse:
            req = Scan(**{**req.__dict__, "hi": reply.resume_key, "limit": limit})
        else:
            req = Scan(**{**req.__dict__, "lo": reply.resume_key, "limit": limit})


def test_get_and_latest_commit(kivi):
    api = kivi.api
    rows = load(api)
    kivi.reshard(SPACE)
    api.apply(Apply(20, [Write(SPACE, k(3), None), Write(SPACE, k(41), (41, 1, "new", None))]))
    keys = [k(i) for i in (0, 3, 41, 99, 12)]
    assert api.get(Get(SPACE, 15, keys)).rows == [rows[0], rows[3], rows[41], None, rows[12]]
    assert api.get(Get(SPACE, 25, keys)).rows == [
        rows[0],
        None,
        (41, 1, "new", None),
        None,
        rows[12],
    ]
    assert api.get(Get(SPACE, 5, keys)).rows == [None] * 5
    assert api.latest_commit(LatestCommit(SPACE, keys)).ts == [10, 20, 20, None, 10]
    assert api.get(Get(999, 5, [k(1)])).rows == [None]


@pytest.mark.parametrize("batch", [1, 7, 1024])
def test_scan_matches_reference(kivi, batch):
    api = kivi.api
    rows = load(api)
    kivi.reshard(SPACE)
    rnd = random.Random(batch)
    filt = (
        "and",
        [
            ("cmp", ">=", ("col", 0), ("const", 5)),
            ("or", [("cmp", "=", ("col", 1), ("const", 1)), ("is_null", ("col", 1))]),
        ],
    )

    def passes(r):
        return r[0] >= 5 and (r[1] == 1 or r[1] is None)

    for _ in range(6):
        lo_i, hi_i = sorted(rnd.sample(range(-5, 60), 2))
        reverse = rnd.random() < 0.5
        limit = rnd.choice([None, 0, 3, 20])
        with_keys = rnd.random() < 0.5
        req = Scan(
            SPACE,
            15,
            lo=k(lo_i),
            hi=k(hi_i),
            projection=(2, 0),
            filter=filt,
            limit=limit,
            with_keys=with_keys,
            reverse=reverse,
            batch_size=batch,
        )
        ids = [i for i in sorted(rows, reverse=reverse) if lo_i <= i < hi_i and passes(rows[i])]
        if limit is not None:
            ids = ids[:limit]
        expect = [((k(i),) if with_keys else ()) + (rows[i][2], i) for i in ids]
        assert scan_all(api, req) == expect, req


def test_scan_unbounded_and_snapshots(kivi):
    api = kivi.api
    rows = load(api)
    kivi.reshard(SPACE)
    api.apply(Apply(20, [Write(SPACE, k(i), None) for i in range(0, 50, 2)]))
    api.apply(Apply(30, [Write(SPACE, k(100), (100, 0, "x", None))]))
    all_at_15 = scan_all(api, Scan(SPACE, 15, batch_size=8))
    assert all_at_15 == [rows[i] for i in range(50)]
    odd = scan_all(api, Scan(SPACE, 25, projection=(0,), batch_size=8))
    assert odd == [(i,) for i in range(1, 50, 2)]
    rev = scan_all(api, Scan(SPACE, 35, projection=(0,), reverse=True, batch_size=5))
    assert rev == [(100,)] + [(i,) for i in range(49, 0, -2)]
    assert [
        decode_key(r[0])[0] for r in scan_all(api, Scan(SPACE, 35, projection=(), with_keys=True))
    ][:3] == [1, 3, 5]


def test_aggregate_pushdown(kivi):
    api = kivi.api
    rows = load(api)
    kivi.reshard(SPACE)
    spec = AggSpec(group_by=(1,), aggs=(("count_star", None), ("sum", 3), ("max", 2)))
    reply = api.scan(
        Scan(SPACE, 15, filter=("cmp", "<", ("col", 0), ("const", 45)), aggregate=spec)
    )
    assert reply.resume_key is None
    expect = {}
    for r in rows.values():
        if r[0] < 45:
            c, s, m = expect.get(r[1], (0, Decimal(0), None))
            expect[r[1]] = (c + 1, s + r[3], r[2] if m is None or r[2] > m else m)
    assert sorted(reply.rows, key=repr) == sorted(((g, *v) for g, v in expect.items()), key=repr)
    total = api.scan(
        Scan(
            SPACE,
            15,
            lo=k(5),
            hi=k(30),
            aggregate=AggSpec(aggs=(("count_star", None), ("count", 1))),
        )
    )
    assert total.rows == [(25, sum(1 for i in range(5, 30) if i % 5))]
    empty = api.scan(Scan(SPACE, 5, aggregate=AggSpec(aggs=(("count_star", None), ("min", 0)))))
    assert empty.rows == [(0, None)]


def test_apply_is_idempotent_and_collect(kivi):
    api = kivi.api
    load(api)
    kivi.reshard(SPACE)
    for ts in (20, 20, 30):
        api.apply(Apply(ts, [Write(SPACE, k(1), (1, ts, "v", None)), Write(SPACE, k(30), None)]))
    assert api.get(Get(SPACE, 25, [k(1), k(30)])).rows == [(1, 20, "v", None), None]
    dropped = api.collect(Collect(25)).value
    assert dropped == 3  # k1@10, k30@10 and k30's tombstone@20 (older than 25)
    assert api.get(Get(SPACE, 25, [k(1)])).rows == [(1, 20, "v", None)]
    assert api.get(Get(SPACE, 35, [k(1)])).rows == [(1, 30, "v", None)]
    assert api.latest_commit(LatestCommit(SPACE, [k(30)])).ts == [30]


def test_drop_space(kivi):
    api = kivi.api
    load(api)
    load(api, 5, space=SPACE + 1)
    kivi.reshard(SPACE)
    api.drop_space(DropSpace(SPACE))
    assert scan_all(api, Scan(SPACE, 50)) == []
    assert len(scan_all(api, Scan(SPACE + 1, 50))) == 5
    load(api, 3)
    assert len(scan_all(api, Scan(SPACE, 50))) == 3


def test_errors_cross_the_wire(kivi):
    api = kivi.api
    load(api)
    with pytest.raises(DivisionByZero) as info:
        api.scan(
            Scan(
                SPACE,
                15,
                filter=("cmp", ">", ("arith", "/", ("col", 0), ("const", 0)), ("const", 1)),
            )
        )
    assert info.value.sqlstate == "22012"
    with pytest.raises(FeatureNotSupported):
        api.scan(Scan(SPACE, 15, aggregate=AggSpec(aggs=(("median", 0),))))


def test_many_keys_and_rows_of_every_type(kivi):
    import datetime as dt
    import uuid

    api = kivi.api
    row = (
        1,
        2.5,
        Decimal("1.10"),
        "é",
        b"\x00",
        True,
        dt.date(2020, 1, 1),
        dt.time(1, 2),
        dt.datetime(2020, 1, 1, 1, tzinfo=dt.UTC),
        dt.timedelta(hours=5),
        uuid.UUID(int=7),
        [1, None],
        {"a": [1]},
        None,
        2**80,
    )
    n = 3000
    api.apply(Apply(5, [Write(3, k(i), row[:1] + (i,) + row[2:]) for i in range(n)]))
    got = api.get(Get(3, 6, [k(i) for i in range(n)])).rows
    assert got == [row[:1] + (i,) + row[2:] for i in range(n)]
    assert all(type(r) is tuple and type(r[11]) is list for r in got)


def test_reshard_really_spreads_keys():
    """The cluster fixtures' data does live on several nodes after a reshard."""
    from cumulo.server.kivi.client import KiviClient
    from cumulo.server.kivi.node import KiviNode

    nodes = {f"n{i}": KiviNode(node_id=f"n{i}") for i in range(3)}
    client = KiviClient(nodes)
    load(client)
    for c in (10, 25, 40):
        client.split(SPACE, k(c))
    names = sorted(nodes)
    for i, info in enumerate(client.map.regions(SPACE)):
        client.move(info, names[(i + 1) % 3])
    held = {name: sum(len(r.store) for r in node.regions()) for name, node in nodes.items()}
    assert held == {"n0": 15, "n1": 10 + 10, "n2": 15}
    assert [(r.lo, r.hi, r.node) for r in client.map.regions(SPACE)] == [
        (b"", k(10), "n1"),
        (k(10), k(25), "n2"),
        (k(25), k(40), "n0"),
        (k(40), None, "n1"),
    ]
    assert len(scan_all(client, Scan(SPACE, 15, batch_size=4))) == 50
