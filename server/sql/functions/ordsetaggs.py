"""PostgreSQL's ordered-set aggregates: percentile_cont, percentile_disc (each also with
an array of fractions) and mode, written `f(direct args) WITHIN GROUP (ORDER BY x)`.

The planner turns them into an aggregate whose ORDER BY is the WITHIN GROUP one and
whose first argument is the sorted value, so the executor hands over the group's values
already in order; the direct argument (the fraction) is evaluated once per group, even
for a group whose rows a FILTER removed, because PostgreSQL checks it (22003) before it
looks at the rows. NULL values are ignored; no values give NULL. Interpolation is
PostgreSQL's lerp: lo + (hi - lo) * proportion.

>>> finish_ordered("percentile_cont", [1.0, 2.0, 3.0, 4.0], 0.5)
2.5
>>> finish_ordered("percentile_disc", [1, 2, 3, 4], [0.25, None, 1.0])
[1, None, 4]
>>> finish_ordered("mode", ["a", "b", "b", "c"], None)
'b'
"""

from __future__ import annotations

import math
from typing import Any

from ...errors import NumericValueOutOfRange
from ...pgtypes import interval as ivl

ORDERED_SET_AGGS = frozenset(("percentile_cont", "percentile_disc", "mode"))


def _check(p: float) -> float:
    if p < 0 or p > 1 or math.isnan(p):
        raise NumericValueOutOfRange(f"percentile value {p:g} is not between 0 and 1")
    return p


def _lerp(lo: Any, hi: Any, pct: float) -> Any:
    if isinstance(lo, ivl.Interval):
        return lo + ivl.interval_mul(hi - lo, pct)
    return lo + (hi - lo) * pct


def _cont(vals: list, p: float) -> Any:
    n = len(vals)
    first = math.floor(p * (n - 1))
    second = math.ceil(p * (n - 1))
    if first == second:
        return vals[first]
    return _lerp(vals[first], vals[second], p * (n - 1) - first)


def _disc(vals: list, p: float) -> Any:
    row = math.ceil(p * len(vals))
    return vals[max(row, 1) - 1]


def _mode(vals: list) -> Any:
    """The most frequent value; a tie goes to the first in the WITHIN GROUP order."""
    best, best_n = None, 0
    cur, cur_n = None, 0
    for v in vals:
        if cur_n and (v == cur or v != v and cur != cur):  # NB: NaN equals NaN in a sort
            cur_n += 1
        else:
            cur, cur_n = v, 1
        if cur_n > best_n:
            best, best_n = cur, cur_n
    return best


def _each(fractions: Any, one: Any) -> Any:
    if isinstance(fractions, list):
        return [_each(f, one) for f in fractions]
    return None if fractions is None else one(fractions)


def finish_ordered(func: str, vals: list, fraction: Any) -> Any:
    """One ordered-set aggregate over its group's values (sorted, NULLs included) and its
    direct argument (None for mode, a number or a possibly nested list of numbers)."""
    vals = [v for v in vals if v is not None]
    if func == "mode":
        return _mode(vals) if vals else None
    pick = _cont if func == "percentile_cont" else _disc
    if isinstance(fractions := fraction, list):  # the array form: NULL on no rows, unchecked
        if not vals:
            return None
        _each(fractions, lambda p: _check(float(p)))
        return _each(fractions, lambda p: pick(vals, float(p)))
    if fraction is None:
        return None
    p = _check(float(fraction))
    return pick(vals, p) if vals else None
