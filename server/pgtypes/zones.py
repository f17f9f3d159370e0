"""Time zones: PostgreSQL's TimeZone setting, zone names in SQL, and local-time arithmetic.

A timestamptz is stored and computed as an aware `datetime` in UTC; only the edges
see the session's TimeZone: text output and input, casts to and from timestamp,
date and time, and the functions that work on local fields (date_trunc, extract,
to_char, AT TIME ZONE). Those edges get the zone from here:

- `parse_setting(value)` reads a TimeZone value as PostgreSQL's `check_timezone`
  does (a zone name in any case, a number of hours east, `INTERVAL '+05:30'`, a
  POSIX `<+05:30>-05:30` / `FOO+3`) and returns the name SHOW prints with its
  tzinfo. Results are cached per value, so a zone is looked up once per setting,
  never per row.
- `session_zone()` is the zone of the session the current thread serves. Every
  pgwire connection runs its session in a thread of its own, so the session
  publishes its zone with `use()` when the setting changes and before each
  statement, and compiled casts read it at run time without any plumbing.
- `named_zone(text)` resolves a zone written in SQL (`AT TIME ZONE 'EST'`,
  `'... Europe/Madrid'::timestamptz`): abbreviations first, then zone names,
  then POSIX offsets (`'+05'` is five hours *west*, the POSIX sign).
- `to_utc(naive, tz)` turns wall-clock time into an instant with PostgreSQL's
  rule for DST transitions: a time in a spring-forward gap or a fall-back overlap
  takes the later of its two candidate instants.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
from contextvars import ContextVar
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from ..errors import InvalidParameterValue, SQLError
from .fardate import FarTimestamp, far_to_utc, ts_of_us, us_of, utc_us_of
from .infdate import InfiniteTimestamp

UTC = dt.UTC
# The session's zone: a context variable, so each thread (threaded front end) and each
# session greenlet (event loop, where a parked session's zone must survive the others' runs)
# has its own.
_ZONE: ContextVar[dt.tzinfo] = ContextVar("timezone", default=UTC)
_ONE_US = dt.timedelta(microseconds=1)
TZNAMES_DEFAULT = "/usr/share/postgresql/15/timezonesets/Default"


def session_zone() -> dt.tzinfo:
    """Returns the TimeZone of the session this thread serves (UTC if none was set)."""
    return _ZONE.get()


def use(tz: dt.tzinfo) -> None:
    """Makes `tz` the calling session's zone."""
    _ZONE.set(tz)


# -- the TimeZone setting ---------------------------------------------------------------------


def fixed_name(east: int) -> str:
    """Names a fixed offset (seconds east of UTC) as PostgreSQL does: `<+05:30>-05:30`."""
    a = abs(east)
    s = f"{a // 3600:02d}"
    if a % 3600:
        s += f":{a % 3600 // 60:02d}"
        if a % 60:
            s += f":{a % 60:02d}"
    return f"<-{s}>+{s}" if east < 0 else f"<+{s}>-{s}"


def fixed(east: int, abbrev: str | None = None) -> dt.tzinfo:
    """A tzinfo for a fixed offset in seconds east of UTC (tzname: `abbrev`, else `+05:30`)."""
    return dt.timezone(dt.timedelta(seconds=east), abbrev or fixed_name(east)[1:].split(">")[0])


@functools.lru_cache(maxsize=1)
def _by_lower_name() -> dict[str, str]:
    return {n.lower(): n for n in available_timezones()}


def zone_by_name(name: str) -> tuple[str, dt.tzinfo] | None:
    """Finds an IANA zone by name in any case: (its canonical spelling, tzinfo), or None."""
    if not name or name.startswith(("/", ".")) or ".." in name:
        return None
    try:
        return name, ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        pass
    canon = _by_lower_name().get(name.lower())
    if canon is None:
        return None
    return canon, ZoneInfo(canon)


_POSIX = re.compile(r"(<[+-]?[A-Za-z0-9:]+>|[A-Za-z]{3,})([+-]?)(\d{1,2})(?::(\d\d)(?::(\d\d))?)?")


def _posix(text: str) -> dt.tzinfo | None:
    """A POSIX TZ string without DST rules ('FOO+3', '<+05:30>-05:30'): the std offset."""
    m = _POSIX.fullmatch(text)
    if m is None:
        return None
    west = int(m.group(3)) * 3600 + int(m.group(4) or 0) * 60 + int(m.group(5) or 0)
    return fixed(west if m.group(2) == "-" else -west, m.group(1).strip("<>"))


def _invalid(value: str) -> SQLError:
    return InvalidParameterValue(f'invalid value for parameter "TimeZone": "{value}"')


_SETTINGS: dict[str, tuple[str, dt.tzinfo]] = {}
_UTC_NAMES = frozenset({"UTC", "Etc/UTC", "UCT", "Etc/UCT", "Zulu", "Etc/Zulu", "Universal",
                        "Etc/Universal"})


def parse_setting(value: str) -> tuple[str, dt.tzinfo]:
    """Reads a TimeZone value: (the name SHOW prints, tzinfo); 22023 if PostgreSQL rejects it."""
    hit = _SETTINGS.get(value)
    if hit is None:
        hit = _parse_setting(value)
        if len(_SETTINGS) > 1000:
            _SETTINGS.clear()
        _SETTINGS[value] = hit
    return hit


def _parse_setting(value: str) -> tuple[str, dt.tzinfo]:
    v = value.strip()
    if v[:8].lower() == "interval":
        from .text import parse_interval  # NB: text.py imports this module

        m = re.fullmatch(r"interval\s*'([^']*)'(.*)", v, re.I | re.S)
        if m is None:
            raise _invalid(value)
        try:
            text, unit = m.group(1).strip(), _interval_unit(m.group(2))
            if unit and re.fullmatch(r"[+-]?\d+(?:\.\d*)?", text):
                text = f"{text} {unit}"  # INTERVAL '5' HOUR
            iv = parse_interval(text)
        except Exception:
            raise _invalid(value) from None
        if abs(iv) >= dt.timedelta(days=1):
            raise InvalidParameterValue(f'invalid value for parameter "TimeZone": "{value}"',
                                        detail="Cannot specify days in time zone interval.")
        east = int(iv.total_seconds())
        return fixed_name(east), fixed(east)
    try:
        hours = float(v)
    except ValueError:
        hours = None
    if hours is not None and v.lower().lstrip("+-") not in ("nan", "inf", "infinity"):
        east = round(hours * 3600)
        if abs(east) >= 24 * 3600:  # NB: PostgreSQL takes up to 167:59; Python's tzinfo < 24 h
            raise _invalid(value)
        return fixed_name(east), fixed(east)
    named = zone_by_name(v)
    if named is not None:
        return named[0], UTC if named[0] in _UTC_NAMES else named[1]
    tz = _posix(v)
    if tz is not None:
        return v, tz
    m = _BARE_POSIX.fullmatch(v)
    if m is not None:  # '+02:00': POSIX without a name, so west of Greenwich (UTC-2), named ''
        if m.group(4) and int(m.group(4)):
            raise InvalidParameterValue(f'time zone "{v}" appears to use leap seconds',
                                        detail="PostgreSQL does not support leap seconds.")
        west = int(m.group(2)) * 3600 + int(m.group(3)) * 60
        if west >= 24 * 3600:
            raise _invalid(value)
        return v, dt.timezone(dt.timedelta(seconds=-west if m.group(1) != "-" else west), "")
    raise _invalid(value)


_BARE_POSIX = re.compile(r"([+-]?)(\d{1,3}):(\d\d)(?::(\d\d))?")


def _interval_unit(qualifier: str) -> str:
    """The unit a bare number counts after an interval literal (`HOUR`; `HOUR TO MINUTE`: minutes)."""
    q = qualifier.strip().lower()
    return q.split()[-1] if q else ""


# -- zones written in SQL -----------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def abbreviations() -> dict[str, tuple[int, bool]]:
    """PostgreSQL's Default abbreviation set: {ABBREV: (seconds east, is_dst)}."""
    out: dict[str, tuple[int, bool]] = {}
    links: dict[str, str] = {}
    if os.path.exists(TZNAMES_DEFAULT):
        for line in open(TZNAMES_DEFAULT, encoding="utf-8"):
            parts = line.split("#", 1)[0].split()
            if len(parts) >= 2 and not parts[0].startswith("@"):
                if parts[1].lstrip("+-").isdigit():
                    out[parts[0].upper()] = (int(parts[1]), len(parts) > 2 and parts[2] == "D")
                else:
                    links[parts[0].upper()] = parts[1]
    else:  # without the PostgreSQL share files: the common ones
        for ab, off, dst in (("UTC", 0, False), ("GMT", 0, False), ("Z", 0, False),
                             ("EST", -18000, False), ("EDT", -14400, True),
                             ("CST", -21600, False), ("CDT", -18000, True),
                             ("MST", -25200, False), ("MDT", -21600, True),
                             ("PST", -28800, False), ("PDT", -25200, True),
                             ("CET", 3600, False), ("CEST", 7200, True),
                             ("EET", 7200, False), ("EEST", 10800, True),
                             ("WET", 0, False), ("WEST", 3600, True), ("BST", 3600, True),
                             ("JST", 32400, False), ("IST", 7200, False)):
            out[ab] = (off, dst)
    _dynamic.update(links)
    return out


_dynamic: dict[str, str] = {}  # abbreviations whose offset depends on the date (MSK -> zone)


def dynamic_abbreviations() -> dict[str, str]:
    """Abbreviations defined by a zone, whose offset depends on the date: {ABBREV: zone}."""
    abbreviations()
    return dict(_dynamic)


@functools.lru_cache(maxsize=256)
def named_zone(name: str) -> dt.tzinfo | None:
    """Resolves a zone written in SQL: abbreviation, zone name, then POSIX offset; or None."""
    text = name.strip()
    up = text.upper()
    ab = abbreviations().get(up)
    if ab is not None:
        return fixed(ab[0], up)
    if up in _dynamic:
        hit = zone_by_name(_dynamic[up])
        if hit is not None:
            return hit[1]
    hit = zone_by_name(text)
    if hit is not None:
        return hit[1]
    m = re.fullmatch(r"([+-]?)(\d{1,2})(?::?(\d\d))?(?::(\d\d))?", text)
    if m:  # NB: POSIX sign: '+05' is five hours west of Greenwich
        west = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60 + int(m.group(4) or 0)
        return fixed(west if m.group(1) == "-" else -west)
    return _posix(text)


def zone_arg(name: str) -> dt.tzinfo:
    """A zone given to a function (AT TIME ZONE, date_trunc): 22023 if unknown."""
    tz = named_zone(name)
    if tz is None:
        raise InvalidParameterValue(f'time zone "{name}" not recognized')
    return tz


def interval_zone(iv: dt.timedelta) -> dt.tzinfo:
    """`AT TIME ZONE INTERVAL '+05:30'`: a fixed zone that many seconds east (ISO sign)."""
    if abs(iv) >= dt.timedelta(days=1):
        raise InvalidParameterValue(
            f'interval time zone "{iv}" must not include months or days')
    return fixed(int(iv.total_seconds()))


# -- local time ---------------------------------------------------------------------------------


_EPOCH, _EPOCH_UTC = dt.datetime(1970, 1, 1), dt.datetime(1970, 1, 1, tzinfo=UTC)
_DAY = dt.timedelta(days=1)
_STEADY: dict[tuple[dt.tzinfo, int], bool] = {}  # (zone, day): no offset change within a day


def _steady(tz: dt.tzinfo, naive: dt.datetime) -> bool:
    """True when `tz` keeps one offset from a day before `naive` to a day after (cached)."""
    key = (tz, naive.toordinal())
    hit = _STEADY.get(key)
    if hit is None:
        try:
            hit = tz.utcoffset(naive - _DAY) == tz.utcoffset(naive) == tz.utcoffset(naive + _DAY)
        except OverflowError:
            hit = False
        if len(_STEADY) > 100_000:
            _STEADY.clear()
        _STEADY[key] = hit
    return hit


def to_utc(naive: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """Returns the instant at which clocks in `tz` show `naive`, as an aware UTC datetime.

    A wall time that does not exist (spring-forward gap) or exists twice (fall-back
    overlap) takes the smaller of the two offsets, which is PostgreSQL's choice:
    the time before a gap, the time after an overlap. (An aware `naive` counts by its
    wall-clock fields only.)
    """
    if type(naive) is InfiniteTimestamp:
        return naive.replace(tzinfo=UTC)  # the infinities stay infinite
    if type(naive) is FarTimestamp:  # BC or after 9999 (pgtypes.fardate)
        return far_to_utc(naive, tz)
    if naive.tzinfo is not None:
        naive = dt.datetime(naive.year, naive.month, naive.day, naive.hour, naive.minute,
                            naive.second, naive.microsecond)
    off = tz.utcoffset(naive) if tz is not UTC else None  # NB: ZoneInfo reads the fields only
    if off is not None and isinstance(tz, ZoneInfo) and not _steady(tz, naive):
        off1 = tz.utcoffset(naive.replace(fold=1))
        if off1 is not None and off1 < off:
            off = off1
    try:
        return _EPOCH_UTC + (naive - _EPOCH - (off or dt.timedelta(0)))
    except OverflowError:  # NB: just past year 1 or 9999 in UTC: a far timestamp
        return ts_of_us(us_of(naive) - (off or dt.timedelta(0)) // _ONE_US, UTC)


def to_local(v: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """Returns a timestamptz as an aware datetime on the clocks of `tz` (22008 if out of range)."""
    if v.tzinfo is None:
        v = v.replace(tzinfo=UTC)
    try:
        return v.astimezone(tz)
    except OverflowError:  # NB: the local clock is past year 1 or 9999: a far timestamp
        return FarTimestamp(utc_us_of(v), UTC).astimezone(tz)


def wall_clock(v: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """timestamptz -> timestamp: the naive wall-clock time in `tz` (infinities stay infinite)."""
    if type(v) is InfiniteTimestamp:
        return v.replace(tzinfo=None)
    w = to_local(v, tz)
    if type(w) is FarTimestamp:
        return ts_of_us(w.us)
    return dt.datetime(w.year, w.month, w.day, w.hour, w.minute, w.second, w.microsecond)


def offset_seconds(v: Any) -> int:
    """The UTC offset of an aware datetime or time, in seconds east."""
    off = v.utcoffset()
    return int(off.total_seconds()) if off else 0
