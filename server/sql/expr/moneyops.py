"""money's arithmetic operators (pg_operator's cash_*), bound over int8 cents (pgtypes.money).

money +/- money is money; money * and / an integer or a float is money (a float product
or quotient rounded half to even, an integer quotient truncated toward zero, as C
divides); number * money the same; money / money is float8. A numeric operand meets the
float8 form, as PostgreSQL's resolution picks it (numeric casts to float8 implicitly and
float8 is the preferred type). Anything else: 42883 with PostgreSQL's hint.

>>> _div_int(-1000, 3), _mul_float(1000, 1.5), _div_float(1000, 2.5)
(-333, 1500, 400)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import DivisionByZero, NumericValueOutOfRange, UndefinedFunction
from ...pgtypes import oids as T
from ...pgtypes.money import checked
from .bound import E
from .functions import coerce
from .types import INTS, type_name

_FLOATS = (T.FLOAT4, T.FLOAT8, T.NUMERIC)


def _add(a: int, b: int) -> int:
    return checked(a + b)


def _sub(a: int, b: int) -> int:
    return checked(a - b)


def _mul_int(a: int, b: int) -> int:
    return checked(a * b)


def _rounded(x: float) -> int:
    """rint, then int8: 22003 for NaN, infinities and past int8."""
    if x != x or x in (float("inf"), float("-inf")):
        raise NumericValueOutOfRange("money out of range")
    return checked(round(x))


def _mul_float(a: int, f: float) -> int:
    return _rounded(a * f)


def _div_int(a: int, b: int) -> int:
    if b == 0:
        raise DivisionByZero("division by zero")
    q = abs(a) // abs(b)
    return checked(q if (a < 0) == (b < 0) else -q)


def _div_float(a: int, f: float) -> int:
    if f == 0:
        raise DivisionByZero("division by zero")
    return _rounded(a / f)


def _div_money(a: int, b: int) -> float:
    if b == 0:
        raise DivisionByZero("division by zero")
    return float(a) / float(b)


def _call(op: str, fn: Callable[..., Any], args: list[E], result: int) -> E:
    return E("pyfunc", (op, fn, True), args, result)


def arith(op: str, a: E, b: E, params: Any) -> E:
    """The money form of `a op b` (one operand at least is money)."""
    ta, tb = a.type, b.type
    if ta == tb == T.MONEY and op in ("+", "-"):
        return _call(op, _add if op == "+" else _sub, [a, b], T.MONEY)
    if ta == tb == T.MONEY and op == "/":
        return _call(op, _div_money, [a, b], T.FLOAT8)
    if ta == T.MONEY and op in ("*", "/"):
        if tb in INTS:
            return _call(op, _mul_int if op == "*" else _div_int, [a, b], T.MONEY)
        if tb in _FLOATS:
            b = coerce(b, T.FLOAT8, params=params)
            return _call(op, _mul_float if op == "*" else _div_float, [a, b], T.MONEY)
    if tb == T.MONEY and op == "*":
        if ta in INTS:
            return _call(op, lambda n, m: _mul_int(m, n), [a, b], T.MONEY)
        if ta in _FLOATS:
            a = coerce(a, T.FLOAT8, params=params)
            return _call(op, lambda f, m: _mul_float(m, f), [a, b], T.MONEY)
    raise UndefinedFunction(
        f"operator does not exist: {type_name(ta)} {op} {type_name(tb)}",
        hint="No operator matches the given name and argument types. "
        "You might need to add explicit type casts.")
