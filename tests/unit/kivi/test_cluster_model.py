"""A sharded cluster answers exactly like one node, through random writes, splits and moves."""

from __future__ import annotations

import random

import pytest

from cumulo.server.kivi.api import AggSpec, Apply, Collect, Get, LatestCommit, Scan, Write
from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode


def drain(api, req):
    out, limit = [], req.limit
    while True:
        reply = api.scan(req)
        out += reply.rows
        if reply.resume_key is None:
            return out
        if limit is not None:
            limit -= len(reply.rows)
        edge = {"hi": reply.resume_key} if req.reverse else {"lo": reply.resume_key}
        req = Scan(**{**req.__dict__, **edge, "limit": limit})


@pytest.mark.parametrize("seed", range(5))
def test_cluster_equals_single_node(seed):
    rnd = random.Random(seed)
    single = KiviNode()
    nodes = {f"n{i}": KiviNode(node_id=f"n{i}") for i in range(3)}
    cluster = KiviClient(nodes)
    spaces = (1, 2)
    ts = 0
    for _ in range(120):
        op = rnd.random()
        if op < 0.45:
            ts += 1
            writes = []
            for _ in range(rnd.randint(1, 8)):
                i = rnd.randrange(100)
                row = None if rnd.random() < 0.15 else (i, rnd.randrange(5), f"s{rnd.random()}")
                writes.append(Write(rnd.choice(spaces), encode_key((i,)), row))
            writes = list({(w.space, w.key): w for w in writes}.values())
            single.apply(Apply(ts, writes))
            cluster.apply(Apply(ts, writes))
        elif op < 0.55:
            space = rnd.choice(spaces)
            key = encode_key((rnd.randrange(1, 100),))
            if cluster.map.locate(space, key).lo != key:
                cluster.split(space, key)
        elif op < 0.65:
            space = rnd.choice(spaces)
            cluster.move(rnd.choice(cluster.map.regions(space)), rnd.choice(sorted(nodes)))
        elif op < 0.7:
            lw = rnd.randint(0, ts)
            assert single.collect(Collect(lw)).value == cluster.collect(Collect(lw)).value
        else:
            space = rnd.choice(spaces)
            snap = rnd.randint(0, ts)
            a, b = sorted(rnd.sample(range(-1, 102), 2))
            req = Scan(
                space,
                snap,
                lo=encode_key((a,)) if rnd.random() < 0.8 else None,
                hi=encode_key((b,)) if rnd.random() < 0.8 else None,
                filter=("cmp", "<>", ("col", 1), ("const", rnd.randrange(5))),
                projection=rnd.choice([None, (0,), (2, 1)]),
                limit=rnd.choice([None, 1, 7]),
                with_keys=rnd.random() < 0.5,
                reverse=rnd.random() < 0.5,
                batch_size=rnd.choice([1, 3, 50]),
            )
            assert drain(cluster, req) == drain(single, req)
            agg = Scan(
                space,
                snap,
                lo=req.lo,
                hi=req.hi,
                aggregate=AggSpec((1,), (("count_star", None), ("max", 0))),
            )
            assert sorted(cluster.scan(agg).rows, key=repr) == sorted(
                single.scan(agg).rows, key=repr
            )
            keys = [encode_key((rnd.randrange(100),)) for _ in range(10)]
            assert cluster.get(Get(space, snap, keys)) == single.get(Get(space, snap, keys))
            assert cluster.latest_commit(LatestCommit(space, keys)) == single.latest_commit(
                LatestCommit(space, keys)
            )
    assert max(len(cluster.map.regions(s)) for s in spaces) > 2  # the test did reshard
    assert len({r.node for s in spaces for r in cluster.map.regions(s)}) > 1
    assert sum(len(r.store) for n in nodes.values() for r in n.regions()) == sum(
        len(r.store) for r in single.regions()
    )
