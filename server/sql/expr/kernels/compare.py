"""Comparison kernels with PostgreSQL's semantics: NaN equals NaN and sorts above every
number, integers against numerics exactly (at the larger scale), strings by dictionary
position (one `searchsorted` per constant), dates and timestamps as integers."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from .base import Fallback, V

_CMP = {"=": np.equal, "<>": np.not_equal, "<": np.less, "<=": np.less_equal,
        ">": np.greater, ">=": np.greater_equal}


_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _cmp_nan_scalar(op: str, n: int) -> np.ndarray:
    """x op NaN for non-NaN x: NaN is above every number."""
    return np.full(n, op in ("<>", "<", "<="), bool)


def _num_scalar_cmp(op: str, vals: np.ndarray, c: Any) -> np.ndarray:
    """Integer values compared exactly with an int, float or Decimal constant."""
    if isinstance(c, Decimal):
        if c.is_nan():
            return _cmp_nan_scalar(op, len(vals))
        if c.is_infinite():
            return _CMP[op](vals, math.inf if c > 0 else -math.inf)
        if c != c.to_integral_value():
            fl = int(c.to_integral_value(rounding="ROUND_FLOOR"))
            if op == "=":
                return np.zeros(len(vals), bool)
            if op == "<>":
                return np.ones(len(vals), bool)
            return _CMP[{"<": "<=", "<=": "<=", ">": ">", ">=": ">"}[op]](vals, fl)
        c = int(c)
    if isinstance(c, float):
        if c != c:
            return _cmp_nan_scalar(op, len(vals))
        if math.isinf(c) or abs(c) < 2**53:
            return _CMP[op](vals, c)
        raise Fallback("float constant beyond 2**53 against integers")
    if isinstance(c, int) and not isinstance(c, bool):
        if -2**63 <= c < 2**63:
            return _CMP[op](vals, np.int64(c))
        # NB: beyond int64 every value is below c (above it, c < 0); as a float, 2**63
        # equalled the int8 maximum (`bigint_key = 9223372036854775808` found it, 9aef38d)
        holds = op in ("<", "<=") if c > 0 else op in (">", ">=")
        return np.full(len(vals), op == "<>" or holds, bool)
    raise Fallback(f"integer column against {type(c).__name__}")


def _float_cmp(op: str, a: np.ndarray, b: Any) -> np.ndarray:
    """PostgreSQL's float comparison: NaN = NaN, NaN above every number."""
    an = np.isnan(a)
    bn = np.isnan(b)
    res = _CMP[op](a, b)
    if not an.any() and not np.any(bn):
        return res
    both = an & bn
    if op == "=":
        return res | both
    if op == "<>":
        return res & ~both
    if op in ("<", "<="):  # a < NaN when a is a number; NaN <= NaN
        out = res | (~an & bn)
        return out | both if op == "<=" else out
    out = res | (an & ~bn)
    return out | both if op == ">=" else out


def _str_scalar_cmp(op: str, v: V, c: Any) -> np.ndarray:
    if not isinstance(c, str):
        raise Fallback("string column against a non-string")
    d = v.dictionary
    assert d is not None
    codes = v.values
    left = int(np.searchsorted(d, c, "left")) if len(d) else 0
    right = int(np.searchsorted(d, c, "right")) if len(d) else 0
    if op == "=":
        return codes == left if right > left else np.zeros(len(codes), bool)
    if op == "<>":
        return codes != left if right > left else np.ones(len(codes), bool)
    if op == "<":
        return codes < left
    if op == "<=":
        return codes < right
    if op == ">":
        return codes >= right
    return codes >= left


def _scalar_cmp(op: str, v: V, c: Any) -> np.ndarray:
    k = v.kind
    if k == "i8":
        return _num_scalar_cmp(op, v.values, c)
    if k == "dec":
        if isinstance(c, bool) or not isinstance(c, int | Decimal):
            raise Fallback("numeric column against a non-numeric")
        if isinstance(c, Decimal) and not c.is_finite():
            return _num_scalar_cmp(op, v.values, c)
        return _num_scalar_cmp(op, v.values, Decimal(c).scaleb(v.scale))
    if k == "f8":
        if isinstance(c, bool) or not isinstance(c, int | float | Decimal):
            raise Fallback("float column against a non-number")
        return _float_cmp(op, v.values, float(c))
    if k == "str":
        return _str_scalar_cmp(op, v, c)
    if k == "date":
        if type(c) is not dt.date:
            raise Fallback("date column against a non-date")
        return _CMP[op](v.values, np.datetime64(c, "D"))
    if k == "ts":
        if type(c) is not dt.datetime or c.tzinfo is not None:
            raise Fallback("timestamp column against a non-timestamp")
        return _CMP[op](v.values, np.datetime64(c, "us"))
    if k == "b1":
        if not isinstance(c, bool):
            raise Fallback("boolean column against a non-boolean")
        return _CMP[op](v.values, c)
    if isinstance(c, Decimal) and c.is_nan() or isinstance(c, float) and c != c:
        raise Fallback("NaN against an object column")
    try:
        return np.asarray(_CMP[op](v.values, c), dtype=bool)
    except (TypeError, InvalidOperation) as ex:
        raise Fallback(str(ex)) from ex


def _at_scale(v: V, scale: int) -> np.ndarray:
    """An integer or numeric column's values as integers at a larger scale, exactly."""
    f = 10 ** (scale - (v.scale if v.kind == "dec" else 0))
    if f == 1:
        return v.values
    live = v.values if v.valid is None else v.values[v.valid]
    if len(live) and int(np.abs(live).max()) * f >= 2**63:
        raise Fallback("numeric comparison beyond int64")
    return v.values * f


def _vec_cmp(op: str, a: V, b: V) -> np.ndarray:
    if a.kind == b.kind and a.kind in ("i8", "date", "ts", "b1"):
        return _CMP[op](a.values, b.values)
    if a.kind in ("i8", "dec") and b.kind in ("i8", "dec"):  # exact, at the larger scale
        s = max(a.scale if a.kind == "dec" else 0, b.scale if b.kind == "dec" else 0)
        return _CMP[op](_at_scale(a, s), _at_scale(b, s))
    if a.kind in ("i8", "f8") and b.kind in ("i8", "f8"):
        return _float_cmp(op, a.values.astype(np.float64), b.values.astype(np.float64))
    if a.kind == b.kind == "str":
        return np.asarray(_CMP[op](a.objects(), b.objects()), dtype=bool)
    raise Fallback(f"{a.kind} against {b.kind}")


def rt_cmp(op: str, a: Any, b: Any) -> bool:
    return bool(_CMP[op](a, b))


__all__ = ["rt_cmp"]
