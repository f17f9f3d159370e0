"""Range values (int4range, int8range, numrange, daterange, tsrange, tstzrange): PostgreSQL's rangetypes.c.

A `Range` carries its range type's OID, its two bounds (None when infinite)
and PostgreSQL's flag byte (the same bits its binary format sends), so that a
value is self-describing wherever it travels: output, casts to text, storage.
Discrete ranges (integers, dates) are kept canonical, `[lower, upper)`, as
PostgreSQL's canonical functions make them; equality, hashing and ordering
then follow from the fields.

Ordering is range_cmp's: the empty range first, then by lower bound, then by
upper bound, where an infinite lower bound is below everything and an
exclusive lower bound is above an inclusive one at the same value.

>>> r = make(INT4RANGE, 1, 5, "(]")
>>> r, str(r)
(Range(3904, '[2,6)'), '[2,6)')
>>> contains_elem(r, 5), overlaps(r, make(INT4RANGE, 6, 9)), adjacent(r, make(INT4RANGE, 6, 9))
(True, False, True)
>>> union(r, make(INT4RANGE, 6, 9)), intersect(r, make(INT4RANGE, 3, 4, "[]"))
(Range(3904, '[2,9)'), Range(3904, '[3,5)'))
>>> make(INT4RANGE, 3, 3), make(INT4RANGE, 3, 3) < make(INT4RANGE, None, 0)
(Range(3904, 'empty'), True)
"""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Callable
from typing import Any

from ..errors import (
    DataException,
    InvalidBinaryRepresentation,
    InvalidTextRepresentation,
    NumericValueOutOfRange,
    SQLError,
)
from .infdate import InfiniteDate

INT4RANGE, NUMRANGE, TSRANGE, TSTZRANGE, DATERANGE, INT8RANGE = 3904, 3906, 3908, 3910, 3912, 3926
INT4, INT8, NUMERIC, DATE, TIMESTAMP, TIMESTAMPTZ = 23, 20, 1700, 1082, 1114, 1184

# range type OID -> (subtype OID, name, array OID, multirange OID, multirange array OID)
RANGE_TYPES: dict[int, tuple[int, str, int, int, int]] = {
    INT4RANGE: (INT4, "int4range", 3905, 4451, 6150),
    NUMRANGE: (NUMERIC, "numrange", 3907, 4532, 6151),
    TSRANGE: (TIMESTAMP, "tsrange", 3909, 4533, 6152),
    TSTZRANGE: (TIMESTAMPTZ, "tstzrange", 3911, 4534, 6153),
    DATERANGE: (DATE, "daterange", 3913, 4535, 6155),
    INT8RANGE: (INT8, "int8range", 3927, 4536, 6157),
}
SUBTYPE = {oid: facts[0] for oid, facts in RANGE_TYPES.items()}

EMPTY, LB_INC, UB_INC, LB_INF, UB_INF = 0x01, 0x02, 0x04, 0x08, 0x10

_INT_LIMITS = {INT4: 2**31 - 1, INT8: 2**63 - 1}


class Range:
    """One range value; immutable, hashable, ordered as PostgreSQL orders ranges."""

    __slots__ = ("oid", "lower", "upper", "flags")

    def __init__(self, oid: int, lower: Any, upper: Any, flags: int) -> None:
        self.oid, self.lower, self.upper, self.flags = oid, lower, upper, flags

    @property
    def empty(self) -> bool:
        return bool(self.flags & EMPTY)

    def _key(self) -> tuple[Any, ...]:
        return (self.flags, self.lower, self.upper)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Range) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Range) -> bool:
        return compare(self, other) < 0

    def __le__(self, other: Range) -> bool:
        return compare(self, other) <= 0

    def __gt__(self, other: Range) -> bool:
        return compare(self, other) > 0

    def __ge__(self, other: Range) -> bool:
        return compare(self, other) >= 0

    def __repr__(self) -> str:
        return f"Range({self.oid}, {format_range(self, str)!r})"

    def __str__(self) -> str:
        return format_range(self, str)


def empty_range(oid: int) -> Range:
    return Range(oid, None, None, EMPTY)


# -- bounds: (value, infinite, inclusive, is_lower) -----------------------------------------


def _lower(r: Range) -> tuple[Any, bool, bool, bool]:
    return r.lower, bool(r.flags & LB_INF), bool(r.flags & LB_INC), True


def _upper(r: Range) -> tuple[Any, bool, bool, bool]:
    return r.upper, bool(r.flags & UB_INF), bool(r.flags & UB_INC), False


def _cmp(a: Any, b: Any) -> int:
    return -1 if a < b else 1 if a > b else 0


def cmp_bounds(b1: tuple[Any, bool, bool, bool], b2: tuple[Any, bool, bool, bool]) -> int:
    """PostgreSQL's range_cmp_bounds: orders two bounds, lower or upper, of one range type."""
    v1, inf1, inc1, low1 = b1
    v2, inf2, inc2, low2 = b2
    if inf1 and inf2:
        return 0 if low1 == low2 else (-1 if low1 else 1)
    if inf1:
        return -1 if low1 else 1
    if inf2:
        return 1 if low2 else -1
    c = _cmp(v1, v2)
    if c:
        return c
    if not inc1 and not inc2:
        return 0 if low1 == low2 else (1 if low1 else -1)
    if not inc1:
        return 1 if low1 else -1
    if not inc2:
        return -1 if low2 else 1
    return 0


def compare(a: Range, b: Range) -> int:
    """range_cmp: empty first, then by lower bound, then by upper bound."""
    if a.empty or b.empty:
        return 0 if a.empty and b.empty else (-1 if a.empty else 1)
    return cmp_bounds(_lower(a), _lower(b)) or cmp_bounds(_upper(a), _upper(b))


# -- construction ----------------------------------------------------------------------------


def _step(sub: int, v: Any) -> Any:
    """The next value of a discrete subtype (int4, int8, date), with its overflow error."""
    if sub == DATE:
        try:
            return v + dt.timedelta(days=1)
        except OverflowError:
            raise SQLError("date out of range", sqlstate="22008") from None
    if v + 1 > _INT_LIMITS[sub]:
        raise NumericValueOutOfRange("integer out of range" if sub == INT4 else "bigint out of range")
    return v + 1


def _serialize(oid: int, lo: tuple[Any, bool, bool, bool], hi: tuple[Any, bool, bool, bool]) -> Range:
    """range_serialize: checks the bounds' order and detects the empty range."""
    lv, linf, linc, _ = lo
    uv, uinf, uinc, _ = hi
    if not linf and not uinf:
        c = _cmp(lv, uv)
        if c > 0:
            raise DataException("range lower bound must be less than or equal to range upper bound")
        if c == 0 and not (linc and uinc):
            return empty_range(oid)
    flags = (LB_INF if linf else LB_INC if linc else 0) | (UB_INF if uinf else UB_INC if uinc else 0)
    return Range(oid, None if linf else lv, None if uinf else uv, flags)


def from_bounds(oid: int, lo: tuple[Any, bool, bool, bool], hi: tuple[Any, bool, bool, bool]) -> Range:
    """make_range: serialises the bounds, then applies the type's canonical function."""
    r = _serialize(oid, lo, hi)
    sub = SUBTYPE[oid]
    if r.empty or sub not in (INT4, INT8, DATE):
        return r
    lv, linf, linc, _ = _lower(r)
    uv, uinf, uinc, _ = _upper(r)
    # NB: daterange_canonical leaves a bound at date -infinity/infinity as written:
    # '(-infinity,2000-01-01]' is (-infinity,2000-01-02)
    if not linf and not linc and not isinstance(lv, InfiniteDate):
        lv, linc = _step(sub, lv), True
    if not uinf and uinc and not isinstance(uv, InfiniteDate):
        uv, uinc = _step(sub, uv), False
    return _serialize(oid, (lv, linf, linc, True), (uv, uinf, uinc, False))


_FLAGS = {"[]": (True, True), "[)": (True, False), "(]": (False, True), "()": (False, False)}


def make(oid: int, lower: Any, upper: Any, flags: str = "[)") -> Range:
    """The constructor functions: int4range(1, 5, '[]'); a NULL bound is infinite."""
    inc = _FLAGS.get(flags)
    if inc is None:
        raise SQLError("invalid range bound flags", sqlstate="42601",
                       hint='Valid values are "[]", "[)", "(]", and "()".')
    return from_bounds(oid, (lower, lower is None, inc[0], True), (upper, upper is None, inc[1], False))


# -- operators -------------------------------------------------------------------------------


def contains_elem(r: Range, v: Any) -> bool:
    """range @> element."""
    if r.empty:
        return False
    if not r.flags & LB_INF:
        c = _cmp(r.lower, v)
        if c > 0 or (c == 0 and not r.flags & LB_INC):
            return False
    if not r.flags & UB_INF:
        c = _cmp(r.upper, v)
        if c < 0 or (c == 0 and not r.flags & UB_INC):
            return False
    return True


def contains(a: Range, b: Range) -> bool:
    """range @> range."""
    if b.empty:
        return True
    if a.empty:
        return False
    return cmp_bounds(_lower(a), _lower(b)) <= 0 and cmp_bounds(_upper(a), _upper(b)) >= 0


def overlaps(a: Range, b: Range) -> bool:
    """range && range."""
    if a.empty or b.empty:
        return False
    la, ua, lb, ub = _lower(a), _upper(a), _lower(b), _upper(b)
    if cmp_bounds(la, lb) >= 0 and cmp_bounds(la, ub) <= 0:
        return True
    return cmp_bounds(lb, la) >= 0 and cmp_bounds(lb, ua) <= 0


def before(a: Range, b: Range) -> bool:
    """range << range: a ends before b starts."""
    return not (a.empty or b.empty) and cmp_bounds(_upper(a), _lower(b)) < 0


def after(a: Range, b: Range) -> bool:
    """range >> range."""
    return not (a.empty or b.empty) and cmp_bounds(_lower(a), _upper(b)) > 0


def overleft(a: Range, b: Range) -> bool:
    """range &< range: a does not extend to the right of b."""
    return not (a.empty or b.empty) and cmp_bounds(_upper(a), _upper(b)) <= 0


def overright(a: Range, b: Range) -> bool:
    """range &> range: a does not extend to the left of b."""
    return not (a.empty or b.empty) and cmp_bounds(_lower(a), _lower(b)) >= 0


def _bounds_adjacent(oid: int, up: tuple[Any, bool, bool, bool], lo: tuple[Any, bool, bool, bool]) -> bool:
    if up[1] or lo[1]:
        return False
    c = _cmp(up[0], lo[0])
    if c == 0:
        return up[2] != lo[2]
    if c < 0 and SUBTYPE[oid] in (INT4, INT8, DATE):  # nothing discrete lies between them
        return from_bounds(oid, (up[0], False, not up[2], True), (lo[0], False, not lo[2], False)).empty
    return False


def adjacent(a: Range, b: Range) -> bool:
    """range -|- range."""
    if a.empty or b.empty:
        return False
    return (_bounds_adjacent(a.oid, _upper(a), _lower(b))
            or _bounds_adjacent(a.oid, _upper(b), _lower(a)))


def merge(a: Range, b: Range, strict: bool = True) -> Range:
    """range + range (strict: 22000 unless they touch) and range_merge (the smallest cover)."""
    if a.empty:
        return b
    if b.empty:
        return a
    if strict and not overlaps(a, b) and not adjacent(a, b):
        raise DataException("result of range union would not be contiguous")
    lo = min(_lower(a), _lower(b), key=_BoundKey)
    hi = max(_upper(a), _upper(b), key=_BoundKey)
    return from_bounds(a.oid, lo, hi)


def union(a: Range, b: Range) -> Range:
    return merge(a, b, True)


def intersect(a: Range, b: Range) -> Range:
    """range * range."""
    if a.empty or b.empty or not overlaps(a, b):
        return empty_range(a.oid)
    lo = max(_lower(a), _lower(b), key=_BoundKey)
    hi = min(_upper(a), _upper(b), key=_BoundKey)
    return from_bounds(a.oid, lo, hi)


def minus(a: Range, b: Range) -> Range:
    """range - range (range_minus)."""
    if a.empty or b.empty:
        return a
    l1, u1, l2, u2 = _lower(a), _upper(a), _lower(b), _upper(b)
    c_l1l2, c_l1u2 = cmp_bounds(l1, l2), cmp_bounds(l1, u2)
    c_u1l2, c_u1u2 = cmp_bounds(u1, l2), cmp_bounds(u1, u2)
    if c_l1l2 < 0 and c_u1u2 > 0:
        raise DataException("result of range difference would not be contiguous")
    if c_l1u2 > 0 or c_u1l2 < 0:
        return a
    if c_l1l2 >= 0 and c_u1u2 <= 0:
        return empty_range(a.oid)
    if c_l1l2 <= 0 and c_u1l2 >= 0 and c_u1u2 <= 0:
        return from_bounds(a.oid, l1, (l2[0], l2[1], not l2[2], False))
    return from_bounds(a.oid, (u2[0], u2[1], not u2[2], True), u1)


class _BoundKey:
    """Orders bounds with cmp_bounds, for min() and max()."""

    __slots__ = ("b",)

    def __init__(self, b: tuple[Any, bool, bool, bool]) -> None:
        self.b = b

    def __lt__(self, other: _BoundKey) -> bool:
        return cmp_bounds(self.b, other.b) < 0


def lower(r: Range) -> Any:
    return None if r.flags & (EMPTY | LB_INF) else r.lower


def upper(r: Range) -> Any:
    return None if r.flags & (EMPTY | UB_INF) else r.upper


# -- text ------------------------------------------------------------------------------------

_SPACE = " \t\n\r\v\f"


def _quote_bound(s: str) -> str:
    if s and not any(c in '"\\()[],' or c in _SPACE for c in s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '""') + '"'


def format_range(r: Range, elem: Callable[[Any], str]) -> str:
    """range_out: `empty`, or `[lower,upper)` with each bound in its subtype's text form."""
    if r.empty:
        return "empty"
    f = r.flags
    lo = "" if f & LB_INF else _quote_bound(elem(r.lower))
    hi = "" if f & UB_INF else _quote_bound(elem(r.upper))
    return f"{'[' if f & LB_INC else '('}{lo},{hi}{']' if f & UB_INC else ')'}"


def text_encoder(elem: Callable[[Any], str]) -> Callable[[Range], str]:
    return lambda r: format_range(r, elem)


def _malformed(s: str, detail: str) -> SQLError:
    return InvalidTextRepresentation(f'malformed range literal: "{s}"', detail=detail)


def _bound(s: str, pos: int) -> tuple[str | None, int]:
    """Reads one bound up to `,` `]` `)`; None for an empty (infinite) bound."""
    out: list[str] = []
    quoted = False
    in_quote = False
    n = len(s)
    while pos < n:
        c = s[pos]
        if not in_quote and c in ",])":
            break
        if c == "\\":
            pos += 1
            if pos >= n:
                raise _malformed(s, "Unexpected end of input.")
            out.append(s[pos])
        elif c == '"':
            if in_quote and pos + 1 < n and s[pos + 1] == '"':
                out.append('"')
                pos += 1
            else:
                in_quote = not in_quote
                quoted = True
        else:
            out.append(c)
        pos += 1
    if in_quote:
        raise _malformed(s, "Unexpected end of input.")
    text = "".join(out)
    return (None if not text and not quoted else text), pos


def parse_range(s: str, oid: int, elem: Callable[[str], Any]) -> Range:
    """range_in: `empty`, `[a,b)`, `(,b]`, quoted bounds; discrete types canonicalised."""
    t = s.strip(_SPACE)
    if t.lower() == "empty":
        return empty_range(oid)
    if not t or t[0] not in "[(":
        raise _malformed(s, 'Missing left parenthesis or bracket.')
    linc = t[0] == "["
    lo, pos = _bound(t, 1)
    if pos >= len(t) or t[pos] != ",":
        raise _malformed(s, "Missing comma after lower bound.")
    hi, pos = _bound(t, pos + 1)
    if pos >= len(t) or t[pos] not in "])":
        raise _malformed(s, "Too many commas." if pos < len(t) else "Missing right parenthesis or bracket.")
    uinc = t[pos] == "]"
    if pos + 1 != len(t):
        raise _malformed(s, "Junk after right parenthesis or bracket.")
    lv = None if lo is None else elem(lo)
    uv = None if hi is None else elem(hi)
    return from_bounds(oid, (lv, lo is None, linc and lo is not None, True),
                       (uv, hi is None, uinc and hi is not None, False))


# -- binary ----------------------------------------------------------------------------------

_LEN = struct.Struct("!i")


def binary_encoder(elem: Callable[[Any], bytes]) -> Callable[[Range], bytes]:
    """range_send: the flag byte, then each finite bound as int32 length + subtype bytes."""

    def enc(r: Range) -> bytes:
        out = [bytes((r.flags,))]
        if not r.flags & (EMPTY | LB_INF):
            b = elem(r.lower)
            out += [_LEN.pack(len(b)), b]
        if not r.flags & (EMPTY | UB_INF):
            b = elem(r.upper)
            out += [_LEN.pack(len(b)), b]
        return b"".join(out)

    return enc


def binary_decoder(oid: int, elem: Callable[[bytes], Any]) -> Callable[[bytes], Range]:
    """range_recv (the bounds go through make_range, so discrete ranges come out canonical)."""

    def dec(b: bytes) -> Range:
        if not b:
            raise InvalidBinaryRepresentation("insufficient data left in message")
        flags, pos = b[0], 1
        vals: list[Any] = []
        if flags & EMPTY:
            return empty_range(oid)
        for missing in (flags & LB_INF, flags & UB_INF):
            if missing:
                vals.append(None)
                continue
            (n,) = _LEN.unpack_from(b, pos)
            vals.append(elem(bytes(b[pos + 4:pos + 4 + n])))
            pos += 4 + n
        return from_bounds(oid, (vals[0], bool(flags & LB_INF), bool(flags & LB_INC), True),
                           (vals[1], bool(flags & UB_INF), bool(flags & UB_INC), False))

    return dec

