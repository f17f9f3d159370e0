"""Filters and partial aggregates evaluated inside the transaction layer.

Why this exists: a transaction with private writes in a scanned space cannot
let the node aggregate or limit for it, because the node does not see the
uncommitted rows. The transaction then filters its own rows and aggregates the
merged stream itself, with the same semantics as the node. KiVi's own
`kivi.expr.compile_filter` and `kivi.agg` are used when present; until they
exist (and as a reference) this module compiles the filter IR of `kivi.api`
into nested closures once per IR tree, so no tree is walked per row.

NULL follows SQL three-valued logic: a sub-expression yields None for unknown,
and a row passes only if the whole filter yields True.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..errors import DivisionByZero, FeatureNotSupported
from ..kivi.api import IR, AggSpec, Row

Fn = Callable[[Row], Any]

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _div(a: Any, b: Any) -> Any:
    if b == 0:
        raise DivisionByZero("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)  # SQL integer division truncates toward zero
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _mod(a: Any, b: Any) -> Any:
    if b == 0:
        raise DivisionByZero("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        r = abs(a) % abs(b)  # the sign follows the dividend, as in PostgreSQL
        return r if a >= 0 else -r
    import math

    return math.fmod(a, b)


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _div,
    "%": _mod,
}


def _like_regex(pattern: str, ci: bool) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    return re.compile("".join(out), re.S | (re.I if ci else 0))


def _compile(e: IR) -> Fn:
    op = e[0]
    if op == "col":
        i = e[1]
        return lambda r: r[i]
    if op == "const":
        v = e[1]
        return lambda r: v
    if op == "cmp":
        f, a, b = _CMP[e[1]], _compile(e[2]), _compile(e[3])

        def cmp(r: Row) -> Any:
            x, y = a(r), b(r)
            return None if x is None or y is None else f(x, y)

        return cmp
    if op == "arith":
        f, a, b = _ARITH[e[1]], _compile(e[2]), _compile(e[3])

        def arith(r: Row) -> Any:
            x, y = a(r), b(r)
            return None if x is None or y is None else f(x, y)

        return arith
    if op in ("and", "or"):
        parts = [_compile(x) for x in e[1]]
        decisive = op == "or"  # the value that settles the result at once

        def junction(r: Row) -> Any:
            unknown = False
            for p in parts:
                v = p(r)
                if v is None:
                    unknown = True
                elif bool(v) is decisive:
                    return decisive
            return None if unknown else not decisive

        return junction
    if op == "not":
        a = _compile(e[1])

        def neg(r: Row) -> Any:
            v = a(r)
            return None if v is None else not v

        return neg
    if op == "is_null":
        a = _compile(e[1])
        return lambda r: a(r) is None
    if op == "is_not_null":
        a = _compile(e[1])
        return lambda r: a(r) is not None
    if op == "in":
        a, values = _compile(e[1]), list(e[2])
        has_null = any(v is None for v in values)
        present = [v for v in values if v is not None]

        def member(r: Row) -> Any:
            v = a(r)
            if v is None:
                return None
            if v in present:
                return True
            return None if has_null else False

        return member
    if op == "like":
        a, rx = _compile(e[1]), _like_regex(e[2], bool(e[3]))

        def like(r: Row) -> Any:
            v = a(r)
            return None if v is None else rx.fullmatch(v) is not None

        return like
    raise FeatureNotSupported(f"unknown filter operator {op!r}")


@lru_cache(maxsize=512)
def _compile_cached(key: str, e: IR) -> Callable[[Row], bool]:
    f = _compile(e)
    return lambda r: f(r) is True


def compile_filter(e: IR) -> Callable[[Row], bool]:
    """Compiles a filter IR tree into a predicate on stored rows (True passes; NULL fails)."""
    try:
        return _compile_cached(repr(e), e)
    except TypeError:  # unhashable constants (lists): compile without the cache
        f = _compile(e)
        return lambda r: f(r) is True


def aggregate(spec: AggSpec, rows: Iterable[Row]) -> list[Row]:
    """Computes partial aggregates: one row per group, group values then one partial per agg."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    gb = spec.group_by
    aggs = spec.aggs
    for r in rows:
        g = tuple(r[i] for i in gb)
        acc = groups.get(g)
        if acc is None:
            acc = groups[g] = [0 if fn in ("count", "count_star") else None for fn, _ in aggs]
        for j, (fn, col) in enumerate(aggs):
            if fn == "count_star":
                acc[j] += 1
                continue
            v = r[col]
            if v is None:
                continue
            if fn == "count":
                acc[j] += 1
            elif fn == "sum":
                acc[j] = v if acc[j] is None else acc[j] + v
            elif fn == "min":
                if acc[j] is None or v < acc[j]:
                    acc[j] = v
            elif fn == "max":
                if acc[j] is None or v > acc[j]:
                    acc[j] = v
            else:
                raise FeatureNotSupported(f"unknown partial aggregate {fn!r}")
    if not groups and not gb:
        # A global aggregate over no rows still yields one row, as SQL's does.
        groups[()] = [0 if fn in ("count", "count_star") else None for fn, _ in aggs]
    return [(*g, *acc) for g, acc in groups.items()]

