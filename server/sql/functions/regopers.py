"""regoper and regoperator: operator names and signatures <-> pg_operator OIDs, as PostgreSQL 15.

`'||/'::regoper` names an operator by name alone (42725 when several share it, as
`+` does); `'+(int4,int4)'::regoperator` by name and operand types, NONE standing
for a prefix operator's missing left operand. Both read pg_operator's rows
(`pgcatalog.operators`), so an OID read back prints as PostgreSQL prints it:
regoper bare when the name alone finds it, else `pg_catalog.+`; regoperator as
`+(integer,integer)`. The compiler calls `cast:<type>` / `format:<type>`, as for
the other reg* types (`regcasts`).

>>> regoperator_out(None, 551), regoper_out(None, 551), regoper_out(None, 597)
('+(integer,integer)', 'pg_catalog.+', '||/')
>>> regoperator_in(None, "-(NONE, int4)"), regoperator_in(None, "pg_catalog.=(text,text)")
(558, 98)
"""

from __future__ import annotations

from typing import Any

from ...errors import SQLError, UndefinedFunction
from ...pgtypes import oids as T
from ..expr.regcast import RegOid
from ..pgcatalog.ddltext import format_type
from ..pgcatalog.names import names, split_name
from ..pgcatalog.operators import BY_SIGNATURE, OPERATOR_ROWS, extension_rows
from .regcasts import labelled, regtype_in
from .registry import register

_BY_NAME: dict[str, list[int]] = {}
for (_name, _, _), _oid in BY_SIGNATURE.items():
    _BY_NAME.setdefault(_name, []).append(_oid)


def operator_rows(ctx: Any) -> dict[int, tuple[Any, ...]]:
    """pg_operator's rows by OID: the built-in ones, and this database's extensions'."""
    extra = extension_rows(ctx.catalog) if ctx is not None and ctx.catalog.extensions else ()
    return {**OPERATOR_ROWS, **{r[0]: r for r in extra}} if extra else OPERATOR_ROWS


def _named(ctx: Any, name: str) -> list[int]:
    rows = operator_rows(ctx)
    return _BY_NAME.get(name, []) if rows is OPERATOR_ROWS else \
        [oid for oid, r in rows.items() if r[1] == name]


def _numeric(text: str) -> int | None:
    s = text.strip()
    return int(s) if s.isdigit() else None


def _operator_name(text: str) -> str:
    """The operator's name without its schema; 3F000 for a schema other than pg_catalog."""
    head, dot, name = text.strip().rpartition(".")
    if not name:
        raise SQLError("invalid name syntax", sqlstate="42602")
    if dot:
        schema = split_name(head)[-1]
        if schema != "pg_catalog":
            raise SQLError(f'schema "{schema}" does not exist', sqlstate="3F000")
    return name


@register("cast:regoper", args=[T.TEXT], returns=T.REGOPER, needs_context=True)
def regoper_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """An operator by name alone: 42883 when none has it, 42725 when several do."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    found = _named(ctx, _operator_name(text))
    if len(found) == 1:
        return found[0]
    if missing_ok:
        return None
    if found:
        raise SQLError(f"more than one operator named {text.strip()}", sqlstate="42725")
    raise UndefinedFunction(f"operator does not exist: {text.strip()}")


@register("cast:regoperator", args=[T.TEXT], returns=T.REGOPERATOR, needs_context=True)
def regoperator_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """An operator by `name(left, right)`, NONE for a missing operand."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    head, paren, rest = text.partition("(")
    if not paren:
        raise SQLError("expected a left parenthesis", sqlstate="22P02")
    inner, close, tail = rest.rpartition(")")
    if not close or tail.strip():
        raise SQLError("expected a right parenthesis", sqlstate="22P02")
    name = _operator_name(head)
    args = [a.strip() for a in inner.split(",")]
    if len(args) < 2:
        raise SQLError("missing argument", sqlstate="42P02",
                       hint="Use NONE to denote the missing argument of a unary operator.")
    if len(args) > 2:
        raise SQLError("too many arguments", sqlstate="54023",
                       hint="Provide two argument types for operator.")
    types = [0 if a.lower() == "none" else regtype_in(ctx, a, missing_ok) for a in args]
    sig = (name, types[0] or 0, types[1] or 0)
    found = None if None in types else BY_SIGNATURE.get(sig) or next(
        (oid for oid, r in operator_rows(ctx).items() if (r[1], r[7], r[8]) == sig), None)
    if found is None and not missing_ok:
        raise UndefinedFunction(f"operator does not exist: {text.strip()}")
    return found


@register("format:regoper", args=[T.REGOPER], returns=T.TEXT, needs_context=True)
def regoper_out(ctx: Any, oid: int) -> str:
    """The operator's name, schema-qualified when the name alone does not find it."""
    row = operator_rows(ctx).get(oid)
    if row is None:
        return str(oid)
    if len(_named(ctx, row[1])) == 1:
        return row[1]
    schema = "pg_catalog" if ctx is None else names(ctx.catalog).schema_name(row[2])
    return f"{schema}.{row[1]}"


@register("format:regoperator", args=[T.REGOPERATOR], returns=T.TEXT, needs_context=True)
def regoperator_out(ctx: Any, oid: int) -> str:
    """The operator's signature, `+(integer,integer)` / `-(NONE,integer)`."""
    row = operator_rows(ctx).get(oid)
    if row is None:
        return str(oid)
    left = format_type(row[7], None) if row[7] else "NONE"
    return f"{row[1]}({left},{format_type(row[8], None)})"


@register("to_regoper", args=[T.TEXT], returns=T.REGOPER, needs_context=True)
def to_regoper(ctx: Any, text: str) -> RegOid | None:
    """The operator named `text`, NULL when none or several are."""
    return labelled(ctx, regoper_in(ctx, text, missing_ok=True), regoper_out)


@register("to_regoperator", args=[T.TEXT], returns=T.REGOPERATOR, needs_context=True)
def to_regoperator(ctx: Any, text: str) -> RegOid | None:
    """The operator `name(left,right)`, NULL when there is none."""
    return labelled(ctx, regoperator_in(ctx, text, missing_ok=True), regoperator_out)
