"""Range functions: the constructors (`int4range(1, 5, '[]')`) and lower, upper, isempty, ...

One overload per built-in range type, as pg_proc has them (PostgreSQL declares
them over anyrange; the registry has no polymorphic range type, and six
explicit overloads resolve the same way). The range semantics live in
`pgtypes.ranges`; the operators (@>, &&, -|-, +, ...) are bound in
`expr.rangeops`.
"""

from __future__ import annotations

from typing import Any

from ...errors import DataException
from ...pgtypes import oids as T
from ...pgtypes import ranges as R
from .registry import register


def _constructor(oid: int) -> tuple[Any, Any]:
    def two(lower: Any, upper: Any) -> R.Range:
        """Builds a range with the default '[)' bounds; a NULL bound is infinite."""
        return R.make(oid, lower, upper)

    def three(lower: Any, upper: Any, flags: str | None) -> R.Range:
        """Builds a range with the given bound flags ('[]', '[)', '(]' or '()')."""
        if flags is None:
            raise DataException("range constructor flags argument must not be null")
        return R.make(oid, lower, upper, flags)

    return two, three


def lower(r: R.Range) -> object:
    """The lower bound of a range (NULL if empty or infinite)."""
    return R.lower(r)


def upper(r: R.Range) -> object:
    """The upper bound of a range (NULL if empty or infinite)."""
    return R.upper(r)


def isempty(r: R.Range) -> bool:
    """Is the range empty?"""
    return r.empty


def lower_inc(r: R.Range) -> bool:
    """Is the range's lower bound inclusive?"""
    return bool(r.flags & R.LB_INC)


def upper_inc(r: R.Range) -> bool:
    """Is the range's upper bound inclusive?"""
    return bool(r.flags & R.UB_INC)


def lower_inf(r: R.Range) -> bool:
    """Is the range's lower bound infinite?"""
    return bool(r.flags & R.LB_INF)


def upper_inf(r: R.Range) -> bool:
    """Is the range's upper bound infinite?"""
    return bool(r.flags & R.UB_INF)


def range_merge(a: R.Range, b: R.Range) -> R.Range:
    """The smallest range that includes both ranges (gaps allowed)."""
    return R.merge(a, b, False)


def _register(oid: int) -> None:
    sub, name = R.RANGE_TYPES[oid][0], R.RANGE_TYPES[oid][1]
    two, three = _constructor(oid)
    register(name, args=[sub, sub], returns=oid, strict=False)(two)
    register(name, args=[sub, sub, T.TEXT], returns=oid, strict=False)(three)
    register("lower", args=[oid], returns=sub)(lower)
    register("upper", args=[oid], returns=sub)(upper)
    for fn in (isempty, lower_inc, upper_inc, lower_inf, upper_inf):
        register(fn.__name__, args=[oid], returns=T.BOOL)(fn)
    register("range_merge", args=[oid, oid], returns=oid)(range_merge)


for _oid in R.RANGE_TYPES:
    _register(_oid)
