"""Compiling the value expressions of INSERT/UPDATE (and column defaults) into callables.

Most values in OLTP writes are literals, parameters and `DEFAULT`s, so those
are compiled here directly into constants or parameter lookups, converted to
the target column's type once (assignment casts); anything else goes through
the query compiler's `compile_scalar` with the column's type as the expected
type (which also drives parameter type inference: `SET abalance = abalance +
$1` makes $1 an int4).

Every compiled value is `fn(row, ctx) -> value` where `row` is the scope row
(the old row for UPDATE, empty for INSERT ... VALUES).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import UndefinedTable
from ...pgtypes import oids as T
from ..catalog.model import Column, Table
from ..context import ParamTypes, ScopeColumn
from ..ddl.names import find_sequence, parse_qualified
from ..expr.casts import cast_function
from ..expr.commontype import assignable, assignment_mismatch
from ..expr.constfold import refuse_literal_parameter
from ..expr.regarrays import REG_PARAMS, REG_TYPES, reg_resolver
from ..expr.types import datatype_oid
from ..parse import parse_sql
from ..plan.compiler import COMPILER

if TYPE_CHECKING:
    from ..session import SQLSession

ValueFn = Callable[[Any, Any], Any]  # (row, ctx): the row is None in INSERT ... VALUES
_UNSET = object()


def table_scope(table: Table, qualifier: str | None = None) -> list[ScopeColumn]:
    """Describes a stored row of `table` (one slot per attnum, dropped ones included)."""
    q = qualifier or table.name
    # NB: a partition may stand for the partitioned table the statement names (ON CONFLICT
    # runs per leaf), whose name it does not have: it names no table for the binder's hint
    oid = 0 if table.partof else table.oid
    return [ScopeColumn(q, c.name if not c.dropped else f"........pg.dropped.{c.attnum}........",
                        c.type_oid, c.typmod, oid, c.attnum if oid else 0) for c in table.columns]


def literal_value(node: exp.Expression) -> tuple[Any, int]:
    """Returns (value, type oid) of a constant node, or (_UNSET, 0) if it is not one."""
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this, T.UNKNOWN
        text = node.this
        try:
            v = int(text)
            return v, T.INT4 if -(2**31) <= v < 2**31 else (T.INT8 if -(2**63) <= v < 2**63
                                                             else T.NUMERIC)
        except ValueError:
            return Decimal(text), T.NUMERIC
    if isinstance(node, exp.Null):
        return None, T.UNKNOWN
    if isinstance(node, exp.Boolean):
        return bool(node.this), T.BOOL
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        v, t = literal_value(node.this)
        return -v, t
    return _UNSET, 0


def reg_target(type_oid: int) -> bool:
    """Whether a column is a reg* type or array: a quoted name assigned to it is looked up
    in the catalog at run time (`'pg_class'` -> its OID, as regclassin), not read as text."""
    return type_oid in REG_TYPES or T.ELEMENT_OF.get(type_oid, 0) in REG_TYPES


def _assign(src: int, col: Column) -> Callable[[Any], Any] | None:
    """The assignment cast of a `src` value into `col`; only pg_cast's implicit and
    assignment casts qualify (`'a'::text` into an xml or integer column is 42804)."""
    if src == col.type_oid:
        return None
    if not assignable(src, col.type_oid):
        raise assignment_mismatch(col.name, src, col.domain or col.type_oid)
    try:
        return cast_function(src, col.type_oid)
    except Exception:
        raise assignment_mismatch(col.name, src, col.domain or col.type_oid) from None


def compile_value(s: SQLSession, node: exp.Expression, col: Column, scope: list[ScopeColumn],
                  params: ParamTypes) -> ValueFn:
    """Compiles one value for column `col` into `fn(row, ctx)`."""
    v, t = literal_value(node)
    if v is not _UNSET and not (t == T.UNKNOWN and v is not None and reg_target(col.type_oid)):
        if v is None:
            return lambda row, ctx: None
        if col.type_oid in REG_PARAMS and isinstance(v, int):  # 1259 into regclass: labelled
            label = reg_resolver(col.type_oid)
            return lambda row, ctx: label(ctx.functions, v)
        conv = _assign(t, col)
        const = conv(v) if conv else v
        return lambda row, ctx: const
    if isinstance(node, exp.Parameter | exp.Placeholder):
        n = int(node.this.name if isinstance(node.this, exp.Expression) else node.name or 0)
        if n:
            if reg_target(col.type_oid):
                refuse_literal_parameter()  # NB: `'pg_class'` there is a name, not digits
            if n in params.settled:  # made text by an earlier expression's compile, not
                params.settled.remove(n)  # by the client: the column types it, as in PG
                params.oids[n - 1] = 0
            params.infer(n, col.type_oid)
            ptype = params.get(n)
            i = n - 1
            if col.type_oid in REG_PARAMS and ptype in (col.type_oid, T.TEXT):
                resolve = reg_resolver(col.type_oid)  # a bound name: looked up (NB: $1 is
                # typed text when a literal name in the same VALUES refused a shared plan)
                return lambda row, ctx: resolve(ctx.functions, ctx.params[i])
            pconv = _assign(ptype, col) if ptype not in (0, T.UNKNOWN) else None
            if pconv is None:
                return lambda row, ctx: ctx.params[i]
            return lambda row, ctx: None if ctx.params[i] is None else pconv(ctx.params[i])
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) \
            and not reg_target(datatype_oid(node.args["to"])[0]):  # NB: 'pg_class'::regclass

        oid, typmod = datatype_oid(node.args["to"])
        v, t = literal_value(node.this)
        f = cast_function(t, oid, typmod)
        val = f(v) if f else v
        conv = _assign(oid, col)
        const = conv(val) if conv else val
        return lambda row, ctx: const
    if isinstance(node, exp.CurrentTimestamp) or (
            isinstance(node, exp.Anonymous) and node.name.lower() == "now" and not node.expressions):
        tconv = _assign(T.TIMESTAMPTZ, col)
        if tconv is None:
            return lambda row, ctx: ctx.functions.statement_timestamp
        return lambda row, ctx: tconv(ctx.functions.statement_timestamp)
    seq = nextval_target(node)
    if seq is not None:
        return _nextval_fn(s, seq, col)

    c = COMPILER.compile_scalar(node, scope, s.catalog(), params, s.search_path(), col.type_oid,
                                col.name)
    conv = _assign(c.type_oid, col) if c.type_oid not in (T.UNKNOWN, 0) else None
    fn = c.fn
    if conv is None:
        return fn
    return lambda row, ctx: _apply(conv, fn(row, ctx))


def _apply(conv: Callable[[Any], Any], v: Any) -> Any:
    return None if v is None else conv(v)


def nextval_target(node: exp.Expression) -> str | None:
    """The sequence name of `nextval('name')` (a serial column's default), else None."""
    if isinstance(node, exp.Anonymous) and node.name.lower() == "nextval" and len(
            node.expressions) == 1:
        arg = node.expressions[0]
        if isinstance(arg, exp.Cast):
            arg = arg.this
        if isinstance(arg, exp.Literal) and arg.is_string:
            return arg.this
    return None


def _nextval_fn(s: SQLSession, name: str, col: Column) -> ValueFn:

    schema, nm = parse_qualified(name)
    seq = find_sequence(s.catalog(), schema, nm, s.search_path())
    if seq is None:
        raise UndefinedTable(f'relation "{name}" does not exist')
    oid = seq.oid
    return lambda row, ctx: ctx.functions.nextval(oid)


def compile_default(s: SQLSession, col: Column, table: Table) -> ValueFn:
    """Compiles a column's DEFAULT (NULL if none; identity columns use their sequence)."""
    if col.identity:
        seq = next((q for q in s.catalog().sequences
                    if q.owned_by == (table.oid, col.attnum)), None)
        if seq is not None:
            oid = seq.oid
            return lambda row, ctx: ctx.functions.nextval(oid)
    if col.default is None:
        return lambda row, ctx: None

    tree = parse_sql(f"SELECT {col.default}").expressions[0]
    return compile_value(s, tree, col, [], ParamTypes())
