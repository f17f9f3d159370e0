"""The reg* types: casts from names to OIDs and the printing of OIDs back as names.

`'public.t'::regclass`, `'int4'::regtype`, `'pg_catalog.array_in'::regproc`
resolve through the catalog snapshot and the session's search path. The
compiler calls `cast:<type>` for a text-to-reg* cast and `format:<type>` to
print a reg* value (regclass prints the bare name when the search path finds
the relation, schema-qualified otherwise). A numeric string is taken as the
OID itself, as PostgreSQL does.
"""

from __future__ import annotations

from typing import Any

from ...errors import (
    InvalidSchemaName,
    SQLError,
    UndefinedFunction,
    UndefinedObject,
    UndefinedTable,
)
from ...pgtypes import oids as T
from ..catalog.model import Table
from ..expr import usertypes
from ..expr.regcast import RegOid
from ..expr.types import regtype_oid, type_name
from ..pgcatalog.ddltext import format_type
from ..pgcatalog.names import names, quote_ident, split_name
from ..pgcatalog.procoids import BY_OID, OVERLOADED, PG_PROC_OIDS, proc_oid
from ..pgcatalog.registry import VirtualTable
from ..pgcatalog.rowtypes import ROW_TYPES
from .registry import FUNCTIONS, register


def _numeric(text: str) -> int | None:
    s = text.strip()
    return int(s) if s.isdigit() else None


def regclass_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """Resolves a relation name to its OID (42P01 when absent, unless missing_ok)."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    parts = split_name(text)
    if len(parts) > 3:
        raise SQLError(f"improper relation name (too many dotted names): {text}",
                       sqlstate="42601")
    try:
        rel = names(ctx.catalog).find_rel(ctx, parts)
    except SQLError:
        if missing_ok:
            return None
        raise
    if rel is None:
        if missing_ok:
            return None
        raise UndefinedTable(f'relation "{text}" does not exist')
    return rel.oid


def regtype_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """Resolves a type name ("integer", "varchar(10)", "pg_catalog.int4", "int4[]") to its OID."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    s = text.strip()
    if s == '"char"' or s == 'pg_catalog."char"':
        return T.CHAR
    try:
        return regtype_oid(s.replace('"', ""))
    except (UndefinedObject, ValueError) as err:
        if isinstance(err, UndefinedObject) and err.message.endswith("is only a shell"):
            raise  # NB: CREATE TYPE name: PostgreSQL's regtypein says so too
        reltype = _row_type(ctx, s)
        if reltype:
            return reltype
        if missing_ok:
            return None
        parts = split_name(s.removesuffix("[]"))
        if len(parts) == 2 and parts[0] not in names(ctx.catalog).schema_oid:
            raise InvalidSchemaName(f'schema "{parts[0]}" does not exist') from None
        raise UndefinedObject(f'type "{text}" does not exist') from None


def _row_type(ctx: Any, text: str) -> int:
    """A relation's composite row type named by `text` (`'t'::regtype`), else 0."""
    array = text.endswith("[]")
    parts = split_name(text.removesuffix("[]"))
    rel = _find_rel(ctx, parts)
    if rel is None and not array and parts and parts[-1].startswith("_"):
        # `_t`: the array type's own name (pg_type.typname of a table's typarray)
        rel, array = _find_rel(ctx, [*parts[:-1], parts[-1][1:]]), True
    if rel is None:
        return 0
    obj = rel.obj
    if isinstance(obj, Table):
        return obj.array_type if array else obj.reltype
    if isinstance(obj, VirtualTable):  # a system relation: PostgreSQL's own OIDs
        reltype, array_type = ROW_TYPES.get((obj.schema, rel.name), (0, 0))
        return array_type if array else reltype
    return 0  # NB: an index or a sequence has no row type


def _find_rel(ctx: Any, parts: list[str]) -> Any:
    try:
        return names(ctx.catalog).find_rel(ctx, parts)
    except SQLError:
        return None


def regproc_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """Resolves a function name (optionally pg_catalog-qualified) to its pg_proc OID."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    parts = split_name(text)
    name = parts[-1]
    schema_ok = len(parts) == 1 or parts[0] in ("pg_catalog", "information_schema")
    if schema_ok and name in OVERLOADED and len(parts) <= 2:
        if missing_ok:  # NB: to_regproc's NULL, as PostgreSQL's for an ambiguous name
            return None
        raise SQLError(f'more than one function named "{text}"', sqlstate="42725")
    if schema_ok and (name in PG_PROC_OIDS or name in FUNCTIONS) and len(parts) <= 2:
        return proc_oid(name)
    user = _user_functions(ctx, parts)
    if len(user) > 1:
        raise SQLError(f'more than one function named "{text}"', sqlstate="42725")
    if user:
        return user[0].oid
    if missing_ok:
        return None
    raise UndefinedFunction(f'function "{text}" does not exist')


def _user_functions(ctx: Any, parts: list[str]) -> list[Any]:
    """CREATE FUNCTION's functions named `[schema.]name`, the first schema of the search
    path that has one when unqualified."""
    cat = ctx.catalog
    if len(parts) == 2:
        sch = names(cat).schema_oid.get(parts[0])
        return [f for f in cat.functions if f.name == parts[1] and f.schema_oid == sch]
    for schema in ctx.search_path():
        sch = names(cat).schema_oid.get(schema)
        found = [f for f in cat.functions if f.name == parts[-1] and f.schema_oid == sch]
        if found:
            return found
    return []


def regnamespace_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """Resolves a schema name to its OID (3F000 when absent)."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    parts = split_name(text)
    found = names(ctx.catalog).schema_oid.get(parts[0]) if len(parts) == 1 else None
    if found is None and not missing_ok:
        raise SQLError(f'schema "{text}" does not exist', sqlstate="3F000")
    return found


def regrole_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """Resolves a role name to its OID (42704 when absent)."""
    oid = _numeric(text)
    if oid is not None:
        return oid
    parts = split_name(text)
    found = names(ctx.catalog).role_oid.get(parts[0]) if len(parts) == 1 else None
    if found is None and not missing_ok:
        raise UndefinedObject(f'role "{text}" does not exist')
    return found


register("cast:regclass", args=[T.TEXT], returns=T.REGCLASS, needs_context=True)(regclass_in)
register("cast:regtype", args=[T.TEXT], returns=T.REGTYPE, needs_context=True)(regtype_in)
register("cast:regproc", args=[T.TEXT], returns=T.REGPROC, needs_context=True)(regproc_in)
register("cast:regnamespace", args=[T.TEXT], returns=T.REGNAMESPACE,
         needs_context=True)(regnamespace_in)
register("cast:regrole", args=[T.TEXT], returns=T.REGROLE, needs_context=True)(regrole_in)


@register("cast:regprocedure", args=[T.TEXT], returns=T.REGPROCEDURE, needs_context=True)
def regprocedure_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """Resolves `name(argtype, ...)` to the pg_proc OID of that overload (psql's \\sf)."""
    head, paren, rest = text.partition("(")
    if not paren:
        return regproc_in(ctx, text, missing_ok)
    from ..pgcatalog.runtime import pg_proc

    name = split_name(head)[-1]
    inner = rest.rsplit(")", 1)[0].strip()
    try:
        args = [regtype_in(ctx, a.strip()) for a in inner.split(",")] if inner else []
    except UndefinedObject:
        args = None
    found = next((r[0] for r in pg_proc(ctx) if r[1] == name and list(r[19]) == args), None)
    if found is None and not missing_ok:
        raise UndefinedFunction(f'function "{text}" does not exist')
    return found


@register("format:regprocedure", args=[T.REGPROCEDURE], returns=T.TEXT, needs_context=True)
def regprocedure_out(ctx: Any, oid: int) -> str:
    """Prints a regprocedure as `name(argument types)` ("abs(integer)")."""
    from ..pgcatalog.runtime import pg_proc, proc_row

    row = proc_row(oid) if oid else None
    if row is None and oid:  # NB: CREATE FUNCTION's rows are the catalog's, not the cache's
        row = next((r for r in pg_proc(ctx) if r[0] == oid), None)
    if row is None:
        return "-" if oid == 0 else str(oid)
    return f"{row[1]}({','.join(format_type(a, None) or '' for a in row[19])})"


@register("format:regclass", args=[T.REGCLASS], returns=T.TEXT, needs_context=True)
def regclass_out(ctx: Any, oid: int) -> str:
    """Prints a regclass: the name, schema-qualified only when the search path misses it."""
    return "-" if oid == 0 else names(ctx.catalog).rel_display(ctx, oid)


@register("format:regtype", args=[T.REGTYPE], returns=T.TEXT, needs_context=True)
def regtype_out(ctx: Any, oid: int) -> str:
    """Prints a regtype as format_type does ("integer", "character varying")."""
    if oid == 0:
        return "-"
    if oid not in T.TYPES:
        for t in ctx.catalog.tables:  # NB: a relation's row type prints as the relation
            if oid in (t.reltype, t.array_type) and t.reltype:
                name = names(ctx.catalog).rel_display(ctx, t.oid)
                return name + "[]" if oid == t.array_type else name
        for (schema, rel), types in ROW_TYPES.items():
            if oid in types:
                shown = rel if schema == "pg_catalog" else f"{schema}.{rel}"
                return shown + "[]" if oid == types[1] else shown
        user = usertypes.by_oid(oid)
        if user is not None:  # NB: schema-qualified outside the search path, as format_type
            return usertypes.qualified_name(user)
        return type_name(oid)  # CREATE TYPE's arrays (and multiranges) by name, else the OID
    return format_type(oid, None) or str(oid)


@register("format:regproc", args=[T.REGPROC], returns=T.TEXT, needs_context=True)
def regproc_out(ctx: Any, oid: int) -> str:
    """Prints a regproc as its function name ("-" for 0)."""
    if oid == 0:
        return "-"
    user = next((f.name for f in ctx.catalog.functions if f.oid == oid), None)
    return user or BY_OID.get(oid, str(oid)).partition("#")[0]


@register("format:regnamespace", args=[T.REGNAMESPACE], returns=T.TEXT, needs_context=True)
def regnamespace_out(ctx: Any, oid: int) -> str:
    """Prints a regnamespace as the quoted schema name."""
    name = names(ctx.catalog).schema_name(oid)
    if oid == 0:
        return "-"
    return quote_ident(name) if name is not None else str(oid)


@register("format:regrole", args=[T.REGROLE], returns=T.TEXT, needs_context=True)
def regrole_out(ctx: Any, oid: int) -> str:
    """Prints a regrole as the quoted role name."""
    role = names(ctx.catalog).roles.get(oid)
    if oid == 0:
        return "-"
    return quote_ident(role.name) if role is not None else str(oid)


@register("to_regclass", args=[T.TEXT], returns=T.REGCLASS, needs_context=True)
def to_regclass(ctx: Any, text: str) -> int | None:
    """Returns the relation's OID, NULL when there is none."""
    return labelled(ctx, regclass_in(ctx, text, missing_ok=True), regclass_out)


@register("to_regtype", args=[T.TEXT], returns=T.REGTYPE, needs_context=True)
def to_regtype(ctx: Any, text: str) -> int | None:
    """Returns the type's OID, NULL when there is none."""
    return labelled(ctx, regtype_in(ctx, text, missing_ok=True), regtype_out)


@register("to_regproc", args=[T.TEXT], returns=T.REGPROC, needs_context=True)
def to_regproc(ctx: Any, text: str) -> int | None:
    """Returns the function's OID, NULL when there is none."""
    return labelled(ctx, regproc_in(ctx, text, missing_ok=True), regproc_out)


@register("to_regnamespace", args=[T.TEXT], returns=T.REGNAMESPACE, needs_context=True)
def to_regnamespace(ctx: Any, text: str) -> int | None:
    """Returns the schema's OID, NULL when there is none."""
    return labelled(ctx, regnamespace_in(ctx, text, missing_ok=True), regnamespace_out)


@register("to_regrole", args=[T.TEXT], returns=T.REGROLE, needs_context=True)
def to_regrole(ctx: Any, text: str) -> int | None:
    """Returns the role's OID, NULL when there is none."""
    return labelled(ctx, regrole_in(ctx, text, missing_ok=True), regrole_out)


def labelled(ctx: Any, oid: int | None, fmt: Any) -> RegOid | None:
    """Returns the OID as a value that prints as the object's name, as reg* values do."""
    return None if oid is None else RegOid(oid, fmt(ctx, oid))


def relation_oid(ctx: Any, value: Any) -> int | None:
    """Turns a regclass argument (an OID, or a name as text) into an OID."""
    if isinstance(value, int):
        return value
    return regclass_in(ctx, str(value))
