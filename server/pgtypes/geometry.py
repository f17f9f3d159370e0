"""The geometric types' input, output and binary formats: point, lseg, box, line, circle, path, polygon.

Values are their canonical text (`str`), as PostgreSQL's output functions
print them, with each coordinate in float8's shortest form: `(1.5,2)`,
`[(1,2),(3,4)]`, a box as its high then low corner `(3,4),(1,2)`, `{A,B,C}`,
`<(1,2),3>`, a closed path or polygon `((1,2),(3,4))` and an open path
`[(1,2),(3,4)]`. Input takes PostgreSQL's looser spellings ('1,2', a box as
any two corners, a line through two points). Binary: float8s in order (a box
high corner first), a path with its closed flag and point count, a polygon
with its point count.

>>> parse(BOX, "(1,2),(3,4)"), parse(LINE, "[(0,0),(1,1)]"), parse(PATH, "(1,2),(3,4)")
('(3,4),(1,2)', '{1,-1,0}', '((1,2),(3,4))')
>>> decode(POINT, encode(POINT, "(1.5,2)"))
'(1.5,2)'
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any

from ..errors import InvalidBinaryRepresentation, InvalidTextRepresentation, SQLError

POINT, LSEG, PATH, BOX, POLYGON, LINE, CIRCLE = 600, 601, 602, 603, 604, 628, 718
NAMES = {POINT: "point", LSEG: "lseg", PATH: "path", BOX: "box", POLYGON: "polygon",
         LINE: "line", CIRCLE: "circle"}
# pg_cast's casts between geometric types, each its target type's conversion function
# (point(box), box(circle), polygon(circle) ...), as (source, target)
CASTS = frozenset({
    (POINT, BOX), (LSEG, POINT), (PATH, POLYGON), (BOX, POINT), (BOX, LSEG), (BOX, POLYGON),
    (BOX, CIRCLE), (POLYGON, POINT), (POLYGON, PATH), (POLYGON, BOX), (POLYGON, CIRCLE),
    (CIRCLE, POINT), (CIRCLE, BOX), (CIRCLE, POLYGON)})
_NUM = re.compile(r"[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan)", re.I)
_D = struct.Struct("!d")
_I = struct.Struct("!i")


def _bad(oid: int, s: str) -> SQLError:
    return InvalidTextRepresentation(f'invalid input syntax for type {NAMES[oid]}: "{s}"')


_FLOAT8: list[Callable[[float], str]] = [repr]  # float8out, installed by text.py (`use_float8`)


def use_float8(out: Callable[[float], str]) -> None:
    """Installs float8's output function (text.py owns it; it imports this module)."""
    _FLOAT8[0] = out


def _fmt(x: float) -> str:
    return _FLOAT8[0](x)


def float8_text(x: float) -> str:
    """float8's output of one coordinate (for the geometric functions' results)."""
    return _FLOAT8[0](x)


def _nums(oid: int, s: str) -> list[float]:
    rest = _NUM.sub("", s)
    if any(c not in "()[]{}<>, \t\n" for c in rest):
        raise _bad(oid, s)
    return [float(m) for m in _NUM.findall(s)]


def _pt(x: float, y: float) -> str:
    return f"({_fmt(x)},{_fmt(y)})"


def _pts(v: list[float]) -> str:
    return ",".join(_pt(v[i], v[i + 1]) for i in range(0, len(v), 2))


def _lt(a: float, b: float) -> bool:
    """float8_lt: NaN sorts above every number."""
    return not math.isnan(a) and (math.isnan(b) or a < b)


def _box(x1: float, y1: float, x2: float, y2: float) -> str:
    """box_in / box_recv: the first corner, swapped per axis where it is the lower (float8_lt)."""
    if _lt(x1, x2):
        x1, x2 = x2, x1
    if _lt(y1, y2):
        y1, y2 = y2, y1
    return f"{_pt(x1, y1)},{_pt(x2, y2)}"


def parse(oid: int, s: str) -> str:
    """The type's input function: any accepted spelling -> the canonical text."""
    v = _nums(oid, s)
    t = s.strip()
    if oid == POINT:
        if len(v) != 2:
            raise _bad(oid, s)
        return _pt(*v)
    if oid == LSEG:
        if len(v) != 4:
            raise _bad(oid, s)
        return f"[{_pts(v)}]"
    if oid == BOX:
        if len(v) != 4:
            raise _bad(oid, s)
        x1, y1, x2, y2 = v
        return _box(x1, y1, x2, y2)
    if oid == CIRCLE:
        if len(v) != 3:
            raise _bad(oid, s)
        if v[2] < 0:
            raise InvalidTextRepresentation(f'invalid input syntax for type circle: "{s}"')
        return f"<{_pt(v[0], v[1])},{_fmt(v[2])}>"
    if oid == LINE:
        if t.startswith("{") and len(v) == 3:
            a, b, c = v
        elif len(v) == 4:
            x1, y1, x2, y2 = v
            if x1 == x2 and y1 == y2:
                raise InvalidTextRepresentation("invalid line specification: must be two distinct points")
            if x1 == x2:
                a, b, c = -1.0, 0.0, x1
            else:
                m = (y2 - y1) / (x2 - x1)
                a, b, c = m, -1.0, y1 - m * x1
        else:
            raise _bad(oid, s)
        if abs(a) <= 1e-06 and abs(b) <= 1e-06:  # NB: FPzero, as line_in tests them
            raise InvalidTextRepresentation("invalid line specification: A and B cannot both be zero")
        return "{" + ",".join(_fmt(x) for x in (a, b, c)) + "}"
    if len(v) < 2 or len(v) % 2:
        raise _bad(oid, s)
    if oid == PATH and t.startswith("["):
        return f"[{_pts(v)}]"
    return f"({_pts(v)})"


def encode(oid: int, text: str) -> bytes:
    """The send function: the canonical text's numbers as float8s, with the path/polygon heads."""
    v = [float(m) for m in _NUM.findall(text)]
    body = b"".join(_D.pack(x) for x in v)
    if oid == PATH:
        return bytes((0 if text.startswith("[") else 1,)) + _I.pack(len(v) // 2) + body
    if oid == POLYGON:
        return _I.pack(len(v) // 2) + body
    return body


def decode(oid: int, b: bytes) -> str:
    """The receive function."""
    try:
        if oid == PATH:
            closed, (n,) = b[0], _I.unpack_from(b, 1)
            v = [_D.unpack_from(b, 5 + 8 * i)[0] for i in range(2 * n)]
            return f"({_pts(v)})" if closed else f"[{_pts(v)}]"
        if oid == POLYGON:
            (n,) = _I.unpack_from(b)
            return f"({_pts([_D.unpack_from(b, 4 + 8 * i)[0] for i in range(2 * n)])})"
        v = [_D.unpack_from(b, 8 * i)[0] for i in range(len(b) // 8)]
    except (struct.error, IndexError):
        raise InvalidBinaryRepresentation("insufficient data left in message") from None
    if oid == POINT:
        return _pt(*v)
    if oid == LSEG:
        return f"[{_pts(v)}]"
    if oid == BOX:  # box_recv puts the high corner first, as box_in does
        return _box(*v)
    if oid == CIRCLE:
        return f"<{_pt(v[0], v[1])},{_fmt(v[2])}>"
    return "{" + ",".join(_fmt(x) for x in v) + "}"


def codecs() -> dict[int, tuple[Callable[[Any], bytes], Callable[[bytes], str]]]:
    """The binary codec of each geometric type."""
    out: dict[int, tuple[Callable[[Any], bytes], Callable[[bytes], str]]] = {}
    for oid in NAMES:
        def enc(v: Any, oid: int = oid) -> bytes:
            return encode(oid, v)

        def dec(b: bytes, oid: int = oid) -> str:
            return decode(oid, b)

        out[oid] = (enc, dec)
    return out


def text_input(oid: int) -> Callable[[str], str]:
    return lambda s: parse(oid, s)
