"""UTF-8 validation as PostgreSQL's pg_verify_mbstr does it, with its error message.

PostgreSQL refuses a NUL byte in any text value (its strings are C strings), which
Python's decoder accepts, so a text parameter `'a\\x00b'` has to be checked apart.
The error names the offending character's bytes: as many as its lead byte says it
has (pg_utf_mblen), cut at the end of the input.

>>> decode_utf8(b"caf\\xc3\\xa9")
'café'
>>> for raw in (b"a\\x00b", b"\\xe9ab", b"a\\xe9", b"\\xff", b"\\xed\\xa0\\x80"):
...     try:
...         decode_utf8(raw)
...     except CharacterNotInRepertoire as e:
...         print(e.sqlstate, e.message)
22021 invalid byte sequence for encoding "UTF8": 0x00
22021 invalid byte sequence for encoding "UTF8": 0xe9 0x61 0x62
22021 invalid byte sequence for encoding "UTF8": 0xe9
22021 invalid byte sequence for encoding "UTF8": 0xff
22021 invalid byte sequence for encoding "UTF8": 0xed 0xa0 0x80
"""

from __future__ import annotations

from ..errors import CharacterNotInRepertoire, SQLError


def _mblen(lead: int) -> int:
    """PostgreSQL's pg_utf_mblen: the length a lead byte announces (1 when it is invalid)."""
    if lead & 0x80 == 0:
        return 1
    if lead & 0xE0 == 0xC0:
        return 2
    if lead & 0xF0 == 0xE0:
        return 3
    if lead & 0xF8 == 0xF0:
        return 4
    return 1


def invalid_sequence(raw: bytes, at: int, encoding: str = "UTF8") -> SQLError:
    """The 22021 error for the character starting at byte `at` of `raw`."""
    bad = raw[at : at + _mblen(raw[at])]
    shown = " ".join(f"0x{c:02x}" for c in bad)
    return CharacterNotInRepertoire(f'invalid byte sequence for encoding "{encoding}": {shown}')


def decode_utf8(raw: bytes | bytearray | memoryview) -> str:
    """Decodes UTF-8 text; a malformed sequence or a NUL byte raises PostgreSQL's 22021."""
    b = bytes(raw)
    try:
        s = b.decode()
    except UnicodeDecodeError as e:
        nul = b.find(0, 0, e.start)
        raise invalid_sequence(b, nul if nul >= 0 else e.start) from None
    if "\x00" in s:
        raise invalid_sequence(b, b.index(0))
    return s
