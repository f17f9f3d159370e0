"""bit(n) and bit varying(n): values as strings of '0' and '1', PostgreSQL's text form.

Binary format (bit_send): the bit count as int32, then the bits packed
most-significant first, the last byte zero-padded. An explicit cast to bit(n)
pads with zeros or truncates; to bit varying(n) it truncates.

>>> parse_bit("x1F"), encode_bit("101"), decode_bit(b"\\x00\\x00\\x00\\x03\\xa0")
('00011111', b'\\x00\\x00\\x00\\x03\\xa0', '101')
>>> to_bit(5)("101"), to_varbit(2)("101")
('10100', '10')
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from ..errors import InvalidBinaryRepresentation, InvalidTextRepresentation

BIT, VARBIT = 1560, 1562
_I = struct.Struct("!i")


def parse_bit(s: str) -> str:
    """bit_in: '0101', or with a B / X prefix ('B101', 'x1F')."""
    t = s
    if t[:1] in ("b", "B"):
        t = t[1:]
    elif t[:1] in ("x", "X"):
        try:
            return "".join(f"{int(c, 16):04b}" for c in t[1:])
        except ValueError:
            bad = next(c for c in t[1:] if c not in "0123456789abcdefABCDEF")
            raise InvalidTextRepresentation(f'"{bad}" is not a valid hexadecimal digit') from None
    for c in t:
        if c not in "01":
            raise InvalidTextRepresentation(f'"{c}" is not a valid binary digit')
    return t


def encode_bit(v: str) -> bytes:
    n = len(v)
    padded = v + "0" * (-n % 8)
    return _I.pack(n) + bytes(int(padded[i:i + 8], 2) for i in range(0, len(padded), 8))


def decode_bit(b: bytes) -> str:
    if len(b) < 4:
        raise InvalidBinaryRepresentation("insufficient data left in message")
    (n,) = _I.unpack_from(b)
    if n < 0 or len(b) - 4 != (n + 7) // 8:
        raise InvalidBinaryRepresentation("invalid length in external bit string")
    return "".join(f"{x:08b}" for x in b[4:])[:n]


def to_bit(n: int) -> Callable[[str], str]:
    """An explicit cast to bit(n): zero-padded on the right, or truncated."""
    return lambda v: (str(v) + "0" * n)[:n]


def to_varbit(n: int) -> Callable[[str], str]:
    """A cast to bit varying(n): truncated to n bits."""
    return lambda v: str(v)[:n]


def hex_literal(h: str) -> str:
    """X'1F' as a bit string."""
    return parse_bit("x" + h)
