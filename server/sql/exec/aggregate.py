"""GROUP BY and aggregate functions, plus the merge of partial aggregates pushed into KiVi.

Input rows are grouped by a compiled key function, batch by batch. Each
aggregate then runs over its group's rows with one compiled batch function
for its arguments, and a finaliser built from Python's own `sum`, `min`,
`max` and `len`, so the per-row cost is a list comprehension, not a call.
When the optimizer pushed the aggregation into the scan (`Aggregate.pushed`),
the input is one partial row per region and group, merged here.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any, cast

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ..expr import codegen as cg
from ..expr import runtime as rt
from ..expr.casts import to_text
from ..functions.hypsetaggs import HYPOTHETICAL_AGGS, finish_hypothetical
from ..functions.jsonfns import jsonb_text, parse, quote, to_json, to_jsonb, value_json
from ..functions.ordsetaggs import ORDERED_SET_AGGS, finish_ordered
from ..functions.statsaggs import STATS_AGGS, finish_stats
from ..functions.xmlfns import xmlconcat
from ..plan import nodes as N
from ..plan.partscan import union_scans
from . import memguard
from .fold import foldable, run_folded
from .runner import Batch, compiled, executes, rebatch, run

_NAN = float("nan")  # every NaN dedupes to this one object (PostgreSQL: NaN = NaN)


def _dedupe(vals: list) -> list:
    seen: set = set()
    out = []
    for v in vals:
        k: Any
        if isinstance(v, tuple):  # an argument tuple: a NaN in it is unequal to itself
            k = tuple(repr(x) if isinstance(x, list) else _NAN if x != x else x for x in v)
        else:
            k = repr(v) if isinstance(v, list) else _NAN if v != v else v
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


BITWISE = {"bit_and": operator.and_, "bit_or": operator.or_, "bit_xor": operator.xor}


def finish(call: N.AggCall, vals: list) -> Any:
    """Computes one aggregate from its (filtered, ordered) argument values."""
    f = call.func
    if f == "count_star":
        return len(vals)
    if f == "first":  # a column functionally dependent on the GROUP BY keys
        return vals[0][0] if vals else None
    if f == "array_agg":
        if vals and call.arg_type in T.ELEMENT_OF:  # arrays of arrays: one more dimension
            return rt.accumulate_arrays([v[0] for v in vals])
        return [v[0] for v in vals] if vals else None
    if f == "string_agg":
        items = [(v[0], v[1] if len(v) > 1 else "") for v in vals if v[0] is not None]
        if not items:
            return None
        out = items[0][0]
        for s, sep in items[1:]:
            out = out + (sep or ("" if isinstance(s, str) else b"")) + s
        return out
    if f in ("json_agg", "jsonb_agg"):
        return _json_agg(call, [v[0] for v in vals]) if vals else None
    if f in ("json_object_agg", "jsonb_object_agg"):
        return _json_object_agg(call, vals) if vals else None
    if f == "xmlagg":  # xmlconcat2, row by row: NULLs skipped, declarations merged
        return xmlconcat([v[0] for v in vals])
    if f in STATS_AGGS:
        return finish_stats(f, vals)
    nn = [v[0] for v in vals if v[0] is not None]
    if f == "count":
        return len(nn)
    if not nn:
        return None
    if f == "sum":
        s = sum(nn)
        if call.type == T.INT8:
            return rt.c8(s)
        if call.type == T.NUMERIC:
            return Decimal(s)
        return s
    if f == "avg":
        if call.type == T.FLOAT8:
            return sum(nn) / len(nn)
        if call.type == T.INTERVAL:
            return sum(nn[1:], nn[0]) / len(nn)
        return rt.ndiv(Decimal(sum(nn)), len(nn))
    if f == "min" or f == "max":  # NB: NaN-aware (a numeric NaN makes Python's max raise)
        return rt.extreme(nn, f == "min")
    if f == "bool_and":
        return all(nn)
    if f == "bool_or":
        return any(nn)
    if f in BITWISE:  # bit_and / bit_or / bit_xor of integers
        return functools.reduce(BITWISE[f], nn)
    if f in ("stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"):
        pop = f.endswith("_pop")
        if len(nn) < (1 if pop else 2):
            return None
        if call.type == T.FLOAT8:
            m = sum(nn) / len(nn)
            var = sum((x - m) ** 2 for x in nn) / (len(nn) - (0 if pop else 1))
            return var ** 0.5 if f.startswith("stddev") else var
        return _numeric_variance(nn, pop, f.startswith("stddev"))
    raise AssertionError(f)


def _json_agg(call: N.AggCall, vals: list) -> str:
    raw = (call.args[0].type if call.args else call.arg_type) in (T.JSON, T.JSONB)
    conv = to_jsonb if call.func == "jsonb_agg" else to_json
    items = ["null" if v is None else v if raw else conv(v) for v in vals]
    if call.func == "json_agg" and (call.arg_type == T.RECORD or call.arg_type in T.ELEMENT_OF):
        # PostgreSQL's json_agg_transfn puts "\n " before each later record or array (not NULL)
        items[1:] = [s if v is None else "\n " + s for s, v in zip(items[1:], vals[1:], strict=True)]
    return "[" + ", ".join(items) + "]"


def _json_object_agg(call: N.AggCall, vals: list) -> str:
    """json_object_agg's `{ "k" : v, ... }` (jsonb_object_agg's object keeps a key's last
    value): a key is its text, 22023 for a NULL one or an array, composite or json one."""
    key_t, value_t = call.args[0].type, call.args[1].type
    raw = value_t in (T.JSON, T.JSONB)
    pairs = []
    for k, v, *_ in vals:
        if k is None:
            raise InvalidParameterValue("field name must not be null")
        if isinstance(k, list | tuple | dict) or key_t in (T.JSON, T.JSONB):
            raise InvalidParameterValue("key value must be scalar, not array, composite, or json")
        pairs.append((to_text(k), "null" if v is None else v if raw else value_json(v)))
    if call.func == "jsonb_object_agg":
        return jsonb_text({k: parse(v) for k, v in pairs})
    return "{ " + ", ".join(f"{quote(k)} : {v}" for k, v in pairs) + " }"


def _numeric_variance(vals: list, pop: bool, root: bool) -> Decimal:
    """PostgreSQL's numeric_stddev_internal: (n*sum(x^2) - sum(x)^2) / (n*(n-1)) at the
    division's result scale, then the square root at that scale."""
    with localcontext() as c:
        c.prec = 1000
        xs = [Decimal(x) for x in vals]
        n = len(xs)
        num = n * sum((x * x for x in xs), Decimal(0)) - sum(xs, Decimal(0)) ** 2
        den = n * n if pop else n * (n - 1)
        if num <= 0:
            num = Decimal(0).quantize(
                Decimal(1).scaleb(num.as_tuple().exponent))  # type: ignore[arg-type]  # finite
        q = rt.ndiv(num, den)
        if not root:
            return q
        exact = (num / den).sqrt()
        unit = Decimal(1).scaleb(q.as_tuple().exponent)  # type: ignore[arg-type]  # finite
        return exact.quantize(unit, rounding=ROUND_HALF_UP)


def _prepare(node: N.Aggregate) -> dict:
    out: dict[str, Any] = {"key": cg.key_function(node.groups) if node.groups else None}
    per = []
    for a in node.aggs:
        args = cg.project_function(a.args) if a.args else None
        flt = cg.filter_function(a.filter) if a.filter is not None else None
        order = [(cg.sort_key_function(k.expr, k.desc == k.nulls_first), k.desc)
                 for k in a.order]
        per.append((args, flt, order))
    out["per"] = per
    return out


def aggregate_rows(node: N.Aggregate, groups: dict | list, ctx: Any) -> list[tuple]:
    """Finishes every group: keys followed by aggregate values."""
    prep = compiled(node, "prep", lambda: _prepare(node))
    out = []
    for key, rows in groups.items() if isinstance(groups, dict) else groups:
        vals = []
        for call, (args, flt, order) in zip(node.aggs, prep["per"], strict=True):
            rs = flt(rows, ctx) if flt is not None else rows
            if order:
                rs = list(rs)
                for fn, desc in reversed(order):
                    # mypy cannot infer a lambda with a default argument
                    rs.sort(key=lambda r, fn=fn: fn(r, ctx), reverse=desc)  # type: ignore[misc]
            av = args(rs, ctx) if args is not None else rs
            if call.func in ORDERED_SET_AGGS:
                vals.append(_ordered_set(call, av, args, rows, len(node.child.cols), ctx))
                continue
            if call.func in HYPOTHETICAL_AGGS and order:
                vals.append(_hypothetical(node, call, rs, order, rows, ctx))
                continue
            if call.distinct:
                av = _dedupe(av)
            vals.append(finish(call, av))
        out.append((*key, *vals))
    return out


def _ordered_set(call: N.AggCall, av: list, args: Any, rows: Any, width: int, ctx: Any) -> Any:
    """An ordered-set aggregate: its direct argument (the fraction) is evaluated on the
    group's first row even when FILTER kept none (PostgreSQL checks it regardless), or
    on a row of NULLs for the one group of an empty input (it cannot use a column)."""
    frac = None
    if call.func != "mode":
        first = list(rows[:1]) or [(None,) * width]
        frac = args(first, ctx)[0][1]
    return finish_ordered(call.func, [v[0] for v in av], frac)


def _hypothetical(node: N.Aggregate, call: N.AggCall, rs: list, order: list, rows: Any,
                 ctx: Any) -> Any:
    """A hypothetical-set aggregate (functions.hypsetaggs): the group's filtered rows (sorted)
    and the direct arguments, evaluated on its first row as `_ordered_set`'s fraction is, as
    sort keys in the WITHIN GROUP order."""
    direct = compiled(node, f"hyp{id(call)}", lambda: [
        cg.sort_key_function(d, k.desc == k.nulls_first) for d, k in zip(call.args, call.order,
                                                                            strict=True)])
    first = (list(rows[:1]) or [(None,) * len(node.child.cols)])[0]
    hyp = tuple(fn(first, ctx) for fn in direct)
    keys = [tuple(fn(r, ctx) for fn, _ in order) for r in rs]
    return finish_hypothetical(call.func, keys, hyp, [desc for _, desc in order])


@executes(N.Aggregate)
def run_aggregate(node: N.Aggregate, ctx: Any) -> Iterator[Batch]:
    if node.pushed:
        yield from _merge_partials(node, ctx)
        return
    if foldable(node):
        yield from run_folded(node, ctx)
        return
    prep = compiled(node, "prep", lambda: _prepare(node))
    key = prep["key"]
    groups: dict = {}
    kept = memguard.Kept(ctx)
    for b in run(node.child, ctx):
        ctx.check_cancel()
        kept.add(b)
        if key is None:
            groups.setdefault((), []).extend(b)
            continue
        for row in b:
            k = key(row, ctx)
            try:
                g = groups.get(k)
            except TypeError:  # arrays in the key: group by their text
                k = repr(k)
                g = groups.get(k)
            if g is None:
                groups[k] = [row]
            else:
                g.append(row)
    if not node.groups and not groups:
        groups[()] = []
    if any(isinstance(k, str) for k in groups) and node.groups:
        pairs = [(key(rows[0], ctx) if isinstance(k, str) else k, rows)
                 for k, rows in groups.items()]
        yield from rebatch(aggregate_rows(node, pairs, ctx))
        return
    yield from rebatch(aggregate_rows(node, groups, ctx))


def _merge_partials(node: N.Aggregate, ctx: Any) -> Iterator[Batch]:
    ng = len(node.groups)
    scans = union_scans(node.child) or [cast(N.Scan, node.child)]  # NB: or a partition's
    pushed = scans[0].aggregate.aggs  # push_aggregate's partials
    merged: dict = {}
    for b in run(node.child, ctx):
        for row in b:
            k = row[:ng]
            cur = merged.get(k)
            if cur is None:
                merged[k] = list(row[ng:])
                continue
            for i, (fname, _col) in enumerate(pushed):
                v = row[ng + i]
                if v is None:
                    continue
                if cur[i] is None:
                    cur[i] = v
                elif fname in ("count", "count_star", "sum"):
                    cur[i] = cur[i] + v
                elif fname in ("min", "max"):  # NB: arrays with NULL items, NaN
                    cur[i] = rt.extreme([cur[i], v], fname == "min")
    if not node.groups and not merged:
        merged[()] = [0 if f in ("count", "count_star") else None
                      for f, _ in pushed]
    parts = list(zip(*merged.values(), strict=True)) if merged else [() for _ in pushed]
    yield from rebatch(finish_partials(node, list(merged), parts))


def finish_partials(node: N.Aggregate, keys: list[tuple], parts: list[Any]) -> list[tuple]:
    """The rows of a pushed Aggregate from its merged groups: `keys` (one tuple per group)
    and `parts` (one sequence per partial, in the order of the pushed AggSpec)."""
    cols = finished_columns(node, parts)
    return ([(*k, *v) for k, v in zip(keys, zip(*cols, strict=True), strict=True)] if cols
            else [tuple(k) for k in keys])


def finished_columns(node: N.Aggregate, parts: list[Any]) -> list[Any]:
    """`finish_partials`'s aggregate columns, one sequence per aggregate of the node. The
    vector path calls it directly: its partials are one row per group already, as columns
    with the keys', which it zips into rows in one C-level pass."""
    # NB: finished column by column, one comprehension per aggregate, not a branchy loop per group
    # (a high-cardinality GROUP BY spent most of its time in that loop)
    cols: list[Any] = []
    pi = 0
    for call in node.aggs:
        if call.func == "avg":
            ss, cs = parts[pi], parts[pi + 1]
            pi += 2
            if call.type in (T.FLOAT8, T.INTERVAL):  # NB: interval / count: interval_div
                cols.append([s / c if c else None for s, c in zip(ss, cs, strict=True)])
            else:
                cols.append([rt.ndiv(Decimal(s), c) if c else None for s, c in zip(ss, cs, strict=True)])
            continue
        col: Any = parts[pi]
        pi += 1
        if call.func in ("count", "count_star"):
            col = [v or 0 for v in col]
        elif call.func == "sum" and call.type == T.INT8:
            col = [None if v is None else rt.c8(v) for v in col]
        elif call.func == "sum" and call.type == T.NUMERIC:
            col = [None if v is None else Decimal(v) for v in col]
        cols.append(col)
    return cols
