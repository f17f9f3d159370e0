"""COPY TO's batch encoders: a batch of rows becomes framed CopyData in a few C-level passes.

PostgreSQL sends one CopyData message per row, and clients rely on it
(psycopg's `Copy.rows()` parses each message as exactly one row), so the
messages stay one per row. What is batched is the work: a batch from the
plan is turned into columns once, each column is encoded with one `map`
(or one `str.join`/`format` pass for the common types), the text forms are
escaped (text) or quoted (csv) only where a column holds a special
character, and every row's payload is built with one `str.join` per row from
C (`map(delim.join, zip(*cols))`). `frame` then puts the message headers in
front of all payloads of a batch and joins them into one `bytes`: no Python
call per row or per value on the common path.

The rules are PostgreSQL 15's (`CopyAttributeOutText`, `CopyAttributeOutCSV`,
`CopyOneRowTo`):

- text: backslash, newline, carriage return, tab (and the delimiter) are
  backslash-escaped; NULL is the NULL string, unescaped;
- csv: a value is quoted when FORCE_QUOTE names its column, when it equals
  the NULL string, when it is `\\.` in a one-column COPY, or when it holds the
  delimiter, the quote, a newline or a carriage return; inside quotes every
  quote and escape character is preceded by the escape character; NULL is
  the NULL string, never quoted;
- binary: a row is an int16 field count, then for each field an int32 length
  (-1 for NULL) and the type's send form.

>>> csv_column(["a", "", None, "x,y"], null="", delim=",", quote='"', escape='"')
['a', '""', '', '"x,y"']
>>> text_column(["a\\tb", None], null="\\\\N", delim="\\t")
['a\\\\tb', '\\\\N']
>>> frame([b"1\\n", b"22\\n"])
b'd\\x00\\x00\\x00\\x061\\nd\\x00\\x00\\x00\\x0722\\n'
"""

from __future__ import annotations

import datetime as dt
import operator
import struct
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from itertools import repeat
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..pgtypes import dateparse
from ..pgtypes import oids as T
from ..pgtypes.binary import binary_encoder
from ..pgtypes.text import text_encoder
from ..pgtypes.vectext import numeric_groups, plain_numerics, text_array
from ..pgwire.colframe import binary_fields, copy_lines, data_rows

Strings = list[str | None]
_EPOCH_2000 = dt.date(2000, 1, 1)
_EPOCH_2000_US = (dt.datetime(2000, 1, 1) - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_DATA_HEAD = struct.Struct("!ci")
_I32 = struct.Struct("!i").pack
NULL_FIELD = b"\xff\xff\xff\xff"
SIGNATURE = b"PGCOPY\n\xff\r\n\x00"

# Types whose text output never holds a backslash, tab, newline or carriage return
_PLAIN_OUT = frozenset((T.INT2, T.INT4, T.INT8, T.OID, T.FLOAT4, T.FLOAT8, T.NUMERIC, T.BOOL,
                        T.DATE, T.TIME, T.TIMESTAMP, T.TIMESTAMPTZ, T.INTERVAL, T.UUID))
_ESCAPES = str.maketrans({"\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                          "\t": "\\t", "\v": "\\v"})
_SPECIALS = ("\\", "\b", "\f", "\n", "\r", "\t", "\v")


def has_null(col: Sequence[Any]) -> bool:
    """True when the column holds a NULL, by identity (`None in col` would call
    `Decimal.__eq__(None)`, which asks `numbers.Rational` per value)."""
    return any(map(operator.is_, col, repeat(None)))


class _Heads(dict[int, bytes]):
    """CopyData headers by payload length, made once per length (lengths repeat a lot)."""

    def __missing__(self, n: int) -> bytes:
        head = self[n] = _DATA_HEAD.pack(b"d", n + 4)
        return head


_HEADS = _Heads()


def frame(payloads: list[bytes]) -> bytes:
    """One CopyData message per payload, all joined into one bytes."""
    if not payloads:
        return b""
    out: list[bytes] = [b""] * (2 * len(payloads))
    out[0::2] = map(_HEADS.__getitem__, map(len, payloads))
    out[1::2] = payloads
    return b"".join(out)


# -- values to text, a column at a time --------------------------------------------------------

_DAY_US = 86_400_000_000
_YEAR2_US = (dt.datetime(2, 1, 1) - dt.datetime(2000, 1, 1)) // dt.timedelta(microseconds=1)
_YEAR9999_US = (dt.datetime(9999, 1, 1) - dt.datetime(2000, 1, 1)) // dt.timedelta(microseconds=1)
_clock: Any = None  # "HH:MM:SS" for each second of a day, made at the first use


def _clock_strings() -> Any:
    """The 86,400 `HH:MM:SS` strings, built by two outer concatenations in numpy (a
    formatted string each cost the first COPY TO of a server about 60 ms)."""
    global _clock
    if _clock is None:
        two = np.array([f"{i:02d}" for i in range(60)], dtype=object)
        hours_minutes = np.add.outer(np.add.outer(two[:24], ":"), two).ravel()
        _clock = np.add.outer(np.add.outer(hours_minutes, ":"), two).ravel()
    return _clock


def _timestamps(col: Sequence[Any]) -> list[str] | None:
    """`2024-01-02 03:04:05[.123]`; None (the value encoder) for infinity, year 1, zones.

    Whole-second columns are cut into days and seconds in numpy (via Arrow's conversion
    of the datetimes), each distinct day is formatted once and each second of the day
    comes from a table: a per-value `isoformat` costs several times more.
    """
    if set(map(type, col)) != {dt.datetime} or \
            set(map(operator.attrgetter("tzinfo"), col)) != {None}:
        return None
    us = pa.array(col, pa.timestamp("us")).cast(pa.int64()).to_numpy() - _EPOCH_2000_US
    if us.min() < _YEAR2_US or us.max() >= _YEAR9999_US:
        return None  # NB: the infinity sentinels and year 1 have their own spelling
    days, rest = np.divmod(us, _DAY_US)
    if (rest % 1_000_000).any():
        out = list(map(operator.methodcaller("isoformat", " "), col))
        return [v.rstrip("0") if len(v) == 26 else v for v in out]  # PostgreSQL's fractions
    distinct, which = np.unique(days, return_inverse=True)
    dates = np.array([(_EPOCH_2000 + dt.timedelta(days=int(d))).isoformat() + " "
                      for d in distinct], dtype=object)
    return list((dates[which] + _clock_strings()[rest // 1_000_000]).tolist())


def _dates(col: Sequence[Any]) -> list[str] | None:
    if set(map(type, col)) != {dt.date}:
        return None  # NB: InfiniteDate prints as infinity
    return list(map(dt.date.isoformat, col))


def _numerics(col: Sequence[Any]) -> list[str] | None:
    """Decimals in plain notation; None (the value encoder) for ints, -0 and specials."""
    if set(map(type, col)) != {Decimal}:
        return None
    return plain_numerics(col)


_BOOL_TEXT = {True: "t", False: "f"}


def _bools(col: Sequence[Any]) -> list[str] | None:
    if set(map(type, col)) != {bool}:
        return None
    return list(map(_BOOL_TEXT.__getitem__, col))


def _ints(col: Sequence[Any]) -> list[str] | None:
    return list(map(int.__repr__, col)) if set(map(type, col)) == {int} else None


def _strings(col: Sequence[Any]) -> list[str] | None:
    return list(col) if set(map(type, col)) == {str} else None


_COLUMN_OUT: dict[int, Callable[[Sequence[Any]], list[str] | None]] = {
    T.NUMERIC: _numerics, T.BOOL: _bools, T.INT2: _ints, T.INT4: _ints, T.INT8: _ints,
    T.TEXT: _strings, T.VARCHAR: _strings, T.BPCHAR: _strings, T.NAME: _strings,
}
_ISO_OUT: dict[int, Callable[[Sequence[Any]], list[str] | None]] = {
    T.TIMESTAMP: _timestamps, T.DATE: _dates,
}


def column_strings(col: Sequence[Any], enc: Callable[[Any], str], oid: int) -> Strings:
    """The output-function text of each value, None for NULL."""
    nulls = has_null(col)
    values = [v for v in col if v is not None] if nulls else col
    fast = _COLUMN_OUT.get(oid) or (_ISO_OUT.get(oid) if dateparse.date_style() == "ISO"
                                    else None)
    got = fast(values) if fast is not None and values else None
    out: Strings = got if got is not None else list(map(enc, values))  # type: ignore[assignment]
    if not nulls:
        return out
    it = iter(out)
    return [None if v is None else next(it) for v in col]


def plain(oid: int, delim: str, csv_null: str | None = None, quote: str = '"') -> bool:
    """True when no value of the type can need escaping (text) or quoting (csv, where a
    value must also never equal the NULL string: the type's output is never empty)."""
    if oid not in _PLAIN_OUT:
        return False
    if csv_null is None:
        return delim == "\t"
    return delim == "," and csv_null == "" and quote == '"'




def text_column(vals: Strings, null: str, delim: str, plain: bool = False) -> list[str]:
    """Text format: escapes the values that need it; NULL becomes the NULL string."""
    if not plain:
        joined = "".join(filter(None, vals))
        if any(c in joined for c in (*_SPECIALS, delim)):
            table = _ESCAPES if ord(delim) in _ESCAPES else {**_ESCAPES, ord(delim): "\\" + delim}
            vals = [None if v is None else v.translate(table) for v in vals]
    return [null if v is None else v for v in vals] if has_null(vals) else vals  # type: ignore


def csv_column(vals: Strings, null: str, delim: str, quote: str, escape: str,
               forced: bool = False, single: bool = False, plain: bool = False) -> list[str]:
    """csv format: quotes the values that need it; NULL becomes the (unquoted) NULL string."""
    def quoted(v: str) -> str:
        if escape != quote:
            v = v.replace(escape, escape + escape)
        return quote + v.replace(quote, escape + quote) + quote

    if forced:
        return [null if v is None else quoted(v) for v in vals]
    if plain:
        return [null if v is None else v for v in vals] if has_null(vals) else vals  # type: ignore
    joined = "".join(filter(None, vals))
    special = any(c in joined for c in (delim, quote, "\n", "\r"))
    if not special and null not in vals and not (single and "\\." in vals):
        return [null if v is None else v for v in vals] if has_null(vals) else vals  # type: ignore

    def one(v: str | None) -> str:
        if v is None:
            return null
        if v == null or (single and v == "\\.") or any(c in v for c in (delim, quote, "\n", "\r")):
            return quoted(v)
        return v

    return list(map(one, vals))


def lines(cols: list[list[str]], delim: str, n: int) -> list[bytes]:
    """Each of n rows' payload: its fields joined by the delimiter, then a newline."""
    if not cols:
        return [b"\n"] * n
    cols[-1] = list(map(operator.add, cols[-1], repeat("\n")))
    return list(map(str.encode, map(delim.join, zip(*cols, strict=True))))


# -- binary --------------------------------------------------------------------------------------

_FIXED = {T.INT2: struct.Struct("!ih"), T.INT4: struct.Struct("!ii"), T.INT8: struct.Struct("!iq"),
          T.FLOAT4: struct.Struct("!if"), T.FLOAT8: struct.Struct("!id"),
          T.OID: struct.Struct("!iI")}
_BOOL_FIELDS = (b"\x00\x00\x00\x01\x00", b"\x00\x00\x00\x01\x01")


def binary_column(col: Sequence[Any], enc: Callable[[Any], bytes], oid: int) -> list[bytes]:
    """Each value as a binary COPY field: int32 length (-1 for NULL), then its send form."""
    if has_null(col):
        one = _binary_field(enc, oid)
        return [NULL_FIELD if v is None else one(v) for v in col]
    st = _FIXED.get(oid)
    if st is not None:
        try:
            return list(map(st.pack, repeat(st.size - 4), col))
        except struct.error:
            pass  # NB: a value the struct refuses: the type's encoder says why
    if oid == T.BOOL and set(map(type, col)) == {bool}:
        return [_BOOL_FIELDS[v] for v in col]
    if oid == T.NUMERIC:
        got = numerics_binary(col)
        if got is not None:
            return got
    if oid == T.TIMESTAMP or oid == T.DATE:
        got = _timestamps_binary(col) if oid == T.TIMESTAMP else _dates_binary(col)
        if got is not None:
            return got
    if oid in (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME) and set(map(type, col)) == {str}:
        data = list(map(str.encode, col))
        return list(map(operator.add, map(_I32, map(len, data)), data))
    data = list(map(enc, col))
    return list(map(operator.add, map(_I32, map(len, data)), data))


_NUM_HEAD = [("len", ">i4"), ("nd", ">i2"), ("w", ">i2"), ("s", ">u2"), ("ds", ">i2")]


def numerics_binary(col: Sequence[Any]) -> list[bytes] | None:
    """Binary numeric fields for a column of finite Decimals of at most 15 digits, in numpy.

    The send form is base-10000 digits without leading or trailing zero groups, a weight
    (the first group's power of 10000), the sign and the display scale. Here every value
    becomes one int64 scaled to whole fractional groups (`1.5` with scale 2 is 15000: groups
    1 and 5000), its groups are cut with five vectorized divisions, and the rows are built
    per digit count with a structured array each. None for anything else (the per-value
    encoder then runs).

    >>> from cumulo.server.pgtypes.binary import encode_numeric
    >>> col = [Decimal(x) for x in ("1.50", "0.01", "-12345.67", "0", "-0.00", "1E+4")]
    >>> numerics_binary(col) == [_I32(len(e)) + e for e in map(encode_numeric, col)]
    True
    """
    if not col or set(map(type, col)) != {Decimal}:
        return None
    strs = list(map(format, col, repeat("f")))
    if max(map(len, strs)) > 15 or "N" in "".join(strs) or "I" in "".join(strs):
        return None
    n = len(strs)
    lens = np.fromiter(map(len, strs), np.int64, n)
    dots = np.fromiter(map(str.find, strs, repeat(".")), np.int64, n)
    ds = np.where(dots < 0, 0, lens - dots - 1)
    u = np.fromiter(map(int, map(str.replace, strs, repeat("."), repeat(""))), np.int64, n)
    groups, high, nd, weight, sign = numeric_groups(u, ds)
    out: list[bytes] = [b""] * n
    for k in range(6):
        idx = np.nonzero(nd == k)[0]
        if not len(idx):
            continue
        rec = np.zeros(len(idx), np.dtype(_NUM_HEAD + ([("d", ">i2", (k,))] if k else [])))
        rec["len"], rec["nd"], rec["w"] = 8 + 2 * k, k, weight[idx]
        rec["s"], rec["ds"] = sign[idx], ds[idx]
        for j in range(k):
            rec["d"][:, j] = groups[idx, high[idx] - j]
        buf, size = rec.tobytes(), rec.itemsize
        for i, piece in zip(idx.tolist(), [buf[i:i + size] for i in range(0, len(buf), size)],
                            strict=True):
            out[i] = piece
    return out


_EPOCH_DAYS = dt.date(2000, 1, 1).toordinal()


def _fixed_fields(values: Any, code: str) -> list[bytes]:
    """Fields of one fixed-width big-endian numpy type: length, then value, per row."""
    rec = np.empty(len(values), np.dtype([("len", ">i4"), ("v", code)]))
    rec["len"], rec["v"] = np.dtype(code).itemsize, values
    buf, size = rec.tobytes(), rec.itemsize
    return [buf[i:i + size] for i in range(0, len(buf), size)]


def _timestamps_binary(col: Sequence[Any]) -> list[bytes] | None:
    """Microseconds since 2000-01-01; None for the infinity sentinels and zoned values."""
    if set(map(type, col)) != {dt.datetime} or \
            set(map(operator.attrgetter("tzinfo"), col)) != {None}:
        return None
    us = pa.array(col, pa.timestamp("us")).cast(pa.int64()).to_numpy() - _EPOCH_2000_US
    if us.min() < _YEAR2_US or us.max() >= _YEAR9999_US:
        return None  # NB: year 1 and 9999 (and the infinities, not plain datetimes) go value by value
    return _fixed_fields(us, ">i8")


def _dates_binary(col: Sequence[Any]) -> list[bytes] | None:
    """Days since 2000-01-01; None when a value is an InfiniteDate."""
    if set(map(type, col)) != {dt.date}:
        return None
    days = np.fromiter(map(dt.date.toordinal, col), np.int64, len(col)) - _EPOCH_DAYS
    return _fixed_fields(days, ">i4")


def _binary_field(enc: Callable[[Any], bytes], oid: int) -> Callable[[Any], bytes]:
    def one(v: Any) -> bytes:
        d = enc(v)
        return _I32(len(d)) + d

    return one


def binary_rows(cols: list[list[bytes]], n: int) -> list[bytes]:
    """Each of n rows' payload: int16 field count, then its fields."""
    count = struct.pack("!h", len(cols))
    if not cols:
        return [count] * n
    return list(map(b"".join, zip(repeat(count), *cols)))


# -- whole batches through Arrow (text, csv and binary) --------------------------------------------

COLUMN_BATCH = 8192  # rows per Arrow pass: the kernels' fixed cost per call fades by then
_TEXT_ESCAPES = (("\\", "\\\\"), ("\b", "\\b"), ("\f", "\\f"), ("\n", "\\n"), ("\r", "\\r"),
                 ("\t", "\\t"), ("\v", "\\v"))


def _char_class(chars: str) -> str:
    """An RE2 character class matching any of chars."""
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in chars) + "]"


def _found(arr: pa.Array, chars: str) -> bool:
    """True when a value of the string array holds one of the (ASCII) chars: a `bytes.find`
    (memchr) per char over the array's data bytes (UTF-8 continuation bytes are never
    ASCII); measured 50x faster than one regex search over the same bytes."""
    buffers = arr.buffers()
    if len(buffers) < 3 or buffers[2] is None:
        return False
    if max(map(ord, chars)) > 127:
        return bool(pc.any(pc.match_substring_regex(arr, _char_class(chars))).as_py())
    offsets = np.frombuffer(buffers[1], np.int32, len(arr) + 1, arr.offset * 4)
    used = memoryview(buffers[2])[int(offsets[0]):int(offsets[-1])].tobytes()
    return any(used.find(c) >= 0 for c in chars.encode())


def text_cells(arr: pa.Array, null: str, delim: str, plain: bool = False) -> pa.Array:
    """`text_column` for an Arrow string array: escapes where needed, NULL string for NULL.

    >>> text_cells(pa.array(["a\\tb", None, "c\\\\"]), "\\\\N", "\\t").to_pylist()
    ['a\\\\tb', '\\\\N', 'c\\\\\\\\']
    """
    if not plain and len(arr) and _found(arr, "".join(_SPECIALS) + delim):
        if delim.isalnum():  # NB: a letter delimiter could meet an escape's letter: one pass
            table = {**_ESCAPES, ord(delim): "\\" + delim}
            arr = pa.array([None if v is None else v.translate(table) for v in arr.to_pylist()],
                           pa.string())
        else:
            for ch, rep in _TEXT_ESCAPES:
                arr = pc.replace_substring(arr, ch, rep)
            if ord(delim) not in _ESCAPES:
                arr = pc.replace_substring(arr, delim, "\\" + delim)
    return pc.fill_null(arr, null) if arr.null_count else arr


def csv_cells(arr: pa.Array, null: str, delim: str, quote: str, escape: str,
              forced: bool = False, single: bool = False, plain: bool = False) -> pa.Array:
    """`csv_column` for an Arrow string array: quotes where needed, NULL string for NULL.

    >>> csv_cells(pa.array(["a", "", None, "x,y"]), "", ",", '"', '"').to_pylist()
    ['a', '""', '', '"x,y"']
    """
    if (forced or not plain) and len(arr):
        if forced:
            need = pc.is_valid(arr)
        else:
            need = pc.or_(pc.match_substring_regex(arr, _char_class(delim + quote + "\n\r")),
                          pc.equal(arr, null))
            if single:
                need = pc.or_(need, pc.equal(arr, "\\."))
        if pc.any(need).as_py():
            q = arr if escape == quote else pc.replace_substring(arr, escape, escape + escape)
            q = pc.replace_substring(q, quote, escape + quote)
            q = pc.binary_join_element_wise(quote, q, quote, "")
            arr = pc.if_else(need, q, arr)
    return pc.fill_null(arr, null) if arr.null_count else arr


class CopyShape(Protocol):
    """What a COPY TO's options say about its output (sql.copy.CopyOut has them)."""

    format: str
    delim: str
    null: str
    quote: str
    escape: str
    force_quote: set[int]


class ColumnCopy:
    """Encodes COPY TO's batches of rows as CopyData, a column at a time through Arrow.

    Each column becomes one Arrow array of its output forms (`pgtypes.vectext`),
    then escaped or quoted as a whole (`text_cells`, `csv_cells`) or given length
    prefixes (binary), and the rows are joined and framed by `pgwire.colframe`, one
    message per row as PostgreSQL sends them.
    """

    def __init__(self, shape: CopyShape, oids: list[int], tz: Any) -> None:
        self.shape = shape
        self.oids = oids
        self.binary = shape.format == "binary"
        self.iso = dateparse.date_style() == "ISO"
        if self.binary:
            self.encs: list[Callable[[Any], Any]] = [binary_encoder(o) for o in oids]
        else:
            self.encs = [text_encoder(o, tz) for o in oids]
        self.prefix = SIGNATURE + struct.pack("!ii", 0, 0) if self.binary else b""

    def _cells(self, i: int, col: Sequence[Any]) -> pa.Array:
        s, oid = self.shape, self.oids[i]
        if self.binary:
            return binary_fields(col, oid, self.encs[i])
        arr = text_array(col, oid, self.encs[i], self.iso)
        if s.format == "csv":
            return csv_cells(arr, s.null, s.delim, s.quote, s.escape, i in s.force_quote,
                             len(self.oids) == 1, plain(oid, s.delim, s.null, s.quote))
        return text_cells(arr, s.null, s.delim, plain(oid, s.delim))

    def rows(self, batch: list[Sequence[Any]]) -> bytes:
        """The batch's CopyData messages (the binary signature rides on the first row)."""
        return self.columns([list(map(operator.itemgetter(i), batch))
                             for i in range(len(self.oids))], len(batch))

    def columns(self, batch: list[Any], n: int) -> bytes:
        """`rows` of a batch given as its n rows' columns (lists of values, or columns in
        their stored form, `pgtypes.coded.Coded`, straight from a cold segment)."""
        if not n:
            return b""
        if not self.oids:
            return frame([b"\x00\x00" if self.binary else b"\n"] * n)
        cols = [self._cells(i, col) for i, col in enumerate(batch)]
        if self.binary:
            out = bytes(data_rows(cols, b"d", self.prefix))
            self.prefix = b""
            return out
        return copy_lines(cols, self.shape.delim)

    def end(self) -> bytes:
        """What follows the last row: the binary trailer (with the signature if no row came)."""
        if not self.binary:
            return b""
        return frame([self.prefix + struct.pack("!h", -1)])


def gathered(batches: Iterator[list[Any]], size: int = COLUMN_BATCH) -> Iterator[list[Any]]:
    """The plan's batches gathered to at least `size` rows (a scan's are ~1k)."""
    rows: list[Any] = []
    for batch in batches:
        if not rows and len(batch) >= size:
            yield batch
            continue
        rows.extend(batch)
        if len(rows) >= size:
            yield rows
            rows = []
    if rows:
        yield rows
