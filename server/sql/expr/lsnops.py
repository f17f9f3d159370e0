"""pg_lsn's arithmetic operators, as PostgreSQL 15's pg_operator has them.

pg_lsn - pg_lsn is the numeric distance in bytes (pg_lsn_mi); pg_lsn + numeric,
pg_lsn - numeric and numeric + pg_lsn move a position (pg_lsn_pli, pg_lsn_mii,
numeric_pl_pg_lsn): an integer operand meets numeric by its implicit cast, a NaN is 0A000
and a result outside 0 .. 2^64-1 is 22023. Anything else: 42883 with PostgreSQL's hint.

>>> _minus(of_position(0x16B374D848), of_position(0x16B374D800)), _plus(of_position(2**32 - 1), 1)
(Decimal('72'), '1/0')
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ...errors import FeatureNotSupported, InvalidParameterValue, UndefinedFunction
from ...pgtypes import oids as T
from ...pgtypes.lsn import Lsn, of_position
from .bound import E
from .functions import coerce
from .types import INTS, type_name

_MAX = (1 << 64) - 1


def _minus(a: Lsn, b: Lsn) -> Decimal:
    return Decimal(a.position - b.position)


def _moved(a: Lsn, n: Decimal | int, sign: int, verb: str) -> Lsn:
    if isinstance(n, Decimal) and not n.is_finite():
        raise FeatureNotSupported(f"cannot {verb} NaN {'to' if sign > 0 else 'from'} pg_lsn")
    pos = Decimal(a.position) + sign * Decimal(n)
    if pos != pos.to_integral_value():  # NB: numeric_pg_lsn rounds to the nearest byte
        pos = pos.to_integral_value()
    if not 0 <= pos <= _MAX:
        raise InvalidParameterValue("pg_lsn out of range")
    return of_position(int(pos))


def _plus(a: Lsn, n: Decimal | int) -> Lsn:
    return _moved(a, n, 1, "add")


def _less(a: Lsn, n: Decimal | int) -> Lsn:
    return _moved(a, n, -1, "subtract")


def arith(op: str, a: E, b: E, params: Any) -> E:
    """The pg_lsn form of `a op b` (one operand at least is pg_lsn)."""
    ta, tb = a.type, b.type
    if ta == tb == T.PG_LSN and op == "-":
        return E("pyfunc", (op, _minus, True), [a, b], T.NUMERIC)
    if ta == T.PG_LSN and op in ("+", "-") and (tb in INTS or tb == T.NUMERIC):
        b = coerce(b, T.NUMERIC, params=params)
        return E("pyfunc", (op, _plus if op == "+" else _less, True), [a, b], T.PG_LSN)
    if tb == T.PG_LSN and op == "+" and (ta in INTS or ta == T.NUMERIC):
        a = coerce(a, T.NUMERIC, params=params)
        return E("pyfunc", (op, lambda n, x: _plus(x, n), True), [a, b], T.PG_LSN)
    raise UndefinedFunction(
        f"operator does not exist: {type_name(ta)} {op} {type_name(tb)}",
        hint="No operator matches the given name and argument types. "
        "You might need to add explicit type casts.")
