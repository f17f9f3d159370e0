"""The SQL-standard information_schema views that clients read, computed from the snapshot.

Column sets are PostgreSQL 15's (domains replaced by their base types); the
values follow PostgreSQL's view definitions (data_type spellings, the
`<schema oid>_<table oid>_<attnum>_not_null` CHECK rows of NOT NULL columns,
precision radixes). Only user relations are listed in `columns`.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ...pgtypes.intervaltext import typmod_text
from ..catalog import model as M
from .collations import info_schema
from .ddltext import constraint_def, format_type
from .exprtext import default_text
from .names import names
from .partfks import fk_copies, with_copies
from .registry import VIRTUAL_TABLES, empty, pg_relation
from .updatable import DELETE, INSERT, UPDATE, relation_events
from .usertypes import udt_name

_CON_TYPES = {"p": "PRIMARY KEY", "u": "UNIQUE", "f": "FOREIGN KEY", "c": "CHECK"}
_RULES = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
_BIN_PRECISION = {T.INT2: 16, T.INT4: 32, T.INT8: 64, T.FLOAT4: 24, T.FLOAT8: 53}
_DATETIME = (T.DATE, T.TIME, T.TIMETZ, T.TIMESTAMP, T.TIMESTAMPTZ, T.INTERVAL)


def _yes(b: bool) -> str:
    return "YES" if b else "NO"


@pg_relation("information_schema", "schemata")
def schemata(ctx: Any) -> list[tuple[Any, ...]]:
    """Schemas of the current database."""
    cat = ctx.catalog
    idx = names(cat)
    return [
        (cat.database.name, s.name, idx.roles[s.owner].name if s.owner in idx.roles else None,
         None, None, None, None)
        for s in idx.schemas.values()
    ]


@pg_relation("information_schema", "tables")
def tables(ctx: Any) -> list[tuple[Any, ...]]:
    """User tables and views (an automatically updatable one is insertable into), then the
    system relations."""
    cat = ctx.catalog
    idx = names(cat)
    path = ctx.search_path()
    rows = [
        (cat.database.name, idx.schema_name(t.schema_oid), t.name,
         "VIEW" if t.kind == "v" else "BASE TABLE", None, None, None, None, None,
         _yes(t.kind == "r" or bool(relation_events(cat, t, path, False) & INSERT)), "NO",
         None)
        for t in cat.tables
    ]
    rows += [
        (cat.database.name, vt.schema, vt.name, "VIEW" if vt.kind == "v" else "BASE TABLE",
         None, None, None, None, None, _yes(vt.kind == "r"), "NO", None)
        for vt in VIRTUAL_TABLES.values()
    ]
    return rows


def _type_facts(oid: int, typmod: int) -> tuple[Any, ...]:
    """Returns (data_type, char max len, char octet len, precision, radix, scale, dt precision)."""
    if oid in T.ELEMENT_OF:
        return ("ARRAY", None, None, None, None, None, None)
    info = T.TYPES.get(oid)
    data_type = info.sql_name if info else "USER-DEFINED"
    clen = olen = prec = radix = scale = dtp = None
    if oid in (T.BIT, T.VARBIT):  # _pg_char_max_length: bits
        clen = typmod if typmod >= 0 else None
    elif oid in (T.VARCHAR, T.BPCHAR):
        if typmod >= 4:
            clen, olen = typmod - 4, (typmod - 4) * 4
        else:
            olen = 1073741824
    elif oid == T.TEXT:
        olen = 1073741824
    elif oid in _BIN_PRECISION:
        prec, radix = _BIN_PRECISION[oid], 2
        scale = 0 if oid in (T.INT2, T.INT4, T.INT8) else None
    elif oid == T.NUMERIC:
        radix = 10
        if typmod >= 4:
            prec, scale = ((typmod - 4) >> 16) & 0xFFFF, (typmod - 4) & 0xFFFF
    elif oid == T.INTERVAL:  # _pg_datetime_precision: the typmod's precision, else 6
        p = typmod & 0xFFFF if typmod > 0xFFFF else typmod
        dtp = 6 if typmod < 0 or p == 0xFFFF else p
    elif oid in _DATETIME:
        dtp = 0 if oid == T.DATE else (typmod if typmod >= 0 else 6)
    return (data_type, clen, olen, prec, radix, scale, dtp)


def _interval_type(oid: int, typmod: int) -> str | None:
    """_pg_interval_type: a column's range in capitals ('YEAR TO MONTH', 'SECOND(3)'), else NULL."""
    if oid != T.INTERVAL or typmod <= 0xFFFF or (typmod >> 16) & 0x7FFF == 0x7FFF:
        return None
    return typmod_text(typmod).strip().upper()  # the precision too: 'DAY TO SECOND(3)'


def _domain_name(cat: M.CatalogSnapshot, idx: Any, c: M.Column) -> tuple[Any, Any, Any]:
    """domain_catalog, domain_schema, domain_name of a column declared with a domain."""
    dom = next((t for t in cat.types if t.oid == c.domain), None) if c.domain else None
    if dom is None:
        return (None, None, None)
    return (cat.database.name, idx.schema_name(dom.schema_oid), dom.name)


@pg_relation("information_schema", "columns")
def columns(ctx: Any) -> list[tuple[Any, ...]]:
    """Columns of user tables and views."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    seqs = {s.owned_by: s for s in cat.sequences if s.owned_by}
    rows = []
    for t in cat.tables:
        schema = idx.schema_name(t.schema_oid)
        for c in t.live_columns:
            gen_expr = c.generated
            dtype, clen, olen, prec, radix, scale, dtp = _type_facts(c.type_oid, c.typmod)
            ident: tuple[Any, ...] = (None,) * 6
            if c.identity:
                s = seqs.get((t.oid, c.attnum))
                gen = "ALWAYS" if c.identity == "a" else "BY DEFAULT"
                ident = (gen, None, None, None, None, "NO") if s is None else (
                    gen, str(s.start), str(s.increment), str(s.max_value), str(s.min_value),
                    _yes(s.cycle))
            rows.append((
                cat.database.name, schema, t.name, c.name, c.attnum,
                None if c.identity or gen_expr is not None or c.domain_default
                else default_text(c.default, c.type_oid),
                _yes(not c.not_null), dtype, clen, olen,
                prec, radix, scale, dtp, _interval_type(c.type_oid, c.typmod), None, None, None,
                None, *info_schema(cat, c.collation),
                *_domain_name(cat, idx, c), cat.database.name, *udt_name(cat, c.type_oid),
                None, None, None, None, str(c.attnum), "NO", _yes(bool(c.identity)), *ident,
                "NEVER" if gen_expr is None else "ALWAYS",
                None if gen_expr is None else default_text(gen_expr, c.type_oid),
                _yes(t.kind == "r" or (t.kind == "v" and relation_events(
                    cat, t, ctx.search_path(), False, {c.attnum}) & (UPDATE | INSERT)
                    == UPDATE | INSERT)),
            ))
    return rows


@pg_relation("information_schema", "views")
def views(ctx: Any) -> list[tuple[Any, ...]]:
    """User views and their definitions."""
    cat = ctx.catalog
    idx = names(cat)
    path = ctx.search_path()
    rows = []
    for t in cat.tables:
        if t.kind != "v":
            continue
        auto = relation_events(cat, t, path, False)
        trig = [g.tgtype for g in cat.triggers if g.table_oid == t.oid]
        rows.append((cat.database.name, idx.schema_name(t.schema_oid), t.name, t.view_sql,
                     # NB: as PostgreSQL's view, by the exact text ('LOCAL' is NONE)
                     "CASCADED" if "check_option=cascaded" in t.options else
                     "LOCAL" if "check_option=local" in t.options else "NONE",
                     _yes(auto & (UPDATE | DELETE) == UPDATE | DELETE),
                     _yes(bool(auto & INSERT)),
                     _yes(any(g & 81 == 81 for g in trig)), _yes(any(g & 73 == 73 for g in trig)),
                     _yes(any(g & 69 == 69 for g in trig))))
    return rows


@pg_relation("information_schema", "table_constraints")
def table_constraints(ctx: Any) -> list[tuple[Any, ...]]:
    """Constraints, plus PostgreSQL's synthetic CHECK rows for NOT NULL columns."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for c in with_copies(cat):
        t = cat.table_by_oid(c.table_oid)
        if t is None or c.kind == "x":  # NB: the standard has no EXCLUDE: PostgreSQL omits it
            continue
        schema = idx.schema_name(t.schema_oid)
        rows.append((db, schema, c.name, db, schema, t.name, _CON_TYPES.get(c.kind, "CHECK"),
                     _yes(c.deferrable), _yes(c.deferred), "YES", "YES" if c.kind == "u" else None))
    for t in cat.tables:
        if t.kind != "r":
            continue
        schema = idx.schema_name(t.schema_oid)
        for col in t.live_columns:
            if col.not_null:
                rows.append((db, schema, f"{t.schema_oid}_{t.oid}_{col.attnum}_not_null", db,
                             schema, t.name, "CHECK", "NO", "NO", "YES", None))
    return rows


def _unique_for(cat: M.CatalogSnapshot, fk: M.Constraint) -> M.Constraint | None:
    cands = [c for c in cat.constraints_of(fk.ref_table_oid) if c.kind in ("p", "u")]
    return next((c for c in cands if sorted(c.columns) == sorted(fk.ref_columns)), None)


@pg_relation("information_schema", "key_column_usage")
def key_column_usage(ctx: Any) -> list[tuple[Any, ...]]:
    """Columns of primary key, unique and foreign key constraints, in key order."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for c in with_copies(cat):
        t = cat.table_by_oid(c.table_oid)
        if t is None or c.kind not in ("p", "u", "f"):
            continue
        schema = idx.schema_name(t.schema_oid)
        cols = {x.attnum: x.name for x in t.columns}
        uniq = _unique_for(cat, c) if c.kind == "f" else None
        for n, attnum in enumerate(c.columns, 1):
            pos = None
            if uniq is not None and n <= len(c.ref_columns):
                ref = c.ref_columns[n - 1]
                pos = uniq.columns.index(ref) + 1 if ref in uniq.columns else None
            rows.append((db, schema, c.name, db, schema, t.name, cols.get(attnum), n, pos))
    return rows


@pg_relation("information_schema", "referential_constraints")
def referential_constraints(ctx: Any) -> list[tuple[Any, ...]]:
    """Foreign keys with the unique constraint they reference and their actions."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for c in with_copies(cat):
        t = cat.table_by_oid(c.table_oid)
        if t is None or c.kind != "f":
            continue
        uniq = _unique_for(cat, c)
        ref = cat.table_by_oid(c.ref_table_oid)
        rows.append((db, idx.schema_name(t.schema_oid), c.name,
                     db if uniq else None,
                     idx.schema_name(ref.schema_oid) if uniq and ref else None,
                     uniq.name if uniq else None, "NONE", _RULES.get(c.on_update, "NO ACTION"),
                     _RULES.get(c.on_delete, "NO ACTION")))
    for copy in fk_copies(cat):  # NB: PostgreSQL's view joins pg_depend: a partition's copy
        if copy.referencing:     # also depends on the partition, a row with no unique key
            c, t = copy.con, cat.table_by_oid(copy.con.table_oid)
            rows.append((db, idx.schema_name(t.schema_oid) if t else None, c.name, None, None,
                         None, "NONE", _RULES.get(c.on_update, "NO ACTION"),
                         _RULES.get(c.on_delete, "NO ACTION")))
    return rows


@pg_relation("information_schema", "constraint_column_usage")
def constraint_column_usage(ctx: Any) -> list[tuple[Any, ...]]:
    """Columns each constraint uses (for a foreign key: the referenced columns)."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for c in with_copies(cat):
        owner = cat.table_by_oid(c.table_oid)
        t = cat.table_by_oid(c.ref_table_oid if c.kind == "f" else c.table_oid)
        if t is None or owner is None:
            continue
        cols = {x.attnum: x.name for x in t.columns}
        for attnum in c.ref_columns if c.kind == "f" else c.columns:
            rows.append((db, idx.schema_name(t.schema_oid), t.name, cols.get(attnum), db,
                         idx.schema_name(owner.schema_oid), c.name))
    return rows


@pg_relation("information_schema", "sequences")
def sequences(ctx: Any) -> list[tuple[Any, ...]]:
    """Sequences and their parameters, as text."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    return [
        (cat.database.name, idx.schema_name(s.schema_oid), s.name,
         format_type(s.type_oid, None), _BIN_PRECISION.get(s.type_oid, 64), 2, 0, str(s.start),
         str(s.min_value), str(s.max_value), str(s.increment), _yes(s.cycle))
        for s in cat.sequences
    ]


@pg_relation("information_schema", "character_sets")
def character_sets(ctx: Any) -> list[tuple[Any, ...]]:
    """The one character set, UTF8."""
    return [(None, None, "UTF8", "UCS", "UTF8", ctx.catalog.database.name, None, None)]


@pg_relation("information_schema", "check_constraints")
def check_constraints(ctx: Any) -> list[tuple[Any, ...]]:
    """CHECK constraints with their expressions, and the NOT NULL checks PostgreSQL lists."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for c in cat.constraints:
        t = cat.table_by_oid(c.table_oid)
        if t is not None and c.kind == "c":
            text = constraint_def(cat, ctx, c.oid) or ""
            rows.append((db, idx.schema_name(t.schema_oid), c.name, text.removeprefix("CHECK ")))
    for t in cat.tables:
        if t.kind == "r":
            for col in t.live_columns:
                if col.not_null:
                    rows.append((db, idx.schema_name(t.schema_oid),
                                 f"{t.schema_oid}_{t.oid}_{col.attnum}_not_null",
                                 f"{col.name} IS NOT NULL"))
    return rows


@pg_relation("information_schema", "enabled_roles")
def enabled_roles(ctx: Any) -> list[tuple[Any, ...]]:
    """The session's role."""
    return [(ctx.user,)]


for _name in ("routines", "triggers", "domains",
              "element_types", "applicable_roles", "parameters", "column_privileges",
              "usage_privileges", "attributes", "user_defined_types"):
    empty("information_schema", _name)
