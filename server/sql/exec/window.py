"""Window functions: ranking, lag/lead, first/last value, and aggregates over partitions.

The input is materialised, then each call sorts the row indexes by
(partition, order) with compiled key functions and walks every partition
once. Peers (rows equal on the ORDER BY keys) share rank and, under the
default RANGE frame, running-aggregate values. Output rows keep the order
of the first call's sort, as PostgreSQL's WindowAgg emits them.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes.interval import add_to_timestamp
from ..expr import codegen as cg
from ..expr import runtime as rt
from ..plan import nodes as N
from .aggregate import finish
from .fold import final
from .runner import Batch, compiled, executes, rebatch, rows_of, value_of


def _prepare(node: N.Window) -> list:
    out = []
    for c in node.calls:
        part = cg.key_function(c.partition) if c.partition else None
        order = [(cg.sort_key_function(k.expr, k.desc == k.nulls_first), k.desc) for k in c.order]
        peer = cg.key_function([k.expr for k in c.order]) if c.order else None
        args = cg.project_function(c.args) if c.args else None
        out.append((part, order, peer, args))
    return out


def _sorted_indexes(rows: list, part: Any, order: list, ctx: Any) -> list[int]:
    idx = list(range(len(rows)))
    for fn, desc in reversed(order):
        # mypy cannot infer a lambda with a default argument
        idx.sort(key=lambda i, fn=fn: fn(rows[i], ctx), reverse=desc)  # type: ignore[misc]
    if part is not None:  # partitions in key order (NULLs last), as PostgreSQL's sort emits them
        try:
            idx.sort(key=lambda i: tuple((1, 0) if v is None else (0, v)
                                         for v in part(rows[i], ctx)))
        except TypeError:  # values without an order (json): group them, in text order
            idx.sort(key=lambda i: repr(part(rows[i], ctx)))
    return idx


def _partitions(rows: list, idx: list[int], part: Any, ctx: Any) -> list[list[int]]:
    if part is None:
        return [idx] if idx else []
    out: list[list[int]] = []
    last = object()
    for i in idx:
        k = part(rows[i], ctx)
        if k != last or not out:
            out.append([])
            last = k
        out[-1].append(i)
    return out


def _compute(call: N.WinCall, rows: list, members: list[int], peer: Any, args_fn: Any,
             ctx: Any, res: list) -> None:
    f = call.func
    argv: list[Any] = args_fn([rows[i] for i in members], ctx) if args_fn else [()] * len(members)
    peers = [peer(rows[i], ctx) for i in members] if peer is not None else [()] * len(members)
    n = len(members)
    if f == "row_number":
        for pos, i in enumerate(members):
            res[i] = pos + 1
        return
    if f in ("rank", "dense_rank", "percent_rank", "cume_dist"):
        rank = dense = 0
        for pos, i in enumerate(members):
            if pos == 0 or peers[pos] != peers[pos - 1]:
                rank = pos + 1
                dense += 1
            res[i] = {"rank": rank, "dense_rank": dense,
                      "percent_rank": (rank - 1) / (n - 1) if n > 1 else 0.0}.get(f)
        if f == "cume_dist":
            pos = 0
            while pos < n:
                end = pos
                while end + 1 < n and peers[end + 1] == peers[pos]:
                    end += 1
                for q in range(pos, end + 1):
                    res[members[q]] = (end + 1) / n
                pos = end + 1
        return
    if f in ("lag", "lead"):
        for pos, i in enumerate(members):
            off = argv[pos][1]
            if off is None:
                res[i] = None
                continue
            j = pos - off if f == "lag" else pos + off
            res[i] = argv[j][0] if 0 <= j < n else (argv[pos][2] if len(argv[pos]) > 2 else None)
        return
    if f == "ntile":
        buckets = argv[0][0] if argv else 1
        for pos, i in enumerate(members):
            res[i] = pos * buckets // n + 1
        return
    bounds = _frames(call, n, peers, ctx)
    if f in ("first_value", "last_value", "nth_value"):
        for pos, i in enumerate(members):
            lo, hi = bounds[pos]
            if f == "first_value":
                res[i] = argv[lo][0] if lo < hi else None
            elif f == "last_value":
                res[i] = argv[hi - 1][0] if lo < hi else None
            else:
                k = argv[pos][1]
                res[i] = argv[lo + k - 1][0] if k and lo + k - 1 < hi else None
        return
    if f in ("min", "max") and len(call.args) == 2:  # an enum, with its sort key (the planner)
        _keyed_extreme(f == "min", argv, bounds, members, res)
        return
    if f in RUNNING and all(lo == 0 for lo, _ in bounds):
        _running(call, argv, bounds, members, res)
        return
    cache: dict[tuple[int, int], Any] = {}
    for pos, i in enumerate(members):
        b = bounds[pos]
        if b not in cache:
            cache[b] = finish(N.AggCall(f, call.args, call.type, arg_type=call.arg_type),
                              argv[b[0]:b[1]])
        res[i] = cache[b]


RUNNING = ("count_star", "count", "sum", "avg", "min", "max")


def _keyed_extreme(least: bool, argv: list, bounds: list, members: list[int], res: list) -> None:
    """MIN (least) or MAX of each frame's non-NULL values by their sort keys (argument 2):
    an enum's labels compare in the enum's declared order, not as text."""
    if all(lo == 0 for lo, _ in bounds):  # frames from the partition's start: a running pass
        best: Any = None
        done = 0
        for pos, i in enumerate(members):
            hi = bounds[pos][1]
            if hi < done:  # frames shrink (rare): start again
                best, done = None, 0
            for a in argv[done:hi]:
                if a[0] is not None and (best is None or (a[1] < best[1] if least
                                                          else a[1] > best[1])):
                    best = a
            done = max(done, hi)
            res[i] = None if best is None else best[0]
        return
    pick = min if least else max
    cache: dict[tuple[int, int], Any] = {}
    for pos, i in enumerate(members):
        b = bounds[pos]
        if b not in cache:
            vals = [a for a in argv[b[0]:b[1]] if a[0] is not None]
            cache[b] = pick(vals, key=itemgetter(1))[0] if vals else None
        res[i] = cache[b]


def _range_frames(call: N.WinCall, n: int, peers: list, first: list, last: list,
                  ctx: Any) -> list[tuple[int, int]]:
    """RANGE frames with value offsets over the single ORDER BY key: the rows whose key lies
    within [key - start offset, key + end offset] (mirrored for DESC); NULL keys frame their
    peers."""
    desc = call.order[0].desc
    keys = [p[0] for p in peers]
    nonnull = [i for i, k in enumerate(keys) if k is not None]
    lo_i, hi_i = (nonnull[0], nonnull[-1] + 1) if nonnull else (0, 0)
    vals = [keys[i] for i in range(lo_i, hi_i)]
    if desc:
        vals = [_Desc(v) for v in vals]

    so = _offset(call.range_start, ctx) if call.range_start is not None else None
    eo = _offset(call.range_end, ctx) if call.range_end is not None else None
    out = []
    for pos in range(n):
        k = keys[pos]
        if k is None:
            lo = 0 if call.frame_start is None else first[pos]
            hi = n if call.frame_end is None else last[pos]
            out.append((lo, max(lo, hi)))
            continue
        step = (lambda v, d: _plus(v, -d)) if not desc else _plus
        if call.frame_start is None:
            lo = 0
        elif so is not None:
            bound = step(k, so) if call.frame_start < 0 else step(k, -so)
            lo = lo_i + bisect.bisect_left(vals, _Desc(bound) if desc else bound)
        else:
            lo = first[pos]
        if call.frame_end is None:
            hi = n
        elif eo is not None:
            bound = step(k, -eo) if call.frame_end > 0 else step(k, eo)
            hi = lo_i + bisect.bisect_right(vals, _Desc(bound) if desc else bound)
        else:
            hi = last[pos]
        out.append((lo, max(lo, hi)))
    return out


def _plus(v: Any, d: Any) -> Any:
    """key + offset; a timestamp moves by an interval's months and days on the calendar."""
    if isinstance(v, dt.datetime) and isinstance(d, dt.timedelta):
        return add_to_timestamp(v, d)
    return v + d


def _offset(e: Any, ctx: Any,
            negative: str = "invalid preceding or following size in window function") -> Any:
    """A frame offset's value: non-negative and not NULL (22013/22004 otherwise)."""
    v = value_of(e, ctx)
    if v is None:
        raise InvalidParameterValue("frame starting offset must not be null", sqlstate="22004")
    if v < 0 * v:
        raise InvalidParameterValue(negative, sqlstate="22013")
    return v


class _Desc:
    """Reverses the ordering of a value (for bisecting a descending key list)."""

    __slots__ = ("v",)

    def __init__(self, v: Any) -> None:
        self.v = v

    def __lt__(self, other: _Desc) -> bool:
        return other.v < self.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and other.v == self.v


def _frames(call: N.WinCall, n: int, peers: list, ctx: Any = None) -> list[tuple[int, int]]:
    """[lo, hi) row positions of each row's frame within its partition."""
    if call.whole:
        return [(0, n)] * n
    first, last = [0] * n, [0] * n  # peer group bounds
    pos = 0
    while pos < n:
        end = pos
        while end + 1 < n and peers[end + 1] == peers[pos]:
            end += 1
        for q in range(pos, end + 1):
            first[q], last[q] = pos, end + 1
        pos = end + 1
    s, e = call.frame_start, call.frame_end
    if call.frame_rows:  # ROWS offsets given as expressions ($1): evaluated per execution
        if call.range_start is not None:
            s = s * _offset(call.range_start, ctx, "frame starting offset must not be negative")
        if call.range_end is not None:
            e = e * _offset(call.range_end, ctx, "frame ending offset must not be negative")
    elif call.range_start is not None or call.range_end is not None:
        return _range_frames(call, n, peers, first, last, ctx)
    out = []
    for pos in range(n):
        if s is None:
            lo = 0
        elif call.frame_rows:
            lo = min(max(pos + s, 0), n)
        else:
            lo = first[pos]
        if e is None:
            hi = n
        elif call.frame_rows:
            hi = min(max(pos + e + 1, 0), n)
        else:
            hi = last[pos]
        out.append((lo, max(lo, hi)))
    return out


def _running(call: N.WinCall, argv: list, bounds: list, members: list[int], res: list) -> None:
    """Frames that all start at the partition's first row: one pass, a running state."""
    f = call.func
    count = nn = 0
    acc: Any = None
    done = 0
    last_hi, last_val = -1, None
    for pos, i in enumerate(members):
        hi = bounds[pos][1]
        if hi != last_hi:
            if hi < done:  # frames shrink (rare): recompute from the start
                count, nn, acc, done = 0, 0, None, 0
            for j in range(done, hi):
                count += 1
                v = argv[j][0] if argv[j] else None
                if v is None:
                    continue
                nn += 1
                if f in ("sum", "avg"):
                    acc = v if acc is None else acc + v
                elif f in ("min", "max") and isinstance(v, list):  # NULL items: array_cmp
                    acc = v if acc is None else rt.extreme([acc, v], f == "min")
                elif f == "min":  # NaN (x != x) sorts above every number, as in PostgreSQL
                    acc = v if acc is None or acc != acc or (v == v and v < acc) else acc
                elif f == "max":
                    acc = v if acc is None or v != v or (acc == acc and v > acc) else acc
            done = hi
            last_hi = hi
            if f == "count_star":
                last_val = count
            elif f == "count":
                last_val = nn
            elif f == "avg":
                last_val = final(call, [acc, nn])
            else:
                last_val = final(call, acc)
        res[i] = last_val


@executes(N.Window)
def run_window(node: N.Window, ctx: Any) -> Iterator[Batch]:
    prep = compiled(node, "prep", lambda: _prepare(node))
    rows = rows_of(node.child, ctx)
    results = []
    first_order = None
    for call, (part, order, peer, args_fn) in zip(node.calls, prep, strict=True):
        idx = _sorted_indexes(rows, part, order, ctx)
        if first_order is None:
            first_order = idx
        res: list[Any] = [None] * len(rows)
        for members in _partitions(rows, idx, part, ctx):
            _compute(call, rows, members, peer, args_fn, ctx, res)
        results.append(res)
    out = [(*rows[i], *(r[i] for r in results)) for i in (first_order or [])]
    yield from rebatch(out)
