"""The proleptic Gregorian calendar on day counts from 2000-01-01, PostgreSQL's day 0.

PostgreSQL computes dates from its integer day count with astronomical years (year 0
is 1 BC, -43 is 44 BC) over its whole range, 4714-11-24 BC to 5874897-12-31, where
Python's date stops at years 1 and 9999. These are the conversions `fardate` and the
date functions use for the years Python cannot hold (Howard Hinnant's civil_from_days
and days_from_civil); `pg_year` is the year PostgreSQL prints and extracts.

>>> civil_of_days(0), civil_of_days(-746117), days_of_civil(-43, 3, 15), pg_year(-43)
((2000, 1, 1), (-43, 3, 15), -746117, -44)
>>> iso_calendar(0), day_of_year(-746117), valid_ymd(-43, 2, 29), valid_ymd(-44, 2, 29)
((1999, 52, 6), 74, False, True)
"""

from __future__ import annotations


def civil_of_days(days: int) -> tuple[int, int, int]:
    """(astronomical year, month, day) of a day count from 2000-01-01, proleptic Gregorian
    (Howard Hinnant's civil_from_days)."""
    z = days + 730425  # days since 0000-03-01
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def days_of_civil(y: int, m: int, d: int) -> int:
    """Days from 2000-01-01 of an astronomical year, month and day (no validation)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 730425


def days_in_month(y: int, m: int) -> int:
    if m == 2:
        return 29 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def day_of_year(days: int) -> int:
    """1..366: the day of its year of a day count from 2000-01-01."""
    return days - days_of_civil(civil_of_days(days)[0], 1, 1) + 1


def iso_calendar(days: int) -> tuple[int, int, int]:
    """(ISO year (astronomical), ISO week, ISO weekday) of a day count from 2000-01-01."""
    wd = (days + 5) % 7 + 1
    thursday = days - wd + 4
    y = civil_of_days(thursday)[0]
    return y, (thursday - days_of_civil(y, 1, 1)) // 7 + 1, wd


def pg_year(y: int) -> int:
    """The year PostgreSQL prints and extracts for an astronomical year: no year 0."""
    return y if y > 0 else y - 1


def valid_ymd(y: int, m: int, d: int) -> bool:
    return 1 <= m <= 12 and 1 <= d <= days_in_month(y, m)
