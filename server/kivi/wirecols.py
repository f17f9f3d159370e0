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
    2     datetime            isoformat(): naive, or a fixed-offset timezone (UTC included)
    3     date                toordinal()

NULLs stay nil in every kind. The encoding is exact: values come back with the
same type, scale, offset and microseconds (a `datetime` subclass, another
tzinfo class or an `InfiniteDate` keeps kind 0, so `wire`'s own rules apply).

>>> import datetime as dt
>>> from decimal import Decimal
>>> col = [Decimal("1.50"), None, Decimal("-0")]
>>> kind, enc = encode_column(col)
>>> kind, enc
(1, ['1.50', None, '-0'])
>>> decode_column(kind, enc) == col
True
>>> decode_column(*encode_column([dt.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=dt.UTC)]))
[datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)]
>>> encode_column([1, 2, None])
(0, [1, 2, None])
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from operator import attrgetter
from typing import Any

PLAIN, DECIMAL, DATETIME, DATE = 0, 1, 2, 3

_NONE = type(None)
_tzinfo = attrgetter("tzinfo")


def _with_nulls(f: Any, col: list[Any], nulls: bool) -> list[Any]:
    if nulls:
        return [None if v is None else f(v) for v in col]
    return list(map(f, col))


def encode_column(col: list[Any]) -> tuple[int, list[Any]]:
    """Returns (kind, values as plain msgpack values) for one column of a batch."""
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
        tzs.discard(None)
        if all(type(z) is _dt.timezone for z in tzs):
            # NB: a fixed offset round-trips through isoformat (ZoneInfo would come back as a
            # fixed offset, which is what wire's ext 4 does too, but keep its own rules)
            return DATETIME, _with_nulls(_dt.datetime.isoformat, col, nulls)
    return PLAIN, col


def decode_column(kind: int, col: list[Any]) -> list[Any]:
    """Inverts `encode_column`."""
    if kind == PLAIN:
        return col
    if kind == DECIMAL:
        f: Any = Decimal
    elif kind == DATETIME:
        f = _dt.datetime.fromisoformat
    elif kind == DATE:
        f = _dt.date.fromordinal
    else:
        raise ValueError(f"unknown column encoding {kind}")
    return _with_nulls(f, col, None in col)  # NB: str, int or nil here: cheap to compare
