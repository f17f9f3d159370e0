"""Fixed frame layouts for the MasterMind's per-transaction messages (`kivi.framing`).

Why: every transaction of a query engine asks the MasterMind for the snapshot
(`Led(PollSnapshot)` -> `SnapshotIs`) and every commit reports its timestamp
(`Led(Readable)` -> `[Advanced]`). In the general encoding each is a dataclass inside
a dataclass, packed as nested msgpack documents named by class: ~30 us to pack and
~15 us to unpack on this machine, several times the struct-packed equivalent. These
layouts are registered with `kivi.framing`; any other message (or one whose numbers do
not fit 64 bits) goes the general way, and a peer without them sends the general way.

    code  message                                 layout after FAST and the code
    16    Led(epoch, PollSnapshot(known, t), rid)  epoch, rid, known (q), timeout (d)
    17    Led(epoch, Readable(ts...), rid)         epoch, rid (q), n (I), n timestamps (q)
    18    Led(epoch, Discarded(ts...), rid)        the same
    19    Led(epoch, RequestBatch(ltm, size), rid) epoch, rid, ltm, size (q)
    20    SnapshotIs(snapshot)                     snapshot (q)
    21    [Advanced(s), ...]                       n (I), n snapshots (q)
    22    [Batch(ltm, first, last), ...]           n (I), n (ltm, first, last) (q)

`register(PollSnapshot, SnapshotIs)` is called by `cluster.mastermind`, which defines
those two (so that whoever can receive them can read the layouts).

    >>> from cumulo.server.kivi.framing import pack_request, unpack_request
    >>> from cumulo.server.kivi.framing import pack_reply, unpack_reply
    >>> from cumulo.server.cluster.mastermind import PollSnapshot, SnapshotIs
    >>> m = Led(3, PollSnapshot(41, 0.0), 7)
    >>> body = pack_request(m); body[:2], unpack_request(body) == m
    (b'\\xc1\\x10', True)
    >>> unpack_request(pack_request(Led(3, Readable((5, 6)), 8)))
    Led(epoch=3, msg=Readable(ts=(5, 6)), rid=8)
    >>> unpack_reply(pack_reply([Advanced(9)])), unpack_reply(pack_reply(SnapshotIs(9)))
    ((0, [Advanced(snapshot=9)]), (0, SnapshotIs(snapshot=9)))
    >>> unpack_reply(pack_reply([Batch(1, 10, 19)]))
    (0, [Batch(ltm=1, first=10, last=19)])
    >>> pack_reply([Advanced(1 << 70)])[:1] == b"\\xc1"  # too big: the general way
    False
"""

from __future__ import annotations

import struct
from typing import Any

from ..kivi.framing import FAST, register_layout
from ..txn.sequencer import Batch, RequestBatch
from ..txn.snapshot import Advanced, Discarded, Readable
from .leaderclient import Led

LED_POLL, LED_READABLE, LED_DISCARDED, LED_BATCH = 16, 17, 18, 19
SNAPSHOT_IS, ADVANCED_LIST, BATCH_LIST = 20, 21, 22

_POLL = struct.Struct(">BBqqqd")
_TS_HEAD = struct.Struct(">BBqqI")
_BATCH_REQ = struct.Struct(">BBqqqq")
_ONE = struct.Struct(">BBq")
_N = struct.Struct(">BBI")
_ERRORS = (struct.error, TypeError, OverflowError)


def _pack_led(m: Led) -> bytes | None:
    inner = m.msg
    t = type(inner)
    try:
        if t is Readable or t is Discarded:
            n = len(inner.ts)
            return (_TS_HEAD.pack(FAST, LED_READABLE if t is Readable else LED_DISCARDED,
                                  m.epoch, m.rid, n) + struct.pack(f">{n}q", *inner.ts))
        if t is RequestBatch:
            return _BATCH_REQ.pack(FAST, LED_BATCH, m.epoch, m.rid, inner.ltm, inner.size)
        poll = _POLL_TYPE[0]
        if poll is not None and t is poll:
            return _POLL.pack(FAST, LED_POLL, m.epoch, m.rid, inner.known, inner.timeout)
    except _ERRORS:
        pass
    return None


def _unpack_led(body: bytes) -> Led:
    code = body[1]
    if code == LED_POLL:
        _, _, epoch, rid, known, timeout = _POLL.unpack_from(body)
        poll = _POLL_TYPE[0]
        assert poll is not None
        return Led(epoch, poll(known, timeout), rid)
    if code == LED_BATCH:
        _, _, epoch, rid, ltm, size = _BATCH_REQ.unpack_from(body)
        return Led(epoch, RequestBatch(ltm, size), rid)
    _, _, epoch, rid, n = _TS_HEAD.unpack_from(body)
    ts = struct.unpack_from(f">{n}q", body, _TS_HEAD.size)
    return Led(epoch, (Readable if code == LED_READABLE else Discarded)(ts), rid)


def _pack_list(out: list[Any]) -> bytes | None:
    """`[Advanced...]` or `[Batch...]` (what the snapshot server and sequencer answer)."""
    try:
        if not out:
            return None  # NB: any node may answer []: only the MasterMind's lists are laid out
        t = type(out[0])
        if t is Advanced and all(type(a) is Advanced for a in out):
            n = len(out)
            return _N.pack(FAST, ADVANCED_LIST, n) + struct.pack(
                f">{n}q", *[a.snapshot for a in out])
        if t is Batch and all(type(b) is Batch for b in out):
            n = len(out)
            return _N.pack(FAST, BATCH_LIST, n) + struct.pack(
                f">{3 * n}q", *[x for b in out for x in (b.ltm, b.first, b.last)])
    except _ERRORS:
        pass
    return None


def _unpack_list(body: bytes) -> list[Any]:
    _, code, n = _N.unpack_from(body)
    if code == ADVANCED_LIST:
        return [Advanced(s) for s in struct.unpack_from(f">{n}q", body, _N.size)]
    flat = struct.unpack_from(f">{3 * n}q", body, _N.size)
    return [Batch(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, 3 * n, 3)]


_POLL_TYPE: list[Any] = [None]  # NB: `PollSnapshot`, given by `register`
_SNAPSHOT_IS: list[Any] = [None]


def _pack_snapshot_is(reply: Any) -> bytes | None:
    try:
        return _ONE.pack(FAST, SNAPSHOT_IS, reply.snapshot)
    except _ERRORS:
        return None


def _unpack_snapshot_is(body: bytes) -> Any:
    return _SNAPSHOT_IS[0](_ONE.unpack_from(body)[2])


def register(poll_snapshot: type, snapshot_is: type) -> None:
    """Installs the layouts (see the module docstring)."""
    _POLL_TYPE[0], _SNAPSHOT_IS[0] = poll_snapshot, snapshot_is
    register_layout((LED_POLL, LED_READABLE, LED_DISCARDED, LED_BATCH), _pack_led, _unpack_led,
                    (Led,))
    register_layout((SNAPSHOT_IS,), _pack_snapshot_is, _unpack_snapshot_is, (snapshot_is,),
                    reply=True)
    register_layout((ADVANCED_LIST, BATCH_LIST), _pack_list, _unpack_list, (list,), reply=True)


__all__ = ["register"]
