"""Arithmetic operators: which PostgreSQL operator `a op b` resolves to, and its result type.

Integers promote by width (int2 < int4 < int8), then numeric, then float8;
the date/time operators follow pg_operator (date + int = date, timestamp -
timestamp = interval, date + interval = timestamp, interval * number). An
unknown literal or parameter takes the type the other operand implies, as
PostgreSQL infers it. No match raises 42883 with PostgreSQL's hint.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ...errors import AmbiguousFunction, DatetimeFieldOverflow, UndefinedFunction
from ...pgtypes import interval as iv
from ...pgtypes import oids as T
from ...pgtypes.fardate import FarDate, days_of, ts_of_us
from ...pgtypes.infdate import TS_INF, TS_NEG_INF, InfiniteDate, Time24
from . import lsnops, moneyops
from . import types as ty
from .bound import E
from .casts import date_add_days
from .functions import coerce
from .rangeops import involves_range, range_op

_NO_BEST = (T.DATE, T.TIMETZ)  # `x + unknown` for these is ambiguous in PostgreSQL


def rt_date_add(d: dt.date, n: int) -> dt.date:
    """date + integer days."""
    return date_add_days(d, n)


def arith(op: str, a: E, b: E, params: Any) -> E:
    """Types an arithmetic operator the way PostgreSQL's operator catalog does."""
    if involves_range(a, b):  # range union, intersection, difference
        return range_op(op, a, b, params)
    if a.type == T.UNKNOWN and b.type == T.UNKNOWN:
        if op != "^":  # NB: `^` has float8 and numeric forms, float8 the preferred type
            raise AmbiguousFunction(
                f"operator is not unique: unknown {op} unknown",
                hint="Could not choose a best candidate operator. "
                "You might need to add explicit type casts.")
        a = coerce(a, T.FLOAT8, params=params)
        b = coerce(b, T.FLOAT8, params=params)
    elif op == "+" and T.UNKNOWN in (a.type, b.type) and (a.type in _NO_BEST or b.type in _NO_BEST):
        # NB: date + int4, interval, time or timetz (timetz + interval or date) all fit an
        # unknown operand: PostgreSQL cannot choose either
        raise AmbiguousFunction(
            f"operator is not unique: {ty.type_name(a.type)} + {ty.type_name(b.type)}",
            hint="Could not choose a best candidate operator. "
            "You might need to add explicit type casts.")
    elif a.type == T.UNKNOWN:
        a = coerce(a, _peer(b.type, op), params=params)
    elif b.type == T.UNKNOWN:
        b = coerce(b, _peer(a.type, op, right=True), params=params)
    ta, tb = a.type, b.type
    if T.MONEY in (ta, tb):
        return moneyops.arith(op, a, b, params)
    if T.PG_LSN in (ta, tb):
        return lsnops.arith(op, a, b, params)
    if ty.is_numeric(ta) and ty.is_numeric(tb) or (ta in ty.OIDLIKE or tb in ty.OIDLIKE):
        t = ty.numeric_result(ta, tb)
        if op == "^":
            t = T.NUMERIC if T.NUMERIC in (ta, tb) else T.FLOAT8
        if t in (T.FLOAT8, T.FLOAT4):
            a, b = coerce(a, t), coerce(b, t)
        return E("op", op, [a, b], t)
    stamps = (T.TIMESTAMP, T.TIMESTAMPTZ)
    # NB: no timestamp +- time operator: time's implicit cast to interval makes one, as in PG
    if ta == T.TIME and op == "+" and tb in stamps:
        a, ta = coerce(a, T.INTERVAL), T.INTERVAL
    elif tb == T.TIME and op in ("+", "-") and (ta in stamps or ta == T.DATE and op == "-"):
        b, tb = coerce(b, T.INTERVAL), T.INTERVAL
    t = _datetime_arith(op, ta, tb)
    if t:
        if ta == T.DATE and tb in ty.INTS:
            fn = (lambda d, n: rt_date_add(d, n)) if op == "+" else (lambda d, n: rt_date_add(d, -n))
            return E("pyfunc", (op, fn, True), [a, b], T.DATE)
        if ta in ty.INTS and tb == T.DATE and op == "+":
            return E("pyfunc", (op, lambda n, d: rt_date_add(d, n), True), [a, b], T.DATE)
        if op == "+" and {ta, tb} == {T.DATE, T.TIME}:  # date + time, time + date: timestamp
            args = [a, b] if ta == T.DATE else [b, a]
            return E("pyfunc", (op, rt_date_pl_time, True), args, T.TIMESTAMP)
        if ta == T.DATE and tb == T.INTERVAL:
            a = coerce(a, T.TIMESTAMP)
        if ta == T.INTERVAL and tb == T.DATE:
            b = coerce(b, T.TIMESTAMP)
        ivfn = _interval_fn(op, ta, tb)
        if ivfn is not None:
            return E("pyfunc", (op, ivfn, True), [a, b], t)
        return E("op", op, [a, b], t)
    raise UndefinedFunction(
        f"operator does not exist: {ty.type_name(ta)} {op} {ty.type_name(tb)}",
        hint="No operator matches the given name and argument types. "
        "You might need to add explicit type casts.",
    )

def rt_ts_pl_interval(ts: dt.datetime, v: dt.timedelta) -> dt.datetime:
    """timestamp[tz] + interval: months, then days, then time (PostgreSQL's timestamp_pl_interval)."""
    return iv.add_to_timestamp(ts, v)


def rt_ts_mi_interval(ts: dt.datetime, v: dt.timedelta) -> dt.datetime:
    """timestamp[tz] - interval."""
    return iv.add_to_timestamp(ts, -iv.as_interval(v))


def rt_time_pl_interval(t: dt.time, v: dt.timedelta, sign: int = 1) -> dt.time:
    """time +- interval: only the interval's time field counts, wrapped around midnight."""
    us = ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond
    us = (us + sign * iv.as_interval(v).time) % iv.USECS_PER_DAY
    s, us = divmod(us, 1_000_000)
    return dt.time(s // 3600, s // 60 % 60, s % 60, us, tzinfo=t.tzinfo)


def rt_date_pl_time(d: dt.date, t: dt.time) -> dt.datetime:
    """date + time: the timestamp at that clock time ('infinity' stays infinite)."""
    if isinstance(d, InfiniteDate):
        return TS_INF if d.sign > 0 else TS_NEG_INF
    if type(d) is FarDate or (type(t) is Time24 and d.year == 9999):
        # BC or after 9999: on the day count (combine() would read the placeholder fields)
        try:
            return ts_of_us(days_of(d) * 86_400_000_000 + ((t.hour * 60 + t.minute) * 60
                                                            + t.second) * 1_000_000
                            + t.microsecond)
        except DatetimeFieldOverflow:
            raise DatetimeFieldOverflow("date out of range for timestamp") from None
    if type(t) is Time24:  # NB: 24:00:00 is the next day's midnight
        return dt.datetime.combine(d, dt.time(0)) + dt.timedelta(days=1)
    return dt.datetime.combine(d, t)


def rt_time_mi_time(a: dt.time, b: dt.time) -> iv.Interval:
    """time - time: the difference as an interval of microseconds (no days)."""
    def us(t: dt.time) -> int:
        return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond

    return iv.Interval(0, 0, us(a) - us(b))


def _interval_fn(op: str, ta: int, tb: int) -> Any:
    """The runtime function of an operator with an interval operand (None: Python's own op).

    NB: Python's `datetime + timedelta` would add an interval's months as 30 days.
    """
    ts = (T.TIMESTAMP, T.TIMESTAMPTZ, T.DATE)
    if tb == T.INTERVAL and ta in ts:
        return rt_ts_pl_interval if op == "+" else rt_ts_mi_interval
    if ta == T.INTERVAL and tb in ts and op == "+":
        return lambda v, t: rt_ts_pl_interval(t, v)
    if tb == T.INTERVAL and ta in (T.TIME, T.TIMETZ):
        return lambda t, v: rt_time_pl_interval(t, v, 1 if op == "+" else -1)
    if ta == T.INTERVAL and tb in (T.TIME, T.TIMETZ) and op == "+":
        return lambda v, t: rt_time_pl_interval(t, v)
    if ta == T.TIME and tb == T.TIME and op == "-":
        return rt_time_mi_time
    if ta == T.INTERVAL and tb == T.INTERVAL:
        if op == "+":
            return lambda x, y: iv.as_interval(x) + y
        return lambda x, y: iv.as_interval(x) - y
    if op == "*" and ta == T.INTERVAL:
        return lambda v, n: iv.interval_mul(iv.as_interval(v), float(n))
    if op == "*" and tb == T.INTERVAL:
        return lambda n, v: iv.interval_mul(iv.as_interval(v), float(n))
    if op == "/" and ta == T.INTERVAL:
        return lambda v, n: iv.interval_div(iv.as_interval(v), float(n))
    return None


def _peer(other: int, op: str, right: bool = False) -> int:
    if op == "-" and other in (T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME):
        # NB: PostgreSQL first tries the unknown side as the other's type, and date - date,
        # timestamp - timestamp and time - time exist: `ts - '1980-04-27'` is an interval
        return other
    if other == T.DATE and op == "+":
        return T.INT4
    if other in (T.TIMESTAMP, T.TIMESTAMPTZ) and op in ("+", "-"):
        return T.INTERVAL
    if other == T.INTERVAL and op in ("*", "/"):
        return T.FLOAT8
    if other == T.MONEY and op == "*":  # NB: no money * money; float8 is the preferred type
        return T.FLOAT8
    if other in (T.TIME, T.TIMETZ) and op in ("+", "-"):
        return T.INTERVAL
    return other

def _datetime_arith(op: str, ta: int, tb: int) -> int:
    ts = (T.TIMESTAMP, T.TIMESTAMPTZ)
    if op == "+":
        if ta == T.DATE and tb in ty.INTS or ta in ty.INTS and tb == T.DATE:
            return T.DATE
        if ta in ts and tb == T.INTERVAL:
            return ta
        if ta == T.INTERVAL and tb in ts:
            return tb
        if ta == T.DATE and tb == T.INTERVAL or ta == T.INTERVAL and tb == T.DATE:
            return T.TIMESTAMP
        if ta == T.INTERVAL and tb == T.INTERVAL:
            return T.INTERVAL
        if ta == T.DATE and tb == T.TIME or ta == T.TIME and tb == T.DATE:
            return T.TIMESTAMP
        if ta in (T.TIME, T.TIMETZ) and tb == T.INTERVAL:
            return ta
        if ta == T.INTERVAL and tb in (T.TIME, T.TIMETZ):
            return tb
    if op == "-":
        if ta == T.DATE and tb in ty.INTS:
            return T.DATE
        if ta == T.DATE and tb == T.DATE:
            return T.INT4
        if ta in ts and tb in ts:
            return T.INTERVAL
        if ta in ts and tb == T.INTERVAL:
            return ta
        if ta == T.DATE and tb == T.INTERVAL:
            return T.TIMESTAMP
        if ta == T.INTERVAL and tb == T.INTERVAL:
            return T.INTERVAL
        if ta in (T.TIME, T.TIMETZ) and tb == T.INTERVAL:
            return ta
        if ta == T.TIME and tb == T.TIME:  # time_mi_time
            return T.INTERVAL
    if op in ("*", "/") and ta == T.INTERVAL and ty.is_numeric(tb):
        return T.INTERVAL
    if op == "*" and ty.is_numeric(ta) and tb == T.INTERVAL:
        return T.INTERVAL
    return 0
