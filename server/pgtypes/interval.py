"""PostgreSQL's interval: months, days and microseconds, kept apart.

PostgreSQL stores an interval as three fields, `month`, `day` and `time`
(microseconds), because none of them converts exactly into another: a month
has 28 to 31 days and a day 23 to 25 hours across a DST change. So
`date '2024-01-31' + interval '1 month'` is `2024-02-29`, and
`interval '1 day' + interval '-24 hours'` prints `1 day -24:00:00`.

Why a subclass of `datetime.timedelta`: Cumulo's values were timedeltas long
before months existed, and a great deal of code (key encoding, hashing for
GROUP BY and DISTINCT, sorting, comparisons pushed into KiVi nodes, the
zone-offset helpers) only needs an interval's *span*. The timedelta part of an
`Interval` is exactly PostgreSQL's comparison span, `month * 30 days + day *
24 h + time` (`interval_cmp_value`), so `==`, `<`, `hash` and the order-
preserving key are PostgreSQL's with no extra code: `'1 mon' = '30 days'` and
they GROUP together, as in PostgreSQL. The three fields ride along in slots
for what needs them: output, calendar arithmetic, binary send, extract.

NB: Python's own `datetime + timedelta` would add the span (a month as 30
days), so calendar arithmetic goes through `add_to_timestamp`, never `+` on a
datetime. A plain timedelta (timestamp - timestamp, zone offsets) is read as
PostgreSQL's `justify_hours` form of its span: whole days, then time of the
same sign (`as_interval`).

NB: a timedelta spans at most 999,999,999 days, so the span of an interval
beyond about 2.7 million years (PostgreSQL goes on to 178 million years of
months) saturates there: its fields, and so its output and binary form, stay
exact, but two such giants compare as equal.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from decimal import Decimal
from typing import Any

from ..errors import DatetimeFieldOverflow, DivisionByZero, SQLError
from . import zones
from .civil import days_in_month
from .fardate import FarTimestamp, ts_of_fields, ts_of_us, us_of, utc_us_of
from .infdate import InfiniteTimestamp

USECS_PER_DAY = 86_400_000_000
USECS_PER_HOUR = 3_600_000_000
USECS_PER_MINUTE = 60_000_000
USECS_PER_SEC = 1_000_000
DAYS_PER_MONTH = 30
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


def tdiv(a: int, b: int) -> int:
    """C's integer division (truncates toward zero), which PostgreSQL's field math relies on."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _overflow() -> SQLError:
    return DatetimeFieldOverflow("interval out of range")


class Interval(dt.timedelta):
    """An interval value: PostgreSQL's (months, day, time); the timedelta part is its span."""

    __slots__ = ("months", "day", "time")
    months: int
    day: int
    time: int

    def __new__(cls, months: int = 0, day: int = 0, time: int = 0) -> Interval:
        if not (_INT32[0] <= months <= _INT32[1] and _INT32[0] <= day <= _INT32[1]
                and _INT64[0] <= time <= _INT64[1]):
            raise _overflow()
        try:
            self = super().__new__(cls, months * DAYS_PER_MONTH + day, 0, time)
        except OverflowError:  # beyond timedelta's range: the span saturates, the fields do not
            span = (months * DAYS_PER_MONTH + day) * USECS_PER_DAY + time
            self = super().__new__(cls, 999_999_999 if span > 0 else -999_999_999)
        self.months, self.day, self.time = months, day, time
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Interval, (self.months, self.day, self.time))

    def __repr__(self) -> str:
        return f"Interval(months={self.months}, day={self.day}, time={self.time})"

    def __str__(self) -> str:
        return format_postgres(self)

    # -- PostgreSQL's interval operators ------------------------------------------

    def __neg__(self) -> Interval:
        return Interval(-self.months, -self.day, -self.time)

    def __pos__(self) -> Interval:
        return self

    def __abs__(self) -> Interval:
        return -self if self < ZERO else self

    def __add__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            o = as_interval(other)
            return Interval(self.months + o.months, self.day + o.day, self.time + o.time)
        if isinstance(other, dt.datetime):
            return add_to_timestamp(other, self)
        return NotImplemented

    def __radd__(self, other: Any) -> Any:
        if other == 0 and type(other) is int:  # NB: lets Python's sum() add intervals
            return self
        return self.__add__(other)

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            o = as_interval(other)
            return Interval(self.months - o.months, self.day - o.day, self.time - o.time)
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return as_interval(other) - self
        if isinstance(other, dt.datetime):
            return add_to_timestamp(other, -self)
        return NotImplemented

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, int | float) and not isinstance(other, bool):
            return interval_mul(self, float(other))
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        if isinstance(other, int | float) and not isinstance(other, bool):
            return interval_div(self, float(other))
        return super().__truediv__(other)


ZERO = Interval()


def as_interval(v: dt.timedelta) -> Interval:
    """Returns v as an Interval; a plain timedelta becomes whole days plus same-signed time."""
    if type(v) is Interval:
        return v
    if isinstance(v, Interval):
        return Interval(v.months, v.day, v.time)
    total = v // dt.timedelta(microseconds=1)
    days = tdiv(total, USECS_PER_DAY)
    return Interval(0, days, total - days * USECS_PER_DAY)


def from_span(us: int) -> Interval:
    """Returns the interval of a span in microseconds, as days and time (timestamp - timestamp)."""
    days = tdiv(us, USECS_PER_DAY)
    return Interval(0, days, us - days * USECS_PER_DAY)


def _tsround(x: float) -> float:
    """PostgreSQL's TSROUND: rounds to microsecond precision so whole numbers come out whole."""
    return round(x * 1e6) / 1e6


def _cascade(months_f: float, days_f: float, time_f: float) -> Interval:
    """interval_mul/interval_div's cascade: fractional months spill into days, days into time."""
    if not all(math.isfinite(x) for x in (months_f, days_f, time_f)):
        raise _overflow()
    month = int(months_f)
    day = int(days_f)
    month_rem_days = _tsround((months_f - month) * DAYS_PER_MONTH)
    sec_rem = _tsround((days_f - day + month_rem_days - int(month_rem_days)) * 86400)
    if abs(sec_rem) >= 86400:
        day += int(sec_rem / 86400)
        sec_rem -= int(sec_rem / 86400) * 86400
    day += int(month_rem_days)
    return Interval(month, day, int(_rint(time_f + sec_rem * USECS_PER_SEC)))


def _rint(x: float) -> float:
    """C's rint: rounds half to even, as Python's round does."""
    return float(round(x))


def interval_mul(v: Interval, factor: float) -> Interval:
    """interval * float8, PostgreSQL's interval_mul."""
    return _cascade(v.months * factor, v.day * factor, v.time * factor)


def interval_div(v: Interval, factor: float) -> Interval:
    """interval / float8, PostgreSQL's interval_div."""
    if factor == 0.0:
        raise DivisionByZero("division by zero")
    return _cascade(v.months / factor, v.day / factor, v.time / factor)


# -- calendar arithmetic ---------------------------------------------------------------


def add_months(d: dt.datetime, months: int) -> dt.datetime:
    """Adds months to a (naive) datetime, clamping the day to the month's end."""
    if not months:
        return d
    m = d.year * 12 + d.month - 1 + months
    year, month = divmod(m, 12)
    if not 1 <= year <= 9999 or type(d) is FarTimestamp:  # BC or after 9999: pgtypes.fardate
        day = min(d.day, days_in_month(year, month + 1))
        tod = ((d.hour * 60 + d.minute) * 60 + d.second) * USECS_PER_SEC + d.microsecond
        return ts_of_fields(year, month + 1, day, tod, d.tzinfo)
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return d.replace(year=year, month=month + 1, day=day)


def raise_ts_overflow() -> None:
    """Raises PostgreSQL's 22008 for a timestamp pushed out of range."""
    raise DatetimeFieldOverflow("timestamp out of range")


def add_to_timestamp(ts: dt.datetime, iv: dt.timedelta, zone: dt.tzinfo | None = None) -> Any:
    """timestamp[tz] + interval, PostgreSQL's timestamp_pl_interval: months, then days, then time.

    A timestamptz adds its months and days on the wall clock of `zone` (the session TimeZone,
    which the caller passes), so `+ interval '1 day'` across a DST change keeps the hour.
    """
    v = as_interval(iv)
    if type(ts) is InfiniteTimestamp:
        return ts  # 'infinity' +- an interval stays infinite
    try:
        if ts.tzinfo is None:
            if v.months:
                ts = add_months(ts, v.months)
            if v.day:
                ts = ts + dt.timedelta(days=v.day)
            return ts + dt.timedelta(microseconds=v.time) if v.time else ts
        if v.months or v.day:

            z = zone if zone is not None else zones.session_zone()
            wall = zones.wall_clock(ts, z).replace(tzinfo=None)
            wall = add_months(wall, v.months)
            if v.day:
                wall = wall + dt.timedelta(days=v.day)
            ts = zones.to_utc(wall, z)
        return ts + dt.timedelta(microseconds=v.time) if v.time else ts
    except OverflowError:  # past year 1 or 9999 on the way: the same steps on PG's integers
        return _far_add(ts, v, zone)


def _far_add(ts: dt.datetime, v: Interval, zone: dt.tzinfo | None) -> dt.datetime:
    """add_to_timestamp for a result (or a step) outside Python's years (`pgtypes.fardate`);
    22008 past PostgreSQL's range."""
    if ts.tzinfo is None:
        return ts_of_us(us_of(add_months(ts, v.months)) + v.day * USECS_PER_DAY + v.time)
    if v.months or v.day:
        z = zone if zone is not None else zones.session_zone()
        wall = add_months(zones.wall_clock(ts, z).replace(tzinfo=None), v.months)
        ts = zones.to_utc(ts_of_us(us_of(wall) + v.day * USECS_PER_DAY), z)
    return ts_of_us(utc_us_of(ts) + v.time, dt.UTC)


def time_of_day(us: int) -> dt.time:
    """A time field as a time of day, wrapped into 00:00..24:00 (interval::time)."""
    us %= USECS_PER_DAY
    s, us = divmod(us, USECS_PER_SEC)
    return dt.time(s // 3600, s // 60 % 60, s % 60, us)


# -- justify_* ---------------------------------------------------------------------------


def _spill_time(day: int, time: int) -> tuple[int, int]:
    """Whole 24-hour periods of time move into days; then day and time share a sign."""
    whole = tdiv(time, USECS_PER_DAY)
    time -= whole * USECS_PER_DAY
    day += whole
    if day > 0 and time < 0:
        return day - 1, time + USECS_PER_DAY
    if day < 0 and time > 0:
        return day + 1, time - USECS_PER_DAY
    return day, time


def _spill_days(month: int, day: int) -> tuple[int, int]:
    """Whole 30-day periods move into months (the sign fix-up is the caller's)."""
    whole = tdiv(day, DAYS_PER_MONTH)
    return month + whole, day - whole * DAYS_PER_MONTH


def justify_hours(v: dt.timedelta) -> Interval:
    """Moves whole 24-hour periods of the time field into days (PostgreSQL 15's rules)."""
    v = as_interval(v)
    day, time = _spill_time(v.day, v.time)
    return Interval(v.months, day, time)


def justify_days(v: dt.timedelta) -> Interval:
    """Moves whole 30-day periods into months (PostgreSQL 15's rules)."""
    v = as_interval(v)
    month, day = _spill_days(v.months, v.day)
    if month > 0 and day < 0:
        day += DAYS_PER_MONTH
        month -= 1
    elif month < 0 and day > 0:
        day -= DAYS_PER_MONTH
        month += 1
    return Interval(month, day, v.time)


def justify_interval(v: dt.timedelta) -> Interval:
    """justify_days and justify_hours together, with signs made consistent."""
    v = as_interval(v)
    month, day, time = v.months, v.day, v.time
    if (day > 0 and time > 0) or (day < 0 and time < 0):  # NB: pre-justify days, as PG does
        month, day = _spill_days(month, day)
    whole = tdiv(time, USECS_PER_DAY)
    time -= whole * USECS_PER_DAY
    month, day = _spill_days(month, day + whole)
    if month > 0 and (day < 0 or (day == 0 and time < 0)):
        day += DAYS_PER_MONTH
        month -= 1
    elif month < 0 and (day > 0 or (day == 0 and time > 0)):
        day -= DAYS_PER_MONTH
        month += 1
    day, time = _spill_time(day, time)
    return Interval(month, day, time)


# -- age ---------------------------------------------------------------------------------


def age(a: dt.datetime, b: dt.datetime) -> Interval:
    """PostgreSQL's age(a, b): the field-by-field difference of two (wall-clock) timestamps."""
    f = [a.microsecond - b.microsecond, a.second - b.second, a.minute - b.minute,
         a.hour - b.hour, a.day - b.day, a.month - b.month, a.year - b.year]
    neg = a < b
    if neg:
        f = [-x for x in f]
    for n, limit in enumerate((1_000_000, 60, 60, 24)):
        while f[n] < 0:
            f[n] += limit
            f[n + 1] -= 1
    ref = a if neg else b  # NB: PostgreSQL borrows the month length of the earlier timestamp
    while f[4] < 0:
        f[4] += calendar.monthrange(ref.year, ref.month)[1]
        f[5] -= 1
    while f[5] < 0:
        f[5] += 12
        f[6] -= 1
    if neg:
        f = [-x for x in f]
    us, sec, mins, hours, days, months, years = f
    return Interval(years * 12 + months, days,
                    ((hours * 60 + mins) * 60 + sec) * USECS_PER_SEC + us)


# -- typmods -----------------------------------------------------------------------------

# INTERVAL_MASK bits of a typmod's range (PostgreSQL's datetime.h field numbers).
MONTH, YEAR, DAY, HOUR, MINUTE, SECOND = 1 << 1, 1 << 2, 1 << 3, 1 << 10, 1 << 11, 1 << 12
FULL_RANGE = 0x7FFF
RANGES = {
    "YEAR": YEAR, "MONTH": MONTH, "DAY": DAY, "HOUR": HOUR, "MINUTE": MINUTE, "SECOND": SECOND,
    "YEAR TO MONTH": YEAR | MONTH, "DAY TO HOUR": DAY | HOUR,
    "DAY TO MINUTE": DAY | HOUR | MINUTE, "DAY TO SECOND": DAY | HOUR | MINUTE | SECOND,
    "HOUR TO MINUTE": HOUR | MINUTE, "HOUR TO SECOND": HOUR | MINUTE | SECOND,
    "MINUTE TO SECOND": MINUTE | SECOND,
}
RANGE_NAMES = {v: k.lower() for k, v in RANGES.items()}


def typmod(range_mask: int = FULL_RANGE, precision: int = 0xFFFF) -> int:
    """PostgreSQL's INTERVAL_TYPMOD(precision, range)."""
    return ((range_mask & 0x7FFF) << 16) | (precision & 0xFFFF)


def typmod_parts(mod: int) -> tuple[int, int]:
    """(range mask, precision or 0xFFFF) of an interval typmod (-1: full range, any precision)."""
    if mod < 0:
        return FULL_RANGE, 0xFFFF
    return (mod >> 16) & 0x7FFF, mod & 0xFFFF


def adjust(v: dt.timedelta, mod: int) -> Interval:
    """Applies an interval typmod: drops the fields below the range, rounds seconds to precision.

    PostgreSQL's AdjustIntervalForTypmod.
    """
    iv = as_interval(v)
    rng, prec = typmod_parts(mod)
    months, day, time = iv.months, iv.day, iv.time
    if rng == YEAR:
        return Interval(tdiv(months, 12) * 12, 0, 0)
    if rng in (MONTH, YEAR | MONTH):
        return Interval(months, 0, 0)
    if rng == DAY:
        return Interval(months, day, 0)
    if rng in (HOUR, DAY | HOUR):
        return Interval(months, day, tdiv(time, USECS_PER_HOUR) * USECS_PER_HOUR)
    if rng in (MINUTE, HOUR | MINUTE, DAY | HOUR | MINUTE):
        return Interval(months, day, tdiv(time, USECS_PER_MINUTE) * USECS_PER_MINUTE)
    if rng != FULL_RANGE and not rng & SECOND:
        return iv
    if prec != 0xFFFF and prec < 6:
        q = 10 ** (6 - prec)
        half = q // 2
        time = (time + half) // q * q if time >= 0 else -((-time + half) // q * q)
        return Interval(months, day, time)
    return iv


# -- extract and date_trunc ---------------------------------------------------------------


def fields(v: dt.timedelta) -> tuple[int, int, int, int, int, int, int]:
    """(year, mon, mday, hour, min, sec, usec), each signed like its field (interval2itm)."""
    iv = v if type(v) is Interval else as_interval(v)
    m = iv.months
    year, mon = divmod(m, 12) if m >= 0 else (-(-m // 12), -(-m % 12))
    t = iv.time
    hour, rest = divmod(-t if t < 0 else t, USECS_PER_HOUR)
    mi, rest = divmod(rest, USECS_PER_MINUTE)
    sec, usec = divmod(rest, USECS_PER_SEC)
    if t < 0:
        return year, mon, iv.day, -hour, -mi, -sec, -usec
    return year, mon, iv.day, hour, mi, sec, usec


def extract_field(unit: str, v: dt.timedelta) -> Decimal | None:
    """EXTRACT(unit FROM interval) as numeric, PostgreSQL 15's interval_part (None: unsupported).

    epoch counts a year as 365.25 days and the remaining months as 30 days.
    """
    iv = as_interval(v)
    year, mon, mday, hour, mi, sec, usec = fields(iv)
    if unit == "epoch":
        months = iv.months
        days4 = 1461 * tdiv(months, 12) + 120 * (months - tdiv(months, 12) * 12) + 4 * iv.day
        return _scaled(days4 * (86400 // 4) * USECS_PER_SEC + iv.time, 6)
    if unit == "microseconds":
        return Decimal(sec * USECS_PER_SEC + usec)
    if unit == "milliseconds":
        return _scaled((sec * USECS_PER_SEC + usec) * 1000, 3)
    if unit == "second":
        return _scaled(sec * USECS_PER_SEC + usec, 6)
    simple = {"minute": mi, "hour": hour, "day": mday, "month": mon,
              "quarter": tdiv(mon, 3) + 1, "year": year, "decade": tdiv(year, 10),
              "century": tdiv(year, 100), "millennium": tdiv(year, 1000)}
    out = simple.get(unit)
    return None if out is None else Decimal(out)


def _scaled(us: int, scale: int) -> Decimal:
    """us / 10**6 as a numeric with `scale` digits (int64_div_fast_to_numeric)."""
    return (Decimal(us) / USECS_PER_SEC).quantize(Decimal(1).scaleb(-scale))


def trunc(unit: str, v: dt.timedelta) -> Interval | None:
    """date_trunc(unit, interval), PostgreSQL's interval_trunc (None: unsupported unit)."""
    year, mon, mday, hour, mi, sec, usec = fields(v)
    order = ("millennium", "century", "decade", "year", "quarter", "month", "day", "hour",
             "minute", "second")
    if unit == "milliseconds":
        usec = tdiv(usec, 1000) * 1000
    elif unit in order:
        steps = order[order.index(unit):]
        for step in steps:  # NB: each unit falls through to the finer ones, as in C
            if step == "millennium":
                year = tdiv(year, 1000) * 1000
            elif step == "century":
                year = tdiv(year, 100) * 100
            elif step == "decade":
                year = tdiv(year, 10) * 10
            elif step == "year":
                mon = 0
            elif step == "quarter":
                mon = 3 * tdiv(mon, 3)
            elif step == "month":
                mday = 0
            elif step == "day":
                hour = 0
            elif step == "hour":
                mi = 0
            elif step == "minute":
                sec = 0
            else:
                usec = 0
    elif unit != "microseconds":
        return None
    return Interval(year * 12 + mon, mday,
                    ((hour * 60 + mi) * 60 + sec) * USECS_PER_SEC + usec)


# -- the `postgres` output style (IntervalStyle's default; the others are in intervaltext) --


def seconds_text(sec: int, fsec: int, fill: bool) -> str:
    """Seconds and microseconds as interval output prints them (`05`, `5.25`)."""
    out = f"{abs(sec):02d}" if fill else str(abs(sec))
    if fsec:
        out += "." + f"{abs(fsec):06d}".rstrip("0")
    return out


def plural(n: int) -> str:
    """The plural ending of a unit name for n."""
    return "" if n == 1 else "s"


def format_postgres(v: Any) -> str:
    """The `postgres` style: '1 year 2 mons -3 days +04:05:06'."""
    year, mon, mday, hour, mi, sec, fsec = fields(v)
    out: list[str] = []
    is_before = False
    for value, unit in ((year, "year"), (mon, "mon"), (mday, "day")):
        if value:
            out.append(f"{'+' if is_before and value > 0 else ''}{value} {unit}{plural(value)}")
            is_before = value < 0
    if not out or hour or mi or sec or fsec:
        minus = hour < 0 or mi < 0 or sec < 0 or fsec < 0
        sign = "-" if minus else "+" if is_before else ""
        out.append(f"{sign}{abs(hour):02d}:{abs(mi):02d}:{seconds_text(sec, fsec, True)}")
    return " ".join(out)
