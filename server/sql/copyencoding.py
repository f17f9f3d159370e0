"""COPY FROM input checked for its encoding as PostgreSQL does: 22021 with the line.

PostgreSQL verifies COPY data before it splits fields: a NUL byte or a malformed
UTF-8 sequence fails with `invalid byte sequence for encoding "UTF8": 0x00` and
`CONTEXT: COPY t, line 3`. In text format an escape that makes a NUL (`\\0`,
`\\x00`, `\\000`) fails the same way, with the line's text in the CONTEXT. Python
decodes both happily into strings PostgreSQL could never hold, so they are checked here.

>>> decode_block(b"a\\tb\\nc\\td", "t", 0)
'a\\tb\\nc\\td'
>>> try:
...     decode_block(b"ok\\n\\xff", "t", 4)
... except SQLError as e:
...     print(e.sqlstate, e.message, "|", e.where)
22021 invalid byte sequence for encoding "UTF8": 0xff | COPY t, line 6
>>> try:
...     check_escaped_nul(["a\\\\\\\\0", "x\\\\x00y,1"], "t", 0)
... except SQLError as e:
...     print(e.message, "|", e.where)
invalid byte sequence for encoding "UTF8": 0x00 | COPY t, line 2: "x\\x00y,1"
"""

from __future__ import annotations

import re

from ..errors import SQLError
from ..pgtypes.utf8check import decode_utf8
from .copycontext import line_context

# NB: as copy._ESC: `\\` first, so an escaped backslash before a 0 is not a NUL
_ESC = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)")


def decode_block(buf: bytes, table: str, lines_before: int) -> str:
    """Decodes a block of COPY input whose first line is line `lines_before + 1`."""
    try:
        return decode_utf8(buf)
    except SQLError as e:
        line = lines_before + buf.count(b"\n", 0, _first_bad(buf)) + 1
        e.where = f"COPY {table}, line {line}"
        raise


def _first_bad(buf: bytes) -> int:
    nul = buf.find(0)
    try:
        buf.decode()
        return nul
    except UnicodeDecodeError as u:
        return u.start if nul < 0 else min(nul, u.start)


def _makes_nul(m: re.Match[str]) -> bool:
    s = m.group(1)
    if s[0] == "x":
        return len(s) > 1 and int(s[1:], 16) == 0
    return s[0] in "01234567" and int(s, 8) == 0


def check_escaped_nul(lines: list[str], table: str, lines_before: int) -> None:
    """Raises 22021 for the first text-format line with an escape that makes a NUL."""
    for i, line in enumerate(lines):
        if "\\" in line and any(_makes_nul(m) for m in _ESC.finditer(line)):
            raise SQLError('invalid byte sequence for encoding "UTF8": 0x00', sqlstate="22021",
                           where=line_context(table, lines_before + i + 1, line))
