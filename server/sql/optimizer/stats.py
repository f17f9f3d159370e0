"""Table statistics from ANALYZE, and the row estimates the cost-based rules read.

`analyze(txn, table)` scans a table once and keeps, per column, the fraction
of NULLs, the number of distinct values, min and max and an equi-depth
histogram (`BUCKETS` bounds), computed from a reservoir sample of at most
`SAMPLE` rows (exact below that), plus the table's row count. Statistics live
in this process, keyed by the table's KiVi space, until the next ANALYZE
(like PostgreSQL's, they go stale between runs and are not maintained by
writes).

`estimate(node)` gives a plan node's expected output rows: a base table's row
count (`DEFAULT_ROWS` when never analyzed) scaled by the selectivity of its
pushed filter or Filter (equality: 1/ndistinct, ranges: the histogram's
fraction, AND/OR combined as independent), joins as |L|*|R|/max(ndistinct of
the keys). `join_algorithm` uses it to pick a bind join when the outer side
is estimated far smaller than the inner table, and EXPLAIN prints it.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field
from typing import Any

from ...txn.api import ScanSpec
from ..plan import nodes as N

SAMPLE = 30000
BUCKETS = 10
DEFAULT_ROWS = 1000.0
DEFAULT_SEL = 1 / 3


@dataclass
class ColumnStats:
    null_frac: float = 0.0
    ndistinct: float = 0.0
    min: Any = None
    max: Any = None
    histogram: list[Any] = field(default_factory=list)  # BUCKETS + 1 bounds, equi-depth


@dataclass
class TableStats:
    rows: int = 0
    columns: dict[int, ColumnStats] = field(default_factory=dict)  # by row slot (attnum order)


STATS: dict[int, TableStats] = {}


def analyze(txn: Any, table: Any) -> TableStats:
    """Collects and stores a table's statistics (one scan); returns them."""
    rng = random.Random(table.space)
    sample: list[tuple] = []
    n = 0
    for batch in txn.scan(ScanSpec(space=table.space)):
        for row in batch:
            n += 1
            if len(sample) < SAMPLE:
                sample.append(row)
            else:
                j = rng.randrange(n)
                if j < SAMPLE:
                    sample[j] = row
    ts = TableStats(rows=n)
    width = max((len(r) for r in sample), default=0)
    for i in range(width):
        ts.columns[i] = _column([r[i] if i < len(r) else None for r in sample], n)
    STATS[table.space] = ts
    return ts


def _column(vals: list[Any], total: int) -> ColumnStats:
    nn = [v for v in vals if v is not None]
    cs = ColumnStats(null_frac=(1 - len(nn) / len(vals)) if vals else 0.0)
    if not nn:
        return cs
    try:
        distinct = len(set(nn))
    except TypeError:  # arrays, json: count their text
        distinct = len({repr(v) for v in nn})
    if len(vals) < total and distinct > 0.9 * len(nn):  # sampled and nearly unique: scales
        distinct = int(distinct * total / len(vals))
    cs.ndistinct = float(distinct)
    try:
        nn.sort()
    except TypeError:
        return cs
    cs.min, cs.max = nn[0], nn[-1]
    cs.histogram = [nn[min(len(nn) - 1, k * len(nn) // BUCKETS)] for k in range(BUCKETS)] + [nn[-1]]
    return cs


def table_stats(table: Any) -> TableStats | None:
    return STATS.get(getattr(table, "space", None))


# -- estimates ----------------------------------------------------------------------------------


def column_stats(node: N.Node, i: int) -> ColumnStats | None:
    """The statistics of output column i of node, traced through projections to a base table."""
    while True:
        if isinstance(node, N.Scan | N.IndexLookup | N.PointGet):
            ts = table_stats(node.table)
            return ts.columns.get(i) if ts else None
        if isinstance(node, N.Filter | N.Sort | N.Limit | N.Distinct):
            node = node.child
        elif isinstance(node, N.Project):
            e = node.exprs[i] if i < len(node.exprs) else None
            if e is None or e.kind != "col":
                return None
            node, i = node.child, e.data
        elif isinstance(node, N.Join):
            nl = len(node.left.cols)
            node, i = (node.left, i) if i < nl else (node.right, i - nl)
        else:
            return None


def _range_sel(cs: ColumnStats, op: str, v: Any) -> float:
    h = cs.histogram
    if len(h) < 2:
        return DEFAULT_SEL
    try:
        pos = bisect.bisect_left(h, v) if op in ("<", ">=") else bisect.bisect_right(h, v)
    except TypeError:
        return DEFAULT_SEL
    below = min(max(pos - 0.5, 0), len(h) - 1) / (len(h) - 1)
    frac = below if op in ("<", "<=") else 1 - below
    return max(min(frac, 1.0), 0.0) * (1 - cs.null_frac)


def _cmp_sel(cs: ColumnStats | None, op: str, v: Any) -> float:
    if cs is None:
        return 0.005 if op == "=" else DEFAULT_SEL
    if v is None:
        return 0.0
    if op == "=":
        return (1 - cs.null_frac) / cs.ndistinct if cs.ndistinct else 0.0
    if op == "<>":
        return (1 - cs.null_frac) * (1 - (1 / cs.ndistinct if cs.ndistinct else 0))
    return _range_sel(cs, op, v)


_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "<>": "<>"}


def ir_selectivity(ir: Any, node: N.Node) -> float:
    """Selectivity of a pushed KiVi filter IR over a scan's stored row."""
    k = ir[0]
    if k == "and":
        s = 1.0
        for x in ir[1]:
            s *= ir_selectivity(x, node)
        return s
    if k == "or":
        s = 1.0
        for x in ir[1]:
            s *= 1 - ir_selectivity(x, node)
        return 1 - s
    if k == "not":
        return 1 - ir_selectivity(ir[1], node)
    if k == "cmp":
        op, a, b = ir[1], ir[2], ir[3]
        if a[0] != "col" and b[0] == "col":
            op, a, b = _FLIP[op], b, a
        if a[0] == "col":
            v = b[1] if b[0] == "const" else object()
            return _cmp_sel(column_stats(node, a[1]), op, v) if b[0] == "const" else (
                _cmp_sel(column_stats(node, a[1]), op, None) if op == "=" else DEFAULT_SEL)
    if k in ("is_null", "is_not_null") and ir[1][0] == "col":
        cs = column_stats(node, ir[1][1])
        f = cs.null_frac if cs else 0.01
        return f if k == "is_null" else 1 - f
    if k == "in" and ir[1][0] == "col":
        return min(1.0, len(ir[2]) * _cmp_sel(column_stats(node, ir[1][1]), "=", 0))
    return DEFAULT_SEL


def pred_selectivity(e: Any, child: N.Node) -> float:
    """Selectivity of a bound predicate over child's rows."""
    if e is None:
        return 1.0
    if e.kind == "and":
        s = 1.0
        for x in e.args:
            s *= pred_selectivity(x, child)
        return s
    if e.kind == "or":
        s = 1.0
        for x in e.args:
            s *= 1 - pred_selectivity(x, child)
        return 1 - s
    if e.kind == "op" and e.data in _FLIP and len(e.args) == 2:
        a, b = e.args
        op = e.data
        if a.kind != "col" and b.kind == "col":
            a, b, op = b, a, _FLIP[op]
        if a.kind == "col" and b.kind in ("const", "param"):
            v = b.data if b.kind == "const" else 0
            if b.kind == "param" and op != "=":
                return DEFAULT_SEL
            return _cmp_sel(column_stats(child, a.data), op, v)
    return DEFAULT_SEL


def _key_ndistinct(node: N.Node, keys: list) -> float:
    best = 0.0
    for k in keys:
        if k.kind == "col":
            cs = column_stats(node, k.data)
            if cs is not None:
                best = max(best, cs.ndistinct)
    return best


def estimate(node: N.Node) -> float:
    """Expected output rows of a plan node."""
    if isinstance(node, N.Scan):
        ts = table_stats(node.table)
        rows = float(ts.rows) if ts else DEFAULT_ROWS
        if node.aggregate is not None:
            return max(1.0, rows / 10)
        if node.lo is not None or node.hi is not None:
            rows *= 0.1
        if node.ir is not None:
            rows *= ir_selectivity(node.ir, node)
        if node.limit is not None and node.limit.kind == "const":
            rows = min(rows, float(node.limit.data or 0))
        return max(rows, 1.0)
    if isinstance(node, N.PointGet):
        return float(len(node.keys))
    if isinstance(node, N.IndexLookup):
        ts = table_stats(node.table)
        return max((ts.rows if ts else DEFAULT_ROWS) * 0.01, 1.0)
    if isinstance(node, N.Values):
        return float(len(node.rows))
    if isinstance(node, N.Filter):
        return max(estimate(node.child) * pred_selectivity(node.pred, node.child), 1.0)
    if isinstance(node, N.Limit):
        rows = estimate(node.child)
        if node.limit is not None and node.limit.kind == "const" and node.limit.data is not None:
            rows = min(rows, float(node.limit.data))
        return rows
    if isinstance(node, N.Aggregate):
        if not node.groups:
            return 1.0
        rows = estimate(node.child)
        nd = 1.0
        for g in node.groups:
            cs = column_stats(node.child, g.data) if g.kind == "col" else None
            nd *= cs.ndistinct if cs and cs.ndistinct else rows / 10
        return max(min(rows, nd), 1.0)
    if isinstance(node, N.Join):
        lr, rr = estimate(node.left), estimate(node.right)
        if node.kind == "cross" or node.cond is None:
            return lr * rr
        nd = max(_key_ndistinct(node.left, node.left_keys),
                 _key_ndistinct(node.right, node.right_keys))
        rows = lr * rr / nd if nd else max(lr, rr)
        if node.kind in ("left", "full"):
            rows = max(rows, lr)
        if node.kind in ("right", "full"):
            rows = max(rows, rr)
        return max(rows, 1.0)
    if isinstance(node, N.SetOp):
        return estimate(node.left) + estimate(node.right)
    kids = node.children
    return estimate(kids[0]) if kids else DEFAULT_ROWS
