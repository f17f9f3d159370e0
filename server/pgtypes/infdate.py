"""'infinity' and '-infinity' of date, timestamp and timestamptz: sentinels outside every real value.

Python's date has no infinities, and reusing date.max / date.min (as timestamps
reuse datetime.max / min) would make the real dates 9999-12-31 and 0001-01-01
print as infinities. An `InfiniteDate` is a date subclass (so the executor,
the storage layer and the sort keys handle it as a date) whose comparisons put
it above (+) or below (-) every real date, which never equals one, and which
stays itself under date + days, as PostgreSQL's infinite dates do; subtracting
it from a date is 22008 `cannot subtract infinite dates`.

>>> DATE_INF > dt.date.max, DATE_NEG_INF < dt.date.min, dt.date(2024, 1, 1) < DATE_INF
(True, True, True)
>>> DATE_INF == dt.date.max, sorted([DATE_INF, dt.date(2000, 1, 1), DATE_NEG_INF])[0] is DATE_NEG_INF
(False, True)
>>> str(DATE_INF), DATE_NEG_INF + dt.timedelta(days=3) is DATE_NEG_INF
('infinity', True)

Timestamps work the same way: `InfiniteTimestamp` is a datetime subclass whose
fields are datetime.max's or datetime.min's (with UTC for timestamptz), so the
real instants 9999-12-31 23:59:59.999999 and 0001-01-01 00:00:00 (Go's and
.NET's zero time) stay real values. Storage and the columnar copy tell them
apart by exact type (a sentinel is never `type(v) is datetime`).

>>> TS_NEG_INF < dt.datetime.min, TS_NEG_INF == dt.datetime.min, TS_INF > dt.datetime.max
(True, False, True)
>>> str(TSTZ_INF), (TS_INF + dt.timedelta(days=1)) is TS_INF, TSTZ_NEG_INF.replace(tzinfo=None)
('infinity', True, TS_NEG_INF)
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..errors import DatetimeFieldOverflow


class _Infinite:
    """What the date and timestamp sentinels share: an order above (sign 1) or below
    (sign -1) every real value of `_real`, equality only with the same sentinel, and
    PostgreSQL's arithmetic (adding or subtracting an interval leaves it as it is;
    subtracting from it or it from a value is 22008). A mixin, first in the bases, so
    these methods win over the date or datetime ones."""

    sign = 0
    _real: type = dt.date
    _what = "dates"

    def _cmp(self, other: Any) -> int:
        if isinstance(other, type(self)):
            return (self.sign > other.sign) - (self.sign < other.sign)
        if isinstance(other, self._real):
            return self.sign
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and other.sign == self.sign

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: Any) -> bool:
        return self._cmp(other) < 0

    def __le__(self, other: Any) -> bool:
        return self._cmp(other) <= 0

    def __gt__(self, other: Any) -> bool:
        return self._cmp(other) > 0

    def __ge__(self, other: Any) -> bool:
        return self._cmp(other) >= 0

    def __hash__(self) -> int:
        return hash((f"infinite {self._what}", self.sign))

    def __add__(self, other: Any) -> Any:
        return self

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return self
        raise DatetimeFieldOverflow(f"cannot subtract infinite {self._what}")

    def __rsub__(self, other: Any) -> Any:
        raise DatetimeFieldOverflow(f"cannot subtract infinite {self._what}")

    def __str__(self) -> str:
        return "infinity" if self.sign > 0 else "-infinity"


class InfiniteDate(_Infinite, dt.date):
    """+infinity (sign 1) or -infinity (sign -1) of type date."""

    def __new__(cls, sign: int) -> InfiniteDate:
        self = super().__new__(cls, *((9999, 12, 31) if sign > 0 else (1, 1, 1)))
        return self

    def __init__(self, sign: int) -> None:
        self.sign = sign

    def __repr__(self) -> str:
        return "DATE_INF" if self.sign > 0 else "DATE_NEG_INF"

    def __reduce__(self) -> tuple[Any, ...]:
        return (InfiniteDate, (self.sign,))

    def isoformat(self) -> str:
        return str(self)


class InfiniteTimestamp(_Infinite, dt.datetime):
    """+infinity (sign 1) or -infinity (sign -1) of timestamp (naive) or timestamptz (UTC)."""

    _real = dt.datetime
    _what = "timestamps"

    def __new__(cls, sign: int, tzinfo: dt.tzinfo | None = None) -> InfiniteTimestamp:
        edge = dt.datetime.max if sign > 0 else dt.datetime.min
        return super().__new__(cls, edge.year, edge.month, edge.day, edge.hour, edge.minute,
                               edge.second, edge.microsecond, tzinfo)

    def __init__(self, sign: int, tzinfo: dt.tzinfo | None = None) -> None:
        self.sign = sign

    def replace(self, *args: Any, **kw: Any) -> InfiniteTimestamp:
        """Only the zone can change (timestamp <-> timestamptz); the fields stay the edge's."""
        tz = kw.get("tzinfo", self.tzinfo)
        if tz is self.tzinfo:
            return self
        if tz is None or tz is dt.UTC:  # the four module constants, so `is` tests hold
            return _SENTINELS[self.sign, tz]
        return InfiniteTimestamp(self.sign, tz)

    def astimezone(self, tz: dt.tzinfo | None = None) -> InfiniteTimestamp:
        return self.replace(tzinfo=tz if tz is not None else dt.UTC)

    def date(self) -> dt.date:
        return DATE_INF if self.sign > 0 else DATE_NEG_INF

    def __repr__(self) -> str:
        return ("TS_INF" if self.sign > 0 else "TS_NEG_INF").replace(
            "TS", "TS" if self.tzinfo is None else "TSTZ")

    def __reduce__(self) -> tuple[Any, ...]:
        return (InfiniteTimestamp, (self.sign, self.tzinfo))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()

    def isoformat(self, sep: str = "T", timespec: str = "auto") -> str:
        return str(self)


DATE_INF = InfiniteDate(1)
DATE_NEG_INF = InfiniteDate(-1)
WORDS = {"infinity": DATE_INF, "-infinity": DATE_NEG_INF}
TS_INF = InfiniteTimestamp(1)
TS_NEG_INF = InfiniteTimestamp(-1)
TSTZ_INF = InfiniteTimestamp(1, dt.UTC)
TSTZ_NEG_INF = InfiniteTimestamp(-1, dt.UTC)
_SENTINELS = {(1, None): TS_INF, (-1, None): TS_NEG_INF, (1, dt.UTC): TSTZ_INF,
              (-1, dt.UTC): TSTZ_NEG_INF}


class Time24(dt.time):
    """'24:00:00', PostgreSQL's end of a day, as a time (or timetz with `tzinfo`).

    Python's time stops at 23:59:59.999999. A Time24 keeps 00:00 inside but reads `hour`
    as 24, so everything that counts microseconds from the fields (binary send, keys,
    storage, time - time, time + interval) counts a whole day; it orders after every
    real time of day and equals only itself, and prints as PostgreSQL does.

    >>> TIME_24 > dt.time(23, 59, 59, 999999), TIME_24 == dt.time(0), dt.time(0) < TIME_24
    (True, False, True)
    >>> str(TIME_24), TIME_24.hour * 3600, sorted([TIME_24, dt.time(1)])[-1] is TIME_24
    ('24:00:00', 86400, True)
    >>> time_of_us(86_400_000_000) is TIME_24, time_of_us(3_600_000_000)
    (True, datetime.time(1, 0))
    """

    def __new__(cls, tzinfo: dt.tzinfo | None = None) -> Time24:
        return super().__new__(cls, 0, 0, 0, 0, tzinfo)

    @property
    def hour(self) -> int:
        return 24

    def _key(self, other: Any) -> Any:
        if not isinstance(other, dt.time):
            return NotImplemented
        if type(other) is Time24:
            return 0
        return 1  # NB: after every real time of day

    def __eq__(self, other: object) -> bool:
        return type(other) is Time24 and other.tzinfo == self.tzinfo

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: Any) -> bool:
        k = self._key(other)
        return k if k is NotImplemented else False

    def __le__(self, other: Any) -> bool:
        k = self._key(other)
        return k if k is NotImplemented else k == 0

    def __gt__(self, other: Any) -> bool:
        k = self._key(other)
        return k if k is NotImplemented else k == 1

    def __ge__(self, other: Any) -> bool:
        k = self._key(other)
        return k if k is NotImplemented else True

    def __hash__(self) -> int:
        return hash(("time 24:00", self.tzinfo))

    def replace(self, *args: Any, **kw: Any) -> dt.time:  # type: ignore[override]
        """Only the zone can change (time <-> timetz); any other field makes a real time."""
        fields = {k: v for k, v in kw.items() if k != "tzinfo"}
        if args or "hour" in fields or any(v != 0 for v in fields.values()):
            return dt.time(0, 0, 0, 0, self.tzinfo).replace(*args, **kw)
        tz = kw.get("tzinfo", self.tzinfo)
        return TIME_24 if tz is None else Time24(tz)

    def isoformat(self, timespec: str = "auto") -> str:
        return "24:00:00" + (_tz_suffix(self) if self.tzinfo is not None else "")

    def __str__(self) -> str:
        return self.isoformat()

    def __repr__(self) -> str:
        return "TIME_24" if self.tzinfo is None else f"Time24({self.tzinfo!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Time24, (self.tzinfo,))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return self.__reduce__()


def _tz_suffix(t: dt.time) -> str:
    return dt.time(0, 0, tzinfo=t.tzinfo).isoformat()[8:]


TIME_24 = Time24()
USECS_PER_DAY = 86_400_000_000


def time_of_us(us: int, tz: dt.tzinfo | None = None) -> dt.time:
    """The time `us` microseconds after midnight, 0 .. 86,400,000,000 (24:00:00)."""
    if us == USECS_PER_DAY:
        return TIME_24 if tz is None else Time24(tz)
    s, micro = divmod(us, 1_000_000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return dt.time(h, m, s, micro, tzinfo=tz)


def infinite_date(v: dt.date) -> InfiniteDate | None:
    """The sentinel itself, or None for a real date."""
    return v if isinstance(v, InfiniteDate) else None


def infinite_timestamp(v: Any) -> InfiniteTimestamp | None:
    """The sentinel itself, or None for a real timestamp (or anything else)."""
    return v if isinstance(v, InfiniteTimestamp) else None
