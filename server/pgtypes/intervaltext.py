"""Interval text input and output in PostgreSQL 15's four IntervalStyles.

Output follows `EncodeInterval` (datetime.c) branch by branch, since clients
parse these strings: psycopg reads `1 year 2 mons 3 days 04:05:06`, JDBC's
PGInterval reads the same plus `@ ... ago`, and dumps round-trip through them.

Input follows `DecodeInterval` / `DecodeISO8601Interval`: the string is cut
into fields (numbers, `h:m:s` clocks, `Y-M` year-months, unit words), then
read *right to left*, so a unit word names the number before it and a bare
number before a clock is a day count (`1 2:03` is 1 day 02:03:00). Fractions
cascade downwards only: `1.5 years` is 1 year 6 mons, `1.5 mons` is 1 mon 15
days, `1.5 days` is 1 day 12:00:00. In the sql_standard style a leading `-`
applies to every field when no other field has a sign.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..errors import DatetimeFieldOverflow, IntervalFieldOverflow, InvalidDatetimeFormat
from . import dateparse
from .interval import (
    DAY,
    FULL_RANGE,
    HOUR,
    MINUTE,
    MONTH,
    RANGE_NAMES,
    SECOND,
    USECS_PER_DAY,
    USECS_PER_HOUR,
    USECS_PER_MINUTE,
    USECS_PER_SEC,
    YEAR,
    Interval,
    adjust,
    fields,
    format_postgres,
    plural,
    seconds_text,
    typmod_parts,
)

# -- output ------------------------------------------------------------------------------


def format_verbose(v: Any) -> str:
    """The `postgres_verbose` style: '@ 1 year 2 mons 3 days 4 hours 5 mins 6 secs ago'."""
    year, mon, mday, hour, mi, sec, fsec = fields(v)
    out = "@"
    is_zero, is_before = True, False
    for value, unit in ((year, "year"), (mon, "mon"), (mday, "day"), (hour, "hour"),
                        (mi, "min")):
        if not value:
            continue
        if is_zero:
            is_before = value < 0
            value = abs(value)
        elif is_before:
            value = -value
        out += f" {value} {unit}{plural(value)}"
        is_zero = False
    if sec or fsec:
        out += " "
        if sec < 0 or (sec == 0 and fsec < 0):
            if is_zero:
                is_before = True
            elif not is_before:
                out += "-"
        elif is_before:
            out += "-"
        out += seconds_text(sec, fsec, False) + f" sec{'s' if abs(sec) != 1 or fsec else ''}"
        is_zero = False
    if is_zero:
        out += " 0"
    return out + " ago" if is_before else out


def format_sql_standard(v: Any) -> str:
    """The `sql_standard` style: '1-2', '3 4:05:06', or '+1-2 -3 +4:05:06' when signs mix."""
    year, mon, mday, hour, mi, sec, fsec = fields(v)
    vals = (year, mon, mday, hour, mi, sec, fsec)
    has_neg = any(x < 0 for x in vals)
    has_pos = any(x > 0 for x in vals)
    has_ym = bool(year or mon)
    has_dt = bool(mday or hour or mi or sec or fsec)
    standard = not (has_neg and has_pos) and not (has_ym and has_dt)
    if not has_neg and not has_pos:
        return "0"
    if not standard:
        ys = "-" if year < 0 or mon < 0 else "+"
        ds = "-" if mday < 0 else "+"
        ts = "-" if hour < 0 or mi < 0 or sec < 0 or fsec < 0 else "+"
        return (f"{ys}{abs(year)}-{abs(mon)} {ds}{abs(mday)} {ts}{abs(hour)}:{abs(mi):02d}:"
                f"{seconds_text(sec, fsec, True)}")
    prefix = "-" if has_neg else ""
    if has_ym:
        return f"{prefix}{abs(year)}-{abs(mon)}"
    clock = f"{abs(hour)}:{abs(mi):02d}:{seconds_text(sec, fsec, True)}"
    return f"{prefix}{abs(mday)} {clock}" if mday else prefix + clock


def format_iso_8601(v: Any) -> str:
    """The `iso_8601` style: 'P1Y2M3DT4H5M6S'."""
    year, mon, mday, hour, mi, sec, fsec = fields(v)
    if not (year or mon or mday or hour or mi or sec or fsec):
        return "PT0S"
    out = "P" + "".join(f"{n}{u}" for n, u in ((year, "Y"), (mon, "M"), (mday, "D")) if n)
    if hour or mi or sec or fsec:
        out += "T" + "".join(f"{n}{u}" for n, u in ((hour, "H"), (mi, "M")) if n)
        if sec or fsec:
            out += ("-" if sec < 0 or fsec < 0 else "") + seconds_text(sec, fsec, False) + "S"
    return out


STYLES = {"postgres": format_postgres, "postgres_verbose": format_verbose,
          "sql_standard": format_sql_standard, "iso_8601": format_iso_8601}

# -- input -------------------------------------------------------------------------------

_UNITS: dict[str, str] = {}
for _names, _kind in (
    ("c cent centuries century", "century"), ("d day days", "day"),
    ("dec decade decades decs", "decade"), ("h hour hours hr hrs", "hour"),
    ("m min mins minute minutes", "minute"), ("microsecon us usec usecs useconds", "us"),
    ("mil millennia millennium mils", "millennium"),
    ("millisecon ms msec msecs mseconds", "ms"), ("mon mons month months", "month"),
    ("s sec secs second seconds", "second"), ("w week weeks", "week"),
    ("y year years yr yrs", "year"),
):
    for _n in _names.split():
        _UNITS[_n] = _kind
_USECS = {"us": 1, "ms": 1000, "second": USECS_PER_SEC, "minute": USECS_PER_MINUTE,
          "hour": USECS_PER_HOUR}
_YEARS = {"year": 1, "decade": 10, "century": 100, "millennium": 1000}

# One field of ParseDateTime: a signed number/clock/year-month, a word, or ignored punctuation.
_FIELD = re.compile(
    r"\s*(?:(?P<signed>[+-]\s*[\d.:-]*)|(?P<num>\d[\d.:-]*|\.\d*)|(?P<word>[a-z]+)"
    r"|(?P<punct>[^\w\s]))",
)
_RANGE_UNIT = {
    YEAR: "year", MONTH: "month", YEAR | MONTH: "month", DAY: "day", HOUR: "hour",
    DAY | HOUR: "hour", MINUTE: "minute", HOUR | MINUTE: "minute", DAY | HOUR | MINUTE: "minute",
}


class _Bad(Exception):
    """DecodeInterval's DTERR_BAD_FORMAT."""


class _Range(Exception):
    """DecodeInterval's DTERR_FIELD_OVERFLOW."""


class _Acc:
    """Accumulates months, days and microseconds (pg_itm_in)."""

    __slots__ = ("months", "days", "usec")

    def __init__(self) -> None:
        self.months = self.days = self.usec = 0

    def fract_usec(self, frac: float, scale: int) -> None:
        if frac:
            frac *= scale
            whole = int(frac)
            self.usec += whole + round(frac - whole)

    def fract_days(self, frac: float, scale: int) -> None:
        if frac:
            frac *= scale
            extra = int(frac)
            self.days += extra
            self.fract_usec(frac - extra, USECS_PER_DAY)

    def add(self, kind: str, val: int, fval: float) -> None:
        if kind in _USECS:
            self.usec += val * _USECS[kind]
            self.fract_usec(fval, _USECS[kind])
        elif kind == "day":
            self.days += val
            self.fract_usec(fval, USECS_PER_DAY)
        elif kind == "week":
            self.days += val * 7
            self.fract_days(fval, 7)
        elif kind == "month":
            self.months += val
            self.fract_days(fval, 30)
        elif kind in _YEARS:
            self.months += val * 12 * _YEARS[kind]
            self.months += int(round(fval * _YEARS[kind] * 12))
        else:
            raise _Bad


def _split_number(text: str) -> tuple[int, float, int | None]:
    """(integer part, signed fraction, months of a `Y-M` field or None) of a numeric field."""
    t = text.replace(" ", "")
    neg = t.startswith("-")
    body = t.lstrip("+-")
    m = re.fullmatch(r"(\d*)(?:-(\d+)|(\.\d*))?", body)
    if not m or (not m.group(1) and not m.group(3)):
        raise _Bad
    val = int(m.group(1) or 0)
    val = -val if neg else val
    if not -(1 << 31) <= val < 1 << 31:
        raise _Range
    if m.group(2) is not None:
        mon = int(m.group(2))
        if mon >= 12:
            raise _Range
        return 0, 0.0, val * 12 + (-mon if neg else mon)
    frac = float("0" + m.group(3)) if m.group(3) and m.group(3) != "." else 0.0
    return val, -frac if neg else frac, None


def _clock(text: str, rng: int) -> int:
    """Microseconds of an unsigned 'h:m', 'h:m:s[.f]' or 'm:s.f' clock field (DecodeTime)."""
    m = re.fullmatch(r"(\d+):(\d+)(?:(\.\d*)|:(\d+)(\.\d*)?)?", text)
    if not m:
        raise _Bad
    h, mi = int(m.group(1)), int(m.group(2))
    sec, frac = 0, 0.0
    if m.group(3) is not None:  # mm:ss.fff
        h, mi, sec, frac = 0, h, mi, float("0" + m.group(3))
    elif m.group(4) is not None:
        sec = int(m.group(4))
        frac = float("0" + m.group(5)) if m.group(5) else 0.0
    elif rng == MINUTE | SECOND:
        h, mi, sec = 0, h, mi
    if mi > 59 or sec > 60:
        raise _Range
    return (h * 3600 + mi * 60 + sec) * USECS_PER_SEC + round(frac * USECS_PER_SEC)


def _fields_of(s: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos, t = 0, s.lower()
    while pos < len(t):
        if t[pos:].strip() == "":
            break
        m = _FIELD.match(t, pos)
        if not m or m.end() == pos:
            raise _Bad
        pos = m.end()
        kind = m.lastgroup or ""
        if kind != "punct":
            out.append((kind, m.group(kind).strip()))
    return out


def _decode(s: str, rng: int, style: str) -> Interval:
    fields = _fields_of(s)
    if fields and fields[0] == ("signed", "-"):
        raise _Bad
    force_neg = (style == "sql_standard" and bool(fields) and fields[0][1].startswith("-")
                 and not any(f[1][:1] in "+-" for f in fields[1:] if f[0] == "signed"))
    acc = _Acc()
    kind = ""  # the unit of the number to the left (read right to left)
    seen: set[str] = set()
    ago = False

    def mark(tag: str) -> None:
        if tag in seen:
            raise _Bad
        seen.add(tag)

    for ftype, text in reversed(fields):
        if ftype == "word":
            unit = _UNITS.get(text[:10])
            if text == "ago":
                ago = True
                continue
            if unit is None:
                raise _Bad
            kind = unit
            continue
        body = text.lstrip("+-").strip()
        if ":" in body:
            usec = _clock(body, rng)
            if text.startswith("-"):
                usec = -usec
            if force_neg and usec > 0:
                usec = -usec
            for tag in ("hour", "minute", "second"):
                mark(tag)
            acc.usec += usec
            kind = "day"
            continue
        if not kind:
            kind = _RANGE_UNIT.get(rng, "second")
        val, fval, months = _split_number(text)
        if months is not None:
            if force_neg and months > 0:
                months = -months
            mark("month")
            acc.months += months
            continue
        if force_neg:
            val, fval = -abs(val), -abs(fval)
        mark(kind)
        if kind == "second" and fval:
            mark("ms")
            mark("us")
        acc.add(kind, val, fval)
        if kind == "hour":
            kind = "day"
    if not seen:
        raise _Bad
    months, days, usec = acc.months, acc.days, acc.usec
    if ago:
        months, days, usec = -months, -days, -usec
    return Interval(months, days, usec)


_ISO_PART = re.compile(r"([+-]?\d*\.?\d*)([YMWDHS])")


def _decode_iso(s: str) -> Interval:
    """DecodeISO8601Interval: 'P1Y2M3DT4H5M6S' (signed, fractional parts), 'P0001-02-03T04:05:06'.

    NB: case matters, as in PostgreSQL: 'p1d' is not ISO 8601.
    """
    body = s[1:]
    alt = re.fullmatch(r"(\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):?(\d{2}):?(\d{2}(?:\.\d*)?))?", body)
    if alt:
        y, mo, d = int(alt.group(1)), int(alt.group(2)), int(alt.group(3))
        usec = 0
        if alt.group(4):
            usec = (int(alt.group(4)) * 3600 + int(alt.group(5)) * 60) * USECS_PER_SEC
            usec += round(float(alt.group(6)) * USECS_PER_SEC)
        return Interval(y * 12 + mo, d, usec)
    date_part, has_t, time_part = body.partition("T")
    if not body:
        raise _Bad
    acc = _Acc()
    for part, units in ((date_part, {"Y": "year", "M": "month", "W": "week", "D": "day"}),
                        (time_part, {"H": "hour", "M": "minute", "S": "second"})):
        rest = part
        while rest:
            m = re.match(r"([+-]?(?:\d+\.?\d*|\.\d+))([A-Z])", rest)
            if not m or m.group(2) not in units:
                raise _Bad
            val, fval, _ = _split_number(m.group(1))
            acc.add(units[m.group(2)], val, fval)
            rest = rest[m.end():]
    return Interval(acc.months, acc.days, acc.usec)


def parse_interval(s: str, mod: int = -1, style: str | None = None) -> Interval:
    """Parses interval input text in any style, then applies the typmod (interval_in)."""
    if style is None:

        style = dateparse.interval_style()
    return _parse(str(s), mod, style)


@functools.lru_cache(maxsize=4096)
def _parse(s: str, mod: int, style: str) -> Interval:
    """parse_interval, cached: values are immutable and the same texts recur (parameters, COPY)."""
    t = s.strip()
    rng, _ = typmod_parts(mod)
    try:
        if t[:1] == "P":
            iv = _decode_iso(str(s).rstrip() if str(s)[:1] == "P" else "")
        else:
            iv = _decode(t, rng, style)
    except _Bad:
        raise InvalidDatetimeFormat(f'invalid input syntax for type interval: "{s}"') from None
    except (_Range, OverflowError, ValueError):
        raise IntervalFieldOverflow(f'interval field value out of range: "{s}"') from None
    except DatetimeFieldOverflow:
        raise
    return adjust(iv, mod) if mod >= 0 else iv


def typmod_text(mod: int) -> str:
    """The typmod's text as format_type prints it: ' year to month', '(3)', ' day to second(2)'."""

    rng, prec = typmod_parts(mod)
    out = "" if rng == FULL_RANGE else " " + RANGE_NAMES.get(rng, "")
    if prec != 0xFFFF and (rng == FULL_RANGE or rng & SECOND):
        out += f"({prec})"
    return out

