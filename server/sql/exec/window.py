"""Window functions: ranking, lag/lead, first/last value, and aggregates over partitions.

The input is materialised, then each call sorts the row indexes by
(partition, order) with compiled key functions and walks every partition
once. Peers (rows equal on the ORDER BY keys) share rank and, under the
default RANGE frame, running-aggregate values. Output rows keep the order
of the first call's sort, as PostgreSQL's WindowAgg emits them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..expr import codegen as cg
from ..plan import nodes as N
from .aggregate import finish
from .runner import Batch, compiled, executes, rebatch, rows_of


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
        idx.sort(key=lambda i, fn=fn: fn(rows[i], ctx), reverse=desc)
    if part is not None:
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
    argv = args_fn([rows[i] for i in members], ctx) if args_fn else [()] * len(members)
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
    if f == "first_value":
        for i in members:
            res[i] = argv[0][0]
        return
    # aggregates and last_value / nth_value: frame = partition, or rows up to the current peer
    ends = []
    for pos in range(n):
        if call.whole:
            ends.append(n)
        elif call.frame_rows:
            ends.append(pos + 1)
        else:
            end = pos
            while end + 1 < n and peers[end + 1] == peers[pos]:
                end += 1
            ends.append(end + 1)
    cache: dict[int, Any] = {}
    for pos, i in enumerate(members):
        e = ends[pos]
        if e not in cache:
            frame = argv[:e]
            if f == "last_value":
                cache[e] = frame[-1][0] if frame else None
            elif f == "nth_value":
                k = argv[pos][1]
                cache[e] = frame[k - 1][0] if k and k <= len(frame) else None
            else:
                cache[e] = finish(N.AggCall(f, call.args, call.type), frame)
        res[i] = cache[e]


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
