"""xid8, pg_snapshot and txid_snapshot values: text and binary I/O as PostgreSQL 15's xid8funcs.c.

An xid8 is a Python int (0 .. 2**64-1). A snapshot (pg_snapshot, and txid_snapshot, its
older twin with the same I/O) is its canonical text `xmin:xmax:xip1,xip2`, so its output is
the value itself. Input is PostgreSQL's: xid8in reads with strtoul's base 0 (hex, octal,
wrap-around of a minus sign, saturation, and 0 for no digits at all); a snapshot needs
0 < xmin <= xmax and in-progress ids in [xmin, xmax) in ascending order (duplicates are
dropped), else 22P02 naming pg_snapshot, whichever of the two types was asked for.

>>> parse_xid8("-1"), parse_xid8("0x10"), parse_xid8("x"), parse_xid8("99999999999999999999")
(18446744073709551615, 16, 0, 18446744073709551615)
>>> parse_snapshot("10:20:10,14,14,15")
'10:20:10,14,15'
>>> snapshot_fields("10:20:10,14,15")
(10, 20, [10, 14, 15])
"""

from __future__ import annotations

import re
import struct

from ..errors import InvalidBinaryRepresentation, InvalidTextRepresentation, SQLError

XID8 = 5069
PG_SNAPSHOT = 5038
TXID_SNAPSHOT = 2970
_MAX = 2**64 - 1
_NUMBER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)?")
_DECIMAL = re.compile(r"\s*([+-]?)([0-9]+)?")


def _strtou64(s: str, pos: int, base: int) -> tuple[int, int]:
    """C's strtoull(s + pos, &end, base) for base 0 or 10: (value, end position)."""
    m = (_NUMBER if base == 0 else _DECIMAL).match(s, pos)
    assert m is not None
    digits = m.group(2)
    if not digits:
        return 0, pos
    if base == 0 and digits[:2] in ("0x", "0X"):
        v = int(digits[2:], 16)
    elif base == 0 and digits.startswith("0"):
        v = int(digits, 8)
    else:
        v = int(digits)
    if v > _MAX:
        return _MAX, m.end()
    return ((-v) & _MAX if m.group(1) == "-" else v), m.end()


def parse_xid8(s: str) -> int:
    """xid8in: never an error."""
    return _strtou64(s, 0, 0)[0]


def _bad(s: str) -> SQLError:
    return InvalidTextRepresentation(f'invalid input syntax for type pg_snapshot: "{s}"')


def parse_snapshot(s: str) -> str:
    """pg_snapshot_in / txid_snapshot_in: the canonical text of a valid snapshot."""
    xmin, end = _strtou64(s, 0, 10)
    if not s.startswith(":", end):
        raise _bad(s)
    xmax, end = _strtou64(s, end + 1, 10)
    if not s.startswith(":", end) or xmin == 0 or xmax == 0 or xmax < xmin:
        raise _bad(s)
    pos, last, xip = end + 1, 0, []
    while pos < len(s):
        val, pos = _strtou64(s, pos, 10)
        if val < xmin or val >= xmax or val < last:
            raise _bad(s)
        if val != last:
            xip.append(val)
        last = val
        if s.startswith(",", pos):
            pos += 1
        elif pos < len(s):
            raise _bad(s)
    return f"{xmin}:{xmax}:{','.join(map(str, xip))}"


def snapshot_fields(snap: str) -> tuple[int, int, list[int]]:
    """(xmin, xmax, xip) of a snapshot value."""
    xmin, xmax, xip = snap.split(":")
    return int(xmin), int(xmax), [int(x) for x in xip.split(",") if x]


def visible(xid: int, snap: str) -> bool:
    """pg_visible_in_snapshot: ended before the snapshot (below xmin, or below xmax and not
    in progress)."""
    xmin, xmax, xip = snapshot_fields(snap)
    if xid < xmin:
        return True
    return xid < xmax and xid not in xip


def send_xid8(v: int) -> bytes:
    return struct.pack("!Q", v)


def recv_xid8(b: bytes) -> int:
    if len(b) != 8:
        raise InvalidBinaryRepresentation("insufficient data left in message")
    return int(struct.unpack("!Q", b)[0])


def send_snapshot(v: str) -> bytes:
    """pg_snapshot_send: nxip int4, xmin int8, xmax int8, then each in-progress id."""
    xmin, xmax, xip = snapshot_fields(v)
    return struct.pack(f"!iqq{len(xip)}q", len(xip), xmin, xmax, *xip)


def recv_snapshot(b: bytes) -> str:
    """pg_snapshot_recv, with its checks (22P03 for a bad one)."""
    try:
        (n,) = struct.unpack_from("!i", b)
        xmin, xmax, *xip = struct.unpack_from(f"!qq{n}q", b, 4)
    except (struct.error, ValueError):
        raise InvalidBinaryRepresentation("insufficient data left in message") from None
    last = 0
    for x in xip:
        if x < xmin or x >= xmax or x < last:
            raise InvalidBinaryRepresentation("invalid external pg_snapshot data")
        last = x
    if xmin <= 0 or xmax < xmin:
        raise InvalidBinaryRepresentation("invalid external pg_snapshot data")
    return f"{xmin}:{xmax}:{','.join(str(x) for x in sorted(set(xip)))}"
