"""Multirange values (int4multirange, nummultirange, ... datemultirange): PostgreSQL's multirangetypes.c.

A `MultiRange` is its type's OID and a tuple of non-empty, non-overlapping,
non-adjacent ranges in order: the normal form PostgreSQL keeps, so equality,
hashing and ordering follow from the fields. Text is `{[1,3),[5,7)}` (`{}`
when empty); binary is the range count, then each range's length and
range_send bytes.

>>> m = make(INT4MULTIRANGE, [R.make(R.INT4RANGE, 5, 7), R.make(R.INT4RANGE, 1, 3), R.make(R.INT4RANGE, 2, 4)])
>>> str(m), contains_elem(m, 6), str(union(m, make(INT4MULTIRANGE, [R.make(R.INT4RANGE, 4, 5)])))
('{[1,4),[5,7)}', True, '{[1,7)}')
>>> str(minus(make(INT4MULTIRANGE, [R.make(R.INT4RANGE, 1, 10)]), m))
'{[4,5),[7,10)}'
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import InvalidTextRepresentation
from . import ranges as R

INT4MULTIRANGE = 4451
# multirange OID -> range OID
RANGE_OF = {facts[3]: oid for oid, facts in R.RANGE_TYPES.items()}
MULTIRANGE_OF = {r: m for m, r in RANGE_OF.items()}
_I = struct.Struct("!i")


class MultiRange:
    """One multirange value, in normal form; immutable and hashable."""

    __slots__ = ("oid", "ranges")

    def __init__(self, oid: int, ranges: tuple[R.Range, ...]) -> None:
        self.oid, self.ranges = oid, ranges

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiRange) and self.ranges == other.ranges

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.ranges)

    def __lt__(self, other: MultiRange) -> bool:
        return compare(self, other) < 0

    def __le__(self, other: MultiRange) -> bool:
        return compare(self, other) <= 0

    def __gt__(self, other: MultiRange) -> bool:
        return compare(self, other) > 0

    def __ge__(self, other: MultiRange) -> bool:
        return compare(self, other) >= 0

    def __repr__(self) -> str:
        return f"MultiRange({self.oid}, {str(self)!r})"

    def __str__(self) -> str:
        return format_multirange(self, str)


def make(oid: int, ranges: Iterable[R.Range]) -> MultiRange:
    """The normal form: empties dropped, sorted, overlapping or adjacent ranges merged."""
    items = sorted((r for r in ranges if r is not None and not r.empty), key=_SortKey)
    out: list[R.Range] = []
    for r in items:
        if out and (R.overlaps(out[-1], r) or R.adjacent(out[-1], r)):
            out[-1] = R.merge(out[-1], r, False)
        else:
            out.append(r)
    return MultiRange(oid, tuple(out))


class _SortKey:
    __slots__ = ("r",)

    def __init__(self, r: R.Range) -> None:
        self.r = r

    def __lt__(self, other: _SortKey) -> bool:
        return R.compare(self.r, other.r) < 0


def compare(a: MultiRange, b: MultiRange) -> int:
    """multirange_cmp: range by range, then the shorter first."""
    for x, y in zip(a.ranges, b.ranges, strict=False):
        c = R.compare(x, y)
        if c:
            return c
    return (len(a.ranges) > len(b.ranges)) - (len(a.ranges) < len(b.ranges))


def span(m: MultiRange) -> R.Range:
    """range_merge(multirange): the smallest range covering it (empty if it is empty)."""
    rng = RANGE_OF[m.oid]
    if not m.ranges:
        return R.empty_range(rng)
    return R.merge(m.ranges[0], m.ranges[-1], False)


def contains_elem(m: MultiRange, v: Any) -> bool:
    return any(R.contains_elem(r, v) for r in m.ranges)


def contains_range(m: MultiRange, r: R.Range) -> bool:
    return r.empty or any(R.contains(x, r) for x in m.ranges)


def contains(a: MultiRange, b: MultiRange) -> bool:
    return all(contains_range(a, r) for r in b.ranges)


def overlaps_range(m: MultiRange, r: R.Range) -> bool:
    return any(R.overlaps(x, r) for x in m.ranges)


def overlaps(a: MultiRange, b: MultiRange) -> bool:
    return any(overlaps_range(a, r) for r in b.ranges)


def union(a: MultiRange, b: MultiRange) -> MultiRange:
    return make(a.oid, a.ranges + b.ranges)


def intersect(a: MultiRange, b: MultiRange) -> MultiRange:
    return make(a.oid, [R.intersect(x, y) for x in a.ranges for y in b.ranges if R.overlaps(x, y)])


def minus(a: MultiRange, b: MultiRange) -> MultiRange:
    """a - b: each of a's ranges with b's ranges cut out (splitting where needed)."""
    out: list[R.Range] = []
    for x in a.ranges:
        pieces = [x]
        for y in b.ranges:
            nxt: list[R.Range] = []
            for p in pieces:
                if not R.overlaps(p, y):
                    nxt.append(p)
                    continue
                if R.contains(y, p):
                    continue
                left = R.minus(p, R.from_bounds(p.oid, (y.lower, bool(y.flags & R.LB_INF),
                                                        bool(y.flags & R.LB_INC), True),
                                                (None, True, False, False)))
                right = R.minus(p, R.from_bounds(p.oid, (None, True, False, True),
                                                 (y.upper, bool(y.flags & R.UB_INF),
                                                  bool(y.flags & R.UB_INC), False)))
                nxt += [r for r in (left, right) if not r.empty]
            pieces = nxt
        out += pieces
    return make(a.oid, out)


# -- text and binary -------------------------------------------------------------------------


def format_multirange(m: MultiRange, elem: Callable[[Any], str]) -> str:
    return "{" + ",".join(R.format_range(r, elem) for r in m.ranges) + "}"


def text_encoder(elem: Callable[[Any], str]) -> Callable[[MultiRange], str]:
    return lambda m: format_multirange(m, elem)


def parse_multirange(s: str, oid: int, range_in: Callable[[str], R.Range]) -> MultiRange:
    """multirange_in: `{}` or `{range, range ...}` (each range in range_in's syntax)."""
    t = s.strip()
    if not t.startswith("{") or not t.endswith("}"):
        raise InvalidTextRepresentation(f'malformed multirange literal: "{s}"',
                                        detail="Missing left brace.")
    body, out, depth, quoted, start = t[1:-1], [], 0, False, 0
    parts: list[str] = []
    for i, c in enumerate(body):
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "[(":
            depth += 1
        elif not quoted and c in "])":
            depth -= 1
        elif not quoted and c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    if body.strip():
        parts.append(body[start:])
    for p in parts:
        if not p.strip():
            raise InvalidTextRepresentation(f'malformed multirange literal: "{s}"',
                                            detail="Expected range start.")
        out.append(range_in(p.strip()))
    return make(oid, out)


def binary_encoder(range_enc: Callable[[R.Range], bytes]) -> Callable[[MultiRange], bytes]:
    def enc(m: MultiRange) -> bytes:
        parts = [_I.pack(len(m.ranges))]
        for r in m.ranges:
            b = range_enc(r)
            parts += [_I.pack(len(b)), b]
        return b"".join(parts)

    return enc


def binary_decoder(oid: int, range_dec: Callable[[bytes], R.Range]) -> Callable[[bytes], MultiRange]:
    def dec(b: bytes) -> MultiRange:
        (n,), pos, out = _I.unpack_from(b), 4, []
        for _ in range(n):
            (ln,) = _I.unpack_from(b, pos)
            out.append(range_dec(bytes(b[pos + 4:pos + 4 + ln])))
            pos += 4 + ln
        return make(oid, out)

    return dec
