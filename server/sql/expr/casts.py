"""Casts between SQL types on Python values, with PostgreSQL's error messages and output formats.

`cast_function(src, dst, typmod)` picks one converter per (source, target)
pair at bind time; the compiled expression then calls it directly, so a cast
costs one Python call per value and no dispatch. `to_text` is PostgreSQL's
output function (what `x::text` and `||` see), which differs from Python's
`str` for booleans, floats, timestamps, intervals, bytea and arrays.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
import uuid
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ...errors import (
    CannotCoerce,
    DatetimeFieldOverflow,
    FeatureNotSupported,
    InvalidDatetimeFormat,
    InvalidParameterValue,
    InvalidTextRepresentation,
    NumericValueOutOfRange,
    SQLError,
    StringDataRightTruncation,
)
from ...pgtypes import arraybounds, bits, citext, extcodecs, hstore, money, network, xmlvalue, zones
from ...pgtypes import interval as iv
from ...pgtypes import oids as T
from ...pgtypes.fardate import FarDate, date_of_days, days_of, round_timestamp, ts_of_us
from ...pgtypes.geometry import NAMES as GEOMETRIC
from ...pgtypes.infdate import TIME_24, InfiniteDate, InfiniteTimestamp, Time24
from ...pgtypes.intervaltext import parse_interval
from ...pgtypes.jsonbtext import normalize as normalize_jsonb
from ...pgtypes.multiranges import MULTIRANGE_OF, MultiRange
from ...pgtypes.multiranges import RANGE_OF as MULTIRANGE_RANGE
from ...pgtypes.multiranges import make as make_multirange
from ...pgtypes.network import TEXT_INPUT as NETWORK_INPUT
from ...pgtypes.numtypmod import precision_scale
from ...pgtypes.ranges import SUBTYPE as RANGE_SUBTYPE
from ...pgtypes.ranges import Range
from ...pgtypes.records import COMPOSITES, Record, parse_record
from ...pgtypes.text import (
    DELIMITERS,
    TS_INFINITY,
    TS_NEG_INFINITY,
    TSTZ_INFINITY,
    TSTZ_NEG_INFINITY,
    format_text,
    parse_text,
    quote_array_element,
    split_array,
    text_decoder,
    text_encoder,
)
from . import usertypes
from .typefacts import INT_RANGE, INTS, OIDLIKE, STRINGS, type_name

_INT_NAMES = {T.INT2: "smallint", T.INT4: "integer", T.INT8: "bigint"}
_XML_ARRAY = T.ARRAY_OF[T.XML]


def _bad(type_oid: int, s: Any) -> SQLError:
    return InvalidTextRepresentation(f'invalid input syntax for type {type_name(type_oid)}: "{s}"')


def check_int(v: int, oid: int) -> int:
    """Returns v if it fits the integer type, else raises 22003 as PostgreSQL does."""
    lo, hi = INT_RANGE[oid]
    if lo <= v <= hi:
        return v
    raise NumericValueOutOfRange(f"{_INT_NAMES[oid]} out of range")


def _text_to_int(oid: int) -> Callable[[Any], int]:
    """int2/int4/int8 input, as the type's text input (`pgtypes.text`): ASCII digits only."""
    dec = text_decoder(oid)
    return lambda s: dec(s if type(s) is str else str(s))


def _num_to_int(oid: int) -> Callable[[Any], int]:
    def conv(v: Any) -> int:
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                raise NumericValueOutOfRange(f"{_INT_NAMES[oid]} out of range")
            r = round(v)  # float -> int rounds half to even, as rint() does
        elif isinstance(v, Decimal):
            if not v.is_finite():  # numeric NaN/Infinity: 0A000, as in PostgreSQL
                what = "NaN" if v.is_nan() else "infinity"
                raise FeatureNotSupported(f"cannot convert {what} to {_INT_NAMES[oid]}")
            r = int(v.quantize(Decimal(1), rounding=ROUND_HALF_UP))
        else:
            r = int(v)
        return check_int(r, oid)

    return conv


_NUMERIC_IN = text_decoder(T.NUMERIC)
_FLOAT8_IN = text_decoder(T.FLOAT8)
_FLOAT4_IN = text_decoder(T.FLOAT4)
_F4 = struct.Struct("!f")


def text_to_numeric(s: Any) -> Decimal:
    """Parses numeric input text (22P02 on bad syntax), as numeric's text input does."""
    return _NUMERIC_IN(s if type(s) is str else str(s))


def text_to_float(s: Any) -> float:
    """Parses float8 input text, as float8's text input does."""
    return _FLOAT8_IN(s if type(s) is str else str(s))


def text_to_float4(s: Any) -> float:
    """Parses float4 input text (rounded to float4, 22003 past its range)."""
    return _FLOAT4_IN(s if type(s) is str else str(s))


_TRUE = {"t", "true", "y", "yes", "on", "1"}
_FALSE = {"f", "false", "n", "no", "off", "0"}


def text_to_bool(s: Any) -> bool:
    """Parses boolean input text (prefixes of true/false/yes/no, on/off, 1/0)."""
    t = str(s).strip().lower()
    if t in _TRUE or (len(t) > 1 and ("true".startswith(t) or "yes".startswith(t))):
        return True
    if t in _FALSE or (len(t) > 1 and ("false".startswith(t) or "no".startswith(t))):
        return False
    raise _bad(T.BOOL, s)


def text_to_date(s: Any) -> dt.date:
    """Parses ISO date input."""
    t = str(s).strip()
    try:
        return parse_text(T.DATE, t, None)  # 'today' etc. in the session zone
    except InvalidDatetimeFormat:
        pass
    try:
        return dt.date.fromisoformat(t[:10])
    except ValueError:
        raise InvalidDatetimeFormat(f'invalid input syntax for type date: "{s}"') from None


_TZ_SUFFIX = re.compile(r"([+-]\d\d)(:?\d\d)?$")


def text_to_timestamp(s: Any, tz: bool = False) -> dt.datetime:
    """Parses timestamp input; timestamptz input without a zone is local time in the session zone."""
    try:
        return parse_text(T.TIMESTAMPTZ if tz else T.TIMESTAMP, str(s), None)
    except InvalidDatetimeFormat:
        pass  # not ISO: the lenient path below
    t = str(s).strip()
    u = t.replace("T", " ")
    m = _TZ_SUFFIX.search(u) if len(u) > 10 else None
    if m and m.group(2) is None:
        u = u + ":00"
    try:
        v = dt.datetime.fromisoformat(u)
    except ValueError:
        name = "timestamp with time zone" if tz else "timestamp"  # NB: as PostgreSQL words it
        raise InvalidDatetimeFormat(f'invalid input syntax for type {name}: "{s}"') from None
    if tz and v.tzinfo is None:
        return zones.to_utc(v, zones.session_zone())
    if not tz and v.tzinfo is not None:
        v = v.replace(tzinfo=None)
    return v


def text_to_time(s: Any) -> dt.time:
    """Parses time input as time_in does ('3:16:17.4567', '10:00 PM' ...)."""
    try:
        return dt.time.fromisoformat(str(s).strip())
    except ValueError:
        return parse_text(T.TIME, str(s))


_TIMETZ = re.compile(r"^(\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?)\s*(?:([+-])(\d{1,2})(?::?(\d\d))?)?$")


def text_to_timetz(s: Any) -> dt.time:
    """Parses time with time zone input (`01:02:03.5+05:30`; no offset: UTC)."""
    m = _TIMETZ.match(str(s).strip())
    if not m:  # `Z`, a zone name, seconds in the offset: timetz_in's full syntax
        return parse_text(T.TIMETZ, str(s))
    t = text_to_time(m.group(1))
    if not m.group(2):  # no offset: the session zone's offset today, as PostgreSQL
        return time_to_timetz(t)
    off = dt.timedelta(hours=int(m.group(3)), minutes=int(m.group(4) or 0))
    if m.group(2) == "-":
        off = -off
    return t.replace(tzinfo=dt.timezone(off) if off else dt.UTC)


VOLATILE_WORDS = {"now": 0, "today": 0, "tomorrow": 1, "yesterday": -1}
_VOLATILE_TYPES = (T.TIMESTAMPTZ, T.TIMESTAMP, T.DATE, T.TIME, T.TIMETZ)


def volatile_literal(v: Any, target: int) -> bool:
    """True for 'now', 'today', 'tomorrow', 'yesterday' cast to a date/time type.

    Their value is the transaction's, so they must not fold into a cached plan.
    """
    return (target in _VOLATILE_TYPES and isinstance(v, str)
            and v.strip().lower() in VOLATILE_WORDS)


def volatile_value(word: str, target: int) -> Callable[[Any], Any]:
    """`fn(functions_ctx)`: the value of a volatile literal at the running transaction's start."""
    w = word.strip().lower()
    days = VOLATILE_WORDS[w]

    def value(ctx: Any) -> Any:
        ts = ctx.statement_timestamp
        tz = getattr(ctx, "tz", None) or zones.session_zone()
        if w == "now":
            if target == T.TIMESTAMPTZ:
                return ts
            local = zones.to_local(ts, tz)
            if target == T.TIMETZ:
                return tstz_to_timetz(ts)
            return {T.TIMESTAMP: zones.wall_clock(ts, tz), T.DATE: local.date(),
                    T.TIME: local.time()}[target]
        day = zones.to_local(ts, tz).date() + dt.timedelta(days=days)
        midnight = dt.datetime(day.year, day.month, day.day)
        if target == T.TIMESTAMPTZ:
            return zones.to_utc(midnight, tz)
        if target == T.TIMESTAMP:
            return midnight
        if target == T.DATE:
            return day
        return dt.time(0, 0) if target == T.TIME else time_to_timetz(dt.time(0, 0))

    return value


def time_to_timetz(t: dt.time) -> dt.time:
    """time -> timetz: the session zone's offset today."""
    tz = zones.session_zone()
    if tz is dt.UTC:
        return t.replace(tzinfo=dt.UTC)
    off = dt.datetime.now(tz).utcoffset() or dt.timedelta(0)
    return t.replace(tzinfo=dt.timezone(off) if off else dt.UTC)


def tstz_to_local(v: dt.datetime) -> dt.datetime:
    """timestamptz -> timestamp: the wall-clock time in the session zone."""
    return zones.wall_clock(v, zones.session_zone())


def timestamp_to_tstz(v: dt.datetime) -> dt.datetime:
    """timestamp -> timestamptz: the instant the session zone's clocks show v."""
    return zones.to_utc(v, zones.session_zone())


def date_to_tstz(v: dt.date) -> dt.datetime:
    """date -> timestamptz: midnight in the session zone."""
    if isinstance(v, InfiniteDate):
        return TSTZ_INFINITY if v.sign > 0 else TSTZ_NEG_INFINITY
    return zones.to_utc(date_to_timestamp(v), zones.session_zone())


def date_to_timestamp(v: dt.date) -> dt.datetime:
    """date -> timestamp: midnight ('infinity' stays infinite)."""
    if isinstance(v, InfiniteDate):
        return TS_INFINITY if v.sign > 0 else TS_NEG_INFINITY
    if type(v) is FarDate:  # BC or after 9999 (pgtypes.fardate)
        try:
            return ts_of_us(v.days * 86_400_000_000)
        except DatetimeFieldOverflow:
            raise DatetimeFieldOverflow("date out of range for timestamp") from None
    return dt.datetime(v.year, v.month, v.day)


def timestamp_to_date(v: dt.datetime) -> dt.date:
    """timestamp -> date ('infinity' stays infinite)."""
    return v.date()  # NB: an InfiniteTimestamp's date() is the infinite date


def tstz_to_date(v: dt.datetime) -> dt.date:
    """timestamptz -> date: the date in the session zone."""
    if type(v) is InfiniteTimestamp:
        return v.date()
    return zones.to_local(v, zones.session_zone()).date()


def tstz_to_time(v: dt.datetime) -> dt.time:
    """timestamptz -> time: the clock time in the session zone (NULL for an infinity)."""
    if isinstance(v, InfiniteTimestamp):
        return None  # type: ignore[return-value]
    return zones.to_local(v, zones.session_zone()).time()


def tstz_to_timetz(v: dt.datetime) -> dt.time:
    """timestamptz -> timetz: the clock time and offset in the session zone."""
    if isinstance(v, InfiniteTimestamp):
        return None  # type: ignore[return-value]
    w = zones.to_local(v, zones.session_zone())
    off = w.utcoffset() or dt.timedelta(0)
    return w.time().replace(tzinfo=dt.timezone(off) if off else dt.UTC)


def text_to_interval(s: Any) -> dt.timedelta:
    """Parses interval input in any IntervalStyle ('1 year 2 mons', '1 day 02:00:00', 'P1M')."""
    return parse_interval(str(s))


def text_to_bytea(s: Any) -> bytes:
    """Parses bytea input in hex (\\x...) or escape format (\\000 is one NUL byte)."""
    return parse_text(T.BYTEA, str(s))


def text_to_uuid(s: Any) -> uuid.UUID:
    """Parses uuid input."""
    try:
        return uuid.UUID(str(s).strip())
    except ValueError:
        raise _bad(T.UUID, s) from None


def text_to_array(elem: int) -> Callable[[Any], list[Any]]:
    """Returns a parser for array input text ('{1,2,NULL}') of the given element type."""
    conv = from_text(elem)
    delim = DELIMITERS.get(elem, ",")

    def walk(items: list[Any]) -> list[Any]:
        return [None if x is None else walk(x) if isinstance(x, list) else conv(x)
                for x in items]

    def read(text: str) -> list[Any]:
        items = split_array(text, delim)
        if any(isinstance(x, list) for x in items):  # NB: '{{1,2},{3,4}}' is two-dimensional
            _check_rectangular(items, text)
        return walk(items)

    def parse(s: Any) -> list[Any]:
        if isinstance(s, list):
            return arraybounds.same_bounds(s, walk(s))
        text = str(s)
        return read(text) if text[:1] == "{" else arraybounds.with_dims(text, read)

    return parse


def _check_rectangular(items: list[Any], text: str) -> None:
    """Rejects ragged multi-dimensional array input as PostgreSQL does (22P02)."""

    def shape(v: Any) -> tuple[int, ...] | None:
        if not isinstance(v, list):
            return None
        subs = {shape(x) for x in v}
        if len(subs) > 1 or None in subs and len(v) and any(isinstance(x, list) for x in v):
            raise InvalidTextRepresentation(
                f'malformed array literal: "{text}"',
                detail="Multidimensional arrays must have sub-arrays with matching dimensions.")
        inner = next(iter(subs)) if subs else None
        return (len(v), *(inner or ()))

    shape(items)


def from_text(oid: int) -> Callable[[Any], Any]:
    """Returns the input function of a type (text -> value)."""
    if oid in INTS:
        return _text_to_int(oid)
    if oid in OIDLIKE:
        return _text_to_int(T.INT8)
    simple: dict[int, Callable[[Any], Any]] = {
        T.NUMERIC: text_to_numeric, T.FLOAT8: text_to_float, T.FLOAT4: text_to_float4,
        T.BOOL: text_to_bool, T.DATE: text_to_date, T.TIMESTAMP: text_to_timestamp,
        T.TIMESTAMPTZ: lambda s: text_to_timestamp(s, True), T.TIME: text_to_time,
        T.TIMETZ: text_to_timetz,
        T.INTERVAL: text_to_interval, T.BYTEA: text_to_bytea, T.UUID: text_to_uuid,
        # json is checked, jsonb also normalised, at the cast (22P02 there, as in PostgreSQL)
        T.JSON: text_decoder(T.JSON), T.JSONB: text_decoder(T.JSONB),
        T.XML: xmlvalue.check,  # xml_in, per the session's xmloption
        T.MONEY: lambda s: money.parse_money(str(s)),
    }
    if oid in simple:
        return simple[oid]
    if oid in (T.INT2VECTOR, T.OIDVECTOR):
        conv = _text_to_int(T.INT2 if oid == T.INT2VECTOR else T.INT8)
        return lambda s: [conv(x) for x in str(s).split()]
    if oid in T.ELEMENT_OF:
        return text_to_array(T.ELEMENT_OF[oid])
    if oid in (T.BIT, T.VARBIT):
        return bits.parse_bit
    if oid in RANGE_SUBTYPE or oid in NETWORK_INPUT or oid in MULTIRANGE_RANGE \
            or oid in GEOMETRIC or extcodecs.text_input(oid) is not None:
        return text_decoder(oid)
    if usertypes.is_enum(oid):
        return usertypes.enum_input(oid)
    if oid in COMPOSITES:
        return _to_composite(T.TEXT, oid)
    return str


def _fmt_float(v: float, oid: int = 0) -> str:
    """float8out (float4out for a float4): the shortest exact digits, with an exponent from
    1e15 up, as the output encoder prints them (1e15 is '1e+15', -0.0 is '-0')."""
    return text_encoder(T.FLOAT4 if oid == T.FLOAT4 else T.FLOAT8)(v)


def to_text(v: Any, oid: int = 0) -> str:
    """Formats a value as PostgreSQL's output function for its type would."""
    if v is None:
        return None  # type: ignore[return-value]
    if oid == T.MONEY:  # NB: an int of cents (pgtypes.money)
        return money.format_money(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        return _fmt_float(v, oid)
    if isinstance(v, Decimal):  # numeric_out: never an exponent (1E+15 is 1000000000000000)
        return text_encoder(T.NUMERIC)(v)
    if isinstance(v, dt.datetime):  # timestamptz prints in the session zone
        return format_text(T.TIMESTAMPTZ if v.tzinfo is not None else T.TIMESTAMP, v, None)
    if isinstance(v, dt.date):  # in the session's DateStyle
        return format_text(T.DATE, v)
    if isinstance(v, dt.time):
        s = v.isoformat()
        if v.microsecond:
            head, _, tail = s.partition(".")
            s = f"{head}.{tail[:6].rstrip('0')}{tail[6:]}"
        if v.tzinfo is not None and s.endswith(":00") and s[-6] in "+-":
            s = s[:-3]  # timetz prints `+00`, `+05:30`
        return s
    if isinstance(v, dt.timedelta):
        return format_text(T.INTERVAL, v)  # in the session's IntervalStyle
    if isinstance(v, bytes | bytearray | memoryview):
        return "\\x" + bytes(v).hex()
    if isinstance(v, list):
        if oid in (T.INT2VECTOR, T.OIDVECTOR):
            return " ".join(str(x) for x in v)
        if T.ELEMENT_OF.get(oid) in DELIMITERS:  # box[]: ';' between elements
            return format_text(oid, v)
        out = "{" + ",".join("NULL" if x is None else ("t" if x else "f") if isinstance(x, bool)
                             else to_text(x) if isinstance(x, list)  # a sub-array: no quotes
                             else quote_array_element(to_text(x)) for x in v) + "}"
        return out if type(v) is not arraybounds.Bounded else f"{arraybounds.dims_text(v)}={out}"
    if isinstance(v, Range | MultiRange):
        return format_text(v.oid, v)
    if isinstance(v, tuple):  # a row value: record_out, `(1,"x y",)`, not Python's repr
        return format_text(T.RECORD, v)
    return str(v)


def _round_fraction(p: int) -> Callable[[Any], Any]:
    """Rounds fractional seconds to p digits (half up), as a timestamp(p)/time(p) typmod does."""
    q = 10 ** (6 - p)

    def conv(v: Any) -> Any:
        us = v.microseconds if isinstance(v, dt.timedelta) else v.microsecond
        r = (us + q // 2) // q * q
        if isinstance(v, Time24):
            return v  # NB: 24:00:00 has no fraction to round
        if isinstance(v, dt.time):
            full = dt.datetime.combine(dt.date(2000, 1, 1), v.replace(microsecond=0))
            out = full + dt.timedelta(microseconds=r)
            if out.day != 1:  # NB: 23:59:59.999 rounds up to 24:00:00, as in PostgreSQL
                return Time24(v.tzinfo) if v.tzinfo is not None else TIME_24
            return out.time().replace(tzinfo=v.tzinfo)
        if isinstance(v, dt.datetime):
            return round_timestamp(v, q)  # NB: PG's integer rounding (half down before 2000)
        return v + dt.timedelta(microseconds=r - us)

    return conv


def _bpchar_to_text(v: str) -> str:
    return v.rstrip(" ")


def _check_len(n: int, pad: bool) -> Callable[[Any], str]:
    def conv(v: Any) -> str:
        s = to_text(v)
        if len(s) > n:
            if s[n:].strip(" ") == "":
                return s[:n]
            kind = "character" if pad else "character varying"
            raise StringDataRightTruncation(f"value too long for type {kind}({n})")
        return s.ljust(n) if pad else s

    return conv


def _numeric_typmod(typmod: int) -> Callable[[Any], Decimal]:
    prec, scale = precision_scale(typmod)
    q = Decimal(1).scaleb(-scale)

    def conv(v: Any) -> Decimal:
        d = v if isinstance(v, Decimal) else _to_numeric(v) if isinstance(v, float) else Decimal(v)
        if d.is_infinite():
            raise NumericValueOutOfRange(
                "numeric field overflow",
                detail=f"A field with precision {prec}, scale {scale} cannot hold an infinite "
                "value.")
        if not d.is_finite():
            return d
        r = d.quantize(q, rounding=ROUND_HALF_UP)
        if r.adjusted() >= prec - scale:
            raise NumericValueOutOfRange(
                "numeric field overflow",
                detail=f"A field with precision {prec}, scale {scale} must round to an absolute "
                f"value less than 10^{prec - scale}.",
            )
        return r

    return conv


def _to_numeric(v: Any, digits: int = 15) -> Decimal:
    """float8 -> numeric goes through "%.15g" as PostgreSQL's float8_numeric does (DBL_DIG
    digits, so 3.0 is 3 and 1/3.0 keeps 15 digits); float4 through "%.6g" (FLT_DIG)."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return Decimal(str(v))
        d = Decimal(f"{v:.{digits}g}")
        if d == 0:
            return d.copy_abs()
        exponent = d.as_tuple().exponent
        # '1e+300' reads as numeric with scale 0, not as an exponent: 1e300 * 1.25 keeps 2 decimals
        return d.quantize(_ONE) if isinstance(exponent, int) and exponent > 0 else d
    return Decimal(v)


_ONE = Decimal(1)


def _numeric_to_float(v: Any) -> float:
    return float(v) + 0.0  # NB: numeric has no -0 ('-0.00' * 1 is 0): no float -0.0 either


def _numeric_to_float4(v: Any) -> float:
    """numeric_float4: as float4's text input of the value (22003 names it)."""
    f = float(v) + 0.0
    if not (math.isfinite(f) and -3.4e38 < f < 3.4e38 and (f == 0.0 or abs(f) > 1.5e-38)):
        return text_to_float4(format(v, "f")) + 0.0
    return _F4.unpack(_F4.pack(f))[0]


def _numeric_to_float8(v: Any) -> float:
    """numeric_float8: as float8's text input of the value (22003 names it)."""
    f = float(v) + 0.0
    if (math.isinf(f) or f == 0.0) and v.is_finite():
        return text_to_float(format(v, "f")) + 0.0
    return f


def _int_to_bit(n: int) -> Callable[[int], str]:
    """bitfromint4/8: the low n bits, two's complement (sign bits past the integer's width)."""
    mask = (1 << n) - 1
    return lambda v: format(v & mask, f"0{n}b")


def _bit_to_int(dst: int) -> Callable[[str], int]:
    """bittoint4/8: the bits as a two's complement integer; 22003 past its width."""
    width = 32 if dst == T.INT4 else 64

    def conv(v: str) -> int:
        if len(v) > width:
            raise NumericValueOutOfRange(f"{_INT_NAMES[dst]} out of range")
        x = int(v, 2) if v else 0
        return x - (1 << width) if len(v) == width and x >> (width - 1) else x

    return conv


def _int_to_float4(v: Any) -> float:
    """i4tof / i8tof: an integer rounded to float4's 24-bit mantissa, as PostgreSQL stores
    it (16777217::int4::float4 is 16777216); no integer overflows float4.

    >>> _int_to_float4(16777217), _int_to_float4(7)
    (16777216.0, 7.0)
    """
    return float(_F4.unpack(_F4.pack(v))[0])


def _float8_to_float4(v: Any) -> float:
    """dtof: rounds to float4, 22003 on overflow or underflow as PostgreSQL's check."""
    if not math.isfinite(v):
        return v
    try:
        f = _F4.unpack(_F4.pack(v))[0]
    except OverflowError:
        raise NumericValueOutOfRange("value out of range: overflow") from None
    if f == 0.0 and v != 0.0:
        raise NumericValueOutOfRange("value out of range: underflow")
    return f


def _float4_to_numeric(v: Any) -> Decimal:
    return _to_numeric(v, 6)


def _array_typmod(base: Callable[[Any], Any] | None, elem: int,
                  typmod: int) -> Callable[[Any], Any] | None:
    """Applies an array type's typmod to every element: varchar(10)[] checks each length."""
    one = cast_function(elem, elem, typmod)
    if one is None:
        return base
    each = each_element(one)
    return each if base is None else (lambda v: each(base(v)))


def each_element(one: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any]]:
    """Lifts an element converter to arrays of any depth (NULL elements stay NULL)."""

    def each(v: list[Any]) -> list[Any]:  # NB: nested lists are multi-dimensional arrays
        return arraybounds.same_bounds(
            v, [None if x is None else each(x) if isinstance(x, list) else one(x) for x in v])

    return each


NAMEDATALEN = 64


def clip_name(v: Any) -> str:
    """namein: at most NAMEDATALEN - 1 bytes, cut on a character boundary (pg_mbcliplen)."""
    s = str(v)
    raw = s.encode()
    if len(raw) < NAMEDATALEN:
        return s
    return raw[:NAMEDATALEN - 1].decode("utf-8", "ignore")


def cast_function(src: int, dst: int, typmod: int = -1) -> Callable[[Any], Any] | None:
    """Returns the converter for a cast from src to dst (None: the value is kept as is)."""
    if typmod >= 0 and dst in T.ELEMENT_OF and dst not in (T.INT2VECTOR, T.OIDVECTOR):
        return _array_typmod(cast_function(src, dst), T.ELEMENT_OF[dst], typmod)
    if dst in (T.VARCHAR, T.BPCHAR) and typmod > 4:
        return _check_len(typmod - 4, dst == T.BPCHAR)
    if dst == T.INTERVAL and typmod >= 0:  # a precision (0..6) or PostgreSQL's INTERVAL_TYPMOD
        imod = typmod if typmod > 0xFFFF else iv.typmod(iv.FULL_RANGE, typmod)
        if src in STRINGS or src == T.UNKNOWN:  # interval_in: '5' HOUR counts hours
            return lambda v: parse_interval(str(v), imod)
        iinner = cast_function(src, dst) if src != dst else None
        return ((lambda v: iv.adjust(v, imod)) if iinner is None
                else (lambda v: iv.adjust(iinner(v), imod)))
    if dst in (T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME, T.TIMETZ) and 0 <= typmod < 6:
        tinner = cast_function(src, dst) if src != dst else None
        rnd = _round_fraction(typmod)
        return rnd if tinner is None else (lambda v: rnd(tinner(v)))
    if dst == T.BIT and src in (T.INT4, T.INT8):
        return _int_to_bit(max(typmod, 1))
    if src == T.BIT and dst in (T.INT4, T.INT8):
        return _bit_to_int(dst)
    if dst in (T.BIT, T.VARBIT) and typmod >= 0:
        binner = cast_function(src, dst) if src != dst else None
        fit = bits.to_bit(typmod) if dst == T.BIT else bits.to_varbit(typmod)
        return fit if binner is None else (lambda v: fit(binner(v)))
    if dst == T.CHAR and src in STRINGS and src != T.CHAR:
        return lambda v: str(v)[:1]
    if dst == T.NAME and (src in STRINGS or src == T.UNKNOWN) and src != T.NAME:
        return clip_name
    if dst == T.NUMERIC and typmod > 4:
        ninner = cast_function(src, T.NUMERIC)
        mod = _numeric_typmod(typmod)
        return mod if ninner is None else (lambda v: mod(ninner(v)))
    if src == dst:
        return None
    if src in citext.OIDS and dst in STRINGS:  # case-sensitive again (pgtypes.citext)
        return citext.plain
    if src in citext.OIDS:  # I/O conversion through text, as for any string type
        return _then(citext.plain, cast_function(T.TEXT, dst, typmod))
    if dst in citext.OIDS and src not in STRINGS and src != T.UNKNOWN:
        as_text = cast_function(src, T.TEXT)
        return citext.parse if as_text is None else _then(as_text, citext.parse)
    if src == T.BPCHAR and dst in (T.TEXT, T.VARCHAR, T.NAME):
        return _bpchar_to_text  # char(n) -> text drops the padding
    if (src, dst) in _MONEY_CASTS:  # pgtypes.money: int8 cents
        return _MONEY_CASTS[src, dst]
    if src in STRINGS:
        return None if dst in STRINGS else from_text(dst)
    if dst in STRINGS:
        if src == T.INET:
            return network.inet_text
        if src == _XML_ARRAY:  # array_out: each element through xml_out (xml::text is raw)
            return text_encoder(src)
        if src in (T.TIMESTAMPTZ, T.TIMESTAMP, T.DATE, T.INTERVAL):
            # NB: DateStyle / IntervalStyle are read now: plans are redone when they change
            return text_encoder(src)
        return lambda v: to_text(v, src)
    if dst in INTS:
        if src in OIDLIKE:  # a reg* value loses its name: plain integer
            return (lambda v: check_int(int(v), dst)) if dst != T.INT8 else int
        if src in INTS:
            return (lambda v: check_int(v, dst)) if dst != T.INT8 else None
        if src in (T.NUMERIC, T.FLOAT8, T.FLOAT4):
            return _num_to_int(dst)
        if src == T.BOOL and dst == T.INT4:
            return int
    if dst in OIDLIKE and (src in INTS or src in OIDLIKE):
        return int if src in OIDLIKE else None
    if dst == T.NUMERIC and src == T.FLOAT4:
        return _float4_to_numeric
    if dst == T.NUMERIC and src in (*INTS, T.FLOAT8, *OIDLIKE):
        return _to_numeric
    if dst in (T.FLOAT8, T.FLOAT4) and src == T.NUMERIC:
        return _numeric_to_float4 if dst == T.FLOAT4 else _numeric_to_float8
    if dst == T.FLOAT4 and src == T.FLOAT8:
        return _float8_to_float4
    if dst == T.FLOAT4 and src in (*INTS, *OIDLIKE):
        return _int_to_float4
    if dst in (T.FLOAT8, T.FLOAT4) and src in (*INTS, T.FLOAT8, T.FLOAT4, *OIDLIKE):
        return float
    if dst == T.BOOL and src == T.INT4:
        return bool
    if dst == T.TIMESTAMP and src == T.DATE:
        return date_to_timestamp
    if dst == T.TIMESTAMPTZ and src == T.DATE:
        return date_to_tstz
    if dst == T.DATE and src == T.TIMESTAMP:
        return timestamp_to_date
    if dst == T.TIMESTAMP and src == T.TIMESTAMPTZ:
        return tstz_to_local
    if dst == T.TIMESTAMPTZ and src == T.TIMESTAMP:
        return timestamp_to_tstz
    if src == T.TIMESTAMPTZ and dst in (T.DATE, T.TIME, T.TIMETZ):
        return {T.DATE: tstz_to_date, T.TIME: tstz_to_time, T.TIMETZ: tstz_to_timetz}[dst]
    if dst == T.TIME and src in (T.TIMESTAMP, T.TIMETZ):  # NB: an infinite timestamp: NULL
        return lambda v: v.replace(tzinfo=None) if isinstance(v, dt.time) else (
            None if isinstance(v, InfiniteTimestamp) else v.time())
    if dst == T.TIMETZ and src == T.TIME:
        return time_to_timetz
    if src == T.INTERVAL and dst == T.TIME:  # interval_time: the time field, modulo a day
        return lambda v: iv.time_of_day(iv.as_interval(v).time)
    if src == T.TIME and dst == T.INTERVAL:
        return lambda v: iv.Interval(0, 0, ((v.hour * 60 + v.minute) * 60 + v.second)
                                     * 1_000_000 + v.microsecond)
    if src in (T.INT2VECTOR, T.OIDVECTOR) and dst in T.ELEMENT_OF:  # psql: indkey::int2[]
        src = T.ARRAY_OF[T.INT2 if src == T.INT2VECTOR else T.OID]
        if src == dst:
            return None
    if dst in T.ELEMENT_OF and src in T.ELEMENT_OF:
        inner = cast_function(T.ELEMENT_OF[src], T.ELEMENT_OF[dst])
        if inner is None:
            return None

        def each(v: list[Any]) -> list[Any]:  # NB: nested lists are multi-dimensional arrays
            return arraybounds.same_bounds(
                v, [None if x is None else each(x) if isinstance(x, list) else inner(x)
                    for x in v])

        return each
    if dst in (T.JSON, T.JSONB) and src in (T.JSON, T.JSONB):
        return None
    if {src, dst} == {T.BIT, T.VARBIT}:
        return None
    if dst in COMPOSITES:
        return _to_composite(src, dst)
    if src == T.XID8 and dst == T.XID:  # xid(xid8): the low 32 bits
        return lambda v: v & 0xFFFFFFFF
    if (src, dst) in _NETWORK_CASTS:
        return _NETWORK_CASTS[(src, dst)]
    if src == T.JSONB and dst in _JSONB_SCALARS:
        return _jsonb_scalar(dst)
    if MULTIRANGE_OF.get(src) == dst:  # int4multirange(int4range): the one range
        return lambda r: make_multirange(dst, [r])
    if src in hstore.OIDS and dst in (T.JSON, T.JSONB):  # hstore_to_json(b)
        return hstore.to_json if dst == T.JSON else lambda v: normalize_jsonb(hstore.to_json(v))
    if dst == T.ANYARRAY or dst == T.ANYELEMENT or src == T.UNKNOWN:
        return None
    raise CannotCoerce(f"cannot cast type {type_name(src)} to {type_name(dst)}")


_JSONB_SCALARS = (T.BOOL, T.NUMERIC, T.INT2, T.INT4, T.INT8, T.FLOAT4, T.FLOAT8)
_JSONB_KINDS = {"{": "object", "[": "array", '"': "string", "t": "boolean", "f": "boolean",
                "n": "null"}


def _jsonb_scalar(dst: int) -> Callable[[Any], Any]:
    """jsonb_int4 and its kin: a jsonb number (or, for boolean, true/false) as `dst`, else
    22023 naming what the value is (PostgreSQL 15 refuses a jsonb null too)."""
    number = cast_function(T.NUMERIC, dst) if dst != T.BOOL else None

    def conv(v: Any) -> Any:
        text = str(v)
        kind = _JSONB_KINDS.get(text[:1], "numeric")
        if dst == T.BOOL and kind == "boolean":
            return text == "true"
        if dst != T.BOOL and kind == "numeric":
            n = Decimal(text)
            return number(n) if number is not None else n
        raise InvalidParameterValue(f"cannot cast jsonb {kind} to type {type_name(dst)}")

    return conv


_MONEY_CASTS: dict[tuple[int, int], Callable[[Any], Any]] = {
    (T.NUMERIC, T.MONEY): money.from_numeric, (T.INT4, T.MONEY): money.from_int,
    (T.INT8, T.MONEY): money.from_int, (T.MONEY, T.NUMERIC): money.to_numeric,
}
_NETWORK_CASTS: dict[tuple[int, int], Callable[[Any], Any] | None] = {
    (T.INET, T.CIDR): network.inet_to_cidr, (T.CIDR, T.INET): None,
    (T.MACADDR, T.MACADDR8): network.macaddr_to_macaddr8,
    (T.MACADDR8, T.MACADDR): network.macaddr8_to_macaddr,
}


def _to_composite(src: int, dst: int) -> Callable[[Any], Any]:
    """A cast to a composite type: from its text form (record_in) or from a record, each field
    converted to its attribute's type and typmod."""
    fields = COMPOSITES[dst]
    user = usertypes.by_oid(dst)
    mods = [a[2] for a in user.attrs] if user is not None else [-1] * len(fields)
    if src in STRINGS:
        ins = [_then(from_text(f), cast_function(f, f, m) if m >= 0 else None)
               for f, m in zip(fields, mods, strict=True)]

        def from_record_text(v: Any) -> Record:
            vals = parse_record(str(v), len(fields))
            if len(vals) != len(fields):
                raise InvalidTextRepresentation(
                    f'malformed record literal: "{v}"',
                    detail="Too few columns." if len(vals) < len(fields) else "Too many columns.")
            return Record(tuple(None if x is None else f(x) for x, f in zip(vals, ins, strict=True)),
                          fields)

        return from_record_text

    def from_record(v: Any) -> Record:
        if len(v) != len(fields):
            raise CannotCoerce(f"cannot cast type record to a type of {len(fields)} columns")
        olds = v.oids if isinstance(v, Record) else (T.UNKNOWN,) * len(v)
        out = []
        for x, old, new, mod in zip(v, olds, fields, mods, strict=True):
            fn = cast_function(old, new, mod) if x is not None else None
            out.append(x if fn is None else fn(x))
        return Record(tuple(out), fields)

    return from_record


def _then(first: Callable[[Any], Any], second: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    return first if second is None else (lambda v: second(first(v)))


def date_add_days(d: dt.date, n: int) -> dt.date:
    """date + integer, with PostgreSQL's range error."""
    try:
        return d + dt.timedelta(days=n)
    except OverflowError:  # BC or after 9999 (pgtypes.fardate); 22008 past PostgreSQL's range
        if isinstance(d, InfiniteDate):
            return d  # NB: timedelta itself overflowed; infinity stays infinite
        return date_of_days(days_of(d) + n)
