"""to_char / to_date / to_timestamp: PostgreSQL's template patterns for dates and numbers.

Supported date patterns: YYYY YYY YY Y IYYY MM MONTH Month month MON Mon mon
DDD DD D ID DAY Day day DY Dy dy HH HH12 HH24 MI SS MS US AM PM am pm A.M. P.M.
Q WW IW J TZ tz OF, the FM prefix, the TH/th suffix, "quoted text" and \\
escapes. Number patterns: 9 0 . D , G S FM (and ### on overflow). Full month
and day names are padded to 9 characters unless FM is given, as in PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ...errors import (
    DatetimeFieldOverflow,
    InvalidDatetimeFormat,
    InvalidTextRepresentation,
    SyntaxError_,
)
from ...pgtypes import interval as ivl
from ...pgtypes import oids as T
from ...pgtypes import zones
from ...pgtypes.civil import civil_of_days, day_of_year, iso_calendar
from ...pgtypes.fardate import FarDate, FarTimestamp, ts_of_fields
from ...pgtypes.infdate import InfiniteDate, InfiniteTimestamp
from .registry import register
from .timefns import local, zone

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
_TOKENS = sorted([
    "HH24", "HH12", "HH", "MI", "SSSSS", "SSSS", "SS", "MS", "US", "A.M.", "P.M.", "a.m.",
    "p.m.", "AM", "PM", "am", "pm", "IYYY", "YYYY", "YYY", "YY", "Y", "MONTH", "Month", "month",
    "MON", "Mon", "mon", "MM", "DAY", "Day", "day", "DY", "Dy", "dy", "DDD", "DD", "D", "ID",
    "IW", "WW", "Q", "TZH", "TZM", "TZ", "tz", "OF", "J", "CC",
    "FF1", "FF2", "FF3", "FF4", "FF5", "FF6",
    "B.C.", "A.D.", "b.c.", "a.d.", "BC", "AD", "bc", "ad",
], key=len, reverse=True)


# Patterns PostgreSQL also accepts in lower case (names and AM/PM keep their case meaning).
_ERAS = frozenset(("B.C.", "A.D.", "BC", "AD"))  # NB: dates here are Python's: always AD
_CASELESS = [t for t in _TOKENS if t.isupper() and t.isalnum() and t not in (
    "MONTH", "MON", "DAY", "DY", "AM", "PM", "TZ")]


def _ordinal(n: int, upper: bool) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return suffix.upper() if upper else suffix


def _lex(fmt: str) -> list[tuple[str, str, bool, str]]:
    """Splits a template into (kind, token, fm, th) items; kind "lit" carries literal text."""
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == '"':
            j = fmt.find('"', i + 1)
            j = len(fmt) if j < 0 else j
            out.append(("lit", fmt[i + 1:j], False, ""))
            i = j + 1
            continue
        if fmt[i] == "\\" and i + 1 < len(fmt):
            out.append(("lit", fmt[i + 1], False, ""))
            i += 2
            continue
        fm = fmt.startswith("FM", i)
        j = i + 2 if fm else i
        tok = next((t for t in _TOKENS if fmt.startswith(t, j)), None)
        if tok is None:
            upper = next((t for t in _CASELESS if fmt[j:j + len(t)].upper() == t), None)
            tok = upper
        if tok is None:
            out.append(("lit", fmt[i:j] if fm and j > i else fmt[i], False, ""))
            i = j if fm and j > i else i + 1
            continue
        j += len(tok)
        th = fmt[j:j + 2] if fmt[j:j + 2] in ("TH", "th") else ""
        out.append(("tok", tok, fm, th))
        i = j + len(th)
    return out


_SIGNED_WIDTH = frozenset(("YYYY", "MM", "HH24", "MI", "SS", "CC"))


def _num(v: int, width: int, fm: bool) -> str:
    return str(v) if fm else str(v).zfill(width)


def _case(name: str, tok: str) -> str:
    if tok.isupper():
        return name.upper()
    return name.lower() if tok.islower() else name


def _field(tok: str, fm: bool, v: dt.datetime, iv: dt.timedelta | None) -> tuple[str, int | None]:
    """Returns the text of one pattern and, for numeric fields, its value (for TH)."""
    h24 = v.hour + (iv.days * 24 if iv is not None else 0)
    numeric = {
        "YYYY": (v.year, 4), "YYY": (v.year % 1000, 3), "YY": (v.year % 100, 2),
        "Y": (v.year % 10, 1), "IYYY": (v.isocalendar()[0], 4), "MM": (v.month, 2),
        "DDD": (v.timetuple().tm_yday, 3), "DD": (v.day, 2), "D": (v.isoweekday() % 7 + 1, 1),
        "ID": (v.isoweekday(), 1), "HH24": (h24, 2), "HH": ((v.hour + 11) % 12 + 1, 2),
        "HH12": ((v.hour + 11) % 12 + 1, 2), "MI": (v.minute, 2), "SS": (v.second, 2),
        "MS": (v.microsecond // 1000, 3), "US": (v.microsecond, 6),
        # FF1 .. FF6: tenths of a second .. microseconds (PostgreSQL 13's DCH_FF*)
        **{f"FF{d}": (v.microsecond // 10 ** (6 - d), d) for d in range(1, 7)},
        "SSSS": (v.hour * 3600 + v.minute * 60 + v.second, 1),
        "SSSSS": (v.hour * 3600 + v.minute * 60 + v.second, 1),
        "Q": ((v.month - 1) // 3 + 1, 1), "WW": ((v.timetuple().tm_yday - 1) // 7 + 1, 2),
        "IW": (v.isocalendar()[1], 2), "J": (v.toordinal() + 1721425, 1),
        "CC": (v.cc if isinstance(v, _FarTm) else (v.year - 1) // 100 + 1, 2),
    }
    if tok in numeric:
        n, width = numeric[tok]
        if n < 0 and tok in _SIGNED_WIDTH:  # an interval's negative field: '-0001', '-02'
            width += 1
        return _num(n, width, fm), n
    if tok in ("AM", "PM", "am", "pm"):
        return _case("PM" if v.hour >= 12 else "AM", tok), None
    if tok in ("A.M.", "P.M.", "a.m.", "p.m."):
        return _case("P.M." if v.hour >= 12 else "A.M.", tok), None
    if tok.upper() in _ERAS:
        bc = isinstance(v, _FarTm) and v.bc
        return _case(("B.C." if bc else "A.D.") if "." in tok else ("BC" if bc else "AD"), tok), None
    if tok.upper() == "MONTH":
        name = _case(MONTHS[v.month - 1], tok)
        return (name if fm else name.ljust(9)), None
    if tok.upper() == "MON":
        return _case(MONTHS[v.month - 1][:3], tok), None
    if tok.upper() == "DAY":
        name = _case(DAYS[v.isoweekday() % 7], tok)
        return (name if fm else name.ljust(9)), None
    if tok.upper() == "DY":
        return _case(DAYS[v.isoweekday() % 7][:3], tok), None
    if tok in ("TZ", "tz", "TZH", "TZM", "OF") and isinstance(v, _IntervalTm):
        raise InvalidDatetimeFormat("invalid format specification for an interval value",
                                    hint="Intervals are not tied to specific calendar dates.")
    off = v.utcoffset() if v.tzinfo is not None else None
    if tok in ("TZ", "tz"):
        name = v.tzname() or "" if off is not None else ""
        return (name if tok == "TZ" else name.lower()), None
    if tok in ("TZH", "TZM"):
        secs = int(off.total_seconds()) if off is not None else 0
        if tok == "TZM":
            return f"{abs(secs) // 60 % 60:02d}", None
        return f"{'-' if secs < 0 else '+'}{abs(secs) // 3600:02d}", None
    if tok == "OF":  # NB: a value without a zone prints a zero offset (tm_gmtoff 0): +00
        secs = int(off.total_seconds()) if off is not None else 0
        sign = "-" if secs < 0 else "+"
        hh, mm = divmod(abs(secs) // 60, 60)
        return f"{sign}{hh:02d}" + (f":{mm:02d}" if mm else ""), None
    return tok, None


class _IntervalTm:
    """An interval's fields in a datetime's clothes, as interval_to_char fills its pg_tm.

    The hour is not wrapped (HH24 of '30 hours' is 30), the day of the year counts 30-day
    months, and the calendar-only fields (day of week, ISO week) are 0.
    """

    tzinfo = None

    def __init__(self, v: dt.timedelta) -> None:
        (self.year, self.month, self.day, self.hour, self.minute, self.second,
         self.microsecond) = ivl.fields(v)
        self.tm_yday = (self.year * 12 + self.month) * 30 + self.day

    def timetuple(self) -> Any:
        return self

    def isocalendar(self) -> tuple[int, int, int]:
        return (0, 0, 0)

    def isoweekday(self) -> int:
        return 0

    def toordinal(self) -> int:
        return 0


class _FarTm:
    """A date or timestamp BC or after 9999 (`pgtypes.fardate`) in a datetime's clothes: the
    year is the one PostgreSQL prints (44 for 44 BC, with `bc`), the rest from its day count."""

    def __init__(self, v: FarDate | FarTimestamp) -> None:
        self.days = v.days
        y, self.month, self.day = civil_of_days(v.days)
        self.bc = y <= 0
        self.year = 1 - y if self.bc else y
        # NB: PostgreSQL's century of a BC year: -01 for 1..100 BC
        self.cc = -((self.year - 1) // 100) - 1 if self.bc else (y - 1) // 100 + 1
        ts = v if type(v) is FarTimestamp else None
        self.hour, self.minute, self.second, self.microsecond = (
            (ts.hour, ts.minute, ts.second, ts.microsecond) if ts is not None else (0, 0, 0, 0))
        self.tzinfo = ts.tzinfo if ts is not None else None
        self._ts = ts
        self.tm_yday = day_of_year(v.days)

    def timetuple(self) -> Any:
        return self

    def isocalendar(self) -> tuple[int, int, int]:
        y, w, d = iso_calendar(self.days)
        return (1 - y if y <= 0 else y), w, d  # NB: IYYY prints 44 for 44 BC, as YYYY

    def isoweekday(self) -> int:
        return (self.days + 5) % 7 + 1

    def toordinal(self) -> int:
        return self.days + 730120

    def utcoffset(self) -> dt.timedelta | None:
        return self._ts.utcoffset() if self._ts is not None else None

    def tzname(self) -> str | None:
        return self._ts.tzname() if self._ts is not None else None


def format_datetime(v: Any, fmt: str) -> str:
    """Formats a date, timestamp or interval with a to_char template."""
    iv = None
    if isinstance(v, dt.timedelta):
        v = _IntervalTm(v)
    elif type(v) is FarDate or type(v) is FarTimestamp:
        v = _FarTm(v)
    elif isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        v = dt.datetime(v.year, v.month, v.day)
    out = []
    for kind, tok, fm, th in _lex(fmt):
        if kind == "lit":
            out.append(tok)
            continue
        text, n = _field(tok, fm, v, iv)
        out.append(text + (_ordinal(n, th == "TH") if th and n is not None else ""))
    return "".join(out)


@register("to_char", args=[T.TIMESTAMP, T.TEXT], returns=T.TEXT, needs_context=True)
def to_char_datetime(ctx: Any, v: Any, fmt: str) -> str | None:
    """Formats a timestamp/timestamptz/date/interval (timestamptz in the session zone);
    'infinity' and '-infinity' give NULL, as in PostgreSQL."""
    if isinstance(v, InfiniteDate | InfiniteTimestamp):
        return None
    return format_datetime(local(ctx, v), fmt)


for _t in (T.TIMESTAMPTZ, T.DATE, T.INTERVAL):
    register("to_char", args=[_t, T.TEXT], returns=T.TEXT, needs_context=True)(to_char_datetime)


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
          (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


def _roman(v: Any, fm: bool, lower: bool) -> str:
    """RN: the value rounded to an integer in Roman numerals, 15 wide (1 .. 3999, else #s)."""
    n = int(Decimal(str(v)).quantize(Decimal(1), rounding=ROUND_HALF_UP)) \
        if not isinstance(v, float) or v == v else 0
    if not 1 <= n <= 3999:
        return "#" * 15
    out = ""
    for value, digits in _ROMAN:
        while n >= value:
            out, n = out + digits, n - value
    out = out.lower() if lower else out
    return out if fm else out.rjust(15)


def _scientific(v: Any, pat: str, fm: bool) -> str:
    """9.99EEEE: the mantissa with as many decimals as the template has, then e+NN."""
    if fm:
        raise SyntaxError_('"EEEE" is incompatible with other formats',
                           detail='"EEEE" may only be used together with digit and decimal point '
                           "patterns.")
    nfrac = sum(c in "90" for c in pat.partition(".")[2])
    d = Decimal(str(v)) if not isinstance(v, Decimal) else v
    if not d.is_finite():
        return " " + "".join("." if c == "." else "#" for c in pat)
    exp = d.adjusted() if d else 0
    step = Decimal(1).scaleb(-nfrac)
    mant = abs(d).scaleb(-exp).quantize(step, rounding=ROUND_HALF_UP)
    if mant >= 10 and isinstance(v, float):  # NB: printf's %e; numeric_out_sci keeps 10.00e+00
        exp += 1
        mant = abs(d).scaleb(-exp).quantize(step, rounding=ROUND_HALF_UP)
    return ("-" if d < 0 else " ") + f"{mant:f}" + f"e{exp:+03d}"


def format_number(v: Any, fmt: str) -> str:
    """Formats a number with a to_char numeric template (9 0 . D , G S FM, RN, EEEE)."""
    fm = "FM" in fmt.upper()
    core = re.sub("(?i)fm", "", fmt)
    if core.upper() == "RN":
        return _roman(v, fm, core == "rn")
    if core.upper().endswith("EEEE"):
        return _scientific(v, core.replace("D", "."), fm)
    pat = re.sub("(?i)fm", "", fmt).replace("D", ".").replace("G", ",")
    explicit_sign = "S" in pat
    pat = pat.replace("S", "")
    int_pat, _, frac_pat = pat.partition(".")
    has_point = "." in pat
    nfrac = sum(c in "90" for c in frac_pat)
    nint = sum(c in "90" for c in int_pat)
    d = Decimal(str(v)) if not isinstance(v, Decimal) else v
    neg = d < 0
    d = abs(d).quantize(Decimal(1).scaleb(-nfrac), rounding=ROUND_HALF_UP)
    int_digits, _, frac_digits = f"{d:f}".partition(".")
    int_digits = int_digits.lstrip("0")
    if len(int_digits) > nint:
        body = "".join("#" if c in "90" else c for c in pat)
        return (" " if not explicit_sign else "") + body
    chars, digits = [], list(int_digits)
    started = False
    for c in reversed(int_pat):
        if c in "90":
            if digits:
                chars.append(digits.pop())
                started = True
            elif c == "0":
                chars.append("0")
                started = True
            else:
                chars.append(" ")
        elif c == ",":
            chars.append("," if digits or (started and "0" in int_pat) else " ")
        else:
            chars.append(c)
    int_text = "".join(reversed(chars))
    stripped = int_text.lstrip(" ")
    pad = int_text[:len(int_text) - len(stripped)]
    sign = "-" if neg else ("+" if explicit_sign else " ")
    text = pad + sign + stripped
    if has_point:
        frac = frac_digits.ljust(nfrac, "0")
        if fm:
            keep = len(frac)
            while keep > 0 and frac_pat[[i for i, c in enumerate(frac_pat) if c in "90"][keep - 1]] \
                    == "9" and frac[keep - 1] == "0":
                keep -= 1
            frac = frac[:keep]
        text += "." + frac
    if fm:
        text = text.lstrip(" ")
        if not neg and not explicit_sign:
            text = text.lstrip(" ")
    return text


@register("to_char", args=[T.NUMERIC, T.TEXT], returns=T.TEXT)
def to_char_number(v: Any, fmt: str) -> str:
    """Formats a number with a numeric template."""
    return format_number(v, fmt)


for _t in (T.INT4, T.INT8, T.FLOAT8):
    register("to_char", args=[_t, T.TEXT], returns=T.TEXT)(to_char_number)


def parse_datetime(s: str, fmt: str) -> dt.datetime:
    """Parses text with a to_date/to_timestamp template into a naive datetime."""
    f = {"year": 1, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "us": 0}
    pm: bool | None = None
    bc = False
    i = 0
    items = _lex(fmt)
    for n_item, (kind, tok, _fm, _th) in enumerate(items):
        if kind == "lit":
            if tok.isspace() or not tok.isalnum():
                while i < len(s) and not s[i].isalnum():
                    i += 1
            else:
                i += len(tok)
            continue
        while i < len(s) and s[i].isspace():
            i += 1
        up = tok.upper()
        if up in ("MONTH", "MON", "DAY", "DY"):
            names = MONTHS if up.startswith("MON") else DAYS
            m = next((n for n, name in enumerate(names)
                      if s[i:].lower().startswith(name.lower() if len(up) > 3 else
                                                  name[:3].lower())), None)
            if m is None:
                raise InvalidDatetimeFormat(f'invalid value "{s[i:i + 3]}" for "{tok}"')
            i += len(names[m]) if len(up) > 3 else 3
            if names is MONTHS:
                f["month"] = m + 1
            continue
        if up in ("AM", "PM", "A.M.", "P.M."):
            pm = s[i:i + 1].upper() == "P"
            i += len(tok)
            continue
        if up in _ERAS:
            era = s[i:i + len(tok)].upper()
            if era not in _ERAS or ("." in era) != ("." in up):
                raise InvalidDatetimeFormat(f'invalid value "{s[i:i + len(tok)]}" for "{tok}"')
            bc = era[0] == "B"
            i += len(tok)
            continue
        width = {"YYYY": 4, "IYYY": 4, "YYY": 3, "YY": 2, "Y": 1, "MS": 3, "US": 6,
                 "DDD": 3}.get(up, 2)
        if up == "YYYY" and (n_item + 1 == len(items) or items[n_item + 1][0] == "lit"):
            width = len(s)  # NB: as PG, a year before a separator may pass 9999 (then 22008)
        j = i
        while j < len(s) and j - i < width and s[j].isdigit():
            j += 1
        if j == i:
            raise InvalidDatetimeFormat(
                f'invalid value "{s[i:i + width]}" for "{tok}"')
        n = int(s[i:j])
        i = j
        key = {"YYYY": "year", "IYYY": "year", "MM": "month", "DD": "day", "HH24": "hour",
               "HH": "hour", "HH12": "hour", "MI": "minute", "SS": "second"}.get(up)
        if key:
            f[key] = n
        elif up in ("YY", "YYY"):
            f["year"] = n + (2000 if n < 70 else 1900) if up == "YY" else n + 1000
        elif up == "MS":
            f["us"] = n * 1000
        elif up == "US":
            f["us"] = n
    if pm is not None:
        f["hour"] = f["hour"] % 12 + (12 if pm else 0)
    try:
        y = 1 - f["year"] if bc else f["year"]  # NB: 1 BC is the astronomical year 0
        if not 1 <= y <= 9999:  # BC or after 9999: pgtypes.fardate
            if not (0 <= f["hour"] < 24 and 0 <= f["minute"] < 60 and 0 <= f["second"] < 60):
                raise ValueError("time field out of range")
            tod = ((f["hour"] * 60 + f["minute"]) * 60 + f["second"]) * 1_000_000 + f["us"]
            return ts_of_fields(y, f["month"], f["day"], tod)
        return dt.datetime(y, f["month"], f["day"], f["hour"], f["minute"],
                           f["second"], f["us"])
    except ValueError:
        raise DatetimeFieldOverflow(f'date/time field value out of range: "{s}"') from None


@register("to_date", args=[T.TEXT, T.TEXT], returns=T.DATE)
def to_date(s: str, fmt: str) -> dt.date:
    """Parses a date with a template."""
    return parse_datetime(s, fmt).date()


@register("to_timestamp", args=[T.TEXT, T.TEXT], returns=T.TIMESTAMPTZ, needs_context=True)
def to_timestamp(ctx: Any, s: str, fmt: str) -> dt.datetime:
    """Parses a timestamptz with a template, in the session's time zone."""
    return zones.to_utc(parse_datetime(s, fmt), zone(ctx))


@register("to_number", args=[T.TEXT, T.TEXT], returns=T.NUMERIC)
def to_number(s: str, fmt: str) -> Decimal:
    """Parses a number written with a numeric template (digits, point, sign; groups ignored)."""
    pat = re.sub("(?i)fm", "", fmt)
    decimals = "." in pat or "D" in pat
    neg = "-" in s or ("PR" in pat.upper() and "<" in s)
    digits = "".join(ch for ch in s if ch.isdigit() or (decimals and ch == "."))
    if not digits.strip("."):
        raise InvalidTextRepresentation('invalid input syntax for type numeric: " "')
    value = Decimal(digits)
    return -value if neg else value
