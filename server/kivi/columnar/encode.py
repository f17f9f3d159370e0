"""One column of one pack: Python values turned into a typed array, a validity mask, a zone map.

KiVi rows hold Python values, and a node does not know the SQL types of a
space, so each pack infers its column's physical layout from the values
themselves, once, when the pack is frozen:

    values (non-NULL)          kind    array
    int (fits int64)           "i8"    int64
    float                      "f8"    float64 (NaN kept; zone map ignores it)
    bool                       "b1"    bool
    str                        "str"   int32 codes into a sorted dictionary (object array)
    datetime.date              "date"  datetime64[D]
    naive datetime.datetime    "ts"    datetime64[us]
    Decimal, one exponent -s   "dec"   int64 scaled by 10**s (`scale`), exact
    anything else (Decimal...)  "obj"   object array, exact Python semantics

NULLs are a validity mask (`valid`, None when the pack has none); the slot of a
NULL holds a filler (0, code 0, the epoch) that every kernel masks out. The
dictionary is sorted, so a comparison with a constant is a comparison of codes
(`np.searchsorted` finds the constant's place), and GROUP BY can use codes.
The zone map (`lo`, `hi`) covers the non-NULL, non-NaN values (None: none).

    >>> c = encode([3, None, 1])
    >>> c.kind, c.values.tolist(), c.valid.tolist(), (c.lo, c.hi)
    ('i8', [3, 0, 1], [True, False, True], (1, 3))
    >>> s = encode(["b", "a", "b"])
    >>> s.kind, s.values.tolist(), s.dictionary.tolist()
    ('str', [1, 0, 1], ['a', 'b'])
    >>> s.to_pylist([2, 1])
    ['b', 'a']
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from functools import partial
from itertools import repeat
from operator import attrgetter, floordiv, is_not, sub
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_NONE = type(None)
_FILL = {int: 0, float: 0.0, bool: False, dt.date: dt.date(1970, 1, 1),
         dt.datetime: dt.datetime(1970, 1, 1)}


class Column:
    """A typed array with its validity mask, zone map and (strings) dictionary."""

    __slots__ = ("kind", "values", "valid", "dictionary", "lo", "hi", "scale")

    def __init__(self, kind: str, values: np.ndarray, valid: np.ndarray | None,
                 dictionary: np.ndarray | None = None, lo: Any = None, hi: Any = None,
                 scale: int = 0) -> None:
        self.kind = kind
        self.scale = scale
        self.values = values
        self.valid = valid
        self.dictionary = dictionary
        self.lo = lo
        self.hi = hi

    def __len__(self) -> int:
        return len(self.values)

    @property
    def nbytes(self) -> int:
        n = self.values.nbytes if self.kind != "obj" else 8 * len(self.values)
        if self.valid is not None:
            n += self.valid.nbytes
        if self.dictionary is not None:  # pointers: the strings are the row store's own
            n += 8 * len(self.dictionary)
        return n

    def take(self, idx: np.ndarray) -> Column:
        """Returns the rows at idx (same dictionary, same zone map: a superset is still valid)."""
        return Column(self.kind, self.values[idx],
                      None if self.valid is None else self.valid[idx],
                      self.dictionary, self.lo, self.hi, self.scale)

    def to_pylist(self, idx: Any = None) -> list[Any]:
        """Returns Python values (None for NULL), as the row store holds them."""
        vals = self.values if idx is None else self.values[idx]
        valid = self.valid if idx is None or self.valid is None else self.valid[idx]
        if self.kind == "str":
            assert self.dictionary is not None
            out = self.dictionary[vals].tolist() if len(self.dictionary) else [None] * len(vals)
        elif self.kind in ("date", "ts"):
            out = vals.astype(object).tolist()
        elif self.kind == "dec":
            unit = Decimal(1).scaleb(-self.scale)  # NB: exact (int64 < 28 digits); 1/3 cheaper
            out = list(map(unit.__mul__, map(Decimal, vals.tolist())))
        else:
            out = vals.tolist()
        if valid is not None and not valid.all():
            nulls = np.flatnonzero(~valid).tolist()
            if len(nulls) * 8 > len(out):  # many: one C-level pass over an object array
                o = np.empty(len(out), dtype=object)
                o[:] = out
                o[~valid] = None
                return o.tolist()
            for i in nulls:
                out[i] = None
        return out

    def value(self, i: int) -> Any:
        """Row i's value, as `to_pylist` gives it (for a few rows; a slice is `to_pylist`)."""
        if self.valid is not None and not self.valid[i]:
            return None
        v = self.values[i]
        kind = self.kind
        if kind == "str":
            assert self.dictionary is not None
            return self.dictionary[v]
        if kind == "dec":
            return Decimal(1).scaleb(-self.scale) * Decimal(int(v))
        if kind == "obj":
            return v
        return v.item()

    def to_arrow(self, mask: np.ndarray | None = None) -> pa.Array:
        """Returns the column (rows where mask holds) as an Arrow array, NULLs as nulls."""
        vals = self.values if mask is None else self.values[mask]
        valid = self.valid if mask is None or self.valid is None else self.valid[mask]
        nulls = None if valid is None else ~valid
        if self.kind == "str":
            assert self.dictionary is not None
            d = pa.array(self.dictionary, pa.string())
            return pa.DictionaryArray.from_arrays(pa.array(vals, pa.int32(), mask=nulls), d)
        if self.kind == "obj":
            return pa.array(vals.tolist() if nulls is None else
                            [None if n else v for v, n in zip(vals.tolist(), nulls.tolist(), strict=True)])
        return pa.array(vals, mask=nulls)


def encode(values: list[Any]) -> Column:
    """Encodes a list of Python values (None: NULL) as a column."""
    types = set(map(type, values))
    has_null = _NONE in types
    types.discard(_NONE)
    n = len(values)
    valid = None
    if has_null:
        valid = np.fromiter(map(partial(is_not, None), values), dtype=bool, count=n)
    if len(types) != 1:
        if not types:  # all NULL: any kind will do, say int64 zeros
            return Column("i8", np.zeros(n, np.int64), valid)
        return _obj(values, valid)
    (t,) = types
    if t is Decimal:  # NB: Arrow's dictionary encoding of shared strings is as fast
        shared = _shared(values)
        if shared is not None:
            return encode(shared[0]).take(shared[1])
    if t is str:
        return _strings(values, valid)
    if t is Decimal:
        return _decimals(values, valid)
    if t in _FILL:
        if has_null:
            fill = _FILL[t]
            values = [fill if v is None else v for v in values]
        try:
            if t is int:
                arr = np.array(values, dtype=np.int64)
                kind = "i8"
            elif t is float:
                arr = np.array(values, dtype=np.float64)
                kind = "f8"
            elif t is bool:
                arr = np.array(values, dtype=bool)
                kind = "b1"
            elif t is dt.date:
                arr = _days(values)
                kind = "date"
            else:
                if any(map(_tzinfo, values)):
                    return _obj(values, valid)
                arr = _micros(values)
                kind = "ts"
        except (OverflowError, ValueError):
            return _obj(values, valid)
        lo, hi = _zone(arr, valid, kind)
        return Column(kind, arr, valid, None, lo, hi)
    return _obj(values, valid)


_ORDINAL_1970 = dt.date(1970, 1, 1).toordinal()
_EPOCH = dt.datetime(1970, 1, 1)
_US = dt.timedelta(microseconds=1)
_tzinfo = attrgetter("tzinfo")


def _days(values: list[dt.date]) -> np.ndarray:
    """Dates as datetime64[D] by one C-level `toordinal` pass (numpy's own conversion of
    date objects costs about 20 times as much).

    >>> _days([dt.date(1970, 1, 2), dt.date(1, 1, 1)]).tolist()
    [datetime.date(1970, 1, 2), datetime.date(1, 1, 1)]
    """
    days = np.fromiter(map(dt.date.toordinal, values), np.int64, count=len(values))
    return (days - _ORDINAL_1970).astype("datetime64[D]")


def _micros(values: list[dt.datetime]) -> np.ndarray:
    """Naive datetimes as datetime64[us], by C-level subtraction and division passes.

    >>> _micros([dt.datetime(1970, 1, 1, 0, 0, 0, 7), dt.datetime(1, 1, 1)]).tolist()
    [datetime.datetime(1970, 1, 1, 0, 0, 0, 7), datetime.datetime(1, 1, 1, 0, 0)]
    """
    us = map(floordiv, map(sub, values, repeat(_EPOCH)), repeat(_US))
    return np.fromiter(us, np.int64, count=len(values)).astype("datetime64[us]")


def _shared(values: list[Any]) -> tuple[list[Any], np.ndarray] | None:
    """The distinct objects of a column whose rows share them (COPY gives repeated texts
    one object: `sql.copybatch.shared`), and each row's index among them; None when
    they are not a quarter of the rows or fewer. Found by identity, by C-level passes
    (no hashing of the values): a Decimal's conversion then runs once per object rather
    than once per row.

    >>> a, b = Decimal("1.50"), Decimal("2.00")
    >>> objs, idx = _shared([a, b, a, a, b, None, a, a] * 2)
    >>> objs, idx.tolist()[:8]
    ([Decimal('1.50'), Decimal('2.00'), None], [0, 1, 0, 0, 1, 2, 0, 0])
    >>> c = encode([a, b, a, a, b, None, a, a] * 2)
    >>> c.kind, c.values.tolist()[:6], c.valid.tolist()[4:6], (c.lo, c.hi)
    ('dec', [150, 200, 150, 150, 200, 0], [True, False], (Decimal('1.50'), Decimal('2.00')))
    """
    n = len(values)
    if n < 8 or len(set(map(id, values[:SHARED_SAMPLE]))) * 2 > min(n, SHARED_SAMPLE):
        return None
    objs = dict(zip(map(id, values), values, strict=True))
    if len(objs) * 4 > n:
        return None
    pos = dict(zip(objs, range(len(objs)), strict=True))
    idx = np.fromiter(map(pos.__getitem__, map(id, values)), np.intp, count=n)
    return list(objs.values()), idx


SHARED_SAMPLE = 256


def _zone(arr: np.ndarray, valid: np.ndarray | None, kind: str) -> tuple[Any, Any]:
    a = arr if valid is None else arr[valid]
    if kind == "f8":
        a = a[~np.isnan(a)]
    if not len(a):
        return None, None
    lo, hi = a.min(), a.max()
    if kind in ("date", "ts"):
        return lo.astype(object), hi.astype(object)
    return lo.item(), hi.item()


def _decimals(values: list[Any], valid: np.ndarray | None) -> Column:
    """Decimals sharing one exponent become scaled int64s ("dec"); others stay objects."""
    got = _fixed_decimals(values, valid)
    if got is not None:
        return got
    nn = values if valid is None else [v for v in values if v is not None]
    exps = {v.as_tuple().exponent for v in nn}
    if len(exps) != 1:
        return _obj(values, valid)
    (e,) = exps
    if not isinstance(e, int) or not -18 <= e <= 0:
        return _obj(values, valid)
    s = -e
    try:
        arr = np.array([0 if v is None else int(v.scaleb(s)) for v in values], np.int64)
    except OverflowError:
        return _obj(values, valid)
    zeros = np.flatnonzero(arr == 0).tolist()
    if any(values[i] is not None and values[i].is_signed() for i in zeros):
        return _obj(values, valid)  # -0.00: the scaled integer would lose its sign
    a = arr if valid is None else arr[valid]
    lo, hi = (Decimal(int(a.min())).scaleb(e), Decimal(int(a.max())).scaleb(e)) if len(a) \
        else (None, None)
    return Column("dec", arr, valid, None, lo, hi, s)


_FIXED_TEXT = b"0123456789-."


def _fixed_decimals(values: list[Any], valid: np.ndarray | None) -> Column | None:
    """`_decimals` for the common column, by C-level passes over the values' text (`str`
    of a Decimal is about 20 times cheaper than `as_tuple` and `scaleb` per value): every
    value written `-?digits[.digits]` with the same count of fractional digits, which then
    is minus its exponent, and the digits without the dot are the scaled integer. None
    when a value is written otherwise (an exponent, NaN, infinities, another scale, more
    than int64's digits, -0): `_decimals` then looks at each value.

    >>> c = _fixed_decimals([Decimal("1.50"), Decimal("-20.07")], None)
    >>> c.kind, c.scale, c.values.tolist(), (c.lo, c.hi)
    ('dec', 2, [150, -2007], (Decimal('-20.07'), Decimal('1.50')))
    >>> [_fixed_decimals([Decimal(t)], None) for t in ("1E+2", "-0.00", "NaN")]
    [None, None, None]
    >>> _fixed_decimals([Decimal("1.5"), Decimal("2.25")], None) is None
    True
    """
    n = len(values)
    text = list(map(str, values))
    if valid is not None:
        nn = np.flatnonzero(valid).tolist()
        if not nn:
            return None
        zero = "0." + "0" * (len(text[nn[0]]) - text[nn[0]].find(".") - 1) \
            if "." in text[nn[0]] else "0"
        for i in np.flatnonzero(~valid).tolist():
            text[i] = zero
    arr = pa.array(text, pa.string())
    data = arr.buffers()[2]
    if data is None or data.to_pybytes().translate(None, _FIXED_TEXT):
        return None  # NB: an exponent, NaN, Infinity, or nothing at all
    length = pc.utf8_length(arr).to_numpy()
    dot = pc.find_substring(arr, ".").to_numpy()
    scale = np.where(dot >= 0, length - dot - 1, 0)
    s = int(scale[0])
    if (scale != s).any() or s > 18:
        return None
    digits = pc.replace_substring(arr, ".", "") if s else arr
    try:
        ints = pc.cast(digits, pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # NB: beyond int64, or "-" / "." alone cannot be a Decimal's str anyway
    if len(ints) != n:
        return None
    zeros = ints == 0
    if zeros.any() and pc.starts_with(arr, "-").to_numpy(zero_copy_only=False)[zeros].any():
        return None  # -0.00: the scaled integer would lose its sign
    a = ints if valid is None else ints[valid]
    e = -s
    lo, hi = Decimal(int(a.min())).scaleb(e), Decimal(int(a.max())).scaleb(e)
    return Column("dec", ints, valid, None, lo, hi, s)


def _strings(values: list[Any], valid: np.ndarray | None) -> Column:
    """Strings as int32 codes into a sorted dictionary. The dictionary holds the values'
    own str objects (the row store's, found at each code's first row), not new copies:
    a column of mostly distinct strings would otherwise hold every string twice."""
    enc = pa.array(values, pa.string()).dictionary_encode()
    codes = enc.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int32)
    rows = np.arange(len(values)) if valid is None else np.flatnonzero(valid)
    _, first = np.unique(codes[rows], return_index=True)  # every code occurs in a valid row
    d = np.empty(len(first), dtype=object)
    d[:] = [values[i] for i in rows[first].tolist()]
    if len(d) > 1:
        # NB: Arrow sorts UTF-8 bytes, whose order is the code points' (Python's str order)
        order = pc.array_sort_indices(pa.array(d, pa.string())).to_numpy()
        rank = np.empty(len(d), np.int32)
        rank[order] = np.arange(len(d), dtype=np.int32)
        d = d[order]
        codes = rank[codes]
    if not len(d):
        return Column("str", codes, valid, d)
    return Column("str", codes, valid, d, d[0], d[-1])


def _obj(values: list[Any], valid: np.ndarray | None) -> Column:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return Column("obj", arr, valid)


__all__ = ["Column", "encode"]
