"""Name lookup over a catalog snapshot: what regclass/regtype casts, visibility and printing share.

PostgreSQL resolves an unqualified relation name through the search path,
with pg_catalog searched first unless the path names it explicitly, and
prints an OID back qualified only when the unqualified name would not find
the same object. `Names` indexes one snapshot (plus the virtual system
relations) once; the index is cached per snapshot object, so a catalog query
that calls `pg_table_is_visible(oid)` on every row does dictionary lookups,
not scans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import SQLError
from ...pgtypes import oids as T
from ..catalog import model as M
from ..kwlist import quote_ident
from ..parse import fold_ident
from .registry import VIRTUAL_TABLES

SYSTEM_SCHEMAS = (
    M.Schema(M.PG_CATALOG_OID, "pg_catalog"),
    M.Schema(M.PG_TOAST_OID, "pg_toast"),
    M.Schema(M.INFORMATION_SCHEMA_OID, "information_schema"),
)

# PostgreSQL 15's predefined roles (NOLOGIN). `public` is owned by pg_database_owner, which
# psql's `\dn` prints; `\du` hides them with `rolname !~ '^pg_'`.
PG_DATABASE_OWNER_OID = 6171
PREDEFINED_ROLES = tuple(
    M.Role(oid, name, login=False)
    for oid, name in (
        (3373, "pg_monitor"), (3374, "pg_read_all_settings"), (3375, "pg_read_all_stats"),
        (3377, "pg_stat_scan_tables"), (4200, "pg_signal_backend"), (4544, "pg_checkpoint"),
        (4569, "pg_read_server_files"), (4570, "pg_write_server_files"),
        (4571, "pg_execute_server_program"), (PG_DATABASE_OWNER_OID, "pg_database_owner"),
        (6181, "pg_read_all_data"), (6182, "pg_write_all_data"),
    )
)


def all_roles(cat: Any) -> list[M.Role]:
    """The catalog's roles plus the predefined ones (a user role of the same name wins)."""
    mine = {r.name for r in cat.roles} | {r.oid for r in cat.roles}
    extra = [r for r in PREDEFINED_ROLES if r.name not in mine and r.oid not in mine]
    return sorted([*cat.roles, *extra], key=lambda r: r.oid)


def schema_owner(s: M.Schema) -> int:
    """`public` belongs to pg_database_owner unless someone changed its owner."""
    if s.oid == M.PUBLIC_OID and s.owner == M.BOOTSTRAP_SUPERUSER_OID:
        return PG_DATABASE_OWNER_OID
    return s.owner


@dataclass(frozen=True)
class Rel:
    """One relation of any kind: table, view, index, sequence or virtual system relation."""

    oid: int
    name: str
    schema_oid: int
    kind: str  # pg_class.relkind
    obj: Any  # the model object (Table, Index, Sequence) or a VirtualTable


class Names:
    """The name indexes of one catalog snapshot."""

    def __init__(self, cat: M.CatalogSnapshot) -> None:
        self.catalog = cat
        schemas = {s.oid: s for s in SYSTEM_SCHEMAS}
        schemas.update({s.oid: s for s in cat.schemas})
        self.schemas = schemas
        self.schema_oid = {s.name: s.oid for s in schemas.values()}
        rels: list[Rel] = []
        for vt in VIRTUAL_TABLES.values():
            if vt.oid:
                rels.append(Rel(vt.oid, vt.name, self.schema_oid[vt.schema], vt.kind, vt))
        tables = {}
        for t in cat.tables:
            tables[t.oid] = t
            rels.append(Rel(t.oid, t.name, t.schema_oid, t.kind, t))
        for i in cat.indexes:
            owner = tables.get(i.table_oid)
            rels.append(Rel(i.oid, i.name, owner.schema_oid if owner else M.PUBLIC_OID, "i", i))
        for s in cat.sequences:
            rels.append(Rel(s.oid, s.name, s.schema_oid, "S", s))
        for u in cat.types:  # CREATE TYPE ... AS (...): its pg_class row (relkind c)
            if u.kind == "c" and u.relid:
                rels.append(Rel(u.relid, u.name, u.schema_oid, "c", u))
        self.rel = {r.oid: r for r in rels}
        self.rel_by_name = {(r.schema_oid, r.name): r for r in rels}
        roles = all_roles(cat)
        self.roles = {r.oid: r for r in roles}
        self.role_oid = {r.name: r.oid for r in roles}

    def path(self, ctx: Any) -> list[int]:
        """Returns the schema OIDs searched for unqualified names, pg_catalog first unless listed."""
        names = []
        for n in ctx.search_path():
            n = n.strip()
            if n == "$user":
                n = ctx.user
            elif len(n) > 1 and n[0] == '"' and n[-1] == '"':
                n = n[1:-1].replace('""', '"')
            names.append(n)
        oids = [self.schema_oid[n] for n in names if n in self.schema_oid]
        if M.PG_CATALOG_OID not in oids:
            oids.insert(0, M.PG_CATALOG_OID)
        return oids

    def find_rel(self, ctx: Any, parts: list[str]) -> Rel | None:
        """Returns the relation a (possibly qualified) name denotes, or None."""
        if len(parts) == 3:
            if parts[0] != ctx.database:
                raise SQLError(
                    "cross-database references are not implemented: " + ".".join(parts),
                    sqlstate="0A000",
                )
            parts = parts[1:]
        if len(parts) == 2:
            schema = self.schema_oid.get(parts[0])
            if schema is None:
                raise SQLError(f'schema "{parts[0]}" does not exist', sqlstate="3F000")
            return self.rel_by_name.get((schema, parts[1]))
        for schema in self.path(ctx):
            rel = self.rel_by_name.get((schema, parts[0]))
            if rel is not None:
                return rel
        return None

    def rel_visible(self, ctx: Any, oid: int) -> bool:
        """True when the relation's unqualified name finds it through the search path."""
        rel = self.rel.get(oid)
        if rel is None:
            return False
        for schema in self.path(ctx):
            found = self.rel_by_name.get((schema, rel.name))
            if found is not None:
                return found.oid == oid
        return False

    def rel_display(self, ctx: Any, oid: int) -> str:
        """Returns regclass's output: the name, schema-qualified only when not visible."""
        rel = self.rel.get(oid)
        if rel is None:
            return str(oid)
        if self.rel_visible(ctx, oid):
            return quote_ident(rel.name)
        return quote_ident(self.schemas[rel.schema_oid].name) + "." + quote_ident(rel.name)

    def schema_name(self, oid: int) -> str | None:
        """Returns a schema's name, None if there is no such schema."""
        s = self.schemas.get(oid)
        return s.name if s else None


_CACHE: dict[int, tuple[M.CatalogSnapshot, Names]] = {}


def names(cat: M.CatalogSnapshot) -> Names:
    """Returns the (cached) name index of a snapshot."""
    hit = _CACHE.get(id(cat))
    if hit is not None and hit[0] is cat:
        return hit[1]
    if len(_CACHE) > 16:
        _CACHE.clear()
    idx = Names(cat)
    _CACHE[id(cat)] = (cat, idx)
    return idx


def split_name(text: str) -> list[str]:
    """Splits a possibly qualified, possibly quoted name ('public."T"') into folded parts."""
    parts: list[str] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] == '"':
            j = i + 1
            buf = []
            while True:
                k = text.find('"', j)
                if k < 0:
                    raise SQLError("invalid name syntax", sqlstate="42602")
                buf.append(text[j:k])
                if k + 1 < n and text[k + 1] == '"':
                    buf.append('"')
                    j = k + 2
                    continue
                i = k + 1
                break
            part = "".join(buf)
            if part == "":
                raise SQLError("invalid name syntax", sqlstate="42602")
        else:
            j = i
            while j < n and text[j] not in '." ' and not text[j].isspace():
                j += 1
            part = fold_ident(text[i:j])
            if part == "":
                raise SQLError("invalid name syntax", sqlstate="42602")
            i = j
        parts.append(part)
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return parts
        if text[i] != ".":
            raise SQLError("invalid name syntax", sqlstate="42602")
        i += 1


TYPE_NAMESPACE = M.PG_CATALOG_OID
ALL_TYPES = T.TYPES
