"""DROP SCHEMA's members other than relations: its types, domains, functions and collations.

PostgreSQL ties every object to its namespace in pg_depend, so DROP SCHEMA
refuses (2BP01) or, under CASCADE, drops each of them, and lists them in
creation (OID) order, each followed by what outside the schema uses it: a
column of another schema's table of one of its types, a function elsewhere
taking one, a trigger calling one of its functions, a column collated by one
of its collations. What uses each kind comes from that kind's own DROP ...
CASCADE machinery (`typedeps`, `collationstmt.collation_users`, a function's
triggers); this module words the members as DROP SCHEMA's messages do
(schema-qualified outside the search_path) and leaves out what goes with the
schema anyway (uses inside it are listed at their own place, as members).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ..catalog.model import CatalogSnapshot, Collation, Function, Schema, UserType
from .alter import drop_column
from .collationstmt import collation_users
from .depends import relation_description, shown_name
from .typedeps import drop_uses, function_description, type_description, type_uses

if TYPE_CHECKING:
    from ..session import SQLSession

Member = UserType | Function | Collation


def members(cat: CatalogSnapshot, sch: Schema) -> list[Member]:
    """The schema's types (and domains), functions and collations."""
    found: list[Member] = [t for t in cat.types if t.schema_oid == sch.oid]
    found += [f for f in cat.functions if f.schema_oid == sch.oid]
    found += [c for c in cat.collations if c.schema_oid == sch.oid]
    return found


def describe(cat: CatalogSnapshot, x: Member, visible: list[str]) -> str:
    """The member as PostgreSQL's DROP SCHEMA messages name it."""
    if isinstance(x, UserType):
        return type_description(cat, x, visible)
    if isinstance(x, Function):
        return function_description(cat, x, visible)
    schema = next((s.name for s in cat.schemas if s.oid == x.schema_oid), "")
    return f"collation {shown_name(schema, x.name, visible)}"


def outside_users(s: SQLSession, sch: Schema, x: Member) -> list[tuple[str, str]]:
    """What outside `sch` uses the member `x`, as (notice object, DETAIL line) pairs, in
    PostgreSQL's order; uses by the schema's own objects are not listed (they go anyway)."""
    cat, visible = s.catalog(), s.search_path()
    desc = describe(cat, x, visible)
    inside = {relation_description(cat, t, visible) for t in cat.tables
              if t.schema_oid == sch.oid}
    inside |= {type_description(cat, t, visible) for t in cat.types if t.schema_oid == sch.oid}
    inside |= {function_description(cat, f, visible) for f in cat.functions
               if f.schema_oid == sch.oid}

    def outside(obj: str) -> bool:
        return not any(obj.endswith(f" of {d}") or obj.endswith(f" of composite {d}")
                       or obj == d for d in inside)

    out: list[tuple[str, str]] = []
    if isinstance(x, UserType):
        uses = type_uses(s, [x])
        out += [(obj, line) for obj, line in zip(uses.objects, uses.lines, strict=True)
                if outside(obj)]
    elif isinstance(x, Function):
        for t in cat.triggers:
            tab = cat.table_by_oid(t.table_oid)
            if t.function_oid == x.oid and tab is not None and tab.schema_oid != sch.oid:
                obj = f"trigger {t.name} on {relation_description(cat, tab, visible)}"
                out.append((obj, f"{obj} depends on {desc}"))
    else:
        _, objects, _ = collation_users(s, [x])
        out += [(obj, f"{obj} depends on {desc}") for obj in objects if outside(obj)]
    return out


def drop_members(s: SQLSession, sch: Schema) -> None:
    """DROP SCHEMA ... CASCADE, after the schema's relations went: drops what outside the
    schema uses its types, functions and collations (through their own DROP ... CASCADE
    machinery), then the members themselves."""
    cat = s.catalog()
    types = [t for t in cat.types if t.schema_oid == sch.oid]
    if types:
        drop_uses(s, type_uses(s, types))
    cat = s.catalog()
    mine = {f.oid for f in cat.functions if f.schema_oid == sch.oid}
    txn = s.ensure_txn()
    for t in cat.triggers:
        if t.function_oid in mine:
            s.store.delete(txn, s.db.oid, t)
    colls = [c for c in cat.collations if c.schema_oid == sch.oid]
    if colls:
        for tb, col in collation_users(s, colls)[2]:
            table = s.catalog().table_by_oid(tb.oid)
            if table is not None and any(c.name == col for c in table.live_columns):
                drop_column(s, table, exp.Drop(kind="COLUMN", cascade=True,
                                               tables=[exp.column(col, quoted=True)]))
    txn = s.ensure_txn()
    for x in members(s.catalog(), sch):
        s.store.delete(txn, s.db.oid, x)
    s.catalog_changed()

