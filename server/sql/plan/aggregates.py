"""Planning GROUP BY, aggregates and window functions.

After grouping, a query's expressions may only use GROUP BY keys and
aggregate results. The Aggregate node outputs keys then aggregates; the
returned scope maps each GROUP BY expression and each aggregate call (as
sqlglot ASTs, compared structurally) to those columns, and plain column
references to the key columns they are grouped by (else 42803). Window
functions work the same way one level up: the Window node appends a column
per call and the scope maps each `OVER` expression to it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlglot import exp

from ...errors import (
    AmbiguousFunction,
    FeatureNotSupported,
    GroupingError,
    InvalidColumnReference,
    UndefinedFunction,
    WindowingError,
    WrongObjectType,
)
from ...pgtypes import hstore
from ...pgtypes import oids as T
from ..expr import types as ty
from ..expr import wholerow
from ..expr.binder import AGG_CLASSES, Binder, Scope, find_aggregates, func_args, func_name
from ..expr.bound import E, col, const
from ..expr.functions import coerce
from ..expr.opclasses import check_distinct_aggregate, check_equality, check_ordering
from ..expr.userexprs import enum_ordered
from ..expr.usertypes import has_sort_key
from ..functions.hypsetaggs import HYPOTHETICAL_AGGS
from ..functions.ordsetaggs import ORDERED_SET_AGGS
from ..functions.statsaggs import STATS_AGGS
from . import groupingsets as GS
from . import nodes as N
from . import srflift
from .hypothetical import check_grouped, typed_hypothetical

STATISTICAL = ("stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop")


# types PostgreSQL 15 has no btree min/max for: 42883, where comparing them would answer
_NO_MIN_MAX = frozenset((T.BOOL, T.BYTEA, T.JSON, T.JSONB, T.UUID, 600, 601, 602, 603, 604, 628, 718,
                         4072))  # 4072: jsonpath; and hstore (hstore.OIDS: CREATE EXTENSION's)


def _xmlagg_args(bargs: list[E], params: Any) -> list[E]:
    if len(bargs) != 1 or bargs[0].type not in (T.XML, T.UNKNOWN):
        raise UndefinedFunction(
            f"function xmlagg({', '.join(ty.type_name(b.type) for b in bargs)}) does not exist",
            hint="No function matches the given name and argument types. "
            "You might need to add explicit type casts.")
    return [coerce(bargs[0], T.XML, params=params)]


# aggregates whose result shows the order of their input: with DISTINCT and no ORDER BY,
# PostgreSQL feeds them the distinct values sorted (ascending, NULLs last)
_SORTED_DISTINCT = frozenset({"array_agg", "string_agg", "json_agg", "jsonb_agg", "xmlagg"})


def _pair_args(args: list[exp.Expression]) -> tuple[list[exp.Expression], bool, list]:
    """json_object_agg's arguments as sqlglot leaves them: an ORDER BY rides on the last
    one, a DISTINCT on the first; (args, distinct, ORDER BY items)."""
    order: list = []
    distinct = False
    if args and isinstance(args[-1], exp.Order):
        order = list(args[-1].expressions)
        args = [*args[:-1], args[-1].this]
    if args and isinstance(args[0], exp.Distinct):
        distinct = True
        args = [*args[0].expressions, *args[1:]]
    return args, distinct, order


def _object_agg_args(name: str, args: list[E], params: Any) -> list[E]:
    """json_object_agg(key "any", value "any"): two arguments, unknown ones as text."""
    if len(args) != 2:
        raise UndefinedFunction(
            f"function {name}({', '.join(ty.type_name(a.type) for a in args)}) does not exist",
            hint="No function matches the given name and argument types. "
            "You might need to add explicit type casts.")
    return [coerce(a, T.TEXT, params=params) if a.type == T.UNKNOWN else a for a in args]


def agg_type(func: str, arg: int) -> int:
    """Returns an aggregate's result type for its argument type, as PostgreSQL's pg_aggregate."""
    if func in ("count", "count_star"):
        return T.INT8
    if func == "sum":
        if arg in (T.INT2, T.INT4):
            return T.INT8
        if arg in (T.INT8, T.NUMERIC):
            return T.NUMERIC
        return T.FLOAT8 if arg == T.UNKNOWN else arg
    if func == "avg":
        if arg in (T.FLOAT4, T.FLOAT8):
            return T.FLOAT8
        if arg == T.INTERVAL:
            return T.INTERVAL
        return T.NUMERIC
    if func in ("bool_and", "bool_or", "every"):
        return T.BOOL
    if func == "string_agg":
        return T.BYTEA if arg == T.BYTEA else T.TEXT
    if func == "array_agg":  # NB: of an array type: the same type, one more dimension
        return arg if ty.is_array(arg) else T.ARRAY_OF.get(arg, T.ANYARRAY)
    if func in STATISTICAL:
        return T.FLOAT8 if arg in (T.FLOAT4, T.FLOAT8) else T.NUMERIC
    if func in ("json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg"):
        return T.JSONB if func.startswith("jsonb") else T.JSON
    if func == "xmlagg":
        return T.XML
    return arg


def agg_parts(node: exp.Expression) -> tuple[str, list[exp.Expression], bool, list, Any]:
    """Splits an aggregate AST into (name, args, distinct, ORDER BY items, FILTER condition)."""
    flt = None
    if isinstance(node, exp.Filter):
        flt = node.expression.this if isinstance(node.expression, exp.Where) else node.expression
        node = node.this
    if isinstance(node, exp.WithinGroup):  # f(direct args) WITHIN GROUP (ORDER BY x): x first
        within = list(node.expression.expressions) if isinstance(node.expression, exp.Order) else []
        name = func_name(node.this)
        if name in HYPOTHETICAL_AGGS:  # rank(3) WITHIN GROUP (ORDER BY x): the direct args
            return name, func_args(node.this), False, within, flt
        if name not in ORDERED_SET_AGGS:
            raise UndefinedFunction(f"function {name} with WITHIN GROUP does not exist",
                                    hint="No function matches the given name and argument types.")
        return name, [within[0].this, *func_args(node.this)], False, within, flt
    name = AGG_CLASSES.get(type(node)) or func_name(node)
    if name == "mode":  # mode(x): sqlglot's plain call of an ordered-set aggregate
        raise WrongObjectType(f"WITHIN GROUP is required for ordered-set aggregate {name}")
    if name == "every":
        name = "bool_and"
    order: list = []
    distinct = False
    if isinstance(node, exp.JSONObjectAgg | exp.JSONBObjectAgg):  # (k, v [ORDER BY ...])
        return name, *_pair_args(func_args(node)), flt
    first = node.this if not isinstance(node, exp.Anonymous) else (
        node.expressions[0] if node.expressions else None)
    rest: list[exp.Expression] = []
    if isinstance(node, exp.GroupConcat):
        sep = node.args.get("separator")
        rest = [sep] if sep is not None else []
    elif isinstance(node, exp.Anonymous):
        rest = list(node.expressions[1:])
    if isinstance(first, exp.Order):
        order = list(first.expressions)
        first = first.this
    if isinstance(first, exp.Distinct):
        distinct = True
        exprs = list(first.expressions)
        first = exprs[0] if exprs else None
        rest = exprs[1:] + rest
    if name == "count" and (first is None or isinstance(first, exp.Star)):
        return "count_star", [], False, [], flt
    args = [first, *rest] if first is not None else rest
    if not isinstance(node, exp.Anonymous | exp.GroupConcat) and first is not None:
        extra = [a for a in func_args(node)[1:]]
        args = [first, *extra]
    return name, args, distinct, order, flt


def _set_returning_keys(node: N.Node, groups: list[E]) -> tuple[N.Node, list[E]]:
    """GROUP BY a set-returning call (`GROUP BY unnest(a)`, or its select-list position):
    PostgreSQL expands the rows below the aggregate, so each element is a group. The calls'
    keys are computed by a ProjectSet under the Aggregate, after the input's columns (whose
    positions, which the binder's references use, stay the same); the other keys are left
    as they are."""
    width = len(node.cols)
    passed = [col(i, c.type, c.name, c.typmod) for i, c in enumerate(node.cols)]
    moved = [k for k, g in enumerate(groups) if any(x.kind == "srf" for x in g.walk())]
    cols = [dataclasses.replace(c) for c in node.cols]
    cols += [N.PCol("?group?", groups[k].type, groups[k].typmod, hidden=True) for k in moved]
    child = srflift.lift(node, cols, passed + [groups[k] for k in moved])
    out = list(groups)
    for j, k in enumerate(moved):
        g = groups[k]
        out[k] = col(width + j, g.type, g.name, g.typmod)
    return child, out


def plan_aggregate(planner: Any, node: N.Node, scope: Scope, items: list, group: Any,
                   agg_asts: list) -> tuple[N.Node, Scope]:
    """Adds an Aggregate node; returns it with the scope of its output."""
    binder = Binder(planner, scope)
    scope.aggregates_allowed = "GROUP BY"

    def resolve(g: exp.Expression) -> exp.Expression:
        if isinstance(g, exp.Literal) and not g.is_string:
            n = int(g.this)
            if not 1 <= n <= len(items):
                raise InvalidColumnReference(f"GROUP BY position {n} is not in select list")
            it = items[n - 1]
            return it.this if isinstance(it, exp.Alias) else it
        if isinstance(g, exp.Column) and not g.table and scope.find(g.name, None) is None:
            hit = next((it for it in items if isinstance(it, exp.Alias) and it.alias == g.name), None)
            if hit is not None:
                return hit.this
        return g

    written = list(group.expressions) if group is not None else []
    sets: list[tuple[int, ...]] | None = None
    if GS.has_sets(written):
        group_asts, sets = GS.expand(written, resolve)
    else:
        group_asts = [resolve(g) for g in written]
    grp_asts = [a for a in agg_asts if isinstance(a, exp.Grouping)]
    agg_asts = [a for a in agg_asts if not isinstance(a, exp.Grouping)]
    grp_args = [GS.grouping_bits(a, group_asts, resolve) for a in grp_asts]
    groups = [binder.bind(g) for g in group_asts]
    groups = [coerce(g, T.TEXT, params=planner.params) if g.type == T.UNKNOWN else g for g in groups]
    for g in groups:
        check_equality(g.type)  # xml, json, point: 42883
    if any(x.kind == "srf" for g in groups for x in g.walk()):
        node, groups = _set_returning_keys(node, groups)
    scope.aggregates_allowed = "aggregate function calls"
    aggs: list[N.AggCall] = []
    for a in agg_asts:
        name, args, distinct, order, flt = agg_parts(a)
        for inner in args:
            if find_aggregates(inner):
                raise GroupingError("aggregate function calls cannot be nested")
        bargs = [binder.bind(x) for x in args]
        if name in ORDERED_SET_AGGS and not order:  # percentile_cont(0.5) without WITHIN GROUP
            raise UndefinedFunction(
                f"function {name}({', '.join(ty.type_name(b.type) for b in bargs)}) does not exist",
                hint="No function matches the given name and argument types. "
                "You might need to add explicit type casts.")
        arg_t = bargs[0].type if bargs else T.UNKNOWN  # json_agg spaces out records and arrays
        if name in wholerow.JSON_EMBEDDERS:  # json_agg(t): each row as its JSON object
            bargs = [wholerow.embedded_json(x, planner.params, name.startswith("jsonb"))
                     for x in bargs]
        if name == "string_agg":
            bargs = [coerce(x, T.TEXT, params=planner.params) if x.type != T.BYTEA else x
                     for x in bargs]
        elif name in ("json_object_agg", "jsonb_object_agg"):
            bargs = _object_agg_args(name, bargs, planner.params)
        elif name == "xmlagg":  # xmlagg(xml) only: 42883 for any other type
            bargs = _xmlagg_args(bargs, planner.params)
        elif bargs and bargs[0].type == T.UNKNOWN and not (name in HYPOTHETICAL_AGGS and order):
            if name in ("sum", "avg", "bit_and", "bit_or", "bit_xor"):  # NB: none preferred
                raise AmbiguousFunction(
                    f"function {name}(unknown) is not unique",
                    hint="Could not choose a best candidate function. "
                    "You might need to add explicit type casts.")
            if not (name == "count" and bargs[0].kind == "param"):  # NB: count(any) gives
                bargs[0] = coerce(bargs[0], T.FLOAT8 if name in STATISTICAL else T.TEXT,
                                  params=planner.params)  # $1 no type (42P18 if none else)
        if name in ("sum", "avg") and bargs and not (
                ty.is_numeric(bargs[0].type) or bargs[0].type == T.INTERVAL
                or name == "sum" and bargs[0].type == T.MONEY) \
                or name.startswith("bit_") and bargs and bargs[0].type not in ty.INTS \
                or name in ("min", "max") and bargs and (bargs[0].type in _NO_MIN_MAX
                                                         or bargs[0].type in hstore.OIDS):
            raise UndefinedFunction(
                f"function {name}({ty.type_name(bargs[0].type)}) does not exist",
                hint="No function matches the given name and argument types. "
                "You might need to add explicit type casts.")
        keys = [N.SortKey(enum_ordered(binder.bind(o.this)), bool(o.args.get("desc")),
                          bool(o.args.get("nulls_first"))) for o in order]
        for sk in keys:
            check_ordering(sk.expr.type)
        for arg in bargs if distinct and not name.startswith("json") else []:  # NB: converted
            check_distinct_aggregate(arg.type)
        if distinct and not keys and name in _SORTED_DISTINCT:  # NB: PostgreSQL sorts to
            keys = [N.SortKey(b, False, False) for b in bargs]  # dedupe: array_agg(DISTINCT x)
        if name in ORDERED_SET_AGGS and len(keys) != 1:  # f(0.5) WITHIN GROUP (ORDER BY x, y)
            raise UndefinedFunction(
                f"function {name}({', '.join(ty.type_name(b.type) for b in bargs[1:] + [k.expr for k in keys])}) "
                "does not exist", hint="No function matches the given name and argument types. "
                "You might need to add explicit type casts.")
        fe = binder.bind_bool(flt, "FILTER") if flt is not None else None
        if name != "json_agg":
            arg_t = bargs[0].type if bargs else T.UNKNOWN
        rtype = agg_type(name, arg_t)
        if name in ORDERED_SET_AGGS or name in STATS_AGGS:
            if name in ORDERED_SET_AGGS:
                check_grouped(bargs[1:], groups, scope.cols)
            bargs, rtype = _typed_special(name, bargs, planner.params)
            arg_t = bargs[0].type
        elif name in HYPOTHETICAL_AGGS and keys:
            check_grouped(bargs, groups, scope.cols)
            bargs, keys, rtype = typed_hypothetical(name, bargs, keys, planner.params)
        aggs.append(N.AggCall(name, bargs, rtype, distinct, keys, fe, arg_t))
    scope.aggregates_allowed = None
    cols = [N.PCol(g.name, g.type, g.typmod) for g in groups]
    for g, c in zip(groups, cols, strict=True):
        if g.kind == "col" and g.data < len(scope.cols):  # NB: not a set-returning key's
            src = scope.cols[g.data]
            c.qualifier, c.table_oid, c.attnum = src.qualifier, src.table_oid, src.attnum
        elif g.kind == "row" and g.rowtype:  # GROUP BY t: t's OID, column 0 (PG)
            c.table_oid = planner._row_type_rel(g.rowtype)
    cols += [N.PCol(a.func if a.func != "count_star" else "count", a.type,
                    rowtype=wholerow.array_rowtype(a.args) if a.func == "array_agg" and a.args
                    and a.type == T.ARRAY_OF.get(T.RECORD) else 0)
             for a in aggs]  # NB: array_agg(t) goes out as t[], as PostgreSQL types it
    agg = N.Aggregate(cols, child=node, groups=groups, aggs=[_enum_extreme(a) for a in aggs])
    top: N.Node = agg
    if sets is not None or grp_asts:
        top = GS.plan_sets(agg, sets if sets is not None else [tuple(range(len(groups)))],
                           grp_args)
    repl: dict[exp.Expr, E] = {}
    group_map: dict[int, int] = {}
    for i, (ast, g) in enumerate(zip(group_asts, groups, strict=True)):
        repl[ast] = col(i, g.type, g.name, g.typmod)
        repl[ast].rowtype = g.rowtype  # NB: GROUP BY t keeps t's row type
        if g.kind == "col" and g.data < len(scope.cols):
            group_map.setdefault(g.data, i)
    for j, (ast, a) in enumerate(zip(agg_asts, aggs, strict=True)):
        name = _agg_label(ast, a)
        repl[ast] = col(len(groups) + j, a.type, name)
        repl[ast].rowtype = cols[len(groups) + j].rowtype  # NB: array_agg(t) is t[]
    for k, ast in enumerate(grp_asts):
        repl[ast] = col(len(groups) + len(aggs) + k, T.INT4, "grouping")
    out = Scope(top.cols, parent=scope.parent, repl=repl, group_from=scope, group_map=group_map)
    if top is agg:  # NB: a grouping set may leave a grouped primary key NULL
        out.dependent = _dependent_columns(agg, scope, group_map, planner.catalog)
    return top, out


def _dependent_columns(agg: N.Aggregate, scope: Scope, group_map: dict[int, int],
                       catalog: Any) -> Any:
    """Returns the callback that lets a grouped query read columns of a table whose whole
    primary key is grouped (PostgreSQL's functional dependency), as a `first` aggregate."""

    def add(idx: int) -> None:
        c = scope.cols[idx]
        table = catalog.table_by_oid(c.table_oid) if c.table_oid else None
        if table is None or not table.primary_key or c.attnum <= 0:
            return
        pk = set(table.primary_key)
        grouped = {scope.cols[i].attnum for i in group_map
                   if scope.cols[i].table_oid == c.table_oid
                   and scope.cols[i].qualifier == c.qualifier}
        if not pk <= grouped:
            return
        agg.aggs.append(N.AggCall("first", [col(idx, c.type, c.name, c.typmod)], c.type))
        agg.cols.append(N.PCol(c.name, c.type, c.typmod, c.qualifier, c.table_oid, c.attnum))
        group_map[idx] = len(agg.cols) - 1

    return add


WINDOW_TYPES = {"row_number": T.INT8, "rank": T.INT8, "dense_rank": T.INT8, "ntile": T.INT4,
                "percent_rank": T.FLOAT8, "cume_dist": T.FLOAT8}


def plan_windows(planner: Any, node: N.Node, scope: Scope, wins: list[exp.Window],
                 sel: exp.Select) -> tuple[N.Node, Scope]:
    """Adds a Window node computing every OVER call; returns it with the widened scope."""
    binder = Binder(planner, scope)
    named = {w.alias_or_name: w for w in sel.args.get("windows") or []}
    calls: list[N.WinCall] = []
    shown: list[str] = []  # each call's output column name, as PG names it
    for w in wins:
        spec = w
        ref = w.args.get("alias")
        if ref is not None and ref.name in named and not w.args.get("order") and not w.args.get("partition_by"):
            spec = named[ref.name]
        f = w.this
        if isinstance(f, exp.Anonymous) or type(f) not in AGG_CLASSES:
            name = func_name(f)
        else:
            name = AGG_CLASSES[type(f)]
        if name in ORDERED_SET_AGGS or isinstance(f, exp.WithinGroup):
            inner = func_name(f.this if isinstance(f, exp.WithinGroup) else f)
            raise FeatureNotSupported(f"OVER is not supported for ordered-set aggregate {inner}")
        if any(isinstance(a, exp.Distinct) for a in f.iter_expressions()):
            raise FeatureNotSupported("DISTINCT is not implemented for window functions")
        shown.append(name)
        if name == "every":  # SQL's name for bool_and, as agg_parts maps it
            name = "bool_and"
        if name == "count" and (f.this is None or isinstance(f.this, exp.Star)):
            name, args = "count_star", []
        else:
            args = [binder.bind(a) for a in func_args(f)]
        arg_t = args[0].type if args else T.UNKNOWN
        if name in wholerow.JSON_EMBEDDERS:  # json_agg(t) OVER (...): each row as its object
            args = [wholerow.embedded_json(x, planner.params, name.startswith("jsonb"))
                    for x in args]
        partition = [binder.bind(p) for p in spec.args.get("partition_by") or []]
        order_node = spec.args.get("order")
        order = [N.SortKey(enum_ordered(binder.bind(o.this)), bool(o.args.get("desc")),
                           bool(o.args.get("nulls_first")))
                 for o in (order_node.expressions if order_node is not None else [])]
        if name in ("lag", "lead"):
            while len(args) < 2:
                args.append(const(1, T.INT4))
            if len(args) == 3:
                args[2] = coerce(args[2], args[0].type, params=planner.params)
            args[1] = coerce(args[1], T.INT4, params=planner.params)
        if name in ("min", "max") and len(args) == 1 and has_sort_key(args[0].type):
            args.append(enum_ordered(args[0]))  # compared by the declared order (exec.window)
        t = WINDOW_TYPES.get(name) or agg_type(name, args[0].type if args else T.UNKNOWN)
        if name in STATS_AGGS:  # corr(y, x) OVER (...): float8 pairs, as grouped
            args, t = _typed_special(name, args, planner.params)
        frame = w.args.get("spec") or spec.args.get("spec")
        rows = bool(frame is not None and str(frame.args.get("kind", "")).lower() == "rows")
        start, end, rstart, rend = _frame_bounds(frame, rows, binder)
        if (rstart is not None or rend is not None) and not rows and len(order) != 1:
            raise WindowingError("RANGE with offset PRECEDING/FOLLOWING requires exactly one "
                                 "ORDER BY column")
        whole = (start is None and end is None) or not order
        calls.append(N.WinCall(name, args, t, partition, order, rows, whole, start, end,
                               rstart, rend, arg_t))
    base = len(node.cols)
    cols = [*node.cols, *[N.PCol("?window?", c.type, hidden=True) for c in calls]]
    repl = dict(scope.repl)
    for i, (w, c) in enumerate(zip(wins, calls, strict=True)):
        repl[w] = col(base + i, c.type, shown[i])
    win = N.Window(cols, child=node, calls=calls)
    out = Scope(cols, parent=scope.parent, repl=repl, group_from=scope.group_from,
                group_map=scope.group_map)
    if scope.group_from is None:
        out.group_from = None
    return win, out


def _frame_bound(v: Any, side: Any, rows: bool, binder: Any) -> tuple[Any, E | None]:
    """(relative bound, RANGE offset expression) of one frame bound."""
    if v is None:
        return "missing", None
    text = v.upper() if isinstance(v, str) else ""
    if text == "UNBOUNDED":
        return None, None
    if text == "CURRENT ROW":
        return 0, None
    sign = -1 if str(side or "").lower() == "preceding" else 1
    if rows:
        if isinstance(v, exp.Literal) and not v.is_string and v.this.isdigit():
            return sign * int(v.this), None
        return sign, coerce(binder.bind(v), T.INT8, params=binder.params)  # e.g. $1
    return sign, binder.bind(v)


def _frame_bounds(frame: Any, rows: bool, binder: Any) -> tuple[Any, Any, E | None, E | None]:
    """(start, end, RANGE start offset, RANGE end offset) of a frame clause (`N.WinCall`)."""
    if frame is None or frame.args.get("start") is None:
        return None, 0, None, None  # the default: RANGE UNBOUNDED PRECEDING .. CURRENT ROW
    start, rs = _frame_bound(frame.args.get("start"), frame.args.get("start_side"), rows, binder)
    end, re_ = _frame_bound(frame.args.get("end"), frame.args.get("end_side"), rows, binder)
    if end == "missing":
        end = 0
    return start, end, rs, re_


def _typed_special(name: str, bargs: list[E], params: Any) -> tuple[list[E], int]:
    """The arguments and result type of an ordered-set (functions.ordsetaggs) or two-argument
    statistical (functions.statsaggs) aggregate, as pg_proc declares them: float8 pairs; the
    fraction float8 or float8[] (an array of results); percentile_cont of float8 or interval."""
    if name in STATS_AGGS:
        if len(bargs) != 2 or not all(_float8_arg(b.type) for b in bargs):
            shown = ", ".join(ty.type_name(b.type) for b in bargs)
            raise UndefinedFunction(f"function {name}({shown}) does not exist",
                                    hint="No function matches the given name and argument types. "
                                    "You might need to add explicit type casts.")
        return [coerce(b, T.FLOAT8, params=params) for b in bargs], \
            T.INT8 if name == "regr_count" else T.FLOAT8
    x, direct = bargs[0], bargs[1:]
    if name == "percentile_cont" and not (_float8_arg(x.type) or x.type == T.INTERVAL) \
            or direct and not (_float8_arg(direct[0].type)
                               or _float8_arg(T.ELEMENT_OF.get(direct[0].type, T.TEXT))):
        shown = ", ".join(ty.type_name(b.type) for b in [*direct, x])
        raise UndefinedFunction(f"function {name}({shown}) does not exist",
                                hint="No function matches the given name and argument types. "
                                "You might need to add explicit type casts.")
    if x.type == T.UNKNOWN or name == "percentile_cont" and x.type != T.INTERVAL:
        x = coerce(x, T.FLOAT8 if name == "percentile_cont" else T.TEXT, params=params)
    if name == "mode":
        if direct:
            raise UndefinedFunction("function mode(...) with WITHIN GROUP does not exist")
        return [x], x.type
    if len(direct) != 1:
        raise UndefinedFunction(f"function {name} does not exist")
    many = ty.is_array(direct[0].type)
    frac = coerce(direct[0], T.ARRAY_OF[T.FLOAT8] if many else T.FLOAT8, params=params)
    return [x, frac], T.ARRAY_OF.get(x.type, T.ANYARRAY) if many else x.type


def _float8_arg(t: int) -> bool:
    """Whether a value of type `t` may be passed where PostgreSQL declares float8."""
    return t == T.UNKNOWN or ty.is_numeric(t)


def _enum_extreme(a: N.AggCall) -> N.AggCall:
    """MIN/MAX over an enum (or inet/cidr) as the first non-NULL value in the type's order:
    the executors (and KiVi) compare the Python values, labels and address texts."""
    if a.func not in ("min", "max") or not has_sort_key(a.arg_type):  # NB: DISTINCT: the same
        return a
    key = N.SortKey(enum_ordered(a.args[0]), a.func == "max", False)
    return N.AggCall("first", a.args, a.type, False, [key], a.filter, a.arg_type)


def _agg_label(ast: exp.Expression, a: N.AggCall) -> str:
    """The output column name PostgreSQL gives an aggregate: the function as written."""
    node = ast.this if isinstance(ast, exp.Filter) else ast
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    return a.func if a.func != "count_star" else "count"
