"""The key of a secondary index: its columns' values, or the values of its key expressions.

An index on `(lower(name), id)` stores `columns = (0, 1)` and `exprs =
("LOWER(name)",)`, PostgreSQL's layout (a 0 in indkey is the next entry of
indexprs). Whatever writes index entries (INSERT, UPDATE, DELETE, CREATE
INDEX) asks `key_function` for a function row -> key tuple, compiled once
per writer: plain indexes pick columns, expression indexes evaluate
compiled expressions, batch by batch, with no per-row parsing.

`expr_display` prints a key expression the way `pg_get_indexdef` and the
23505 DETAIL do (`lower(name)`, `(a + b)`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from ...errors import SQLError
from ...pgtypes import oids as T
from ..catalog.model import Index, Table
from ..context import ParamTypes
from ..dml.values import table_scope
from ..expr import colnames
from ..expr.binder import Binder, Scope, func_name
from ..expr.types import datatype_oid
from ..functions import FUNCTIONS, FunctionDef  # NB: the package: every function registered
from ..parse import parse_sql
from ..pgcatalog.checktext import check_text
from ..pgcatalog.names import quote_ident
from ..pgcatalog.procfacts import PROC_FACTS
from ..plan import nodes as N
from ..plan.builder import Planner
from ..plan.compiler import COMPILER
from .names import ident

if TYPE_CHECKING:
    from ..session import SQLSession

def pg_quoted(e: exp.Expression) -> exp.Expression:
    """A copy of `e` whose names are quoted only where PostgreSQL's deparser would quote
    them (`"start"` -> `start`, `"end"` kept: a reserved word), as the catalog keeps it."""
    e = e.copy()
    for i in e.find_all(exp.Identifier):
        i.set("quoted", quote_ident(i.name) != i.name)
    return e


def key_function(s: SQLSession, table: Table, idx: Index) -> Callable[[tuple[Any, ...]], tuple]:
    """Returns row -> index key values (without the primary key)."""
    pos = [a - 1 for a in idx.columns]
    if not idx.exprs:
        return lambda r: tuple([r[i] for i in pos])
    fns = compile_exprs(s, table, idx.exprs)
    ctx = s.exec_context([])
    parts: list[tuple[int, Any]] = []
    it = iter(fns)
    for p in pos:
        parts.append((p, None) if p >= 0 else (-1, next(it)))

    def key(r: tuple[Any, ...]) -> tuple:
        return tuple([r[p] if fn is None else fn(r, ctx) for p, fn in parts])

    return key


def predicate_function(s: SQLSession, table: Table, idx: Index
                       ) -> Callable[[tuple[Any, ...]], bool] | None:
    """Returns row -> whether a partial index (`WHERE ...`) covers it, or None for a full index.

    Only the rows it covers count for a partial unique index's uniqueness.
    """
    if not idx.predicate:
        return None
    (fn,) = compile_exprs(s, table, (idx.predicate,))
    ctx = s.exec_context([])
    return lambda r: fn(r, ctx) is True


_NOT_IMMUTABLE = (exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime, exp.CurrentUser,
                  exp.SessionUser)


def check_immutable(exprs: list[str] | tuple[str, ...], what: str) -> None:
    """Rejects a key expression or predicate calling a function that is not IMMUTABLE (42P17):
    its entries would go stale (random(), now(), nextval())."""
    for sql in exprs:
        for node in parse_sql(f"SELECT {sql}").walk():
            if isinstance(node, _NOT_IMMUTABLE):
                bad = True
            elif isinstance(node, exp.Func) and not isinstance(node, exp.Cast):
                name = func_name(node)
                cands = FUNCTIONS.get(name) or []
                bad = bool(cands) and not any(_immutable(fd) for fd in cands)
            else:
                bad = False
            if bad:
                raise SQLError(f"functions in {what} must be marked IMMUTABLE",
                               sqlstate="42P17")  # invalid_object_definition


def _immutable(fd: FunctionDef) -> bool:
    facts = PROC_FACTS.get(fd.oid)
    if facts is not None:
        return facts[0] == "i"
    return not (fd.volatile or fd.needs_context)


def compile_exprs(s: SQLSession, table: Table, exprs: tuple[str, ...]) -> list[Any]:
    """Compiles index key expressions over the table's stored rows (raises their bind errors)."""
    scope = table_scope(table)
    out = []
    for sql in exprs:
        tree = parse_sql(f"SELECT {sql}").expressions[0]
        out.append(COMPILER.compile_scalar(tree, scope, s.catalog(), ParamTypes(),
                                           s.search_path()).fn)
    return out


def expr_display(table: Table | None, sql: str, pretty: bool = False) -> str:
    """Prints one key expression as PostgreSQL's deparser does: a function call bare
    (`lower(name)`), anything else in parentheses (`((a + b))`, pretty `(a + b)`)."""
    types = {c.name: c.type_oid for c in table.columns} if table is not None else {}
    text = check_text(sql, types, pretty) or sql
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return f"({text})"
    call = isinstance(tree, exp.Func) and not isinstance(
        tree, exp.Cast | exp.Binary | exp.Unary | exp.Case | exp.Paren)
    return text if call else f"({text})"


def key_names(table: Table | None, idx: Index, pretty: bool = False) -> list[str]:
    """The key columns' names, or the expressions' display text (for DETAIL and indexdef)."""
    exprs = iter(idx.exprs)
    cols = {c.attnum: c.name for c in table.columns} if table is not None else {}
    return [quote_ident(cols.get(a, f"col{a}")) if a else expr_display(table, next(exprs), pretty)
            for a in idx.columns]


def expr_types(table: Table | None, exprs: tuple[str, ...]) -> list[int]:
    """The result type OIDs of key expressions (0 when they no longer bind)."""
    if table is None:
        return [0] * len(exprs)
    cols = [N.PCol(c.name, c.type_oid, c.typmod, table.name, table.oid, c.attnum)
            for c in sorted(table.columns, key=lambda c: c.attnum)]
    out = []
    for sql in exprs:
        try:
            tree = sqlglot.parse_one(sql, read="postgres")
            out.append(Binder(Planner(None, None, []), Scope(cols)).bind(tree).type)
        except Exception:  # noqa: BLE001 - a catalog row must not fail on one stale expression
            out.append(0)
    return out


def expr_colname(sql: str) -> str:
    """pg_attribute.attname of an expression key: its function's name, else `expr`, as
    PostgreSQL's FigureIndexColname."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return "expr"
    return key_colname(tree) or "expr"


def key_colname(node: Any) -> str | None:
    """FigureColnameInternal's name of an index key (None: it gives none): a column's, a
    cast's operand's if that names it firmly else the type's, `case`, a function's.

    >>> [expr_colname(x) for x in ('b COLLATE "C"', "b::varchar", "(a + 1)::text", "-a",
    ...                            "CASE WHEN a > 0 THEN b END", "lower(b)", "a::bigint")]
    ['b', 'b', 'text', 'expr', 'case', 'lower', 'a']
    """
    while isinstance(node, exp.Paren | exp.Collate):
        node = node.this
    if isinstance(node, exp.Cast) and not isinstance(node.this, exp.IntDiv):
        if colnames.strength(node.this) > 1:
            return key_colname(node.this)
        try:
            oid = datatype_oid(node.to)[0]
        except SQLError:
            return None
        oid = T.ELEMENT_OF.get(oid, oid)
        return T.TYPES[oid].name if oid in T.TYPES else None
    if isinstance(node, exp.Column):
        return ident(node.this) if not isinstance(node.this, exp.Star) else None
    if isinstance(node, exp.Case):
        default = node.args.get("default")
        return (key_colname(default) if default is not None and colnames.strength(default) > 1
                else None) or "case"
    return func_name(node) if colnames.strength(node) > 1 and isinstance(node, exp.Func) \
        else None
