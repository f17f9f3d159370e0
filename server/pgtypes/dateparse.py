"""Date/time input beyond ISO 8601: `03/04/2024`, `June 1, 2024`, `01-Jun-2024 10:30 PM`.

`text.py` parses the ISO forms (`2024-06-01 12:00:00+02`) with one regular
expression; this module is its fallback for the other forms PostgreSQL's
`DecodeDateTime` accepts, which CSV files and hand-written SQL are full of:

- numeric dates with `/`, `-` or `.` between fields, read in the session's
  DateStyle field order (MDY by default, DMY, YMD) unless the first field has
  three or more digits (then it is the year); `YYYYMMDD` and `YYMMDD`;
- month names and abbreviations in any position, weekday names (ignored);
- two-digit years as PostgreSQL reads them (below 70: 20xx, else 19xx);
- a clock with an optional `AM`/`PM`, a zone (`+05:30`, `EST`,
  `Europe/Madrid`), `AD`/`BC`.

Like the TimeZone, the DateStyle is published per session by the session
(`use_datestyle`), so casts read it without plumbing; `text.py` also uses its
output style, and the IntervalStyle published the same way. Per session means a
context variable: a thread's own on the threaded front end, a greenlet's own on
the event loop, where sessions share the thread and one may run while another
is parked mid-statement (a thread-local leaked one session's styles into the
other's output).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from contextvars import ContextVar

_ORDER: ContextVar[str] = ContextVar("datestyle_order", default="MDY")
_STYLE: ContextVar[str] = ContextVar("datestyle_style", default="ISO")
_INTERVAL: ContextVar[str] = ContextVar("intervalstyle", default="postgres")

MONTHS = {m: i + 1 for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_MONTH_WORDS = {**MONTHS, "january": 1, "february": 2, "march": 3, "april": 4, "june": 6,
                "july": 7, "august": 8, "september": 9, "sept": 9, "october": 10,
                "november": 11, "december": 12}
_WEEKDAYS = {"sun", "mon", "tue", "tues", "wed", "wednes", "thu", "thur", "thurs", "fri", "sat",
             "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
_CLOCK = re.compile(r"(?<![\d.])(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
                    r"(?:\s*([ap])\.?m\.?(?![a-z]))?", re.I)
_OFFSET = re.compile(r"\s*(?:GMT|UTC)?([+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?)\s*$", re.I)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z_/]*[A-Za-z_]|[A-Za-z]|\d+")


def date_order() -> str:
    """The DateStyle field order of the session this thread serves: MDY, DMY or YMD."""
    return _ORDER.get()


def date_style() -> str:
    """The DateStyle output style of the session this thread serves: ISO, SQL, Postgres, German."""
    return _STYLE.get()


def interval_style() -> str:
    """The IntervalStyle of the session this thread serves (postgres, iso_8601, ...)."""
    return _INTERVAL.get()


def use_intervalstyle(value: str) -> None:
    """Publishes a session's IntervalStyle to this thread."""
    _INTERVAL.set(value)


def use_datestyle(value: str) -> None:
    """Publishes a session's DateStyle (`ISO, MDY` as Settings keeps it) to this thread."""
    style, _, order = value.partition(", ")
    _STYLE.set(style or "ISO")
    _ORDER.set(order or "MDY")


class NotADate(ValueError):
    """The text has no date/time shape this module knows."""


def parse_loose(s: str) -> tuple[dt.datetime, str | None, bool]:
    """Reads a non-ISO date/time: (naive value, zone text or None, is BC).

    Raises NotADate when the text has no recognisable shape and ValueError when
    a field is out of range (callers turn these into 22007 / 22008).
    """
    text = s.strip()
    hh = mi = ss = us = 0
    m = _CLOCK.search(text)
    if m:
        hh, mi, ss = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        frac = m.group(4)
        us = round(int(frac[:7].ljust(7, "0")) / 10) if frac else 0
        if m.group(5):
            if not 1 <= hh <= 12:
                raise ValueError("hour out of range for AM/PM")
            hh = hh % 12 + (12 if m.group(5).lower() == "p" else 0)
        text = text[:m.start()] + " " + text[m.end():]
    zone = None
    if m:  # an offset only after a clock: `2024-06-01` ends in -01 otherwise
        z = _OFFSET.search(text[m.start():])
        if z:
            zone = z.group(1)
            text = text[:m.start() + z.start()]
    bc = False
    month = None
    nums: list[str] = []
    for tok in _TOKEN.findall(text):
        low = tok.lower()
        if tok.isdigit():
            nums.append(tok)
        elif low in _MONTH_WORDS and month is None:
            month = _MONTH_WORDS[low]
        elif low in _WEEKDAYS or low == "ad" or low == "t":
            continue
        elif low == "bc":
            bc = True
        elif zone is None and m is not None:
            zone = tok
        else:
            raise NotADate(s)
    y, mo, d = _date_fields(nums, month, s, bc)
    return dt.datetime(y, mo, d, hh, mi, ss) + dt.timedelta(microseconds=us), zone, bc


def _date_fields(nums: list[str], month: int | None, s: str, bc: bool = False
                 ) -> tuple[int, int, int]:
    """(year, month, day) of the numbers; a BC year is as written (PostgreSQL widens a
    two-digit year to 19xx/20xx only in AD)."""
    year_of: Callable[[str], int] = _year_ad if not bc else int
    if month is not None:
        if len(nums) != 2:
            raise NotADate(s)
        a, b = nums
        if len(a) >= 3 or int(a) > 31:
            return year_of(a), month, int(b)
        return year_of(b), month, int(a)
    if len(nums) == 1 and len(nums[0]) in (6, 8):
        n = nums[0]
        return year_of(n[:-4]), int(n[-4:-2]), int(n[-2:])
    if len(nums) != 3:
        raise NotADate(s)
    a, b, c = nums
    if len(a) >= 3:
        return year_of(a), int(b), int(c)
    order = date_order()
    if order == "DMY":
        return year_of(c), int(b), int(a)
    if order == "YMD":
        return year_of(a), int(b), int(c)
    return year_of(c), int(a), int(b)


def _year_ad(t: str) -> int:
    y = int(t)
    if len(t) <= 2:
        return y + (2000 if y < 70 else 1900)
    return y
