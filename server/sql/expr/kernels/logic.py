"""Three-valued logic kernels: AND, OR, NOT, IS [NOT] NULL and IN lists of constants."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....pgtypes import oids as T
from ..bound import E
from .base import (
    _FLOATS,
    Fallback,
    NotVectorizable,
    S,
    Source,
    V,
    VFn,
    _and_valid,
    compile_vector,
    register,
)
from .compare import _scalar_cmp


def _bool(v: V | S, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, valid) of a boolean operand broadcast to n rows."""
    if isinstance(v, S):
        if v.value is None:
            return np.zeros(n, bool), np.zeros(n, bool)
        return np.full(n, bool(v.value)), None
    if v.kind != "b1":
        raise Fallback("not a boolean")
    return v.values, v.valid


def _v_and(e: E) -> VFn:
    fs = [compile_vector(x) for x in e.args]
    is_and = e.kind == "and"

    def run(src: Source, ctx: Any) -> V | S:
        vs = [f(src, ctx) for f in fs]
        n = next((len(v.values) for v in vs if isinstance(v, V)), None)
        if n is None:
            raise Fallback("constant logic")
        val, valid = _bool(vs[0], n)
        for v in vs[1:]:
            bv, bvalid = _bool(v, n)
            # NB: without NULLs on either side, two-valued logic: one array operation
            # (`True & array` costs 200 times `array & array`: no Python bools in here)
            if is_and:
                new_val = val & bv
                if valid is None and bvalid is None:
                    new_valid = None
                else:  # NULL AND FALSE is FALSE: a known False on either side decides
                    known_false = (~val if valid is None else valid & ~val) | \
                        (~bv if bvalid is None else bvalid & ~bv)
                    new_valid = _and_valid(valid, bvalid) | known_false
            else:
                # NULL OR TRUE is TRUE: a known True on either side decides
                new_val = (val if valid is None else val & valid) | \
                    (bv if bvalid is None else bv & bvalid)
                new_valid = None if valid is None and bvalid is None else \
                    _and_valid(valid, bvalid) | new_val
            val, valid = np.asarray(new_val, bool), new_valid
        return V("b1", val, valid)

    return run


def _v_not(e: E) -> VFn:
    f = compile_vector(e.args[0])

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S):
            return S(None if v.value is None else not v.value)
        if v.kind != "b1":
            raise Fallback("not a boolean")
        return V("b1", ~v.values, v.valid)

    return run


def _v_isnull(e: E) -> VFn:
    f = compile_vector(e.args[0])
    want_null = e.kind == "isnull"
    if e.args[0].type in (T.RECORD,):
        raise NotVectorizable("IS NULL of a row")

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S):
            return S((v.value is None) == want_null)
        n = len(v.values)
        isnull = np.zeros(n, bool) if v.valid is None else ~v.valid
        return V("b1", isnull if want_null else ~isnull, None)

    return run


def _v_in_list(e: E) -> VFn:
    if e.args[0].type in _FLOATS + (T.BPCHAR,) or \
            any(x.kind not in ("const", "param") for x in e.args[1:]):
        raise NotVectorizable("IN over non-constants, floats or char(n)")
    f = compile_vector(e.args[0])
    items = [compile_vector(x) for x in e.args[1:]]
    negate = bool(e.data)

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        vals = [it(src, ctx).value for it in items]  # type: ignore[union-attr]
        has_null = any(x is None for x in vals)
        vals = [x for x in vals if x is not None]
        if isinstance(v, S):
            raise Fallback("constant IN")
        n = len(v.values)
        hit = np.zeros(n, bool)
        for c in vals:
            hit |= _scalar_cmp("=", v, c)
        valid = v.valid
        if has_null:  # no match against a list with a NULL is NULL
            valid = hit if valid is None else valid & hit
        return V("b1", ~hit if negate else hit, valid)

    return run


register(**{"and": _v_and, "or": _v_and, "not": _v_not, "isnull": _v_isnull,
            "notnull": _v_isnull, "in_list": _v_in_list})
