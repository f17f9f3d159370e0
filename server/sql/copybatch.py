"""COPY FROM's batch parsers: a whole block of input becomes columns in a few C-level calls.

A per-value decoder call costs about as much as everything else a row costs
on the way into KiVi, so the common shapes of bulk input are parsed a block
at a time instead:

- text (and csv without quote characters): the block is split into fields
  once (`replace` newlines by the delimiter, one `split`), every line's field
  count is checked with one `map(str.count)`, and column `i` is the slice
  `fields[i::n]`; Arrow's CSV reader splits it instead where it can
  (`arrow_block`);
- csv with quoted fields or NULLs, one line per record: Arrow's CSV reader with
  quoting on (`arrow_csv_block`), which also tells an unquoted NULL string (NULL)
  from a quoted one (the value);
- each column is converted by `column_decoder`: `map(int, ...)` plus a
  min/max range check for integers, `map(float, ...)` for floats, nothing at
  all for strings; only a column that holds NULLs or backslash escapes pays
  one decoder call per value;
- binary rows whose columns are all fixed-width (int2/4/8, float4/8, oid)
  are unpacked with one `struct.iter_unpack`, and their per-row field
  counts and lengths are checked column-wise (if every count and length
  matches, the fixed layout is exactly what the per-field parser would read).

Whenever a fast path meets something it does not handle (a bad value, a
NULL, a short line), the caller's per-value path runs over the block, so
the error messages and SQLSTATEs stay exactly those of `pgtypes.text` and
`pgtypes.binary`.
"""

from __future__ import annotations

import datetime as dt
import functools
import operator
import re
import struct
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from itertools import filterfalse
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ..kivi.wirecols import DATE, DECIMAL, NAIVE_US, PLAIN, Encoded, scaled_kind
from ..pgtypes import oids as T
from ..pgtypes.numtypmod import precision_scale
from ..pgtypes.text import INT_RANGE, OID_LIKE, STRING_OIDS, text_decoder
from .expr.casts import cast_function

ColumnDecoder = Callable[[Sequence[str]], Sequence[Any]]

# Fixed-width binary layouts: struct code and width of each type's value.
_FIXED = {T.INT2: ("h", 2), T.INT4: ("i", 4), T.INT8: ("q", 8), T.OID: ("I", 4),
          T.FLOAT4: ("f", 4), T.FLOAT8: ("d", 8)}


def column_decoder(oid: int, tz: Any = None, typmod: int = -1) -> ColumnDecoder:
    """Returns a function converting a column of text values (no NULLs, no escapes) at once.

    For numeric, `typmod` (numeric(p, s)) is applied too; other typmods are the caller's.
    """
    run = _column_decoder(oid, tz, typmod)
    return shared(run) if oid in _SHARED or oid in STRING_OIDS else run


def _column_decoder(oid: int, tz: Any, typmod: int) -> ColumnDecoder:
    dec = text_decoder(oid, tz)
    if oid == T.NUMERIC:
        return _numerics(dec, typmod)
    shape = _SHAPES.get(oid)
    if shape is not None:
        return _iso(oid, _shaped(dec, shape[0], shape[1]))
    if oid == T.BOOL:

        def bools(col: Sequence[str]) -> Sequence[Any]:
            try:
                return _plain(list(map(_BOOLS.__getitem__, col)))
            except KeyError:
                return list(map(dec, col))

        return bools
    if oid in STRING_OIDS or oid == 0 or dec is str:
        return _same
    if oid in INT_RANGE or oid in OID_LIKE:
        lo, hi = INT_RANGE.get(oid, INT_RANGE[T.OID])

        arrow = _ARROW_INTS.get(oid)

        def ints(col: Sequence[str]) -> Sequence[Any]:
            got = _arrow_ints(col, arrow) if arrow is not None and col else None
            if got is not None:
                return _plain(got)
            if not _int_text(col):
                return list(map(dec, col))  # NB: int() takes 1_000 and other digits
            try:
                out = list(map(int, col))  # NB: int() strips blanks, as the decoder does
            except ValueError:
                return list(map(dec, col))  # raises the decoder's 22P02 for the bad value
            if out and (min(out) < lo or max(out) > hi):
                return list(map(dec, col))  # 22003, naming the value
            return _plain(out)

        return ints
    if oid == T.FLOAT8:

        def floats(col: Sequence[str]) -> Sequence[Any]:
            arr = _arrow_floats(col) if col else None
            if arr is not None:
                out = arr.tolist()
            else:
                joined = "".join(col)
                if "_" in joined or not joined.isascii():
                    return list(map(dec, col))  # NB: float() takes 1_0.5 and other digits
                try:
                    out = list(map(float, col))
                except ValueError:
                    return list(map(dec, col))
                arr = np.array(out, np.float64)
            for i in np.flatnonzero(np.isinf(arr) | (arr == 0)).tolist():
                dec(col[i])  # NB: float() rounds 1e400 to inf and 1e-400 to 0: 22003 here
            return _plain(out)

        return floats
    return lambda col: list(map(dec, col))


_ARROW_INTS = {T.INT2: pa.int16(), T.INT4: pa.int32(), T.INT8: pa.int64()}


def _arrow_ints(col: Sequence[str], typ: pa.DataType) -> list[int] | None:
    """The column's integers parsed by Arrow's cast (about half of `map(int)` plus the range
    check); None when Arrow refuses one (a blank, a `+`, out of range: `int()` and the
    decoder then say what PostgreSQL says) or when a value may be hexadecimal (`0x1F`,
    which Arrow reads and PostgreSQL 15 refuses).

    >>> _arrow_ints(["1", "-20", "007"], pa.int16()), _arrow_ints(["0x1F"], pa.int64())
    ([1, -20, 7], None)
    >>> _arrow_ints(["32768"], pa.int16()), _arrow_ints([" 5"], pa.int32())
    (None, None)
    """
    return _arrow_ints_of(pa.array(col, pa.string()), typ)


def _arrow_ints_of(arr: pa.Array, typ: pa.DataType) -> list[int] | None:
    """`_arrow_ints` of the values as an Arrow string array."""
    data = arr.buffers()[2]
    if data is None or data.to_pybytes().translate(None, b"0123456789-"):
        return None  # NB: anything but digits and minus signs (x, blanks, +) goes the slow way
    try:
        return list(arr.cast(typ).to_numpy().tolist())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


ArrowDecoder = Callable[[pa.Array], Sequence[Any]]


def arrow_decoder(oid: int, tz: Any = None, typmod: int = -1) -> ArrowDecoder | None:
    """`column_decoder` for a column given as an Arrow string array (`arrow_block`):
    integers and booleans converted without a Python string per value, the types
    `shared` takes once per distinct value (`arrow_shared`); None for the others, whose
    decoders take the values as Python strings.

    >>> arrow_decoder(T.INT4)(pa.array(["1", "-20", "007"])), arrow_decoder(T.FLOAT4)
    ([1, -20, 7], None)
    >>> arrow_decoder(T.FLOAT8)(pa.array(["1.5", "0", "-2e3"])), arrow_decoder(T.FLOAT8)(pa.array(["NaN"]))
    ([1.5, 0.0, -2000.0], [nan])
    >>> arrow_decoder(T.BOOL)(pa.array(["t", "false", "true"])).wire
    [True, False, True]
    >>> arrow_decoder(T.INT2)(pa.array(["1", "32768"]))
    Traceback (most recent call last):
    ...
    cumulo.server.errors.NumericValueOutOfRange: value "32768" is out of range for type smallint
    """
    if oid == T.NUMERIC:
        return arrow_shared(_arrow_numerics(_column_decoder(oid, tz, typmod), typmod))
    if oid in _SHARED or oid in STRING_OIDS:
        run = _column_decoder(oid, tz, typmod)
        return arrow_shared(lambda arr: run(arr.to_pylist()))
    slow = column_decoder(oid)
    typ = _ARROW_INTS.get(oid)
    if typ is not None:

        def ints(arr: pa.Array) -> Sequence[Any]:
            got = _arrow_ints_of(arr, typ) if len(arr) else None
            return slow(arr.to_pylist()) if got is None else _plain(got)

        return ints
    if oid == T.FLOAT8:
        dec = text_decoder(oid)

        def floats(arr: pa.Array) -> Sequence[Any]:
            got = _arrow_floats_of(arr) if len(arr) else None
            if got is None:
                return slow(arr.to_pylist())
            for i in np.flatnonzero(np.isinf(got) | (got == 0)).tolist():
                dec(arr[i].as_py())  # NB: 1e400 and 1e-400: 22003, as `column_decoder`
            return _plain(got.tolist())

        return floats
    if oid == T.BOOL:
        # NB: made here, not at import: pa.array imports pandas (~0.5 s), which no server
        # start should wait for (the server loads it in the background, cli.BACKGROUND_MODULES)
        trues, falses = pa.array(["t", "true"]), pa.array(["f", "false"])

        def bools(arr: pa.Array) -> Sequence[Any]:
            true = pc.is_in(arr, value_set=trues)
            if not pc.all(pc.or_(true, pc.is_in(arr, value_set=falses))).as_py():
                return slow(arr.to_pylist())
            return _plain(true.to_pylist())

        return bools
    return None


def _arrow_numerics(run: ColumnDecoder, typmod: int) -> ArrowDecoder:
    """numeric(p, s) of at most 18 digits from an Arrow array: values written with the
    column's scale are checked and their coefficients read from the array's buffers (no
    Python string for either); the Decimals are still built from each value's text.
    Anything else: `run` (`_numerics`) over the values as Python strings.

    >>> d = _arrow_numerics(_column_decoder(T.NUMERIC, None, (12 << 16 | 2) + 4),
    ...                     (12 << 16 | 2) + 4)(pa.array(["12.50", "-0.07"]))
    >>> d, d.wire
    ([Decimal('12.50'), Decimal('-0.07')], [1250, -7])
    """
    prec, scale = precision_scale(typmod) if typmod > 4 else (0, 0)
    if not 0 <= scale < prec <= 18:
        return lambda arr: run(arr.to_pylist())

    def numerics(arr: pa.Array) -> Sequence[Any]:
        if _fixed_point_of(arr, prec - scale, scale):
            coefs = _coefficients_of(arr)
            if coefs is not None:
                return Encoded(list(map(Decimal, arr.to_pylist())), scaled_kind(scale), coefs)
        return run(arr.to_pylist())

    return numerics


def arrow_shared(run: ArrowDecoder) -> ArrowDecoder:
    """`shared` for a column given as an Arrow array: Arrow's `dictionary_encode` finds
    the distinct values (in the order they first appear, so an error `run` raises names
    the first bad value), `run` converts those, and the rows share their objects and
    wire forms. A block with more distinct values than repeats goes to `run` as it is,
    and so does the rest of the COPY's column after two such blocks in a row.

    >>> dates = arrow_shared(lambda arr: _column_decoder(T.DATE, None, -1)(arr.to_pylist()))
    >>> a = dates(pa.array(["2024-01-31", "1999-12-31", "2024-01-31"] * 200))
    >>> a[:2], a[0] is a[2], a.wire[:3]
    ([datetime.date(2024, 1, 31), datetime.date(1999, 12, 31)], True, [738916, 730119, 738916])
    """
    misses = [0]

    def run_shared(arr: pa.Array) -> Sequence[Any]:
        if misses[0] >= 2 or len(arr) < 2 * SAMPLE:
            return run(arr)
        enc = pc.dictionary_encode(arr)
        if len(enc.dictionary) * 2 > len(arr):
            misses[0] += 1
            return run(arr)
        misses[0] = 0
        got = run(enc.dictionary)
        idx = enc.indices.to_numpy().tolist()
        values = list(map(got.__getitem__, idx))
        if type(got) is not Encoded:
            return values
        if got.kind == PLAIN:
            return Encoded(values, PLAIN, values)
        return Encoded(values, got.kind, list(map(got.wire.__getitem__, idx)))

    return run_shared


def arrow_block(data: bytes, delim: str, n: int, lines: int) -> list[pa.Array] | None:
    """`split_block` of a block (UTF-8, `lines` newline-separated lines, no carriage
    return, no backslash) by Arrow's CSV reader with quoting and escapes off: the n
    columns as Arrow string arrays, no Python string per field. None when a line has
    another field count than n (`split_block` then says which).

    >>> [a.to_pylist() for a in arrow_block(b"1,a\\n2,", ",", 2, 2)]
    [['1', '2'], ['a', '']]
    >>> arrow_block(b"1,a\\n2", ",", 2, 2), arrow_block(b"1,a\\n", ",", 2, 2)
    (None, None)
    """
    if n > 1 and _has_empty_line(data):
        return None
    try:
        table = pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(autogenerate_column_names=True, use_threads=False,
                                          block_size=len(data) + 1),
            parse_options=_csv_options(delim),
            convert_options=_string_columns(n))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_columns != n or table.num_rows != lines:  # NB: an empty last line is a row
        return None
    return [c.combine_chunks() for c in table.columns]


def arrow_csv_block(data: bytes, delim: str, quote: str, null: str, n: int,
                    lines: int) -> list[pa.Array] | None:
    """A block of csv records (UTF-8, `lines` one-line records, no carriage return) split
    by Arrow's CSV reader with quoting on and doubled quotes as the escape: the n columns as
    Arrow string arrays, an unquoted field equal to `null` as NULL and a quoted one as
    the string, as PostgreSQL's CSV input reads them (without FORCE_NULL/FORCE_NOT_NULL).
    Only for blocks `copycsv.simple_block` matches: a quote opens a field or nothing, so
    Arrow and CopyReadAttributesCSV agree. None when a record has another field count.

    >>> [a.to_pylist() for a in arrow_csv_block(b'1,"a,""b"\\n2,\\n3,""', ",", '"', "", 2, 3)]
    [['1', '2', '3'], ['a,"b', None, '']]
    >>> arrow_csv_block(b'1,a\\n2', ",", '"', "", 2, 2) is None
    True
    >>> arrow_csv_block(b'1,a\\n\\n2,b', ",", '"', "", 2, 3) is None
    True
    >>> [a.to_pylist() for a in arrow_csv_block(b'1,"q",', ",", '"', "", 3, 1)]
    [['1'], ['q'], [None]]
    """
    if n > 1 and _has_empty_line(data):
        return None
    # NB: the last line ended by a newline: at the end of the data Arrow read an unquoted
    # empty last field after a quoted one as "" (not NULL), and a lone line not at all
    data += b"\n"
    try:
        table = pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(autogenerate_column_names=True, use_threads=False,
                                          block_size=len(data) + 1),
            parse_options=_quoted_options(delim, quote),
            convert_options=_csv_string_columns(n, null))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_columns != n or table.num_rows != lines:
        return None
    return [c.combine_chunks() for c in table.columns]


def _has_empty_line(data: bytes) -> bool:
    """Whether a block of lines (no newline after the last) has an empty one. Arrow reads
    an empty line as a row of empty fields whatever the column count, where PostgreSQL
    says a column's data is missing (22P04): such a block is not Arrow's to split.

    >>> _has_empty_line(b"1,a\\n\\n2,b"), _has_empty_line(b"1,a\\n"), _has_empty_line(b"1,a")
    (True, True, False)
    """
    return b"\n\n" in data or data[:1] == b"\n" or data[-1:] == b"\n" or not data


@functools.lru_cache(maxsize=16)
def _quoted_options(delim: str, quote: str) -> pcsv.ParseOptions:
    return pcsv.ParseOptions(delimiter=delim, quote_char=quote, escape_char=False,
                             double_quote=True, newlines_in_values=False,
                             ignore_empty_lines=False)


@functools.lru_cache(maxsize=64)
def _csv_string_columns(n: int, null: str) -> pcsv.ConvertOptions:
    return pcsv.ConvertOptions(column_types={f"f{i}": pa.string() for i in range(n)},
                               null_values=[null], strings_can_be_null=True,
                               quoted_strings_can_be_null=False)


@functools.lru_cache(maxsize=16)
def _csv_options(delim: str) -> pcsv.ParseOptions:
    return pcsv.ParseOptions(delimiter=delim, quote_char=False, escape_char=False,
                             double_quote=False, newlines_in_values=False,
                             ignore_empty_lines=False)


@functools.lru_cache(maxsize=64)
def _string_columns(n: int) -> pcsv.ConvertOptions:
    return pcsv.ConvertOptions(column_types={f"f{i}": pa.string() for i in range(n)},
                               null_values=[], strings_can_be_null=False,
                               quoted_strings_can_be_null=False)


def _arrow_floats(col: Sequence[str]) -> np.ndarray | None:
    """The column's float8 values parsed by Arrow's cast (correctly rounded, as `float()`
    and PostgreSQL's strtod; about a sixth of `map(float)`), when every value is written
    with digits, dots, signs and exponents only and Arrow reads each whole; None
    otherwise (blanks, NaN, Infinity, a bad value: `float()` and the decoder then say
    what PostgreSQL says). Infinities and zeros from overflow are the caller's check.

    >>> _arrow_floats(["1.5", "-2e3", "0.1", ".5"]).tolist(), _arrow_floats([" 1"])
    ([1.5, -2000.0, 0.1, 0.5], None)
    >>> _arrow_floats(["1e"]), _arrow_floats(["1.2.3"]), _arrow_floats([""])
    (None, None, None)
    """
    return _arrow_floats_of(pa.array(col, pa.string()))


def _arrow_floats_of(arr: pa.Array) -> np.ndarray | None:
    """`_arrow_floats` of the texts as an Arrow string array."""
    data = arr.buffers()[2]
    if data is None or data.to_pybytes().translate(None, b"0123456789.eE+-"):
        return None
    try:
        return arr.cast(pa.float64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


_NOT_INT = str.maketrans("", "", "0123456789+- \t\n\r\v\f")


def _int_text(col: Sequence[str]) -> bool:
    """True when the values hold only what PostgreSQL's integer input reads (ASCII digits,
    signs, blanks), where `int()` agrees with it; `int()` also reads `1_000` and non-ASCII
    digits, which PostgreSQL 15 refuses.

    >>> _int_text([" +5", "-7 "]), _int_text(["1_000"]), _int_text(["\u0663"])
    (True, False, False)
    """
    joined = "".join(col)
    return joined.isascii() and not joined.translate(_NOT_INT)


def _same(col: Sequence[str]) -> Sequence[Any]:
    return _plain(col) if type(col) is list else col


def _plain(values: list[Any]) -> Encoded:
    """Values msgpack packs as they are (exact int, float, bool, str): the redo record
    takes them without looking at each value's type (`kivi.wirecols.Encoded`)."""
    return Encoded(values, PLAIN, values)


# The common spellings, checked for the whole column by one regular expression before a
# C-level conversion (`fromisoformat`, `Decimal`) that would accept more than PostgreSQL does
_DATE = r"\d{4}-\d{2}-\d{2}"
_SHAPES = {
    T.DATE: (re.compile(f"(?:{_DATE}\n)*{_DATE}"), dt.date.fromisoformat),
    T.TIMESTAMP: (re.compile(f"(?:{_DATE}[ T]\\d{{2}}:\\d{{2}}:\\d{{2}}(?:\\.\\d{{1,6}})?\n)*"
                             f"{_DATE}[ T]\\d{{2}}:\\d{{2}}:\\d{{2}}(?:\\.\\d{{1,6}})?"),
                  dt.datetime.fromisoformat),
}
_SHAPES = {oid: (re.compile(shape.pattern, re.ASCII), conv) for oid, (shape, conv) in _SHAPES.items()}
_NUMBERS = re.compile(r"(?:-?\d{1,28}(?:\.\d{1,28})?\n)*-?\d{1,28}(?:\.\d{1,28})?", re.ASCII)
_BOOLS = {"t": True, "f": False, "true": True, "false": False}


# ISO dates and timestamps checked byte by byte, a whole column at a time, as an (n, width)
# array of ASCII codes: the digit positions and the separators of `YYYY-MM-DD` and
# `YYYY-MM-DD HH:MM:SS[.f...]` (space or T), every value of one width
_DATE_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9]
_TIME_DIGITS = [*_DATE_DIGITS, 11, 12, 14, 15, 17, 18]
_DATE_MARKS = [(4, 45), (7, 45)]  # '-'
_TIME_MARKS = [*_DATE_MARKS, (13, 58), (16, 58)]  # ':'
_ORDINAL_1970 = dt.date(1970, 1, 1).toordinal()
_US_LO = (dt.datetime.min - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_US_HI = (dt.datetime.max - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)


def _iso_codes(col: Sequence[str], date_only: bool) -> np.ndarray | None:
    """The values as an (n, width) array of ASCII codes when each is an ISO date (or
    timestamp) of the first value's width, year 1 or later; None otherwise."""
    width = len(col[0])
    if width != 10 if date_only else not (width == 19 or 21 <= width <= 26):
        return None
    text = "\n".join(col) + "\n"
    if not text.isascii() or len(text) != len(col) * (width + 1):
        return None
    m = np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(len(col), width + 1)
    digits = _DATE_DIGITS if date_only else _TIME_DIGITS + list(range(20, width))
    marks = _DATE_MARKS if date_only else _TIME_MARKS + ([(19, 46)] if width > 19 else [])
    d = m[:, digits]
    if (m[:, width] != 10).any() or (d < 48).any() or (d > 57).any():
        return None
    if any((m[:, i] != c).any() for i, c in marks):
        return None
    if not date_only and ((m[:, 10] != 32) & (m[:, 10] != 84)).any():  # ' ' or 'T'
        return None
    if (m[:, :4] == 48).all(axis=1).any():
        return None  # NB: year 0: Python has none; the decoder says what PostgreSQL says
    return m


def _iso(oid: int, slow: ColumnDecoder) -> ColumnDecoder:
    """dates and timestamps (without time zone) of the common ISO shapes, parsed by numpy
    (which refuses a day, hour, minute or second out of range as PostgreSQL does); the
    days or microseconds it gives are the redo record's form too. Anything else: `slow`."""
    date_only = oid == T.DATE
    unit = "datetime64[D]" if date_only else "datetime64[us]"

    def run(col: Sequence[str]) -> Sequence[Any]:
        if not col or _iso_codes(col, date_only) is None:
            return slow(col)
        try:
            arr = np.array(col, dtype=unit)
        except ValueError:
            return slow(col)  # NB: 2024-02-30, 25:00: the decoder names the bad value
        values = arr.astype(object).tolist()
        n = arr.astype(np.int64)
        if date_only:
            return Encoded(values, DATE, (n + _ORDINAL_1970).tolist())
        if n.min() == _US_LO or n.max() == _US_HI:
            return values  # NB: datetime.min/max: the redo record's own rules (wirecols)
        return Encoded(values, NAIVE_US, n.tolist())

    return run


def _coefficients(col: Sequence[str]) -> list[int] | None:
    """The integer coefficients of fixed-point texts `-?D+.D{s}` of one scale (checked by
    `_fixed_point`; at most 18 digits), read by Arrow; None when one is a negative zero
    (`-0.00`: the coefficient would lose its sign).

    >>> _coefficients(["12.50", "-0.07", "007.00"]), _coefficients(["1.00", "-0.00"])
    ([1250, -7, 700], None)
    """
    return _coefficients_of(pa.array(col, pa.string()))


def _coefficients_of(arr: pa.Array) -> list[int] | None:
    """`_coefficients` of the texts as an Arrow string array."""
    coefs = pc.cast(pc.replace_substring(arr, ".", ""), pa.int64()).to_numpy()
    if not coefs.all() and pc.any(pc.and_(pc.equal(coefs, 0),
                                          pc.starts_with(arr, "-"))).as_py():
        return None
    return list(coefs.tolist())


def _fixed_point(joined: str, count: int, int_digits: int, scale: int) -> bool:
    """Tells whether each of the `count` newline-separated values is written
    `-?D{1,int_digits}.D{scale}` in ASCII digits (no dot when scale is 0): then
    `Decimal(text)` is the numeric(p, s) value, typmod applied, and the text its wire form.

    >>> _fixed_point("12.50\\n-0.07\\n007.00", 3, 3, 2), _fixed_point("1.5\\n2.00", 2, 3, 2)
    (True, False)
    """
    if not joined.isascii():
        return False
    u8 = np.frombuffer((joined + "\n").encode("ascii"), dtype=np.uint8)
    ends = np.flatnonzero(u8 == 10)
    if len(ends) != count:
        return False
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    return _fixed_spans(u8, starts, ends, count, int_digits, scale)


def _fixed_point_of(arr: pa.Array, int_digits: int, scale: int) -> bool:
    """`_fixed_point` of the values as an Arrow string array (no NULL), from its buffers.

    >>> _fixed_point_of(pa.array(["12.50", "-0.07", "007.00"]), 3, 2)
    True
    >>> _fixed_point_of(pa.array(["1.5", "2.00"]), 3, 2), _fixed_point_of(pa.array(["", "1.00"]), 3, 2)
    (False, False)
    """
    n = len(arr)
    if n == 0 or arr.null_count:
        return False
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset:arr.offset + n + 1]
    first = int(offsets[0])
    data = arr.buffers()[2]
    if data is None:
        return False
    u8 = np.frombuffer(data, dtype=np.uint8)[first:int(offsets[-1])]
    starts = offsets[:-1].astype(np.int64) - first
    ends = offsets[1:].astype(np.int64) - first
    if (ends <= starts).any():
        return False  # NB: an empty value
    return _fixed_spans(u8, starts, ends, 0, int_digits, scale)


def _fixed_spans(u8: np.ndarray, starts: np.ndarray, ends: np.ndarray, separators: int,
                 int_digits: int, scale: int) -> bool:
    """`_fixed_point` of the values at [starts, ends) of `u8`, which holds them and
    `separators` other bytes (not digits) between them, and nothing else."""
    count = len(starts)
    neg = u8[starts] == 45  # '-'
    first = starts + neg
    point = ends - (scale + 1 if scale else 0)  # where the dot is, or the value ends
    width = point - first
    if (width < 1).any() or (width > int_digits).any():
        return False
    if scale and (u8[point] != 46).any():
        return False
    others = len(u8) - int(np.count_nonzero((u8 >= 48) & (u8 <= 57))) - separators
    # NB: every byte not a digit nor a newline is one of the signs and dots found above
    return others == int(np.count_nonzero(neg)) + (count if scale else 0)


def _shaped(dec: Callable[[str], Any], shape: re.Pattern[str], conv: Callable[[str], Any]
            ) -> ColumnDecoder:
    def run(col: Sequence[str]) -> Sequence[Any]:
        if col and shape.fullmatch("\n".join(col)):
            try:
                return list(map(conv, col))
            except ValueError:
                pass  # NB: 2024-02-30: the decoder names the bad value
        return list(map(dec, col))

    return run


def _numerics(dec: Callable[[str], Any], typmod: int) -> ColumnDecoder:
    """numeric (and numeric(p, s): rounded half up, overflow checked) for a whole column."""
    slow = dec if typmod <= 4 else _then(dec, cast_function(T.NUMERIC, T.NUMERIC, typmod))
    exact = None
    if typmod > 4:
        prec, scale = precision_scale(typmod)
        rnd = functools.partial(Decimal.quantize, exp=Decimal(1).scaleb(-scale),
                                rounding=ROUND_HALF_UP)
        if 0 <= scale < prec:  # NB: values written with the column's scale, within range:
            one = rf"-?\d{{1,{prec - scale}}}" + (rf"\.\d{{{scale}}}" if scale else "")
            exact = re.compile(f"(?:{one}\n)*{one}")  # Decimal(v) is the rounded value

    def run(col: Sequence[str]) -> Sequence[Any]:
        if not col:
            return []
        joined = "\n".join(col)
        if exact is not None and _fixed_point(joined, len(col), prec - scale, scale):
            # NB: Decimal(text) is the value, with the text's scale: the text is its wire
            # form, kept only for few values (`shared`); the commit's `str` gives it back
            # otherwise, rather than each row's text waiting for the commit too
            if prec <= 18:
                coefs = _coefficients(col)
                if coefs is not None:  # NB: the redo record's form: no `str` at the commit
                    return Encoded(list(map(Decimal, col)), scaled_kind(scale), coefs)
            values = list(map(Decimal, col))
            return Encoded(values, DECIMAL, list(col)) if len(col) <= SAMPLE else values
        if not _NUMBERS.fullmatch(joined):
            return list(map(slow, col))
        out = list(map(Decimal, col))
        if typmod <= 4:
            return out
        try:
            out = list(map(rnd, out))
        except ArithmeticError:
            return list(map(slow, col))
        if max(map(Decimal.adjusted, out)) >= prec - scale:
            return list(map(slow, col))  # NB: 22003 numeric field overflow, as the cast says
        return out

    return run


SAMPLE = 256  # values `shared` looks at to guess whether a column repeats itself
SHARED_MAX = 1 << 18  # distinct texts (and their objects) `shared` keeps per column

# Types whose values are immutable objects a COPY may share between rows (`shared`)
# (not integers: Arrow parses them for less than the dict pass costs, and one is 28 bytes)
_SHARED = frozenset({T.NUMERIC, T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ})


def shared(run: ColumnDecoder) -> ColumnDecoder:
    """`run`, with one object per distinct text when the column repeats values (TPC-H's
    quantities, discounts, dates, ship modes): `run` converts
    only texts not met before in this COPY, and the rows share their objects (and their
    redo-record forms): one dict lookup per row instead of a value built per row, and one
    object kept instead of one per row while the COPY's rows wait for the commit and then
    in the row store (a lineitem row held ~500 bytes of its own copies). The objects met
    are kept across blocks, up to `SHARED_MAX` texts (then forgotten, and met again). A
    block whose first `SAMPLE` values are all distinct, or with more distinct values than
    repeats, goes to `run` at once, and so does the rest of the COPY's column after two
    such blocks in a row. `run` must give objects nobody changes (numbers,
    dates, strings); an error it raises names the first bad text, which is the block's
    first bad value too (the new texts keep their first order).

    >>> dates = column_decoder(T.DATE)
    >>> a = dates(["2024-01-31", "1999-12-31", "2024-01-31"] * 200)
    >>> a[:2], a[0] is a[2], a.wire[:3]
    ([datetime.date(2024, 1, 31), datetime.date(1999, 12, 31)], True, [738916, 730119, 738916])
    >>> b = dates(["1999-12-31", "2000-01-01"] * 200)
    >>> b[0] is a[1], b.wire[:2]
    (True, [730119, 730120])
    """
    values_of: dict[str, Any] = {}
    wire_of: dict[str, Any] = {}  # NB: the texts whose run gave an Encoded of `kind`
    kind: list[int] = []
    misses = [0]  # blocks in a row with more distinct values than repeats

    def run_shared(col: Sequence[str]) -> Sequence[Any]:
        head = col[:SAMPLE]
        if misses[0] >= 2 or len(set(head)) == len(head) == SAMPLE:
            return run(col)  # NB: two blocks missed: this COPY's column does not repeat
        if max(map(len, head)) <= 1:
            return run(col)  # NB: Python keeps one object per one-character string already
        first = dict.fromkeys(col)
        if len(first) * 2 > len(col):
            misses[0] += 1
            return run(col)
        misses[0] = 0
        if len(values_of) + len(first) > SHARED_MAX:
            values_of.clear()
            wire_of.clear()
        new = list(filterfalse(values_of.__contains__, first))
        if new:
            got = run(new)
            values_of.update(zip(new, got, strict=True))
            if type(got) is Encoded:
                if not kind:
                    kind.append(got.kind)
                if got.kind == kind[0]:
                    wire_of.update(zip(new, got.wire, strict=True))
        values = list(map(values_of.__getitem__, col))
        if not kind or not wire_of.keys() >= first.keys():
            return values
        if kind[0] == PLAIN:
            return Encoded(values, PLAIN, values)
        return Encoded(values, kind[0], list(map(wire_of.__getitem__, col)))

    return run_shared


def _then(dec: Callable[[str], Any], conv: Callable[[Any], Any] | None) -> Callable[[str], Any]:
    return dec if conv is None else (lambda v: conv(dec(v)))


def may_hold_null(text: str, null: str, delim: str) -> bool:
    """Tells whether a field of the block (`text`, newline-separated lines of fields) may be
    the NULL string; False means none is, so no column need be scanned for it.

    >>> may_hold_null("1\\t2\\n3\\t4", "\\\\N", "\\t"), may_hold_null("1,,2", "", ",")
    (False, True)
    >>> may_hold_null("1,2\\n3,4", "", ","), may_hold_null("1,2\\n", "", ",")
    (False, True)
    """
    if null:
        return null in text
    ends = ("\n", delim)  # NB: an empty field begins a line or follows a delimiter, and ends
    return (not text or text.startswith(ends) or text.endswith(ends) or delim + delim in text
            or "\n" + delim in text or delim + "\n" in text or "\n\n" in text)


def split_block(text: str, delim: str, n: int) -> list[list[str]] | None:
    """`split_fields` of a block given as text alone. An ASCII block's field counts are
    checked by numpy (the delimiters before each line end), not line by line.

    >>> split_block("1,a\\n2,b", ",", 2), split_block("1,a\\n2", ",", 2)
    ([['1', '2'], ['a', 'b']], None)
    """
    if not (text.isascii() and delim.isascii() and len(delim) == 1 and delim != "\n"):
        return split_fields(text, text.split("\n"), delim, n)
    u8 = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    ends = np.flatnonzero(u8 == 10)
    at = np.flatnonzero(u8 == ord(delim))
    lines = len(ends) + 1
    if len(at) != (n - 1) * lines:
        return None
    if n == 1:
        return [text.split("\n")]
    # NB: with the total right, each line has n - 1 delimiters iff each line end has
    # (n - 1) * (lines before it, itself included) delimiters before it
    if len(ends) and (np.searchsorted(at, ends) != np.arange(1, lines) * (n - 1)).any():
        return None
    flat = text.replace("\n", delim).split(delim)
    return [flat[i::n] for i in range(n)]


def split_fields(text: str, lines: list[str], delim: str, n: int) -> list[list[str]] | None:
    """Splits newline-joined `lines` (== `text`) into n columns; None if a line has != n fields."""
    counts = set(map(operator.methodcaller("count", delim), lines))
    if counts != {n - 1}:
        return None
    if n == 1:
        return [lines]
    flat = text.replace("\n", delim).split(delim)
    return [flat[i::n] for i in range(n)]


def fixed_binary_layout(oids: Sequence[int]) -> tuple[struct.Struct, list[int]] | None:
    """Returns the struct of one binary COPY row of fixed-width columns, and the widths."""
    codes = []
    widths = []
    for oid in oids:
        spec = _FIXED.get(oid)
        if spec is None:
            return None
        codes.append("i" + spec[0])
        widths.append(spec[1])
    return struct.Struct("!h" + "".join(codes)), widths


def unpack_fixed_rows(
    layout: tuple[struct.Struct, list[int]], data: bytes | memoryview
) -> list[tuple[Any, ...]] | None:
    """Unpacks rows of a fixed layout; None when any row differs (a NULL, another count)."""
    st, widths = layout
    if not data or len(data) % st.size:
        return None
    raw = list(st.iter_unpack(data))
    n = len(widths)
    if set(map(operator.itemgetter(0), raw)) != {n}:
        return None
    for i, w in enumerate(widths):
        if set(map(operator.itemgetter(1 + 2 * i), raw)) != {w}:
            return None
    pick = operator.itemgetter(*range(2, 2 + 2 * n, 2))
    if n == 1:
        return [(v,) for v in map(pick, raw)]
    return list(map(pick, raw))
