"""Column defaults printed the way PostgreSQL's `pg_get_expr(adbin, adrelid)` prints them.

PostgreSQL stores a default as a parsed, type-coerced tree and deparses it on
demand, so `DEFAULT 'x'` on a varchar column comes back as
`'x'::character varying`, `DEFAULT -1` as `'-1'::integer`, `DEFAULT true` as
`true` and `upper('a')` as `upper('a'::text)`. psql's `\\d`, SQLAlchemy's
reflection and JDBC's getColumns show that text to users and compare it, so
the catalog keeps the default's SQL text and this module redoes the
coercions that are visible in the output:

- an untyped string literal takes the column's type (`'x'::text`), its value
  run through the type's input and output functions as PostgreSQL's constant
  folding does (`'24 hours'` on an interval column prints `'24:00:00'`);
- a negative number is a folded constant, printed quoted and cast;
- string literals passed to functions become `::text`;
- casts print as `::type` with PostgreSQL's type names; keywords such as
  `CURRENT_TIMESTAMP` stay upper case, function names lower case.

`now()` is kept apart from `CURRENT_TIMESTAMP` (sqlglot parses both the same)
by renaming it before parsing. Text that does not parse is returned as is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import cast

import sqlglot
from sqlglot import exp

from ..expr.casts import from_text, to_text
from ..expr.types import datatype_oid
from .checktext import expr_text
from .typetext import cast_name, format_type, number_type, quote_literal

_NOW = re.compile(r"\bnow\s*\(\s*\)", re.IGNORECASE)
_NOW_STANDIN = "cumulo_pg_now__"  # NB: checktext.NOW_STANDIN prints it back as now()


def _typed_literal(text: str, oid: int) -> str:
    """`'<value>'::<type>`, the value normalised by the type's input and output functions."""
    try:
        shown = to_text(from_text(oid)(text), oid)
    except Exception:  # noqa: BLE001 - an invalid default stays as the user wrote it
        shown = text
    return f"{quote_literal(shown)}::{cast_name(oid)}"


def _raw(text: str) -> exp.Var:
    return exp.Var(this=text)


def _render(node: exp.Expression, top_type: int | None) -> exp.Expression:
    """Rewrites one node (recursively) into PostgreSQL's deparsed form."""
    if isinstance(node, exp.Paren) and top_type is not None:
        return _render(node.this, top_type)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return _raw(_typed_literal(node.this, top_type) if top_type else
                        f"{quote_literal(node.this)}::text")
        return _raw(str(node.this))
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) \
            and not node.this.is_string:
        num = "-" + str(node.this.this)
        return _raw(f"{quote_literal(num)}::{cast_name(number_type(num))}")
    if isinstance(node, exp.Boolean):
        return _raw("true" if node.this else "false")
    if isinstance(node, exp.Cast):
        oid, typmod = datatype_oid(node.args["to"])
        inner = node.this
        if isinstance(inner, exp.Literal) and inner.is_string:
            body = quote_literal(inner.this)
        else:
            rendered = _render(inner, None)
            body = rendered.sql("postgres", normalize_functions="lower")
            if not isinstance(rendered, exp.Var) and not isinstance(inner, exp.Column):
                body = f"({body})"
        return _raw(f"{body}::{format_type(oid, typmod)}")
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == _NOW_STANDIN:
        return _raw("now()")
    if isinstance(node, exp.Uuid):
        return _raw("gen_random_uuid()")
    out = node.copy()
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            out.set(key, _render(value, None))
        elif isinstance(value, list):
            out.set(key, [_render(v, None) if isinstance(v, exp.Expression) else v
                          for v in value])
    return out


def _parse(sql: str) -> exp.Expression | None:
    try:
        return cast(exp.Expression,
                    sqlglot.parse_one(_NOW.sub(_NOW_STANDIN + "()", sql), read="postgres"))
    except Exception:  # noqa: BLE001 - text sqlglot cannot parse is kept as is
        return None


@lru_cache(maxsize=4096)
def default_text(sql: str | None, type_oid: int, pretty: bool = False) -> str | None:
    """Returns how PostgreSQL prints a column's default (None for no default or NULL).

    Plain mode is pg_attrdef.adbin as `pg_get_expr(adbin, adrelid)` prints it
    (`(1 + 2)`); pretty mode is what psql's `\\d` shows (`1 + 2`).
    """
    if sql is None:
        return None
    tree = _parse(sql)
    if tree is None:
        return sql
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.Null):
        return None
    if isinstance(tree, exp.Literal) and tree.is_string or isinstance(tree, exp.Neg | exp.Literal):
        return _render(tree, type_oid).sql("postgres", normalize_functions="lower")
    try:
        return expr_text(tree, {}, pretty)
    except Exception:  # noqa: BLE001 - shapes the deparser lacks keep the simpler rendering
        pass
    try:
        return _render(tree, type_oid).sql("postgres", normalize_functions="lower")
    except Exception:  # noqa: BLE001 - a rendering gap must not break the catalog query
        return sql


@lru_cache(maxsize=4096)
def pretty_text(sql: str) -> str:
    """Re-prints a plain-mode expression in pretty mode (`pg_get_expr(..., true)`)."""
    tree = _parse(sql)
    if tree is None:
        return sql
    try:
        return expr_text(tree, {}, True)
    except Exception:  # noqa: BLE001 - unknown shapes print as stored
        return sql

