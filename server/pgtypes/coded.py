"""A column still in its stored form: what a cold segment keeps, not yet Python values.

Why. A cold segment (`kivi.coldrows`) stores a timestamp column as microseconds, a
numeric column as the values' strings and a date column as ordinals (`kivi.colcodec`).
Turning those back into `datetime`s and `Decimal`s costs a Python object per value,
and the wire encoders of COPY TO and DataRow (`pgtypes.vectext`) then take the objects
apart again into integers and strings. A `Coded` column carries the stored form to the
encoders, which read it directly; anything else asks for `values()`.

    kind  wire values (None for NULL)
    'U'   naive timestamps as int microseconds since 1970-01-01
    'D'   numerics as `str(Decimal)` (exponents, -0, NaN kept)
    'd'   dates as proleptic ordinals (`date.toordinal`)
    'T'   timestamptz (datetimes naive or in UTC) as `isoformat()`

>>> import datetime as dt
>>> col = Coded("d", [738000, None], lambda w: [None if v is None else dt.date.fromordinal(v)
...                                              for v in w])
>>> len(col), col.values()
(2, [datetime.date(2021, 7, 29), None])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from typing import Any


class Coded:
    """A column of `kind` given by its stored `wire` values; `decode` makes the values."""

    __slots__ = ("kind", "wire", "decode")

    def __init__(self, kind: str, wire: list[Any], decode: Callable[[list[Any]], Sequence[Any]]
                 ) -> None:
        self.kind = kind
        self.wire = wire
        self.decode = decode

    def __len__(self) -> int:
        return len(self.wire)

    def values(self) -> Sequence[Any]:
        """The column's Python values (None for NULL)."""
        return self.decode(self.wire)


def picked(col: Any, selectors: list[bool]) -> Any:
    """The rows of a column (`Coded` or values) that `selectors` keeps; a `Coded` column
    stays coded (its values, when asked for, are made from the whole column's, then
    picked: a decoder may read its pieces by position).

    >>> col = Coded("d", [738000, None, 738001], lambda w: [None if v is None else v * 2
    ...                                                      for v in w])
    >>> p = picked(col, [True, False, True])
    >>> p.wire, p.values(), picked([1, 2, 3], [False, True, True])
    ([738000, 738001], [1476000, 1476002], [2, 3])
    """
    if type(col) is Coded:
        whole = col
        return Coded(col.kind, list(compress(col.wire, selectors)),
                     lambda _: list(compress(whole.values(), selectors)))
    return list(compress(col, selectors))


def values(col: Any) -> Any:
    """The column's Python values, whether it is `Coded` or already values."""
    return col.values() if type(col) is Coded else col


__all__ = ["Coded", "picked", "values"]
