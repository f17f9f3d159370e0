"""tsquery's btree order (PostgreSQL's CompareTSQ), as bytes that compare alike.

PostgreSQL orders tsqueries by their node count, then their stored size (which, for the
same count, is the operands' total length), then node by node (QTNodeCompare): operators
before operands; between operators the higher code first (phrase, or, and, not), then the
right operand before the left one, then the larger phrase distance; between operands the
larger CRC of the lexeme first (the "legacy" CRC-32: the reflected table with unreflected
code, as a signed int32), then the lexeme bytewise. Weights and prefix flags do not count:
`'a:*'` and `'a'` sort together. Nothing of this follows the text, so ORDER BY a tsquery
needs this key (`expr.userexprs.enum_ordered`).

>>> from cumulo.server.pgtypes.tsearch import query
>>> keys = ["'b' | 'c'", "'a'", "!'a'", "'a' & 'b'", "'z'", "'a' <-> 'b'"]
>>> sorted(keys, key=lambda q: sort_key(query(q)))
["'a'", "'z'", "!'a'", "'a' <-> 'b'", "'b' | 'c'", "'a' & 'b'"]
"""

from __future__ import annotations

import struct
from typing import Any

_OPER = {"!": 1, "&": 2, "|": 3, "<>": 4}


def _reflected_table() -> list[int]:
    out = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        out.append(c)
    return out


_TABLE = _reflected_table()


def legacy_crc32(data: bytes) -> int:
    """PostgreSQL's COMP_LEGACY_CRC32 of `data` (FIN applied), as the signed int32 it stores."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[((crc >> 24) ^ b) & 0xFF] ^ ((crc << 8) & 0xFFFFFFFF)
    crc ^= 0xFFFFFFFF
    return crc - (1 << 32) if crc >= 1 << 31 else crc


def _count(q: Any) -> tuple[int, int]:
    """(nodes, sum of operand lengths + 1 each): what decides a tsquery's stored size."""
    if q[0] == "v":
        return 1, len(q[1].encode()) + 1
    n, s = 1, 0
    for child in q[1:3] if q[0] != "!" else q[1:2]:
        cn, cs = _count(child)
        n, s = n + cn, s + cs
    return n, s


def _node(q: Any, out: list[bytes]) -> None:
    if q[0] == "v":
        word = q[1].encode()
        out.append(b"\x01" + struct.pack("!I", 0x7FFFFFFF - legacy_crc32(word))
                   + word.replace(b"\x00", b"\x00\x01") + b"\x00\x00")
        return
    if q[0] == "!":
        out.append(bytes((0, 255 - _OPER["!"], 254)))
        _node(q[1], out)
        return
    out.append(bytes((0, 255 - _OPER[q[0]], 253)))
    _node(q[2], out)  # NB: QT2QTN's first child is the right operand
    _node(q[1], out)
    out.append(struct.pack("!H", 0xFFFF - (q[3] if q[0] == "<>" else 0)))


def sort_key(q: Any) -> bytes:
    """The btree key of a parsed tsquery (`tsearch.query`; None: the empty query)."""
    if q is None:
        return b"\x00" * 8
    n, s = _count(q)
    out = [struct.pack("!II", n, s)]
    _node(q, out)
    return b"".join(out)
