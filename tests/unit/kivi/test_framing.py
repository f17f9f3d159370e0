"""`kivi.framing`: the fixed layouts of the hot messages round-trip exactly, anything that
does not fit them goes the general `wire` way, and a node served over TCP answers both."""

from __future__ import annotations

import datetime as dt
import doctest
import uuid
from decimal import Decimal

from cumulo.server.kivi import framing
from cumulo.server.kivi.api import Apply, Get, GetReply, Scan, ScanReply, Write
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode
from cumulo.server.kivi.wire import packb

ROW = (1, -(1 << 70), Decimal("-0.00"), Decimal("Infinity"), "é", b"\x00", None, 2.5,
       dt.datetime(2024, 2, 29, 1, 2, 3, 4, tzinfo=dt.UTC), dt.date(1, 1, 1),
       uuid.UUID(int=7), [1, [2, None]], (3, "t"))


def test_layouts_round_trip_and_fall_back():
    assert doctest.testmod(framing).failed == 0
    get = Get(5, (1 << 63) - 1, [b"", b"\xff" * 40])
    body = framing.pack_request(get)
    assert body[0] == framing.FAST and framing.unpack_request(body) == get
    # Not the layout: a ts beyond 64 bits, keys in a tuple, another request: the general way.
    for req in (Get(5, 1 << 64, [b"k"]), Get(5, 1, (b"k",)), Scan(5, 9, lo=b"a")):
        body = framing.pack_request(req)
        assert body == packb(req) and framing.unpack_request(body) == req
    for reply in (GetReply([ROW, None]), GetReply([]), ScanReply([ROW], b"\x01r"), ScanReply([])):
        body = framing.pack_reply(reply)
        assert body[0] == framing.FAST
        status, back = framing.unpack_reply(body)
        assert status == 0 and back == reply and type(back) is type(reply)
        assert all(type(a) is type(b) for r, s in zip(back.rows, reply.rows, strict=True)
                   if r is not None for a, b in zip(r, s, strict=True))
    # General replies and errors, and an older peer's `[0, GetReply]`, still read.
    assert framing.unpack_reply(framing.pack_reply([1, 2])) == (0, [1, 2])
    assert framing.unpack_reply(packb([0, GetReply([ROW])])) == (0, GetReply([ROW]))
    assert framing.unpack_reply(framing.pack_error(["X", "XX000", "m"])) == (1, ["X", "XX000", "m"])

    # Over TCP, against a real node: the fast Get and replies next to the general Apply.
    server = NodeServerThread(KiviNode())
    client = RemoteNode(server.host, server.port)
    try:
        key = encode_key((1,))
        client.apply(Apply(3, [Write(1, key, ROW)]))
        assert client.get(Get(1, 3, [key, encode_key((2,))])).rows == [ROW, None]
        assert client.get(Get(1, 2, [key])).rows == [None]
        assert client.scan(Scan(1, 3)).rows == [ROW]
    finally:
        client.close()
        server.stop()
