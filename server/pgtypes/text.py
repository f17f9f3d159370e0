"""PostgreSQL's text formats: the output and input functions of the types Cumulo speaks.

Clients that use the text format (psql, psycopg2, pg8000, pgbench, JDBC by
default) parse these strings themselves, so they must be byte-for-byte what
PostgreSQL 15 prints: booleans `t`/`f`, floats in their shortest exact form
(`extra_float_digits` >= 1, the default), timestamps without trailing zero
microseconds, intervals in the `postgres` IntervalStyle, arrays with
PostgreSQL's quoting rules.

Python values per type (shared with `binary.py` and the SQL layer):

- interval is an `interval.Interval` (a timedelta subclass carrying
  PostgreSQL's months, days and microseconds); a plain timedelta is accepted
  on output as days plus same-signed time. Its text forms live in
  `intervaltext.py`.
- json and jsonb are their JSON text (`str`); a dict or list is accepted on
  output and serialised the way jsonb prints.
- timestamp is a naive `datetime`, timestamptz an aware one (printed in the
  session TimeZone passed as `tz`).

`text_encoder(oid, tz)` returns one function per column, chosen once per
RowDescription; `format_text` and `parse_text` are the per-value forms.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import struct
import uuid
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import (
    DatetimeFieldOverflow,
    InvalidDatetimeFormat,
    InvalidParameterValue,
    InvalidTextRepresentation,
    NumericValueOutOfRange,
    ProgramLimitExceeded,
    SQLError,
)
from . import (
    arraybounds,
    bits,
    dateparse,
    enums,
    extcodecs,
    geometry,
    money,
    multiranges,
    network,
    ranges,
    records,
    xmlvalue,
    zones,
)
from . import intervaltext as _iv_text
from . import jsonbtext as _jsonb_text
from . import oids as T
from .fardate import FarDate, FarTimestamp, date_of_days, days_of_ymd, ts_of_us
from .infdate import (
    TIME_24,
    TS_INF,
    TS_NEG_INF,
    TSTZ_INF,
    TSTZ_NEG_INF,
    InfiniteDate,
    InfiniteTimestamp,
    Time24,
)
from .infdate import WORDS as INFINITE_DATES
from .interval import Interval
from .numlimits import check_numeric

UTC = dt.UTC
Encoder = Callable[[Any], str]

# 'infinity' and '-infinity' of timestamp[tz]: the extremes of datetime, as asyncpg maps them.
TS_INFINITY, TS_NEG_INFINITY = TS_INF, TS_NEG_INF  # NB: not datetime.max/min (infdate.py)
TSTZ_INFINITY, TSTZ_NEG_INFINITY = TSTZ_INF, TSTZ_NEG_INF

INT_RANGE = {T.INT2: (-(2**15), 2**15 - 1), T.INT4: (-(2**31), 2**31 - 1),
             T.INT8: (-(2**63), 2**63 - 1), T.OID: (0, 2**32 - 1)}
STRING_OIDS = frozenset({T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME, T.CHAR, T.UNKNOWN})
OID_LIKE = frozenset({T.OID, T.REGPROC, T.REGCLASS, T.REGTYPE, T.REGNAMESPACE, T.REGROLE,
                      T.REGPROCEDURE, T.REGOPER, T.REGOPERATOR, T.REGCONFIG, T.REGCOLLATION,
                      T.XID, T.CID})


def timezone(tz: Any) -> dt.tzinfo:
    """Returns a tzinfo for a TimeZone setting ('UTC', 'Europe/Madrid', '<+05:30>-05:30').

    None is the zone of the session this thread serves (`zones.session_zone`); a
    setting PostgreSQL would reject falls back to UTC.
    """
    if tz is None:
        return zones.session_zone()
    if isinstance(tz, dt.tzinfo):
        return tz
    try:
        return zones.parse_setting(str(tz))[1]
    except SQLError:
        return UTC


# -- output ------------------------------------------------------------------


def _float8(v: float) -> str:
    if type(v) is not float:
        v = float(v)
    r = repr(v)
    if "e" not in r and "n" not in r:
        if r.endswith(".0"):
            r = r[:-2]
        if abs(v) < 1e15:
            return r
        return _sci(r, 15)
    if r == "inf":
        return "Infinity"
    if r == "-inf":
        return "-Infinity"
    if r == "nan":
        return "NaN"
    return _sci(r, 15)


geometry.use_float8(_float8)


def _sci(shortest: str, digits: int) -> str:
    """Reformats a shortest decimal with PostgreSQL's switch to exponent form."""
    sign, ds, exp = Decimal(shortest).as_tuple()
    d = "".join(map(str, ds)).rstrip("0") or "0"
    e10 = len(ds) - 1 + int(exp)  # decimal exponent of the first digit
    neg = "-" if sign else ""
    if -4 <= e10 < digits:
        return neg + format(Decimal(f"{d}e{e10 - len(d) + 1}"), "f")
    mant = d[0] + ("." + d[1:] if len(d) > 1 else "")
    return f"{neg}{mant}e{'-' if e10 < 0 else '+'}{abs(e10):02d}"


_F4 = struct.Struct("!f")


def _float4(v: float) -> str:
    v = float(v)
    if not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    v32 = _F4.unpack(_F4.pack(v))[0]
    for prec in range(1, 10):
        s = f"{v32:.{prec - 1}e}"
        try:
            if _F4.unpack(_F4.pack(float(s)))[0] == v32:
                break
        except OverflowError:  # a candidate rounded past FLT_MAX
            continue
    return _sci(s, 6)


def _numeric(v: Any) -> str:
    """numeric_out: plain digits, never an exponent.

    >>> [_numeric(Decimal(x)) for x in ("12.50", "-0.00", "1E+2", "1E-7", "-NaN", "sNaN")]
    ['12.50', '0.00', '100', '0.0000001', 'NaN', 'NaN']
    """
    if type(v) is Decimal:
        # NB: str() is 5x faster than format(v, "f") and the same text unless it chose an
        # exponent or the value is not finite (a finite fixed-point text ends in a digit)
        s = str(v)
        if "E" not in s and s[-1].isdigit():
            return s[1:] if s[0] == "-" and not v else s
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        v = Decimal(repr(v)) if math.isfinite(v) else Decimal(str(v))
    if not v.is_finite():
        return "NaN" if v.is_nan() else ("Infinity" if v > 0 else "-Infinity")
    s = format(v, "f")
    return s[1:] if s[0] == "-" and not v else s


def _frac(us: int) -> str:
    return f".{us:06d}".rstrip("0") if us else ""


def _time(v: dt.time | dt.datetime) -> str:
    return f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}{_frac(v.microsecond)}"


def _offset(off: dt.timedelta | None) -> str:
    secs = int(off.total_seconds()) if off else 0
    sign = "-" if secs < 0 else "+"
    h, rem = divmod(abs(secs), 3600)
    m, s = divmod(rem, 60)
    out = f"{sign}{h:02d}"
    if m or s:
        out += f":{m:02d}"
    if s:
        out += f":{s:02d}"
    return out


def _date(v: dt.date) -> str:
    if isinstance(v, InfiniteDate | FarDate):  # PostgreSQL's text of both (infdate, fardate)
        return str(v)
    return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"


def _timestamp(v: dt.datetime) -> str:
    return f"{_date(v)} {_time(v)}"


def infinite(v: dt.datetime) -> str | None:
    """'infinity' / '-infinity' for the two sentinel timestamps, else None."""
    return str(v) if isinstance(v, InfiniteTimestamp) else None


def _timestamp_out(v: dt.datetime) -> str:
    if type(v) is FarTimestamp:  # BC or after 9999 (pgtypes.fardate)
        return str(v)
    if v.year in (1, 9999):
        inf = infinite(v)
        if inf:
            return inf
    s = v.isoformat(" ")
    return s[:26].rstrip("0") if v.microsecond else s[:19]


def _timetz(v: dt.time) -> str:
    return _time(v) + _offset(v.utcoffset())


def format_timestamptz(v: dt.datetime, tz: dt.tzinfo) -> str:
    """Formats a timestamptz on the clocks of `tz`: `2024-03-31 03:30:00+02`, `-00:14:44`."""
    if v.year in (1, 9999) or type(v) is FarTimestamp:
        inf = infinite(v)
        if inf:
            return inf
        w = zones.to_local(v, tz)  # NB: may cross into BC or past 9999 (pgtypes.fardate)
        if type(w) is FarTimestamp:
            return str(w)
    elif v.tzinfo is None:
        w = v.replace(tzinfo=UTC).astimezone(tz)
    else:
        w = v.astimezone(tz) if v.tzinfo is not tz else v
    s = w.isoformat(" ")  # NB: C speed; then PostgreSQL's trimming of fraction and offset
    if w.microsecond:
        head, rest = s[:26].rstrip("0"), s[26:]
    else:
        head, rest = s[:19], s[19:]
    if len(rest) == 6 and rest.endswith(":00"):
        return head + rest[:3]
    return head + rest


def _timestamptz_in(tz: dt.tzinfo | None) -> Encoder:
    """The timestamptz output function for one zone (None: the session's, read per call)."""
    if tz is None:
        return lambda v: format_timestamptz(v, zones.session_zone())
    return lambda v: format_timestamptz(v, tz)


_MON = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DOW = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def year_era(v: dt.date) -> tuple[int, str]:
    """The year PostgreSQL prints and its era suffix: (44, " BC") for the astronomical -43
    of a `fardate` value, (2024, "") for a real date."""
    y = v.year
    return (1 - y, " BC") if y <= 0 else (y, "")


def _styled(style: str, order: str) -> tuple[Encoder, Encoder, Callable[[Any], Encoder]]:
    """The date, timestamp and timestamptz output functions of a non-ISO DateStyle."""
    dmy = order == "DMY"

    def ymd(v: dt.date) -> str:
        d, m, y = f"{v.day:02d}", f"{v.month:02d}", f"{year_era(v)[0]:04d}"
        if style == "German":
            return f"{d}.{m}.{y}"
        if style == "SQL":
            return f"{d}/{m}/{y}" if dmy else f"{m}/{d}/{y}"
        return f"{d}-{m}-{y}" if dmy else f"{m}-{d}-{y}"

    def date(v: dt.date) -> str:
        if isinstance(v, InfiniteDate):
            return str(v)
        return ymd(v) + year_era(v)[1]  # NB: ' BC' after a `fardate` value

    def stamp(v: dt.datetime, zone: str) -> str:
        y, era = year_era(v)
        if style != "Postgres":
            return f"{ymd(v)} {_time(v)}{zone}{era}"
        day = f"{v.day:02d} {_MON[v.month - 1]}" if dmy else f"{_MON[v.month - 1]} {v.day:02d}"
        return f"{_DOW[v.weekday()]} {day} {_time(v)} {y:04d}{zone}{era}"

    def timestamp(v: dt.datetime) -> str:
        return (infinite(v) if v.year in (1, 9999) else None) or stamp(v, "")

    def timestamptz(tz: dt.tzinfo | None) -> Encoder:
        def enc(v: dt.datetime) -> str:
            inf = infinite(v) if v.year in (1, 9999) else None
            if inf:
                return inf
            w = zones.to_local(v, zones.session_zone() if tz is None else tz)
            return stamp(w, " " + (w.tzname() or _offset(w.utcoffset())))

        return enc

    return date, timestamp, timestamptz


def format_json_datetime(v: dt.date | dt.time) -> str:
    """A date/time value as to_json writes it: ISO 8601, timestamptz in the session zone."""
    if isinstance(v, dt.datetime):
        if v.year in (1, 9999) and infinite(v):
            return infinite(v) or ""
        if v.tzinfo is None:
            if type(v) is FarTimestamp:  # NB: the era goes last, as PostgreSQL writes it
                y, era = year_era(v)
                return f"{y:04d}-{v.month:02d}-{v.day:02d}T{_time(v)}{era}"
            return f"{_date(v)}T{_time(v)}"
        w = zones.to_local(v, zones.session_zone())
        if type(w) is FarTimestamp:
            y, era = year_era(w)
            return f"{y:04d}-{w.month:02d}-{w.day:02d}T{_time(w)}{_iso_offset(w.utcoffset())}{era}"
        return f"{_date(w)}T{_time(w)}{_iso_offset(w.utcoffset())}"
    if isinstance(v, dt.time):
        return _timetz(v) if v.tzinfo is not None else _time(v)
    return _date(v)


def _iso_offset(off: dt.timedelta | None) -> str:
    out = _offset(off)
    return out if ":" in out else out + ":00"


def format_interval(v: dt.timedelta) -> str:
    """Formats an interval in PostgreSQL's `postgres` IntervalStyle ('1 year 2 mons 02:03:04')."""
    return _iv_text.format_postgres(v)


_INTERVAL_STYLES: dict[str, Encoder] = {
    "iso_8601": _iv_text.format_iso_8601, "postgres_verbose": _iv_text.format_verbose,
    "sql_standard": _iv_text.format_sql_standard,
}


def _bytea(v: Any) -> str:
    return "\\x" + bytes(v).hex()


def _json(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def _bool(v: Any) -> str:
    return "t" if v else "f"


def format_generic(v: Any) -> str:
    """Formats a value whose column type is unknown to pgtypes, by its Python type."""
    if isinstance(v, str):
        return v
    enc = _BY_PYTYPE.get(type(v))
    return enc(v) if enc else str(v)


_BY_PYTYPE: dict[type, Encoder] = {
    bool: _bool, int: str, float: _float8, Decimal: _numeric, bytes: _bytea, bytearray: _bytea,
    memoryview: _bytea, dt.date: _date, dt.time: lambda v: _timetz(v) if v.tzinfo else _time(v),
    dt.datetime: lambda v: format_timestamptz(v, zones.session_zone()) if v.tzinfo
    else _timestamp_out(v),
    dt.timedelta: format_interval, Interval: format_interval, uuid.UUID: str, dict: _json,
    ranges.Range: lambda r: text_encoder(r.oid)(r),
    multiranges.MultiRange: lambda m: text_encoder(m.oid)(m),
    records.Record: lambda r: text_encoder(T.RECORD)(r),
}


def _needs_quotes(s: str, delim: str = ",") -> bool:
    if not s or s.upper() == "NULL":
        return True
    special = '{}",\\ \t\n\r\v\f' if delim == "," else '{}"\\ \t\n\r\v\f' + delim
    for c in s:
        if c in special:
            return True
    return False


# pg_type.typdelim where it is not a comma: box[] separates its elements with ';' (a box's
# own text holds commas), in array input and output alike
DELIMITERS = {geometry.BOX: ";"}


def quote_array_element(s: str, delim: str = ",") -> str:
    """An element's text as array_out writes it: quoted when empty, NULL, or holding a
    brace, quote, comma, backslash or white space (PostgreSQL's isspace).

    >>> quote_array_element("a"), quote_array_element("x y"), quote_array_element("a\\nb")
    ('a', '"x y"', '"a\\nb"')
    >>> quote_array_element('say "hi"'), quote_array_element("null")
    ('"say \\\\"hi\\\\""', '"null"')
    """
    if _needs_quotes(s, delim):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return s


def _array_of(elem: Encoder, sep: str = ",") -> Encoder:
    def enc(v: list[Any] | tuple[Any, ...]) -> str:
        parts = []
        for x in v:
            if x is None:
                parts.append("NULL")
            elif isinstance(x, list | tuple) and not isinstance(x, records.Record):
                parts.append(enc(x))
            else:
                parts.append(quote_array_element(elem(x), sep))
        if type(v) is arraybounds.Bounded:  # NB: array_out shows bounds other than 1
            return f"{arraybounds.dims_text(v)}={{{sep.join(parts)}}}"
        return "{" + sep.join(parts) + "}"

    return enc


def _vector(v: list[Any]) -> str:
    return " ".join(str(x) for x in v)


_SCALAR_OUT: dict[int, Encoder] = {
    T.BOOL: _bool, T.INT2: str, T.INT4: str, T.INT8: str, T.FLOAT8: _float8, T.FLOAT4: _float4,
    T.NUMERIC: _numeric, T.BYTEA: _bytea, T.DATE: _date, T.TIME: _time, T.TIMETZ: _timetz,
    T.TIMESTAMP: _timestamp_out, T.INTERVAL: format_interval, T.UUID: str, T.JSON: _json,
    T.JSONB: _json, T.INT2VECTOR: _vector, T.OIDVECTOR: _vector, T.MONEY: money.format_money,
}


def text_encoder(oid: int, tz: Any = None) -> Encoder:
    """Returns the output function for a type: value -> PostgreSQL's text form."""
    if oid == T.XML:  # xml_out: the XML declaration reprinted
        return xmlvalue.out
    if oid in STRING_OIDS:
        return format_generic
    if oid in (T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ) and dateparse.date_style() != "ISO":
        date, timestamp, timestamptz = _styled(dateparse.date_style(), dateparse.date_order())
        if oid == T.TIMESTAMPTZ:
            return timestamptz(None if tz is None else timezone(tz))
        return date if oid == T.DATE else timestamp
    if oid == T.TIMESTAMPTZ:
        return _timestamptz_in(None if tz is None else timezone(tz))
    if oid == T.INTERVAL and dateparse.interval_style() != "postgres":
        return _INTERVAL_STYLES.get(dateparse.interval_style(), format_interval)
    enc = _SCALAR_OUT.get(oid)
    if enc is not None:
        return enc
    if oid in OID_LIKE:
        return format_generic
    if oid in ranges.SUBTYPE:
        return ranges.text_encoder(text_encoder(ranges.SUBTYPE[oid], tz))
    if oid in multiranges.RANGE_OF:
        return multiranges.text_encoder(text_encoder(ranges.SUBTYPE[multiranges.RANGE_OF[oid]], tz))
    if oid == T.RECORD or oid in records.ROW_TYPES:
        return records.text_encoder(lambda field: text_encoder(field, tz))
    if oid in records.COMPOSITES:  # CREATE TYPE ... AS (...): a record of known field types
        renc, fields = records.text_encoder(lambda field: text_encoder(field, tz)), \
            records.COMPOSITES[oid]
        return lambda v: renc(records.typed(fields, v))
    if oid in T.DOMAIN_BASE:  # an element of `d[]`: its base type's output
        return text_encoder(T.DOMAIN_BASE[oid], tz)
    elem = T.ELEMENT_OF.get(oid)
    if elem is not None:
        return _array_of(text_encoder(elem, tz), DELIMITERS.get(elem, ","))
    return format_generic


def format_text(oid: int, value: Any, tz: Any = None) -> str:
    """Formats one value as PostgreSQL's output function for `oid` prints it."""
    return text_encoder(oid, tz)(value)


# -- input -------------------------------------------------------------------


def _bad(oid: int, s: str) -> SQLError:
    name = T.TYPES[oid].sql_name if oid in T.TYPES else str(oid)
    return InvalidTextRepresentation(f'invalid input syntax for type {name}: "{s}"')


def _int_in(oid: int) -> Callable[[str], int]:
    lo, hi = INT_RANGE.get(oid, INT_RANGE[T.OID])

    def dec(s: str) -> int:
        try:
            v = int(s.strip())
        except ValueError:
            raise _bad(oid, s) from None
        if "_" in s or not s.isascii():  # NB: Python's digit groups and other scripts' digits
            raise _bad(oid, s)
        if not lo <= v <= hi:
            name = T.TYPES[oid].sql_name
            raise NumericValueOutOfRange(f'value "{s}" is out of range for type {name}')
        return v

    return dec


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _bool_in(s: str) -> bool:
    t = s.strip().lower()
    if t:
        if t in ("1", "0"):
            return t == "1"
        for word in _TRUE:
            if word.startswith(t) and (word != "on" or len(t) >= 2):
                return True
        for word in _FALSE:
            if word.startswith(t) and (word != "off" or len(t) >= 2):
                return False
    raise _bad(T.BOOL, s)


def _out_of_range(oid: int, s: str) -> SQLError:
    return NumericValueOutOfRange(f'"{s}" is out of range for type {T.TYPES[oid].sql_name}')


def _hex_float(oid: int, s: str) -> float:
    """strtod's hexadecimal form ('0x1F', '-0x1.8p1'), else float8in's 22P02."""
    t = s.strip()
    if t.lstrip("+-")[:2].lower() != "0x":
        raise _bad(oid, s)
    try:
        return float.fromhex(t)
    except OverflowError:
        raise _out_of_range(oid, s) from None
    except ValueError:
        raise _bad(oid, s) from None


def _float_in(oid: int) -> Callable[[str], float]:
    def dec(s: str) -> float:
        try:
            v = float(s.strip())
        except ValueError:
            v = _hex_float(oid, s)  # NB: strtod reads C99 hex floats: '0x1F' is 31
        if "_" in s or not s.isascii():
            raise _bad(oid, s)
        word = s.strip().lower().lstrip("+-")
        if math.isinf(v) and word not in ("inf", "infinity"):
            raise _out_of_range(oid, s)  # NB: strtod's ERANGE: overflow
        if oid == T.FLOAT4 and math.isfinite(v):
            try:
                f = _F4.unpack(_F4.pack(v))[0]
            except OverflowError:
                raise _out_of_range(oid, s) from None
            if f == 0.0 and v != 0.0:
                raise _out_of_range(oid, s)  # NB: strtof's underflow
            v = f
        elif v == 0.0 and any(c in "123456789" for c in word.split("e")[0]):
            raise _out_of_range(oid, s)  # NB: strtod's underflow
        return v

    return dec


def _numeric_in(s: str) -> Decimal:
    t = s.strip()
    try:
        d = Decimal(t)
    except InvalidOperation:
        raise _bad(T.NUMERIC, s) from None
    if "_" in t or not t.isascii():
        raise _bad(T.NUMERIC, s)
    if d.is_snan() or (d.is_infinite() and t.lower().lstrip("+-") not in ("infinity", "inf")):
        raise _bad(T.NUMERIC, s)
    return check_numeric(d, s)


def _bytea_in(s: str) -> bytes:
    if s.startswith("\\x"):
        try:
            return bytes.fromhex(s[2:])
        except ValueError:
            raise _bad(T.BYTEA, s) from None
    out = bytearray()
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
        elif s[i + 1 : i + 2] == "\\":
            out.append(92)
            i += 2
        elif re.fullmatch(r"[0-3][0-7][0-7]", s[i + 1 : i + 4]):
            out.append(int(s[i + 1 : i + 4], 8))
            i += 4
        else:  # NB: byteain's message names no value
            raise InvalidTextRepresentation("invalid input syntax for type bytea")
    return bytes(out)


_DATE = r"(\d{4,})-(\d{1,2})-(\d{1,2})"
_CLOCK = r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
_ZONE = r"\s*(Z|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?|[A-Za-z][A-Za-z0-9_/+-]*)?"
_TS_RE = re.compile(rf"\s*{_DATE}(?:[ T]+{_CLOCK})?{_ZONE}(?:\s*(AD|BC))?\s*", re.I)
_TIME_RE = re.compile(rf"\s*{_CLOCK}{_ZONE}\s*", re.I)


def _us(frac: str | None) -> int:
    if not frac:
        return 0
    return round(int(frac[:7].ljust(7, "0")) / 10)  # round to microseconds, as PostgreSQL


def _zone(z: str | None) -> dt.tzinfo | None:
    """A zone written after a date/time: `Z`, an ISO offset (`+05:30`, `-0330`) or a name."""
    if not z:
        return None
    if z.upper() == "Z":
        return UTC
    if z[0] not in "+-":
        tz = zones.named_zone(z) if not z[0].isdigit() else None
        if tz is None:
            raise InvalidParameterValue(f'time zone "{z.lower()}" not recognized')
        return tz
    sign = -1 if z[0] == "-" else 1
    body = z[1:]
    if ":" in body:
        parts = [int(p) for p in body.split(":")]
    else:  # h, hh, hmm, hhmm, hhmmss
        cut = len(body) - 2 * ((len(body) - 1) // 2)
        parts = [int(body[:cut])] + [int(body[i : i + 2]) for i in range(cut, len(body), 2)]
    h, m, sec = (parts + [0, 0])[:3]
    return dt.timezone(sign * dt.timedelta(hours=h, minutes=m, seconds=sec))


_SPECIAL_DAYS = {"today": 0, "tomorrow": 1, "yesterday": -1}


def _special_ts(oid: int, word: str, tz: Any) -> dt.datetime:
    """PostgreSQL's special inputs: 'epoch', 'now', 'today', 'tomorrow', 'yesterday'."""
    zone = timezone(tz)
    if word == "epoch":
        v = dt.datetime(1970, 1, 1)
        return v if oid == T.TIMESTAMP else v.replace(tzinfo=UTC)
    if word in ("infinity", "-infinity", "+infinity"):
        if oid == T.TIMESTAMP:
            return TS_NEG_INFINITY if word == "-infinity" else TS_INFINITY
        return TSTZ_NEG_INFINITY if word == "-infinity" else TSTZ_INFINITY
    now = dt.datetime.now(zone)
    if word != "now":
        day = now.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None) + \
            dt.timedelta(days=_SPECIAL_DAYS[word])
        return day if oid == T.TIMESTAMP else zones.to_utc(day, zone)
    return now.replace(tzinfo=None) if oid == T.TIMESTAMP else now.astimezone(UTC)


def clock(day: dt.datetime, hh: int, mi: int, ss: int, us: int) -> dt.datetime:
    """`day` at hh:mi:ss.us with PostgreSQL's two extra clock readings: 24:00:00 is the next
    midnight and a 60th second (a leap second) is the next minute's first; ValueError else.

    >>> clock(dt.datetime(1999, 12, 31), 24, 0, 0, 0), clock(dt.datetime(2000, 1, 1), 1, 2, 60, 5)
    (datetime.datetime(2000, 1, 1, 0, 0), datetime.datetime(2000, 1, 1, 1, 3, 0, 5))
    """
    if hh == 24 and mi == 0 and ss == 0 and us == 0:
        return day + dt.timedelta(days=1)
    if ss == 60 and 0 <= mi < 60 and 0 <= hh < 24:
        return day.replace(hour=hh, minute=mi, second=59) + dt.timedelta(seconds=1,
                                                                           microseconds=us)
    return day.replace(hour=hh, minute=mi, second=ss) + dt.timedelta(microseconds=us)


# The form nearly every client sends ('2024-01-01 10:30:00.123456'), which the C-level
# `fromisoformat` reads in a tenth of the general path's time. Anything else (a zone, 24:00, a
# leap second, year 0, BC, seven fraction digits, which PostgreSQL rounds) takes that path.
_PLAIN_TS = re.compile(r"\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d(?:\.\d{1,6})?)?)?")


def _parse_ts(oid: int, s: str, tz: Any) -> dt.datetime:
    """Parses timestamp[tz] input; a timestamptz without a zone is local time in `tz`.

    >>> _parse_ts(T.TIMESTAMP, "2024-01-01 10:30:00.5", None)
    datetime.datetime(2024, 1, 1, 10, 30, 0, 500000)
    >>> _parse_ts(T.TIMESTAMP, "2024-01-01 24:00:00", None)
    datetime.datetime(2024, 1, 2, 0, 0)
    """
    if _PLAIN_TS.fullmatch(s):
        try:
            v = dt.datetime.fromisoformat(s)
        except ValueError:  # 2024-02-30, 25:00, year 0: the general path has the error to raise
            pass
        else:
            return v if oid == T.TIMESTAMP else zones.to_utc(v, timezone(tz))
    m = _TS_RE.fullmatch(s)
    if m and m.group(8) and m.group(8).lower() in ("am", "pm"):  # a 12-hour clock, not a zone
        m = None
    bc = False
    if not m:
        word = s.strip().lower()
        if word in ("epoch", "now", "infinity", "-infinity", "+infinity") or word in _SPECIAL_DAYS:
            return _special_ts(oid, word, tz)
        try:  # `03/04/2024`, `June 1, 2024 10:30 PM` ...
            v, z, bc = dateparse.parse_loose(s)
        except dateparse.NotADate:
            raise InvalidDatetimeFormat(
                f'invalid input syntax for type {_INPUT_NAME.get(oid) or T.TYPES[oid].sql_name}: '
                f'"{s}"') from None
        except (ValueError, OverflowError):
            raise DatetimeFieldOverflow(f'date/time field value out of range: "{s}"') from None
        if bc:  # BC: a far timestamp (pgtypes.fardate), year 1 BC being year 0
            v = _far_ts(s, 1 - v.year, v.month, v.day, _day_us(s, v.hour, v.minute, v.second,
                                                                v.microsecond))
    else:
        y, mo, d, hh, mi, ss, frac, z, era = m.groups()
        if z and not era and z.upper() in ("AD", "BC"):
            z, era = None, z
        year = int(y)
        if year and ((era and era.upper() == "BC") or year > 9999):
            year = 1 - year if era and era.upper() == "BC" else year
            v = _far_ts(s, year, int(mo), int(d), _day_us(s, int(hh or 0), int(mi or 0),
                                                          int(ss or 0), _us(frac)))
        else:
            try:
                v = clock(dt.datetime(year, int(mo), int(d)), int(hh or 0), int(mi or 0),
                          int(ss or 0), _us(frac))
            except OverflowError:  # 24:00 of 9999-12-31: 10000-01-01, a far timestamp
                v = _far_ts(s, year, int(mo), int(d), _day_us(s, int(hh or 0), int(mi or 0),
                                                              int(ss or 0), _us(frac)))
            except ValueError:  # NB: PostgreSQL's DateStyle HINT when month or day is off its scale
                raise DatetimeFieldOverflow(
                    f'date/time field value out of range: "{s}"',
                    hint='Perhaps you need a different "datestyle" setting.'
                    if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31) else None) from None
    if oid == T.TIMESTAMP:
        if z and z[0].isalpha():
            _zone(z)  # an unknown zone is an error even where it is ignored
        return v  # NB: PostgreSQL ignores a zone given to timestamp without time zone
    zone = _zone(z)
    try:
        return zones.to_utc(v, timezone(tz) if zone is None else zone)
    except DatetimeFieldOverflow:  # NB: the zone moved it past 4714-11-24 BC or 294276
        raise DatetimeFieldOverflow(f'timestamp out of range: "{s}"') from None


def _day_us(s: str, hh: int, mi: int, ss: int, us: int) -> int:
    """Microseconds into a day of a clock reading, with clock()'s 24:00:00 and leap second."""
    if (hh == 24 and mi == 0 and ss == 0 and us == 0) or \
            (0 <= hh < 24 and 0 <= mi < 60 and 0 <= ss <= 60):
        return ((hh * 60 + mi) * 60 + ss) * 1_000_000 + us
    raise DatetimeFieldOverflow(f'date/time field value out of range: "{s}"')


def _far_days(s: str, y: int, mo: int, d: int) -> int:
    """Days from 2000-01-01 of a BC date or one after 9999 (22008 if the fields are no date)."""
    try:
        return days_of_ymd(y, mo, d)
    except ValueError:
        raise DatetimeFieldOverflow(f'date/time field value out of range: "{s}"') from None


def _far_ts(s: str, y: int, mo: int, d: int, day_us: int) -> dt.datetime:
    """A timestamp BC or after 9999 (pgtypes.fardate), PostgreSQL's 22008 past its range."""
    try:
        return ts_of_us(_far_days(s, y, mo, d) * 86_400_000_000 + day_us)
    except DatetimeFieldOverflow:
        raise DatetimeFieldOverflow(f'timestamp out of range: "{s}"') from None


# NB: PostgreSQL's input functions name these types so in their messages
_INPUT_NAME = {T.TIMESTAMP: "timestamp", T.TIME: "time"}


def _date_in(s: str) -> dt.date:
    word = s.strip().lower()
    if word.endswith("infinity"):
        if word in INFINITE_DATES:
            return INFINITE_DATES[word]
        raise InvalidDatetimeFormat(f'invalid input syntax for type date: "{s}"')
    try:
        v = _parse_ts(T.TIMESTAMP, s, None)
    except InvalidDatetimeFormat:
        raise InvalidDatetimeFormat(f'invalid input syntax for type date: "{s}"') from None
    except DatetimeFieldOverflow as e:
        if not str(e).startswith("timestamp out of range"):
            raise
        return _far_date_in(s)  # NB: a date's range is wider than a timestamp's
    return v.date()  # NB: 0001-01-01 and 9999-12-31 are real dates (infdate.py)


def _far_date_in(s: str) -> dt.date:
    """A date beyond timestamp's range (before 4714-11-24 BC, after 294276), up to date's."""
    m = _TS_RE.fullmatch(s)
    if m:
        era = (m.group(9) or m.group(8) or "").upper()
        y = 1 - int(m.group(1)) if era == "BC" else int(m.group(1))
        try:
            return date_of_days(_far_days(s, y, int(m.group(2)), int(m.group(3))))
        except DatetimeFieldOverflow as e:
            if "field" in str(e):
                raise
    raise DatetimeFieldOverflow(f'date out of range: "{s}"')


def _time_in(oid: int, s: str) -> dt.time:
    if s.strip(" \t").lower() == "allballs":  # NB: datetime.c's DTK_ZULU word, midnight UTC
        return dt.time(0, 0) if oid != T.TIMETZ else dt.time(0, 0, tzinfo=UTC)
    m = _TIME_RE.fullmatch(s)
    if not m:
        raise InvalidDatetimeFormat(
            f'invalid input syntax for type {_INPUT_NAME.get(oid) or T.TYPES[oid].sql_name}: "{s}"')
    hh, mi, ss, frac, z = m.groups()
    us = _us(frac)
    if int(hh) == 24 and int(mi) == 0 and int(ss or 0) == 0 and us == 0:
        if oid != T.TIMETZ:  # NB: the end of the day, a time of its own (infdate.Time24)
            return TIME_24
        zone24 = _zone(z) or _current_offset(zones.session_zone())
        return Time24(zone24 if isinstance(zone24, dt.timezone) else _current_offset(zone24))
    try:
        base = clock(dt.datetime(2000, 1, 1), int(hh), int(mi), int(ss or 0), us)
        if base.day != 1:
            raise ValueError("24:00:00 is not a time of day here")  # NB: time has no 24:00
    except ValueError:
        raise DatetimeFieldOverflow(f'date/time field value out of range: "{s}"') from None
    if oid != T.TIMETZ:
        return base.time()
    zone = _zone(z) or _current_offset(zones.session_zone())
    if not isinstance(zone, dt.timezone):  # a zone name: its offset today
        zone = _current_offset(zone)
    return base.time().replace(tzinfo=zone)


def _current_offset(tz: dt.tzinfo) -> dt.tzinfo:
    """A zone's offset today, as a fixed zone (a timetz carries an offset, not a zone)."""
    if tz is UTC:
        return UTC
    return dt.timezone(dt.datetime.now(tz).utcoffset() or dt.timedelta(0))


def parse_interval(s: str) -> dt.timedelta:
    """Parses interval input in any IntervalStyle: '1 year 2 mons', 'P1Y2M', '1-2', '@ 1 day ago'."""
    return _iv_text.parse_interval(s)


def _uuid_in(s: str) -> uuid.UUID:
    try:
        return uuid.UUID(s.strip())
    except ValueError:
        raise _bad(T.UUID, s) from None


def _json_in(s: str) -> str:
    try:
        _jsonb_text.loads(s)
    except ValueError:
        raise InvalidTextRepresentation("invalid input syntax for type json",
                                        detail=f"Token in \"{s[:30]}\" is invalid.") from None
    return s


def _jsonb_in(s: str) -> str:
    """jsonb keeps no input spelling: it stores (and prints) the normalised form."""
    _json_in(s)
    return _jsonb_text.normalize(s)


_ARRAY_SPACE = " \t\n\r\v\f"  # NB: PostgreSQL's isspace, narrower than str.strip()'s


_FLAT_ARRAY = re.compile(r'\{([^{}"\\]*)\}')
_QUOTED_ARRAY = re.compile(r'\{[ \t\n\r\v\f]*"(?:[^"\\]|\\.)*"'
                           r'(?:[ \t\n\r\v\f]*,[ \t\n\r\v\f]*"(?:[^"\\]|\\.)*")*'
                           r'[ \t\n\r\v\f]*\}', re.S)
_QUOTED_ITEM = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_UNESCAPE = re.compile(r"\\(.)", re.S)


def split_array(s: str, delim: str = ",") -> list[Any]:
    """Splits array input text ('{1,"a b",NULL,{2}}') into nested lists of str / None.

    >>> split_array("{(2,2),(1,1);(5,6),(3,4)}", ";")
    ['(2,2),(1,1)', '(5,6),(3,4)']
    """
    t = s.strip()
    if t.startswith("[") and "=" in t:  # explicit bounds '[1:2]={...}': `arraybounds`'
        t = t[t.index("=") + 1 :].strip()
    if not t.startswith("{"):
        raise InvalidTextRepresentation(f'malformed array literal: "{s}"',
                                        detail='Array value must start with "{" or dimension '
                                        "information.")
    if delim != ",":
        out, pos = _split_level(t, 0, s, delim)
        if t[pos:].strip():
            raise InvalidTextRepresentation(f'malformed array literal: "{s}"',
                                            detail="Junk after closing right brace.")
        return out
    flat = _FLAT_ARRAY.fullmatch(t)
    if flat is not None:  # NB: one C-level pass for the common shapes (long IN lists)
        items = [x.strip(_ARRAY_SPACE) for x in flat.group(1).split(",")]
        return [None if x.upper() == "NULL" else x for x in items if x]
    if _QUOTED_ARRAY.fullmatch(t):
        return [_UNESCAPE.sub(r"\1", x) for x in _QUOTED_ITEM.findall(t)]
    out, pos = _split_level(t, 0, s)
    if t[pos:].strip():
        raise InvalidTextRepresentation(f'malformed array literal: "{s}"',
                                        detail="Junk after closing right brace.")
    return out


# PostgreSQL's MAXDIM: deeper array input is 54000, as ReadArrayStr says
MAX_ARRAY_DIMS = 6


def _split_level(t: str, pos: int, orig: str, delim: str = ",",
                 depth: int = 1) -> tuple[list[Any], int]:
    if depth > MAX_ARRAY_DIMS:
        raise ProgramLimitExceeded(f"number of array dimensions ({depth}) exceeds the maximum "
                                   f"allowed ({MAX_ARRAY_DIMS})")
    out: list[Any] = []
    pos += 1  # past '{'
    n = len(t)
    expect_item = True
    while pos < n:
        c = t[pos]
        if c in _ARRAY_SPACE:
            pos += 1
        elif c == "}":
            return out, pos + 1
        elif c == delim:
            pos += 1
            expect_item = True
        elif not expect_item:
            break
        elif c == "{":
            sub, pos = _split_level(t, pos, orig, delim, depth + 1)
            out.append(sub)
            expect_item = False
        elif c == '"':
            buf, pos = [], pos + 1
            while pos < n and t[pos] != '"':
                if t[pos] == "\\":
                    pos += 1
                buf.append(t[pos : pos + 1])
                pos += 1
            out.append("".join(buf))
            pos += 1
            expect_item = False
        else:
            start = pos
            buf = []
            while pos < n and t[pos] != delim and t[pos] != "}":
                if t[pos] == "\\":
                    pos += 1
                buf.append(t[pos : pos + 1])
                pos += 1
            item = "".join(buf).strip(_ARRAY_SPACE)
            raw = t[start:pos].strip(_ARRAY_SPACE)
            out.append(None if raw.upper() == "NULL" else item)
            expect_item = False
    raise InvalidTextRepresentation(f'malformed array literal: "{orig}"')


def _array_in(elem_oid: int, tz: Any) -> Callable[[str], list[Any]]:
    elem = text_decoder(elem_oid, tz)

    def conv(items: list[Any]) -> list[Any]:
        return [None if x is None else conv(x) if isinstance(x, list) else elem(x) for x in items]

    delim = DELIMITERS.get(elem_oid, ",")

    def read(s: str) -> list[Any]:
        return conv(split_array(s, delim))

    return lambda s: read(s) if s[:1] == "{" else arraybounds.with_dims(s, read)


def _vector_in(s: str) -> list[int]:
    try:
        return [int(x) for x in s.split()]
    except ValueError:
        raise InvalidTextRepresentation(f'invalid input syntax for type oid: "{s}"') from None


def text_decoder(oid: int, tz: Any = None) -> Callable[[str], Any]:
    """Returns the input function for a type: PostgreSQL text form -> value."""
    if oid == T.XML:  # xml_in: parsed per the session's xmloption
        return xmlvalue.check
    if oid in STRING_OIDS or oid == 0:
        return str
    if oid in INT_RANGE:
        return _int_in(oid)
    if oid in OID_LIKE:
        return _int_in(T.OID)
    simple: dict[int, Callable[[str], Any]] = {
        T.BOOL: _bool_in, T.FLOAT8: _float_in(T.FLOAT8), T.FLOAT4: _float_in(T.FLOAT4),
        T.NUMERIC: _numeric_in, T.BYTEA: _bytea_in, T.DATE: _date_in,
        T.TIMESTAMP: lambda s: _parse_ts(T.TIMESTAMP, s, tz),
        T.TIMESTAMPTZ: lambda s: _parse_ts(T.TIMESTAMPTZ, s, tz),
        T.TIME: lambda s: _time_in(T.TIME, s), T.TIMETZ: lambda s: _time_in(T.TIMETZ, s),
        T.INTERVAL: parse_interval, T.UUID: _uuid_in, T.JSON: _json_in, T.JSONB: _jsonb_in,
        T.INT2VECTOR: _vector_in, T.OIDVECTOR: _vector_in, T.MONEY: money.parse_money,
    }
    dec = simple.get(oid)
    if dec is not None:
        return dec
    if oid in network.TEXT_INPUT:
        return network.TEXT_INPUT[oid]
    ext = extcodecs.text_input(oid)  # hstore, tsvector, tsquery
    if ext is not None:
        return ext
    if oid in geometry.NAMES:
        return geometry.text_input(oid)
    if oid in (T.BIT, T.VARBIT):
        return bits.parse_bit
    if oid in enums.LABELS:
        return enums.input_function(oid)
    if oid in records.COMPOSITES:
        return records.text_decoder(records.COMPOSITES[oid], lambda f: text_decoder(f, tz))
    if oid in multiranges.RANGE_OF:
        range_in = text_decoder(multiranges.RANGE_OF[oid], tz)
        return lambda s: multiranges.parse_multirange(s, oid, range_in)
    if oid in ranges.SUBTYPE:
        sub = text_decoder(ranges.SUBTYPE[oid], tz)
        return lambda s: ranges.parse_range(s, oid, sub)
    elem = T.ELEMENT_OF.get(oid)
    if elem is not None:
        return _array_in(elem, tz)
    return str


# Decoders of built-in scalar types given no zone, kept once made: `parse_text` runs per value
# (a multi-row INSERT's literals, casts of text), and `text_decoder` builds its table per call.
# User types (composites, ranges, arrays, extensions) can change, so they are never kept.
_KEPT_OIDS = frozenset({
    T.BOOL, T.FLOAT8, T.FLOAT4, T.NUMERIC, T.BYTEA, T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME,
    T.TIMETZ, T.INTERVAL, T.UUID, T.JSON, T.JSONB, T.XML, *INT_RANGE, *STRING_OIDS, *OID_LIKE,
})
_kept: dict[int, Callable[[str], Any]] = {}


def parse_text(oid: int, s: str, tz: Any = None) -> Any:
    """Parses one value from PostgreSQL's text form for `oid` (22P02 and friends on bad input).

    >>> parse_text(T.INT4, "42"), parse_text(T.DATE, "2024-02-29")
    (42, datetime.date(2024, 2, 29))
    """
    if tz is None:
        dec = _kept.get(oid)
        if dec is None:
            dec = text_decoder(oid)
            if oid in _KEPT_OIDS:
                _kept[oid] = dec
        return dec(s)
    return text_decoder(oid, tz)(s)
