"""The expression binder: sqlglot expression -> typed `E`, resolving names against a scope.

This module stays whole (about 600 lines) because it is one recursive
function over sqlglot's node classes; splitting it would scatter one
dispatch table. Column references resolve in the innermost scope first, then
outward (becoming `outer` references and marking the inner scopes as
correlated). In grouped scopes, expressions that match a GROUP BY key or an
aggregate call are replaced by the Aggregate node's output columns; other
column references raise 42803. Parameters take the type of the operand they
meet, as PostgreSQL infers them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import Any

import sqlglot
from sqlglot import exp

from ...errors import (
    AmbiguousColumn,
    AmbiguousFunction,
    CannotCoerce,
    DatatypeMismatch,
    FeatureNotSupported,
    GroupingError,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UndefinedFunction,
    UndefinedObject,
    UndefinedTable,
    WindowingError,
    WrongObjectType,
)
from ...pgtypes import geometry, hstore, records, zones
from ...pgtypes import oids as T
from ...pgtypes.bits import hex_literal, parse_bit
from ...pgtypes.collated import plain as collated_plain
from ...pgtypes.interval import RANGES as INTERVAL_RANGES
from ...pgtypes.interval import typmod as interval_typmod
from ...pgtypes.intervaltext import parse_interval
from ...pgtypes.numlimits import check_numeric
from ...pgtypes.utf8check import invalid_sequence
from ..functions.registry import FUNCTIONS
from ..pgcatalog.collations import COLLATABLE, icu_of, value_wrapper
from ..pgcatalog.ddltext import format_type
from . import (
    citextops,
    colnames,
    domaincheck,
    extops,
    hstorerows,
    jsonrows,
    namedargs,
    trgmops,
    userexprs,
    usertypes,
    wholerow,
)
from . import codegen as cg
from . import runtime as rt
from . import types as ty
from .bound import E, const
from .casts import cast_function, check_int, each_element, tstz_to_local, tstz_to_timetz
from .collate import check_collate, check_explicit_pair, collated, collation_name, spread
from .commontype import AssignCast, assignable, assignment_mismatch, select_common_type
from .constfold import UNFOLDABLE, evaluate, fold_call
from .functions import coerce, resolve, return_type
from .fuzzycols import column_hint
from .operators import arith
from .rangeops import involves_range, range_op
from .regarrays import REG_PARAMS, REG_TYPES, reg_param
from .regcast import RegOid
from .rowcast import row_array_cast, row_cast
from .rowpopulate import record_fields
from .specialforms import SpecialForms, bpchar_in_operands, bpchar_operands, bpchar_subquery
from .udf import bind_user_function, user_parameters
from .xmlforms import FORMS as XML_FORMS
from .xmlforms import XmlForms, is_document_test

AGG_CLASSES: dict[type, str] = {
    exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max",
    exp.GroupConcat: "string_agg", exp.ArrayAgg: "array_agg", exp.LogicalAnd: "bool_and",
    exp.LogicalOr: "bool_or", exp.JSONArrayAgg: "json_agg", exp.Stddev: "stddev",
    exp.StddevSamp: "stddev_samp", exp.StddevPop: "stddev_pop", exp.Variance: "variance",
    exp.VariancePop: "var_pop", exp.WithinGroup: "within_group", exp.Corr: "corr",
    exp.CovarPop: "covar_pop", exp.CovarSamp: "covar_samp", exp.RegrAvgx: "regr_avgx",
    exp.RegrAvgy: "regr_avgy", exp.RegrCount: "regr_count", exp.RegrIntercept: "regr_intercept",
    exp.RegrR2: "regr_r2", exp.RegrSlope: "regr_slope", exp.RegrSxx: "regr_sxx",
    exp.RegrSxy: "regr_sxy", exp.RegrSyy: "regr_syy", exp.Mode: "mode",
    exp.PercentileCont: "percentile_cont", exp.PercentileDisc: "percentile_disc",
    exp.BitwiseAndAgg: "bit_and", exp.BitwiseOrAgg: "bit_or", exp.BitwiseXorAgg: "bit_xor",
    exp.JSONObjectAgg: "json_object_agg", exp.JSONBObjectAgg: "jsonb_object_agg",
}
AGG_NAMES = {"count", "sum", "avg", "min", "max", "string_agg", "array_agg", "bool_and",
             "bool_or", "every", "json_agg", "jsonb_agg", "stddev", "stddev_samp", "stddev_pop",
             "variance", "var_samp", "var_pop", "xmlagg", "bit_and", "bit_or", "bit_xor",
             "json_object_agg", "jsonb_object_agg"}
# pseudo-types a cast leaves the value's own type under: whether they stand for arrays only
# (True), for non-arrays only (False) or for any type (None): anyelement, anyarray, anynonarray,
# anycompatible, anycompatiblearray, anycompatiblenonarray
_POLYMORPHIC: dict[int, bool | None] = {
    T.ANYELEMENT: None, T.ANYARRAY: True, 2776: False, 5077: None, 5078: True, 5079: False}
WINDOW_ONLY = {"row_number", "rank", "dense_rank", "lag", "lead", "first_value", "last_value",
               "ntile", "percent_rank", "cume_dist", "nth_value"}


@dataclass
class Scope:
    """The columns an expression may reference, plus replacements for grouped/windowed queries."""

    cols: list[Any]  # plan.nodes.PCol
    parent: Scope | None = None
    repl: dict[exp.Expr, E] = field(default_factory=dict)
    group_from: Scope | None = None  # grouped: the pre-aggregation scope
    group_map: dict[int, int] = field(default_factory=dict)  # pre-agg col index -> output index
    correlated: bool = False
    aggregates_allowed: str | None = None  # None: allowed; else the clause name for the error
    dependent: Any = None  # grouped: adds a column the GROUP BY keys determine (a grouped PK)

    def find(self, name: str, qualifier: str | None) -> int | None:
        """Returns the index of a visible column, None if absent; 42702 if ambiguous."""
        hits = [
            i for i, c in enumerate(self.cols)
            if c.name == name and not c.dropped and (qualifier is None or c.qualifier == qualifier)
        ]
        if len(hits) > 1 and qualifier is None:
            visible = [i for i in hits if not self.cols[i].hidden]
            if len(visible) == 1:
                return visible[0]
            raise AmbiguousColumn(f'column reference "{name}" is ambiguous')
        return hits[0] if hits else None

    def has_qualifier(self, q: str) -> bool:
        return any(c.qualifier == q for c in self.cols)


def func_name(node: exp.Expr) -> str:
    """Returns the lower-case PostgreSQL function name of a sqlglot function node."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    sql = node.sql("postgres")
    return sql.split("(", 1)[0].strip().lower()


def func_args(node: exp.Expr) -> list[exp.Expression]:
    """Returns a function node's arguments in PostgreSQL's order."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out: list[exp.Expression] = []
    for key in node.arg_types:
        v = node.args.get(key)
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, list):
            out.extend(v)
        elif isinstance(v, exp.Expression):
            out.append(v)
    return out


def is_aggregate(node: exp.Expr) -> bool:
    """True for an aggregate call (not a window function)."""
    if isinstance(node, exp.Filter):
        return is_aggregate(node.this)
    if isinstance(node.parent, exp.Window) and node.parent.this is node \
            or isinstance(node.parent, exp.WithinGroup):  # NB: the WithinGroup is the call
        return False
    if type(node) in AGG_CLASSES:
        return True
    return isinstance(node, exp.Anonymous) and node.name.lower() in AGG_NAMES


def find_aggregates(node: exp.Expression) -> list[exp.Expression]:
    """Finds aggregate calls in an expression, not inside subqueries."""
    out: list[exp.Expression] = []

    def visit(n: exp.Expression) -> None:
        if isinstance(n, exp.Subquery | exp.Select | exp.Exists | exp.Union):
            return
        if is_aggregate(n):
            out.append(n)
            return
        if isinstance(n, exp.Anonymous) and n.name.lower() == "range_agg":
            _range_agg_of_array_agg(n)
        for child in n.iter_expressions():
            visit(child)

    visit(node)
    return out


def _range_agg_of_array_agg(n: exp.Anonymous) -> None:
    """The aggregate range_agg(r) becomes the function range_agg(array_agg(r)) (functions.
    rangefns), in place, so the array_agg is what grouping finds and evaluates."""
    args = n.expressions
    if len(args) == 1 and not isinstance(args[0], exp.ArrayAgg) and \
            not isinstance(n.parent, exp.Window):
        n.set("expressions", [exp.ArrayAgg(this=args[0])])


def _one_row_type(values: list[E]) -> tuple[Any, int]:
    """(fields, row type) of a CASE / COALESCE whose values are whole rows of one table
    (`coalesce(t, NULL)` goes out typed t, as in PostgreSQL), else (None, 0)."""
    rows = [v for v in values if v.type == T.RECORD and not (v.kind == "const" and v.data is None)]
    if not rows or not rows[0].rowtype or any(v.rowtype != rows[0].rowtype for v in rows):
        return None, 0
    return rows[0].fields, rows[0].rowtype


def _check_window_function(f: exp.Expression) -> None:
    """PostgreSQL's 42809 for OVER on a plain function (`upper(x) OVER ()`); range_agg is an
    aggregate there, not yet as a window function here (0A000)."""
    if type(f) in AGG_CLASSES:
        return
    name = func_name(f)
    if name == "range_agg":
        raise FeatureNotSupported("range_agg is not supported as a window function")
    if name in FUNCTIONS and name not in AGG_NAMES and name not in WINDOW_ONLY:
        raise WrongObjectType(f"OVER specified, but {name} is not a window function nor an "
                              "aggregate function")


def find_windows(node: exp.Expression) -> list[exp.Window]:
    """Finds window function calls in an expression, not inside subqueries."""
    out: list[exp.Window] = []

    def visit(n: exp.Expression) -> None:
        if isinstance(n, exp.Subquery | exp.Select | exp.Exists | exp.Union):
            return
        if isinstance(n, exp.Window):
            _check_window_function(n.this)
            out.append(n)
            return
        for child in n.iter_expressions():
            visit(child)

    visit(node)
    return out


_CMP_CLASSES: dict[type, str] = {
    exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">",
    exp.GTE: ">="}
_ARITH: dict[type, str] = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.Pow: "^",
    exp.IntDiv: "/"}


_NUMBERS = frozenset({T.INT2, T.INT4, T.INT8, T.NUMERIC, T.FLOAT4, T.FLOAT8})


def _fold_numeric(e: E) -> E:
    """Folds arithmetic and comparisons on numeric constants at bind time, as PostgreSQL's
    planner does (eval_const_expressions): `2 * 9223372036854775807` or `1 / 0` then fail
    when the statement is planned, even if no row would ever evaluate them. Only pure
    number operators are folded (nothing that reads the session or the clock)."""
    if _strict(e) and any(a.kind == "const" and a.data is None for a in e.args):
        # a strict operator or function of a NULL constant is NULL, folded before anything
        # else is evaluated (PostgreSQL's simplify_function does the same)
        return E("const", None, [], e.type, e.typmod, e.name)
    if e.kind in ("nullif", "subscript") and all(a.kind == "const" for a in e.args):
        pass  # NULLIF / an array subscript of constants: pure, whatever the type
    elif (e.kind not in ("op", "neg") or not e.args
            or any(a.kind != "const" or a.type not in _NUMBERS for a in e.args)):
        return e
    v = evaluate(e)
    if v is UNFOLDABLE:
        return e
    return E("const", v, [], e.type, e.typmod, e.name)


def _strict(e: E) -> bool:
    if e.kind in ("op", "neg"):
        return True
    if e.kind == "call":
        return bool(e.data.strict and not e.data.set_returning and not e.data.volatile)
    return e.kind == "pyfunc" and e.data[2] is True


def _sqlglot_shifted(b: exp.Bracket) -> bool:
    """Tells whether sqlglot's parser made this subscript 0-based. It does so (for an integer
    literal) only when it typed the subscripted expression as an array or unknown: `ai[3]`
    arrives as 2, but `(ai || x)[3]`, which it types as text, arrives as 3."""
    t = b.this.type if b.this is not None else None
    return t is None or t.this in (exp.DataType.Type.UNKNOWN, exp.DataType.Type.ARRAY)


class Binder(SpecialForms, XmlForms):
    """Binds expressions of one query level; `planner` builds sub-plans for subqueries."""

    def __init__(self, planner: Any, scope: Scope) -> None:
        self.planner = planner
        self.scope = scope
        self.params = planner.params
        # NB: off for what PostgreSQL's planner never simplifies: what follows a constant
        # false in AND (true in OR), a CASE arm whose condition is constant false
        self.folding = True

    # -- entry points --------------------------------------------------------------------------

    def bind(self, node: exp.Expr) -> E:
        """Returns the bound form of `node`."""
        if self.scope.repl:
            hit = self.scope.repl.get(node)
            if hit is not None:
                return hit
        method = getattr(self, "b_" + type(node).__name__, None)
        if method is None:
            if isinstance(node, exp.Func):
                e = self.b_function(node)
                return fold_call(e) if self.folding else e
            raise FeatureNotSupported(f"unsupported expression: {node.sql('postgres')}")
        return fold_call(_fold_numeric(method(node))) if self.folding else method(node)

    def bind_unfolded(self, node: exp.Expression, unfolded: bool, clause: str = "") -> E:
        """Binds `node` (a condition of `clause` when given), without folding when `unfolded`."""
        was = self.folding
        self.folding = was and not unfolded
        try:
            return self.bind_bool(node, clause) if clause else self.bind(node)
        finally:
            self.folding = was

    def bind_bool(self, node: exp.Expression, clause: str) -> E:
        """Binds a condition (WHERE, ON, HAVING) and checks that it is boolean."""
        e = self.bind(node)
        e = coerce(e, T.BOOL, params=self.params) if e.type in (T.UNKNOWN,) else e
        if e.type != T.BOOL:
            raise DatatypeMismatch(
                f"argument of {clause} must be type boolean, not type {ty.type_name(e.type)}"
            )
        return e

    # -- leaves --------------------------------------------------------------------------------

    def b_Paren(self, node: exp.Paren) -> E:
        return self.bind(node.this)

    def b_Alias(self, node: exp.Alias) -> E:
        return self.bind(node.this)

    def b_Literal(self, node: exp.Literal) -> E:
        if node.is_string:
            return E("const", node.this, [], T.UNKNOWN)
        s = node.this
        if "." in s or "e" in s.lower():
            return const(check_numeric(Decimal(s), s), T.NUMERIC)
        v = int(s)
        if -(2**31) <= v < 2**31:
            return const(v, T.INT4)
        if -(2**63) <= v < 2**63:
            return const(v, T.INT8)
        return const(Decimal(v), T.NUMERIC)

    def b_Boolean(self, node: exp.Boolean) -> E:
        return E("const", bool(node.this), [], T.BOOL, -1, "?column?")

    def b_Null(self, node: exp.Null) -> E:
        return E("const", None, [], T.UNKNOWN)

    def b_HexString(self, node: exp.HexString) -> E:  # X'1F': a bit string, as in PostgreSQL
        return E("const", hex_literal(node.this), [], T.BIT)

    def b_BitString(self, node: exp.Expression) -> E:  # B'101'
        return E("const", parse_bit(node.this), [], T.BIT)

    def b_Parameter(self, node: exp.Parameter) -> E:
        return self._param(int(node.this.this if isinstance(node.this, exp.Expression)
                               else node.this))

    def _param(self, n: int) -> E:
        """`$n`, typed as declared (unknown if not)."""
        self.params.infer(n, 0)  # records that $n exists, so that it is settled to text at worst
        known = self.params.get(n)
        if known in REG_PARAMS:  # declared regclass: a name bound in text is looked up
            return reg_param(E("param", n, [], known), known)
        return E("param", n, [], known or T.UNKNOWN)

    def b_Placeholder(self, node: exp.Placeholder) -> E:
        n = int(node.name) if node.name and node.name.isdigit() else 1
        return E("param", n, [], self.params.get(n) or T.UNKNOWN)

    def b_Column(self, node: exp.Column) -> E:
        name = node.name
        qual = node.table or None
        if isinstance(node.this, exp.Star):
            row = self._whole_row(qual) if qual else None  # `t.*` in an expression: t's row
            if row is not None:
                return row
            if qual and not any(s.has_qualifier(qual) for s in self._chain()):
                raise self.missing_from(qual)
            raise FeatureNotSupported("* is only allowed in a select list")
        pos = node.meta.get("star_index")  # NB: `*` over equal names: ROWS FROM (unnest, unnest)
        if pos is not None and self.scope.group_from is None and pos < len(self.scope.cols):
            c = self.scope.cols[pos]
            if c.name == name:
                return E("col", pos, [], c.type, c.typmod, name, c.fields)
        return self.column(name, qual, node)

    def b_Identifier(self, node: exp.Identifier) -> E:
        return self.column(node.name, None, node)

    def b_Var(self, node: exp.Var) -> E:
        return self.column(node.name.lower(), None, node)

    def column(self, name: str, qual: str | None, node: exp.Expression) -> E:
        """Resolves a column reference through the scope chain."""
        scope: Scope | None = self.scope
        depth = 0
        crossed: list[Scope] = []
        while scope is not None:
            grouped = scope.group_from
            look = grouped if grouped is not None else scope
            idx = look.find(name, qual)
            if idx is not None:
                c = look.cols[idx]
                if grouped is not None:
                    if idx not in scope.group_map and scope.dependent is not None:
                        scope.dependent(idx)
                    if idx not in scope.group_map:
                        shown = f"{qual}.{name}" if qual else (
                            f"{c.qualifier}.{name}" if c.qualifier else name)
                        raise GroupingError(
                            f'column "{shown}" must appear in the GROUP BY clause or be used '
                            "in an aggregate function"
                        )
                    idx = scope.group_map[idx]
                    c = scope.cols[idx]
                for s in crossed:
                    s.correlated = True
                if depth == 0:
                    return E("col", idx, [], c.type, c.typmod, name, c.fields, c.rowtype)
                return E("outer", (depth, idx), [], c.type, c.typmod, name, c.fields, c.rowtype)
            crossed.append(scope)
            scope = scope.parent
            depth += 1
        if not qual:  # a relation's name: its whole row (PostgreSQL tries columns first)
            row = self._whole_row(name)
            if row is not None:
                return row
        if qual and not any(s.has_qualifier(qual) for s in self._chain()):
            raise self.missing_from(qual)
        if (not qual and name in ("user", "current_role") and isinstance(node, exp.Column)
                and not node.this.quoted):  # SQL's niladic USER and CURRENT_ROLE
            e = self.bind(exp.Anonymous(this="current_user", expressions=[]))
            e.name = name  # PostgreSQL names the column `user` / `current_role`
            return e
        shown = f"{qual}.{name}" if qual else f'"{name}"'  # PostgreSQL quotes only a bare name
        ident = node.args.get("table") if qual and isinstance(node, exp.Column) else None
        ident = ident or (node.this if isinstance(node, exp.Column) else node)
        start = (getattr(ident, "meta", None) or {}).get("start")
        raise UndefinedColumn(f"column {shown} does not exist",
                              position=start + 1 if isinstance(start, int) else None,
                              hint=column_hint([self._relations(s) for s in self._chain()],
                                               qual, name))

    @staticmethod
    def _relations(scope: Scope) -> list[tuple[str, list[str]]]:
        """The relations of one query level and their columns, as PostgreSQL's range table
        holds them for its fuzzy column match (a USING join's merged columns are the join's,
        not a relation's)."""
        rels: dict[str, list[str]] = {}
        for c in (scope.group_from or scope).cols:
            if c.qualifier and not c.dropped and not c.merged and (not c.hidden or c.joined):
                rels.setdefault(c.qualifier, []).append(c.name)
        return list(rels.items())

    def missing_from(self, qual: str) -> SQLError:
        """42P01 for `qual.x` naming no FROM item, worded as PostgreSQL's errorMissingRTE: a
        table that is in FROM under an alias (`FROM t AS x`: "Perhaps you meant to reference
        the table alias") or hidden in an aliased join (`(t JOIN u) AS j`: "There is an
        entry ...") is an invalid reference, anything else a missing entry."""
        for look in self._chain():
            for c in look.cols:
                table = self.planner.catalog.table_by_oid(c.table_oid) if c.table_oid and \
                    c.attnum > 0 and not c.derived else None
                if table is None or table.name != qual or c.qualifier == qual:
                    continue
                joined = len({x.table_oid for x in look.cols if x.qualifier == c.qualifier
                              and x.attnum > 0}) > 1  # NB: a join alias spans its tables
                hint = (f'There is an entry for table "{qual}", but it cannot be referenced '
                        "from this part of the query.") if joined or not c.qualifier else \
                    f'Perhaps you meant to reference the table alias "{c.qualifier}".'
                return UndefinedTable(
                    f'invalid reference to FROM-clause entry for table "{qual}"', hint=hint)
        if qual in self.planner.join_hidden:
            return UndefinedTable(
                f'invalid reference to FROM-clause entry for table "{qual}"',
                hint=f'There is an entry for table "{qual}", but it cannot be referenced from '
                "this part of the query.")
        return UndefinedTable(f'missing FROM-clause entry for table "{qual}"')

    def _whole_row(self, rel: str) -> E | None:
        """`t` for a FROM relation `t`: a record of its visible columns, nearest level first."""
        depth = 0
        for look in self._chain():
            idxs = [i for i, c in enumerate(look.cols)  # NB: USING's merged column stays in it
                    if c.qualifier == rel and not c.dropped and (not c.hidden or (
                        c.attnum >= 0 and not c.name.startswith("?")))]
            if idxs:
                if depth == 0 and self.scope.group_from is not None:
                    raise GroupingError(f'column "{rel}.*" must appear in the GROUP BY clause '
                                        "or be used in an aggregate function")
                if len(idxs) == 1 and look.cols[idxs[0]].result_of == -1:
                    c = look.cols[idxs[0]]  # NB: a scalar function's row is its value (PG)
                    value = E("col", idxs[0], [], c.type, c.typmod, rel, c.fields) if depth == 0 \
                        else self.column(c.name, rel, exp.column(c.name, rel))
                    value.name = rel
                    return value
                rowtype = self._row_type([look.cols[i] for i in idxs])
                if depth == 0:
                    refs = [E("col", i, [], look.cols[i].type, look.cols[i].typmod,
                              look.cols[i].name, look.cols[i].fields) for i in idxs]
                else:
                    refs = [self.column(look.cols[i].name, rel, exp.column(
                        look.cols[i].name, rel)) for i in idxs]
                row = wholerow.whole_row(refs, rel, rowtype)
                marks = wholerow.markers(look.cols, rel)  # NB: set by plan.nullmark
                if wholerow.join_alias_row(look.cols, rel):
                    return row  # NB: PostgreSQL's ROW() of a join's columns, even padded
                if marks:
                    return wholerow.marked_row(row, [
                        E("col", i, [], T.BOOL, -1, look.cols[i].name) if depth == 0 else
                        self.column(look.cols[i].name, rel, exp.column(look.cols[i].name, rel))
                        for i in marks])
                if any(look.cols[i].nullable for i in idxs):
                    row.data = records.OuterRowTypes(row.data, self._null_guard(
                        [look.cols[i] for i in idxs]))
                return row
            depth += 1
        return None

    def _null_guard(self, cols: list[Any]) -> int:
        """The position of a NOT NULL table column among a whole row's `cols` (-1: none), NULL
        in the row only when an outer join null-extended it."""
        for i, c in enumerate(cols):
            table = self.planner.catalog.table_by_oid(c.table_oid) if c.table_oid and \
                not c.derived and c.attnum > 0 else None
            col = next((x for x in table.columns if x.attnum == c.attnum), None) if table else None
            if col is not None and col.not_null and not col.dropped:
                return i
        return -1

    def _row_type(self, cols: list[Any]) -> int:
        """The pg_type OID of a table whose columns, all of them in order, are `cols` (0 for
        anything else): PostgreSQL types such a whole row with the table's row type, and
        so a FROM function's row when it returns one (`RETURNS SETOF t`)."""
        results = {c.result_of for c in cols}
        if len(results) == 1 and (result := results.pop()) > 0:
            table = self.planner.catalog.table_by_oid(self.planner._row_type_rel(result))
            if table is not None and table.reltype:
                wholerow.register_row_array(table.reltype, table.array_type)
                return table.reltype
            return 0
        oids = {c.table_oid for c in cols}  # NB: plan.nodes.PCol
        if len(oids) != 1 or any(c.derived for c in cols):
            return 0
        table = self.planner.catalog.table_by_oid(oids.pop())
        if table is None or not table.reltype or \
                [c.name for c in table.live_columns] != [c.name for c in cols]:
            return 0
        records.ROW_TYPES.add(table.reltype)  # NB: encoded as `record` (pgtypes.records)
        wholerow.register_row_array(table.reltype, table.array_type)
        return table.reltype

    def _chain(self) -> Iterator[Scope]:
        s: Scope | None = self.scope
        while s is not None:
            yield s.group_from or s
            s = s.parent

    # -- operators -----------------------------------------------------------------------------

    def unify(self, a: E, b: E) -> tuple[E, E]:
        """Coerces two operands of a comparison to a common type, inferring parameters."""
        if a.type == T.UNKNOWN and b.type != T.UNKNOWN:
            a = coerce(a, b.type, params=self.params)
        elif b.type == T.UNKNOWN and a.type != T.UNKNOWN:
            b = coerce(b, a.type, params=self.params)
        elif a.type == T.UNKNOWN and b.type == T.UNKNOWN:
            a, b = coerce(a, T.TEXT, params=self.params), coerce(b, T.TEXT, params=self.params)
        if a.type != b.type:
            ta, tb = a.type, b.type
            if ty.is_numeric(ta) and ty.is_numeric(tb):
                # NB: an integer or numeric against a float compares as float8, as
                # PostgreSQL's implicit casts make it (9007199254740993::int8 equals
                # 9007199254740992::float8 there; Python compares int and float exactly)
                t = ty.numeric_result(ta, tb)
                if t in (T.FLOAT8, T.FLOAT4) and (T.NUMERIC in (ta, tb)
                                                  or ta in ty.INTS or tb in ty.INTS):
                    a, b = coerce(a, T.FLOAT8), coerce(b, T.FLOAT8)
            elif ta in ty.DATETIMES and tb in ty.DATETIMES:
                t = ty.common_type([ta, tb])
                a, b = coerce(a, t), coerce(b, t)
            elif (ta in ty.OIDLIKE and (tb in ty.INTS or ty.is_string(tb))) or (
                tb in ty.OIDLIKE and (ta in ty.INTS or ty.is_string(ta))
            ):
                if ty.is_string(tb):
                    b = coerce(b, ta, explicit=True)
                elif ty.is_string(ta):
                    a = coerce(a, tb, explicit=True)
            elif not ty.comparable(ta, tb):
                return a, b
        return a, b

    def compare(self, op: str, left: E, right: E) -> E:
        """Builds a comparison, raising 42883 for incomparable types."""
        if wholerow.row_constructor(left) and wholerow.row_constructor(right):
            return E("rowcmp", op, [left, right], T.BOOL)  # field by field, SQL's NULL rules
        if left.kind == "row" or right.kind == "row":  # a whole row: record_eq / record_cmp
            if left.kind == right.kind and len(left.args) == len(right.args):
                for i, (x, y) in enumerate(zip(left.args, right.args, strict=True)):
                    if x.type != y.type:
                        raise DatatypeMismatch(
                            f"cannot compare dissimilar column types {ty.type_name(x.type)} "
                            f"and {ty.type_name(y.type)} at record column {i + 1}")
            return E("op", op, [left, right], T.BOOL)
        geo = extops.geo_operator(op, left, right, self.params)  # box = box compares areas ...
        if geo is not None:
            return geo
        if T.XML in (left.type, right.type):  # none for xml: 42883 naming the types as written
            _check_operator(op, left, right)
        if T.MONEY in (left.type, right.type) and (
                ty.is_numeric(left.type) or ty.is_numeric(right.type)):  # NB: cash_eq ... only
            raise UndefinedFunction(
                f"operator does not exist: {ty.type_name(left.type)} {op} "
                f"{ty.type_name(right.type)}", hint="No operator matches the given name and "
                "argument types. You might need to add explicit type casts.")
        if left.kind == "param" and left.type == T.UNKNOWN and right.type in REG_PARAMS:
            left = coerce(left, T.OID, params=self.params)  # NB: PostgreSQL's oideq: $1 is oid
        elif right.kind == "param" and right.type == T.UNKNOWN and left.type in REG_PARAMS:
            right = coerce(right, T.OID, params=self.params)
        a, b = self.unify(left, right)
        if T.BPCHAR in (a.type, b.type):
            a, b = bpchar_operands(a, b, self.params)
        a, b = citextops.operands(a, b, self.params)  # citext = text compares as text
        _check_operator(op, a, b)
        if op not in ("=", "<>") and a.type in hstore.OIDS:  # NB: hstore's are #<# #># ...
            raise hstorerows.undefined(op, left, right)
        if op not in ("=", "<>") and (a.type == b.type or {a.type, b.type} == {T.INET, T.CIDR}) \
                and usertypes.has_sort_key(a.type):
            a, b = userexprs.enum_ordered(a), userexprs.enum_ordered(b)  # enum, jsonb order
        return E("op", op, [a, b], T.BOOL)

    def _cmp(self, node: exp.Expression) -> E:
        op = _CMP_CLASSES[type(node)]
        rhs = _quantifier(node.expression)
        if isinstance(rhs, exp.Any | exp.All):
            return self.quantified(op, node.this, rhs)
        return self.compare(op, self.bind(spread(node.this, rhs)),
                            self.bind(spread(rhs, node.this)))

    b_EQ = b_NEQ = b_LT = b_LTE = b_GT = b_GTE = _cmp

    def quantified(self, op: str, left_node: exp.Expression, q: exp.Expression) -> E:
        """`x op ANY/ALL (array or subquery)`."""
        is_all = isinstance(q, exp.All)
        inner = q.this
        if isinstance(inner, exp.Paren):
            inner = inner.this
        left = self.bind(left_node)
        if isinstance(inner, exp.Subquery | exp.Select | exp.Union):
            plan = self.subplan(inner.this if isinstance(inner, exp.Subquery) else inner)
            sub_t = plan.cols[0].type
            if left.type == T.UNKNOWN:
                left = coerce(left, sub_t, params=self.params)
            as_text = bpchar_subquery(left, inner.this if isinstance(inner, exp.Subquery)
                                      else inner, plan.cols)
            if as_text is not None:  # NB: char op ANY (SELECT char ...) ignores trailing blanks
                left, plan = coerce(left, T.TEXT, params=self.params), self.subplan(as_text)
            return E("in_sub", (plan, op, is_all), [left], T.BOOL)
        arr = self.bind(inner)
        if arr.kind == "param" and arr.type == T.UNKNOWN:
            arr = coerce(arr, T.ARRAY_OF.get(left.type, T.TEXT + 984), params=self.params)
        elem = T.ELEMENT_OF.get(arr.type, T.UNKNOWN)
        if left.type == T.UNKNOWN and elem != T.UNKNOWN:
            left = coerce(left, elem, params=self.params)
        elif arr.type == T.UNKNOWN and arr.kind == "const":
            arr = coerce(arr, T.ARRAY_OF.get(left.type, T.ANYARRAY), params=self.params)
        if arr.kind == "array" and left.type != T.UNKNOWN:
            arr.args = [coerce(x, left.type, params=self.params) if x.type == T.UNKNOWN else x
                        for x in arr.args]
        left, arr = citextops.array_operand(left, arr, self.params)
        if left.type == T.BPCHAR and arr.type == T.ARRAY_OF[T.BPCHAR]:  # NB: as for `=`
            left = coerce(left, T.TEXT, params=self.params)
            arr = coerce(arr, T.ARRAY_OF[T.TEXT], params=self.params, explicit=True)
        return E("any", (op, is_all), [left, arr], T.BOOL)

    def b_NullSafeEQ(self, node: exp.Expression) -> E:
        a, b = self.unify(self.bind(node.this), self.bind(node.expression))
        a, b = citextops.operands(a, b, self.params)
        return E("distinct", True, [a, b], T.BOOL)

    def b_NullSafeNEQ(self, node: exp.Expression) -> E:
        a, b = self.unify(self.bind(node.this), self.bind(node.expression))
        a, b = citextops.operands(a, b, self.params)
        return E("distinct", False, [a, b], T.BOOL)

    def b_And(self, node: exp.And) -> E:
        a = self.bind_bool(node.this, "AND")
        dead = a.kind == "const" and a.data is False
        return E("and", None, [a, self.bind_unfolded(node.expression, dead, "AND")], T.BOOL)

    def b_Or(self, node: exp.Or) -> E:
        a = self.bind_bool(node.this, "OR")
        dead = a.kind == "const" and a.data is True
        return E("or", None, [a, self.bind_unfolded(node.expression, dead, "OR")], T.BOOL)

    def b_Not(self, node: exp.Not) -> E:
        inner = node.this
        if isinstance(inner, exp.Is):
            e = self.b_Is(inner)
            if e.kind == "pyfunc":  # NOT (composite IS NULL) is not composite IS NOT NULL
                return E("not", None, [e], T.BOOL)
            if e.kind in ("isnull", "notnull"):
                return E("notnull" if e.kind == "isnull" else "isnull", None, e.args, T.BOOL)
            e.data = not e.data
            return e
        if isinstance(inner, exp.In) and inner.args.get("query") is None:
            return E("not", None, [self.b_In(inner, "<>")], T.BOOL)  # <> in PG's 42883 text
        if isinstance(inner, exp.RegexpLike | exp.RegexpILike):  # a !~ b, a !~* b (42883 text)
            return self._regex(inner, isinstance(inner, exp.RegexpILike), negate=True)
        return E("not", None, [self.bind_bool(inner, "NOT")], T.BOOL)

    def b_Is(self, node: exp.Is) -> E:
        a = self.bind(node.this)
        rhs = node.expression
        neg = bool(node.args.get("negate"))
        if is_document_test(rhs):  # x IS [NOT] DOCUMENT (xml)
            return self.xml_is_document(a, neg)
        if isinstance(rhs, exp.Null):
            if a.kind == "row":
                return wholerow.row_null_test(a, neg)
            if record_fields(a) is not None:  # a composite value: every field NULL / not NULL
                return E("pyfunc", ("is not null" if neg else "is null",
                                    _record_not_null if neg else _record_null, False), [a], T.BOOL)
            return E("notnull" if neg else "isnull", None, [a], T.BOOL)
        if isinstance(rhs, exp.Boolean):
            kind = "istrue" if rhs.this else "isfalse"
            return E(kind, neg, [coerce(a, T.BOOL, params=self.params)], T.BOOL)
        b = self.bind(rhs)
        a, b = self.unify(a, b)
        return E("distinct", not neg, [a, b], T.BOOL)

    def b_Between(self, node: exp.Between) -> E:
        v = self.bind(node.this)
        low, high = self.bind(node.args["low"]), self.bind(node.args["high"])
        lo = self.compare(">=", v, low)
        hi = self.compare("<=", v, high)
        if not node.args.get("symmetric"):
            return E("and", None, [lo, hi], T.BOOL)
        # NB: BETWEEN SYMMETRIC is either order of the bounds, as PostgreSQL's grammar expands it
        swapped = E("and", None, [self.compare(">=", v, high), self.compare("<=", v, low)], T.BOOL)
        return E("or", None, [E("and", None, [lo, hi], T.BOOL), swapped], T.BOOL)

    def b_In(self, node: exp.In, op: str = "=") -> E:
        query = node.args.get("query")
        if query is not None:
            q = query.this if isinstance(query, exp.Subquery) else query
            plan = self.subplan(q)
            left = self.bind(node.this)
            if left.type == T.UNKNOWN or (left.kind == "param" and left.type == T.UNKNOWN):
                left = coerce(left, plan.cols[0].type, params=self.params)
            left = citextops.operands(left, E("const", None, [], plan.cols[0].type),
                                      self.params)[0]  # citext IN (text ...): as text
            as_text = citextops.text_subquery(left, q, plan.cols)  # text IN (citext ...)
            if as_text is None and (as_text := bpchar_subquery(left, q, plan.cols)):
                left = coerce(left, T.TEXT, params=self.params)  # char IN (SELECT char ...)
            if as_text is not None:
                plan = self.subplan(as_text)
            return E("in_sub", (plan, "=", False), [left], T.BOOL)
        left = self.bind(node.this)
        numbers = node.meta.get("params")  # NB: a long list of parameters (sql.paramlists)
        items = [self.bind(x) for x in node.expressions] if numbers is None else \
            [self._param(n) for n in numbers]
        if left.type == T.UNKNOWN:
            known = [i.type for i in items if i.type != T.UNKNOWN]
            left = coerce(left, ty.common_type(known) if known else T.TEXT, params=self.params)
        if left.type == T.XML and len(items) == 1:  # `x IN (a)` is `x = a` (42883 xml = unknown)
            return self.compare(op, left, items[0])
        if numbers is not None and left.kind != "row":
            items = self._typed_params(op, left, items)
        else:
            pairs = [self.unify(left, i) for i in items]
            items = [i for _, i in pairs]
            if pairs and left.type != T.FLOAT8 and all(a.type == T.FLOAT8 for a, _ in pairs):
                left = pairs[0][0]  # NB: an integer IN (floats) compares as float8 (unify)
            if left.kind != "row":
                for a, i in pairs:  # NB: PostgreSQL resolves `x IN (a, b)` as x = a OR x = b
                    _check_operator(op, a, i)
        if left.type == T.BPCHAR and all(i.type == T.BPCHAR for i in items):
            left, items = bpchar_in_operands(left, items)
        left, items = citextops.in_operands(left, items, self.params)
        return E("in_list", False, [left, *items], T.BOOL)

    def _typed_params(self, op: str, left: E, items: list[E]) -> list[E]:
        """`b_In`'s typing of a long list of parameters (`sql.paramlists`), item by item as
        for any list, except that an undeclared parameter after the first takes what the
        first undeclared one became (the same left side types each the same way)."""
        out: list[E] = []
        model: E | None = None  # what the first undeclared parameter became
        for i in items:
            untyped = i.kind == "param" and i.type == T.UNKNOWN and not self.params.get(i.data)
            if untyped and model is not None:
                self.params.infer(i.data, model.type)
                out.append(E("param", i.data, [], model.type, -1, i.name))
                continue
            b = self.unify(left, i)[1]
            _check_operator(op, self.unify(left, b)[0], b)
            if untyped and b.kind == "param" and b.typmod < 0:
                model = b
            out.append(b)
        return out

    def b_Exists(self, node: exp.Exists) -> E:
        q = node.this
        plan = self.subplan(q.this if isinstance(q, exp.Subquery) else q)
        return E("exists", plan, [], T.BOOL, -1, "exists")

    def b_Subquery(self, node: exp.Subquery) -> E:
        plan = self.subplan(node.this)
        if len([c for c in plan.cols if not c.hidden]) != 1:
            raise SyntaxError_("subquery must return only one column")
        c = plan.cols[0]  # NB: a whole row keeps its fields and row type (a table's, a view's)
        return E("subquery", plan, [], c.type, c.typmod, c.name, c.fields, c.rowtype)

    def subplan(self, q: exp.Expression) -> Any:
        """Plans a subquery with this scope as its outer scope."""
        return self.planner.plan_subquery(q, self.scope)

    def _arith(self, node: exp.Expression) -> E:
        op = _ARITH[type(node)]
        a, b = self.bind(node.this), self.bind(node.expression)
        if op == "-" and a.type in hstore.OIDS:  # hstore - text / text[] / hstore
            return extops.hstore_op(op, a, b, self.params)
        if op == "-" and a.type == T.JSONB:  # jsonb - text / text[] / int (unknown: text)
            if b.type == T.UNKNOWN:
                b = coerce(b, T.TEXT, params=self.params)
            return self._call("jsonb_delete", [a, b], "?column?")
        return self.arith(op, a, b)

    b_Add = b_Sub = b_Mul = b_Div = b_Mod = b_Pow = _arith

    def arith(self, op: str, a: E, b: E) -> E:
        """Types an arithmetic operator (see `operators.arith`)."""
        trgm = trgmops.bind(op, a, b, self.params)  # pg_trgm's text % text
        if trgm is not None:
            return trgm
        geo = extops.geo_operator(op, a, b, self.params)  # point + point, box * point ...
        if geo is not None:
            return geo
        return arith(op, a, b, self.params)

    def b_Neg(self, node: exp.Neg) -> E:
        a = self.bind(node.this)
        if a.type == T.MONEY:  # NB: pg_operator has no prefix - for money
            raise UndefinedFunction("operator does not exist: - money",
                                    hint="No operator matches the given name and argument type. "
                                    "You might need to add an explicit type cast.")
        if a.kind == "const" and isinstance(a.data, int | Decimal | float) and not isinstance(a.data, bool):
            v = -a.data
            t = a.type
            if t == T.INT8 and v == -(2**31):
                t = T.INT4
            if t == T.NUMERIC and isinstance(v, Decimal) and v == -(2**63):
                return const(int(v), T.INT8)
            if t in ty.INTS and _integer_literal(node.this):
                # NB: doNegate folds the sign into the literal, which is then typed by its
                # value, as make_const types it: `- -2147483648` is bigint 2147483648
                return _int_literal(v)  # type: ignore[arg-type]
            if t in ty.INTS:
                check_int(v, t)  # type: ignore[arg-type]  # an int: its type is an integer type
            return const(v, t)
        if a.type in extops.GEO_TYPES:  # no prefix - of a geometric type: 42883
            extops.geo_operator("-", None, a, self.params)
        if a.type == T.UNKNOWN:  # NB: int2, int4, int8, float4, float8, numeric, interval
            raise AmbiguousFunction(
                "operator is not unique: - unknown",
                hint="Could not choose a best candidate operator. "
                "You might need to add explicit type casts.")
        return E("neg", None, [a], a.type)

    def b_DPipe(self, node: exp.DPipe) -> E:
        a, b = self.bind(node.this), self.bind(node.expression)
        ext = extops.bind_operator("||", a, b, self.params)  # hstore, tsvector, tsquery
        if ext is not None:
            return ext
        if T.JSONB in (a.type, b.type) and {a.type, b.type} <= {T.JSONB, T.UNKNOWN}:
            a, b = coerce(a, T.JSONB, params=self.params), coerce(b, T.JSONB, params=self.params)
            return self._call("jsonb_concat", [a, b], "?column?")
        if T.BYTEA in (a.type, b.type) and {a.type, b.type} <= {T.BYTEA, T.UNKNOWN}:  # byteacat
            a, b = coerce(a, T.BYTEA, params=self.params), coerce(b, T.BYTEA, params=self.params)
            return E("pyfunc", ("||", rt.bytea_cat, True), [a, b], T.BYTEA, -1, "?column?")
        if ty.is_array(a.type) and b.type == T.UNKNOWN:  # NB: anyarray || anyarray wins
            b = coerce(b, a.type, params=self.params)
        elif ty.is_array(b.type) and a.type == T.UNKNOWN:
            a = coerce(a, b.type, params=self.params)
        if ty.is_array(a.type) or ty.is_array(b.type):
            t = a.type if ty.is_array(a.type) else b.type
            # not strict: array_cat / array_append / array_prepend treat a NULL array as empty
            fn = (rt.array_cat_op if ty.is_array(a.type) and ty.is_array(b.type)
                  else rt.array_append_op if ty.is_array(a.type) else rt.array_prepend_op)
            return E("pyfunc", ("||", fn, False), [a, b], t, -1, "?column?")
        wrap = self._icu_input([node.this, node.expression], [a, b])
        a = self._to_text(a, keep_bpchar=False)
        b = self._to_text(b, keep_bpchar=False)
        cat = E("op", "||", [a, b], T.TEXT)
        return cat if wrap is None else E("pyfunc", ("collate", wrap, True), [cat], T.TEXT)

    def _to_text(self, e: E, keep_bpchar: bool = True) -> E:
        """A string operand; LIKE and regexes see char(n) with its padding, as in PostgreSQL."""
        if e.type in (T.TEXT, T.VARCHAR, T.NAME) or (keep_bpchar and e.type == T.BPCHAR):
            return e
        return coerce(e, T.TEXT, params=self.params)

    def _like(self, node: exp.Expression, ci: bool) -> E:
        a = self.bind(spread(node.this, node.expression))
        ci = ci or citextops.like_ci(a)  # citext's ~~ matches as ILIKE
        a = self._to_text(a)
        p = self._to_text(self.bind(spread(node.expression, node.this)))
        return E("like", (ci, bool(node.args.get("negate"))), [a, p], T.BOOL)

    def b_Like(self, node: exp.Like) -> E:
        return self._like(node, False)

    def b_ILike(self, node: exp.ILike) -> E:
        return self._like(node, True)

    def _regex(self, node: exp.Expression, ci: bool, negate: bool = False) -> E:
        a = self.bind(spread(node.this, node.expression))
        if a.type in hstore.OIDS:  # NB: hstore 1.8 dropped its ~ (contained)
            raise hstorerows.undefined(("!" if negate else "") + "~" + ("*" if ci else ""), a,
                                       self.bind(node.expression))
        ci = ci or citextops.like_ci(a)  # citext's ~ matches as ~*
        a = self._to_text(a)
        p = self._to_text(self.bind(spread(node.expression, node.this)))
        return E("regex", (ci, negate), [a, p], T.BOOL)

    def b_RegexpLike(self, node: exp.Expression) -> E:
        return self._regex(node, False)

    def b_RegexpILike(self, node: exp.Expression) -> E:
        return self._regex(node, True)

    def b_Operator(self, node: exp.Operator) -> E:
        op = str(node.args.get("operator")).split(".")[-1].strip()
        regex = {"~": (False, False), "~*": (True, False), "!~": (False, True),
                 "!~*": (True, True)}
        if op in regex:
            ci, neg = regex[op]
            return self._regex(node, ci, neg)
        if op in ("=", "<>", "<", "<=", ">", ">=", "!="):
            rhs = _quantifier(node.expression)
            cmp = "<>" if op == "!=" else op
            if isinstance(rhs, exp.Any | exp.All):  # pg_dump -t: OPERATOR(pg_catalog.=) ANY
                return self.quantified(cmp, node.this, rhs)
            return self.compare(cmp, self.bind(node.this), self.bind(node.expression))
        if op in ("+", "-", "*", "/", "%"):
            return self.arith(op, self.bind(node.this), self.bind(node.expression))
        if op == "~~":
            return E("like", (False, False), [self._to_text(self.bind(node.this)),
                                              self._to_text(self.bind(node.expression))], T.BOOL)
        if op in extops.GEO_NAMES:  # parse.py spells ~= <^ ?-| @-@ ... so (sql.geosyntax)
            left = None if isinstance(node.this, exp.Null) else self.bind(node.this)
            right = self.bind(node.expression)
            trgm = trgmops.bind(op, left, right, self.params)  # text <-> text, a %> b ...
            if trgm is not None:
                return trgm
            geo = extops.geo_operator(op, left, right, self.params)
            if geo is not None:
                return geo
        if op in ("<<=", ">>=", "<<", ">>", "&&", "-|-", "&<", "&>"):  # NB: parse.py spells <<= ... so
            a, b = self.bind(node.this), self.bind(node.expression)
            if involves_range(a, b):
                return range_op(op, a, b, self.params)
            raise UndefinedFunction(
                f"operator does not exist: {ty.type_name(a.type)} {op} {ty.type_name(b.type)}",
                hint="No operator matches the given name and argument types. "
                "You might need to add explicit type casts.")
        if op in hstorerows.NAMED_OPERATORS:  # parse.py spells them (sql.extsyntax)
            left = None if isinstance(node.this, exp.Null) else self.bind(node.this)
            return hstorerows.named_operator(op, left, self.bind(node.expression), self.params)
        raise FeatureNotSupported(f"operator {op} is not supported")

    def b_Dot(self, node: exp.Dot) -> E:
        """`schema.function(...)` or `(record).field`."""
        rhs = node.expression
        if isinstance(rhs, exp.Func):
            return self.bind(rhs)
        base = self.bind(node.this)
        fname = rhs.name
        if base.fields is None and usertypes.composite_fields(base.type) is not None:
            base.fields = usertypes.composite_fields(base.type)  # CREATE TYPE ... AS (...)
        if base.fields is None and base.kind == "row":  # (ROW(1, 2)).f1
            base.fields = tuple((f"f{i + 1}", a.type) for i, a in enumerate(base.args))
        if base.fields is None:
            if base.type == T.RECORD:
                raise UndefinedColumn(f'could not identify column "{fname}" in record data type')
            raise WrongObjectType(f"column notation .{fname} applied to type "
                                  f"{ty.type_name(base.type)}, which is not a composite type")
        names = [f for f, _ in base.fields]
        if fname not in names:
            raise UndefinedColumn(self._no_field(base, fname))
        i = names.index(fname)
        t = base.fields[i][1]
        if base.kind == "row" and len(base.args) == len(names) and base.args[i].kind == "col":
            return base.args[i]  # (t).a is the column t.a (PG: a Var, with its origin)
        if base.kind == "srf":
            return E("srf_field", (base.data, i), base.args, t, -1, fname)
        mod = usertypes.field_typmod(base.type, i)
        return E("pyfunc", (f".{fname}", lambda r, i=i: r[i], True), [base], t, mod, fname)

    def _no_field(self, base: E, fname: str) -> str:
        """PostgreSQL's 42703 text for a missing field of a composite value."""
        if base.kind == "row" and base.rowtype:  # (t).c on a table's whole row
            return f"column {base.name}.{fname} does not exist"
        named = (self.planner._row_type_name(base.rowtype) if base.rowtype else None) or (
            ty.type_name(base.type) if base.type != T.RECORD else None)
        if named is None:
            return f'could not identify column "{fname}" in record data type'
        return f'column "{fname}" not found in data type {named}'

    def b_ByteString(self, node: exp.Expression) -> E:
        if "\x00" in node.this:  # NB: E'\0' / E'\x00': text cannot hold NUL (PG: 22021)
            raise invalid_sequence(b"\x00", 0)
        return E("const", node.this, [], T.UNKNOWN)

    def b_RawString(self, node: exp.Expression) -> E:
        return E("const", node.this, [], T.UNKNOWN)

    def b_National(self, node: exp.Expression) -> E:
        return E("const", node.this, [], T.UNKNOWN)

    def b_Trim(self, node: exp.Trim) -> E:
        e = self.b_function(node)
        e.name = colnames.trim_name(node)
        return e

    def b_Collate(self, node: exp.Collate) -> E:
        e = self.bind(node.this)
        cat = self.planner.catalog
        check_collate(cat, node.expression, e.type)
        check_explicit_pair(cat, node)
        if icu_of(cat, collation_name(node.expression)) is None \
                and self._icu_input([node.this], [e]) is None:
            return e  # NB: code-point text stays as it is (and vectorizable)
        return collated(cat, node.expression, e)

    # -- casts ---------------------------------------------------------------------------------

    def b_Cast(self, node: exp.Cast) -> E:
        e = self._cast(node)
        dom = ty.domain_of(node.to)
        if dom is None:
            arr = ty.array_domain_of(node.to)
            if arr is None:
                return e
            if e.name == (T.TYPES[arr.subtype].name if arr.subtype in T.TYPES else ""):
                e.name = arr.name  # `'{1}'::d[]` is named d, as PostgreSQL names it
            return self.elements_checked(e, arr)
        if e.name in ("?column?", T.TYPES[e.type].name if e.type in T.TYPES else ""):
            e.name = dom.name  # `5::posint` is named posint, as PostgreSQL names it
        return self.domain_checked(e, dom)

    def b_AssignCast(self, node: AssignCast) -> E:
        inner = self.bind(node.this)
        try:
            target = ty.datatype_oid(node.to)[0]
        except UndefinedObject:  # a row type: row_cast judges
            target = inner.type
        if inner.type not in (T.UNKNOWN, 0) and not assignable(inner.type, target):
            raise assignment_mismatch(node.args["column"], inner.type,
                                      node.args.get("shown") or target)
        saved = self.scope.repl
        self.scope.repl = {**(saved or {}), node.this: inner}  # NB: bound once
        try:
            return self.b_Cast(node)
        finally:
            self.scope.repl = saved

    def _column_domain(self, node: exp.Expression) -> Any:
        """The domain a table column `node` is declared with (pg_typeof names it), else None."""
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return None
        look = self.scope.group_from or self.scope
        idx = look.find(node.name, node.table or None)
        c = look.cols[idx] if idx is not None else None
        if c is None or not c.table_oid:
            return None
        tab = next((t for t in self.planner.catalog.tables if t.oid == c.table_oid), None)
        col = next((x for x in tab.columns if x.attnum == c.attnum), None) if tab else None
        return usertypes.by_oid(col.domain) if col is not None and col.domain else None

    def _arg_domain(self, raw: exp.Expression, bound: E) -> int:
        """The domain an argument is typed as (`5::d`, a column declared d), else 0: a call
        chooses between `f(int)` and `f(d)` by it, as PostgreSQL does."""
        dom = ty.domain_of(raw.to) if isinstance(raw, exp.Cast) else \
            self._column_domain(raw) if bound.kind == "col" else None
        return dom.oid if dom is not None else 0

    def _icu_input(self, raw: list[exp.Expression], bound: list[E]) -> Any:
        """The value wrapper of the first argument with an ICU collation (a table column's
        or a COLLATE clause's), which a text result inherits as in PostgreSQL; else None."""
        cat = self.planner.catalog
        for node, e in zip(raw, bound, strict=False):
            if e.kind == "pyfunc" and e.data[0] == "collate":
                return e.data[1] if e.data[1] is not collated_plain else None
            if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star) \
                    and e.kind == "col":
                look = self.scope.group_from or self.scope
                idx = look.find(node.name, node.table or None)
                c = look.cols[idx] if idx is not None else None
                if c is None or not c.table_oid or cat is None:  # NB: None: a key's type
                    continue
                tab = cat.table_by_oid(c.table_oid)
                col = next((x for x in tab.columns if x.attnum == c.attnum), None) \
                    if tab is not None else None
                if col is not None and col.collation and icu_of(cat, col.collation):
                    return value_wrapper(cat, col.collation)
        return None

    def _bind_sql(self, text: str) -> E:
        """An expression's SQL text (a routine parameter's DEFAULT), bound here."""
        return self.bind(sqlglot.parse_one(text, read="postgres"))

    def _domain_oid_checked(self, e: E, oid: int) -> E:
        """`e` checked against the domain of OID `oid` (a user function's parameter)."""
        dom = usertypes.by_oid(oid)
        return self.domain_checked(e, dom) if dom is not None else e

    def domain_checked(self, e: E, dom: Any) -> E:
        """`e` (already of the domain's base type) checked against the domain's NOT NULL and
        CHECKs: each CHECK is bound with VALUE standing for `e` (domaincheck.checked)."""
        dom = domaincheck.flattened(dom, usertypes.by_oid)
        if not dom.not_null and not dom.checks:
            return e
        value = exp.column(domaincheck.VALUE)
        saved = self.scope.repl
        self.scope.repl = {**(saved or {}), value: e}
        try:
            checks = [self.bind(domaincheck.parse_check(text)) for text in dom.checks]
        finally:
            self.scope.repl = saved
        impl = partial(domaincheck.checked, dom.name, dom.not_null, dom.check_names)
        return E("pyfunc", ("domain", impl, False), [e, *checks], e.type, e.typmod, e.name)

    def elements_checked(self, e: E, dom: Any) -> E:
        """`e` (an array of the domain's base type) with each element checked against the
        domain, typed `d[]` on the wire as PostgreSQL types it (`ARRAY[1]::d[]`)."""
        flat = domaincheck.flattened(dom, usertypes.by_oid)
        out = E(e.kind, e.data, e.args, e.type, e.typmod, e.name, e.fields, dom.array_oid)
        if not flat.not_null and not flat.checks:
            return out
        value = exp.column(domaincheck.VALUE)
        saved = self.scope.repl
        self.scope.repl = {**(saved or {}), value: E("col", 0, [], dom.subtype, dom.typmod)}
        try:  # NB: each CHECK over a row of one field, the element
            fns = tuple(cg.row_function(self.bind(domaincheck.parse_check(text)))
                        for text in flat.checks)
        finally:
            self.scope.repl = saved
        impl = partial(domaincheck.elements_checked, flat.name, flat.not_null,
                       flat.check_names, fns)
        return E("pyfunc", ("domain", impl, False), [E("ctxfn", None, [], T.UNKNOWN), out],
                 e.type, e.typmod, e.name, None, dom.array_oid)

    @staticmethod
    def _polymorphic_cast(inner: E, target: int, name: str) -> E:
        """`x::anyarray` and the like relabel nothing, as PostgreSQL's coerce_type: the value
        keeps its own type (`'{1}'::int[]::anyarray` is int4[] on the wire), if it is one the
        pseudo-type stands for (42846 else)."""
        arrays = _POLYMORPHIC[target]
        if arrays is not None and ty.is_array(inner.type) != arrays:
            raise CannotCoerce(f"cannot cast type {ty.type_name(inner.type)} to "
                               f"{ty.type_name(target)}")
        return E("cast", None, [inner], inner.type, inner.typmod, name)

    def _cast(self, node: exp.Cast) -> E:
        try:
            target, typmod = ty.datatype_oid(node.to)
        except UndefinedObject:
            table = self._row_type_table(node.to)
            if table is None:
                array_of = self._row_array_table(node.to)
                if array_of is None:
                    raise
                inner = self.bind(node.this)
                return row_array_cast(inner, array_of, array_of.name)
            inner = self.bind(node.this)
            strong = colnames.strength(node) > 1 and inner.name != "?column?"
            return row_cast(inner, table, inner.name if strong else table.name)
        inner = self.bind(node.this)
        strong = colnames.strength(node) > 1 and inner.name != "?column?"  # FigureColname
        shown = T.ELEMENT_OF.get(target, target) if target not in (T.INT2VECTOR, T.OIDVECTOR) \
            else target  # `x::int2[]` is named int2, as PostgreSQL names it
        user = usertypes.by_oid(shown)  # 'a=>1'::hstore, 'x'::mood: named after the type too
        name = inner.name if strong else T.TYPES[shown].name if shown in T.TYPES else \
            user.name if user is not None else "?column?"
        if target in _POLYMORPHIC and inner.type not in (T.UNKNOWN, 0):
            return self._polymorphic_cast(inner, target, name)
        if target in _POLYMORPHIC and inner.kind == "const":  # NB: 'x'::anyelement is text
            if _POLYMORPHIC[target]:  # anyarray_in
                raise FeatureNotSupported(f"cannot accept a value of type {ty.type_name(target)}")
            return self._polymorphic_cast(coerce(inner, T.TEXT, params=self.params), target, name)
        if T.ELEMENT_OF.get(target) in REG_TYPES:  # '{pg_class}'::regclass[], oids::regtype[]
            e = coerce(inner, target, params=self.params, explicit=True)
            e.name = name
            return e
        if target in (T.REGCLASS, T.REGTYPE, T.REGNAMESPACE, T.REGPROC, T.REGROLE, T.REGPROCEDURE,
                      T.REGCONFIG, T.REGOPER, T.REGOPERATOR, T.REGCOLLATION):
            e = self.planner.reg_cast(inner, target)
            e.name = name
            return e
        if target in (T.VARCHAR, T.BPCHAR) and typmod > 4:  # explicit: truncates, never fails
            e = coerce(inner, target, params=self.params, explicit=True)
            return E("pyfunc", ("cast", _truncate(typmod - 4, target == T.BPCHAR), True), [e],
                     target, typmod, name)
        if T.ELEMENT_OF.get(target) in (T.VARCHAR, T.BPCHAR) and typmod > 4:  # each truncated

            e = coerce(inner, target, params=self.params, explicit=True)
            trunc = each_element(_truncate(typmod - 4, T.ELEMENT_OF[target] == T.BPCHAR))
            return E("pyfunc", ("cast", trunc, True), [e], target, typmod, name)
        if inner.type == T.UNKNOWN and inner.kind == "const" and inner.data is not None:
            e = coerce(inner, target, typmod, params=self.params, explicit=True)
            e.name = name
            return e
        if (inner.type, target) in geometry.CASTS:  # box::point is point(box), as pg_cast
            return self._call(T.TYPES[target].name, [inner], name)
        if inner.type == target and typmod < 0:
            return E("cast", None, [inner], target, inner.typmod, name)
        if not self.folding and inner.kind == "const" and inner.type not in (T.UNKNOWN,
                                                                             T.RECORD):
            fn = cast_function(inner.type, target, typmod)  # NB: what PG's planner skips
            if fn is not None:  # (after a constant false in AND) converts only if it runs
                return E("cast", fn, [inner], target, typmod, name)
        e = coerce(inner, target, typmod, params=self.params, explicit=True)
        if e is inner:
            e = E("cast", None, [inner], target, typmod, name)
        e.name = name
        return e

    b_TryCast = b_Cast

    def _row_array_table(self, to: exp.Expression) -> Any:
        """The table whose row type's array a cast names (`'{"(3,4)"}'::t[]`), else None."""
        if not isinstance(to, exp.DataType) or to.this != exp.DataType.Type.ARRAY or \
                len(to.expressions) != 1:
            return None
        table = self._row_type_table(to.expressions[0])
        return table if table is not None and table.array_type else None

    def _row_type_table(self, to: exp.Expression) -> Any:
        """The table whose row type a cast's unknown type name names (`'(3,4)'::t`), else None."""
        kind = to.args.get("kind") if isinstance(to, exp.DataType) else None
        if not isinstance(kind, exp.Identifier) or to.expressions:
            return None
        name = kind.name if kind.quoted else kind.name.lower()
        return next((t for t in self.planner.catalog.tables if t.name == name and t.reltype
                     and t.kind == "r"), None)

    def b_Interval(self, node: exp.Interval) -> E:
        text = node.this.name if isinstance(node.this, exp.Literal) else node.this.sql()
        unit = node.args.get("unit")
        span = (f"{unit.this.name} TO {unit.expression.name}"
                if isinstance(unit, exp.IntervalSpan) else unit.name if unit is not None else "")
        # NB: INTERVAL '1-2' YEAR TO MONTH is a typmod: a bare number counts the last unit, and
        # the fields below the range are dropped, as interval_in does
        mod = interval_typmod(INTERVAL_RANGES[span.upper()]) if span.upper() in INTERVAL_RANGES \
            else -1
        return E("const", parse_interval(text, mod), [], T.INTERVAL, -1, "interval")

    # -- conditional and constructors -----------------------------------------------------------

    def b_Case(self, node: exp.Case) -> E:
        subject = node.this
        conds, results = [], []
        settled = False  # NB: after a constant true condition, nothing more is simplified
        for w in node.args.get("ifs") or []:
            if subject is not None:
                conds.append(self.compare("=", self.bind(subject), self.bind(w.this)))
            else:
                conds.append(self.bind_unfolded(w.this, settled, "CASE/WHEN"))
            c = conds[-1]
            dead = settled or (c.kind == "const" and c.data is not True)
            results.append(self.bind_unfolded(w.args["true"], dead))
            settled = settled or (c.kind == "const" and c.data is True)
        default = node.args.get("default")
        if default is not None:
            results.append(self.bind_unfolded(default, settled))
        order = [results[-1], *results[:-1]] if default is not None else results  # NB: PG's
        t = select_common_type([r.type for r in order], "CASE")  # order: ELSE first
        raw = [w.args["true"] for w in node.args.get("ifs") or []] + (
            [default] if default is not None else [])
        wrap = self._icu_input(raw, results) if t in COLLATABLE else None  # an ICU result's
        results = [coerce(r, t, params=self.params) for r in results]
        args: list[E] = []
        for c, r in zip(conds, results, strict=False):
            args += [c, r]
        if default is not None:
            args.append(results[-1])
        name = results[-1].name if default is not None and colnames.strength(default) > 1 \
            and results[-1].name != "?column?" else "case"  # ELSE a names it a (FigureColname)
        out = E("case", default is not None, args, t, -1, name, *_one_row_type(results))
        return out if wrap is None else E("pyfunc", ("collate", wrap, True), [out], t, -1, name)

    def _variadic(self, kind: str, nodes: list[exp.Expression], name: str) -> E:
        args = [self.bind(n) for n in nodes]
        t = select_common_type([a.type for a in args], kind.upper())
        wrap = self._icu_input(nodes, args) if t in COLLATABLE else None  # an ICU input's
        args = [coerce(a, t, params=self.params) for a in args]
        out = E(kind, None, args, t, -1, name, *_one_row_type(args))
        return out if wrap is None else E("pyfunc", ("collate", wrap, True), [out], t, -1, name)

    def b_Coalesce(self, node: exp.Coalesce) -> E:
        return self._variadic("coalesce", [node.this, *node.expressions], "coalesce")

    def b_Greatest(self, node: exp.Greatest) -> E:
        return self._variadic("greatest", [node.this, *node.expressions], "greatest")

    def b_Least(self, node: exp.Least) -> E:
        return self._variadic("least", [node.this, *node.expressions], "least")

    def b_Nullif(self, node: exp.Nullif) -> E:
        a, b = self.unify(self.bind(node.this), self.bind(node.expression))
        return E("nullif", None, [a, b], a.type, -1, "nullif")

    def b_Array(self, node: exp.Array) -> E:
        if len(node.expressions) == 1 and isinstance(node.expressions[0], exp.Select | exp.Subquery):
            q = node.expressions[0]
            plan = self.subplan(q.this if isinstance(q, exp.Subquery) else q)
            t = plan.cols[0].type  # NB: ARRAY(SELECT of int[]) is an int[] of one more dimension
            t = t if t in T.ELEMENT_OF else T.ARRAY_OF.get(t, T.ANYARRAY)
            return E("array_sub", plan, [], t, -1, "array")
        args = [self.bind(x) for x in node.expressions]
        elem = select_common_type([a.type for a in args], "ARRAY") if args else T.TEXT
        args = [coerce(a, elem, params=self.params) for a in args]
        if args and ty.is_array(elem):
            return E("pyfunc", ("array", rt.nest_arrays, False), args, elem, -1, "array")
        return E("array", None, args, T.ARRAY_OF.get(elem, T.ANYARRAY), -1, "array", None,
                 wholerow.array_rowtype(args) if elem == T.RECORD else 0)  # ARRAY[t]: t[]

    def b_Tuple(self, node: exp.Tuple) -> E:
        args = [self.bind(x) for x in node.expressions]
        return wholerow.row_of(args)

    def b_Struct(self, node: exp.Expression) -> E:
        args = [self.bind(x) for x in node.expressions]
        return wholerow.row_of(args)

    def b_Bracket(self, node: exp.Bracket) -> E:
        chain = [node]  # NB: a[1][2] is one subscript of a two-dimensional array, as in PG
        while isinstance(chain[-1].this, exp.Bracket):
            chain.append(chain[-1].this)
        arr = self.bind(chain[-1].this)
        if not ty.is_array(arr.type) and arr.type not in (T.INT2VECTOR, T.OIDVECTOR):
            chain = [node]
            arr = self.bind(node.this)
            if arr.type in hstore.OIDS and not isinstance(node.expressions[0], exp.Slice):
                e = extops.hstore_op("->", arr, self.bind(node.expressions[0]), self.params)
                e.name = arr.name  # h['k'] (hstore subscripting): the value of key k
                return e
            if arr.type == T.JSONB:
                return self._jsonb_step(node, arr)
        subs: list[tuple[E, E] | E] = []
        for b in reversed(chain):
            idx_node = b.expressions[0]
            offset = b.args.get("offset") or 0
            if not _sqlglot_shifted(b):
                offset = 1  # the literal still holds the 1-based subscript as written
            if isinstance(idx_node, exp.Slice):  # NB: sqlglot leaves slice bounds 1-based
                subs.append((self._subscript(idx_node.this, 1, 1),
                             self._subscript(idx_node.expression, 1, 2**31 - 1)))
            else:
                subs.append(self._subscript(idx_node, offset, None))
        elem = T.ELEMENT_OF.get(arr.type, T.UNKNOWN)
        if arr.type == T.NAME and len(subs) == 1 and isinstance(subs[0], E):
            return E("pyfunc", ("name_subscript", rt.name_subscript, True),
                     [arr, subs[0]], T.CHAR, -1, arr.name)  # pg_dump's `typname[0] = '_'`
        if arr.type in (T.INT2VECTOR, T.OIDVECTOR):
            elem = T.INT2 if arr.type == T.INT2VECTOR else T.OID
            if len(subs) == 1 and isinstance(subs[0], E):  # NB: their subscripts start at 0
                return E("pyfunc", ("vector_subscript", rt.vector_subscript, True),
                         [arr, subs[0]], elem, -1, arr.name)
        if any(isinstance(x, tuple) for x in subs):  # a slice: a[1:2], a[2][1:1] ...
            bounds = [x if isinstance(x, tuple) else (const(1, T.INT4), x) for x in subs]
            flat = [v for lo_hi in bounds for v in lo_hi]
            return E("pyfunc", ("array_slice", rt.array_slice, False), [arr, *flat], arr.type,
                     -1, arr.name, None, arr.rowtype)  # NB: a slice of a d[] is a d[]
        return E("subscript", None, [arr, *subs], elem, -1, arr.name, None,  # type: ignore[list-item]
                 wholerow.element_rowtype(arr.rowtype))

    def _jsonb_step(self, node: exp.Bracket, base: E) -> E:
        """One jsonb subscript, as written (sqlglot made an integer literal 0-based)."""
        idx_node = node.expressions[0]
        if isinstance(idx_node, exp.Slice):
            raise DatatypeMismatch("jsonb subscript does not support slices")
        idx = self.bind(idx_node)
        if idx.kind == "const" and isinstance(idx.data, int) and _sqlglot_shifted(node):
            idx = const(idx.data + 1, idx.type)
        return self.jsonb_subscript(base, idx)

    def _subscript(self, node: exp.Expression | None, offset: int, missing: int | None) -> E:
        """Binds one array subscript (1-based); `missing` stands in for an omitted slice bound."""
        if node is None:
            return const(missing, T.INT4)
        idx = self.bind(node)
        if idx.kind == "const" and isinstance(idx.data, int) and offset == 0:
            idx = const(idx.data + 1, T.INT4)
        return coerce(idx, T.INT4, params=self.params)

    # -- datetime niladics ----------------------------------------------------------------------

    def _niladic(self, node: exp.Expression, name: str, fn: Any, t: int) -> E:
        """current_timestamp & co.: the transaction's start, rounded to `(p)` digits if given."""
        e = E("pyfunc", (name, fn, True), [E("ctxfn", None, [], T.UNKNOWN)], t, -1, name)
        p = node.args.get("this")
        if isinstance(p, exp.Literal) and not p.is_string:
            prec = max(0, min(6, int(p.this)))
            e = E("cast", cast_function(t, t, prec), [e], t, prec, name)
        return e

    def b_CurrentTimestamp(self, node: exp.Expression) -> E:
        e = self._niladic(node, "current_timestamp", lambda c: c.statement_timestamp,
                          T.TIMESTAMPTZ)
        if node.meta and not node.args.get("this"):  # now(), not CURRENT_TIMESTAMP
            e.name = "now"
        return e

    def b_CurrentDate(self, node: exp.Expression) -> E:
        return self._niladic(node, "current_date", lambda c: _local(c.statement_timestamp).date(),
                             T.DATE)

    def b_CurrentTime(self, node: exp.Expression) -> E:
        return self._niladic(node, "current_time", lambda c: tstz_to_timetz(c.statement_timestamp),
                             T.TIMETZ)

    def b_Localtimestamp(self, node: exp.Expression) -> E:
        return self._niladic(node, "localtimestamp", lambda c: tstz_to_local(c.statement_timestamp),
                             T.TIMESTAMP)

    def b_Localtime(self, node: exp.Expression) -> E:
        return self._niladic(node, "localtime", lambda c: _local(c.statement_timestamp).time(),
                             T.TIME)

    # -- function calls ------------------------------------------------------------------------

    def b_Anonymous(self, node: exp.Anonymous) -> E:
        return self.b_function(node)

    def b_Window(self, node: exp.Window) -> E:
        raise WindowingError("window functions are not allowed here")

    def b_Filter(self, node: exp.Filter) -> E:
        raise GroupingError("aggregate functions are not allowed here")

    def b_WithinGroup(self, node: exp.WithinGroup) -> E:  # an ordered-set aggregate: 42803
        return self.b_function(node)

    def b_function(self, node: exp.Expr) -> E:
        """Binds a function call through the registry."""
        name = func_name(node)
        if "." in name:
            name = name.rsplit(".", 1)[-1]
        if is_aggregate(node) or name in AGG_NAMES:
            where = self.scope.aggregates_allowed or "this context"
            raise GroupingError(f"aggregate functions are not allowed in {where}")
        if name in WINDOW_ONLY:
            raise WindowingError(f"window function {name} requires an OVER clause")
        raw = func_args(node)
        if name in XML_FORMS:  # XMLFOREST(x AS n), XMLPARSE(DOCUMENT x) ... (sql.xmlsyntax)
            return self.xml_form(name, raw)
        if name not in FUNCTIONS and any(isinstance(a, namedargs.NAMED) for a in raw):
            declared = user_parameters(self.planner.catalog, name)  # CREATE FUNCTION's
            if declared is not None:
                raw = namedargs.arrange(name, raw, lambda a: ty.type_name(self.bind(a).type),
                                        declared)
        if namedargs.needs_arranging(name, raw):
            raw = namedargs.arrange(name, raw, lambda a: ty.type_name(self.bind(a).type))
        args = [self.bind(a) for a in raw]
        if name == "pg_typeof" and len(args) == 1:  # the static type, as PostgreSQL folds it
            oid = args[0].rowtype or args[0].type
            shown = next((t.name if t.reltype == oid else t.name + "[]"
                          for t in self.planner.catalog.tables if oid in (t.reltype, t.array_type)),
                         None) if args[0].rowtype else None  # a table's row type: its name
            dom = ty.domain_of(raw[0].to) if isinstance(raw[0], exp.Cast) else \
                self._column_domain(raw[0]) if args[0].kind == "col" else None
            if args[0].kind == "subscript" and args[0].args[0].rowtype in T.ELEMENT_OF:
                dom = usertypes.by_oid(T.ELEMENT_OF[args[0].args[0].rowtype])  # d[]'s element
            if dom is not None:  # `pg_typeof(5::posint)` names the domain
                oid, shown = dom.oid, dom.name
            return E("const", RegOid(oid, shown or format_type(oid, None) or str(oid)), [],
                     T.REGTYPE, -1, "pg_typeof")
        if name in wholerow.JSON_OF_ROW and len(args) == 1 and args[0].kind == "row":
            obj = wholerow.JSON_OF_ROW[name]
            if obj == "json_build_object":  # row_to_json's own spacing
                return wholerow.row_as_json(args[0], self.params, name=name)
            fd, jargs = resolve(obj, wholerow.json_object_args(args[0]), self.params)
            return wholerow.outer_null(args[0], E("call", fd, jargs, return_type(fd, jargs), -1,
                                                  name))
        if name in wholerow.JSON_OF_ROW and len(args) == 1 and args[0].type == T.RECORD:
            return wholerow.record_as_json(args[0], name == "to_jsonb", name)
        if name in wholerow.JSON_EMBEDDERS:  # a record argument embeds as its JSON object
            args = [wholerow.embedded_json(a, self.params, name.startswith("jsonb")) for a in args]
        if name == "row":  # ROW(...): a record that knows its fields' types
            return wholerow.row_of(args)
        if name in hstorerows.ROW_FUNCTIONS:  # hstore(record), populate_record(r, h)
            call = hstorerows.row_function(name, args, self.params)
            if call is not None:
                return call
        if name in jsonrows.ROW_FUNCTIONS:  # json(b)_populate_record(r, j)
            call = jsonrows.row_function(name, args, self.params)
            if call is not None:
                return call
        if name in usertypes.ENUM_FUNCTIONS:
            call = userexprs.enum_function(name, args)
            if call is not None:
                return call
        if name in citextops.OVERLOADED:  # strpos(citext, ...): case-insensitive
            ci = citextops.function_call(name, args, self.params)
            if isinstance(ci, E):
                return ci
            if ci is not None:
                args = ci[1]
        if name not in FUNCTIONS:  # CREATE FUNCTION's, from the catalog
            udf = bind_user_function(self.planner.catalog, name, args, self.params,
                                     self._domain_oid_checked, self._bind_sql,
                                     [self._arg_domain(r, a) for r, a in zip(raw, args,
                                                                            strict=True)])
            if udf is not None:
                return udf
        given = args
        fd, args = resolve(name, args, self.params)
        t = return_type(fd, args)
        if fd.set_returning:
            fields = fd.out_columns if fd.out_columns else None
            return E("srf", fd, args, T.RECORD if fields else t, -1, name, fields)
        call = E("call", fd, args, t, -1, name)
        wrap = self._icu_input(raw, given) if t in COLLATABLE else None
        if wrap is not None:  # `lower(name)` keeps name's ICU collation (ORDER BY, =, ...)
            return E("pyfunc", ("collate", wrap, True), [call], t, -1, name)
        return call


def _record_null(v: Any) -> bool:
    """`composite IS NULL`: the value is NULL or every field is, as the SQL standard says."""
    return v is None or all(x is None for x in v)


def _record_not_null(v: Any) -> bool:
    """`composite IS NOT NULL`: no field is NULL (so `(1, NULL)` is neither)."""
    return v is not None and all(x is not None for x in v)


def _truncate(n: int, pad: bool) -> Any:
    if pad:
        return lambda v: v[:n].ljust(n)
    return lambda v: v[:n]


def _local(ts: dt.datetime) -> dt.datetime:
    """The transaction's start on the session zone's clocks (current_date, localtimestamp)."""
    return ts.astimezone(zones.session_zone())


def _check_operator(op: str, a: E, b: E) -> None:
    """42883 for a comparison between types that have no such operator (`varchar = int`;
    xml and the snapshot types have none at all)."""
    if {a.type, b.type} & {T.XML, T.TXID_SNAPSHOT, T.PG_SNAPSHOT} or (
            not ty.comparable(a.type, b.type)
            and not (ty.is_numeric(a.type) and ty.is_numeric(b.type))):
        raise UndefinedFunction(
            f"operator does not exist: {ty.type_name(a.type)} {op} {ty.type_name(b.type)}",
            hint="No operator matches the given name and argument types. "
            "You might need to add explicit type casts.",
        )


def _integer_literal(node: exp.Expression) -> bool:
    """An integer literal, under any number of signs and parentheses (`-(-5)`): the constant
    PostgreSQL's grammar folds each prefix minus into (doNegate)."""
    while isinstance(node, exp.Neg | exp.Paren):
        node = node.this
    return isinstance(node, exp.Literal) and node.is_number and node.name.isdigit()


def _int_literal(v: int) -> E:
    """An integer constant typed as make_const types a literal: int4, int8, else numeric.

    >>> [(e.data, e.type) for e in (_int_literal(2147483648), _int_literal(-2**63), _int_literal(2**63))]
    [(2147483648, 20), (-9223372036854775808, 20), (Decimal('9223372036854775808'), 1700)]
    """
    if -(2**31) <= v < 2**31:
        return const(v, T.INT4)
    if -(2**63) <= v < 2**63:
        return const(v, T.INT8)
    return const(Decimal(v), T.NUMERIC)


def _quantifier(rhs: exp.Expression) -> exp.Expression:
    """A comparison's right side with `ALL (...)`, which sqlglot reads as a call, as ALL."""
    if isinstance(rhs, exp.Anonymous) and rhs.name.lower() == "all" and len(rhs.expressions) == 1:
        return exp.All(this=rhs.expressions[0])
    return rhs
