"""Frame bodies of `kivi.remote`: fixed layouts for the hot messages, `wire` for the rest.

Why: a cluster query engine makes a KiVi round trip for nearly every statement, and
the general encoding costs several Python calls per message: a `Get` is a dataclass
packed through msgpack's `default` hook as an ext type holding a nested msgpack
document (a second Packer), named by its class name, and a reply wraps that again
in `[status, reply]`. The hot messages instead start with the byte 0xC1, which
msgpack never uses, then a message code, so either side still reads every other
message (and every message of an older peer) the general way:

    code  message                  layout after the two bytes
    1     Get request              space, ts (struct ">qq"), then the keys (msgpack bin list)
    2     GetReply (status 0)      the rows (`wire`, rows as lists)
    3     ScanReply (status 0)     [resume_key, rows] (`wire`, rows as lists)

Values inside rows keep `wire`'s exact encoding (Decimals, dates, big ints...);
only the envelope is fixed. A `Get` whose fields do not fit the layout (a ts
beyond 64 bits, keys that are not bytes) goes the general way.

Higher layers add layouts of their own with `register_layout` (codes 16 and up: the
MasterMind's per-transaction messages, `cluster.mmframing`); this module knows
nothing of them.

    >>> from .api import Get, GetReply
    >>> body = pack_request(Get(3, 17, [b"k1", b"k2"]))
    >>> body[:2], unpack_request(body)
    (b'\\xc1\\x01', Get(space=3, ts=17, keys=[b'k1', b'k2']))
    >>> unpack_reply(pack_reply(GetReply([(1, "a"), None])))
    (0, GetReply(rows=[(1, 'a'), None]))
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import msgpack

from .api import Get, GetReply, ScanReply
from .wire import packb, unpackb

FAST = 0xC1  # "never used" in msgpack: no general body starts with it
GET, GET_REPLY, SCAN_REPLY = 1, 2, 3

_GET = struct.Struct(">BBqq")
_GET_REPLY_HEAD = bytes((FAST, GET_REPLY))
_SCAN_REPLY_HEAD = bytes((FAST, SCAN_REPLY))
_ERRORS = (struct.error, TypeError, OverflowError, ValueError)


# Registered layouts: a message type -> its packer (the body, or None: not this message,
# the general way); a code -> its unpacker (the whole body)
_REQUEST_OUT: dict[type, Callable[[Any], bytes | None]] = {}
_REPLY_OUT: dict[type, Callable[[Any], bytes | None]] = {}
_REQUEST_IN: dict[int, Callable[[bytes], Any]] = {}
_REPLY_IN: dict[int, Callable[[bytes], Any]] = {}


def register_layout(codes: tuple[int, ...], pack: Callable[[Any], bytes | None],
                    unpack: Callable[[bytes], Any], types: tuple[type, ...],
                    reply: bool = False) -> None:
    """Adds a fixed layout: `pack` makes the bodies (starting with FAST and one of
    `codes`) of messages of `types`, or returns None for one it cannot lay out;
    `unpack` reads them back. Requests, or replies with `reply=True`."""
    out, into = (_REPLY_OUT, _REPLY_IN) if reply else (_REQUEST_OUT, _REQUEST_IN)
    for code in codes:
        if code < 16 or code > 255 or into.get(code, unpack) is not unpack:
            raise ValueError(f"frame code {code} is taken or reserved")
        into[code] = unpack
    for t in types:
        out[t] = pack


def _rows_out(rows: list[Any]) -> list[Any]:
    return [None if r is None else list(r) for r in rows]


def _rows_in(rows: list[Any]) -> list[Any]:
    return [None if r is None else tuple(r) for r in rows]


def pack_request(req: Any) -> bytes:
    """The frame body of a request."""
    if type(req) is Get:
        try:
            return _GET.pack(FAST, GET, req.space, req.ts) + msgpack.packb(
                req.keys, use_bin_type=True, strict_types=True)
        except _ERRORS:
            pass
    else:
        out = _REQUEST_OUT.get(type(req))
        if out is not None:
            body = out(req)
            if body is not None:
                return body
    return packb(req)


def unpack_request(body: bytes) -> Any:
    """The request in a frame body made by `pack_request`."""
    if body[0] == FAST:
        if body[1] == GET:
            _, _, space, ts = _GET.unpack_from(body)
            return Get(space, ts, msgpack.unpackb(body[_GET.size:], raw=False))
        into = _REQUEST_IN.get(body[1])
        if into is None:
            raise ValueError(f"unknown KiVi frame code {body[1]}")
        return into(body)
    return unpackb(body)


def pack_reply(reply: Any) -> bytes:
    """The frame body of a successful reply (status 0)."""
    t = type(reply)
    if t is GetReply:
        return _GET_REPLY_HEAD + packb(_rows_out(reply.rows))
    if t is ScanReply:
        return _SCAN_REPLY_HEAD + packb([reply.resume_key, _rows_out(reply.rows)])
    out = _REPLY_OUT.get(t)
    if out is not None:
        body = out(reply)
        if body is not None:
            return body
    return packb([0, reply])


def pack_error(payload: list[Any]) -> bytes:
    """The frame body of a failed request: [class name, sqlstate, message]."""
    return packb([1, payload])


def unpack_reply(body: bytes) -> tuple[int, Any]:
    """(status, payload) from a frame body made by `pack_reply` or `pack_error`."""
    if body[0] == FAST:
        code = body[1]
        if code == GET_REPLY:
            return 0, GetReply(_rows_in(unpackb(body[2:])))
        if code == SCAN_REPLY:
            resume, rows = unpackb(body[2:])
            return 0, ScanReply(_rows_in(rows), resume)
        into = _REPLY_IN.get(code)
        if into is not None:
            return 0, into(body)
        raise ValueError(f"unknown KiVi frame code {code}")
    status, payload = unpackb(body)
    return status, payload
