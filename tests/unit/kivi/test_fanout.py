"""Parallel row scans (`kivi.fanout`, issue 14 item 7): the same batches as the sequential path.

Three nodes served over TCP in this process (`NodeServerThread`), one space split into
six regions spread round robin, read forward and backward with filters, projections,
keys and small pages, and compared row for row with paging `KiviClient.scan` one
region after the other. A consumer that stops early leaves no page running.
"""

from __future__ import annotations

import dataclasses

import pytest

from cumulo.server.kivi import fanout
from cumulo.server.kivi.api import AggSpec, Apply, Scan, Write
from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode

SPACE = 11
N = 600


@pytest.fixture(scope="module")
def cluster():
    servers = [NodeServerThread(KiviNode(node_id=f"n{i}")) for i in range(3)]
    client = KiviClient({f"n{i}": RemoteNode(s.host, s.port) for i, s in enumerate(servers)})
    client.apply(Apply(1, [Write(SPACE, encode_key((i,)), (i, i % 7, f"s{i}"))
                           for i in range(N)]))
    for k in (100, 200, 300, 400, 500):
        client.split(SPACE, encode_key((k,)))
    for j, region in enumerate(client.map.regions(SPACE)):
        client.move(region, f"n{j % 3}")
    yield client
    client.close()
    for s in servers:
        s.stop()


def sequential(client: KiviClient, req: Scan) -> list[list]:
    return list(fanout.paged(client, req))


CASES = [
    Scan(SPACE, 5),
    Scan(SPACE, 5, batch_size=37),
    Scan(SPACE, 5, reverse=True, batch_size=50),
    Scan(SPACE, 5, filter=("cmp", "=", ("col", 1), ("const", 3)), projection=(0, 2)),
    Scan(SPACE, 5, lo=encode_key((150,)), hi=encode_key((451,)), with_keys=True, batch_size=64),
    Scan(SPACE, 5, lo=encode_key((150,)), hi=encode_key((451,)), reverse=True,
         filter=("cmp", ">", ("col", 0), ("const", 170))),
    Scan(SPACE, 5, filter=("cmp", "<", ("col", 0), ("const", 0))),  # nothing passes
]


@pytest.mark.parametrize("req", CASES, ids=range(len(CASES)))
def test_parallel_scan_gives_the_sequential_batches_rows(cluster, req):
    assert fanout.parallel_plan(cluster, req) is not None
    before = fanout.stats["parallel_scans"]
    got = [r for b in fanout.scan_batches(cluster, req) for r in b]
    want = [r for b in sequential(cluster, req) for r in b]
    assert got == want
    assert fanout.stats["parallel_scans"] == before + 1
    if req.filter is None and req.lo is None:
        assert len(got) == N


def test_every_window_gives_the_same_rows(cluster):
    req = Scan(SPACE, 5, batch_size=41)
    want = [r for b in sequential(cluster, req) for r in b]
    for window in (1, 2, 6):
        assert [r for b in fanout.scan_batches(cluster, req, window) for r in b] == want


def test_limit_aggregate_and_one_node_spans_stay_sequential(cluster):
    assert fanout.parallel_plan(cluster, Scan(SPACE, 5, limit=10)) is None
    agg = Scan(SPACE, 5, aggregate=AggSpec((1,), (("count_star", None),)))
    assert fanout.parallel_plan(cluster, agg) is None
    one = Scan(SPACE, 5, lo=encode_key((110,)), hi=encode_key((190,)))
    assert fanout.parallel_plan(cluster, one) is None
    assert [r[0] for b in fanout.scan_batches(cluster, one) for r in b] == list(range(110, 190))
    limited = [r for b in fanout.scan_batches(cluster, Scan(SPACE, 5, limit=250, batch_size=60))
               for r in b]
    assert [r[0] for r in limited] == list(range(250))


def test_in_process_nodes_stay_sequential():
    client = KiviClient({"a": KiviNode(), "b": KiviNode()})
    client.apply(Apply(1, [Write(SPACE, encode_key((i,)), (i,)) for i in range(10)]))
    client.move(client.split(SPACE, encode_key((5,)))[1], "b" if client.map.locate(
        SPACE, encode_key((0,))).node == "a" else "a")
    assert fanout.parallel_plan(client, Scan(SPACE, 5)) is None
    assert [r[0] for b in fanout.scan_batches(client, Scan(SPACE, 5)) for r in b] == list(range(10))


def test_stopping_early_cancels_the_pages_ahead(cluster):
    req = Scan(SPACE, 5, batch_size=20)
    gen = fanout.scan_batches(cluster, req)
    first = next(gen)
    assert [r[0] for r in first] == list(range(20))
    gen.close()  # the finally block cancels every stream
    again = [r for b in fanout.scan_batches(cluster, dataclasses.replace(req)) for r in b]
    assert len(again) == N


def test_a_node_error_reaches_the_consumer(cluster):
    bad = Scan(SPACE, 5, filter=("cmp", "=", ("col", 9), ("const", 1)))  # no column 9
    with pytest.raises(Exception) as e:
        list(fanout.scan_batches(cluster, bad))
    assert "KiVi" in str(e.value) or getattr(e.value, "sqlstate", None)
