"""Predicate normalisation applied to WHERE before the optimizer sees it.

`(a.k = b.k AND x) OR (a.k = b.k AND y)` hides the join key inside an OR, so
the join stays a nested loop over the cross product (CH-benCHmark Q19 and
TPC-H Q19 are written this way). PostgreSQL pulls conjuncts common to every
OR branch out in front: `a.k = b.k AND (x OR y)`. `factor_or` does the same,
comparing expressions structurally (column positions, constants, operators),
so only identical conjuncts are factored.
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E


def _key(e: E) -> Any:
    d = e.data
    if d is None or isinstance(d, str | int | float | bool | tuple) and _plain(d):
        data: Any = (type(d).__name__, repr(d))
    else:
        data = ("id", id(d))
    return (e.kind, data, e.type, tuple(_key(a) for a in e.args))


def _plain(d: Any) -> bool:
    if isinstance(d, tuple):
        return all(x is None or isinstance(x, str | int | float | bool) for x in d)
    return True


def _conj(e: E) -> list[E]:
    if e.kind == "and":
        return [x for a in e.args for x in _conj(a)]
    return [e]


def _disj(e: E) -> list[E]:
    if e.kind == "or":
        return [x for a in e.args for x in _disj(a)]
    return [e]


def _and(items: list[E]) -> E:
    out = items[0]
    for x in items[1:]:
        out = E("and", None, [out, x], out.type)
    return out


def _or(items: list[E]) -> E:
    out = items[0]
    for x in items[1:]:
        out = E("or", None, [out, x], out.type)
    return out


def factor_or(pred: E) -> E:
    """Rewrites each OR in a conjunction so that conjuncts shared by all its branches come first."""
    out: list[E] = []
    for c in _conj(pred):
        branches = _disj(c)
        if len(branches) < 2:
            out.append(c)
            continue
        lists = [_conj(b) for b in branches]
        common = [x for x in lists[0]
                  if all(any(_key(y) == _key(x) for y in rest) for rest in lists[1:])]
        if not common:
            out.append(c)
            continue
        keys = {_key(x) for x in common}
        rests = [[y for y in branch if _key(y) not in keys] for branch in lists]
        out.extend(common)
        if all(rests):  # an empty branch would make the OR always true
            out.append(_or([_and(r) for r in rests]))
    return _and(out)
