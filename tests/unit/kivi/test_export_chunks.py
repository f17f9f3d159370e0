"""A region moved in chunks (`routing.ExportChunk`, what `cluster.placer.export` asks a
node over TCP): the node answers other requests between chunks, and the chunks put
together are the region, with every version of every key that was there before the
copy began. Writes that land between chunks are either in a later chunk or newer than
the copy's start (a move replays those from the log, `cluster.placer`)."""

from __future__ import annotations

from cumulo.server.cluster.placer import EXPORT_CHUNK, export
from cumulo.server.kivi.api import Apply, ExportRegion, Get, Write
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode
from cumulo.server.kivi.routing import ExportChunk, Fenced


def test_a_region_copied_in_chunks_is_the_region_and_writes_go_on_between_chunks() -> None:
    node = KiviNode()
    keys = [encode_key((i,)) for i in range(2 * EXPORT_CHUNK + 10)]
    node.apply(Apply(5, [Write(7, k, (i, "a")) for i, k in enumerate(keys)]))
    node.apply(Apply(6, [Write(7, k, (i, "b")) for i, k in enumerate(keys[::3])]))
    whole = node.export_region(ExportRegion(7, b""))
    server = NodeServerThread(node)
    client = RemoteNode(server.host, server.port)
    try:
        first = client.handle(ExportChunk(7, b"", None, EXPORT_CHUNK))
        assert len(first.keys) == EXPORT_CHUNK and first.hi is None
        # Between chunks the node serves: a write to a key already copied, a read.
        client.handle(Apply(9, [Write(7, keys[0], (0, "c"))]))
        assert client.handle(Get(7, 9, [keys[0]])).rows == [(0, "c")]
        copied = export(client, 7, b"")
        assert copied.keys == whole.keys and len(copied.keys) == len(keys)
        at_start = [tuple(v for v in c if v[0] <= 6) for c in copied.chains]
        assert at_start == [tuple(c) for c in whole.chains]
        assert copied.chains[0][0] == (9, (0, "c"))  # a fresh copy sees the newer write
        # A fenced (`routing.Fenced`) chunk request carries through to the node.
        assert client.handle(Fenced(3, ExportChunk(7, b"", keys[-2], 5))).keys == [keys[-1]]
    finally:
        client.close()
        server.stop()
