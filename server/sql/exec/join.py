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

import itertools
from collections.abc import Iterator
from typing import Any

from ...txn.api import ScanSpec
from ..expr import codegen as cg
from ..plan import nodes as N
from . import memguard, runtime_filter
from .keys import encode_key, prefix_upper_bound
from .runner import BATCH, Batch, compiled, executes, rebatch, rows_of, run
from .scan import filter_params, row_selector


def _residual(node: N.Join, key: str, e: Any):
    return compiled(node, key, lambda: cg.row_function(e) if e is not None else None)


# pairs a join tests between two cancel checks when its output does not give one: a nested
# loop over 20k x 20k rows that matched nothing checked once per left batch (~11 s)
CHECK_EVERY = 1 << 16


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
    tested = 0  # pairs tested since the last cancel check
    for lb in run(node.left, ctx):
        out = []
        for lrow in lb:
            hit = False
            for j, rrow in candidates(lrow):
                tested += 1
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
            elif tested >= CHECK_EVERY:  # NB: a nested loop that matches little
                tested = 0
                ctx.check_cancel()
        if out:
            yield out
        ctx.check_cancel()
    if track_right:
        yield from rebatch([lpad + r for j, r in enumerate(right_rows()) if j not in matched])


def _probe_semi(node: N.Join, ctx: Any, cond, candidates) -> Iterator[Batch]:
    """Semi join: each left row once if a candidate passes `cond`; anti join: if none does."""
    want = node.kind == "semi"
    tested = 0
    for lb in run(node.left, ctx):
        out = []
        for lrow in lb:
            hit = False
            for _j, rrow in candidates(lrow):
                tested += 1
                if cond is None or cond(lrow + rrow, ctx) is True:
                    hit = True
                    break
            if hit is want:
                out.append(lrow)
            if tested >= CHECK_EVERY:
                tested = 0
                ctx.check_cancel()
        if out:
            yield out
        ctx.check_cancel()


def _null_aware_anti(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """`x NOT IN (uncorrelated subquery)`: true only for a non-NULL x absent from a NULL-free
    right side; every row qualifies against an empty right side."""
    lkey = compiled(node, "lkey", lambda: cg.join_key_function(node.left_keys))
    rkey = compiled(node, "rkey", lambda: cg.join_key_function(node.right_keys))
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
    if node.algo == "range" and node.prefix_keys:
        yield from _range(node, ctx)
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
    outer = ctx.outer

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
    """Builds on the right input, probes with the left, a left batch at a time.

    The right side runs only once the left side has produced a row (as PostgreSQL skips
    the hash build under an empty outer side), except for RIGHT and FULL joins and when
    the build keys become a runtime filter on the left side's scan (`runtime_filter`)."""
    if node.kind in ("right", "full"):
        yield from _hash_outer(node, ctx)
        return
    if node.build_left and node.kind in ("semi", "anti"):
        yield from _hash_build_left(node, ctx)
        return
    lkeys = compiled(node, "lkeys", lambda: cg.keys_function(node.left_keys))
    rkeys = compiled(node, "rkeys", lambda: cg.keys_function(node.right_keys))
    resid = _residual(node, "resid", node.residual)
    single = len(node.right_keys) == 1
    keys_only = node.kind in ("semi", "anti") and resid is None
    rf = compiled(node, "rfilter", lambda: runtime_filter.target(node))
    if rf:  # build first: its keys filter the probe side's scan
        table, fan = _build(node, ctx, rkeys, keys_only, single)
        if not table:
            return  # inner and semi joins only: nothing can match
        scan, pairs = rf
        sets = runtime_filter.key_sets(table, len(node.right_keys), pairs, scan)
        left = runtime_filter.run_filtered(node.left, scan, sets, ctx)
        first = next(left, None)
        if first is None:
            return
    else:
        left = run(node.left, ctx)
        first = next(left, None)
        if first is None:
            return
        table, fan = _build(node, ctx, rkeys, keys_only, single)
    if keys_only:
        want = node.kind == "semi"
        for lb in itertools.chain([first], left):
            out = [lrow for lrow, k in zip(lb, lkeys(lb, ctx), strict=True)
                   if (k in table) is want]
            if out:
                yield out
            ctx.check_cancel()
        return
    # A left slice of `step` rows yields at most max(4 x BATCH, fan) rows: a many-to-many
    # join streams instead of holding one left batch's whole product.
    step = BATCH if fan <= 4 else max(1, 4 * BATCH // fan)
    rpad = (None,) * len(node.right.cols)
    for whole in itertools.chain([first], left):
        for i in range(0, len(whole), step):
            lb = whole[i : i + step] if step < len(whole) else whole
            out = _match(node.kind, lb, lkeys(lb, ctx), table, resid, rpad, ctx)
            if out:
                yield out
            ctx.check_cancel()


def _match(kind: str, lb: Batch, lk: list, table: dict, resid: Any, rpad: tuple,
           ctx: Any) -> Batch:
    """The output of left rows `lb` (keys `lk`) against `table` (key -> right rows)."""
    get = table.get
    if kind == "inner":
        if resid is None:
            return [lrow + r for lrow, k in zip(lb, lk, strict=True) for r in get(k, ())]
        return [row for lrow, k in zip(lb, lk, strict=True) for r in get(k, ())
                if resid(row := lrow + r, ctx) is True]
    if kind == "left" and resid is None:  # a missing key yields the padded row
        padded = (rpad,)
        return [lrow + r for lrow, k in zip(lb, lk, strict=True) for r in get(k, padded)]
    if kind == "left":
        out = []
        for lrow, k in zip(lb, lk, strict=True):
            hits = [row for r in get(k, ()) if resid(row := lrow + r, ctx) is True]
            if hits:
                out.extend(hits)
            else:
                out.append(lrow + rpad)
        return out
    want = kind == "semi"
    if resid is None:
        return [lrow for lrow, k in zip(lb, lk, strict=True) if (k in table) is want]
    return [lrow for lrow, k in zip(lb, lk, strict=True)
            if any(resid(lrow + r, ctx) is True for r in get(k, ())) is want]


def _range(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """Range bind join: for each batch of left rows, one key-range scan of the right table
    per distinct primary-key prefix the batch needs (with the scan's pushed filter and
    projection), then the rows are matched on all keys as in a hash join."""
    m = node.prefix_keys
    pfn = compiled(node, "prefix", lambda: cg.project_function(node.left_keys[:m]))
    lkeys = compiled(node, "lkeys", lambda: cg.keys_function(node.left_keys))
    rkeys = compiled(node, "rkeys", lambda: cg.keys_function(node.right_keys))
    resid = _residual(node, "resid", node.residual)
    right: N.Scan = node.right  # type: ignore[assignment]  # join_algorithm checked
    ir = right.ir
    params = () if ir is None else filter_params(right, ctx)
    single = len(node.right_keys) == 1
    rpad = (None,) * len(right.cols)
    for lb in run(node.left, ctx):
        rows: list[tuple] = []
        for p in set(pfn(lb, ctx)):
            if None in p:
                continue  # NULL never equals a key
            lo = encode_key(p)
            spec = ScanSpec(space=right.table.space, lo=lo, hi=prefix_upper_bound(lo),
                            projection=right.projection, filter=ir, params=params)
            for b in ctx.txn.scan(spec):
                rows.extend(b)
        ctx.check_cancel()
        memguard.check(ctx)
        table: dict = {}
        for k, r in zip(rkeys(rows, ctx), rows, strict=True):
            t = table.get(k)
            if t is None:
                table[k] = [r]
            else:
                t.append(r)
        _drop_null_keys(table, single)
        out = _match(node.kind, lb, lkeys(lb, ctx), table, resid, rpad, ctx)
        if out:
            yield out


def _hash_build_left(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """A semi / anti join that hashes its left rows and streams the right input past them,
    marking the left rows that find a match; it stops reading the right side once every
    left key has matched. A semi join then emits the matched rows, an anti join the others
    (NULL keys included), in the left input's order."""
    lkeys = compiled(node, "lkeys", lambda: cg.keys_function(node.left_keys))
    rkeys = compiled(node, "rkeys", lambda: cg.keys_function(node.right_keys))
    resid = _residual(node, "resid", node.residual)
    lrows = rows_of(node.left, ctx)
    if not lrows:
        return
    table: dict = {}
    for i, k in enumerate(lkeys(lrows, ctx)):
        m = table.get(k)
        if m is None:
            table[k] = [i]
        else:
            m.append(i)
    _drop_null_keys(table, len(node.left_keys) == 1)
    matched = bytearray(len(lrows))
    rf = compiled(node, "rfilter_right", lambda: runtime_filter.scan_keys(
        node.right, node.right_keys))
    if rf and table:
        scan, pairs = rf
        sets = runtime_filter.key_sets(table, len(node.left_keys), pairs, scan)
        right = runtime_filter.run_filtered(node.right, scan, sets, ctx)
    else:
        right = run(node.right, ctx) if table else iter(())
    for b in right:
        ctx.check_cancel()
        pop, get = table.pop, table.get
        if resid is None:
            for k in rkeys(b, ctx):
                hit = pop(k, None)  # every left row of the key matches: done with the key
                if hit is not None:
                    for i in hit:
                        matched[i] = 1
        else:
            for r, k in zip(b, rkeys(b, ctx), strict=True):
                hit = get(k)
                if hit is None:
                    continue
                rest = []
                for i in hit:
                    if resid(lrows[i] + r, ctx) is True:
                        matched[i] = 1
                    else:
                        rest.append(i)
                if rest:
                    table[k] = rest
                else:
                    del table[k]
        if not table:
            break  # NB: the right side is left unfinished; nothing else reads it
    want = 1 if node.kind == "semi" else 0
    yield from rebatch([r for r, m in zip(lrows, matched, strict=True) if m == want])


def _build(node: N.Join, ctx: Any, rkeys: Any, keys_only: bool,
           single: bool) -> tuple[Any, int]:
    """The right input as a set of keys (`keys_only`) or a table key -> rows, NULL keys
    dropped, and the largest number of rows under one key."""
    fan = 1
    if keys_only:
        keys: set = set()
        for b in run(node.right, ctx):
            ctx.check_cancel()
            keys.update(rkeys(b, ctx))
        _drop_null_keys(keys, single)
        return keys, fan
    table: dict = {}
    kept = memguard.Kept(ctx)
    for b in run(node.right, ctx):
        ctx.check_cancel()
        kept.add(b)
        for k, r in zip(rkeys(b, ctx), b, strict=True):
            m = table.get(k)
            if m is None:
                table[k] = [r]
            else:
                m.append(r)
                fan = max(fan, len(m))
    _drop_null_keys(table, single)
    return table, fan


def _drop_null_keys(keys: Any, single: bool) -> None:
    """Removes the keys holding a NULL from a key set or table: NULL never equals anything."""
    if single:
        if isinstance(keys, set):
            keys.discard(None)
        else:
            keys.pop(None, None)
        return
    for k in [k for k in keys if None in k]:
        if isinstance(keys, set):
            keys.discard(k)
        else:
            del keys[k]


def _hash_outer(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """RIGHT and FULL hash joins: track which right rows matched, to pad the others."""
    lkey = compiled(node, "lkey", lambda: cg.key_function(node.left_keys))
    rkey = compiled(node, "rkey", lambda: cg.key_function(node.right_keys))
    resid = _residual(node, "resid", node.residual)
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


def _bind(node: N.Join, ctx: Any) -> Iterator[Batch]:
    """For each batch of left rows, one batched get of the matching right rows by primary key."""
    lkey = compiled(node, "lkey", lambda: cg.key_function(node.left_keys))
    resid = _residual(node, "resid", node.residual)
    right: N.Scan = node.right  # type: ignore[assignment]
    rpad = (None,) * len(right.cols)
    space = right.table.space
    # the inner scan's pushed filter (stock's `s_quantity < $6`) applies to the rows got
    keep = row_selector(right) if right.ir is not None else None
    for lb in run(node.left, ctx):
        keys = [lkey(r, ctx) for r in lb]
        wanted = {k: encode_key(k) for k in keys if None not in k}
        found = dict(zip(wanted, ctx.txn.get(space, list(wanted.values())), strict=True)) \
            if wanted else {}
        if keep is not None and found:
            live = [(k, r) for k, r in found.items() if r is not None]
            found = dict(live[i] for i in keep([r for _, r in live], ctx))
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
