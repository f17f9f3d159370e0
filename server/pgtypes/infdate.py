"""date 'infinity' and '-infinity': two sentinel values outside every real date.

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
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..errors import DatetimeFieldOverflow


class InfiniteDate(dt.date):
    """+infinity (sign 1) or -infinity (sign -1) of type date."""

    sign = 0

    def __new__(cls, sign: int) -> InfiniteDate:
        self = super().__new__(cls, *((9999, 12, 31) if sign > 0 else (1, 1, 1)))
        return self

    def __init__(self, sign: int) -> None:
        self.sign = sign

    def _cmp(self, other: Any) -> int:
        if isinstance(other, InfiniteDate):
            return (self.sign > other.sign) - (self.sign < other.sign)
        if isinstance(other, dt.date):
            return self.sign
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InfiniteDate) and other.sign == self.sign

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
        return hash(("infinite date", self.sign))

    def __add__(self, other: Any) -> InfiniteDate:
        return self

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, dt.timedelta):
            return self
        raise DatetimeFieldOverflow("cannot subtract infinite dates")

    def __rsub__(self, other: Any) -> Any:
        raise DatetimeFieldOverflow("cannot subtract infinite dates")

    def __str__(self) -> str:
        return "infinity" if self.sign > 0 else "-infinity"

    def __repr__(self) -> str:
        return "DATE_INF" if self.sign > 0 else "DATE_NEG_INF"

    def __reduce__(self) -> tuple[Any, ...]:
        return (InfiniteDate, (self.sign,))

    def isoformat(self) -> str:
        return str(self)


DATE_INF = InfiniteDate(1)
DATE_NEG_INF = InfiniteDate(-1)
WORDS = {"infinity": DATE_INF, "-infinity": DATE_NEG_INF}


def infinite_date(v: dt.date) -> InfiniteDate | None:
    """The sentinel itself, or None for a real date."""
    return v if isinstance(v, InfiniteDate) else None
