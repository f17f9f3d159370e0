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
`count(None)`), never with a per-row Python loop per aggregate; grouping splits
a batch by group with C-level `map`s (one dict lookup per row, no bytecode).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from operator import itemgetter
from typing import Any

from ..errors import FeatureNotSupported
from ..pgtypes.arraybounds import order_parts
from .api import AggSpec, Row

FUNCS = ("count_star", "count", "sum", "min", "max")


def _batch_value(fn: str, rows: list[Row], j: int | None) -> Any:
    """Computes one aggregate over a batch of rows (a partial)."""
    if fn == "count_star":
        return len(rows)
    assert j is not None
    return _values_value(fn, list(map(itemgetter(j), rows)))  # the column, in one C pass


def _values_value(fn: str, vals: list[Any], clean: bool = False) -> Any:
    """Computes one aggregate (not count_star) over a column of values (a partial).

    `clean`: the values are known to hold no NULL (no pass to look for one).
    """
    if fn == "count":
        return len(vals) if clean else len(vals) - vals.count(None)
    if not clean and None in vals:
        vals = [v for v in vals if v is not None]
    if not vals:
        return None
    if fn == "sum":
        return sum(vals)
    if fn == "min" or fn == "max":
        pick = min if fn == "min" else max
        try:
            v = pick(vals)
        except (InvalidOperation, TypeError):  # a Decimal NaN, an array with NULL items
            return pick(vals, key=sql_order)
        if isinstance(v, list):  # NB: list order is not array_cmp's (dimensions, bounds)
            return pick(vals, key=sql_order)
        # NB: float NaN compares false with everything, so min/max depend on its position.
        if type(v) is float and any(x != x for x in vals):
            return pick(vals, key=sql_order)
        return v
    raise FeatureNotSupported(f"aggregate {fn!r} cannot be pushed down")


def sql_order(v: Any) -> tuple[int, Any]:
    """Sort key placing NaN (float or Decimal) above every number, as PostgreSQL does, and
    ordering arrays item by item with a NULL item above every value (array_cmp).

    >>> max([[1, None], [1, 2]], key=sql_order)
    [1, None]
    """
    if isinstance(v, list):  # NB: array_cmp: the elements, then the shape and the bounds
        flat, dims, lower = order_parts(v)
        return (0, (tuple((2, 0) if x is None else sql_order(x) for x in flat), len(dims),
                    dims, lower))
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


NAN_KEY = float("nan")  # the one NaN object a NaN group key becomes (see `_nan_free`)


def _has_nan(keys: set[Any], single: bool) -> bool:
    """Tells whether some distinct group key holds a NaN (it is unequal to itself)."""
    if single:
        return any(k != k for k in keys)
    return any(v != v for k in keys for v in k)


def _nan_free(k: Any, single: bool) -> Any:
    """The group key with each NaN replaced by `NAN_KEY`: NaN is one group to PostgreSQL,
    but two NaN objects are two dict keys to Python.

    >>> a, b = _nan_free((float("nan"), 1), False), _nan_free((float("nan"), 1), False)
    >>> len({a, b}), len({float("nan"), float("nan")})
    (1, 2)
    """
    if single:
        return NAN_KEY if k != k else k
    return tuple(NAN_KEY if v != v else v for v in k) if any(v != v for v in k) else k


class PartialAgg:
    """Folds batches of stored rows into per-group partial aggregates."""

    def __init__(self, spec: AggSpec) -> None:
        _check(spec)
        self.spec = spec
        self.aggs = [(fn, j) for fn, j in spec.aggs]
        self.groups: dict[tuple[Any, ...], list[Any]] = {}
        # one group column: its bare value is the bucket key (a tuple per row costs a loop)
        self._single = len(spec.group_by) == 1
        self._key = itemgetter(*spec.group_by) if spec.group_by else None

    def add(self, rows: list[Row]) -> None:
        """Folds one batch of rows into the partials.

        The batch is split by group without a Python loop per row: the group
        column is picked with one `map(itemgetter)`, and each row is appended
        to its group's list by `map(list.append, map(dict.__getitem__, ...))`.
        """
        if not rows:
            return
        if self._key is None:
            self._fold((), rows)
            return
        keys = list(map(self._key, rows))
        uniq = set(keys)
        if _has_nan(uniq, self._single):
            keys = [_nan_free(k, self._single) for k in keys]
            uniq = set(keys)
        buckets: dict[Any, list[Row]] = {k: [] for k in uniq}
        deque(map(list.append, map(buckets.__getitem__, keys), rows), maxlen=0)
        single = self._single
        for k, batch in buckets.items():
            self._fold((k,) if single else k, batch)

    def _fold(self, k: tuple[Any, ...], rows: list[Row]) -> None:
        self._merge(k, [_batch_value(fn, rows, j) for fn, j in self.aggs])

    def _merge(self, k: tuple[Any, ...], vals: list[Any]) -> None:
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
        k = _nan_free(tuple(p[:ng]), False)
        acc = groups.get(k)
        if acc is None:
            groups[k] = list(p[ng:])
        else:
            for i, fn in enumerate(fns):
                acc[i] = _combine(fn, acc[i], p[ng + i])
    if not ng and not groups:
        return [tuple(_empty(fn) for fn in fns)]
    return [k + tuple(v) for k, v in groups.items()]
