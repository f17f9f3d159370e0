"""pg_describe_object(classid, objid, objsubid): an object's description, as PostgreSQL 15 words it.

psql's `\\dx+` lists an extension's members through it, and pgAdmin and
dependency reports show it. The wording follows PostgreSQL's getObjectDescription
for the catalogs Cumulo has: relations (and their columns), types, functions,
schemas, constraints, extensions, access methods, large objects, and the operator catalogs
(`pgcatalog.operators`). An object that does not exist is NULL, as in PostgreSQL;
so is a catalog Cumulo does not describe.

>>> pg_describe_object(None, 2617, 558, 0), pg_describe_object(None, 2616, 3126, 0)
('operator -(NONE,integer)', 'operator class text_ops for access method btree')
>>> pg_describe_object(None, 2602, 10002, 0)
'operator 3 (smallint, smallint) of operator family integer_ops for access method btree: =(smallint,smallint)'
>>> pg_describe_object(None, 2617, 99999, 0) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..expr import usertypes
from ..largeobj.pages import meta as large_object
from ..pgcatalog.accessmethods import BY_OID as METHODS
from ..pgcatalog.ddltext import format_type
from ..pgcatalog.names import names, quote_ident
from ..pgcatalog.operators import (
    OPCLASS_ROWS,
    OPFAMILY_ROWS,
    amop_rows,
    amproc_rows,
)
from ..pgcatalog.operdata import AMPROC_SIGNATURES
from .regcasts import regprocedure_out
from .registry import register
from .regopers import operator_rows, regoperator_out

_KINDS = {"r": "table", "p": "table", "v": "view", "m": "materialized view", "i": "index",
          "S": "sequence", "c": "composite type", "f": "foreign table"}


def _method(oid: int) -> str:
    m = METHODS.get(oid)
    return m.name if m else str(oid)


def _family(oid: int) -> str:
    row = OPFAMILY_ROWS[oid]
    return f"operator family {row[2]} for access method {_method(row[1])}"


def _relation(ctx: Any, oid: int, sub: int) -> str | None:
    idx = names(ctx.catalog)
    rel = idx.rel.get(oid)
    if rel is None:
        return None
    text = f"{_KINDS.get(rel.kind, 'relation')} {idx.rel_display(ctx, oid)}"
    if not sub:
        return text
    cols = rel.obj.columns if isinstance(rel.obj, M.Table) else ()
    col = next((c for c in cols if c.attnum == sub), None)
    return None if col is None else f"column {quote_ident(col.name)} of {text}"


def _operator(ctx: Any, oid: int, sub: int) -> str | None:
    return f"operator {regoperator_out(ctx, oid)}" if oid in operator_rows(ctx) else None


def _opclass(ctx: Any, oid: int, sub: int) -> str | None:
    row = OPCLASS_ROWS.get(oid)
    return None if row is None else \
        f"operator class {row[2]} for access method {_method(row[1])}"


def _opfamily(ctx: Any, oid: int, sub: int) -> str | None:
    return _family(oid) if oid in OPFAMILY_ROWS else None


def _amop(ctx: Any, oid: int, sub: int) -> str | None:
    row = amop_rows().get(oid)
    if row is None:
        return None
    _, fam, left, right, strategy, _, opr, _, _ = row
    return (f"operator {strategy} ({format_type(left, None)}, {format_type(right, None)}) of "
            f"{_family(fam)}: {regoperator_out(ctx, opr)}")


def _amproc(ctx: Any, oid: int, sub: int) -> str | None:
    row = amproc_rows().get(oid)
    if row is None:
        return None
    _, fam, left, right, number, _ = row
    return (f"function {number} ({format_type(left, None)}, {format_type(right, None)}) of "
            f"{_family(fam)}: {AMPROC_SIGNATURES.get(oid, str(row[5]))}")


def _type(ctx: Any, oid: int, sub: int) -> str | None:
    if oid not in T.TYPES and usertypes.by_oid(oid) is None:
        return None
    return f"type {format_type(oid, None)}"


def _function(ctx: Any, oid: int, sub: int) -> str | None:
    text = regprocedure_out(ctx, oid) if oid else "-"
    return None if text in ("-", str(oid)) else f"function {text}"


def _schema(ctx: Any, oid: int, sub: int) -> str | None:
    name = names(ctx.catalog).schema_name(oid)
    return None if name is None else f"schema {quote_ident(name)}"


def _constraint(ctx: Any, oid: int, sub: int) -> str | None:
    c = next((c for c in ctx.catalog.constraints if c.oid == oid), None)
    if c is None:
        return None
    return f"constraint {quote_ident(c.name)} on {_relation(ctx, c.table_oid, 0)}"


def _extension(ctx: Any, oid: int, sub: int) -> str | None:
    if oid == 13559:
        return "extension plpgsql"
    e = next((e for e in ctx.catalog.extensions if e.oid == oid), None)
    return None if e is None else f"extension {quote_ident(e.name)}"


def _access_method(ctx: Any, oid: int, sub: int) -> str | None:
    return "access method heap" if oid == 2 else \
        f"access method {METHODS[oid].name}" if oid in METHODS else None


def _large_object(ctx: Any, oid: int, subid: int) -> str | None:
    session = ctx.session
    if session is None or large_object(session.ensure_txn(), session.db.oid, oid) is None:
        return None
    return f"large object {oid}"


_BY_CATALOG: dict[int, Callable[[Any, int, int], str | None]] = {
    1259: _relation, 1247: _type, 1255: _function, 2615: _schema, 2606: _constraint,
    3079: _extension, 2601: _access_method, 2617: _operator, 2616: _opclass, 2753: _opfamily,
    2602: _amop, 2603: _amproc, 2613: _large_object,
}


@register("pg_describe_object", args=[T.OID, T.OID, T.INT4], returns=T.TEXT, needs_context=True)
def pg_describe_object(ctx: Any, classid: int, objid: int, objsubid: int) -> str | None:
    """The object's description; NULL when it does not exist."""
    describe = _BY_CATALOG.get(classid)
    return None if describe is None else describe(ctx, objid, objsubid)
