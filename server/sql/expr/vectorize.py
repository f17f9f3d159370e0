"""Vector code: a bound expression (`bound.E`) compiled to numpy kernels over one columnar pack.

The third target of the one expression IR, beside `codegen` (row code) and
the KiVi filter IR: the same `E` tree that `codegen.filter_function` turns
into a list comprehension becomes here a tree of closures, each called once
per pack, each one numpy call over the whole pack:

    E("op", "<", [col(2), param(1)])  ->  codes < searchsorted(dictionary, $1)   (strings)
                                      ->  values < $1                           (numbers)

Values are `V` (an array per pack, a validity mask, a kind from
`kivi.columnar.encode`) or `S` (one scalar: constants and parameters, bound at
each execution, so a prepared statement compiles once). The semantics are
the row code's, which are Python's plus PostgreSQL's NaN rules: NaN equals NaN
and sorts above every number; NULL propagates; AND / OR are three-valued.

Two failures: `NotVectorizable` at compile time (the optimizer then keeps the
row path for that subtree), and `Fallback` at run time, when the data make a
kernel unsafe (an integer overflow the row code must report, a string kind
meeting a date): the executor then reruns the subtree on the row path, before
it has emitted anything.

    >>> from cumulo.server.kivi.columnar import encode
    >>> from cumulo.server.sql.expr.bound import E, col, const
    >>> from cumulo.server.pgtypes import oids as T
    >>> pack = {0: encode([1, 5, None, 7]), 1: encode(["b", "a", "c", "a"])}
    >>> f = filter_mask(E("and", None, [E("op", ">", [col(0, T.INT4), const(2, T.INT4)]),
    ...                                 E("op", "=", [col(1, T.TEXT), const("a", T.TEXT)])]))
    >>> f(pack.__getitem__, None).tolist()
    [False, True, False, True]
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import SQLError
from ...kivi.columnar.aggregate import Unsafe
from ...kivi.columnar.encode import Column
from ...pgtypes import oids as T
from . import codegen as cg
from . import runtime as rt
from .bound import E


class NotVectorizable(Exception):
    """The expression has no vector form: keep the row path."""


class Fallback(Unsafe):
    """The data make the vector form unsafe at run time: rerun on the row path."""


class V:
    """A vector value over one pack: values, validity (None: no NULL), kind, dictionary."""

    __slots__ = ("kind", "values", "valid", "dictionary", "scale")

    def __init__(self, kind: str, values: np.ndarray, valid: np.ndarray | None,
                 dictionary: np.ndarray | None = None, scale: int = 0) -> None:
        self.kind = kind
        self.scale = scale
        self.values = values
        self.valid = valid
        self.dictionary = dictionary

    @classmethod
    def of(cls, c: Column) -> V:
        return cls(c.kind, c.values, c.valid, c.dictionary, c.scale)

    def objects(self) -> np.ndarray:
        """The values as Python objects (strings decoded)."""
        if self.kind == "str":
            assert self.dictionary is not None
            return self.dictionary[self.values] if len(self.dictionary) else \
                np.full(len(self.values), "", dtype=object)
        if self.kind in ("date", "ts"):
            return self.values.astype(object)
        return self.values


class S:
    """A scalar: one value for the whole pack (None: NULL)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


Source = Callable[[int], Column]  # a pack's column j
VFn = Callable[[Source, Any], "V | S"]

_INTS = (T.INT2, T.INT4, T.INT8)
_FLOATS = (T.FLOAT4, T.FLOAT8)
_INT_LIMIT = {T.INT2: 2**15, T.INT4: 2**31, T.INT8: 2**63}


def compile_vector(e: E) -> VFn:
    """Compiles a bound expression into a function of (pack columns, ctx) -> V | S."""
    if e.kind not in ("const", "param") and is_fixed(e):
        return _v_fixed(e)
    fn = globals().get("_v_" + e.kind)
    if fn is None:
        raise NotVectorizable(e.kind)
    return fn(e)


def filter_mask(e: E) -> Callable[[Source, Any], np.ndarray | None]:
    """Compiles a predicate into a function returning the rows where it is True (None: all)."""
    f = compile_vector(e)

    def run(src: Source, ctx: Any) -> np.ndarray | None:
        v = f(src, ctx)
        if isinstance(v, S):
            if v.value is True:
                return None
            return np.zeros(0, bool)  # NB: broadcast by the caller: no row passes
        if v.kind != "b1":
            raise Fallback("not a boolean")
        return v.values if v.valid is None else v.values & v.valid

    return run


def vectorizable(e: E) -> bool:
    """Tells whether `compile_vector` accepts e."""
    try:
        compile_vector(e)
    except NotVectorizable:
        return False
    return True


# --- values fixed for one execution -------------------------------------------------------

_PER_ROW = frozenset(("col", "outer", "subquery", "exists", "in_sub"))


def is_fixed(e: E) -> bool:
    """Tells whether e reads no column and calls nothing volatile: one value per execution
    (`$1 + 10`, `date '1995-01-01' + interval '1' year`, `upper($2)`).

    >>> from cumulo.server.sql.expr.bound import col, const
    >>> two = E("op", "+", [const(1, T.INT4), const(1, T.INT4)], T.INT4)
    >>> is_fixed(two), is_fixed(E("op", "+", [col(0, T.INT4), two], T.INT4))
    (True, False)
    """
    for x in e.walk():
        if x.kind in _PER_ROW or (x.kind == "call" and x.data.volatile):
            return False
    return True


def _v_fixed(e: E) -> VFn:
    """A subtree of constants and parameters is one scalar, computed by the row code (so its
    semantics, errors included, are the row path's): the vector kernels then see a constant.
    An error hands the statement to the row plan, which raises it where PostgreSQL would."""
    fn = cg.row_function(e)

    def run(src: Source, ctx: Any) -> S:
        try:
            return S(fn((), ctx))
        except SQLError as ex:
            raise Fallback(f"the row code raised {ex}") from ex

    return run


# --- leaves ---------------------------------------------------------------------------------


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
        raise Fallback(f"cast of a {v.kind} column")

    return run


# --- comparisons ----------------------------------------------------------------------------

_CMP = {"=": np.equal, "<>": np.not_equal, "<": np.less, "<=": np.less_equal,
        ">": np.greater, ">=": np.greater_equal}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _and_valid(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _nulls(n: int) -> V:
    return V("b1", np.zeros(n, bool), np.zeros(n, bool))


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
        return _CMP[op](vals, float(c))
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


def rt_cmp(op: str, a: Any, b: Any) -> bool:
    return bool(_CMP[op](a, b))


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


# --- logic ----------------------------------------------------------------------------------


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
            if is_and:
                # NULL AND FALSE is FALSE: a known False on either side decides
                known_false = ((valid if valid is not None else True) & ~val) | \
                    ((bvalid if bvalid is not None else True) & ~bv)
                new_val = val & bv
                new_valid = None if valid is None and bvalid is None else \
                    _and_valid(valid, bvalid) | known_false
            else:
                known_true = ((valid if valid is not None else True) & val) | \
                    ((bvalid if bvalid is not None else True) & bv)
                new_val = (val & (valid if valid is not None else True)) | \
                    (bv & (bvalid if bvalid is not None else True))
                new_valid = None if valid is None and bvalid is None else \
                    _and_valid(valid, bvalid) | known_true
            val, valid = np.asarray(new_val, bool), new_valid
        return V("b1", val, valid)

    return run


_v_or = _v_and


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


_v_notnull = _v_isnull


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


def _v_like(e: E) -> VFn:
    ci, negate = e.data
    if len(e.args) > 2 or e.args[1].kind != "const" or not isinstance(e.args[1].data, str) \
            or e.args[0].type == T.BPCHAR:
        raise NotVectorizable("LIKE with a non-constant pattern or ESCAPE, or over char(n)")
    f = compile_vector(e.args[0])
    pattern = e.args[1].data
    rx = rt.like_regex(pattern, ci, "\\")  # NB: also rejects a pattern ending in the escape
    last: list[Any] = [None, None]  # the last dictionary and its hits: packs may share one

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S) or v.kind != "str":
            raise Fallback("LIKE over a non-string column")
        d = v.dictionary
        assert d is not None
        if last[0] is d:
            hits = last[1]
        else:
            hits = like_hits(d, pattern, ci, rx)
            last[0], last[1] = d, hits
        m = hits[v.values] if len(d) else np.zeros(len(v.values), bool)
        return V("b1", ~m if negate else m, v.valid)

    return run


def like_hits(d: np.ndarray, pattern: str, ci: bool, rx: Any) -> np.ndarray:
    """Which strings of a dictionary match a LIKE (ci: ILIKE) pattern, escape `\\`: one
    Arrow kernel over the whole dictionary (RE2, or a substring search for `%x%`, `x%`
    ...), which the codes then index. Arrow's LIKE is PostgreSQL's: `_` is one character
    (a newline too), `%` any run, `\\` makes the next character literal. Case-folding
    beyond ASCII is left to Python's `re` (`rx`), as before, for ILIKE.

    >>> d = np.array(["", "a" + chr(10) + "b", "a_b", "ab", "straße"], dtype=object)
    >>> like_hits(d, "a_b", False, None).tolist(), like_hits(d, "%ß%", False, None).tolist()
    ([False, True, True, False, False], [False, False, False, False, True])
    >>> like_hits(d[:4], "A\\_%", True, None).tolist()  # ILIKE over ASCII strings
    [False, False, True, False]
    """
    if not len(d):
        return np.zeros(0, bool)
    arr = pa.array(d, pa.string())
    if ci and not (pattern.isascii() and pc.all(pc.string_is_ascii(arr)).as_py()):
        return np.fromiter((rx.fullmatch(s) is not None for s in d), bool, len(d))
    hits = pc.match_like(arr, pattern, ignore_case=ci)
    return hits.to_numpy(zero_copy_only=False).astype(bool, copy=False)


# --- functions: mod, substring ------------------------------------------------------------


def _v_call(e: E) -> VFn:
    """The function calls that have a kernel; every other call keeps the row path."""
    name = e.data.name
    if name == "mod" and len(e.args) == 2:
        return _int_mod(e.type, *(compile_vector(a) for a in e.args))
    if name in ("substr", "substring") and e.type == T.TEXT and 2 <= len(e.args) <= 3:
        return _substring(e)
    raise NotVectorizable(f"function {name}")


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


def _substring(e: E) -> VFn:
    """substring(text, start [, count]) over a dictionary-encoded column with constant (or
    parameter) bounds: the row code's `substr` (characters, a start below 1, 22011 for a
    negative count) runs once per distinct string, and the codes are remapped into the
    new sorted dictionary. A pack with a NULL bound is all NULL, as PostgreSQL's strict
    function; an error falls back to the row code, which reports it."""
    if e.args[0].type not in (T.TEXT, T.VARCHAR) or not all(is_bound(a) for a in e.args[1:]):
        raise NotVectorizable("substring of a non-text or with non-constant bounds")
    f = compile_vector(e.args[0])
    bounds = [compile_vector(a) for a in e.args[1:]]
    impl = e.data.impl
    last: list[Any] = [None, None, None]  # the last (dictionary, bounds) and its remapping

    def run(src: Source, ctx: Any) -> V | S:
        v = f(src, ctx)
        if isinstance(v, S):
            raise Fallback("substring of a constant")
        bs = [b(src, ctx).value for b in bounds]  # type: ignore[union-attr]
        n = len(v.values)
        all_null = v.valid is not None and not v.valid.any()
        if v.kind != "str" and not (all_null or n == 0):  # NB: a pack of NULLs encodes as i8
            raise Fallback("substring of a non-string")
        if all_null or n == 0 or any(x is None for x in bs):
            return V("str", np.zeros(n, np.int32), np.zeros(n, bool), np.empty(0, object))
        if any(isinstance(x, bool) or not isinstance(x, int) for x in bs):
            raise Fallback("substring bounds not integers")
        d = v.dictionary
        assert d is not None
        if last[0] is d and last[1] == bs:
            nd, remap = last[2]
        else:
            try:
                subs = [impl(x, *bs) for x in d.tolist()]
            except Exception as ex:  # NB: 22011; the row code raises it for the right rows
                raise Fallback(str(ex)) from ex
            arr = np.empty(len(subs), dtype=object)
            arr[:] = subs
            if len(arr):
                nd, remap = np.unique(arr, return_inverse=True)
                remap = remap.astype(np.int32).reshape(-1)
            else:
                nd, remap = arr, np.zeros(0, np.int32)
            last[0], last[1], last[2] = d, bs, (nd, remap)
        codes = remap[v.values] if len(remap) else np.zeros(n, np.int32)
        return V("str", codes, v.valid, nd)

    return run


def is_bound(e: E) -> bool:
    """A constant or a parameter: one value per execution."""
    return e.kind in ("const", "param")


__all__ = ["S", "V", "Fallback", "NotVectorizable", "compile_vector", "filter_mask",
           "like_hits", "vectorizable"]
