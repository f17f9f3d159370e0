"""tid values (a row's `ctid`): text and binary I/O as PostgreSQL 15's tid.c.

A tid is its canonical text `(block,offset)`, so its output is the value itself and two
tids are equal when their texts are. Input is tidin's: a block number up to 2**32 - 1
and an offset up to 65535, each possibly preceded by blanks and a plus sign (strtoul's),
each followed at once by its delimiter, else 22P02. The binary form is the block as
uint32 and the offset as uint16, big-endian. Tids order by block, then offset (`sort_key`),
not as their texts: `(10,1)` is above `(9,1)`.

>>> parse_tid("(0,1)"), parse_tid("( 7, +12)"), recv_tid(send_tid("(3,4)"))
('(0,1)', '(7,12)', '(3,4)')
>>> sorted(["(10,1)", "(9,10)", "(9,2)"], key=sort_key)
['(9,2)', '(9,10)', '(10,1)']
>>> parse_tid("(1 ,2)")
Traceback (most recent call last):
...
cumulo.server.errors.InvalidTextRepresentation: invalid input syntax for type tid: "(1 ,2)"
"""

from __future__ import annotations

import re
import struct

from ..errors import InvalidBinaryRepresentation, InvalidTextRepresentation

TID = 27
_TEXT = re.compile(r"\(\s*\+?(\d+),\s*\+?(\d+)\)")
_BINARY = struct.Struct("!IH")


def parse_tid(s: str) -> str:
    """tidin: '(block,offset)' -> its canonical text."""
    m = _TEXT.match(str(s))
    if m is None or not 0 <= int(m.group(1)) <= 0xFFFFFFFF or not 0 <= int(m.group(2)) <= 0xFFFF:
        raise InvalidTextRepresentation(f'invalid input syntax for type tid: "{s}"')
    return f"({int(m.group(1))},{int(m.group(2))})"


def send_tid(v: str) -> bytes:
    block, offset = str(v)[1:-1].split(",")
    return _BINARY.pack(int(block), int(offset))


def recv_tid(b: bytes) -> str:
    if len(b) != _BINARY.size:
        raise InvalidBinaryRepresentation("insufficient data left in message")
    block, offset = _BINARY.unpack(b)
    return f"({block},{offset})"


def sort_key(v: str) -> int:
    """A tid's btree order as one integer: the block, then the offset."""
    block, offset = str(v)[1:-1].split(",")
    return int(block) << 16 | int(offset)
