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
from decimal import Decimal
from typing import Any

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
    return {"key": cg.key_function(node.groups) if node.groups else None, "per": per}


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
        elif f == "min":
            m = min(nn)
            if acc is None or m < acc:
                states[i] = m
        elif f == "max":
            m = max(nn)
            if acc is None or m > acc:
                states[i] = m
        elif f == "bool_and":
            states[i] = all(nn) and (acc is None or acc)
        else:  # bool_or
            states[i] = any(nn) or bool(acc)


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
        parts: dict = {}
        for row in b:
            k = key(row, ctx)
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
