"""Arrow columns of dates and timestamps BC or after 9999 (`pgtypes.fardate`).

Arrow counts a date32 in days and a timestamp in microseconds from 1970-01-01, so it
holds most of PostgreSQL's range (every date; timestamps up to 294247 AD, where
int64 microseconds from 1970 end), while Python's date and datetime stop at years 1
and 9999. Going out, a far value becomes Arrow's integer (pyarrow takes integers and
dates in one list); coming in, a column whose integers leave Python's range is read
as far values. A timestamp Arrow cannot hold is 22008, as PostgreSQL's range errors.

>>> import datetime as dt
>>> arrow_int(date_of_days(-746117)), arrow_int(ts_of_us(252455616000000000, dt.UTC))
(-735160, 253402300800000000)
>>> values_of(pa.array([-735160, 0, None], pa.date32()), pa.date32())
[FarDate(-746117), datetime.date(1970, 1, 1), None]
>>> values_of(pa.array([0], pa.date32()), pa.date32()) is None
True
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...errors import DatetimeFieldOverflow
from ...pgtypes.fardate import FarDate, FarTimestamp, date_of_days, ts_of_us, utc_us_of

_DAYS_1970 = 10957  # 2000-01-01 - 1970-01-01, in days
_US_1970 = _DAYS_1970 * 86_400_000_000
_I64 = (-(1 << 63), (1 << 63) - 1)
# Python's own range, in Arrow's integers (days / microseconds from 1970-01-01)
_REAL_DAYS = (dt.date.min.toordinal() - dt.date(1970, 1, 1).toordinal(),
              dt.date.max.toordinal() - dt.date(1970, 1, 1).toordinal())
_REAL_US = (_REAL_DAYS[0] * 86_400_000_000, (_REAL_DAYS[1] + 1) * 86_400_000_000 - 1)


def arrow_int(v: FarDate | FarTimestamp) -> int:
    """A far value as Arrow's integer: days (date32) or microseconds (timestamp) from 1970."""
    if isinstance(v, FarDate):
        return v.days + _DAYS_1970
    us = (utc_us_of(v) if v.tzinfo is not None else v.us) + _US_1970
    if not _I64[0] <= us <= _I64[1]:
        raise DatetimeFieldOverflow(f'timestamp out of range for Arrow: "{v}"')
    return us


def values_of(col: pa.Array | pa.ChunkedArray, want: pa.DataType) -> list[Any] | None:
    """A date32 or timestamp column as stored values when some leave Python's range
    (None: every value fits, the caller's usual conversion applies)."""
    ints = col.cast(pa.int32() if pa.types.is_date32(want) else pa.int64())
    mm = pc.min_max(ints).as_py()
    lo, hi = (_REAL_DAYS if pa.types.is_date32(want) else _REAL_US)
    if mm["min"] is None or (lo <= mm["min"] and mm["max"] <= hi):
        return None
    if pa.types.is_date32(want):
        return [None if n is None else date_of_days(n - _DAYS_1970) for n in ints.to_pylist()]
    tz = dt.UTC if want.tz is not None else None
    return [None if n is None else ts_of_us(n - _US_1970, tz) for n in ints.to_pylist()]
