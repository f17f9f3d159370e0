"""pg_lsn: a write-ahead log position, 64 bits written as two hex halves ("16/B374D848").

A value is its canonical text (upper-case hex, no leading zeros), so its text output is the
value itself, as for the other system types of `extcodecs`; a `Lsn` orders by position, as
pg_lsn_cmp does: '9/0' < '10/0', which text order has the other way round.

>>> parse_lsn("16/b374d848"), parse_lsn("9/0") < parse_lsn("10/0"), "9/0" < "10/0"
('16/B374D848', True, False)
>>> send_lsn(parse_lsn("16/B374D848")).hex(), recv_lsn(bytes.fromhex("00000016b374d848"))
('00000016b374d848', '16/B374D848')
"""

from __future__ import annotations

import re
import struct
from typing import Any

from ..errors import InvalidBinaryRepresentation, InvalidTextRepresentation

PG_LSN = 3220
# pg_lsn_in_internal: 1 to 8 hex digits, '/', 1 to 8 hex digits, nothing else (no blanks)
_TEXT = re.compile(r"([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})")
_U64 = struct.Struct("!Q")


class Lsn(str):
    """A pg_lsn value: its canonical text, ordered by the position it names."""

    __slots__ = ()

    @property
    def position(self) -> int:
        hi, lo = self.split("/")
        return int(hi, 16) << 32 | int(lo, 16)

    def __lt__(self, other: object) -> bool:
        return self.position < _position(other)

    def __le__(self, other: object) -> bool:
        return self.position <= _position(other)

    def __gt__(self, other: object) -> bool:
        return self.position > _position(other)

    def __ge__(self, other: object) -> bool:
        return self.position >= _position(other)

    __eq__ = str.__eq__  # NB: canonical text, so equal text is an equal position
    __hash__ = str.__hash__


def _position(v: Any) -> int:
    return (v if isinstance(v, Lsn) else parse_lsn(str(v))).position


def of_position(pos: int) -> Lsn:
    """The pg_lsn of a 64-bit position."""
    return Lsn(f"{pos >> 32:X}/{pos & 0xFFFFFFFF:X}")


def parse_lsn(s: str) -> Lsn:
    """pg_lsn_in: 22P02 for anything but two hex halves."""
    m = _TEXT.fullmatch(s)
    if m is None:
        raise InvalidTextRepresentation(f'invalid input syntax for type pg_lsn: "{s}"')
    return of_position(int(m.group(1), 16) << 32 | int(m.group(2), 16))


def send_lsn(v: Any) -> bytes:
    """pg_lsn_send: the position as an unsigned 64-bit integer."""
    return _U64.pack(_position(v))


def recv_lsn(b: bytes) -> Lsn:
    if len(b) != 8:
        raise InvalidBinaryRepresentation("insufficient data left in message")
    return of_position(_U64.unpack(b)[0])
