"""Whole columns to PostgreSQL's text and binary forms, as Arrow arrays.

The per-value encoders (`text.text_encoder`, `binary.binary_encoder`) cost a
Python call per cell; a result or a COPY TO of a million rows spends most of
its time there. These functions take a whole column (a list of Python values,
None for NULL, as the executor's rows hold them) and return one Arrow array of
the column's output forms, NULL where the value is NULL, in a few C-level passes:

- integers: `np.fromiter`, then Arrow's int-to-string cast (text) or one
  big-endian numpy array (binary);
- booleans: one `if_else`; text and varchar: the strings as they are;
- float8: `repr` per value (C), a trailing `.0` cut by one Arrow regex pass;
- numerics: `str()` per value (C), re-done with `format(v, "f")` when one picked
  an exponent; binary by scaled integers (one float cast of the strings: exact to 15
  digits) cut into base-10000 groups in numpy;
- timestamps and dates (naive, years 2-9998, DateStyle ISO): the fields of the
  day number and of the microsecond count computed in numpy and written as ASCII
  digits into a fixed-width byte matrix (`YYYY-MM-DD HH:MM:SS`), with PostgreSQL's
  trimmed fraction when a value has one; binary as int64 microseconds / int32
  days since 2000-01-01 (stored timestamptz from its isoformat strings, by Arrow);
- binary fields (`framed_binary`): a NULL-free fixed-width or numeric column gets its
  int32 lengths written beside the values in the same numpy pass.

Anything else (float4, float8 with exponents or specials, zoned timestamps, intervals, arrays, the infinity
sentinels, a value of an unexpected Python type) goes through the type's own
per-value encoder, so the output is always what that encoder says: these are
only faster ways to the same bytes.

    >>> import datetime as dt
    >>> text_array([1, None, -30], 20, str).to_pylist()
    ['1', None, '-30']
    >>> text_array([dt.datetime(2024, 1, 2, 3, 4, 5, 500000)], 1114, str).to_pylist()
    ['2024-01-02 03:04:05.5']
    >>> binary_array([1, None], 23, None).to_pylist()
    [b'\\x00\\x00\\x00\\x01', None]
"""

from __future__ import annotations

import datetime as dt
import operator
from collections.abc import Callable, Sequence
from decimal import Decimal
from itertools import compress, repeat
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import oids as T
from .coded import Coded

_NONE = type(None)
_INTS = frozenset((T.INT2, T.INT4, T.INT8, T.OID))
STRINGS = frozenset((T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME))
_EPOCH_2000_US = (dt.datetime(2000, 1, 1) - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_EPOCH_2000_DAYS = 10957  # 2000-01-01 in days since 1970-01-01
_LOW_US = (dt.datetime(2, 1, 1) - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_HIGH_US = (dt.datetime(9999, 1, 1) - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_DAY_US = 86_400_000_000
_FRACTION = r"\.?0+$"  # PostgreSQL prints a timestamp's fraction without trailing zeros


def _split(col: Sequence[Any]) -> tuple[set[type], Sequence[Any], np.ndarray | None]:
    """The column's value types (NULL left out), its non-NULL values, and the validity
    mask (None when no value is NULL)."""
    kinds = set(map(type, col))
    if _NONE not in kinds:
        return kinds, col, None
    kinds.discard(_NONE)
    valid = np.fromiter(map(operator.is_not, col, repeat(None)), bool, len(col))
    return kinds, list(compress(col, valid)), valid


def _expand(arr: pa.Array, valid: np.ndarray | None) -> pa.Array:
    """The non-NULL values' array spread back over the column, NULL where not valid."""
    if valid is None:
        return arr
    idx = np.cumsum(valid, dtype=np.int64) - 1
    return pc.take(arr, pa.array(idx, mask=~valid))


def _ascii(matrix: np.ndarray) -> pa.Array:
    """Rows of an (n, w) uint8 matrix as an Arrow string array."""
    n, w = matrix.shape
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(w), n,
                                                 [None, pa.py_buffer(matrix.tobytes())])
    return fixed.cast(pa.binary()).cast(pa.string())


def _digits(out: np.ndarray, at: int, width: int, v: np.ndarray) -> None:
    """Writes non-negative v as `width` zero-padded ASCII digits at column `at` of out."""
    for k in range(width - 1, -1, -1):
        out[:, at + k] = 48 + v % 10
        v = v // 10


def _civil(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month, day of days since 1970-01-01 (the proleptic Gregorian calendar),
    vectorised from Howard Hinnant's `civil_from_days`."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = np.where(mp < 10, mp + 3, mp - 9)
    return yoe + era * 400 + (m <= 2), m, d


def _date_matrix(days: np.ndarray, width: int) -> np.ndarray:
    """An (n, width) matrix holding `YYYY-MM-DD` in its first ten columns."""
    y, m, d = _civil(days)
    out = np.empty((len(days), width), np.uint8)
    _digits(out, 0, 4, y)
    out[:, 4] = out[:, 7] = 45  # "-"
    _digits(out, 5, 2, m)
    _digits(out, 8, 2, d)
    return out


_CLOCK: list[np.ndarray] = []


def _clock() -> np.ndarray:
    """`HH:MM:SS` of each second of a day as an (86400, 8) ASCII matrix, made at first use."""
    if not _CLOCK:
        secs = np.arange(86_400)
        out = np.empty((86_400, 8), np.uint8)
        out[:, 2] = out[:, 5] = 58  # ":"
        _digits(out, 0, 2, secs // 3600)
        _digits(out, 3, 2, secs // 60 % 60)
        _digits(out, 6, 2, secs % 60)
        _CLOCK.append(out)
    return _CLOCK[0]


def _micros(vals: Sequence[Any]) -> np.ndarray | None:
    """Naive datetimes in the printable range as int64 microseconds since 1970, else None."""
    if set(map(operator.attrgetter("tzinfo"), vals)) != {None}:
        return None
    us = pa.array(vals, pa.timestamp("us")).cast(pa.int64()).to_numpy()
    if len(us) and (us.min() < _LOW_US or us.max() >= _HIGH_US):
        return None  # NB: year 1 and 9999 hold the infinity sentinels' spelling
    return us


def _timestamps_text(vals: Sequence[Any]) -> pa.Array | None:
    us = _micros(vals)
    return None if us is None else _micros_text(us)


def _micros_text(us: np.ndarray) -> pa.Array | None:
    """Timestamps given as int64 microseconds since 1970 (printable range) as text."""
    days, rest = np.divmod(us, _DAY_US)
    secs, frac = np.divmod(rest, 1_000_000)
    fractions = bool(frac.any())
    width = 26 if fractions else 19
    first = int(days.min())
    span = int(days.max()) - first + 1
    if span <= len(days):  # NB: the common case, few distinct days: each formatted once
        out = np.empty((len(days), width), np.uint8)
        out[:, :10] = _date_matrix(np.arange(first, first + span), 10)[days - first]
    else:
        out = _date_matrix(days, width)
    out[:, 10] = 32
    out[:, 11:19] = _clock()[secs]
    if not fractions:
        return _ascii(out)
    out[:, 19] = 46  # "."
    _digits(out, 20, 6, frac)
    return pc.replace_substring_regex(_ascii(out), _FRACTION, "")


def _dates_text(vals: Sequence[Any]) -> pa.Array | None:
    days = pa.array(vals, pa.date32()).cast(pa.int32()).to_numpy().astype(np.int64)
    return _days_text(days)


def _days_text(days: np.ndarray) -> pa.Array | None:
    if len(days) and (days.min() < _LOW_US // _DAY_US or days.max() >= _HIGH_US // _DAY_US):
        return None
    return _ascii(_date_matrix(days, 10))


def plain_numerics(vals: Sequence[Any]) -> list[str] | None:
    """Decimals as numeric's output prints them (plain notation, the value's own scale);
    None when one needs its own spelling (-0 prints as 0; NaN, Infinity).

    >>> plain_numerics([Decimal("1.50"), Decimal("1E+3")]), plain_numerics([Decimal("-0")])
    (['1.50', '1000'], None)
    """
    out = list(map(str, vals))
    joined = "\n".join(out)
    if "E" in joined:  # NB: str() is shorter than format(v, "f") but can choose exponents
        out = list(map(format, vals, repeat("f")))
        joined = "\n".join(out)
    if "-0" in joined or "N" in joined or "I" in joined:
        return None
    return out


def _numerics_text(vals: Sequence[Any]) -> pa.Array | None:
    out = plain_numerics(vals)
    return None if out is None else pa.array(out, pa.string())


def _floats_text(vals: Sequence[Any]) -> pa.Array | None:
    """float8's output (`text._float8`) of a column: the shortest repr without a trailing
    `.0`; None when a value needs more (an exponent, 1e15 and up, NaN, infinities).

    >>> _floats_text([0.5, -0.0, 3.0, 123456789012.25]).to_pylist()
    ['0.5', '-0', '3', '123456789012.25']
    >>> _floats_text([1e-05]), _floats_text([float("nan")]), _floats_text([1e15])
    (None, None, None)
    """
    strs = list(map(float.__repr__, vals))
    joined = "".join(strs)
    if "e" in joined or "n" in joined:  # NB: also 'inf' and 'nan'
        return None
    if np.abs(np.fromiter(vals, np.float64, len(vals))).max() >= 1e15:
        return None
    return pc.replace_substring_regex(pa.array(strs, pa.string()), r"\.0$", "")


def _ints_text(vals: Sequence[Any]) -> pa.Array | None:
    try:
        arr = np.fromiter(vals, np.int64, len(vals))
    except OverflowError:
        return None
    return pc.cast(pa.array(arr), pa.string())


def text_array(col: Sequence[Any] | Coded, oid: int, enc: Callable[[Any], Any],
               iso: bool = True) -> pa.Array:
    """The text output of every value of a column, NULL for NULL (an Arrow string array,
    or a binary one when `enc`, used for what has no column form, returns bytes).
    `iso`: DateStyle is ISO (dates and timestamps have a column form only then)."""
    if isinstance(col, Coded):
        coded = _coded_text(col, oid, iso)
        if coded is not None:
            return coded
        col = col.values()
    kinds, vals, valid = _split(col)
    got: pa.Array | None = None
    if len(kinds) == 1 and vals:
        (kind,) = kinds
        if kind is int and oid in _INTS:
            got = _ints_text(vals)
        elif kind is str and oid in STRINGS:
            got = pa.array(vals, pa.string())
        elif kind is bool and oid == T.BOOL:
            got = pc.if_else(pa.array(vals, pa.bool_()), "t", "f")
        elif kind is float and oid == T.FLOAT8:
            got = _floats_text(vals)
        elif kind is Decimal and oid == T.NUMERIC:
            got = _numerics_text(vals)
        elif kind is dt.datetime and oid == T.TIMESTAMP and iso:
            got = _timestamps_text(vals)
        elif kind is dt.date and oid == T.DATE and iso:
            got = _dates_text(vals)
    if got is None:
        out = list(map(enc, vals))
        got = pa.array(out, pa.binary() if out and type(out[0]) is bytes else pa.string())
    return _expand(got, valid)


# -- columns in their stored form (`coded.Coded`, from cold segments) --------------------------

_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


def _wire(col: Coded) -> tuple[list[Any], np.ndarray | None]:
    """The non-NULL stored values and the validity mask (None: no NULL)."""
    w = col.wire
    if not any(map(operator.is_, w, repeat(None))):
        return w, None
    valid = np.fromiter(map(operator.is_not, w, repeat(None)), bool, len(w))
    return list(compress(w, valid)), valid


def _coded_ints(vals: list[Any], low: int, high: int) -> np.ndarray | None:
    arr = np.fromiter(vals, np.int64, len(vals))
    return arr if not len(arr) or (arr.min() >= low and arr.max() < high) else None


def _coded_text(col: Coded, oid: int, iso: bool) -> pa.Array | None:
    """`text_array` of a stored-form column; None when its values must be made instead
    (another type, DateStyle not ISO, a value outside the fast forms' range)."""
    vals, valid = _wire(col)
    if not vals:
        return None
    got: pa.Array | None = None
    if col.kind == "U" and oid == T.TIMESTAMP and iso:
        us = _coded_ints(vals, _LOW_US, _HIGH_US)
        got = None if us is None else _micros_text(us)
    elif col.kind == "d" and oid == T.DATE and iso:
        got = _days_text(np.fromiter(vals, np.int64, len(vals)) - _EPOCH_ORDINAL)
    elif col.kind == "D" and oid == T.NUMERIC:
        joined = "\n".join(vals)
        if not any(c in joined for c in ("E", "-0", "N", "I")):  # as `plain_numerics`
            got = pa.array(vals, pa.string())
    return None if got is None else _expand(got, valid)


def _coded_binary(col: Coded, oid: int) -> pa.Array | None:
    """`binary_array` of a stored-form column; None when its values must be made instead."""
    vals, valid = _wire(col)
    if not vals:
        return None
    got: pa.Array | None = None
    if col.kind == "U" and oid == T.TIMESTAMP:
        us = _coded_ints(vals, _LOW_US, _HIGH_US)
        got = None if us is None else _fixed(us - _EPOCH_2000_US, ">i8")
    elif col.kind == "d" and oid == T.DATE:
        days = np.fromiter(vals, np.int64, len(vals)) - _EPOCH_ORDINAL - _EPOCH_2000_DAYS
        got = _fixed(days, ">i4")
    elif col.kind == "D" and oid == T.NUMERIC:
        got = _numeric_strings_binary(vals)
    elif col.kind == "T" and oid == T.TIMESTAMPTZ:
        us = _iso_micros(vals)
        got = None if us is None else _fixed(us - _EPOCH_2000_US, ">i8")
    return None if got is None else _expand(got, valid)


def _iso_micros(vals: list[str]) -> np.ndarray | None:
    """Stored timestamptz values (kind 'T': `isoformat()` of naive or UTC datetimes, which
    timestamptz's send form reads alike) as int64 microseconds since 1970 UTC, by Arrow's
    ISO 8601 parser; None outside the printable range.

    >>> _iso_micros(["1970-01-01T00:00:01+00:00", "1970-01-01T00:00:00.25"]).tolist()
    [1000000, 250000]
    """
    arr = pc.replace_substring(pa.array(vals, pa.string()), "+00:00", "")
    try:
        us = arr.cast(pa.timestamp("us")).cast(pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # NB: not expected of isoformat(): the values' own encoder decides
    return us if not len(us) or (us.min() >= _LOW_US and us.max() < _HIGH_US) else None


# -- binary send forms ---------------------------------------------------------------------------

_FIXED = {T.INT2: ">i2", T.INT4: ">i4", T.INT8: ">i8", T.OID: ">u4", T.FLOAT4: ">f4",
          T.FLOAT8: ">f8"}


def _fixed(values: np.ndarray, code: str, framed: bool = False) -> pa.Array:
    """One fixed-width big-endian value per row, as an Arrow binary array over the numpy
    buffer (no copy); `framed`: each value led by its int32 length, as a DataRow or a binary
    COPY row holds it (`framed_binary`)."""
    data = np.ascontiguousarray(values, dtype=np.dtype(code))
    size = data.dtype.itemsize
    if framed:
        rec = np.empty(len(data), np.dtype([("n", ">i4"), ("v", code)]))
        rec["n"], rec["v"] = size, data
        data, size = rec, size + 4
    offsets = np.arange(0, (len(data) + 1) * size, size, dtype=np.int32)
    return pa.BinaryArray.from_buffers(pa.binary(), len(data),
                                       [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def numeric_groups(u: np.ndarray, ds: np.ndarray) -> tuple[np.ndarray, ...]:
    """The parts of numeric's send form for values given as unscaled int64s `u` with
    display scales `ds` (at most 15 digits): base-10000 digit groups (five per value, the
    lowest first, scaled to whole fractional groups), the highest non-zero group's index,
    the digit count without leading or trailing zero groups, the weight and the sign word.

    >>> g, high, nd, w, s = numeric_groups(np.array([150, -1234567]), np.array([2, 2]))
    >>> g[0].tolist(), int(high[0]), nd.tolist(), w.tolist(), s.tolist()
    ([5000, 1, 0, 0, 0], 1, [2, 3], [0, 1], [0, 16384])
    """
    fg = (ds + 3) // 4
    a = np.abs(u) * np.power(10, 4 * fg - ds)
    groups = np.stack([(a // 10000 ** k) % 10000 for k in range(5)], axis=1)
    nz = groups != 0
    some = nz.any(axis=1)
    low = np.argmax(nz, axis=1)
    high = 4 - np.argmax(nz[:, ::-1], axis=1)
    nd = np.where(some, high - low + 1, 0)
    return groups, high, nd, np.where(some, high - fg, 0), np.where((u < 0) & some, 0x4000, 0)


def _numerics_binary(vals: Sequence[Any], framed: bool = False) -> pa.Array | None:
    """The send form of finite Decimals of at most 15 digits, by scaled int64s: base-10000
    digit groups without leading or trailing zero groups, weight, sign and display scale."""
    strs = list(map(str, vals))
    if "E" in "".join(strs):  # NB: str() is shorter than format(v, "f") but can choose exponents
        strs = list(map(format, vals, repeat("f")))
    return _numeric_strings_binary(strs, framed)


_POW10000 = 10000 ** np.arange(4, -1, -1, dtype=np.int64)
_TENS = 10.0 ** np.arange(16)


def _kept(fixed: int) -> np.ndarray:
    """Which bytes of a numeric row (a fixed head, five digit groups) are sent, by
    6 * leading zero groups + digit count."""
    at = np.arange(fixed + 10)
    return np.array([(at < fixed) | ((at >= fixed + 2 * lead) & (at < fixed + 2 * (lead + nd)))
                     for lead in range(5) for nd in range(6)])


_KEEP = {False: _kept(8), True: _kept(12)}
_NUM_HEAD = [("nd", ">i2"), ("w", ">i2"), ("s", ">u2"), ("ds", ">i2"), ("d", ">i2", (5,))]


def _numeric_strings_binary(strs: list[str], framed: bool = False) -> pa.Array | None:
    """`_numerics_binary` of the values' plain-notation strings (`framed`: each led by its
    int32 length)."""
    joined = "".join(strs)
    if "N" in joined or "I" in joined or "E" in joined:
        return None
    n = len(strs)
    arr = pa.array(strs, pa.string())
    lens = np.diff(np.frombuffer(arr.buffers()[1], np.int32, n + 1)).astype(np.int64)
    if lens.max() > 15:
        return None
    dots = pc.find_substring(arr, ".").to_numpy().astype(np.int64)
    ds = np.where(dots < 0, 0, lens - dots - 1)
    # NB: at most 15 digits: the nearest double, scaled, is within 0.25 of the integer
    u = np.rint(pc.cast(arr, pa.float64()).to_numpy() * _TENS[ds]).astype(np.int64)
    fg = (ds + 3) // 4  # fractional groups
    a = np.abs(u) * np.power(10, 4 * fg - ds)
    groups = a[:, None] // _POW10000 % 10000  # the highest first
    nz = groups != 0
    some = a != 0
    lead = np.where(some, np.argmax(nz, axis=1), 0)  # zero groups in front
    nd = np.where(some, 5 - np.argmax(nz[:, ::-1], axis=1) - lead, 0)
    head = np.empty(n, np.dtype(([("len", ">i4")] if framed else []) + _NUM_HEAD))
    fixed = 12 if framed else 8
    if framed:
        head["len"] = 8 + 2 * nd
    head["nd"], head["w"] = nd, np.where(some, 4 - lead - fg, 0)
    head["s"], head["ds"] = np.where((u < 0) & some, 0x4000, 0), ds
    head["d"] = groups
    # the head, then the digit groups from the first non-zero one to the last
    keep = _KEEP[framed][lead * 6 + nd]
    data = head.view(np.uint8).reshape(n, head.itemsize)[keep]
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(fixed + 2 * nd, out=offsets[1:])
    return pa.BinaryArray.from_buffers(pa.binary(), n,
                                       [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def framed_binary(col: Sequence[Any] | Coded, oid: int) -> pa.Array | None:
    """The binary fields (int32 length, then the send form) of a column without NULLs of
    a type with a fixed-width or numeric column form, built in one pass with the lengths in
    place (`binary_array` and a second join cost about twice as much); None otherwise.

    >>> framed_binary([1, 2], T.INT4).to_pylist()
    [b'\\x00\\x00\\x00\\x04\\x00\\x00\\x00\\x01', b'\\x00\\x00\\x00\\x04\\x00\\x00\\x00\\x02']
    >>> framed_binary([1, None], T.INT4) is None
    True
    """
    if isinstance(col, Coded):
        vals, valid = _wire(col)
        if valid is not None or not vals:
            return None
        if col.kind == "U" and oid == T.TIMESTAMP:
            us = _coded_ints(vals, _LOW_US, _HIGH_US)
            return None if us is None else _fixed(us - _EPOCH_2000_US, ">i8", True)
        if col.kind == "d" and oid == T.DATE:
            days = np.fromiter(vals, np.int64, len(vals)) - _EPOCH_ORDINAL - _EPOCH_2000_DAYS
            return _fixed(days, ">i4", True)
        if col.kind == "D" and oid == T.NUMERIC:
            return _numeric_strings_binary(vals, True)
        if col.kind == "T" and oid == T.TIMESTAMPTZ:
            us = _iso_micros(vals)
            return None if us is None else _fixed(us - _EPOCH_2000_US, ">i8", True)
        return None
    if not col:
        return None
    kinds = set(map(type, col))
    if len(kinds) != 1:
        return None
    try:
        return _fast_binary(col, next(iter(kinds)), oid, True)
    except OverflowError:
        return None  # NB: a value its type cannot hold: the type's encoder says why


def _fast_binary(vals: Sequence[Any], kind: type, oid: int, framed: bool) -> pa.Array | None:
    """The column forms of `binary_array` for non-NULL values of one Python type."""
    code = _FIXED.get(oid)
    if code is not None and kind is int and code[1] != "f":
        ints = np.fromiter(vals, np.int64, len(vals))
        info = np.iinfo(np.dtype(code))
        if info.min <= ints.min() and ints.max() <= info.max:
            return _fixed(ints, code, framed)
    elif code is not None and kind is float and code[1] == "f":
        return _fixed(np.fromiter(vals, np.float64, len(vals)), code, framed)
    elif kind is bool and oid == T.BOOL:
        return _fixed(np.fromiter(vals, np.uint8, len(vals)), "u1", framed)
    elif kind is Decimal and oid == T.NUMERIC:
        return _numerics_binary(vals, framed)
    elif kind is dt.datetime and oid == T.TIMESTAMP:
        us = _micros(vals)
        return None if us is None else _fixed(us - _EPOCH_2000_US, ">i8", framed)
    elif kind is dt.date and oid == T.DATE:
        days = pa.array(vals, pa.date32()).cast(pa.int32()).to_numpy()
        return _fixed(days.astype(np.int64) - _EPOCH_2000_DAYS, ">i4", framed)
    return None


def binary_array(col: Sequence[Any] | Coded, oid: int, enc: Callable[[Any], bytes] | None) -> pa.Array:
    """The binary send form of every value of a column, NULL for NULL (Arrow binary)."""
    if isinstance(col, Coded):
        coded = _coded_binary(col, oid)
        if coded is not None:
            return coded
        col = col.values()
    kinds, vals, valid = _split(col)
    got: pa.Array | None = None
    if len(kinds) == 1 and vals:
        (kind,) = kinds
        try:
            if kind is str and oid in STRINGS:
                got = pa.array(vals, pa.string()).cast(pa.binary())
            else:
                got = _fast_binary(vals, kind, oid, False)
        except OverflowError:
            got = None  # NB: a value its type cannot hold: the type's encoder says why
    if got is None:
        assert enc is not None
        got = pa.array(list(map(enc, vals)), pa.binary())
    return _expand(got, valid)
