"""COPY FROM's batch parsers: a whole block of input becomes columns in a few C-level calls.

A per-value decoder call costs about as much as everything else a row costs
on the way into KiVi, so the common shapes of bulk input are parsed a block
at a time instead:

- text (and csv without quote characters): the block is split into fields
  once (`replace` newlines by the delimiter, one `split`), every line's field
  count is checked with one `map(str.count)`, and column `i` is the slice
  `fields[i::n]`;
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
from typing import Any

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
    dec = text_decoder(oid, tz)
    if oid == T.NUMERIC:
        return _numerics(dec, typmod)
    shape = _SHAPES.get(oid)
    if shape is not None:
        return _shaped(dec, shape[0], shape[1])
    if oid == T.BOOL:

        def bools(col: Sequence[str]) -> Sequence[Any]:
            try:
                return [_BOOLS[v] for v in col]
            except KeyError:
                return list(map(dec, col))

        return bools
    if oid in STRING_OIDS or oid == 0 or dec is str:
        return _same
    if oid in INT_RANGE or oid in OID_LIKE:
        lo, hi = INT_RANGE.get(oid, INT_RANGE[T.OID])

        def ints(col: Sequence[str]) -> Sequence[Any]:
            try:
                out = list(map(int, col))  # NB: int() strips blanks, as the decoder does
            except ValueError:
                return list(map(dec, col))  # raises the decoder's 22P02 for the bad value
            if out and (min(out) < lo or max(out) > hi):
                return list(map(dec, col))  # 22003, naming the value
            return out

        return ints
    if oid == T.FLOAT8:

        def floats(col: Sequence[str]) -> Sequence[Any]:
            try:
                return list(map(float, col))
            except ValueError:
                return list(map(dec, col))

        return floats
    return lambda col: list(map(dec, col))


def _same(col: Sequence[str]) -> Sequence[Any]:
    return col


# The common spellings, checked for the whole column by one regular expression before a
# C-level conversion (`fromisoformat`, `Decimal`) that would accept more than PostgreSQL does
_DATE = r"\d{4}-\d{2}-\d{2}"
_SHAPES = {
    T.DATE: (re.compile(f"(?:{_DATE}\n)*{_DATE}"), dt.date.fromisoformat),
    T.TIMESTAMP: (re.compile(f"(?:{_DATE}[ T]\\d{{2}}:\\d{{2}}:\\d{{2}}(?:\\.\\d{{1,6}})?\n)*"
                             f"{_DATE}[ T]\\d{{2}}:\\d{{2}}:\\d{{2}}(?:\\.\\d{{1,6}})?"),
                  dt.datetime.fromisoformat),
}
_NUMBERS = re.compile(r"(?:-?\d{1,28}(?:\.\d{1,28})?\n)*-?\d{1,28}(?:\.\d{1,28})?")
_BOOLS = {"t": True, "f": False, "true": True, "false": False}


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
        if exact is not None and exact.fullmatch(joined):
            return list(map(Decimal, col))
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


def _then(dec: Callable[[str], Any], conv: Callable[[Any], Any] | None) -> Callable[[str], Any]:
    return dec if conv is None else (lambda v: conv(dec(v)))


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
