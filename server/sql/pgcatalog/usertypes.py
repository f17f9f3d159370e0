"""pg_type, pg_enum and pg_range rows of the types CREATE TYPE made (`catalog.model.UserType`).

The rows are PostgreSQL 15's own for each kind, as it prints them for
`CREATE TYPE mood AS ENUM (...)` and `CREATE TYPE c AS (...)`: an enum is a
4-byte pass-by-value type in category E with enum_in/enum_out; a composite is
typtype c pointing at its pg_class row (typrelid), with record_in/record_out;
each has an array type `_name`. Clients' type introspection (psycopg's
TypeInfo/EnumInfo, asyncpg, SQLAlchemy's enum reflection) reads these.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from .exprtext import default_text
from .registry import pg_relation
from .rowtypes import _rows as composite_rows
from .systypes import (
    RANGE_ROW_SOURCES,
    TYPE_ROW_SOURCES,
    builtin_type_row,
    opclass_of,
    regproc,
)


def _enum_rows(t: M.UserType) -> tuple[tuple[Any, ...], ...]:
    row = (t.oid, t.name, t.schema_oid, t.owner, 4, True, "e", "E", False, True, ",", 0,
           regproc("-"), 0, t.array_oid, regproc("enum_in"), regproc("enum_out"),
           regproc("enum_recv"), regproc("enum_send"), regproc("-"), regproc("-"), regproc("-"),
           "i", "p", False, 0, -1, 0, 0, None, None, None)
    arr = (t.array_oid, "_" + t.name, t.schema_oid, t.owner, -1, False, "b", "A", False, True,
           ",", 0, regproc("array_subscript_handler"), t.oid, 0, regproc("array_in"),
           regproc("array_out"), regproc("array_recv"), regproc("array_send"), regproc("-"),
           regproc("-"), regproc("array_typanalyze"), "i", "x", False, 0, -1, 0, 0, None, None,
           None)
    return (row, arr)


def user_type_rows(cat: M.CatalogSnapshot) -> list[tuple[Any, ...]]:
    """pg_type rows (and their array types) of the snapshot's user types."""
    out: list[tuple[Any, ...]] = []
    for t in cat.types:
        if t.kind == "e":
            out += _enum_rows(t)
        elif t.kind == "c":
            out += composite_rows(t.name, t.schema_oid, t.owner, t.relid, t.oid, t.array_oid)
        elif t.kind == "r":
            out += _range_rows(t)
        elif t.kind == "d":
            out += _domain_rows(t)
        elif t.kind == "b":
            out += _base_rows(t)
        elif t.kind == "p":
            out.append(_shell_row(t))
    return out


def _shell_row(t: M.UserType) -> tuple[Any, ...]:
    """A shell type (`CREATE TYPE name`): typtype p, not yet defined, shell_in/shell_out."""
    return (t.oid, t.name, t.schema_oid, t.owner, 4, True, "p", "P", False, False, ",", 0,
            regproc("-"), 0, 0, regproc("shell_in"), regproc("shell_out"), regproc("-"),
            regproc("-"), regproc("-"), regproc("-"), regproc("-"), "i", "p", False, 0, -1, 0,
            0, None, None, None)


def _base_rows(t: M.UserType) -> tuple[tuple[Any, ...], ...]:
    """An extension's base type (hstore): a varlena of category U with its own I/O functions,
    and its array type, as CREATE EXTENSION hstore makes them."""
    ci = t.name == "citext"  # NB: citext is a string (category S) with a collation, as text
    io = "citext" if ci else f"{t.name}_"
    row = (t.oid, t.name, t.schema_oid, t.owner, -1, False, "b", "S" if ci else "U", False,
           True, ",", 0, regproc("-"), 0, t.array_oid, regproc(f"{io}in"), regproc(f"{io}out"),
           regproc(f"{io}recv"), regproc(f"{io}send"), regproc("-"), regproc("-"),
           regproc("-"), "i", "x", False, 0, -1, 0, 100 if ci else 0, None, None, None)
    arr = (t.array_oid, "_" + t.name, t.schema_oid, t.owner, -1, False, "b", "A", False, True,
           ",", 0, regproc("array_subscript_handler"), t.oid, 0, regproc("array_in"),
           regproc("array_out"), regproc("array_recv"), regproc("array_send"), regproc("-"),
           regproc("-"), regproc("array_typanalyze"), "i", "x", False, 0, -1, 0, 0, None, None,
           None)
    return (row, arr)


def _domain_rows(t: M.UserType) -> tuple[tuple[Any, ...], ...]:
    """A domain: its base type's row, renamed, typtype d, with typbasetype, typtypmod,
    typnotnull and typdefault; domain_in / domain_recv read it, as in PostgreSQL. Its array
    type `_name` is the base's array row, renamed, over the domain."""
    base = builtin_type_row(t.subtype)
    if base is None:
        return ()
    row = list(base)
    row[0:4] = [t.oid, t.name, t.schema_oid, t.owner]
    row[6], row[14] = "d", t.array_oid
    row[15], row[17] = regproc("domain_in"), regproc("domain_recv")
    row[24:27] = [t.not_null, t.subtype, t.typmod]
    row[30] = default_text(t.default, t.subtype)  # as PG deparses it: 'x'::text
    arr = builtin_type_row(base[14])
    if arr is None:
        return (tuple(row),)
    arow = list(arr)
    arow[0:4] = [t.array_oid, "_" + t.name, t.schema_oid, t.owner]
    arow[13] = t.oid
    return (tuple(row), tuple(arow))


def _range_rows(t: M.UserType) -> tuple[tuple[Any, ...], ...]:
    """A user range type, its multirange type and their array types."""
    align = "d" if t.subtype in (T.FLOAT8, T.INT8, T.TIMESTAMP, T.TIMESTAMPTZ) else "i"

    def row(oid: int, name: str, typtype: str, array: int, io: str) -> tuple[Any, ...]:
        return (oid, name, t.schema_oid, t.owner, -1, False, typtype, "R", False, True, ",", 0,
                regproc("-"), 0, array, regproc(f"{io}_in"), regproc(f"{io}_out"),
                regproc(f"{io}_recv"), regproc(f"{io}_send"), regproc("-"), regproc("-"),
                regproc(f"{io}_typanalyze"), align, "x", False, 0, -1, 0, 0, None, None, None)

    def arr(oid: int, name: str, elem: int) -> tuple[Any, ...]:
        return (oid, "_" + name, t.schema_oid, t.owner, -1, False, "b", "A", False, True, ",", 0,
                regproc("array_subscript_handler"), elem, 0, regproc("array_in"),
                regproc("array_out"), regproc("array_recv"), regproc("array_send"), regproc("-"),
                regproc("-"), regproc("array_typanalyze"), align, "x", False, 0, -1, 0, 0, None,
                None, None)

    return (row(t.oid, t.name, "r", t.array_oid, "range"), arr(t.array_oid, t.name, t.oid),
            row(t.multi_oid, t.multi_name, "m", t.multi_array_oid, "multirange"),
            arr(t.multi_array_oid, t.multi_name, t.multi_oid))


def user_range_rows(cat: M.CatalogSnapshot) -> list[tuple[Any, ...]]:
    """pg_range rows of CREATE TYPE ... AS RANGE types."""
    return [(t.oid, t.subtype, t.multi_oid, 0, opclass_of(t.subtype), regproc("-"), regproc("-"))
            for t in cat.types if t.kind == "r"]


@pg_relation("pg_catalog", "pg_enum")
def pg_enum(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per enum label: (oid, enumtypid, enumsortorder, enumlabel)."""
    return [(oid, t.oid, order, label)
            for t in ctx.catalog.types if t.kind == "e"
            for oid, order, label in zip(t.label_oids, t.sort_orders, t.labels, strict=True)]


def udt_name(cat: M.CatalogSnapshot, oid: int) -> tuple[str | None, str | None]:
    """information_schema's (udt_schema, udt_name) of a column type: user types by their
    schema and name (`_mood` for an array of mood), built-in types in pg_catalog."""
    info = T.TYPES.get(oid)
    if info is not None:
        return "pg_catalog", info.name
    schemas = {s.oid: s.name for s in cat.schemas}
    for t in cat.types:
        if oid in (t.oid, t.array_oid):
            return schemas.get(t.schema_oid), t.name if oid == t.oid else "_" + t.name
    return None, None


TYPE_ROW_SOURCES.append(user_type_rows)
RANGE_ROW_SOURCES.append(user_range_rows)
