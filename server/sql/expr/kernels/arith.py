"""The `op` kernel (comparisons, + - * and integer %), numeric arithmetic over scaled
integers, negation and integer mod: exact, or `Fallback` where the row code must report
an overflow or a division by zero."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

from ....pgtypes import oids as T
from .. import runtime as rt
from ..bound import E
from .base import (
    _INT_LIMIT,
    _INTS,
    Fallback,
    NotVectorizable,
    S,
    Source,
    V,
    VFn,
    _and_valid,
    _nulls,
    compile_vector,
    register,
)
from .compare import _CMP, _FLIP, _scalar_cmp, _vec_cmp, rt_cmp


def _v_op(e: E) -> VFn:
    op = e.data
    fa, fb = (compile_vector(x) for x in e.args)
    if op in _CMP:
        if any(x.type in (T.JSON, T.JSONB) or x.type in T.ELEMENT_OF for x in e.args):
            raise NotVectorizable("json or array comparison")

        def cmp(src: Source, ctx: Any) -> V | S:
            a, b = fa(src, ctx), fb(src, ctx)
            if isinstance(a, S) and isinstance(b, S):
                if a.value is None or b.value is None:
                    return S(None)
                return S(rt.nan_cmp(op, a.value, b.value)
                         if a.value != a.value or b.value != b.value
                         else rt_cmp(op, a.value, b.value))
            if isinstance(a, S):
                a, b, o = b, a, _FLIP[op]
            else:
                o = op
            assert isinstance(a, V)
            n = len(a.values)
            if isinstance(b, S):
                if b.value is None:
                    return _nulls(n)
                return V("b1", _scalar_cmp(o, a, b.value), a.valid)
            return V("b1", _vec_cmp(o, a, b), _and_valid(a.valid, b.valid))

        return cmp
    if op in ("+", "-", "*"):
        t = e.type
        if t == T.NUMERIC:
            return _numeric_arith(op, fa, fb)
        if t not in _INTS and t != T.FLOAT8:
            raise NotVectorizable(f"arithmetic on type {t}")
        ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]

        def arith(src: Source, ctx: Any) -> V | S:
            a, b = fa(src, ctx), fb(src, ctx)
            if isinstance(a, S) and isinstance(b, S):
                raise Fallback("constant arithmetic")
            vals = []
            valid = None
            for x in (a, b):
                if isinstance(x, S):
                    if x.value is None:
                        return _nulls(len((b if x is a else a).values))  # type: ignore[union-attr]
                    vals.append(x.value)
                else:
                    if x.kind not in ("i8", "f8"):
                        raise Fallback(f"arithmetic on {x.kind}")
                    vals.append(x.values)
                    valid = _and_valid(valid, x.valid)
            if t == T.FLOAT8:
                x0 = np.asarray(vals[0], np.float64)
                x1 = np.asarray(vals[1], np.float64)
                with np.errstate(all="ignore"):
                    out = ufunc(x0, x1)
                if (np.isinf(out) & np.isfinite(x0) & np.isfinite(x1)).any():
                    raise Fallback("float overflow")  # the row code raises 22003
                return V("f8", out, valid)
            x0 = np.asarray(vals[0])
            x1 = np.asarray(vals[1])
            if x0.dtype != np.int64 or x1.dtype != np.int64:
                raise Fallback("integer arithmetic on non-integers")
            approx = ufunc(x0.astype(np.float64), x1.astype(np.float64))
            lim = float(_INT_LIMIT[t])
            if len(approx) and (approx.min() < -lim or approx.max() >= lim - 1024):
                raise Fallback("integer out of range")
            return V("i8", ufunc(x0, x1), valid)

        return arith
    if op == "%":
        return _int_mod(e.type, fa, fb)
    raise NotVectorizable(f"operator {op}")


def _scaled(x: V | S) -> tuple[np.ndarray | int, int, np.ndarray | None]:
    """(unscaled integers, scale, validity) of a numeric operand: an integer or "dec"
    column, or an int or finite Decimal constant."""
    if isinstance(x, S):
        c = x.value
        if isinstance(c, bool) or not isinstance(c, int | Decimal):
            raise Fallback("numeric arithmetic with a non-numeric constant")
        if isinstance(c, int):
            return c, 0, None
        if not c.is_finite():
            raise Fallback("numeric arithmetic with NaN or Infinity")
        e = c.as_tuple().exponent
        assert isinstance(e, int)
        sc = max(0, -e)
        return int(c.scaleb(sc)), sc, None
    if x.kind == "i8":
        return x.values, 0, x.valid
    if x.kind == "dec":
        return x.values, x.scale, x.valid
    raise Fallback(f"numeric arithmetic on {x.kind}")


def _fits(approx: Any) -> bool:
    a = np.abs(np.asarray(approx, np.float64))
    return not a.size or float(a.max()) < 2.0**62


def _numeric_arith(op: str, fa: VFn, fb: VFn) -> VFn:
    """numeric + - * over scaled integers, exact: the result scale is Python's (and
    PostgreSQL's): the larger scale for + and -, the sum of scales for *."""

    def run(src: Source, ctx: Any) -> V | S:
        a, b = fa(src, ctx), fb(src, ctx)
        if isinstance(a, S) and isinstance(b, S):
            raise Fallback("constant arithmetic")
        if (isinstance(a, S) and a.value is None) or (isinstance(b, S) and b.value is None):
            n = len((b if isinstance(a, S) else a).values)  # type: ignore[union-attr]
            return _nulls(n)
        xa, sa, va = _scaled(a)
        xb, sb, vb = _scaled(b)
        if op == "*":
            scale = sa + sb
            if scale > 18 or not _fits(np.multiply(np.asarray(xa, np.float64), xb)):
                raise Fallback("numeric product beyond int64")
            out = np.multiply(xa, xb, dtype=np.int64)
        else:
            scale = max(sa, sb)
            fa_, fb_ = 10 ** (scale - sa), 10 ** (scale - sb)
            approx = np.add(np.asarray(xa, np.float64) * fa_,
                            (1 if op == "+" else -1) * np.asarray(xb, np.float64) * fb_)
            if not _fits(approx):
                raise Fallback("numeric sum beyond int64")
            ua = np.multiply(xa, fa_, dtype=np.int64)
            ub = np.multiply(xb, fb_, dtype=np.int64)
            out = ua + ub if op == "+" else ua - ub
        out = np.asarray(out, np.int64)
        return V("dec", out, _and_valid(va, vb), None, scale)

    return run


def _v_neg(e: E) -> VFn:
    if e.type not in _INTS + (T.FLOAT8, T.NUMERIC):
        raise NotVectorizable(f"negation of type {e.type}")
    f = compile_vector(e.args[0])

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S):
            raise Fallback("constant negation")
        if v.kind in ("i8", "dec"):
            vals = v.values if v.valid is None else v.values[v.valid]
            floor = -_INT_LIMIT.get(e.type, 2**63)
            if len(vals) and vals.min() <= floor:
                raise Fallback("negation out of range")
            return V(v.kind, -v.values, v.valid, None, v.scale)
        if v.kind == "f8":
            return V("f8", -v.values, v.valid)
        raise Fallback(f"negation of {v.kind}")

    return run


def _int_mod(t: int, fa: VFn, fb: VFn) -> VFn:
    """Integer remainder with the dividend's sign (C's fmod), as PostgreSQL's int4mod/int8mod:
    `min % -1` is 0. A zero divisor in a row that is not NULL falls back to the row code,
    which raises 22012 'division by zero' exactly where PostgreSQL does. numeric mod keeps
    the row path (its result scale follows rules of its own)."""
    if t not in _INTS:
        raise NotVectorizable(f"mod of type {t}")

    def run(src: Source, ctx: Any) -> V | S:
        a, b = fa(src, ctx), fb(src, ctx)
        if isinstance(a, S) and isinstance(b, S):
            raise Fallback("constant mod")
        n = len((b if isinstance(a, S) else a).values)  # type: ignore[union-attr]
        vals: list[Any] = []
        valid = None
        for x in (a, b):
            if isinstance(x, S):
                if x.value is None:
                    return _nulls(n)
                if isinstance(x.value, bool) or not isinstance(x.value, int) \
                        or not -2**63 <= x.value < 2**63:
                    raise Fallback("mod by a non-integer constant")
                vals.append(np.int64(x.value))
            else:
                if x.kind != "i8":
                    raise Fallback(f"mod of {x.kind}")
                vals.append(x.values)
                valid = _and_valid(valid, x.valid)
        x0, x1 = vals
        zero = x1 == 0
        if valid is not None:
            zero = zero & valid
        if np.any(zero):
            raise Fallback("division by zero")  # the row code raises 22012
        minus1 = x1 == -1
        safe = np.where((x1 == 0) | minus1, 1, x1) if np.ndim(x1) else \
            (1 if x1 in (0, -1) else x1)  # NB: zeros in NULL rows too
        out = np.fmod(np.broadcast_to(x0, (n,)), safe)
        if np.any(minus1):
            out = np.where(np.broadcast_to(minus1, (n,)), 0, out)
        return V("i8", np.asarray(out, np.int64), valid)

    return run


register(op=_v_op, neg=_v_neg)

__all__ = ["int_mod"]
int_mod = _int_mod
