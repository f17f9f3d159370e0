"""The TCP client: many threads share one RemoteNode; a dead server gives a connection error."""

from __future__ import annotations

import threading

import pytest

from cumulo.server.errors import ConnectionFailure
from cumulo.server.kivi.api import AggSpec, Apply, Get, Scan, Write
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode


def test_threads_share_one_client():
    node = KiviNode()
    server = NodeServerThread(node)
    client = RemoteNode(server.host, server.port, pool=2)
    failures: list[str] = []

    def work(t: int) -> None:
        for i in range(60):
            key = encode_key((t, i))
            client.apply(Apply(i + 1, [Write(1, key, (t, i))]))
            rows = client.get(Get(1, i + 1, [key])).rows
            if rows != [(t, i)]:
                failures.append(f"{t}/{i}: {rows}")
            if i % 20 == 0:
                agg = client.scan(Scan(1, 1000, aggregate=AggSpec(aggs=(("count_star", None),))))
                if agg.rows[0][0] < i:
                    failures.append(f"{t}/{i}: count {agg.rows}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not failures, failures[:3]
        assert client.scan(Scan(1, 1000, aggregate=AggSpec(aggs=(("count_star", None),)))).rows == [
            (360,)
        ]
        assert client.checkpoint_ts == 0
    finally:
        client.close()
        server.stop()


def test_unreachable_node_is_a_connection_failure():
    server = NodeServerThread(KiviNode())
    port = server.port
    client = RemoteNode("127.0.0.1", port)
    assert client.get(Get(1, 1, [b"x"])).rows == [None]
    server.stop()
    with pytest.raises(ConnectionFailure):
        client.get(Get(1, 1, [b"x"]))  # the pooled socket is dead and a new one is refused
    client.close()


def test_client_reconnects_to_a_restarted_node():
    node = KiviNode()
    server = NodeServerThread(node)
    client = RemoteNode("127.0.0.1", server.port)
    client.apply(Apply(1, [Write(1, b"k", (1,))]))
    port = server.port
    server.stop()
    server = NodeServerThread(node, port=port)
    try:
        assert client.get(Get(1, 1, [b"k"])).rows == [(1,)]
    finally:
        client.close()
        server.stop()
