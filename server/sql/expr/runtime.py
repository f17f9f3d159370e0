"""Helpers that compiled expressions call: the operations Python's own operators get wrong for SQL.

Python's `//` floors where SQL truncates, `%` takes the divisor's sign, ints
never overflow, and Decimal / float do not mix. Each helper here is one call
in the generated code, chosen at bind time from the operand types.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import operator
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from decimal import DivisionByZero as _DecDivZero
from functools import lru_cache
from typing import Any

from ...errors import (
    ArraySubscriptError,
    DataException,
    DivisionByZero,
    FeatureNotSupported,
    InvalidEscapeSequence,
    InvalidParameterValue,
    NullValueNotAllowed,
    NumericValueOutOfRange,
    SQLError,
)
from ...pgtypes import oids as T
from ...pgtypes.arraybounds import (
    Bounded,
    bounded,
    lower_bounds,
    order_parts,
    same_bounds,
    shape,
)
from ...pgtypes.collated import Collated
from ...pgtypes.fardate import days_of
from ...pgtypes.records import Record
from .casts import check_int

_LO4, _HI4 = -(2**31), 2**31 - 1
_LO8, _HI8 = -(2**63), 2**63 - 1
_LO2, _HI2 = -(2**15), 2**15 - 1


def c2(v: int) -> int:
    """Checks an int2 result."""
    if _LO2 <= v <= _HI2:
        return v
    raise NumericValueOutOfRange("smallint out of range")


def c4(v: int) -> int:
    """Checks an int4 result."""
    if _LO4 <= v <= _HI4:
        return v
    raise NumericValueOutOfRange("integer out of range")


def c8(v: int) -> int:
    """Checks an int8 result."""
    if _LO8 <= v <= _HI8:
        return v
    raise NumericValueOutOfRange("bigint out of range")


def cf(v: float, a: Any = 0.0, b: Any = 0.0) -> float:
    """Checks a float8 result for overflow: inf from finite inputs (an infinite input makes
    an infinite result legitimate, as in PostgreSQL's float_overflow_error check)."""
    if math.isinf(v) and not (math.isinf(a) or math.isinf(b)):
        raise NumericValueOutOfRange("value out of range: overflow")
    return v


def idiv(a: int, b: int) -> int:
    """Integer division truncating toward zero, 22012 on zero."""
    if b == 0:
        raise DivisionByZero("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def imod(a: int, b: int) -> int:
    """Integer remainder with the dividend's sign."""
    if b == 0:
        raise DivisionByZero("division by zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def fdiv(a: float, b: float) -> float:
    """float8 division."""
    if b == 0:
        raise DivisionByZero("division by zero")
    return a / b


def _scale(d: Decimal) -> int:
    e = d.as_tuple().exponent
    return -e if isinstance(e, int) and e < 0 else 0


NUMERIC_PRECISION = 1000  # significant digits kept by numeric + - * (PostgreSQL: exact)


def numeric_context() -> None:
    """Raises this thread's decimal precision from Python's 28 digits (numeric(38,0) values
    and their products must stay exact); division picks its own scale (`ndiv`)."""
    c = decimal.getcontext()
    if c.prec < NUMERIC_PRECISION:
        c.prec = NUMERIC_PRECISION


decimal.DefaultContext.prec = NUMERIC_PRECISION  # threads started from now on
numeric_context()


def ndiv(a: Any, b: Any) -> Decimal:
    """numeric division with PostgreSQL's result scale (at least 16 significant digits)."""
    a = Decimal(a)
    b = Decimal(b)
    if a.is_nan() or b.is_nan():  # PostgreSQL: NaN / 0 is NaN, not an error
        return Decimal("NaN")
    if b == 0:
        raise DivisionByZero("division by zero")
    if not a.is_finite() or not b.is_finite():
        return a / b
    with localcontext() as c:
        c.prec = 1100
        w1, d1 = _weight_digit(a)
        w2, d2 = _weight_digit(b)
        qweight = w1 - w2 - (1 if d1 <= d2 else 0)  # PostgreSQL's select_div_scale
        rscale = max(16 - 4 * qweight, _scale(a), _scale(b), 0)
        rscale = min(rscale, 1000)
        return (a / b).quantize(Decimal(1).scaleb(-rscale), rounding=ROUND_HALF_UP)


def _weight_digit(x: Decimal) -> tuple[int, int]:
    """The weight and first digit of x in PostgreSQL's base-10000 representation."""
    if x == 0:
        return 0, 0
    w = x.adjusted() // 4
    return w, int(abs(x).scaleb(-4 * w))


_NARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def narith(op: str, a: Any, b: Any) -> Any:
    """numeric + - *: PostgreSQL answers NaN for Infinity * 0 and Infinity - Infinity, where
    Decimal signals InvalidOperation."""
    try:
        return _NARITH[op](a, b)
    except InvalidOperation:
        return Decimal("NaN")


def nmod(a: Any, b: Any) -> Decimal:
    """numeric remainder."""
    a, b = Decimal(a), Decimal(b)
    if a.is_nan() or b.is_nan():
        return Decimal("NaN")
    if b == 0:
        raise DivisionByZero("division by zero")
    if a.is_infinite():  # PostgreSQL: Infinity % x is NaN, x % Infinity is x
        return Decimal("NaN")
    if b.is_infinite():
        return a
    with localcontext() as c:
        c.prec = 1000
        return a.remainder_near(b) if False else a % b


def power(a: Any, b: Any) -> Any:
    """The ^ operator (float8 or numeric)."""
    try:
        if isinstance(a, Decimal) or isinstance(b, Decimal):
            return _npower(Decimal(a), Decimal(b))
        if a == 0 and b < 0:
            raise DivisionByZero("zero raised to a negative power is undefined")
        fa, fb = float(a), float(b)
        if fa != fa or fb != fb:  # PostgreSQL: NaN ^ 0 = 1 ^ NaN = 1, otherwise NaN
            return 1.0 if fa == 1 or fb == 0 else math.nan
        if fa < 0 and math.isfinite(fb) and fb != math.floor(fb):
            raise InvalidParameterValue(
                "a negative number raised to a non-integer power yields a complex result",
                sqlstate="2201F")
        return cf(fa ** fb, fa, fb)
    except (InvalidOperation, _DecDivZero, OverflowError):
        raise NumericValueOutOfRange("value out of range: overflow") from None


def _npower(a: Decimal, b: Decimal) -> Decimal:
    """numeric ^ numeric at PostgreSQL's result scale: 16 significant digits (16 decimals for
    an integer exponent), never fewer decimals than either input."""
    if a.is_nan() or b.is_nan():  # PostgreSQL: NaN ^ 0 = 1 ^ NaN = 1, otherwise NaN
        return Decimal(1) if a == 1 or b == 0 else Decimal("NaN")
    if a == 0 and b < 0:
        raise DivisionByZero("zero raised to a negative power is undefined")
    if a < 0 and b != b.to_integral_value():
        raise InvalidParameterValue(
            "a negative number raised to a non-integer power yields a complex result",
            sqlstate="2201F")
    with localcontext() as c:
        c.prec = 1100
        r = a ** b
        rscale = 16
        if b != b.to_integral_value() and r != 0:
            rscale = 16 - int(math.log10(abs(r)))
        rscale = min(max(rscale, _scale(a), _scale(b), 0), 1000)
        return r.quantize(Decimal(1).scaleb(-rscale), rounding=ROUND_HALF_UP)


def neg(v: Any, oid: int) -> Any:
    """Unary minus with the integer range check."""
    r = -v
    return check_int(r, oid) if oid in (T.INT2, T.INT4, T.INT8) else r


def nsub(a: Any, b: Any) -> Any:
    """Subtraction that also covers timestamp - timestamp and date - date."""
    try:
        r = a - b
    except OverflowError:  # NB: two far dates (pgtypes.fardate) more days apart than timedelta
        return days_of(a) - days_of(b)
    if isinstance(a, dt.date) and not isinstance(a, dt.datetime) and isinstance(b, dt.date):
        if not isinstance(b, dt.datetime):
            return r.days
    return r


def concat(a: Any, b: Any) -> Any:
    """The || operator on strings or arrays."""
    if isinstance(a, list) or isinstance(b, list):
        la = a if isinstance(a, list) else [a]
        lb = b if isinstance(b, list) else [b]
        return la + lb
    return a + b


def bytea_cat(a: bytes, b: bytes) -> bytes:
    """bytea || bytea."""
    return bytes(a) + bytes(b)


def array_cat_op(a: list | None, b: list | None) -> list | None:
    """array || array (array_cat): a NULL or empty side gives the other; arrays of one
    dimension more than the other take it as one more element (`{{1,2}} || {3,4}` is
    {{1,2},{3,4}}), as PostgreSQL's array_cat. The result has the lower bounds of the
    outer side (the left one when both have as many dimensions). The other dimensions and
    their lower bounds must match, and the dimension counts differ by one at most, else
    2202E as in PostgreSQL (`{{1,2}} || [0:1]={3,4}` is one)."""
    if not a or not b:
        return b if a is None or (not a and b is not None) else a
    sa, sb = _array_shape(a), _array_shape(b)
    la = a.lower if type(a) is Bounded else (1,) * len(sa)
    lb = b.lower if type(b) is Bounded else (1,) * len(sb)
    da, db = len(sa), len(sb)
    if da == db + 1:
        if sa[1:] != sb or la[1:] != lb:
            raise _incompatible("Arrays with differing dimensions are not compatible for "
                                "concatenation.")
        return same_bounds(a, [*a, list(b)])
    if db == da + 1:
        if sb[1:] != sa or lb[1:] != la:
            raise _incompatible("Arrays with differing dimensions are not compatible for "
                                "concatenation.")
        return same_bounds(b, [list(a), *b])
    if da != db:
        raise _incompatible(f"Arrays of {da} and {db} dimensions are not compatible for "
                            "concatenation.")
    if sa[1:] != sb[1:] or la[1:] != lb[1:]:
        raise _incompatible("Arrays with differing element dimensions are not compatible "
                            "for concatenation.")
    return same_bounds(a, a + b)


def _incompatible(detail: str) -> SQLError:
    return ArraySubscriptError("cannot concatenate incompatible arrays", detail=detail)


def _array_shape(v: Any) -> tuple[int, ...]:
    """The length of each dimension of an array (a record element is not one more)."""
    out: list[int] = []
    while isinstance(v, list | tuple) and v and not isinstance(v, Record):
        out.append(len(v))
        v = v[0]
    return tuple(out)


def array_append_op(a: list | None, x: Any) -> list:
    """array || element: a NULL array is empty; a NULL element is appended. The array's
    lower bound stays."""
    return [x] if a is None else same_bounds(a, [*a, x])


def array_prepend_op(x: Any, b: list | None) -> list:
    """element || array: a NULL array is empty; a NULL element is prepended. The array's
    lower bound stays (PostgreSQL's array_prepend readjusts it to the input's)."""
    return [x] if b is None else same_bounds(b, [x, *b])


@lru_cache(maxsize=512)
def matchable(s: Any, what: str) -> Any:
    """The subject of LIKE / a regular expression, refused (0A000, as PostgreSQL) under a
    nondeterministic collation, whose equal strings a pattern cannot tell (`collated`)."""
    if type(s) is not str and isinstance(s, Collated) and not s.deterministic:
        raise FeatureNotSupported(f"nondeterministic collations are not supported for {what}")
    return s


def like_regex(pattern: str, ci: bool, escape: str = "\\") -> re.Pattern[str]:
    """Translates a LIKE pattern into a compiled regex (cached)."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if escape and c == escape:
            i += 1
            if i >= n:
                raise InvalidEscapeSequence("LIKE pattern must not end with escape character")
            out.append(re.escape(pattern[i]))
        elif c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.S | (re.I if ci else 0))


def like(s: str, pattern: str, ci: bool = False, escape: str = "\\") -> bool:
    """SQL LIKE / ILIKE (`escape` from an ESCAPE clause; '' turns escaping off)."""
    return like_regex(pattern, ci, like_escape(escape)).fullmatch(s) is not None


def like_escape(escape: str) -> str:
    """Checks an ESCAPE clause's argument: empty or one character."""
    if len(escape) > 1:
        raise InvalidEscapeSequence("invalid escape string",
                                    hint="Escape string must be empty or one character.")
    return escape


@lru_cache(maxsize=256)
def similar_regex(pattern: str) -> re.Pattern[str]:
    """Translates a SIMILAR TO pattern (SQL regular expression) into a Python regex."""
    out = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise InvalidEscapeSequence("SIMILAR TO pattern must not end with escape character")
            out.append(re.escape(pattern[i]))
        elif in_class:
            out.append(c)
            in_class = c != "]"
        elif c == "[":
            out.append(c)
            in_class = True
        elif c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        elif c in "|*+?{}(),0123456789":
            out.append(c)
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.S)


def similar(s: str, pattern: str) -> bool:
    """SQL SIMILAR TO."""
    return similar_regex(pattern).fullmatch(s) is not None


_PG_CLASSES = {
    "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9", "[:alnum:]": "a-zA-Z0-9", "[:space:]": r"\s",
    "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:punct:]": r"!-/:-@\[-`{-~", "[:xdigit:]": "0-9a-fA-F",
}


@lru_cache(maxsize=512)
def pg_regex(pattern: str, ci: bool) -> re.Pattern[str]:
    """Compiles a POSIX regex as PostgreSQL's ~ operator reads it (cached)."""
    p = pattern
    for k, v in _PG_CLASSES.items():
        p = p.replace(k, v)
    p = p.replace(r"\m", r"\b").replace(r"\M", r"\b").replace(r"\y", r"\b")
    try:
        return re.compile(p, re.I if ci else 0)
    except re.error as e:
        raise InvalidParameterValue(f"invalid regular expression: {e}") from None


def regex(s: str, pattern: str, ci: bool = False) -> bool:
    """The ~ / ~* operators."""
    return pg_regex(pattern, ci).search(s) is not None


def any_op(v: Any, arr: Any, op: Any, is_all: bool) -> bool | None:
    """`v op ANY(arr)` / `v op ALL(arr)` with SQL's NULL rules."""
    if arr is None:
        return None
    if not arr:  # an empty array decides alone, even for a NULL v (as in PostgreSQL)
        return is_all
    if v is None:
        return None
    saw_null = False
    for x in arr:
        if x is None:
            saw_null = True
            continue
        r = op(v, x)
        if is_all and not r:
            return False
        if not is_all and r:
            return True
    if saw_null:
        return None
    return is_all


def nan_eq(a: Any, b: Any) -> bool:
    """a = b for NULLIF on float/numeric: NaN equals NaN in SQL."""
    return a == b or (a != a and b is not None and b != b)


def in_values(v: Any, values: Any, has_null: bool) -> bool | None:
    """`v IN (...)` over a set of non-NULL values, NULL-aware."""
    if v is None:
        return None
    if v in values or (v != v and any(x != x for x in values)):  # NaN equals NaN in SQL
        return True
    if type(v) is not str and isinstance(v, Collated) and not v.deterministic \
            and any(v == x for x in values):  # NB: equal under the collator, hashed apart
        return True
    return None if has_null else False


class ParamSet:
    """`v IN ($1, ..., $n)` over a long list of parameters (`sql.paramlists`): the values
    become a set once per execution (kept in the execution's `plan_cache`), then each row
    is a probe with `in_values`' answers; values that do not hash compare as `any_op`."""

    __slots__ = ("slots",)

    def __init__(self, slots: list[int]) -> None:
        self.slots = slots  # 0-based parameter positions

    def probe(self, v: Any, ctx: Any) -> bool | None:
        got = ctx.plan_cache.get(self)
        if got is None:
            params = ctx.params
            values = [params[i] for i in self.slots]
            try:
                got = (frozenset(x for x in values if x is not None), None in values, None)
            except TypeError:
                got = (None, False, values)
            ctx.plan_cache[self] = got
        if got[2] is not None:
            return any_op(v, got[2], operator.eq, False)
        return in_values(v, got[0], got[1])


def row_cmp(a: tuple, b: tuple, op: str) -> bool | None:
    """Row-wise comparison `(a, b) < (c, d)` with SQL's NULL rules."""
    if op in ("=", "<>"):
        saw_null = False
        for x, y in zip(a, b, strict=True):
            if x is None or y is None:
                saw_null = True
            elif x != y:
                return op == "<>"
        return None if saw_null else op == "="
    for x, y in zip(a, b, strict=True):
        if x is None or y is None:
            return None
        if x != y:
            return {"<": x < y, "<=": x < y, ">": x > y, ">=": x > y}[op]
    return op in ("<=", ">=")


def subscript(arr: Any, i: Any, *more: Any) -> Any:
    """arr[i][j]... with 1-based indexes; out of range, or fewer or more subscripts than the
    array has dimensions, gives NULL (PostgreSQL's rule)."""
    if arr is None or i is None:
        return None
    if isinstance(arr, str):
        raise DataException("cannot subscript type text because it does not support subscripting")
    if type(arr) is Bounded:  # NB: counted from its own lower bounds
        i, more = _from_one(arr, (i, *more))
    v = arr
    for k in (i, *more):
        if k is None or not isinstance(v, list | tuple) or not 1 <= k <= len(v):
            return None
        v = v[k - 1]
    if isinstance(v, list) and isinstance(arr, list):  # fewer subscripts than dimensions
        return None
    return v


def _from_one(arr: Bounded, subs: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Subscripts of a `Bounded` array as they would be with lower bounds 1 (past its
    dimensions, as given: those find nothing either way)."""
    out = tuple(k if k is None or d >= len(arr.lower) else k - arr.lower[d] + 1
                for d, k in enumerate(subs))
    return out[0], out[1:]


def name_subscript(name: str, i: int) -> str | None:
    """name[i]: a name is a char[64] with lower bound 0, so past its text comes '' (a NUL).

    >>> name_subscript("_int4", 0), name_subscript("ab", 5), name_subscript("ab", 64)
    ('_', '', None)
    """
    if not 0 <= i < 64:
        return None
    raw = name.encode()
    return chr(raw[i]) if i < len(raw) and raw[i] < 128 else ""


def vector_subscript(vec: list[Any], i: int) -> Any:
    """int2vector / oidvector subscript: PostgreSQL's lower bound for them is 0."""
    return vec[i] if 0 <= i < len(vec) else None


def nest_arrays(*subs: Any) -> list[Any]:
    """ARRAY[a, b, ...] of arrays: one more dimension; the sub-arrays must have equal shapes
    and lower bounds (2202E), NULL ones count as empty, and all-empty gives '{}'. Their lower
    bounds are the result's inner ones ('[1:2][0:1]' of two '[0:1]' arrays)."""
    shapes = {(tuple(shape(x)), lower_bounds(x)) for x in subs}
    if len(shapes) > 1:
        raise ArraySubscriptError(
            "multidimensional arrays must have array expressions with matching dimensions")
    if not subs or shapes == {((), ())}:
        return []
    return bounded([list(x) for x in subs], (1, *lower_bounds(subs[0])))


def accumulate_arrays(vals: list[Any]) -> list[Any]:
    """array_agg over arrays: equal shapes (2202E), no NULLs (22004), no empty arrays."""
    if any(v is None for v in vals):
        raise NullValueNotAllowed("cannot accumulate null arrays")
    if any(not v for v in vals):
        raise ArraySubscriptError("cannot accumulate empty arrays")
    if len({(tuple(shape(v)), lower_bounds(v)) for v in vals}) > 1:  # NB: array_agg_array_transfn
        raise ArraySubscriptError("cannot accumulate arrays of different dimensionality")
    return bounded([list(v) for v in vals], (1, *lower_bounds(vals[0])))


def array_slice(arr: Any, *bounds: Any) -> Any:
    """arr[lo:hi][lo2:hi2]...: the sub-array within the bounds (clipped); '{}' when empty."""
    if arr is None or any(b is None for b in bounds):
        return None
    pairs = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    if type(arr) is Bounded:  # NB: the slice is of its own subscripts; the result counts from 1
        lows = arr.lower
        pairs = [(lo - lows[d] + 1, hi - lows[d] + 1) if d < len(lows) else (lo, hi)
                 for d, (lo, hi) in enumerate(pairs)]

    empty = object()  # NB: not None, which is a NULL element

    def cut(v: Any, d: int) -> Any:
        if d >= len(pairs) or not isinstance(v, list | tuple):
            return list(v) if isinstance(v, list | tuple) else v
        lo, hi = max(pairs[d][0], 1), min(pairs[d][1], len(v))
        if lo > hi:
            return empty
        out = []
        for x in v[lo - 1 : hi]:
            sub = cut(x, d + 1)
            if sub is empty:
                return empty
            out.append(sub)
        return out

    if len(pairs) > array_ndims(arr):
        return []
    got = cut(arr, 0)
    return [] if got is empty else got


def array_ndims(arr: Any) -> int:
    """The number of dimensions of a (rectangular) nested-list array; 0 when empty."""
    n = 0
    while isinstance(arr, list | tuple) and arr:
        n += 1
        arr = arr[0]
    return n


def greatest(values: list[Any], least: bool = False) -> Any:
    """GREATEST/LEAST ignoring NULLs."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return extreme(vals, least)


def _nan_last(v: Any) -> tuple:
    return (1,) if v != v else (0, v)


def array_key(v: Any) -> Any:
    """An array as a hashable key (nested lists as tuples); NULL and other values as they are.

    >>> array_key([1, [2, None]]), array_key(None)
    ((1, (2, None)), None)
    """
    if not isinstance(v, list):
        return v
    key = tuple(array_key(x) if isinstance(x, list) else x for x in v)
    # NB: '[2:3]={1,2}' is not '{1,2}' (array_eq compares the bounds); NUL is in no text
    return ("\0bounds", v.lower, key) if type(v) is Bounded else key


def nested_sort_key(v: Any) -> Any:
    """The sort key of a record's or array's items, as PostgreSQL's record_cmp and
    array_cmp order them: item by item, a NULL item above every value and NaN above
    every number (Python's `<` would raise on None). A shorter prefix sorts first.

    >>> sorted([(1, None), (1, 2), (None, 0)], key=nested_sort_key)
    [(1, 2), (1, None), (None, 0)]
    """
    if isinstance(v, list):
        return _array_sort_key(v)
    return tuple((2,) if x is None else (0, nested_sort_key(x)) if isinstance(x, (tuple, list))
                 else (1,) if x != x else (0, x) for x in v)


def _array_sort_key(v: list) -> tuple:
    """array_cmp's order: the elements in storage order whatever the dimensions, then (all
    of them equal) the fewer elements, the fewer dimensions, the shorter dimensions and the
    lower bounds first: '{1}' < '{1,2}' < '[2:3]={1,2}' < '{{1,2}}'.

    >>> from cumulo.server.pgtypes.arraybounds import bounded
    >>> sorted([[[1, 2]], bounded([1, 2], [2]), [1, 2], [1], bounded([1, 2], [0])],
    ...        key=nested_sort_key)
    [[1], Bounded([1, 2], (0,)), [1, 2], Bounded([1, 2], (2,)), [[1, 2]]]
    """
    flat, dims, lower = order_parts(v)
    return (nested_sort_key(tuple(flat)), len(dims), dims, lower)


def item_sort_key(v: Any) -> Any:
    """A min/max key: NaN above numbers, arrays item by item (nested_sort_key)."""
    return nested_sort_key(v) if isinstance(v, list | tuple) else _nan_last(v)


def extreme(vals: list[Any], least: bool = False) -> Any:
    """min/max of non-NULL values with PostgreSQL's NaN order (above every number), where
    Python's raises on a numeric NaN and answers by position for a float one; arrays with
    NULL items (where Python's raises) compare item by item, as array_cmp does."""
    pick = min if least else max
    try:
        m = pick(vals)
    except (InvalidOperation, TypeError):
        return pick(vals, key=item_sort_key)
    if isinstance(m, list):  # NB: list order is not array_cmp's (dimensions, bounds)
        return pick(vals, key=item_sort_key)
    if type(m) is float and any(x != x for x in vals):
        return pick(vals, key=_nan_last)
    return m


def distinct(a: Any, b: Any) -> bool:
    """IS DISTINCT FROM."""
    if a is None or b is None:
        return (a is None) != (b is None)
    return a != b and (a == a or b == b)  # NB: NaN is not distinct from NaN


def nan_cmp(op: str, a: Any, b: Any) -> bool:
    """A comparison with a NaN operand (float or numeric): PostgreSQL treats NaN as equal to
    itself and greater than every number, where Python says False (float) or raises."""
    ka, kb = (1, 0) if a != a else (0, a), (1, 0) if b != b else (0, b)
    if op == "=":
        return ka == kb
    if op == "<>":
        return ka != kb
    return bool({"<": ka < kb, "<=": ka <= kb, ">": ka > kb, ">=": ka >= kb}[op])
