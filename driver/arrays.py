"""Arrays on the wire: Python lists <-> PostgreSQL arrays, text and binary.

Binary layout: ndim, has-nulls flag, element OID, then (length, lower bound)
per dimension, then each element as length + bytes (-1 for NULL), in
row-major order. Lists are sent binary when every element has a binary
encoder of one type (ints are widened to the smallest type that holds them
all); otherwise as a text literal `{...}`. Element codecs come from
`driver/types.py`, looked up at call time (the two modules import each other).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from cumulo.driver import types as t
from cumulo.driver.errors import DataError

# array type oid -> element type oid
ARRAY_ELEMENTS: dict[int, int] = {
    1000: t.BOOL, 1001: t.BYTEA, 1002: t.CHAR, 1003: t.NAME, 1005: t.INT2, 1007: t.INT4,
    1009: t.TEXT, 1014: t.BPCHAR, 1015: t.VARCHAR, 1016: t.INT8, 1021: t.FLOAT4,
    1022: t.FLOAT8, 1028: t.OID, 1115: t.TIMESTAMP, 1182: t.DATE, 1183: t.TIME,
    1185: t.TIMESTAMPTZ, 1187: t.INTERVAL, 1231: t.NUMERIC, 1270: t.TIMETZ, 2951: t.UUID,
    199: t.JSON, 3807: t.JSONB, 2211: t.REGTYPE, 2210: t.REGCLASS,
}
ARRAY_OF: dict[int, int] = {elem: arr for arr, elem in ARRAY_ELEMENTS.items()}
TEXT_ARRAY = 1009

_iiI = struct.Struct("!iiI")
_ii = struct.Struct("!ii")
_i = struct.Struct("!i")


def _reshape(flat: list, dims: list[int]) -> list:
    for n in reversed(dims[1:]):
        flat = [flat[k : k + n] for k in range(0, len(flat), n)]
    return flat


def binary_array_decoder(oid: int) -> t.Decoder | None:
    """Returns a decoder for binary arrays of type `oid`, or None if the element is unknown."""
    elem_oid = ARRAY_ELEMENTS.get(oid)
    if elem_oid is None or elem_oid not in t.BINARY_DECODERS:
        return None
    dec = t.BINARY_DECODERS[elem_oid]

    def decode(b: bytes) -> list:
        ndim, _flags, _elem = _iiI.unpack_from(b)
        if ndim == 0:
            return []
        dims = [_ii.unpack_from(b, 12 + 8 * k)[0] for k in range(ndim)]
        pos = 12 + 8 * ndim
        flat: list[object] = []
        for _ in range(_count(dims)):
            (n,) = _i.unpack_from(b, pos)
            pos += 4
            if n < 0:
                flat.append(None)
            else:
                flat.append(dec(b[pos : pos + n]))
                pos += n
        return _reshape(flat, dims)

    return decode


def _count(dims: list[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def text_array_decoder(oid: int) -> t.Decoder | None:
    """Returns a decoder for text arrays of type `oid` (unknown elements stay str)."""
    elem_oid = ARRAY_ELEMENTS.get(oid)
    if elem_oid is None:
        return None
    dec = t.TEXT_DECODERS.get(elem_oid, t._text)
    return lambda b: parse_text_array(b.decode(), dec)


def parse_text_array(s: str, dec: t.Decoder) -> list:
    """Parses an array literal such as `{1,NULL,"a b",{2}}`."""
    if s.startswith("["):  # explicit bounds: [0:1]={...}
        s = s[s.index("=") + 1 :]
    pos = 0
    stack: list[list] = []
    result: list = []
    n = len(s)
    while pos < n:
        c = s[pos]
        if c == "{":
            stack.append([])
            pos += 1
        elif c == "}":
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                result = done
            pos += 1
        elif c == ",":
            pos += 1
        elif c == '"':
            pos += 1
            buf = []
            while s[pos] != '"':
                if s[pos] == "\\":
                    pos += 1
                buf.append(s[pos])
                pos += 1
            pos += 1
            stack[-1].append(dec("".join(buf).encode()))
        else:
            end = pos
            while s[end] not in ",}":
                end += 1
            tok = s[pos:end].strip()
            stack[-1].append(None if tok == "NULL" else dec(tok.encode()))
            pos = end
    return result


def _flatten(value: Sequence, depth: int, dims: list[int], flat: list) -> None:
    if depth == len(dims):
        dims.append(len(value))
    elif dims[depth] != len(value):
        raise DataError("multidimensional arrays must have sub-arrays of the same size")
    for v in value:
        if isinstance(v, list | tuple):
            _flatten(v, depth + 1, dims, flat)
        else:
            if len(dims) > depth + 1:
                raise DataError("multidimensional arrays must have sub-arrays of the same size")
            flat.append(v)


def encode_array(value: Sequence) -> t.Encoded:
    """Encodes a (possibly nested) list as an array parameter."""
    dims: list[int] = []
    flat: list = []
    _flatten(value, 0, dims, flat)
    items = [v for v in flat if v is not None]
    if not items:
        return 0, 0, _text_literal(flat, dims) if flat else b"{}"
    if all(type(v) is int for v in items):
        lo, hi = min(items), max(items)
        if t.INT4_MIN <= lo and hi <= t.INT4_MAX:
            elem, pack = t.INT4, t._i.pack
        elif t.INT8_MIN <= lo and hi <= t.INT8_MAX:
            elem, pack = t.INT8, t._q.pack
        else:
            return ARRAY_OF[t.NUMERIC], 0, _text_literal(flat, dims)
        encoded = [None if v is None else pack(v) for v in flat]
    else:
        encs = [None if v is None else t.encode(v) for v in flat]
        kinds = {(e[0], e[1]) for e in encs if e is not None}
        if len(kinds) != 1:
            raise DataError(f"array elements of mixed types: {sorted(kinds)}")
        ((elem, fmt),) = kinds
        if elem == 0:
            elem = t.TEXT  # str elements: text[], sent binary (the bytes are the same)
        if fmt == 0 and elem != t.TEXT or elem not in ARRAY_OF:
            return ARRAY_OF.get(elem, 0), 0, _text_literal(flat, dims)
        encoded = [None if e is None else e[2] for e in encs]
    parts = [_iiI.pack(len(dims), int(None in encoded), elem)]
    parts += [_ii.pack(d, 1) for d in dims]
    for b in encoded:
        parts.append(b"\xff\xff\xff\xff" if b is None else _i.pack(len(b)) + b)
    return ARRAY_OF[elem], 1, b"".join(parts)


def _quote(v: object) -> str:
    if v is None:
        return "NULL"
    s = str(v)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_literal(value: Sequence) -> bytes:
    """Returns the `{...}` literal of a (possibly nested) list."""
    dims: list[int] = []
    flat: list = []
    _flatten(value, 0, dims, flat)
    return _text_literal(flat, dims)


def _text_literal(flat: list, dims: list[int]) -> bytes:
    items = [_quote(v) for v in flat]
    for n in reversed(dims):
        items = ["{" + ",".join(items[k : k + n]) + "}" for k in range(0, len(items), n)]
    return items[0].encode()
