"""Cold-row records by columns: the values marshal refuses, converted one column at a time.

Why. A cold segment (`kivi.coldrows.Segment`) keeps its rows as per-row `marshal`
records, which C code writes and reads by the thousand. Rows holding a Decimal, a date
or a timestamp were pickled instead, one `pickle.dumps` call per row: ~7.5 us a
TPC-H lineitem row, so the freeze after a bulk load held the interpreter for minutes
and competed with the queries and loads beside it (py-spy: 34.7 % of samples).

Here the rows are transposed once (`zip(*rows)`) and each column whose values are not
all marshal-safe is turned into values that are, by one C-level `map` a column:
- 'D' Decimal -> its `str` (exact: the string keeps the exponent, -0, NaN payloads,
  sNaN and infinities; `Decimal(str)` reads it back);
- 'd' date -> its proleptic ordinal (an int);
- 'U' naive datetime (fold 0) -> microseconds since 1970-01-01 (an int: two C-level
  operations, against `isoformat`'s formatting, which was the largest part of freezing
  a COPY's timestamp column; numpy reads a column of them back);
- 'T' datetime (tzinfo None or UTC, fold 0: a column mixing them, or all UTC) ->
  `isoformat()` (`fromisoformat` reads it back with the same tzinfo object);
- 'P' anything else (subclasses such as citext or intervals, the infinity sentinels,
  UUIDs, aware times, lists holding Decimals) -> one pickle per value.
A 'D', 'd', 'U', 'T' or plain str column of few distinct values (l_quantity, l_discount,
l_tax, l_shipmode) is coded instead ('E'): each value an index into a table of the values, kept decoded by
the segment, so decoding reads them back by list lookups and decoded rows share the
objects (a Decimal is 104 bytes). A column's None values stay None. The converted rows are then marshal records like
any others, so a segment keeps its row offsets, cuts and point reads; `conv` tells
which columns to convert back and how. Only exact types are converted: a subclass
or a date sentinel always takes the pickle, which gives back its class.

>>> from decimal import Decimal
>>> import datetime as dt
>>> rows = [(1, Decimal("1.10"), dt.date(1998, 9, 2), "N"), (2, None, dt.date(1, 1, 1), "R")]
>>> cols, conv = to_marshal(rows, 4)
>>> conv
((1, 'D', True, ()), (2, 'd', False, ()))
>>> cols[1], cols[2]
(['1.10', None], [729634, 1])
>>> from_columns(cols, conv) == rows
True
>>> ts = [(dt.datetime(2024, 1, 2, 3, 4, 5, 6),), (None,), (dt.datetime(1, 1, 1),)]
>>> cols, conv = to_marshal(ts, 1)
>>> conv, cols[0][:2], from_columns(cols, conv) == ts
(((0, 'U', True, ()),), [1704164645000006, None], True)
>>> cols, conv = to_marshal(rows * 8, 4)
>>> conv[0], cols[1][:3]
((1, 'E', False, (Decimal('1.10'), None)), [0, 1, 0])
>>> from_columns(cols, conv) == rows * 8
True
"""

from __future__ import annotations

import datetime as dt
import pickle
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial
from itertools import chain, repeat
from operator import attrgetter, floordiv, sub
from typing import Any

import numpy as np

from ..pgtypes.coded import Coded

Row = tuple[Any, ...]
# (column, kind, holds None, dictionary or ()) of each converted column
Conv = tuple[tuple[int, str, bool, tuple[Any, ...]], ...]
MAX_DICT = 256  # a column of at most this many distinct values (and 1/8 of the rows) is coded

_SAFE = frozenset({type(None), bool, int, float, str, bytes})
_NONE = type(None)
_STR = {str}
_UTC_OR_NONE = frozenset({None, dt.UTC})
_pickle5 = partial(pickle.dumps, protocol=5)

_EPOCH = dt.datetime(1970, 1, 1)
_US = dt.timedelta(microseconds=1)


def _micros(v: dt.datetime) -> int:
    return (v - _EPOCH) // _US


def _from_micros(us: int) -> dt.datetime:
    return _EPOCH + dt.timedelta(microseconds=us)


_TO: dict[str, Callable[[Any], Any]] = {
    "D": Decimal.__str__,
    "d": dt.date.toordinal,
    "U": _micros,
    "T": dt.datetime.isoformat,
    "P": _pickle5,
}
_FROM: dict[str, Callable[[Any], Any]] = {
    "D": Decimal,
    "d": dt.date.fromordinal,
    "U": _from_micros,
    "T": dt.datetime.fromisoformat,
    "P": pickle.loads,
}


def _safe_value(v: Any) -> bool:
    t = type(v)
    if t is list or t is tuple:
        return all(map(_safe_value, v))
    return t in _SAFE


def _kind(col: Sequence[Any], types: set[type], nones: bool) -> str:
    """'' when marshal gives the column back as it is, else how to convert it."""
    if types <= _SAFE:
        return ""
    if types <= _SAFE | {list, tuple} and all(map(_safe_value, col)):
        return ""
    if len(types) == 1:
        t = next(iter(types))
        if t is Decimal:
            return "D"
        if t is dt.date:
            return "d"
        if t is dt.datetime:
            vals = [v for v in col if v is not None] if nones else col
            zones = set(map(attrgetter("tzinfo"), vals))
            if zones <= _UTC_OR_NONE and not any(map(attrgetter("fold"), vals)):
                return "U" if zones == {None} else "T"
    return "P"


def _convert(col: Sequence[Any], f: Callable[[Any], Any], nones: bool) -> Sequence[Any]:
    if nones:
        return [None if v is None else f(v) for v in col]
    if f is _micros:  # NB: the same subtraction and division, without a call per value
        return list(map(floordiv, map(sub, col, repeat(_EPOCH)), repeat(_US)))
    if f is _from_micros:  # NB: numpy makes the datetimes in C
        return np.array(col, dtype=np.int64).astype("datetime64[us]").astype(object).tolist()
    return list(map(f, col))


def _columns(rows: Sequence[Row], arity: int) -> list[Sequence[Any]]:
    """The rows' columns: one flat list (a C-level chain) sliced per column, about twice
    as fast as `zip(*rows)`, which makes an iterator per row."""
    if not arity:
        return []
    flat = list(chain.from_iterable(rows))
    if len(flat) != arity * len(rows):
        raise ValueError("rows of several arities")
    return [flat[c::arity] for c in range(arity)]


def to_marshal(rows: Sequence[Row], arity: int) -> tuple[list[Sequence[Any]], Conv]:
    """The rows' columns (all rows are tuples of `arity` values), the ones marshal would
    not give back as they are converted, and how to convert them back."""
    cols = _columns(rows, arity)
    conv: list[tuple[int, str, bool, tuple[Any, ...]]] = []
    most = min(MAX_DICT, len(rows) >> 3)
    for c, col in enumerate(cols):
        types = set(map(type, col))
        nones = _NONE in types
        types.discard(_NONE)
        kind = _kind(col, types, nones)
        if not kind:
            if types == _STR:  # short repeated strings (flags, modes): coded, shared when read
                distinct = dict.fromkeys(col)
                if len(distinct) <= most:
                    codes = dict(zip(distinct, range(len(distinct)), strict=True))
                    cols[c] = list(map(codes.__getitem__, col))
                    conv.append((c, "E", False, tuple(distinct)))
            continue
        conv_col = _convert(col, _TO[kind], nones)
        if kind in "DdUT":  # few distinct values: by dictionary (an exact key: no Decimal ==)
            distinct = dict.fromkeys(conv_col)
            if len(distinct) <= most:
                codes = dict(zip(distinct, range(len(distinct)), strict=True))
                cols[c] = list(map(codes.__getitem__, conv_col))
                table = tuple(None if v is None else _FROM[kind](v) for v in distinct)
                conv.append((c, "E", False, table))
                continue
        cols[c] = conv_col
        conv.append((c, kind, nones, ()))
    return cols, tuple(conv)


def from_columns(cols: list[Sequence[Any]], conv: Conv) -> list[Row]:
    """Rows from marshal-decoded columns (changed in place): `to_marshal` undone."""
    for c, kind, nones, table in conv:
        if table:
            cols[c] = list(map(table.__getitem__, cols[c]))
        else:
            cols[c] = _convert(cols[c], _FROM[kind], nones)
    return list(zip(*cols, strict=True))


def columns_of(cols: list[Sequence[Any]], conv: Conv) -> list[Any]:
    """`from_columns` without the rows: the columns themselves (changed in place), where
    the timestamps ('U', 'T'), numerics ('D') and dates ('d') stay in their stored form as
    `pgtypes.coded.Coded` columns, which COPY TO and the DataRow encoders read directly.

    >>> cols, conv = to_marshal([(1, Decimal("1.10")), (2, None)], 2)
    >>> out = columns_of(cols, conv)
    >>> out[0], out[1].kind, out[1].wire, out[1].values()
    ([1, 2], 'D', ['1.10', None], [Decimal('1.10'), None])
    """
    out: list[Any] = list(cols)
    for c, kind, nones, table in conv:
        if table:
            out[c] = list(map(table.__getitem__, cols[c]))
        elif kind in "UDdT":
            out[c] = Coded(kind, list(cols[c]), partial(_convert, f=_FROM[kind], nones=nones))
        else:
            out[c] = _convert(cols[c], _FROM[kind], nones)
    return out


def from_row(rec: Sequence[Any], conv: Conv) -> Row:
    """One row from its marshal-decoded record."""
    out = list(rec)
    for c, kind, _, table in conv:
        v = out[c]
        if table:
            out[c] = table[v]
        elif v is not None:
            out[c] = _FROM[kind](v)
    return tuple(out)


__all__ = ["MAX_DICT", "Conv", "columns_of", "from_columns", "from_row", "to_marshal"]
