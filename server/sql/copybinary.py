"""Binary COPY FROM a column at a time: one walk over the rows, then numpy per column.

The per-field parser (`copy.CopyIn._binary`) costs two `struct` calls and a
decoder call per value: about 7 µs a row for bigint, int, numeric, text,
timestamp and boolean, five times PostgreSQL's whole load. Here:

1. `walk` finds where each row starts, reading only the lengths of the
   variable-width fields (text, numeric): one small Python loop per row. A
   fixed-width field (int2/4/8, oid, float4/8, bool, date, timestamp[tz]) is
   assumed to carry its width.
2. The assumptions are checked for all rows at once with numpy (each row's field
   count, each fixed field's length word, no negative variable length, the last
   row ending where the data does). A NULL, another field count or anything odd
   fails the check: `parse` returns None and the caller runs the per-field
   parser over the same bytes, so every value, error message and SQLSTATE stays
   exactly `pgtypes.binary`'s.
3. Each column is gathered from the buffer by numpy (a batch of rows at a time)
   and converted in C-level passes: integers and floats by `tolist`, booleans by
   a compare, dates and timestamps through `datetime64` (a value out of Python's
   range, or an infinity, fails the check), text by `map(bytes.decode)` (a bad
   sequence or a NUL fails it), numerics of up to four base-10000 digits by
   integer arithmetic and `Decimal.scaleb` (longer ones by `decode_numeric`).

A numeric(p, s) column whose every value came with display scale s and fewer
than p - s integer digits is reported `exact`: its typmod would change nothing,
so the writer skips the per-value rounding.
"""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Iterator, Sequence
from decimal import Decimal
from operator import methodcaller
from typing import Any

import numpy as np

from ..kivi.wirecols import DATE, NAIVE_US, PLAIN, UTC_US, Encoded, decode_column, scaled_kind
from ..pgtypes import oids as T
from ..pgtypes.binary import decode_numeric
from ..pgtypes.numtypmod import precision_scale

_WIDTH = {T.INT2: 2, T.INT4: 4, T.INT8: 8, T.OID: 4, T.FLOAT4: 4, T.FLOAT8: 8, T.BOOL: 1,
          T.DATE: 4, T.TIMESTAMP: 8, T.TIMESTAMPTZ: 8}
_DTYPE = {T.INT2: ">i2", T.INT4: ">i4", T.INT8: ">i8", T.OID: ">u4", T.FLOAT4: ">f4",
          T.FLOAT8: ">f8", T.BOOL: "u1", T.DATE: ">i4", T.TIMESTAMP: ">i8",
          T.TIMESTAMPTZ: ">i8"}
_TEXT = frozenset((T.TEXT, T.VARCHAR))
_VARIABLE = _TEXT | {T.NUMERIC}
_NUMERIC_NEG = 0x4000
# microseconds and days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01
_EPOCH_US = 946_684_800_000_000
_EPOCH_DAYS = 10_957
_ORDINAL_1970 = dt.date(1970, 1, 1).toordinal()
# Python's datetime range, in microseconds and days since 2000-01-01 (an infinity is beyond)
_TS_LO, _TS_HI = -63_082_281_600_000_000, 252_455_615_999_999_999
_DATE_LO, _DATE_HI = -730_119, 2_921_939
_UTC = methodcaller("replace", tzinfo=dt.UTC)
_INT64_MAX = np.iinfo(np.int64).max
_LEN = struct.Struct("!i").unpack_from
_HEAD = np.dtype((">i2", 4))  # a numeric's ndigits, weight, sign and dscale
_POW10K = np.array([10_000 ** i for i in range(4)][::-1], dtype=np.int64)


def supported(oids: Sequence[int]) -> bool:
    """Tells whether every column's type has a column-wise binary conversion here."""
    return bool(oids) and all(o in _WIDTH or o in _VARIABLE for o in oids)


class Parsed:
    """The rows of a block located in its buffer: `columns(lo, hi)` converts rows lo..hi."""

    def __init__(self, buf: bytes, oids: Sequence[int], starts: np.ndarray,
                 offsets: list[np.ndarray], lengths: list[np.ndarray | None]) -> None:
        self.buf = buf
        self.u8 = np.frombuffer(buf, dtype=np.uint8)
        self.oids = oids
        self.starts = starts
        self.offsets = offsets  # per field: where each row's value starts
        self.lengths = lengths  # per variable field: each row's value length
        self.count = len(starts)

    def columns(self, lo: int, hi: int, typmods: Sequence[int]) -> tuple[list[list[Any]],
                                                                           set[int]] | None:
        """Rows lo..hi as columns, and the indexes of numeric columns already at their
        typmod; None if a value needs the per-field parser (it names the error)."""
        cols: list[list[Any]] = []
        exact: set[int] = set()
        for i, oid in enumerate(self.oids):
            at = self.offsets[i][lo:hi]
            if oid in _WIDTH:
                col = self._fixed(oid, at)
            elif oid in _TEXT:
                col = self._text(at, self.lengths[i][lo:hi])  # type: ignore[index]
            else:
                got = self._numeric(at, self.lengths[i][lo:hi], typmods[i])  # type: ignore[index]
                if got is None:
                    return None
                col, fits = got
                if fits:
                    exact.add(i)
            if col is None:
                return None
            cols.append(col)
        return cols, exact

    def _fixed(self, oid: int, at: np.ndarray) -> list[Any] | None:
        """A fixed-width column; with its redo-record form (`wirecols.Encoded`) as well."""
        raw = _read(self.u8, at, _DTYPE[oid])
        if oid == T.BOOL:
            vals = (raw != 0).tolist()
            return Encoded(vals, PLAIN, vals)
        if oid in (T.TIMESTAMP, T.TIMESTAMPTZ):
            if len(raw) and (raw.min() < _TS_LO or raw.max() > _TS_HI):
                return None  # an infinity, or beyond datetime: the decoder's way
            us = raw.astype(np.int64) + _EPOCH_US  # since 1970: the redo record's form
            vals = us.astype("datetime64[us]").astype(object).tolist()
            if oid == T.TIMESTAMPTZ:
                vals = list(map(_UTC, vals))
            if len(raw) and (raw.min() == _TS_LO or raw.max() == _TS_HI):
                return vals  # NB: datetime.min/max: the redo record's own rules (wirecols)
            return Encoded(vals, UTC_US if oid == T.TIMESTAMPTZ else NAIVE_US, us.tolist())
        if oid == T.DATE:
            if len(raw) and (raw.min() < _DATE_LO or raw.max() > _DATE_HI):
                return None
            days = raw.astype(np.int64) + _EPOCH_DAYS
            return Encoded(days.astype("datetime64[D]").astype(object).tolist(), DATE,
                           (days + _ORDINAL_1970).tolist())
        vals = raw.tolist()
        return Encoded(vals, PLAIN, vals)

    def _text(self, at: np.ndarray, lengths: np.ndarray) -> list[Any] | None:
        """A text column: the values gathered by numpy into one buffer with a NUL after
        each, then one `decode` and one `split` (no Python call per value). A NUL in a
        value (text_recv's 22021) or a bad UTF-8 sequence: None, the decoder's way (a NUL
        cannot be part of a multi-byte sequence, so the separators change neither)."""
        n = len(at)
        if n == 0:
            return Encoded([], PLAIN, [])
        total = int(lengths.sum())
        before = np.cumsum(lengths) - lengths  # each value's start in the values alone
        k = np.arange(total)
        got = self.u8[k + np.repeat(at - before, lengths)]
        if not got.all():
            return None  # NB: text_recv refuses a NUL (22021): the decoder says so
        out = np.zeros(total + n, dtype=np.uint8)
        out[k + np.repeat(np.arange(n), lengths)] = got
        try:
            vals = out[:-1].tobytes().decode().split("\x00")
        except UnicodeDecodeError:
            return None
        return Encoded(vals, PLAIN, vals)

    def _numeric(self, at: np.ndarray, lengths: np.ndarray, typmod: int
                 ) -> tuple[list[Any], bool] | None:
        head = _read(self.u8, at, _HEAD).astype(np.int64)
        nd, weight, sign, dscale = head[:, 0], head[:, 1], head[:, 2] & 0xFFFF, head[:, 3]
        if len(at) == 0:
            return [], True
        if (nd < 0).any() or (lengths != 8 + 2 * nd).any() or (dscale < 0).any() or not (
                (sign == 0) | (sign == _NUMERIC_NEG)).all():
            return None  # NaN, infinities, malformed: the decoder's way
        coef = np.zeros(len(at), dtype=np.int64)
        short = nd <= 4
        for d in range(1, 5):
            rows = np.nonzero(nd == d)[0]
            if len(rows):
                digits = _read(self.u8, at[rows] + 8, np.dtype((">u2", d))).astype(np.int64)
                if (digits >= 10_000).any():
                    return None
                coef[rows] = digits @ _POW10K[4 - d:]
        # the value is coef * 10^(4 * (weight - nd + 1)); as a Decimal of scale dscale its
        # coefficient is coef * 10^shift (shift < 0: PostgreSQL sends no digit below dscale
        # that is not 0, and decode_numeric drops them as this division does)
        shift = 4 * (weight - nd + 1) + dscale
        neg = sign == _NUMERIC_NEG
        up = 10 ** np.clip(shift, 0, 18)
        down = 10 ** np.clip(-shift, 0, 18)
        # NB: a negative zero keeps its sign only through decode_numeric's text
        fast = (short & (shift >= -18) & (shift <= 18) & ~(neg & (coef == 0))
                & ((shift < 0) | (coef <= _INT64_MAX // up)))
        scaled = np.where(shift >= 0, coef * np.where(fast, up, 1), coef // down)
        scaled = np.where(neg, -scaled, scaled)
        out: list[Any]
        if fast.all():
            coefs = scaled.tolist()
            s0 = int(dscale[0])
            if 0 <= s0 <= 18 and (dscale == s0).all():
                # NB: one scale (a numeric(p, s) column): the coefficients are the redo
                # record's form too (`wirecols.scaled_kind`: no `str` per value at the commit)
                kind = scaled_kind(s0)
                out = Encoded(decode_column(kind, coefs), kind, coefs)
            else:
                out = list(map(Decimal.scaleb, map(Decimal, coefs), (-dscale).tolist()))
        else:
            out = [Decimal(c).scaleb(-s) if f else decode_numeric(self.buf[a:a + n])
                   for c, s, f, a, n in zip(scaled.tolist(), dscale.tolist(), fast.tolist(),
                                            at.tolist(), lengths.tolist(), strict=True)]
        fits = False
        if typmod > 4 and fast.all():
            prec, scale = precision_scale(typmod)
            fits = bool(0 <= scale < prec and (dscale == scale).all()
                        and (np.abs(scaled) < 10 ** min(prec, 18)).all())
        return out, fits


def _layout(oids: Sequence[int]) -> tuple[list[int], int]:
    """The bytes from a row's start (or a variable field's value end) to each variable
    field's length word, and the bytes of the fixed fields after the last variable one
    (all of a row without one)."""
    gaps: list[int] = []
    run = 2
    for oid in oids:
        if oid in _VARIABLE:
            gaps.append(run)
            run = 0
        else:
            run += 4 + _WIDTH[oid]
    return gaps, run


def walk(buf: bytes, oids: Sequence[int]) -> Parsed | None:
    """Locates every row of `buf` (binary COPY rows, no header, no trailer); None when the
    rows are not all of the assumed shape (see the module doc)."""
    n = len(oids)
    gaps, tail = _layout(oids)
    end = len(buf)
    u8 = np.frombuffer(buf, dtype=np.uint8)
    k = len(gaps)
    var = None
    if not gaps:
        if end % tail:
            return None
        starts = np.arange(0, end, tail, dtype=np.int64)
    else:
        first = _WIDTH.get(oids[0]) if oids[0] not in _VARIABLE else None
        fast = _chained_starts(u8, n, first, gaps, tail) if first is not None else None
        if fast is not None:
            starts, var = fast
        else:
            starts_l, lens = _row_starts(buf, gaps, tail, end)
            if starts_l is None:
                return None
            starts = np.asarray(starts_l, dtype=np.int64)
            var = np.asarray(lens, dtype=np.int64).reshape(-1, k)
    if len(starts) == 0:
        return None
    count = (u8[starts].astype(np.int32) << 8) | u8[starts + 1]
    if (count != n).any():
        return None
    if var is not None and (var < 0).any():
        return None
    offsets: list[np.ndarray] = []
    lengths: list[np.ndarray | None] = []
    pos = starts + 2  # each row's current field's length word
    j = 0
    for oid in oids:
        if oid in _VARIABLE:
            assert var is not None
            size = var[:, j]
            j += 1
        else:
            word = _word(u8, pos)
            if (word != _WIDTH[oid]).any():
                return None  # a NULL (-1) or another length: the per-field parser
            size = np.full(len(starts), _WIDTH[oid], dtype=np.int64)
        offsets.append(pos + 4)
        lengths.append(size if oid in _VARIABLE else None)
        pos = pos + 4 + size
    if int(pos[-1]) != end or (len(starts) > 1 and (pos[:-1] != starts[1:]).any()):
        return None
    return Parsed(buf, oids, starts, offsets, lengths)


def whole_rows(buf: bytes | memoryview, oids: Sequence[int]) -> int | None:
    """How many bytes at the start of `buf` (binary COPY rows, the first at 0, no header)
    are whole rows, the rest being the start of a row still to come: where a COPY may
    convert what it has received so far. None when the rows cannot be told apart without
    a loop per row (a variable-width first field, a NULL in a variable field, a value's
    bytes that look like a row start: `_chained_starts`' candidates); the caller then
    waits for the whole input. The prefix is a guess that `walk` verifies.

    >>> row = bytes.fromhex("0002" "00000004 00000007" "00000002") + b"hi"
    >>> oids = [T.INT4, T.TEXT]
    >>> whole_rows(row * 3 + row[:9], oids), whole_rows(row * 2 + row[:3], oids)
    (48, 32)
    >>> whole_rows(row * 2, oids), whole_rows(row[:5], oids), whole_rows(row[:14], oids)
    (32, 0, 0)
    >>> whole_rows(row + bytes.fromhex("0002" "00000004 00000007" "ffffffff") + row, oids) is None
    True
    """
    gaps, tail = _layout(oids)
    end = len(buf)
    if not gaps:
        return end - end % tail
    first = _WIDTH.get(oids[0])
    if first is None or oids[0] in _VARIABLE:
        return None
    if end < 6:
        return 0
    u8 = np.frombuffer(buf, dtype=np.uint8)
    at = _candidates(u8, len(oids), first)
    if at is None:
        return None
    pos = at
    inside = np.ones(len(at), dtype=bool)
    for g in gaps:
        pos = pos + g
        inside &= pos + 4 <= end
        size = np.zeros(len(at), dtype=np.int64)
        size[inside] = _word(u8, pos[inside])
        if (size < 0).any():
            return None  # NB: a NULL: the per-field parser, over the whole input
        pos = pos + 4 + size
    ends = pos + tail
    inside &= ends <= end
    cut = np.flatnonzero(~inside)
    k = int(cut[0]) if len(cut) else len(at)  # the rows before the first cut short
    if k > 1 and (ends[:k - 1] != at[1:k]).any():
        return None  # NB: a candidate that is no row start among the rows
    if k < len(at):
        return int(at[k]) if k == 0 or int(ends[k - 1]) == int(at[k]) else None
    last = int(ends[-1])
    return last if end - last < 6 else None  # NB: a row start too short to be a candidate


def _word(u8: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The signed big-endian 32-bit words at each offset."""
    return _read(u8, at, ">i4")


def _read(u8: np.ndarray, at: np.ndarray, dtype: Any) -> np.ndarray:
    """The values of `dtype` at each byte offset of the buffer: one gather from a view
    of the buffer with a stride of one byte (a value at every offset), three to four
    times faster than gathering an (n, width) array of bytes by an index array.

    >>> u8 = np.frombuffer(bytes(range(12)), dtype=np.uint8)
    >>> _read(u8, np.array([0, 3]), ">i4").tolist(), _read(u8, np.array([1]), _HEAD).tolist()
    ([66051, 50595078], [[258, 772, 1286, 1800]])
    """
    dt = np.dtype(dtype)
    if len(u8) < dt.itemsize:
        if len(at):
            raise IndexError("a value beyond the buffer")
        return np.zeros((0, *dt.shape), dtype=dt.base)
    view = np.ndarray(shape=(len(u8) - dt.itemsize + 1,), dtype=dt, buffer=u8, strides=(1,))
    return view[at]


def _candidates(u8: np.ndarray, n: int, first: int) -> np.ndarray | None:
    """The offsets where the field count `n` is followed by the first field's length word
    `first` (candidate row starts, at least 6 bytes of data); None unless one is at 0."""
    # NB: one pass over the data for the count's low byte, then only its hits are looked
    # at for the other five bytes (four passes over the whole data cost a fifth of a load)
    at = np.flatnonzero(u8[1:-4] == n & 0xFF)
    at = at[u8[at] == n >> 8]
    for j, byte in enumerate(first.to_bytes(4, "big")):
        at = at[u8[at + 2 + j] == byte]
    return at if len(at) and at[0] == 0 else None


def _chained_starts(u8: np.ndarray, n: int, first: int, gaps: list[int], tail: int
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Each row's start and its variable fields' lengths, found without a loop per row.

    Every offset where the field count `n` is followed by the first (fixed-width)
    field's length word `first` is taken for a row start, and each such row's end is
    computed from its variable lengths, for all of them at once. They are the rows
    exactly when the first is at 0 and each ends where the next begins and the last at
    the end of the data (the chain of rows from offset 0 is then these). Anything else (a
    value's bytes that look like a row start, a bad length): None, and `_row_starts`
    walks the rows one by one.
    """
    end = len(u8)
    if end < 6:
        return None
    at = _candidates(u8, n, first)
    if at is None:
        return None
    pos = at
    lens = []
    for g in gaps:
        pos = pos + g
        if int(pos.max()) + 4 > end:
            return None
        size = _word(u8, pos).astype(np.int64)
        if (size < 0).any():
            return None  # NB: a NULL: the per-field parser
        lens.append(size)
        pos = pos + 4 + size
    pos = pos + tail
    if int(pos[-1]) != end or (pos[:-1] != at[1:]).any():
        return None
    return at, np.stack(lens, axis=1)


def _row_starts(buf: bytes, gaps: list[int], tail: int, end: int
                ) -> tuple[list[int] | None, list[int]]:
    """Each row's start and its variable fields' lengths, reading only those lengths."""
    starts: list[int] = []
    lens: list[int] = []
    add, note = starts.append, lens.append
    pos = 0
    try:
        if len(gaps) == 1:
            (g0,) = gaps
            while pos < end:
                add(pos)
                (a,) = _LEN(buf, pos + g0)
                note(a)
                pos += g0 + 4 + a + tail
        elif len(gaps) == 2:
            g0, g1 = gaps
            while pos < end:
                add(pos)
                p = pos + g0
                (a,) = _LEN(buf, p)
                p += 4 + a + g1
                (b,) = _LEN(buf, p)
                note(a)
                note(b)
                pos = p + 4 + b + tail
        else:
            while pos < end:
                add(pos)
                p = pos
                for g in gaps:
                    p += g
                    (a,) = _LEN(buf, p)
                    note(a)
                    p += 4 + a
                pos = p + tail
    except struct.error:
        return None, lens
    if pos != end:
        return None, lens
    return starts, lens


def batches(parsed: Parsed, size: int) -> Iterator[tuple[int, int]]:
    """(lo, hi) row ranges of at most `size` rows."""
    for lo in range(0, parsed.count, size):
        yield lo, min(lo + size, parsed.count)

