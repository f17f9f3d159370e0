"""The executor's dispatch and its simple operators: each node runs as a generator of batches.

`run(node, ctx)` looks the node's class up in `EXECUTORS` once per node per
execution, never per row. Expressions are compiled on first use and kept on
the node (`compiled`), so every later execution of a cached plan reuses them.
Operators that must see all input (sort, distinct, set operations) collect
batches and re-emit them in `BATCH`-sized slices.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import time
import weakref
from collections.abc import Callable, Iterator
from decimal import Decimal
from operator import itemgetter
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ...pgtypes.collated import collated, memcmp_keys
from ..context import ExecContext
from ..expr import codegen as cg
from ..expr.bound import E
from ..plan import nodes as N
from ..plan.nodeexprs import correlated
from . import memguard

BATCH = 1024
Batch = list[tuple]
EXECUTORS: dict[type, Callable[[Any, Any], Iterator[Batch]]] = {}
# Each plan node's (or vector spec's) compiled functions by purpose, built at its first run
# and kept as long as the node: a cached plan compiles once for every execution.
_COMPILED: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def executes(cls: type) -> Callable:
    """Registers the executor of a node class."""

    def wrap(fn: Callable) -> Callable:
        EXECUTORS[cls] = fn
        return fn

    return wrap


def run(node: N.Node, ctx: ExecContext) -> Iterator[Batch]:
    """Runs a plan node, yielding non-empty batches."""
    stats = ctx.analyze
    if stats is None:
        return EXECUTORS[type(node)](node, ctx)
    return _counted(node, ctx, stats)


def _counted(node: N.Node, ctx: Any, stats: dict) -> Iterator[Batch]:
    entry = stats.setdefault(id(node), [0, 0.0, 0, 0.0])  # rows, secs, loops, startup secs
    entry[2] += 1
    it = EXECUTORS[type(node)](node, ctx)
    first = True
    while True:
        t0 = time.perf_counter()
        try:
            b = next(it)
        except StopIteration:
            entry[1] += time.perf_counter() - t0
            if first and len(entry) > 3:
                entry[3] += time.perf_counter() - t0
            return
        spent = time.perf_counter() - t0
        entry[1] += spent
        if first and len(entry) > 3:  # the time to the first row, as PostgreSQL's startup time
            entry[3] += spent
            first = False
        entry[0] += len(b)
        yield b


def compiled(node: Any, key: str, build: Callable[[], Any]) -> Any:
    """Returns the node's compiled function `key`, building it on first use."""
    fns = _COMPILED.get(node)
    if fns is None:
        fns = _COMPILED[node] = {}
    fn = fns.get(key)
    if fn is None:
        fn = fns[key] = build()
    return fn


def value_of(e: Any, ctx: Any) -> Any:
    """The value of an expression of no row (a LIMIT, an OFFSET, a frame offset) for this
    execution's parameters. Compiled once per plan, like every other expression: compiling
    it per execution cost a prepared `... LIMIT $1` about a third of its CPU."""
    return compiled(e, "value", lambda: cg.row_function(e))((), ctx)


def rows_of(node: N.Node, ctx: Any) -> list[tuple]:
    """Runs a node to completion and returns all its rows."""
    out: list[tuple] = []
    kept = memguard.Kept(ctx)
    for b in run(node, ctx):
        ctx.check_cancel()
        kept.add(b)
        out.extend(b)
    return out


def rebatch(rows: list[tuple]) -> Iterator[Batch]:
    """Yields a list of rows in BATCH-sized slices."""
    for i in range(0, len(rows), BATCH):
        yield rows[i : i + BATCH]


def cache_of(ctx: Any) -> dict:
    """The per-execution cache (materialised CTEs, uncorrelated subquery results)."""
    return ctx.plan_cache


@executes(N.Values)
def run_values(node: N.Values, ctx: Any) -> Iterator[Batch]:
    fn = compiled(node, "rows", lambda: [cg.row_function(values_row(r)) for r in node.rows])
    out = [f((), ctx) for f in fn]
    if out:
        yield out


def values_row(exprs: list) -> Any:
    """Wraps a VALUES row as one `row` expression."""
    return E("row", None, list(exprs))


@executes(N.Filter)
def run_filter(node: N.Filter, ctx: Any) -> Iterator[Batch]:
    fn = compiled(node, "pred", lambda: cg.filter_function(node.pred))
    for b in run(node.child, ctx):
        ctx.check_cancel()
        out = fn(b, ctx)
        if out:
            yield out


@executes(N.Project)
def run_project(node: N.Project, ctx: Any) -> Iterator[Batch]:
    fn = compiled(node, "proj", lambda: cg.project_function(node.exprs))
    for b in run(node.child, ctx):
        ctx.check_cancel()
        yield fn(b, ctx)


@executes(N.ProjectSet)
def run_project_set(node: N.ProjectSet, ctx: Any) -> Iterator[Batch]:
    def build() -> list:
        fns: list[tuple] = []
        for e, is_srf in zip(node.exprs, node.srf, strict=True):
            if is_srf:
                args = cg.project_function(e.args) if e.args else None
                fd, field = e.data if e.kind == "srf_field" else (e.data, None)
                fns.append((True, (fd, field), args))
            else:
                fns.append((False, cg.row_function(e), None))
        return fns

    fns = compiled(node, "fns", build)
    out: list[tuple] = []
    for b in run(node.child, ctx):
        for row in b:
            for r in _project_set_row(fns, row, ctx):
                out.append(r)
                if len(out) >= BATCH:
                    ctx.check_cancel()
                    yield out
                    out = []
    if out:
        yield out


def _project_set_row(fns: list, row: tuple, ctx: Any) -> Iterator[tuple]:
    """The rows one input row expands to: the SRFs advance in lockstep, lazily."""
    cols: list[Any] = []
    for is_srf, f, args in fns:
        if not is_srf:
            cols.append((False, f(row, ctx)))
            continue
        fd, field = f
        a = args([row], ctx)[0] if args else ()
        if fd.strict and any(x is None for x in a):
            cols.append((True, iter(())))
            continue
        pre = (ctx.functions,) if fd.needs_context else ()
        cols.append((True, iter(fd.impl(*pre, *a)), field, bool(fd.out_columns)))
    done: Any = object()
    while True:
        vals = []
        live = False
        for c in cols:
            if not c[0]:
                vals.append(c[1])
                continue
            v = next(c[1], done)
            if v is done:
                vals.append(None)
                continue
            live = True
            if len(c) > 2:
                if c[2] is not None:
                    v = v[c[2]]
                elif c[3] and not isinstance(v, tuple):  # NB: a Record keeps its field types
                    v = tuple(v)
            vals.append(v)
        if not live:
            return
        yield tuple(vals)


_TEXTS = frozenset((T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME))


# SQL types whose non-NULL values Python orders as SQL does, by the one Python type they hold
_PLAIN_ORDER: dict[int, type] = {T.INT2: int, T.INT4: int, T.INT8: int, T.NUMERIC: Decimal,
                                 T.FLOAT4: float, T.FLOAT8: float, T.DATE: dt.date,
                                 T.TIMESTAMP: dt.datetime}


def _plain_key(e: E, rows: list[tuple]) -> Callable[[tuple], Any] | None:
    """The getter of the key's column when Python's own order of its values is SQL's (a
    column of one integer, numeric, float, date or timestamp type, holding no NULL and no
    NaN); None otherwise. Why: the general key (`sort_key_function`) builds two tuples a
    row to place NULLs and NaN, and compares those: CH-benCHmark Q16 sorts 100,000 rows by a
    count, Q18 9,000 by a numeric sum and a timestamp. Equal keys keep their order either way.

    >>> from cumulo.server.sql.expr.bound import E
    >>> rows = [(2, Decimal("1.5")), (1, Decimal("NaN")), (3, None)]
    >>> _plain_key(E("col", 0, [], T.INT4), rows) is not None, _plain_key(E("col", 1, [], T.NUMERIC), rows)
    (True, None)
    """
    want = _PLAIN_ORDER.get(e.type)
    if want is None or e.kind != "col":
        return None
    get = itemgetter(e.data)
    vals = list(map(get, rows))
    if set(map(type, vals)) != {want}:  # NB: also a NULL, a bool, a datetime among dates
        return None
    if (want is float and any(map(math.isnan, vals))) or (
            want is Decimal and any(map(Decimal.is_nan, vals))):
        return None
    return get


@executes(N.Sort)
def run_sort(node: N.Sort, ctx: Any) -> Iterator[Batch]:
    def build() -> list:
        return [(cg.sort_key_function(k.expr, k.desc == k.nulls_first), k.desc,
                 k.expr.type in _TEXTS) for k in node.keys]

    keys = compiled(node, "keys", build)
    rows = rows_of(node.child, ctx)
    for (fn, desc, text), k in zip(reversed(keys), reversed(node.keys), strict=True):
        plain = _plain_key(k.expr, rows)
        if plain is not None:
            rows.sort(key=plain, reverse=desc)
            continue
        if text and collated(fn(r, ctx) for r in rows[:64]):  # NB: ICU text: by sort keys
            ks = memcmp_keys([fn(r, ctx) for r in rows])
            if ks is not None:
                pairs = sorted(zip(ks, rows, strict=True), key=itemgetter(0), reverse=desc)
                rows = [r for _, r in pairs]
                continue
        # mypy cannot infer a lambda with a default argument
        rows.sort(key=lambda r, fn=fn: fn(r, ctx), reverse=desc)  # type: ignore[misc]
    yield from rebatch(rows)


def _count(e: Any, ctx: Any, what: str) -> int | None:
    if e is None:
        return None
    v = value_of(e, ctx)
    if v is not None and v < 0:
        raise InvalidParameterValue(f"{what} must not be negative", sqlstate=(
            "2201W" if what == "LIMIT" else "2201X"))
    return v


@executes(N.Limit)
def run_limit(node: N.Limit, ctx: Any) -> Iterator[Batch]:
    lim = _count(node.limit, ctx, "LIMIT")
    off = _count(node.offset, ctx, "OFFSET") or 0
    if lim == 0:
        return
    if node.ties is not None:
        yield from _limit_ties(node, ctx, lim, off)
        return
    for b in run(node.child, ctx):
        if off:
            if off >= len(b):
                off -= len(b)
                continue
            b = b[off:]
            off = 0
        if lim is not None:
            if len(b) >= lim:
                yield b[:lim]
                return
            lim -= len(b)
        yield b


def _limit_ties(node: N.Limit, ctx: Any, lim: int | None, off: int) -> Iterator[Batch]:
    """FETCH FIRST n ROWS WITH TIES: n rows, then every following row equal on the sort keys."""
    ties = node.ties or []
    key = compiled(node, "ties", lambda: cg.key_function(ties))
    last = None
    n = 0
    for b in run(node.child, ctx):
        out: Batch = []
        for row in b:
            if off:
                off -= 1
                continue
            if lim is not None and n >= lim:
                if key(row, ctx) != last:
                    if out:
                        yield out
                    return
            out.append(row)
            n += 1
            if lim is not None and n == lim:
                last = key(row, ctx)
        if out:
            yield out


@executes(N.Distinct)
def run_distinct(node: N.Distinct, ctx: Any) -> Iterator[Batch]:
    key = compiled(node, "key", lambda: cg.key_function(node.on) if node.on else None)
    nans = [] if key else _nan_columns(node)
    seen: set = set()
    kept = memguard.Kept(ctx)
    for b in run(node.child, ctx):
        out = []
        for row in b:
            k = key(row, ctx) if key else _nan_canon(row, nans) if nans else row
            try:
                if k in seen:
                    continue
                seen.add(k)
            except TypeError:  # unhashable values (arrays): compare by repr
                rk = repr(k)
                if rk in seen:
                    continue
                seen.add(rk)
            out.append(row)
        kept.add(out)  # NB: the keys of the new rows are what stays in `seen`
        if out:
            yield out


_NAN_TYPES = frozenset({700, 701, 1700})  # float4, float8, numeric: the types with a NaN
_NAN = "\0NaN"  # stands for every NaN in a key; no float/numeric value equals it


def _nan_columns(node: N.Node) -> list[int]:
    """The float/numeric output columns: only those can hold a NaN."""
    return [i for i, c in enumerate(node.cols) if c.type in _NAN_TYPES]


def _nan_canon(row: tuple, idx: list[int]) -> tuple:
    """The row as a duplicate-elimination key: Python's NaN != NaN, but DISTINCT and set
    operations treat all NaNs as one value, as PostgreSQL does."""
    for i in idx:
        v = row[i]
        if v is not None and v != v:
            return tuple(_NAN if j in idx and x is not None and x != x else x
                         for j, x in enumerate(row))
    return row


def _hashable(row: tuple, nans: list[int] | None = None) -> Any:
    if nans:
        row = _nan_canon(row, nans)
    try:
        hash(row)
        return row
    except TypeError:
        return repr(row)


@executes(N.SetOp)
def run_setop(node: N.SetOp, ctx: Any) -> Iterator[Batch]:
    nans = _nan_columns(node)
    if node.op == "union":
        if node.all:
            for b in itertools.chain(run(node.left, ctx), run(node.right, ctx)):
                yield b
            return
        seen: set = set()
        for b in itertools.chain(run(node.left, ctx), run(node.right, ctx)):
            out = []
            for row in b:
                k = _hashable(row, nans)
                if k not in seen:
                    seen.add(k)
                    out.append(row)
            if out:
                yield out
        return
    right: dict = {}
    for row in rows_of(node.right, ctx):
        k = _hashable(row, nans)
        right[k] = right.get(k, 0) + 1
    out = []
    emitted: set = set()
    for row in rows_of(node.left, ctx):
        k = _hashable(row, nans)
        n = right.get(k, 0)
        if node.op == "intersect":
            if n > 0:
                if node.all:
                    right[k] = n - 1
                    out.append(row)
                elif k not in emitted:
                    emitted.add(k)
                    out.append(row)
        else:
            if node.all:
                if n > 0:
                    right[k] = n - 1
                else:
                    out.append(row)
            elif n == 0 and k not in emitted:
                emitted.add(k)
                out.append(row)
    yield from rebatch(out)


@executes(N.CTEScan)
def run_cte(node: N.CTEScan, ctx: Any) -> Iterator[Batch]:
    cache = cache_of(ctx)
    key: tuple = ("cte", id(node.cte))
    if correlated(node.cte.plan):  # depends on the enclosing row: one copy per outer row
        outer = ctx.outer
        key = (*key, tuple(map(id, outer)))
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = (list(ctx.outer), rows_of(node.cte.plan, ctx))
    yield from rebatch(hit[1])


@executes(N.WorkTableScan)
def run_worktable(node: N.WorkTableScan, ctx: Any) -> Iterator[Batch]:
    rows = cache_of(ctx).get(("wt", id(node.worktable))) or []
    yield from rebatch(rows)


@executes(N.RecursiveUnion)
def run_recursive(node: N.RecursiveUnion, ctx: Any) -> Iterator[Batch]:
    cache = cache_of(ctx)
    key = ("wt", id(node.worktable))
    seen: set = set()
    work = []
    for row in rows_of(node.anchor, ctx):
        k = _hashable(row)
        if node.all or k not in seen:
            seen.add(k)
            work.append(row)
    while work:
        yield from rebatch(work)
        cache[key] = work
        nxt = []
        for row in rows_of(node.recursive, ctx):
            k = _hashable(row)
            if node.all or k not in seen:
                seen.add(k)
                nxt.append(row)
        work = nxt
        ctx.check_cancel()
    cache.pop(key, None)


@executes(N.FunctionScan)
def run_function(node: N.FunctionScan, ctx: Any) -> Iterator[Batch]:
    its = [_call_rows(node, k, e, multi, ctx)
           for k, (e, multi) in enumerate([(node.call, node.multi), *node.more])]
    if len(its) == 1:
        it = its[0]
    else:  # ROWS FROM: zipped, each function's columns NULL once it has run out
        widths = [len(e.data.out_columns) if m and e.data.out_columns else 1
                  for e, m in [(node.call, node.multi), *node.more]]
        pads = [(None,) * w for w in widths]
        it = (tuple(v for part, pad in zip(r, pads, strict=True) for v in (
            part if part is not None else pad)) for r in itertools.zip_longest(*its))
    if node.ordinality:
        it = ((*r, i) for i, r in enumerate(it, 1))
    while True:  # streams: a series may be far larger than memory
        b = list(itertools.islice(it, BATCH))
        if not b:
            return
        yield b
        ctx.check_cancel()


def _call_rows(node: N.FunctionScan, k: int, e: Any, multi: bool, ctx: Any) -> Iterator[tuple]:
    """The rows of one function of a FunctionScan, as tuples."""
    fd = e.data
    args_fn = compiled(node, f"args{k}", lambda: cg.project_function(e.args) if e.args else None)
    outer = ctx.outer
    args = args_fn([outer[-1] if outer else ()], ctx)[0] if args_fn else ()
    if fd.strict and any(a is None for a in args):
        return iter(())
    pre = (ctx.functions,) if fd.needs_context else ()
    result = fd.impl(*pre, *args)
    if not fd.set_returning:
        result = [result]
    if multi:  # NB: a NULL composite result is a row of NULLs, as in PostgreSQL
        width = len(fd.out_columns or ())
        return ((None,) * width if r is None else tuple(r) for r in result)
    return ((v,) for v in result)


@executes(N.VirtualScan)
def run_virtual(node: N.VirtualScan, ctx: Any) -> Iterator[Batch]:
    rows = [tuple(r) for r in node.vtable.rows(ctx.functions)]
    yield from rebatch(rows)
