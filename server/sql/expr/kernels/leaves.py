"""Kernels of the leaves: columns, constants, parameters, uncorrelated scalar subqueries,
and casts between kinds that keep their values."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....pgtypes import oids as T
from .. import codegen as cg
from ..bound import E
from .base import (
    _INT_LIMIT,
    _INTS,
    DictMemo,
    Fallback,
    NotVectorizable,
    S,
    Source,
    V,
    VFn,
    compile_vector,
    redictionary,
    register,
)

# Column types whose stored Python values order and compare as PostgreSQL's do (the row code
# compares them with Python's operators too). Enums, domains over them, ranges, arrays,
# json and the other user-visible types order by rules of their own: the row path.
PLAIN_TYPES = frozenset((T.INT2, T.INT4, T.INT8, T.FLOAT4, T.FLOAT8, T.NUMERIC, T.BOOL,
                         T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME, T.DATE, T.TIMESTAMP,
                         T.TIMESTAMPTZ))


def _v_col(e: E) -> VFn:
    if e.type not in PLAIN_TYPES:
        raise NotVectorizable(f"a column of type {e.type}")
    j = e.data
    return lambda src, ctx: V.of(src(j))


def _v_const(e: E) -> VFn:
    s = S(e.data)
    return lambda src, ctx: s


def _v_param(e: E) -> VFn:
    i = e.data - 1
    return lambda src, ctx: S(ctx.params[i])


def _v_subquery(e: E) -> VFn:
    """An uncorrelated scalar subquery is one value per execution: the row path's sub-plan
    runtime runs it once (it caches the rows per execution) and every pack reads it as a
    constant, as PostgreSQL's InitPlan. A correlated one has no vector form."""
    correlated = cg.SUBQUERY_RUNTIME.get("correlated")
    if correlated is None or correlated(e.data):
        raise NotVectorizable("a correlated subquery")
    plan = e.data

    def run(src: Source, ctx: Any) -> S:
        return S(cg.SUBQUERY_RUNTIME["scalar"](plan, (), ctx))

    return run


def _v_cast(e: E) -> VFn:
    inner = compile_vector(e.args[0])
    if e.data is None:
        return inner
    conv = e.data
    src_t, dst_t = e.args[0].type, e.type
    widen = src_t in _INTS and dst_t == T.FLOAT8
    same = (src_t in _INTS and dst_t in _INTS + (T.NUMERIC,)) or (src_t == dst_t)

    def run(src: Source, ctx: Any) -> V | S:
        v = inner(src, ctx)
        if isinstance(v, S):
            return S(None if v.value is None else conv(v.value))
        if widen and v.kind == "i8":
            return V("f8", v.values.astype(np.float64), v.valid)
        if same and src_t in _INTS and dst_t in _INTS:
            lim = _INT_LIMIT[dst_t]
            vals = v.values if v.valid is None else v.values[v.valid]
            if len(vals) and (vals.min() < -lim or vals.max() >= lim):
                raise Fallback("integer out of range")
            return v
        if same:
            return v
        if v.kind == "str" and dst_t in (T.TEXT, T.VARCHAR):
            return _cast_strings(v, conv, last)
        raise Fallback(f"cast of a {v.kind} column")

    last = DictMemo()  # the cast per dictionary: packs may share one
    return run


def _cast_strings(v: V, conv: Any, last: DictMemo) -> V:
    """A cast of a string column to text or varchar (char(n) to text drops the padding,
    varchar(n) cuts): the row code's converter once per dictionary entry, the codes
    remapped into the sorted dictionary of the results. An error (22001) falls back."""
    d = v.dictionary
    assert d is not None
    nd, remap = last.get(d, None, lambda: _cast_dictionary(d, conv))
    codes = remap[v.values] if len(remap) else np.zeros(len(v.values), np.int32)
    return V("str", codes, v.valid, nd)


def _cast_dictionary(d: np.ndarray, conv: Any) -> tuple[np.ndarray, np.ndarray]:
    try:
        out = [conv(x) for x in d.tolist()]
    except Exception as ex:  # NB: the row code raises it for the right rows
        raise Fallback(str(ex)) from ex
    if not all(isinstance(x, str) for x in out):
        raise Fallback("a cast to text that is not a string")
    return redictionary(out)


register(col=_v_col, const=_v_const, param=_v_param, subquery=_v_subquery, cast=_v_cast)

__all__ = ["PLAIN_TYPES"]
