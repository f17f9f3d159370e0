"""Partial aggregation inside a node, and the merge of partials from several regions.

A pushed-down aggregate (`AggSpec`) lets a node return one row per group
instead of every row. Each region computes *partials*; the caller merges them
with `merge_partials`, whose rules are those of the partials themselves:

    function     partial of a batch         merge of partials
    count_star   number of rows             sum
    count        number of non-NULL values  sum
    sum          sum of non-NULL (or NULL)  sum of non-NULL (or NULL)
    min / max    min / max of non-NULL      min / max of non-NULL

AVG is SUM over COUNT, computed above the node. Without GROUP BY there is
exactly one result row even over no input (count 0, the others NULL), as SQL
requires. Batches are folded column-wise with builtins (`sum`, `min`, a list's
`count(None)`), never with a per-row Python loop per aggregate; grouping needs
one dict lookup per row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from operator import itemgetter
from typing import Any

from ..errors import FeatureNotSupported
from .api import AggSpec, Row

FUNCS = ("count_star", "count", "sum", "min", "max")


def _nonnull(rows: list[Row], j: int) -> list[Any]:
    return [v for r in rows if (v := r[j]) is not None]


def _batch_value(fn: str, rows: list[Row], j: int | None) -> Any:
    """Computes one aggregate over a batch of rows (a partial)."""
    if fn == "count_star":
        return len(rows)
    assert j is not None
    if fn == "count":
        return len(rows) - [r[j] for r in rows].count(None)
    vals = _nonnull(rows, j)
    if not vals:
        return None
    if fn == "sum":
        return sum(vals)
    if fn == "min" or fn == "max":
        pick = min if fn == "min" else max
        try:
            v = pick(vals)
        except InvalidOperation:  # a Decimal NaN: Python refuses to order it
            return pick(vals, key=sql_order)
        # NB: float NaN compares false with everything, so min/max depend on its position.
        if type(v) is float and any(x != x for x in vals):
            return pick(vals, key=sql_order)
        return v
    raise FeatureNotSupported(f"aggregate {fn!r} cannot be pushed down")


def sql_order(v: Any) -> tuple[int, Any]:
    """Sort key placing NaN (float or Decimal) above every number, as PostgreSQL does."""
    if v != v or (type(v) is Decimal and v.is_nan()):
        return (1, 0)
    return (0, v)


def _combine(fn: str, a: Any, b: Any) -> Any:
    """Merges two partials of the same aggregate."""
    if a is None:
        return b
    if b is None:
        return a
    if fn in ("count_star", "count", "sum"):
        return a + b
    if fn == "min":
        return b if sql_order(b) < sql_order(a) else a
    if fn == "max":
        return b if sql_order(b) > sql_order(a) else a
    raise FeatureNotSupported(f"aggregate {fn!r} cannot be pushed down")


def _empty(fn: str) -> Any:
    return 0 if fn in ("count_star", "count") else None


def _check(spec: AggSpec) -> None:
    for fn, _ in spec.aggs:
        if fn not in FUNCS:
            raise FeatureNotSupported(f"aggregate {fn!r} cannot be pushed down")


def _key_fn(group_by: tuple[int, ...]) -> Callable[[Row], Any]:
    if len(group_by) == 1:
        j = group_by[0]
        return lambda r: (r[j],)
    return itemgetter(*group_by)


class PartialAgg:
    """Folds batches of stored rows into per-group partial aggregates."""

    def __init__(self, spec: AggSpec) -> None:
        _check(spec)
        self.spec = spec
        self.aggs = [(fn, j) for fn, j in spec.aggs]
        self.groups: dict[tuple[Any, ...], list[Any]] = {}
        self._key = _key_fn(tuple(spec.group_by)) if spec.group_by else None

    def add(self, rows: list[Row]) -> None:
        """Folds one batch of rows into the partials."""
        if not rows:
            return
        if self._key is None:
            self._fold((), rows)
            return
        key = self._key
        buckets: dict[Any, list[Row]] = {}
        for r in rows:
            k = key(r)
            b = buckets.get(k)
            if b is None:
                buckets[k] = [r]
            else:
                b.append(r)
        for k, batch in buckets.items():
            self._fold(k, batch)

    def _fold(self, k: tuple[Any, ...], rows: list[Row]) -> None:
        vals = [_batch_value(fn, rows, j) for fn, j in self.aggs]
        acc = self.groups.get(k)
        if acc is None:
            self.groups[k] = vals
        else:
            for i, (fn, _) in enumerate(self.aggs):
                acc[i] = _combine(fn, acc[i], vals[i])

    def rows(self) -> list[Row]:
        """Returns one row per group: group values then partials (one row if ungrouped)."""
        if not self.spec.group_by and not self.groups:
            return [tuple(_empty(fn) for fn, _ in self.aggs)]
        return [tuple(k) + tuple(v) for k, v in self.groups.items()]


def partial_aggregate(spec: AggSpec, batches: Iterable[list[Row]]) -> list[Row]:
    """Computes the partial aggregate rows of some batches of stored rows."""
    agg = PartialAgg(spec)
    for b in batches:
        agg.add(b)
    return agg.rows()


def merge_partials(spec: AggSpec, partials: Iterable[Row]) -> list[Row]:
    """Combines partial rows (from several regions) into one row per group."""
    _check(spec)
    ng = len(spec.group_by)
    fns = [fn for fn, _ in spec.aggs]
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for p in partials:
        k = tuple(p[:ng])
        acc = groups.get(k)
        if acc is None:
            groups[k] = list(p[ng:])
        else:
            for i, fn in enumerate(fns):
                acc[i] = _combine(fn, acc[i], p[ng + i])
    if not ng and not groups:
        return [tuple(_empty(fn) for fn in fns)]
    return [k + tuple(v) for k, v in groups.items()]
