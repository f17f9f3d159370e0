"""The hstore type (CREATE EXTENSION hstore): input, output and binary formats.

A value is its canonical text (`str`), as hstore_out prints it: every key and
value double-quoted with `"` and `\\` escaped, NULL bare, pairs joined by
", " in hstore's own order (shorter keys first, then by their bytes), one pair
per key. Because the text is canonical, equality, hashing, GROUP BY and
DISTINCT work on the strings as they are; operators and functions read the
pairs back through `pairs` (memoised, as a column repeats the same values).

The input follows hstore_io.c's state machine, with PostgreSQL 15's errors:
its syntax errors are `elog(ERROR)`, hence SQLSTATE XX000, with the byte
position of the offending character. Which of two duplicate keys survives is
unspecified in PostgreSQL; here the first one does.

The OID is the one CREATE EXTENSION gave the type: `OIDS` holds the OIDs of
the hstore types of the catalogs in use (filled by `sql.expr.usertypes`; OIDs
are never reused within one store).

>>> parse('b=>1, a=>NULL, aa=>"x\\\\"y"')
'"a"=>NULL, "b"=>"1", "aa"=>"x\\\\"y"'
>>> pairs(parse('a=>1'))
(('a', '1'),)
>>> decode(encode(parse('k=>v, n=>NULL')))
'"k"=>"v", "n"=>NULL'
"""

from __future__ import annotations

import functools
import json
import re
import struct
from collections.abc import Iterable

from ..errors import InternalError, InvalidBinaryRepresentation, SQLError

OIDS: set[int] = set()  # the hstore type OIDs CREATE EXTENSION made (see the docstring)

Pairs = tuple[tuple[str, str | None], ...]
_I = struct.Struct("!i")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _near(s: str, i: int) -> SQLError:
    pos = len(s[:i].encode())
    return InternalError(f'Syntax error near "{s[i]}" at position {pos}')


def _end() -> SQLError:
    return InternalError("Unexpected end of string")


def _word(s: str, i: int, in_value: bool) -> tuple[str | None, bool, int]:
    """hstore_io.c's get_val: one key or value from position i. Returns (text or None at the
    end of the input, whether it was quoted, the position after it)."""
    n = len(s)
    while i < n and s[i].isspace():
        i += 1
    if i >= n:
        return None, False, i
    out: list[str] = []
    if s[i] == '"':
        i += 1
        while True:
            if i >= n:
                raise _end()
            c = s[i]
            if c == "\\":
                if i + 1 >= n:
                    raise _end()
                out.append(s[i + 1])
                i += 2
            elif c == '"':
                return "".join(out), True, i + 1
            else:
                out.append(c)
                i += 1
    if s[i] == "=" and not in_value:
        raise _near(s, i)
    while i < n:
        c = s[i]
        if c == "\\":
            if i + 1 >= n:
                raise _end()
            out.append(s[i + 1])
            i += 2
            continue
        if (c == "=" and not in_value) or (c == "," and in_value) or c.isspace():
            break
        out.append(c)
        i += 1
    return "".join(out), False, i


def parse_pairs(s: str) -> list[tuple[str, str | None]]:
    """The pairs of an hstore literal, in the order written (duplicates kept)."""
    out: list[tuple[str, str | None]] = []
    n, i = len(s), 0
    while True:
        key, _, i = _word(s, i, False)
        if key is None:
            return out
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            raise _end()
        if s[i] != "=":
            raise _near(s, i)
        i += 1
        if i >= n:
            raise _end()
        if s[i] != ">":
            raise _near(s, i)
        val, quoted, i = _word(s, i + 1, True)
        if val is None:
            raise _end()
        out.append((key, None if not quoted and val.lower() == "null" else val))
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            return out
        if s[i] != ",":
            raise _near(s, i)
        i += 1


def _order(k: str) -> tuple[int, bytes]:
    b = k.encode()
    return len(b), b


def canonical(items: Iterable[tuple[str, str | None]]) -> str:
    """The canonical text of pairs: hstore order, the first of duplicate keys kept."""
    seen: dict[str, str | None] = {}
    for k, v in items:
        seen.setdefault(k, v)
    return ", ".join(f"{_quote(k)}=>{'NULL' if v is None else _quote(v)}"
                     for k, v in sorted(seen.items(), key=lambda p: _order(p[0])))


def merged(items: Iterable[tuple[str, str | None]]) -> str:
    """The canonical text of pairs where a later key replaces an earlier one (`||`)."""
    last: dict[str, str | None] = {}
    for k, v in items:
        last[k] = v
    return canonical(last.items())


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse(s: str) -> str:
    """hstore_in: text -> the canonical text."""
    return canonical(parse_pairs(str(s)))


@functools.lru_cache(maxsize=4096)
def pairs(v: str) -> Pairs:
    """The (key, value) pairs of a canonical hstore, in hstore order."""
    return tuple(parse_pairs(v))


def as_dict(v: str) -> dict[str, str | None]:
    return dict(pairs(v))


def to_json(v: str, loose: bool = False) -> str:
    """hstore_to_json's text: `{"k": "v", "n": null}` (loose: t/f and numbers unquoted)."""
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_json_value(val, loose)}"
                           for k, val in pairs(v)) + "}"


def _json_value(v: str | None, loose: bool) -> str:
    if v is None:
        return "null"
    if loose and v in ("t", "f"):
        return "true" if v == "t" else "false"
    if loose and _NUMBER.fullmatch(v):
        return v
    return json.dumps(v, ensure_ascii=False)


def sort_key(v: str) -> bytes:
    """The order of hstore's btree operator class (hstore_cmp), as bytes that compare alike:
    an empty hstore first, then the concatenated keys and values bytewise (a prefix first),
    then the pair count, then each key's and value's end offset (a NULL value after an
    empty one)."""
    ps = pairs(v)
    buf = b"".join(k.encode() + (val or "").encode() for k, val in ps)
    out = [b"\x01" if ps else b"\x00", buf.replace(b"\x00", b"\x00\x01"), b"\x00\x00",
           _I.pack(len(ps))]
    end = 0
    for k, val in ps:
        end += len(k.encode())
        out.append(_I.pack(end) + b"\x00")
        end += len((val or "").encode())
        out.append(_I.pack(end) + (b"\x01" if val is None else b"\x00"))
    return b"".join(out)


def encode(v: str) -> bytes:
    """hstore_send: the pair count, then each key and value as length-prefixed bytes."""
    ps = pairs(v)
    out = [_I.pack(len(ps))]
    for k, val in ps:
        kb = k.encode()
        out += [_I.pack(len(kb)), kb]
        if val is None:
            out.append(_I.pack(-1))
        else:
            vb = val.encode()
            out += [_I.pack(len(vb)), vb]
    return b"".join(out)


def decode(data: bytes) -> str:
    """hstore_recv: the binary form -> the canonical text (keys may not be NULL)."""
    try:
        (count,) = _I.unpack_from(data, 0)
        pos, items = 4, []
        for _ in range(count):
            (kl,) = _I.unpack_from(data, pos)
            pos += 4
            if kl < 0:
                raise InvalidBinaryRepresentation("null value not allowed for hstore key")
            key = data[pos:pos + kl].decode()
            pos += kl
            (vl,) = _I.unpack_from(data, pos)
            pos += 4
            val = None if vl < 0 else data[pos:pos + vl].decode()
            pos += max(vl, 0)
            items.append((key, val))
    except (struct.error, UnicodeDecodeError) as e:
        raise InvalidBinaryRepresentation("insufficient data left in message") from e
    return canonical(items)
