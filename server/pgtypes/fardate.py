"""Dates and timestamps outside Python's years 1..9999: BC dates and years above 9999.

PostgreSQL keeps a date as int32 days and a timestamp as int64 microseconds, both
counted from 2000-01-01, so its range runs from 4714-11-24 BC (Julian day 0) to
5874897-12-31 for dates and to 294276-12-31 23:59:59.999999 for timestamps.
Python's date and datetime stop at 0001-01-01 and 9999-12-31. A `FarDate` and a
`FarTimestamp` hold PostgreSQL's integer for a value beyond Python's range. Like
the infinities of `infdate`, they are date / datetime subclasses, so the layers
that dispatch on isinstance take them for dates; they are made only when Python's
types cannot hold the value (`date_of_days`, `ts_of_us`), so the common path
never meets them. Years are astronomical (0 is 1 BC, -43 is 44 BC), as
PostgreSQL computes them (`civil` has the calendar arithmetic on day counts).

>>> d = date_of_days(-746117); d, str(d), d.year
(FarDate(-746117), '0044-03-15 BC', -43)
>>> date_of_days(0), str(date_of_days(2921940)), date_of_days(2921940) > dt.date(9999, 12, 31)
(datetime.date(2000, 1, 1), '10000-01-01', True)
>>> sorted([dt.date(1, 1, 1), d, InfiniteDate(-1)])[1] is d, d + dt.timedelta(days=1)
(True, FarDate(-746116))
>>> str(ts_of_us(-211813488000000000)), str(ts_of_us(9223371331199999999, dt.UTC))
('4714-11-24 00:00:00 BC', '294276-12-31 23:59:59.999999+00')
>>> try:
...     date_of_days(DATE_MAX_DAYS + 1)
... except DatetimeFieldOverflow as e:
...     print(e.sqlstate, e)
22008 date out of range
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from ..errors import DatetimeFieldOverflow
from .civil import civil_of_days, day_of_year, days_of_civil, iso_calendar, valid_ymd
from .infdate import InfiniteDate, InfiniteTimestamp

EPOCH_ORDINAL = 730120  # dt.date(2000, 1, 1).toordinal(): PostgreSQL's day 0
USECS_PER_DAY = 86_400_000_000
DATE_MIN_DAYS = -2451545  # 4714-11-24 BC, Julian day 0
DATE_MAX_DAYS = 2145031948  # 5874897-12-31
TS_MIN_US = -211813488000000000  # 4714-11-24 00:00:00 BC
TS_END_US = 9223371331200000000  # 294277-01-01 00:00:00, the first instant out of range
_REAL_MIN_DAYS = 1 - EPOCH_ORDINAL  # 0001-01-01
_REAL_MAX_DAYS = dt.date.max.toordinal() - EPOCH_ORDINAL  # 9999-12-31
_EPOCH = dt.datetime(2000, 1, 1)
_US = dt.timedelta(microseconds=1)


def _ymd_text(y: int, m: int, d: int) -> tuple[str, str]:
    return f"{y if y > 0 else 1 - y:04d}-{m:02d}-{d:02d}", "" if y > 0 else " BC"


class _Calendar:
    """The calendar methods of both far classes, from their day count: date's and
    datetime's own ones would read the placeholder fields. (First in the bases, so these
    win; strftime and ctime are refused rather than wrong.)"""

    def _day_count(self) -> int:
        raise NotImplementedError

    @property
    def year(self) -> int:
        return civil_of_days(self._day_count())[0]

    @property
    def month(self) -> int:
        return civil_of_days(self._day_count())[1]

    @property
    def day(self) -> int:
        return civil_of_days(self._day_count())[2]

    def toordinal(self) -> int:
        return self._day_count() + EPOCH_ORDINAL

    def weekday(self) -> int:
        return (self._day_count() + 5) % 7  # NB: 2000-01-01 was a Saturday

    def isoweekday(self) -> int:
        return self.weekday() + 1

    def isocalendar(self) -> tuple[int, int, int]:
        return iso_calendar(self._day_count())

    def timetuple(self) -> time.struct_time:
        days = self._day_count()
        y, m, d = civil_of_days(days)
        hms = (self.hour, self.minute, self.second) if isinstance(self, dt.datetime) else (0, 0, 0)
        return time.struct_time((y, m, d, *hms, self.weekday(), day_of_year(days), -1))

    def strftime(self, fmt: str) -> str:
        raise ValueError("strftime() of a date before year 1 or after 9999")

    def ctime(self) -> str:
        raise ValueError("ctime() of a date before year 1 or after 9999")


class _Ordering:
    """<, <=, >, >= and != of both far classes from their `_cmp` (-1, 0, 1 or
    NotImplemented), against each other, ordinary dates and the infinities."""

    def _cmp(self, other: Any) -> Any:
        raise NotImplementedError

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: Any) -> bool:
        c = self._cmp(other)
        return c if c is NotImplemented else c < 0

    def __le__(self, other: Any) -> bool:
        c = self._cmp(other)
        return c if c is NotImplemented else c <= 0

    def __gt__(self, other: Any) -> bool:
        c = self._cmp(other)
        return c if c is NotImplemented else c > 0

    def __ge__(self, other: Any) -> bool:
        c = self._cmp(other)
        return c if c is NotImplemented else c >= 0


class FarDate(_Calendar, _Ordering, dt.date):  # type: ignore[misc]
    """A date before 0001-01-01 or after 9999-12-31: `days` from 2000-01-01, PostgreSQL's
    DateADT. The date fields underneath are date.min's or date.max's and are never read:
    every method that would read them is replaced here."""

    days: int

    def __new__(cls, days: int) -> FarDate:
        self = super().__new__(cls, *((9999, 12, 31) if days > 0 else (1, 1, 1)))
        self.days = days
        return self

    def _day_count(self) -> int:
        return self.days

    def _cmp(self, other: Any) -> Any:
        if isinstance(other, dt.datetime) or not isinstance(other, dt.date):
            return NotImplemented
        sign = infinite_sign(other)
        if sign:
            return -sign
        o = other.days if type(other) is FarDate else other.toordinal() - EPOCH_ORDINAL
        return (self.days > o) - (self.days < o)

    def __eq__(self, other: object) -> bool:
        return type(other) is FarDate and other.days == self.days

    def __hash__(self) -> int:
        return hash(("far date", self.days))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return date_of_days(self.days + other.days)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return date_of_days(self.days - other.days)
        if isinstance(other, dt.date) and not isinstance(other, dt.datetime):
            if infinite_sign(other):
                raise DatetimeFieldOverflow("cannot subtract infinite dates")
            return dt.timedelta(days=self.days - days_of(other))
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if isinstance(other, dt.date) and not isinstance(other, dt.datetime):
            if infinite_sign(other):
                raise DatetimeFieldOverflow("cannot subtract infinite dates")
            return dt.timedelta(days=days_of(other) - self.days)
        return NotImplemented

    def replace(self, year: int | None = None, month: int | None = None,  # type: ignore[override]
                day: int | None = None) -> dt.date:
        y, m, d = civil_of_days(self.days)
        return date_of_ymd(y if year is None else year, m if month is None else month,
                           d if day is None else day)

    def isoformat(self) -> str:
        return str(self)

    def __str__(self) -> str:
        body, era = _ymd_text(*civil_of_days(self.days))
        return body + era

    def __format__(self, spec: str) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"FarDate({self.days})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FarDate, (self.days,))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()


class FarTimestamp(_Calendar, _Ordering, dt.datetime):  # type: ignore[misc]
    """A timestamp (naive) or timestamptz (UTC) outside Python's years: `us` from
    2000-01-01 00:00, PostgreSQL's Timestamp. The time-of-day fields underneath are
    real; the date fields are datetime.min's or max's and never read."""

    us: int

    def __new__(cls, us: int, tzinfo: dt.tzinfo | None = None) -> FarTimestamp:
        rest = us % USECS_PER_DAY
        s, micro = divmod(rest, 1_000_000)
        edge = (9999, 12, 31) if us > 0 else (1, 1, 1)
        self = super().__new__(cls, *edge, s // 3600, s // 60 % 60, s % 60, micro, tzinfo)
        self.us = us
        return self

    @property
    def days(self) -> int:
        return self.us // USECS_PER_DAY

    def _day_count(self) -> int:
        return self.days

    def date(self) -> dt.date:
        return date_of_days(self.days)

    def _utc_us(self) -> int:
        off = self.utcoffset()
        return self.us if off is None else self.us - off // _US

    def _cmp(self, other: Any) -> Any:
        if not isinstance(other, dt.datetime):
            return NotImplemented
        sign = infinite_sign(other)
        if sign:
            return -sign
        if (self.tzinfo is None) != (other.tzinfo is None):
            raise TypeError("can't compare offset-naive and offset-aware datetimes")
        a = self._utc_us() if self.tzinfo is not None else self.us
        b = us_of(other) if other.tzinfo is None else utc_us_of(other)
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        if type(other) is not FarTimestamp or (self.tzinfo is None) != (other.tzinfo is None):
            return False
        return self._cmp(other) == 0

    def __hash__(self) -> int:
        return hash(("far timestamp", self._utc_us()))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return ts_of_us(self.us + other // _US, self.tzinfo)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return ts_of_us(self.us - other // _US, self.tzinfo)
        if isinstance(other, dt.datetime):
            if infinite_sign(other):
                return NotImplemented
            b = us_of(other) if other.tzinfo is None else utc_us_of(other)
            a = self.us if self.tzinfo is None else self._utc_us()
            return dt.timedelta(microseconds=a - b)
        return NotImplemented

    def __rsub__(self, other: Any) -> Any:
        if isinstance(other, dt.datetime):
            a = us_of(other) if other.tzinfo is None else utc_us_of(other)
            b = self.us if self.tzinfo is None else self._utc_us()
            return dt.timedelta(microseconds=a - b)
        return NotImplemented

    def replace(self, *args: Any, **kw: Any) -> dt.datetime:  # type: ignore[override]
        """Any field, as datetime.replace; the result is real when Python can hold it."""
        names = ("year", "month", "day", "hour", "minute", "second", "microsecond", "tzinfo")
        y, m, d = civil_of_days(self.days)
        f: dict[str, Any] = dict(zip(names, (y, m, d, self.hour, self.minute, self.second,
                                             self.microsecond, self.tzinfo), strict=True))
        f.update(zip(names, args, strict=False))
        f.update(kw)
        days = days_of_ymd(f["year"], f["month"], f["day"])
        us = days * USECS_PER_DAY + ((f["hour"] * 60 + f["minute"]) * 60 + f["second"]) * \
            1_000_000 + f["microsecond"]
        return ts_of_us(us, f["tzinfo"])

    def astimezone(self, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
        """The same instant on `tz`'s clocks, with the offset `tz` has at the same time of
        year in year 1 (BC) or 9999 (later): PostgreSQL extends a zone's first and last
        rules the same way."""
        tz = tz or dt.UTC
        utc = self._utc_us()
        y, m, d = civil_of_days(utc // USECS_PER_DAY)
        off, name = zone_offset(tz, y, m, d, self.hour, self.minute, utc=True)
        local = utc + off // _US  # NB: the zone keeps its abbreviation ('CEST': Postgres style)
        zone = dt.UTC if tz is dt.UTC else dt.timezone(off, name) if name else dt.timezone(off)
        if TS_MIN_US <= local < TS_END_US:
            return ts_of_us(local, zone)
        return FarTimestamp(local, zone)  # NB: a clock just past the range still prints (PG)

    def timestamp(self) -> float:
        return (self._utc_us() if self.tzinfo else self.us) / 1e6 + 946684800.0

    def isoformat(self, sep: str = "T", timespec: str = "auto") -> str:
        return str(self)

    def __str__(self) -> str:
        body, era = _ymd_text(*civil_of_days(self.days))
        frac = f".{self.microsecond:06d}".rstrip("0") if self.microsecond else ""
        clock = f"{self.hour:02d}:{self.minute:02d}:{self.second:02d}{frac}"
        return f"{body} {clock}{offset_text(self.utcoffset())}{era}"

    def __format__(self, spec: str) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"FarTimestamp({self.us}{'' if self.tzinfo is None else ', ' + repr(self.tzinfo)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FarTimestamp, (self.us, self.tzinfo))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()


def offset_text(off: dt.timedelta | None) -> str:
    """PostgreSQL's offset suffix: '', '+00', '+05:30', '+00:09:21'."""
    if off is None:
        return ""
    secs = off // dt.timedelta(seconds=1)
    h, rest = divmod(abs(secs), 3600)
    m, s = divmod(rest, 60)
    out = f"{'-' if secs < 0 else '+'}{h:02d}"
    return out + (f":{m:02d}" if m or s else "") + (f":{s:02d}" if s else "")


def zone_offset(tz: dt.tzinfo, y: int, m: int, d: int, hh: int, mi: int, utc: bool = False
                ) -> tuple[dt.timedelta, str | None]:
    """`tz`'s UTC offset and abbreviation at a far date's time of year (the wall clock
    there, or the UTC instant with `utc`), read in year 1 before it and year 9999 after."""
    probe = dt.datetime(min(max(y, 1), 9999), m, min(d, 28) if m == 2 else d, hh, mi)
    if utc:
        try:
            local = probe.replace(tzinfo=dt.UTC).astimezone(tz)
            return local.utcoffset() or dt.timedelta(0), local.tzname()
        except OverflowError:
            pass
    return tz.utcoffset(probe) or dt.timedelta(0), tz.tzname(probe)


def far_to_utc(v: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """The instant at which clocks in `tz` show the wall clock of `v` (far or not)."""
    us = us_of(v)
    y, m, d = civil_of_days(us // USECS_PER_DAY)
    off = zone_offset(tz, y, m, d, v.hour, v.minute)[0]
    return ts_of_us(us - off // _US, dt.UTC)


def infinite_sign(v: Any) -> int:
    """+1 / -1 for an infinity of `infdate`, 0 for anything else."""
    return v.sign if type(v) is InfiniteDate or type(v) is InfiniteTimestamp else 0


def date_of_days(days: int) -> dt.date:
    """The date `days` after 2000-01-01: a real date when Python can hold it, else a FarDate;
    22008 beyond PostgreSQL's range."""
    if _REAL_MIN_DAYS <= days <= _REAL_MAX_DAYS:
        return dt.date.fromordinal(days + EPOCH_ORDINAL)
    if not DATE_MIN_DAYS <= days <= DATE_MAX_DAYS:
        raise DatetimeFieldOverflow("date out of range")
    return FarDate(days)


def days_of(v: dt.date) -> int:
    """Days from 2000-01-01 of a finite date (real or far)."""
    return v.days if type(v) is FarDate else v.toordinal() - EPOCH_ORDINAL


def days_of_ymd(y: int, m: int, d: int) -> int:
    """Days from 2000-01-01 of an astronomical date; ValueError if the fields are no date."""
    if not valid_ymd(y, m, d):
        raise ValueError(f"no date {y}-{m}-{d}")
    return days_of_civil(y, m, d)


def date_of_ymd(y: int, m: int, d: int) -> dt.date:
    """The date of astronomical fields (ValueError if none; 22008 beyond PostgreSQL's range)."""
    if 1 <= y <= 9999:
        return dt.date(y, m, d)
    return date_of_days(days_of_ymd(y, m, d))


def ts_of_us(us: int, tz: dt.tzinfo | None = None) -> dt.datetime:
    """The timestamp `us` after 2000-01-01 00:00 (wall clock of `tz`, None: naive): real
    when Python can hold it, else a FarTimestamp; 22008 beyond PostgreSQL's range."""
    days = us // USECS_PER_DAY
    if _REAL_MIN_DAYS <= days <= _REAL_MAX_DAYS:
        return (_EPOCH + dt.timedelta(microseconds=us)).replace(tzinfo=tz)
    if not TS_MIN_US <= us < TS_END_US:
        raise DatetimeFieldOverflow("timestamp out of range")
    return FarTimestamp(us, tz)


def us_of(v: dt.datetime) -> int:
    """Microseconds from 2000-01-01 00:00 of a finite timestamp's wall clock."""
    if type(v) is FarTimestamp:
        return v.us
    return (v.replace(tzinfo=None) - _EPOCH) // _US


def utc_us_of(v: dt.datetime) -> int:
    """Microseconds from 2000-01-01 00:00 UTC of a finite timestamptz."""
    off = v.utcoffset()
    return us_of(v) - (off // _US if off else 0)


def ts_of_fields(y: int, m: int, d: int, us_of_day: int, tz: dt.tzinfo | None = None
                 ) -> dt.datetime:
    """A timestamp from astronomical date fields and microseconds into the day (which may
    reach a whole day or more: 24:00:00, a leap second)."""
    return ts_of_us(days_of_ymd(y, m, d) * USECS_PER_DAY + us_of_day, tz)


def round_timestamp(v: dt.datetime, q: int) -> dt.datetime:
    """timestamp(p)'s rounding to a multiple of `q` microseconds, as PostgreSQL rounds its
    integer from 2000-01-01: half away from zero, so half down before 2000 (an infinity
    stays itself; a far result is a far value)."""
    if type(v) is InfiniteTimestamp:
        return v
    t = us_of(v) if v.tzinfo is None else utc_us_of(v)
    r = (t + q // 2) // q * q if t >= 0 else -((-t + q // 2) // q * q)
    if r == t:
        return v
    try:
        return v + dt.timedelta(microseconds=r - t)
    except OverflowError:  # NB: rounded across year 1 or 9999
        return ts_of_us(r, None if v.tzinfo is None else dt.UTC)
