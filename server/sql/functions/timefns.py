"""Date/time functions: the clock, date_trunc, extract/date_part, age, make_*, date_bin.

timestamp values are naive datetimes, timestamptz aware ones (results in UTC, which
the output layer shows in the session's TimeZone), intervals are
`pgtypes.interval.Interval`s (months, days and microseconds apart, as PostgreSQL's).
Functions on timestamptz that depend on the calendar (date_trunc, extract)
work in the session's TimeZone, as PostgreSQL does. extract() returns numeric
(epoch and seconds with 6 decimals), date_part() double precision.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from decimal import Decimal
from typing import Any

from ...errors import DatetimeFieldOverflow, FeatureNotSupported, InvalidParameterValue
from ...pgtypes import interval as ivl
from ...pgtypes import oids as T
from ...pgtypes import zones
from ...pgtypes.civil import civil_of_days, day_of_year, iso_calendar, pg_year
from ...pgtypes.fardate import (
    FarDate,
    FarTimestamp,
    date_of_ymd,
    days_of,
    ts_of_fields,
    ts_of_us,
    us_of,
    utc_us_of,
)
from ...pgtypes.infdate import TIME_24, InfiniteDate, InfiniteTimestamp, Time24
from .registry import register

TS, TSTZ, DATE, IV, TIME = T.TIMESTAMP, T.TIMESTAMPTZ, T.DATE, T.INTERVAL, T.TIME
EPOCH = dt.datetime(1970, 1, 1)
EPOCH_TZ = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
US6 = Decimal("0.000001")


def zone(ctx: Any = None) -> dt.tzinfo:
    """Returns the session's TimeZone as a tzinfo (parsed once per setting value, then cached)."""
    tz = getattr(ctx, "tz", None)  # a session's FunctionContext keeps it ready
    if tz is not None:
        return tz
    name = ctx.get_setting("TimeZone") if ctx is not None else None
    if not name:
        return zones.session_zone()
    try:
        return zones.parse_setting(name)[1]
    except InvalidParameterValue:
        return dt.UTC


def local(ctx: Any, v: Any) -> Any:
    """Returns a timestamptz as wall-clock time in the session zone (other values unchanged)."""
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return zones.to_local(v, zone(ctx))
    return v


@register("now", args=[], returns=TSTZ, needs_context=True, volatile=True)
def now(ctx: Any) -> dt.datetime:
    """Returns the transaction's start time."""
    return ctx.statement_timestamp


for _name in ("transaction_timestamp", "statement_timestamp", "current_timestamp"):
    register(_name, args=[], returns=TSTZ, needs_context=True, volatile=True)(now)


@register("clock_timestamp", args=[], returns=TSTZ, volatile=True)
def clock_timestamp() -> dt.datetime:
    """Returns the current time, changing during a statement."""
    return dt.datetime.now(dt.UTC)


@register("timeofday", args=[], returns=T.TEXT, volatile=True)
def timeofday() -> str:
    """Returns the current time as text."""
    return dt.datetime.now().astimezone().strftime("%a %b %d %H:%M:%S.%f %Y %Z")


@register("current_date", args=[], returns=DATE, needs_context=True, volatile=True)
def current_date(ctx: Any) -> dt.date:
    """Returns the transaction's start date in the session zone."""
    return local(ctx, ctx.statement_timestamp).date()


@register("localtimestamp", args=[], returns=TS, needs_context=True, volatile=True)
def localtimestamp(ctx: Any) -> dt.datetime:
    """Returns the transaction's start time as a timestamp in the session zone."""
    return local(ctx, ctx.statement_timestamp).replace(tzinfo=None)


_TRUNC_UNITS = ("microseconds", "milliseconds", "second", "minute", "hour", "day", "week",
                "month", "quarter", "year", "decade", "century", "millennium")


_UNIT_ALIASES = {
    "seconds": "second", "minutes": "minute", "hours": "hour", "days": "day", "weeks": "week",
    "months": "month", "years": "year", "mon": "month", "mons": "month", "min": "minute",
    "mins": "minute", "sec": "second", "secs": "second", "microsecond": "microseconds",
    "millisecond": "milliseconds", "us": "microseconds", "ms": "milliseconds", "y": "year",
    "d": "day", "h": "hour", "m": "minute", "s": "second", "decades": "decade",
    "centuries": "century", "millennia": "millennium", "quarters": "quarter",
}


@functools.lru_cache(maxsize=512)
def _unit(text: str, units: tuple[str, ...], type_name: str) -> str:
    """Normalises a unit name (`'Hours'` -> `hour`); cached: it runs once per row."""
    u = text.lower().strip()
    u = _UNIT_ALIASES.get(u, u)
    if u not in units:
        raise InvalidParameterValue(f'unit "{text}" not recognized for type {type_name}')
    return u


def _trunc(v: dt.datetime, unit: str) -> dt.datetime:
    """Truncates wall-clock fields; the result is naive (NB: constructors, not the slow replace)."""
    if type(v) is FarTimestamp:
        return _far_trunc(v, unit)
    if unit == "microseconds":
        return dt.datetime(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)
    if unit == "milliseconds":
        return dt.datetime(v.year, v.month, v.day, v.hour, v.minute, v.second,
                           v.microsecond // 1000 * 1000)
    if unit == "second":
        return dt.datetime(v.year, v.month, v.day, v.hour, v.minute, v.second)
    if unit == "minute":
        return dt.datetime(v.year, v.month, v.day, v.hour, v.minute)
    if unit == "hour":
        return dt.datetime(v.year, v.month, v.day, v.hour)
    if unit == "day":
        return dt.datetime(v.year, v.month, v.day)
    if unit == "week":
        return dt.datetime(v.year, v.month, v.day) - dt.timedelta(days=v.weekday())
    if unit == "month":
        return dt.datetime(v.year, v.month, 1)
    if unit == "quarter":
        return dt.datetime(v.year, (v.month - 1) // 3 * 3 + 1, 1)
    year = {"year": 1, "decade": 10, "century": 100, "millennium": 1000}[unit]
    if year == 1:
        y = v.year
    elif year == 10:
        y = v.year // 10 * 10
    else:
        y = (v.year - 1) // year * year + 1
    return dt.datetime(y, 1, 1) if y >= 1 else ts_of_fields(y, 1, 1, 0)


def _far_year(y: int, unit: str) -> int:
    """The first (astronomical) year of y's decade, century or millennium, as PostgreSQL's
    timestamp_trunc counts them across BC (its C division truncates toward zero)."""
    if unit == "decade":
        return y // 10 * 10 if y >= 0 else -((8 - (y - 1)) // 10) * 10
    n = 100 if unit == "century" else 1000
    return (y + n - 1) // n * n - (n - 1) if y > 0 else -((n - 1 - (y - 1)) // n) * n + 1


def _far_trunc(v: FarTimestamp, unit: str) -> dt.datetime:
    """_trunc of a timestamp BC or after 9999 (pgtypes.fardate): the same fields, on integers."""
    y, m, d = civil_of_days(v.days)
    tod = {"microseconds": v.us % 86_400_000_000,
           "milliseconds": v.us % 86_400_000_000 // 1000 * 1000,
           "second": v.us % 86_400_000_000 // 1_000_000 * 1_000_000,
           "minute": v.us % 86_400_000_000 // 60_000_000 * 60_000_000,
           "hour": v.us % 86_400_000_000 // 3_600_000_000 * 3_600_000_000}.get(unit, 0)
    if unit == "week":
        return ts_of_us((v.days - v.weekday()) * 86_400_000_000)
    if unit in ("month", "quarter"):
        m, d = (m if unit == "month" else (m - 1) // 3 * 3 + 1), 1
    elif unit in ("year", "decade", "century", "millennium"):
        m, d = 1, 1
        y = y if unit == "year" else _far_year(y, unit)
    return ts_of_fields(y, m, d, tod)


@register("date_trunc", args=[T.TEXT, TS], returns=TS)
def date_trunc(unit: str, v: dt.datetime) -> dt.datetime:
    """Truncates a timestamp to the given precision."""
    u = _unit(unit, _TRUNC_UNITS, "timestamp without time zone")
    return _trunc(v, u) if isfinite(v) else v


@register("date_trunc", args=[T.TEXT, TSTZ], returns=TSTZ, needs_context=True)
def date_trunc_tz(ctx: Any, unit: str, v: dt.datetime, tz: str | None = None) -> dt.datetime:
    """Truncates a timestamptz in the session's (or the given) time zone."""
    u = _unit(unit, _TRUNC_UNITS, "timestamp with time zone")
    z = zones.zone_arg(tz) if tz else zone(ctx)
    if not isfinite(v):
        return v
    return zones.to_utc(_trunc(zones.to_local(v, z), u), z)


register("date_trunc", args=[T.TEXT, TSTZ, T.TEXT], returns=TSTZ,
         needs_context=True)(date_trunc_tz)


@register("date_trunc", args=[T.TEXT, IV], returns=IV)
def date_trunc_interval(unit: str, v: dt.timedelta) -> dt.timedelta:
    """Truncates an interval's fields below the given unit."""
    u = _unit(unit, _TRUNC_UNITS, "interval")
    out = ivl.trunc(u, v)
    if out is None:
        raise FeatureNotSupported(f'unit "{unit}" not supported for type interval',
                                  detail="Months usually have fractional weeks."
                                  if u == "week" else None)
    return out


_FIELDS = ("epoch", "year", "month", "day", "hour", "minute", "second", "milliseconds",
           "microseconds", "dow", "isodow", "doy", "week", "quarter", "decade", "century",
           "millennium", "julian", "isoyear", "timezone", "timezone_hour", "timezone_minute")


def _seconds(v: Any) -> Decimal:
    return Decimal(v.second) + Decimal(v.microsecond) / 1000000


def extract_value(field: str, v: Any, ctx: Any = None) -> Decimal:
    """Returns EXTRACT(field FROM v) as numeric, PostgreSQL's scales included."""
    f = _unit(field, _FIELDS, _type_name(v))
    if isinstance(v, dt.timedelta):
        return _extract_interval(f, v)
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime) and f in (
            "hour", "minute", "second", "milliseconds", "microseconds"):
        raise FeatureNotSupported(f'unit "{field}" not supported for type date')  # NB: 0A000
    if not isfinite(v):  # PostgreSQL: +-Infinity for the fields that grow with time, else NULL
        if f in ("epoch", "julian", "year", "isoyear", "decade", "century", "millennium"):
            return Decimal("Infinity" if v.year == 9999 else "-Infinity")
        return None  # type: ignore[return-value]
    if f == "epoch":
        if isinstance(v, dt.datetime):
            base = EPOCH_TZ if v.tzinfo is not None else EPOCH
            return (Decimal((v - base) // dt.timedelta(microseconds=1)) / 1000000).quantize(US6)
        return Decimal((days_of(v) + 10957) * 86400)  # NB: 1970-01-01 is day -10957
    w = local(ctx, v)
    if f in ("timezone", "timezone_hour", "timezone_minute"):
        utcoff = w.utcoffset() if isinstance(w, dt.datetime) else None
        off = int(utcoff.total_seconds()) if utcoff is not None else 0
        return _tz_field(f, off)
    if f == "second":
        return _seconds(w).quantize(US6)
    if f == "milliseconds":
        return (_seconds(w) * 1000).quantize(Decimal("0.001"))
    if f == "microseconds":  # NB: an integer count, scale 0 as PostgreSQL's time_part_common
        return (_seconds(w) * 1000000).quantize(Decimal(1))
    d = w.date() if isinstance(w, dt.datetime) else w
    if type(d) is FarDate:
        return Decimal(_far_field(f, d.days, w))
    return Decimal(_SIMPLE_FIELDS[f](d, w))


def _far_field(f: str, days: int, w: Any) -> int:
    """A calendar field of a date BC or after 9999 (pgtypes.fardate), as PostgreSQL's
    date_part computes it from the astronomical year (no year 0 in year and isoyear)."""
    y, m, d = civil_of_days(days)
    if f in ("hour", "minute"):
        return w.hour if f == "hour" else w.minute
    if f == "decade":
        return y // 10 if y >= 0 else -((8 - (y - 1)) // 10)
    if f in ("century", "millennium"):
        n = 100 if f == "century" else 1000
        return (y + n - 1) // n if y > 0 else -((n - 1 - (y - 1)) // n)
    return {"year": lambda: pg_year(y), "month": lambda: m, "day": lambda: d,
            "dow": lambda: (days + 6) % 7, "isodow": lambda: (days + 5) % 7 + 1,
            "doy": lambda: day_of_year(days), "week": lambda: iso_calendar(days)[1],
            "isoyear": lambda: pg_year(iso_calendar(days)[0]),
            "quarter": lambda: (m - 1) // 3 + 1, "julian": lambda: days + 2451545}[f]()


_SIMPLE_FIELDS: dict[str, Any] = {
    "year": lambda d, w: d.year, "month": lambda d, w: d.month, "day": lambda d, w: d.day,
    "hour": lambda d, w: w.hour, "minute": lambda d, w: w.minute,
    "dow": lambda d, w: d.isoweekday() % 7, "isodow": lambda d, w: d.isoweekday(),
    "doy": lambda d, w: d.timetuple().tm_yday, "week": lambda d, w: d.isocalendar()[1],
    "isoyear": lambda d, w: d.isocalendar()[0], "quarter": lambda d, w: (d.month - 1) // 3 + 1,
    "decade": lambda d, w: d.year // 10, "century": lambda d, w: (d.year - 1) // 100 + 1,
    "millennium": lambda d, w: (d.year - 1) // 1000 + 1,
    "julian": lambda d, w: d.toordinal() + 1721425,
}


def _tz_field(f: str, off: int) -> Decimal:
    """timezone / timezone_hour / timezone_minute of an offset (seconds east), signs as PG's."""
    if f == "timezone":
        return Decimal(off)
    sign = -1 if off < 0 else 1
    if f == "timezone_hour":
        return Decimal(sign * (abs(off) // 3600))
    return Decimal(sign * (abs(off) % 3600 // 60))


def _extract_interval(f: str, v: dt.timedelta) -> Decimal:
    out = ivl.extract_field(f, v)
    if out is None:
        raise FeatureNotSupported(f'unit "{f}" not supported for type interval')
    return out


def _type_name(v: Any) -> str:
    if isinstance(v, dt.timedelta):
        return "interval"
    if isinstance(v, dt.datetime):
        return "timestamp with time zone" if v.tzinfo else "timestamp without time zone"
    return "date" if isinstance(v, dt.date) else "time without time zone"


@register("extract", args=[T.TEXT, TS], returns=T.NUMERIC, needs_context=True)
def extract(ctx: Any, field: str, v: Any) -> Decimal:
    """EXTRACT(field FROM v), as numeric."""
    if isinstance(v, dt.time):
        # NB: a time's epoch is the seconds since midnight; its other fields are the clock's.
        if v.tzinfo is not None:
            f = field.lower()
            off = zones.offset_seconds(v)
            if f in ("timezone", "timezone_hour", "timezone_minute"):
                return _tz_field(f, off)
            if f == "epoch":  # a timetz's epoch is measured in UTC
                secs = v.hour * 3600 + v.minute * 60 + v.second - off
                return (Decimal(secs) + Decimal(v.microsecond) / 1000000).quantize(US6)
        if type(v) is Time24 and field.lower() in ("hour", "hours", "h", "epoch"):
            return Decimal(24) if field.lower() != "epoch" else Decimal(86400).quantize(US6)
        v = dt.datetime.combine(EPOCH.date(), v.replace(tzinfo=None))
    return extract_value(field, v, ctx)


@register("date_part", args=[T.TEXT, TS], returns=T.FLOAT8, needs_context=True)
def date_part(ctx: Any, field: str, v: Any) -> float:
    """date_part(field, v), as double precision (NULL where extract is: an infinity's day)."""
    out = extract(ctx, field, v)
    return None if out is None else float(out)  # type: ignore[return-value]


for _t in (TSTZ, DATE, IV, TIME, T.TIMETZ):
    register("extract", args=[T.TEXT, _t], returns=T.NUMERIC, needs_context=True)(extract)
    register("date_part", args=[T.TEXT, _t], returns=T.FLOAT8, needs_context=True)(date_part)


@register("age", args=[TS, TS], returns=IV)
def age(a: dt.datetime, b: dt.datetime) -> dt.timedelta:
    """Returns a - b symbolically: years, months, days and time, field by field."""
    if isinstance(a, InfiniteTimestamp) or isinstance(b, InfiniteTimestamp):
        return _infinite_age(a, b)
    if a.tzinfo is not None or b.tzinfo is not None:  # field by field on the session's clocks
        z = zones.session_zone()
        a, b = a.astimezone(z).replace(tzinfo=None), b.astimezone(z).replace(tzinfo=None)
    return ivl.age(a, b)


register("age", args=[TSTZ, TSTZ], returns=IV)(age)


class _FarFields:
    """The clock fields of PostgreSQL's 'infinity' timestamp (INT64_MAX microseconds after
    2000-01-01: 294277-01-09 04:00:54.775807), which PG 15's age() reads like any other:
    age('infinity', '2020-01-01') is 292257 years 8 days 04:00:54.775807. Python's datetime
    cannot hold that year, so these are the bare fields."""

    year, month, day, hour, minute, second, microsecond = 294277, 1, 9, 4, 0, 54, 775807

    def __lt__(self, other: Any) -> bool:
        return False

    def __gt__(self, other: Any) -> bool:
        return True


def _infinite_age(a: Any, b: Any) -> Any:
    """age() with an infinity: -infinity is 22008 (timestamp2tm fails on it in PG 15)."""
    if any(isinstance(v, InfiniteTimestamp) and v.sign < 0 for v in (a, b)):
        raise DatetimeFieldOverflow("timestamp out of range")
    if isinstance(a, InfiniteTimestamp) and isinstance(b, InfiniteTimestamp):
        return ivl.Interval(0, 0, 0)
    far = _FarFields()
    if isinstance(a, InfiniteTimestamp):
        return ivl.age(far, _wall(b))  # type: ignore[arg-type]
    return ivl.age(_wall(a), far)  # type: ignore[arg-type]


def _wall(v: dt.datetime) -> dt.datetime:
    return v.astimezone(zones.session_zone()).replace(tzinfo=None) if v.tzinfo else v


@register("age", args=[TS], returns=IV, needs_context=True)
def age_now(ctx: Any, v: dt.datetime) -> dt.timedelta:
    """Returns age(current_date at midnight, v)."""
    today = dt.datetime.combine(current_date(ctx), dt.time())
    if v.tzinfo is not None:
        today = zones.to_utc(today, zone(ctx))
    return age(today, v)


register("age", args=[TSTZ], returns=IV, needs_context=True)(age_now)


@register("make_date", args=[T.INT4, T.INT4, T.INT4], returns=DATE)
def make_date(y: int, m: int, d: int) -> dt.date:
    """Builds a date from year, month and day."""
    try:
        if y == 0:
            raise ValueError("there is no year 0")
        return date_of_ymd(y if y > 0 else y + 1, m, d)  # NB: BC and after 9999: fardate
    except ValueError:
        raise DatetimeFieldOverflow(f"date field value out of range: {y}-{m:02d}-{d:02d}") \
            from None


@register("make_time", args=[T.INT4, T.INT4, T.FLOAT8], returns=TIME)
def make_time(h: int, mi: int, sec: float) -> dt.time:
    """Builds a time from hour, minute and (fractional) seconds; 60 seconds roll over."""
    us = round(sec * 1000000)
    if h == 24 and mi == 0 and us == 0:
        return TIME_24  # NB: PostgreSQL's end of a day (infdate.Time24)
    if not (0 <= h < 24 and 0 <= mi < 60 and 0 <= us <= 60000000) or (
            h == 23 and mi == 59 and us == 60000000):  # NB: 24:00:00 has no Python time
        raise DatetimeFieldOverflow(f"time field value out of range: {h}:{mi:02d}:{sec:02g}")
    return (dt.datetime(2000, 1, 1, h, mi) + dt.timedelta(microseconds=us)).time()


@register("make_timestamp", args=[T.INT4, T.INT4, T.INT4, T.INT4, T.INT4, T.FLOAT8],
          returns=TS)
def make_timestamp(y: int, mo: int, d: int, h: int, mi: int, sec: float) -> dt.datetime:
    """Builds a timestamp from its fields (seconds may have a fraction)."""
    whole = int(sec)
    us = round((sec - whole) * 1000000)
    try:
        if not 1 <= y <= 9999:  # BC (negative years) or after 9999: pgtypes.fardate
            if y == 0 or not (0 <= h < 24 and 0 <= mi < 60 and 0 <= whole <= 60):
                raise ValueError("field out of range")
            return ts_of_fields(y if y > 0 else y + 1, mo, d,
                                ((h * 60 + mi) * 60 + whole) * 1_000_000 + us)
        return dt.datetime(y, mo, d, h, mi, whole) + dt.timedelta(microseconds=us)
    except ValueError:
        raise DatetimeFieldOverflow(
            f"date/time field value out of range: {y}-{mo:02d}-{d:02d} {h}:{mi}:{sec}") from None


@register("make_timestamptz", args=[T.INT4, T.INT4, T.INT4, T.INT4, T.INT4, T.FLOAT8],
          returns=TSTZ, needs_context=True)
def make_timestamptz(ctx: Any, y: int, mo: int, d: int, h: int, mi: int, sec: float,
                     tz: str | None = None) -> dt.datetime:
    """Builds a timestamptz from its fields in the session's (or the given) zone."""
    z = zones.zone_arg(tz) if tz else zone(ctx)
    return zones.to_utc(make_timestamp(y, mo, d, h, mi, sec), z)


register("make_timestamptz", args=[T.INT4, T.INT4, T.INT4, T.INT4, T.INT4, T.FLOAT8, T.TEXT],
         returns=TSTZ, needs_context=True)(make_timestamptz)


@register("make_interval", args=[T.INT4, T.INT4, T.INT4, T.INT4, T.INT4, T.INT4, T.FLOAT8],
          returns=IV)  # NB: strict, as PostgreSQL's: omitted arguments get their SQL defaults
def make_interval(years: int = 0, months: int = 0, weeks: int = 0, days: int = 0,
                  hours: int = 0, mins: int = 0, secs: float = 0.0) -> dt.timedelta:
    """Builds an interval from its fields (PostgreSQL's make_interval)."""
    if secs is not None and not math.isfinite(secs):
        raise DatetimeFieldOverflow("interval out of range")
    time = round(((hours or 0) * 3600 + (mins or 0) * 60) * 1_000_000
                 + (secs or 0.0) * 1_000_000)
    return ivl.Interval((years or 0) * 12 + (months or 0), (weeks or 0) * 7 + (days or 0), time)


@register("to_timestamp", args=[T.FLOAT8], returns=TSTZ)
def to_timestamp_epoch(seconds: float) -> dt.datetime:
    """Converts Unix epoch seconds to a timestamptz."""
    try:
        return EPOCH_TZ + dt.timedelta(microseconds=round(seconds * 1000000))
    except (OverflowError, ValueError):
        if not math.isfinite(seconds):
            raise DatetimeFieldOverflow("timestamp out of range") from None
    # BC or after 9999 (pgtypes.fardate); 22008 past PostgreSQL's range
    return ts_of_us(round(seconds * 1000000) - 946_684_800_000_000, dt.UTC)


@register("date_bin", args=[IV, TS, TS], returns=TS)
def date_bin(stride: dt.timedelta, v: dt.datetime, origin: dt.datetime) -> dt.datetime:
    """Returns the start of the stride-long bin (aligned on origin) that v falls in."""
    if isinstance(stride, ivl.Interval) and stride.months:
        raise FeatureNotSupported("timestamps cannot be binned into intervals containing months "
                                  "or years")
    if stride <= dt.timedelta(0):
        raise InvalidParameterValue("stride must be greater than zero")
    step = dt.timedelta(days=stride.days, seconds=stride.seconds,
                        microseconds=stride.microseconds)  # NB: exact integer math, no months
    n = (v - origin) // step
    try:
        return origin + n * step
    except OverflowError:  # a bin BC or after 9999 (pgtypes.fardate): on the integers
        us = n * (step // dt.timedelta(microseconds=1))
        if origin.tzinfo is None:
            return ts_of_us(us_of(origin) + us)
        return ts_of_us(utc_us_of(origin) + us, dt.UTC)


register("date_bin", args=[IV, TSTZ, TSTZ], returns=TSTZ)(date_bin)


@register("isfinite", args=[TS], returns=T.BOOL)
def isfinite(v: Any) -> bool:
    """False for 'infinity' and '-infinity' (timestamps and dates; intervals are finite)."""
    return not isinstance(v, InfiniteDate | InfiniteTimestamp)


for _t in (TSTZ, DATE, IV):
    register("isfinite", args=[_t], returns=T.BOOL)(isfinite)


@register("timezone", args=[T.TEXT, TSTZ], returns=TS)
def timezone_of(tz: str, v: dt.datetime) -> dt.datetime:
    """v AT TIME ZONE tz for a timestamptz: the wall-clock time in that zone."""
    return zones.wall_clock(v, zones.zone_arg(tz))


@register("timezone", args=[T.TEXT, TS], returns=TSTZ)
def timezone_in(tz: str, v: dt.datetime) -> dt.datetime:
    """v AT TIME ZONE tz for a timestamp: the instant when the zone's clocks show v."""
    return zones.to_utc(v, zones.zone_arg(tz))


@register("timezone", args=[IV, TSTZ], returns=TS)
def timezone_of_interval(iv: dt.timedelta, v: dt.datetime) -> dt.datetime:
    """v AT TIME ZONE INTERVAL '+05:30' for a timestamptz (ISO sign: east of Greenwich)."""
    return zones.wall_clock(v, zones.interval_zone(iv))


@register("timezone", args=[IV, TS], returns=TSTZ)
def timezone_in_interval(iv: dt.timedelta, v: dt.datetime) -> dt.datetime:
    """v AT TIME ZONE INTERVAL '+05:30' for a timestamp."""
    return zones.to_utc(v, zones.interval_zone(iv))


@register("timezone", args=[T.TEXT, T.TIMETZ], returns=T.TIMETZ)
def timezone_timetz(tz: str, v: dt.time) -> dt.time:
    """v AT TIME ZONE tz for a timetz: the same instant on that zone's clock (offset of today)."""
    z = zones.zone_arg(tz)
    off = dt.datetime.now(z).utcoffset() or dt.timedelta(0)
    base = dt.datetime.combine(dt.date(2000, 1, 1), v)
    w = base.astimezone(dt.timezone(off) if off else dt.UTC)
    return w.timetz()
