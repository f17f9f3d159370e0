"""Range functions: the constructors (`int4range(1, 5, '[]')`) and lower, upper, isempty, ...

One overload per built-in range type, as pg_proc has them (PostgreSQL declares
them over anyrange; the registry has no polymorphic range type, and six
explicit overloads resolve the same way). The range semantics live in
`pgtypes.ranges`; the operators (@>, &&, -|-, +, ...) are bound in
`expr.rangeops`.
"""

from __future__ import annotations

from typing import Any

from ...errors import DataException, NullValueNotAllowed
from ...pgtypes import multiranges as M
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


def _register_multi(oid: int) -> None:
    rng = M.RANGE_OF[oid]
    sub = R.SUBTYPE[rng]

    def construct(*ranges: R.Range | None) -> M.MultiRange:
        """Builds a multirange of the given ranges (none: the empty multirange)."""
        if any(r is None for r in ranges):
            raise NullValueNotAllowed("multirange values cannot contain null members")
        return M.make(oid, ranges)  # type: ignore[arg-type]  # NB: no None, checked above

    def multirange(r: R.Range) -> M.MultiRange:
        """The multirange holding just this range."""
        return M.make(oid, [r])

    def first(m: M.MultiRange) -> R.Range | None:
        return m.ranges[0] if m.ranges else None

    def last(m: M.MultiRange) -> R.Range | None:
        return m.ranges[-1] if m.ranges else None

    def mlower(m: M.MultiRange) -> object:
        """The lower bound of the first range (NULL if empty or infinite)."""
        return None if not m.ranges else R.lower(m.ranges[0])

    def mupper(m: M.MultiRange) -> object:
        """The upper bound of the last range (NULL if empty or infinite)."""
        return None if not m.ranges else R.upper(m.ranges[-1])

    def misempty(m: M.MultiRange) -> bool:
        """Is the multirange empty?"""
        return not m.ranges

    def range_agg(ranges: list[R.Range | None] | None) -> M.MultiRange | None:
        """range_agg(r): the union of a group's non-NULL ranges, NULL when it has none. The
        binder (`find_aggregates`) turns the aggregate into this over array_agg(r), so
        grouping, ORDER BY and DISTINCT inside the call are array_agg's."""
        kept = [r for r in ranges or () if r is not None]
        return M.make(oid, kept) if kept else None

    register(R.RANGE_TYPES[rng][1].replace("range", "multirange"), args=None, returns=oid,
             strict=False)(construct)
    register("range_agg", args=[T.ARRAY_OF[rng]], returns=oid, strict=False)(range_agg)
    register("multirange", args=[rng], returns=oid)(multirange)
    register("range_merge", args=[oid], returns=rng)(M.span)
    register("lower", args=[oid], returns=sub)(mlower)
    register("upper", args=[oid], returns=sub)(mupper)
    register("isempty", args=[oid], returns=T.BOOL)(misempty)
    for name, pick, fn in (("lower_inc", first, lower_inc), ("upper_inc", last, upper_inc),
                           ("lower_inf", first, lower_inf), ("upper_inf", last, upper_inf)):
        def bound(m: M.MultiRange, pick: object = pick, fn: object = fn) -> bool:
            r = pick(m)  # type: ignore[operator]
            return False if r is None else fn(r)  # type: ignore[operator]

        bound.__doc__ = f"{name} of the multirange's {'first' if pick is first else 'last'} range."
        register(name, args=[oid], returns=T.BOOL)(bound)


for _oid in M.RANGE_OF:
    _register_multi(_oid)
