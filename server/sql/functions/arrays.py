"""Array functions and the set-returning functions over arrays and ranges of values.

Arrays are Python lists (nested for several dimensions), with lower bound 1
unless they are `arraybounds.Bounded` ('[2:3]={1,2}'), except int2vector and
oidvector, which PostgreSQL subscripts from 0: they get their own overloads, so
`generate_subscripts(indkey, 1)` yields 0..n-1 as SQLAlchemy's index reflection
expects.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from ...errors import DatetimeFieldOverflow, InvalidParameterValue
from ...pgtypes import oids as T
from ...pgtypes.arraybounds import Bounded, dims_text, same_bounds
from ...pgtypes.interval import add_to_timestamp
from ..expr.runtime import array_append_op, array_cat_op, array_prepend_op
from .formatting import output_text
from .registry import ANY, register

VECTORS = {T.INT2VECTOR: T.INT2, T.OIDVECTOR: T.OID}


def element_type(arg_oids: list[int]) -> int:
    """Returns the element type of the first argument's array type."""
    a = arg_oids[0] if arg_oids else T.ANYARRAY
    return VECTORS.get(a) or T.ELEMENT_OF.get(a, T.ANYELEMENT)


def array_of_first(arg_oids: list[int]) -> int:
    """Returns the array type of the first argument (an array type stays as it is)."""
    a = arg_oids[0] if arg_oids else T.ANYARRAY
    if a in VECTORS:
        return T.ARRAY_OF[VECTORS[a]]
    return a if a in T.ELEMENT_OF or a == T.ANYARRAY else T.ARRAY_OF.get(a, T.ANYARRAY)


def flatten(arr: list[Any]) -> list[Any]:
    """Returns the elements of a (possibly nested) array in storage order."""
    if not any(isinstance(x, list) for x in arr):
        return arr
    out: list[Any] = []
    for x in arr:
        out.extend(flatten(x) if isinstance(x, list) else [x])
    return out


def _dims(arr: list[Any]) -> list[int]:
    dims = []
    cur: Any = arr
    while isinstance(cur, list) and cur:
        dims.append(len(cur))
        cur = cur[0]
    return dims


@register("array_to_string", args=[T.ANYARRAY, T.TEXT], returns=T.TEXT, strict=False)
def array_to_string(arr: list[Any] | None, sep: str | None, null: str | None = None) -> str | None:
    """Joins the elements' text with sep; NULLs are skipped unless a null string is given."""
    if arr is None or sep is None:
        return None
    parts = [null if x is None else output_text(x) for x in flatten(arr)]
    return sep.join(p for p in parts if p is not None)


register("array_to_string", args=[T.ANYARRAY, T.TEXT, T.TEXT], returns=T.TEXT,
         strict=False)(array_to_string)


@register("array_position", args=[T.ANYARRAY, T.ANYELEMENT], returns=T.INT4, strict=False)
def array_position(arr: list[Any] | None, value: Any) -> int | None:
    """Returns the subscript of value (IS NOT DISTINCT FROM), NULL when absent."""
    if arr is None:
        return None
    return _position(arr, value, _lower_of(arr, 1, 1))


@register("array_position", args=[T.ANYARRAY, T.ANYELEMENT, T.INT4], returns=T.INT4,
          strict=False)
def array_position_from(arr: list[Any] | None, value: Any, start: int | None) -> int | None:
    """array_position from subscript `start` on."""
    if arr is None:
        return None
    if start is None:
        raise InvalidParameterValue("initial position must not be null")
    return _position(arr, value, start)


def _position(arr: list[Any], value: Any, start: int) -> int | None:
    """The first subscript from `start` holding value; subscripts count from the array's
    lower bound."""
    lo = _lower_of(arr, 1, 1)
    for n in range(max(start - lo, 0), len(arr)):
        if arr[n] == value or (arr[n] is None and value is None):
            return n + lo
    return None


@register("array_positions", args=[T.ANYARRAY, T.ANYELEMENT], returns=T.ARRAY_OF[T.INT4],
          strict=False)
def array_positions(arr: list[Any] | None, value: Any) -> list[int] | None:
    """Returns every subscript of value (from the array's lower bound)."""
    if arr is None:
        return None
    lo = _lower_of(arr, 1, 1)
    return [n + lo for n, x in enumerate(arr) if x == value or (x is None and value is None)]


def _lower_of(arr: list[Any], dim: int, base: int) -> int:
    """The lower bound of dimension `dim` (1-based, present): `base` unless `arr` has its own."""
    return arr.lower[dim - 1] if type(arr) is Bounded else base


def _upper(base: int):  # noqa: ANN202
    def upper(arr: list[Any], dim: int) -> int | None:
        """Returns the upper bound of one dimension."""
        dims = _dims(arr)
        return _lower_of(arr, dim, base) + dims[dim - 1] - 1 if 1 <= dim <= len(dims) else None

    return upper


def _lower(base: int):  # noqa: ANN202
    def lower(arr: list[Any], dim: int) -> int | None:
        """Returns the lower bound of one dimension."""
        return _lower_of(arr, dim, base) if 1 <= dim <= len(_dims(arr)) else None

    return lower


register("array_upper", args=[T.ANYARRAY, T.INT4], returns=T.INT4)(_upper(1))
register("array_lower", args=[T.ANYARRAY, T.INT4], returns=T.INT4)(_lower(1))
for _vec in VECTORS:
    register("array_upper", args=[_vec, T.INT4], returns=T.INT4)(_upper(0))
    register("array_lower", args=[_vec, T.INT4], returns=T.INT4)(_lower(0))


@register("array_length", args=[T.ANYARRAY, T.INT4], returns=T.INT4)
def array_length(arr: list[Any], dim: int) -> int | None:
    """Returns the length of one dimension (NULL for an empty array or a missing dimension)."""
    dims = _dims(arr)
    return dims[dim - 1] if 1 <= dim <= len(dims) else None


@register("cardinality", args=[T.ANYARRAY], returns=T.INT4)
def cardinality(arr: list[Any]) -> int:
    """Returns the total number of elements."""
    return len(flatten(arr))


@register("array_ndims", args=[T.ANYARRAY], returns=T.INT4)
def array_ndims(arr: list[Any]) -> int | None:
    """Returns the number of dimensions (NULL for an empty array)."""
    return len(_dims(arr)) or None


@register("array_dims", args=[T.ANYARRAY], returns=T.TEXT)
def array_dims(arr: list[Any]) -> str | None:
    """Returns the dimensions as text ("[1:3]")."""
    return dims_text(arr) or None


@register("array_append", args=[T.ANYARRAY, T.ANYELEMENT], returns=array_of_first, strict=False)
def array_append(arr: list[Any] | None, value: Any) -> list[Any]:
    """Returns the array with value added at the end."""
    return array_append_op(arr, value)


@register("array_prepend", args=[T.ANYELEMENT, T.ANYARRAY],
          returns=lambda a: a[1] if len(a) > 1 else T.ANYARRAY, strict=False)
def array_prepend(value: Any, arr: list[Any] | None) -> list[Any]:
    """Returns the array with value added at the front."""
    return array_prepend_op(value, arr)


@register("array_cat", args=[T.ANYARRAY, T.ANYARRAY], returns=array_of_first, strict=False)
def array_cat(a: list[Any] | None, b: list[Any] | None) -> list[Any] | None:
    """Concatenates two arrays (a NULL side counts as empty), as `||` does."""
    return array_cat_op(a, b)


@register("array_remove", args=[T.ANYARRAY, T.ANYELEMENT], returns=array_of_first, strict=False)
def array_remove(arr: list[Any] | None, value: Any) -> list[Any] | None:
    """Removes every element equal to value."""
    if arr is None:
        return None
    return same_bounds(arr, [x for x in arr if not (x == value or (x is None and value is None))])


@register("array_replace", args=[T.ANYARRAY, T.ANYELEMENT, T.ANYELEMENT],
          returns=array_of_first, strict=False)
def array_replace(arr: list[Any] | None, old: Any, new: Any) -> list[Any] | None:
    """Replaces every element equal to old with new."""
    if arr is None:
        return None
    return same_bounds(arr, [new if (x == old or (x is None and old is None)) else x for x in arr])


@register("unnest", args=[T.ANYARRAY], returns=element_type, set_returning=True)
def unnest(arr: list[Any]) -> list[Any]:
    """Yields the elements in storage order."""
    return flatten(arr)


for _vec in VECTORS:
    register("unnest", args=[_vec], returns=element_type, set_returning=True)(unnest)


def _subscripts(base: int):  # noqa: ANN202
    def gen(arr: list[Any], dim: int, reverse: bool = False) -> Iterator[int]:
        """Yields the subscripts of one dimension."""
        dims = _dims(arr)
        if not 1 <= dim <= len(dims):
            return iter(())
        lo = _lower_of(arr, dim, base)
        subs = range(lo, lo + dims[dim - 1])
        return iter(reversed(subs) if reverse else subs)

    return gen


for _arr, _base in ((T.ANYARRAY, 1), (T.INT2VECTOR, 0), (T.OIDVECTOR, 0)):
    register("generate_subscripts", args=[_arr, T.INT4], returns=T.INT4,
             set_returning=True)(_subscripts(_base))
    register("generate_subscripts", args=[_arr, T.INT4, T.BOOL], returns=T.INT4,
             set_returning=True)(_subscripts(_base))


def _expand(arr: list[Any]) -> Iterator[tuple[Any, int]]:
    """Yields (element, 1-based index) pairs: information_schema._pg_expandarray."""
    return ((x, n) for n, x in enumerate(flatten(arr), 1))


register("_pg_expandarray", args=[T.ANYARRAY], returns=T.RECORD, set_returning=True,
         out_columns=[("x", T.ANYELEMENT), ("n", T.INT4)])(_expand)
for _vec, _elem in VECTORS.items():
    register("_pg_expandarray", args=[_vec], returns=T.RECORD, set_returning=True,
             out_columns=[("x", _elem), ("n", T.INT4)])(_expand)


def _series(start: Any, stop: Any, step: Any = 1) -> Iterator[Any]:
    """Yields start, start+step, ... up to stop."""
    zero = dt.timedelta(0) if isinstance(step, dt.timedelta) else 0
    if step == zero:
        raise InvalidParameterValue("step size cannot equal zero")
    return _walk(start, stop, step, step > zero)


def _walk(cur: Any, stop: Any, step: Any, ascending: bool) -> Iterator[Any]:
    while (cur <= stop) if ascending else (cur >= stop):
        yield cur
        cur += step


for _t in (T.INT4, T.INT8, T.NUMERIC):
    register("generate_series", args=[_t, _t], returns=_t, set_returning=True)(_series)
    register("generate_series", args=[_t, _t, _t], returns=_t, set_returning=True)(_series)


def _ts_series(start: Any, stop: Any, step: Any) -> Iterator[Any]:
    """Yields start, start + step, ... (calendar arithmetic: '1 month' steps keep the day)."""
    zero = dt.timedelta(0)
    if step == zero:
        raise InvalidParameterValue("step size cannot equal zero")
    cur, ascending = start, step > zero
    while (cur <= stop) if ascending else (cur >= stop):
        yield cur
        try:
            cur = add_to_timestamp(cur, step)
        except DatetimeFieldOverflow:
            return  # NB: past what a timestamp holds here, so past `stop` too


for _t in (T.TIMESTAMP, T.TIMESTAMPTZ):
    register("generate_series", args=[_t, _t, T.INTERVAL], returns=_t,
             set_returning=True)(_ts_series)


@register("array_fill", args=[ANY, T.ARRAY_OF[T.INT4]],
          returns=lambda a: T.ARRAY_OF.get(a[0], T.ANYARRAY), strict=False)
def array_fill(value: Any, dims: list[int] | None) -> list[Any]:
    """Returns an array of the given dimensions filled with value."""
    if dims is None:
        raise InvalidParameterValue("dimension array or low bound array cannot be null")

    def build(ds: list[int]) -> list[Any]:
        return [value] * ds[0] if len(ds) == 1 else [build(ds[1:]) for _ in range(ds[0])]

    return build(list(dims)) if dims else []


