"""Typed column encodings for whole batches of values (a COPY's redo record).

`wire.packb` sends a Decimal, a date or a datetime through msgpack's `default`
callback: a Python call, an `ExtType` and a nested `packb` per value, which
made packing a million-row COPY's redo record cost more than the COPY itself.
A column whose values (NULLs aside) all have one of these exact types is
instead turned into plain msgpack values by C-level passes (`map` over a C
method), and back the same way:

    kind  values              encoded as
    0     anything            the values themselves (`wire`'s ext types apply)
    1     Decimal             str(value): keeps NaN, Infinity, the sign of zero, the scale
    2     datetime            isoformat(): a fixed-offset timezone other than UTC, or mixed
    3     date                toordinal()
    4     naive datetime      microseconds since 1970-01-01 (an int)
    5     UTC datetime        microseconds since 1970-01-01 UTC (tzinfo `timezone.utc`)

    16 + s  Decimal of exponent -s  its coefficient (an int), 0 <= s <= 18 (`scaled_kind`)

Kinds 4 and 5 exist because `isoformat` costs about four times the two C-level
subtractions (`(v - epoch) // 1us`) on a COPY's timestamp column; numpy turns
the integers back into datetimes in one pass.

Kinds 16 + s are only built by a parser that has the coefficients already (binary
COPY's numerics, text COPY's fixed-point ones: `Encoded`), never by `encode_column`:
an int packs for less than the `str` a Decimal would need at the commit. No value is a
negative zero there (the coefficient 0 has no sign); `Decimal(c) * 10**-s` reads each back.

NULLs stay nil in every kind. The encoding is exact: values come back with the
same type, scale, offset and microseconds (a `datetime` subclass, another
tzinfo class or an `InfiniteDate` keeps kind 0, so `wire`'s own rules apply).

The timestamp infinities (`pgtypes.infdate.InfiniteTimestamp`) keep kind 0 too.
Records written before they existed hold them as datetime.max / datetime.min
in kinds 2, 4 and 5, so those two values read back as the infinities there; a
column holding the real 0001-01-01 00:00:00 or 9999-12-31 23:59:59.999999 is
written as kind 0 (`wire`'s code 13 keeps it real).

>>> import datetime as dt
>>> from decimal import Decimal
>>> col = [Decimal("1.50"), None, Decimal("-0")]
>>> kind, enc = encode_column(col)
>>> kind, enc
(1, ['1.50', None, '-0'])
>>> decode_column(kind, enc) == col
True
>>> encode_column([dt.datetime(1970, 1, 1, 0, 0, 1), None])
(4, [1000000, None])
>>> decode_column(*encode_column([dt.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=dt.UTC)]))
[datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)]
>>> encode_column([1, 2, None])
(0, [1, 2, None])

A column's builder may already hold its wire form (COPY's parsers: the microseconds
numpy parsed a timestamp column into, a fixed-point numeric column's input text, which
`Decimal` reads back to the same value and scale): an `Encoded` column carries it, and
`encode_column` returns it without a pass over the values. `joined` concatenates the
batches of a column, keeping that form when every batch has it, in one kind.

>>> decode_column(scaled_kind(2), [150, None, -7])
[Decimal('1.50'), None, Decimal('-0.07')]
>>> col = Encoded([Decimal("1.50")], DECIMAL, ["1.50"])
>>> encode_column(col)
(1, ['1.50'])
>>> joined([col, Encoded([Decimal("-2.00")], DECIMAL, ["-2.00"])]).wire
['1.50', '-2.00']
>>> type(joined([col, [Decimal("3")]])).__name__
'list'
"""

from __future__ import annotations

import datetime as _dt
from decimal import Context, Decimal
from itertools import repeat
from operator import attrgetter, floordiv, is_, methodcaller, sub
from typing import Any

import numpy as np

from ..pgtypes.infdate import InfiniteTimestamp

PLAIN, DECIMAL, DATETIME, DATE, NAIVE_US, UTC_US = 0, 1, 2, 3, 4, 5
_SCALED, _SCALE_MAX = 16, 18
# NB: exact for any coefficient of up to 19 digits, whatever the thread's decimal context
_EXACT = Context(prec=40)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_US = _dt.timedelta(microseconds=1)
_LO, _HI = (_dt.datetime.min - _EPOCH) // _US, (_dt.datetime.max - _EPOCH) // _US
_to_utc = methodcaller("replace", tzinfo=_dt.UTC)

_NONE = type(None)
_tzinfo = attrgetter("tzinfo")


def _with_nulls(f: Any, col: list[Any], nulls: bool) -> list[Any]:
    if nulls:
        return [None if v is None else f(v) for v in col]
    return list(map(f, col))


class Encoded(list[Any]):
    """A column's values with their wire form (`kind`, `wire`: what `encode_column` would
    return for them), built by whoever parsed the column. The builder vouches for
    `decode_column(kind, wire) == values`, each value of the same type; it gives PLAIN
    only for values msgpack packs as they are (exact int, str, bool, float, None).

    A column that is its own wire form holds no reference to itself, so reference counting
    frees it (see `wire`):

    >>> import gc
    >>> v = [1, 2]
    >>> e = Encoded(v, PLAIN, v)
    >>> e.wire is e, any(r is e for r in gc.get_referents(e))
    (True, False)
    """

    __slots__ = ("kind", "_wire")

    def __init__(self, values: Any, kind: int, wire: list[Any]) -> None:
        super().__init__(values)
        self.kind = kind
        # NB: values that are their own wire form share this list (a second list of
        # pointers per column was 8 bytes a row that a COPY's write set held to the commit)
        self._wire: list[Any] | None = None if wire is values else wire

    # NB: "the wire is the values" is None, not a reference to self: a list that refers to
    # itself is a cycle that only the cyclic collector frees, and a bulk batch's end freezes
    # what is tracked (`bulkgc`), so every column a COPY built was kept for good (10M rows
    # x 3 columns: ~900 MB of the 2.4 GB the server held after the load)
    @property
    def wire(self) -> list[Any]:
        """The column's wire form (the values themselves for PLAIN)."""
        return self if self._wire is None else self._wire

    @wire.setter
    def wire(self, wire: list[Any]) -> None:
        self._wire = None if wire is self else wire


def joined(parts: list[list[Any]]) -> list[Any]:
    """Batches of one column as one column, an `Encoded` one if every batch is of a kind."""
    if len(parts) == 1:
        return parts[0]
    forms = [p for p in parts if type(p) is Encoded]
    kinds = {p.kind for p in forms}
    out: list[Any] = []
    if len(forms) == len(parts) and len(kinds) == 1:
        kind = kinds.pop()
        out = enc = Encoded((), kind, [])  # NB: filled in place: no copy of a joined list
        if kind == PLAIN:
            enc.wire = enc
        else:
            for f in forms:
                enc.wire.extend(f.wire)
    for p in parts:  # NB: list.extend of a list copies its pointers at once; a chain iterates
        out.extend(p)
    return out


def scaled_kind(scale: int) -> int:
    """The kind of a column of Decimals of exponent -scale, given by their coefficients."""
    if not 0 <= scale <= _SCALE_MAX:
        raise ValueError(f"no scaled kind for scale {scale}")
    return _SCALED + scale


def encode_column(col: list[Any]) -> tuple[int, list[Any]]:
    """Returns (kind, values as plain msgpack values) for one column of a batch."""
    if type(col) is Encoded:
        return col.kind, col.wire
    types = set(map(type, col))
    nulls = _NONE in types  # NB: not `None in col`: Decimal == None runs an ABC check
    types.discard(_NONE)
    if len(types) != 1:
        return PLAIN, col
    (t,) = types
    if t is Decimal:
        return DECIMAL, _with_nulls(str, col, nulls)
    if t is _dt.date:
        return DATE, _with_nulls(_dt.date.toordinal, col, nulls)
    if t is _dt.datetime:
        tzs = set(map(_tzinfo, filter(None, col)))  # NB: a datetime is never falsy
        if tzs == {None}:
            return _unless_edge(NAIVE_US, _micros(col, _EPOCH, nulls), col)
        if tzs == {_dt.UTC} and all(map(is_, map(_tzinfo, filter(None, col)), repeat(_dt.UTC))):
            # NB: equality of timezones is by offset: a UTC-offset zone of another name stays
            return _unless_edge(UTC_US, _micros(col, _EPOCH_UTC, nulls), col)
        tzs.discard(None)
        if any(map(_edge, filter(None, col))):
            return PLAIN, col
        if all(type(z) is _dt.timezone for z in tzs):
            # NB: a fixed offset round-trips through isoformat (ZoneInfo would come back as a
            # fixed offset, which is what wire's ext 4 does too, but keep its own rules)
            return DATETIME, _with_nulls(_dt.datetime.isoformat, col, nulls)
    return PLAIN, col


def _edge(v: _dt.datetime) -> bool:
    """The wall clock is datetime.min's or .max's (an old record's infinity)."""
    return v.year in (1, 9999) and v.replace(tzinfo=None) in (_dt.datetime.min, _dt.datetime.max)


def _unless_edge(kind: int, micros: list[Any], col: list[Any]) -> tuple[int, list[Any]]:
    nn = [m for m in micros if m is not None] if None in micros else micros
    if nn and (min(nn) == _LO or max(nn) == _HI):
        return PLAIN, col
    return kind, micros


def _infinity(v: _dt.datetime) -> _dt.datetime:
    return InfiniteTimestamp(1 if v.year == 9999 else -1, v.tzinfo) if _edge(v) else v


def _micros(col: list[Any], epoch: _dt.datetime, nulls: bool) -> list[Any]:
    if nulls:
        return [None if v is None else (v - epoch) // _US for v in col]
    return list(map(floordiv, map(sub, col, repeat(epoch)), repeat(_US)))


def _from_micros(col: list[Any], utc: bool) -> list[Any]:
    epoch = _EPOCH_UTC if utc else _EPOCH
    if None in col:
        return [None if v is None else _from_us(epoch, v) for v in col]
    arr = np.array(col, dtype=np.int64)
    if len(arr) and (arr.min() == _LO or arr.max() == _HI):  # an old record's infinity
        return [_from_us(epoch, v) for v in col]
    out = arr.astype("datetime64[us]").astype(object).tolist()
    return list(map(_to_utc, out)) if utc else out


def _from_us(epoch: _dt.datetime, us: int) -> _dt.datetime:
    if us == _LO or us == _HI:
        return InfiniteTimestamp(1 if us == _HI else -1, epoch.tzinfo)
    return epoch + _dt.timedelta(microseconds=us)


def decode_column(kind: int, col: list[Any]) -> list[Any]:
    """Inverts `encode_column`."""
    if kind == PLAIN:
        return col
    if kind in (NAIVE_US, UTC_US):
        return _from_micros(col, kind == UTC_US)
    if _SCALED <= kind <= _SCALED + _SCALE_MAX:
        unit = Decimal(1).scaleb(_SCALED - kind)
        if None in col:
            return [None if v is None else _EXACT.multiply(Decimal(v), unit) for v in col]
        return list(map(_EXACT.multiply, map(Decimal, col), repeat(unit)))
    if kind == DECIMAL:
        f: Any = Decimal
    elif kind == DATETIME:
        return _with_nulls(_infinity, _with_nulls(_dt.datetime.fromisoformat, col, None in col),
                           None in col)
    elif kind == DATE:
        f = _dt.date.fromordinal
    else:
        raise ValueError(f"unknown column encoding {kind}")
    return _with_nulls(f, col, None in col)  # NB: str, int or nil here: cheap to compare
