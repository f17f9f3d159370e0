"""Table statistics from ANALYZE, and the row estimates the cost-based rules read.

`analyze(txn, table)` scans a table once and keeps, per column, the fraction
of NULLs, the number of distinct values, min and max, the most common values
with their frequencies and an equi-depth histogram (`BUCKETS` bounds),
computed from a sample of at most `SAMPLE` rows (exact below that; taken from
the table's columnar copy when it has one, see `sampling`),
plus the table's row count and average row width. `STATS` holds them by table
OID for the optimizer; the server persists them through `catalog.statstore`
(transactionally, with the ANALYZE) and reloads `STATS` from there whenever
the catalog changes, so they survive restarts. Like PostgreSQL's, they go
stale between runs and are not maintained by writes.

`estimate(node)` gives a plan node's expected output rows: a base table's row
count (`DEFAULT_ROWS` when never analyzed) scaled by the selectivity of its
pushed filter or Filter (equality: 1/ndistinct, ranges: the histogram's
fraction, AND/OR combined as independent), joins as |L|*|R|/max(ndistinct of
the keys). `join_algorithm` uses it to pick a bind join when the outer side
is estimated far smaller than the inner table, and EXPLAIN prints it.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...kivi.columnar.pace import pace
from ..expr.codegen import conjuncts
from ..expr.runtime import like_regex
from ..plan import nodes as N
from .pushdown_join_filters import shift, side_of
from .sampling import sample_rows

SAMPLE = 30000
BUCKETS = 100  # histogram bounds - 1, as PostgreSQL's default statistics target
DEFAULT_ROWS = 1000.0
DEFAULT_SEL = 1 / 3


MCV = 100  # most common values kept per column (PostgreSQL's default statistics target)


@dataclass
class ColumnStats:
    null_frac: float = 0.0
    ndistinct: float = 0.0
    min: Any = None
    max: Any = None
    histogram: list[Any] = field(default_factory=list)  # BUCKETS + 1 bounds, equi-depth
    avg_width: int = 0
    mcv: list[Any] = field(default_factory=list)  # most common values, most common first
    mcf: list[float] = field(default_factory=list)  # their frequencies (fractions of all rows)


@dataclass
class TableStats:
    rows: int = 0
    columns: dict[int, ColumnStats] = field(default_factory=dict)  # by row slot (attnum order)
    analyzed_at: Any = None  # datetime of the ANALYZE
    width: int = 0  # average row width in bytes (relpages = rows * width / 8192)


STATS: dict[int, TableStats] = {}  # by table OID


def to_payload(ts: TableStats) -> list[Any]:
    """Returns the statistics as plain values (for `kivi.wire` encoding)."""
    cols = [[i, c.null_frac, c.ndistinct, c.min, c.max, c.histogram, c.avg_width, c.mcv, c.mcf]
            for i, c in sorted(ts.columns.items())]
    return [ts.rows, ts.analyzed_at, ts.width, cols]


def from_payload(p: list[Any]) -> TableStats:
    """Rebuilds statistics from `to_payload`'s values."""
    rows, at, width, cols = p
    ts = TableStats(rows=rows, analyzed_at=at, width=width)
    for i, nf, nd, lo, hi, hist, aw, mcv, mcf in cols:
        ts.columns[i] = ColumnStats(nf, nd, lo, hi, list(hist), aw, list(mcv), list(mcf))
    return ts


def analyze(txn: Any, table: Any, publish: bool = True) -> TableStats:
    """Collects a table's statistics (one scan); returns them, and with `publish` puts them
    in `STATS` at once (the server instead persists them and reloads after commit)."""
    n, sample = sample_rows(txn, table.space, SAMPLE)  # a columnar copy's, when it has one
    ts = TableStats(rows=n, analyzed_at=dt.datetime.now(dt.UTC))
    widths = set(map(len, sample))
    width = max(widths, default=0)
    # NB: one transpose when every row has the table's width (a column added later leaves
    # older rows shorter: their missing values are NULLs)
    cols = list(map(list, zip(*sample, strict=True))) if len(widths) == 1 else None
    for i in range(width):
        pace()  # a column's statistics: a few ms of CPU, OLTP first
        ts.columns[i] = _column(cols[i] if cols is not None
                                else [r[i] if i < len(r) else None for r in sample], n)
    ts.width = 24 + sum(c.avg_width for c in ts.columns.values())  # + the tuple header
    if publish:
        STATS[table.oid] = ts
    return ts


def _width(v: Any) -> int:
    if isinstance(v, bool):
        return 1
    if isinstance(v, int):
        return 4 if abs(v) < 2**31 else 8
    if isinstance(v, str | bytes):
        return len(v) + 1
    if isinstance(v, list | dict):
        return 8 + 8 * len(v)
    return 8


def _column(vals: list[Any], total: int) -> ColumnStats:
    nn = [v for v in vals if v is not None]
    cs = ColumnStats(null_frac=(1 - len(nn) / len(vals)) if vals else 0.0)
    if not nn:
        return cs
    step = max(1, len(nn) // 1000)
    cs.avg_width = round(sum(_width(v) for v in nn[::step]) / len(nn[::step]))
    try:
        counts: Counter = Counter(nn)
        distinct = len(counts)
    except TypeError:  # arrays, json: count their text
        counts = Counter()
        distinct = len({repr(v) for v in nn})
    if len(vals) < total and distinct > 0.9 * len(nn):  # sampled and nearly unique: scales
        distinct = int(distinct * total / len(vals))
    cs.ndistinct = float(distinct)
    # most common values: those seen more often than an average value (PostgreSQL's
    # compute_scalar_stats keeps values above 1.25x the average frequency)
    if counts and len(counts) < len(nn):
        avg = len(nn) / len(counts)
        # (when every distinct value fits in the list, all are kept, as PostgreSQL does)
        common = [(v, c) for v, c in counts.most_common(MCV)
                  if len(counts) <= MCV or (c > 1 and c > 1.25 * avg)]
        cs.mcv = [v for v, _ in common]
        cs.mcf = [c / len(vals) for _, c in common]
    try:
        nn.sort()
    except TypeError:
        return cs
    cs.min, cs.max = nn[0], nn[-1]
    nb = max(1, min(BUCKETS, len(nn) - 1))  # no more bounds than sampled values
    cs.histogram = [nn[min(len(nn) - 1, k * len(nn) // nb)] for k in range(nb)] + [nn[-1]]
    return cs


def table_stats(table: Any) -> TableStats | None:
    """The table's statistics from its last ANALYZE, if any."""
    return STATS.get(getattr(table, "oid", -1))


# -- estimates ----------------------------------------------------------------------------------


def column_stats(node: N.Node, i: int) -> ColumnStats | None:
    """The statistics of output column i of node, traced through projections to a base table."""
    while True:
        if isinstance(node, N.Scan | N.IndexLookup | N.PointGet):
            ts = table_stats(node.table)
            if isinstance(node, N.Scan) and node.aggregate is not None:
                return None  # its columns are groups and partial aggregates
            if isinstance(node, N.Scan) and node.projection is not None:
                if i >= len(node.projection):
                    return None
                i = node.projection[i]  # NB: a narrowed scan's column i is this stored slot
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


_UNKNOWN = object()  # an equality with a value known only at execution ($1, a join key)


def _eq_sel(cs: ColumnStats, v: Any) -> float:
    """Selectivity of `col = v`: v's frequency if it is a common value, else the rest spread
    evenly over the other distinct values."""
    if not cs.ndistinct:
        return 0.0
    if v is not _UNKNOWN and cs.mcv:
        try:
            for m, f in zip(cs.mcv, cs.mcf, strict=True):
                if m == v:
                    return f
        except TypeError:
            pass
        rest = max(1.0 - cs.null_frac - sum(cs.mcf), 0.0)
        others = cs.ndistinct - len(cs.mcv)
        return rest / others if others > 0 else 0.0
    return (1 - cs.null_frac) / cs.ndistinct


def _cmp_sel(cs: ColumnStats | None, op: str, v: Any) -> float:
    if cs is None:
        return 0.005 if op == "=" else DEFAULT_SEL
    if v is None:
        return 0.0
    if op == "=":
        return _eq_sel(cs, v)
    if op == "<>":
        return (1 - cs.null_frac) * (1 - (1 / cs.ndistinct if cs.ndistinct else 0))
    return _range_sel(cs, op, v)


_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "<>": "<>"}


def _slot_stats(node: Any, slot: int) -> ColumnStats | None:
    """A stored-row slot's statistics (the IR addresses slots, not the scan's output)."""
    ts = table_stats(node.table)
    return ts.columns.get(slot) if ts else None


def ir_selectivity(ir: Any, node: N.Node) -> float:
    """Selectivity of a pushed KiVi filter IR over a scan's stored row."""
    if not isinstance(node, N.Scan | N.IndexLookup | N.PointGet):
        return DEFAULT_SEL
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
            if b[0] == "const":
                return _cmp_sel(_slot_stats(node, a[1]), op, b[1])
            return _cmp_sel(_slot_stats(node, a[1]), op, _UNKNOWN) if op == "=" else DEFAULT_SEL
    if k in ("is_null", "is_not_null") and ir[1][0] == "col":
        return _null_sel(_slot_stats(node, ir[1][1]), k == "is_null")
    if k == "in" and ir[1][0] == "col":
        return _in_sel(_slot_stats(node, ir[1][1]), ir[2])
    if k == "like" and isinstance(ir[2], str):
        ci = bool(ir[3]) if len(ir) > 3 else False
        if ir[1][0] == "col":
            return like_stats_sel(_slot_stats(node, ir[1][1]), ir[2], ci)
        return like_stats_sel(None, ir[2], ci)
    return DEFAULT_SEL


FIXED_CHAR_SEL, ANY_CHAR_SEL, FULL_WILDCARD_SEL = 0.2, 0.9, 5.0  # PostgreSQL's selfuncs.c
DEFAULT_MATCH_SEL = 0.005  # a prefix's share with no histogram, as PostgreSQL's


def like_prefix(pattern: str, ci: bool = False) -> tuple[str, str, bool]:
    """(the fixed prefix of a LIKE pattern, the rest, whether the pattern is that prefix
    alone), as PostgreSQL's like_fixed_prefix: up to the first wildcard, `\\` quoting the
    next character; for ILIKE up to the first letter too (its case is not fixed).

    >>> like_prefix("Europ%"), like_prefix("%b"), like_prefix("a_b")
    (('Europ', '%', False), ('', '%b', False), ('a', '_b', False))
    >>> like_prefix("ab"), like_prefix("1a%", True)
    (('ab', '', True), ('1', 'a%', False))
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "%_":
            break
        if ch == "\\":
            i += 1
            if i >= len(pattern):
                break
            ch = pattern[i]
        if ci and ch.lower() != ch.upper():
            break
        out.append(ch)
        i += 1
    return "".join(out), pattern[i:], i >= len(pattern)


def like_sel(pattern: str) -> float:
    """The heuristic share of rows matching the part of a LIKE pattern after its fixed
    prefix, as PostgreSQL's like_selectivity: leading wildcards skipped, then 0.2 per
    literal character, 0.9 per `_`, 5 per `%`, at most 1.

    >>> like_sel("%b"), like_sel("%"), round(like_sel("%a_b%"), 3)
    (0.2, 1.0, 0.18)
    """
    sel = 1.0
    i = 0
    while i < len(pattern) and pattern[i] in "%_":
        i += 1
    while i < len(pattern):
        ch = pattern[i]
        if ch == "%":
            sel *= FULL_WILDCARD_SEL
        elif ch == "_":
            sel *= ANY_CHAR_SEL
        else:
            if ch == "\\":
                i += 1
                if i >= len(pattern):
                    break
            sel *= FIXED_CHAR_SEL
        i += 1
    return min(sel, 1.0)


def _below(h: list[Any], v: Any, op: str) -> float | None:
    """The share of histogram `h` below `v` (`<`) or at and above it (`>=`), interpolated
    as `_range_sel` does; None when the values do not compare."""
    try:
        pos = bisect.bisect_left(h, v)
    except TypeError:
        return None
    below = min(max(pos - 0.5, 0), len(h) - 1) / (len(h) - 1)
    return below if op == "<" else 1 - below


def prefix_sel(cs: ColumnStats | None, prefix: str) -> float:
    """`x >= prefix AND x < prefix's successor` from the histogram, at least `x = prefix`'s
    share, as PostgreSQL's prefix_selectivity; DEFAULT_MATCH_SEL without a histogram."""
    h = cs.histogram if cs is not None else []
    if len(h) < 2:
        return DEFAULT_MATCH_SEL
    ge = _below(h, prefix, ">=")
    if ge is None:
        return DEFAULT_MATCH_SEL
    sel = ge
    last = ord(prefix[-1])
    if last < 0x10FFFF:  # NB: make_greater_string: the prefix with its last character bumped
        lt = _below(h, prefix[:-1] + chr(last + 1), "<")
        if lt is not None:
            sel = lt + ge - 1.0
    assert cs is not None
    return max(sel, _eq_sel(cs, prefix))


def like_stats_sel(cs: ColumnStats | None, pattern: str, ci: bool = False) -> float:
    """`x LIKE pattern` as PostgreSQL's patternsel: a pattern without wildcards is an
    equality; else, with a histogram of 100 entries or more, the share of its inner
    entries that match; with fewer, the fixed prefix's share of the histogram (`prefix_sel`)
    times the rest's heuristic (`like_sel`), blended with the histogram's matches from 10
    entries up; kept within [0.0001, 0.9999], for the rows not NULL nor a most common value,
    to which the matching most common values' frequencies are added.

    Why: CH-benCHmark's `i_data LIKE '%bb'` keeps 25 of 100,000 items, where 0.2 per
    character guesses 4,000, enough to hash-join a whole table that a few primary-key
    lookups would serve; and Q2's `r_name LIKE 'Europ%'` over five regions keeps one,
    where a five-entry histogram blended with 0.2 per character guessed a hundredth.

    >>> cs = ColumnStats(ndistinct=5.0, histogram=["Africa", "America", "Asia", "Europe",
    ...                                             "Middle East"])
    >>> round(like_stats_sel(cs, "Europ%"), 3), round(like_stats_sel(None, "Europ%"), 3)
    (0.25, 0.005)
    """
    prefix, rest, exact = like_prefix(pattern, ci)
    if exact:
        return _cmp_sel(cs, "=", prefix)
    try:
        rx = like_regex(pattern, ci)
    except Exception:  # noqa: BLE001 - a malformed pattern fails at execution, not here
        return DEFAULT_SEL

    def hit(v: Any) -> bool:
        return isinstance(v, str) and rx.fullmatch(v) is not None

    h = cs.histogram if cs is not None else []
    sel = -1.0
    if len(h) >= 10:  # NB: histogram_selectivity skips an entry at each end
        inner = h[1:-1]
        sel = sum(1 for v in inner if hit(v)) / len(inner)
    if len(h) < 100:
        heur = (prefix_sel(cs, prefix) if prefix else 1.0) * like_sel(rest)
        sel = heur if sel < 0 else sel * len(h) / 100 + heur * (1 - len(h) / 100)
    sel = min(max(sel, 0.0001), 0.9999)
    if cs is None:
        return sel
    common = sum(f for v, f in zip(cs.mcv, cs.mcf, strict=False) if hit(v))
    return common + sel * max(0.0, 1 - cs.null_frac - sum(cs.mcf))


def _null_sel(cs: ColumnStats | None, is_null: bool) -> float:
    f = cs.null_frac if cs else 0.005
    return f if is_null else 1 - f


def _in_sel(cs: ColumnStats | None, values: list[Any]) -> float:
    """`col IN (v1, v2, ...)`: the sum of the equalities' selectivities (distinct values)."""
    return min(1.0, sum(_cmp_sel(cs, "=", v) for v in values))


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
            v = b.data if b.kind == "const" else _UNKNOWN
            if b.kind == "param" and op != "=":
                return DEFAULT_SEL
            return _cmp_sel(column_stats(child, a.data), op, v)
        if a.kind == "col" and b.kind == "col" and op == "=":
            # two columns of one input: as likely as a match of the more varied one
            ca, cb = column_stats(child, a.data), column_stats(child, b.data)
            nd = max(ca.ndistinct if ca else 0, cb.ndistinct if cb else 0)
            return 1 / nd if nd else 0.005
    if e.kind == "not" and e.args:
        return 1 - pred_selectivity(e.args[0], child)
    if e.kind in ("isnull", "notnull") and e.args and e.args[0].kind == "col":
        return _null_sel(column_stats(child, e.args[0].data), e.kind == "isnull")
    if e.kind == "like" and len(e.args) == 2 and e.args[1].kind == "const" and isinstance(
            e.args[1].data, str):
        a = e.args[0]
        cs = column_stats(child, a.data) if a.kind == "col" else None
        sel = like_stats_sel(cs, e.args[1].data, bool(e.data[0]))
        return 1 - sel if e.data[1] else sel
    if e.kind == "in_list" and e.args and e.args[0].kind == "col":
        vals = [x.data if x.kind == "const" else _UNKNOWN for x in e.args[1:]]
        sel = _in_sel(column_stats(child, e.args[0].data), vals)
        return 1 - sel if e.data else sel
    return DEFAULT_SEL


DEFAULT_NDISTINCT = 200.0  # PostgreSQL's guess for an expression's distinct values


def expr_ndistinct(e: Any, node: N.Node, rows: float) -> float:
    """Distinct values of `e` over node's rows: a column's statistics, else at most 200."""
    if e.kind == "col":
        cs = column_stats(node, e.data)
        if cs is not None and cs.ndistinct:
            return cs.ndistinct
    return max(min(rows, DEFAULT_NDISTINCT), 1.0)


def _equi_pairs(node: N.Join) -> tuple[list[tuple[Any, Any]], int]:
    """The join's equality pairs (left expr, right expr over its own rows) and how many other
    conjuncts its condition has."""
    if node.left_keys:
        rest = node.residual
        n_rest = 0 if rest is None else len(rest.args) if rest.kind == "and" else 1
        return list(zip(node.left_keys, node.right_keys, strict=True)), n_rest
    nl = len(node.left.cols)
    pairs, n_rest = [], 0
    for c in conjuncts(node.cond):
        if c.kind == "op" and c.data == "=" and len(c.args) == 2:
            a, b = c.args
            sa, sb = side_of(a, nl), side_of(b, nl)
            if sa == "l" and sb == "r":
                pairs.append((a, shift(b, nl)))
                continue
            if sa == "r" and sb == "l":
                pairs.append((b, shift(a, nl)))
                continue
        n_rest += 1
    return pairs, n_rest


def join_rows(node: N.Join) -> float:
    """Rows of a join: |L| x |R| x each equality's 1 / max(distinct values of its sides)
    (several together at least 1 / max(|L|, |R|), as a foreign-key join), x 1/3 per other
    conjunct; a semi join keeps the left rows whose key the right side has, an anti join
    the others."""
    lr, rr = estimate(node.left), estimate(node.right)
    if node.cond is None and not node.left_keys:
        return lr * rr if node.kind not in ("semi", "anti") else lr * 0.5
    pairs, n_rest = _equi_pairs(node)
    if node.kind in ("semi", "anti"):
        frac = 1.0
        for a, b in pairs:
            frac *= min(1.0, expr_ndistinct(b, node.right, rr) / expr_ndistinct(a, node.left, lr))
        frac *= DEFAULT_SEL ** n_rest if pairs else 0.5
        return max(lr * (frac if node.kind == "semi" else 1 - frac), 1.0)
    sel = 1.0
    for a, b in pairs:
        sel /= max(expr_ndistinct(a, node.left, lr), expr_ndistinct(b, node.right, rr))
    if len(pairs) > 1:
        sel = max(sel, 1.0 / max(lr, rr, 1.0))
    sel *= DEFAULT_SEL ** n_rest
    rows = lr * rr * sel
    if node.kind in ("left", "full"):
        rows = max(rows, lr)
    if node.kind in ("right", "full"):
        rows = max(rows, rr)
    return max(rows, 1.0)


DEFAULT_RANGE_SEL = 0.005  # PostgreSQL's DEFAULT_RANGE_INEQ_SEL: `x >= $1 AND x < $2`


def _key_value(e: Any) -> Any:
    return e.data if e.kind == "const" else _UNKNOWN


def key_range_sel(node: N.Scan) -> float:
    """Selectivity of a scan's primary-key range: an equality per column that `lo` and `hi`
    share, then the range of the next column, from the key columns' statistics. It used to
    be a flat 1/10: TPC-C's `s_w_id = 1` (every stock row, at one warehouse) came out at
    10,000 rows and order_line's 20 orders of a district (about 200 rows) at 29,963, so the
    planner hashed the whole stock table where 200 primary-key gets do."""
    ts = table_stats(node.table)
    if ts is None:
        return 0.1
    pos = {c.attnum: i for i, c in enumerate(sorted(node.table.columns, key=lambda c: c.attnum))}
    pk = [pos[a] for a in node.table.primary_key]
    lo, hi = node.lo or [], node.hi or []
    sel, i = 1.0, 0
    while i < min(len(lo), len(hi), len(pk)) and N.same_bound(lo[i], hi[i]):
        sel *= _cmp_sel(ts.columns.get(pk[i]), "=", _key_value(lo[i]))
        i += 1
    if i >= len(pk) or (i >= len(lo) and i >= len(hi)):
        return sel
    cs = ts.columns.get(pk[i])
    bounds = [(lo[i], ">" if node.lo_strict else ">=")] if i < len(lo) else []
    bounds += [(hi[i], "<" if node.hi_strict else "<=")] if i < len(hi) else []
    if any(b.kind != "const" for b, _ in bounds):
        return sel * (DEFAULT_RANGE_SEL if len(bounds) == 2 else DEFAULT_SEL)
    frac = 1.0
    for b, op in bounds:
        frac += _cmp_sel(cs, op, b.data) - 1.0  # P(a <= x <= b) = P(x >= a) + P(x <= b) - 1
    return sel * min(max(frac, 1.0 / max(ts.rows, 1)), 1.0)


def estimate(node: N.Node) -> float:
    """Expected output rows of a plan node."""
    if isinstance(node, N.Scan):
        ts = table_stats(node.table)
        rows = float(ts.rows) if ts else DEFAULT_ROWS
        if node.aggregate is not None:
            return max(1.0, rows / 10)
        if node.lo is not None or node.hi is not None:
            rows *= key_range_sel(node)
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
        return join_rows(node)
    if isinstance(node, N.SetOp):
        return estimate(node.left) + estimate(node.right)
    if isinstance(node, N.CTEScan) and not node.cte.recursive:
        return estimate(node.cte.plan)
    kids = node.children
    return estimate(kids[0]) if kids else DEFAULT_ROWS
