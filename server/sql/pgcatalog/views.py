"""The convenience views over the catalog: pg_tables, pg_views, pg_indexes, pg_sequences, pg_matviews.

PostgreSQL defines them as SQL views over pg_class; here they are computed
directly from the snapshot, with the same columns, through the same text
builders (`ddltext`) as the pg_get_* functions.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..expr.regcast import RegOid
from .ddltext import format_type, index_def
from .names import names
from .registry import pg_relation
from .viewtext import relation_shown, view_text


def _owner(cat: M.CatalogSnapshot, oid: int) -> str | None:
    role = names(cat).roles.get(oid)
    return role.name if role is not None else None


@pg_relation("pg_catalog", "pg_tables")
def pg_tables(ctx: Any) -> list[tuple[Any, ...]]:
    """Ordinary tables, with their schema and owner names."""
    cat = ctx.catalog
    idx = names(cat)
    indexed = {i.table_oid for i in cat.indexes}
    return [
        (idx.schema_name(t.schema_oid), t.name, _owner(cat, t.owner), None, t.oid in indexed,
         False, False, False)
        for t in cat.tables if t.kind == "r"
    ]


@pg_relation("pg_catalog", "pg_views")
def pg_views(ctx: Any) -> list[tuple[Any, ...]]:
    """Views with their defining query, as pg_get_viewdef(oid) prints it (PostgreSQL's view
    definition calls it; the stored text where `viewtext` does not know the shape)."""
    cat = ctx.catalog
    idx = names(cat)
    views = [t for t in cat.tables if t.kind == "v"]
    tables = {x.name: x for x in cat.tables if x.kind in ("r", "v")} if views else {}
    shown = relation_shown(ctx)
    return [
        (idx.schema_name(t.schema_oid), t.name, _owner(cat, t.owner),
         view_text(t.view_sql or "", tables, False, shown) or t.view_sql)
        for t in views
    ]


@pg_relation("pg_catalog", "pg_indexes")
def pg_indexes(ctx: Any) -> list[tuple[Any, ...]]:
    """Indexes with their CREATE INDEX text."""
    cat = ctx.catalog
    idx = names(cat)
    out = []
    for i in cat.indexes:
        t = cat.table_by_oid(i.table_oid)
        if t is not None:
            out.append((idx.schema_name(t.schema_oid), t.name, i.name, None,
                        index_def(cat, i.oid)))
    return out


@pg_relation("pg_catalog", "pg_sequences")
def pg_sequences(ctx: Any) -> list[tuple[Any, ...]]:
    """Sequences and their parameters (last_value is not tracked here: NULL)."""
    cat = ctx.catalog
    idx = names(cat)
    return [
        (idx.schema_name(s.schema_oid), s.name, _owner(cat, M.BOOTSTRAP_SUPERUSER_OID),
         RegOid(s.type_oid or T.INT8, format_type(s.type_oid or T.INT8, None) or ""), s.start, s.min_value, s.max_value, s.increment, s.cycle, s.cache,
         None)
        for s in cat.sequences
    ]


@pg_relation("pg_catalog", "pg_matviews")
def pg_matviews(ctx: Any) -> list[tuple[Any, ...]]:
    """Materialized views (`ddl.matviews`), their definition as pg_get_viewdef prints it."""
    cat = ctx.catalog
    idx = names(cat)
    mvs = [t for t in cat.tables if t.kind == "m"]
    tables = {x.name: x for x in cat.tables if x.kind in ("r", "v", "m")} if mvs else {}
    indexed = {i.table_oid for i in cat.indexes}
    shown = relation_shown(ctx)
    return [
        (idx.schema_name(t.schema_oid), t.name, _owner(cat, t.owner), None, t.oid in indexed,
         t.populated, view_text(t.view_sql or "", tables, False, shown) or t.view_sql)
        for t in mvs
    ]
