"""Streaming aggregation: per-group running states folded batch by batch.

`GROUP BY` over an unbounded input (`count(*) from generate_series(1, 10^12)`)
must not keep the input rows; it keeps one small state per group and folds
each batch into it. Every aggregate whose result depends only on a running
value qualifies: count, sum, avg, min, max, bool_and/or and the functional
dependency helper "first", without DISTINCT or ORDER BY. The others
(array_agg, string_agg, ordered or DISTINCT aggregates, stddev) need their
values and go through `aggregate.aggregate_rows`. Sums continue the running
value (`sum(values, acc)`), so floating-point results equal a one-pass sum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from ...kivi.agg import sql_order
from ...pgtypes import oids as T
from ..expr import codegen as cg
from ..expr import runtime as rt
from ..plan import nodes as N
from . import memguard
from .runner import Batch, compiled, rebatch, run

FOLDABLE = frozenset({"count_star", "count", "sum", "avg", "min", "max", "bool_and",
                      "bool_or", "first"})
_UNSET = object()


def foldable(node: N.Aggregate) -> bool:
    """True when every aggregate of the node can be computed from a running state."""
    return all(a.func in FOLDABLE and not a.distinct and not a.order
               and (a.func == "count_star" or len(a.args) == 1) for a in node.aggs)


def _prepare(node: N.Aggregate) -> dict:
    per = []
    for a in node.aggs:
        vals: Callable[..., Any] | None = None
        if a.func == "first":
            vals = cg.row_function(a.args[0])
        elif a.func != "count_star":
            vals = cg.values_function(a.args[0])
        flt = cg.filter_function(a.filter) if a.filter is not None else None
        per.append((a.func, vals, flt))
    # aligned argument values (NULLs kept) and per-row functions, for `_fold_rows`
    cols = [cg.keys_function([a.args[0]]) if a.func not in ("count_star", "first") else None
            for a in node.aggs]
    return {"key": cg.key_function(node.groups) if node.groups else None, "per": per,
            "cols": cols}


def _initial(per: list) -> list:
    out: list[Any] = []
    for f, _v, _f in per:
        if f in ("count_star", "count"):
            out.append(0)
        elif f == "avg":
            out.append([None, 0])
        elif f == "first":
            out.append(_UNSET)
        else:
            out.append(None)
    return out


def _fold(states: list, per: list, rows: list, ctx: Any) -> None:
    """Folds one batch's rows of a group into the group's states."""
    for i, (f, vals, flt) in enumerate(per):
        rs = flt(rows, ctx) if flt is not None else rows
        if f == "count_star":
            states[i] += len(rs)
            continue
        if f == "first":
            if states[i] is _UNSET and rs:
                states[i] = vals(rs[0], ctx)
            continue
        nn = vals(rs, ctx)
        if not nn:
            continue
        acc = states[i]
        if f == "count":
            states[i] = acc + len(nn)
        elif f == "sum":
            states[i] = sum(nn[1:], nn[0]) if acc is None else sum(nn, acc)
        elif f == "avg":
            s = acc[0]
            acc[0] = sum(nn[1:], nn[0]) if s is None else sum(nn, s)
            acc[1] += len(nn)
        elif f == "min" or f == "max":
            states[i] = _extreme(min if f == "min" else max, nn, acc)
        elif f == "bool_and":
            states[i] = all(nn) and (acc is None or acc)
        else:  # bool_or
            states[i] = any(nn) or bool(acc)


def _extreme(pick: Callable, nn: list, acc: Any) -> Any:
    """min/max of a batch folded into `acc`; a NaN (float or numeric) sorts above every number
    as in PostgreSQL, where Python raises (Decimal) or answers by position (float)."""
    vals = nn if acc is None else [*nn, acc]
    try:
        m = pick(vals)
    except InvalidOperation:
        return pick(vals, key=sql_order)
    except TypeError:  # arrays with NULL items: item by item, as array_cmp
        return pick(vals, key=rt.item_sort_key)
    if isinstance(m, list):  # NB: list order is not array_cmp's (dimensions, bounds)
        return pick(vals, key=rt.item_sort_key)
    if type(m) is float and any(x != x for x in vals):
        return pick(vals, key=sql_order)
    return m


def _fold_rows(groups: dict, prep: dict, rows: list, keys: list, ctx: Any) -> None:
    """Folds a batch row by row into the groups' states.

    For a batch that splits into many small groups (`GROUP BY` on a near-unique
    key), one state update per row and aggregate is cheaper than `_fold`'s
    filter, value and builtin calls per group. Each row updates its group the
    way `_fold` would fold a one-row batch, in input order, so sums add up in
    the same order and give the same floating-point result.
    """
    per, cols = prep["per"], prep["cols"]
    vals: list[Any] = []  # per aggregate: values by row position, or by row id under a FILTER
    passed: list[set[int] | None] = []
    for c, (_f, _v, flt) in zip(cols, per, strict=True):
        if flt is None:
            passed.append(None)
            vals.append(None if c is None else c(rows, ctx))
            continue
        # NB: a FILTER keeps the row objects it passes (ids say which), and the argument is
        # evaluated on those rows only: it may fail on the others (1 / 0), as PostgreSQL's may not
        keep = flt(rows, ctx)
        passed.append(set(map(id, keep)))
        vals.append(None if c is None else dict(zip(map(id, keep), c(keep, ctx), strict=True)))
    aggs = list(enumerate(per))
    for r, (row, k) in enumerate(zip(rows, keys, strict=True)):
        g = groups.get(k)
        if g is None:
            g = groups[k] = (k, _initial(per))
        st = g[1]
        for i, (f, fn, _flt) in aggs:
            ok = passed[i]
            if ok is not None and id(row) not in ok:
                continue
            if f == "count_star":
                st[i] += 1
                continue
            if f == "first":
                if st[i] is _UNSET:
                    st[i] = fn(row, ctx)
                continue
            v = vals[i][r] if ok is None else vals[i][id(row)]  # not count_star/first
            if v is None:
                continue
            acc = st[i]
            if f == "count":
                st[i] = acc + 1
            elif f == "sum":
                st[i] = v if acc is None else acc + v
            elif f == "avg":
                acc[0] = v if acc[0] is None else acc[0] + v
                acc[1] += 1
            elif f == "min":  # NaN (x != x) sorts above every number, as in PostgreSQL
                try:
                    if acc is None or acc != acc or (v == v and v < acc):
                        st[i] = v
                except TypeError:  # arrays with NULL items
                    st[i] = _extreme(min, [v], acc)
            elif f == "max":
                try:
                    if acc is None or v != v or (acc == acc and v > acc):
                        st[i] = v
                except TypeError:
                    st[i] = _extreme(max, [v], acc)
            elif f == "bool_and":
                st[i] = v and (acc is None or acc)
            else:  # bool_or
                st[i] = v or bool(acc)


def final(call: N.AggCall | N.WinCall, st: Any) -> Any:
    f = call.func
    if f == "first":
        return None if st is _UNSET else st
    if f == "sum":
        if st is None:
            return None
        if call.type == T.INT8:
            return rt.c8(st)
        if call.type == T.NUMERIC:
            return Decimal(st)
        return st
    if f == "avg":
        s, n = st
        if not n:
            return None
        if call.type in (T.FLOAT8, T.INTERVAL):
            return s / n
        return rt.ndiv(Decimal(s), n)
    return st


def _hkey(k: tuple) -> Any:
    try:
        hash(k)
        return k
    except TypeError:  # arrays in the key: group by their text
        return ("\0unhashable", repr(k))


def run_folded(node: N.Aggregate, ctx: Any) -> Iterator[Batch]:
    """Runs a foldable aggregate, keeping one state per group, never the input rows."""
    prep = compiled(node, "fold", lambda: _prepare(node))
    key, per = prep["key"], prep["per"]
    groups: dict = {}
    if key is None:
        groups[()] = ((), _initial(per))
    for b in run(node.child, ctx):
        ctx.check_cancel()
        if key is None:
            _fold(groups[()][1], per, b, ctx)
            continue
        keys = [key(row, ctx) for row in b]
        try:
            many = len(set(keys)) * 8 > len(b)  # small groups: fold row by row
        except TypeError:  # arrays in the key: the general path below
            many = False
        if many:
            _fold_rows(groups, prep, b, keys, ctx)
            memguard.check(ctx)
            continue
        parts: dict = {}
        for row, k in zip(b, keys, strict=True):
            try:
                p = parts.get(k)
            except TypeError:
                k = _hkey(k)
                p = parts.get(k)
            if p is None:
                parts[k] = [row]
            else:
                p.append(row)
        memguard.check(ctx)  # one state per group: many groups still take memory
        for k, rows in parts.items():
            g = groups.get(k)
            if g is None:
                g = groups[k] = (key(rows[0], ctx), _initial(per))
            _fold(g[1], per, rows, ctx)
    out = [(*k, *(final(c, s) for c, s in zip(node.aggs, st, strict=True)))
           for k, st in groups.values()]
    yield from rebatch(out)
