"""Joins: nested loop, hash, merge and LATERAL (the right side re-run per left row).

All four produce left + right concatenated rows and pad the missing side
with NULLs for outer joins; semi and anti joins (decorrelated EXISTS / IN /
NOT EXISTS / NOT IN) emit only the left row, once, on its first match (semi)
or when nothing matches (anti). The hash join builds on the right input, keyed
by the compiled right key; NULL keys never match, as in SQL. The merge join
is a hash join over inputs the optimizer found ordered, kept separate so
EXPLAIN shows the choice; it streams the left side either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..expr import codegen as cg
from ..plan import nodes as N
from .keys import encode_key
from .runner import BATCH, Batch, compiled, executes, rebatch, rows_of, run


def _residual(node: N.Join, key: str, e: Any):
    return compiled(node, key, lambda: cg.row_function(e) if e is not None else None)


def _probe(node: N.Join, ctx: Any, cond, candidates, right_rows) -> Iterator[Batch]:
    """Streams each left row joined to its candidate right rows, padding the outer sides.

    `candidates(lrow)` gives (index, right row) pairs to test with `cond`;
    `right_rows()` gives every right row, for the unmatched ones of a RIGHT or FULL join.
    """
    if node.kind in ("semi", "anti"):
        yield from _probe_semi(node, ctx, cond, candidates)
        return
    lpad, rpad = (None,) * len(node.left.cols), (None,) * len(node.right.cols)
    keep_left = node.kind in ("left", "full")
    track_right = node.kind in ("right", "full")
    matched: set[int] = set()
    for lb in run(node.left, ctx):
        out = []
        for lrow in lb:
            hit = False
            for j, rrow in candidates(lrow):
                row = lrow + rrow
                if cond is None or cond(row, ctx) is True:
                    out.append(row)
                    hit = True
                    if track_right:
                        matched.add(j)
            if not hit and keep_left:
                out.append(lrow + rpad)
            if len(out) >= BATCH:  # a cross product streams, never held per left batch
                ctx.check_cancel()
                yield out
                out = []
        if out:
            yield out
        ctx.check_cancel()
    if track_right:
        yield from rebatch([lpad + r for j, r in enumerate(right_rows()) if j not in matched])


def _probe_semi(node: N.Join, ctx: Any, cond, candidates) -> Iterator[Batch]:
    """Semi join: each left row once if a candidate passes `cond`; anti join: if none does."""
    want = node.kind == "semi"
    for lb in run(node.left, ctx):
        out = []
        for lrow in lb:
            hit = False
            for _j, rrow in candidates(lrow):
                if cond is None or cond(lrow + rrow, ctx) is True:
                    hit = True
                    break
            if hit is want:
                out.append(lrow)
        if out:
            yield out
        ctx.check_cancel()


def _null_aware_anti(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """`x NOT IN (uncorrelated subquery)`: true only for a non-NULL x absent from a NULL-free
    right side; every row qualifies against an empty right side."""
    lkey = compiled(node, "lkey", lambda: cg.key_function(node.left_keys))
    rkey = compiled(node, "rkey", lambda: cg.key_function(node.right_keys))
    keys = set()
    empty = True
    for b in run(node.right, ctx):
        for r in b:
            empty = False
            k = rkey(r, ctx)
            if None in k:
                return  # x NOT IN (..., NULL, ...) is never true
            keys.add(k)
    for lb in run(node.left, ctx):
        if empty:
            yield lb
            continue
        out = []
        for lrow in lb:
            k = lkey(lrow, ctx)
            if None not in k and k not in keys:
                out.append(lrow)
        if out:
            yield out
        ctx.check_cancel()


def _nested(node: N.Join, ctx: Any, right_rows_for) -> Iterator[Batch]:
    cond = _residual(node, "cond", node.cond)
    yield from _probe(
        node, ctx, cond, lambda lrow: enumerate(right_rows_for(lrow)), lambda: right_rows_for(None)
    )


@executes(N.Join)
def run_join(node: N.Join, ctx: Any) -> Iterator[Batch]:
    if node.lateral:
        yield from _lateral(node, ctx)
        return
    if node.null_aware:
        yield from _null_aware_anti(node, ctx)
        return
    if node.algo == "bind" and node.left_keys:
        yield from _bind(node, ctx)
        return
    if node.algo == "merge" and node.left_keys:
        yield from _merge(node, ctx)
        return
    if node.algo == "hash" and node.left_keys:
        yield from _hash(node, ctx)
        return
    cache: list = []

    def right_rows(_lrow: Any) -> list:
        if not cache:
            cache.append(rows_of(node.right, ctx))
        return cache[0]

    yield from _nested(node, ctx, right_rows)


def _lateral(node: N.Join, ctx: Any) -> Iterator[Batch]:
    outer = ctx.__dict__.setdefault("outer", [])

    def right_rows(lrow: Any) -> list:
        if lrow is None:
            return []
        outer.append(lrow)
        try:
            return rows_of(node.right, ctx)
        finally:
            outer.pop()

    yield from _nested(node, ctx, right_rows)


def _hash(node: N.Join, ctx: Any) -> Iterator[Batch]:
    lkey = compiled(node, "lkey", lambda: cg.key_function(node.left_keys))
    rkey = compiled(node, "rkey", lambda: cg.key_function(node.right_keys))
    resid = _residual(node, "resid", node.residual)
    if node.kind in ("semi", "anti") and resid is None:
        yield from _hash_keys_only(node, ctx, lkey, rkey)
        return
    table: dict = {}
    right = rows_of(node.right, ctx)
    for j, r in enumerate(right):
        k = rkey(r, ctx)
        if None in k:
            continue
        table.setdefault(k, []).append(j)

    def candidates(lrow: Any) -> list:
        k = lkey(lrow, ctx)
        return [] if None in k else [(j, right[j]) for j in table.get(k, ())]

    yield from _probe(node, ctx, resid, candidates, lambda: right)


def _hash_keys_only(node: N.Join, ctx: Any, lkey, rkey) -> Iterator[Batch]:
    """A semi / anti join without a residual needs only the set of right keys."""
    keys = set()
    for b in run(node.right, ctx):
        for r in b:
            k = rkey(r, ctx)
            if None not in k:
                keys.add(k)
    want = node.kind == "semi"
    for lb in run(node.left, ctx):
        out = []
        for lrow in lb:
            k = lkey(lrow, ctx)
            if (None not in k and k in keys) is want:
                out.append(lrow)
        if out:
            yield out
        ctx.check_cancel()


def _bind(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """For each batch of left rows, one batched get of the matching right rows by primary key."""
    lkey = compiled(node, "lkey", lambda: cg.key_function(node.left_keys))
    resid = _residual(node, "resid", node.residual)
    right: N.Scan = node.right  # type: ignore[assignment]
    rpad = (None,) * len(right.cols)
    space = right.table.space
    for lb in run(node.left, ctx):
        keys = [lkey(r, ctx) for r in lb]
        wanted = {k: encode_key(k) for k in keys if None not in k}
        found = dict(zip(wanted, ctx.txn.get(space, list(wanted.values())), strict=True)) \
            if wanted else {}
        out = []
        if node.kind in ("semi", "anti"):
            want = node.kind == "semi"
            for lrow, k in zip(lb, keys, strict=True):
                r = found.get(k)
                if r is not None and right.with_keys:
                    r = (*r, wanted[k])
                hit = r is not None and (resid is None or resid(lrow + r, ctx) is True)
                if hit is want:
                    out.append(lrow)
            if out:
                yield out
            ctx.check_cancel()
            continue
        for lrow, k in zip(lb, keys, strict=True):
            r = found.get(k)
            if r is not None:
                if right.with_keys:
                    r = (*r, wanted[k])
                row = lrow + r
                if resid is None or resid(row, ctx) is True:
                    out.append(row)
                    continue
            if node.kind == "left":
                out.append(lrow + rpad)
        if out:
            yield out
        ctx.check_cancel()


def _merge(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """Both inputs arrive ordered on the key: one pass, matching runs of equal keys."""
    lk, rk = node.left_keys[0].data, node.right_keys[0].data
    resid = _residual(node, "resid", node.residual)
    right = rows_of(node.right, ctx)
    rpad = (None,) * len(node.right.cols)
    j, n = 0, len(right)
    for lb in run(node.left, ctx):
        out = []
        for lrow in lb:
            v = lrow[lk]
            hit = False
            if v is not None:
                while j < n and (right[j][rk] is None or right[j][rk] < v):
                    j += 1
                m = j
                while m < n and right[m][rk] == v:
                    row = lrow + right[m]
                    if resid is None or resid(row, ctx) is True:
                        out.append(row)
                        hit = True
                    m += 1
            if not hit and node.kind == "left":
                out.append(lrow + rpad)
        if out:
            yield out
        ctx.check_cancel()
