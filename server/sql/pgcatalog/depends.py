"""pg_depend and pg_rewrite: what depends on what, as PostgreSQL records it.

pg_dump sorts its output by these rows, and psql and ORMs read them to find a
sequence's column or a view's tables. PostgreSQL writes them when an object is
created; Cumulo derives them from the catalog snapshot on each scan, with
PostgreSQL's classes and deptypes:

- a relation, type or function lives in its schema ('n' on pg_namespace);
- a table's row type and every array type belong to what they describe ('i');
- an index depends on its table's key columns ('a'; the whole table when it has
  only expressions), or, backing a key, on that constraint ('i');
- a constraint on its table's columns ('a'; a CHECK also 'n' on the columns it
  reads), a foreign key 'n' on the referenced columns and on the unique index it
  relies on, a domain's CHECK 'a' on the domain;
- a column of an enum, domain, composite or range type 'n' on that type;
- a default 'a' on its column and, calling nextval, 'n' on that sequence;
  an owned sequence 'a' on its column ('i' for identity);
- a view's `_RETURN` rule (pg_rewrite) is the view's ('i' and 'n') and 'n' on
  each column it reads of another relation, so views on views dump in order;
- a trigger 'a' on its table (and on a constraint trigger's FROM table) and 'n' on
  its function; a constraint trigger's constraint 'a' on the table, 'i' on the trigger.

Views are kept as SQL text, so a view's references are found by parsing it:
each table name resolves in the view's schema, then public, then any schema,
and the columns read are those named (qualified by the table's name or alias,
or not at all) that the table has; `*` reads every column. A view whose text
does not parse records no references. A rule has a synthetic OID (`rule_oid`),
and its ev_action holds the view's SQL text, not a node tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlglot import exp

from ..catalog import model as M
from ..parse import parse_sql
from .registry import pg_relation
from .relations import attrdef_oid, column_default
from .seqdeps import sequences_of

PG_CLASS, PG_TYPE, PG_PROC, PG_NAMESPACE = 1259, 1247, 1255, 2615
PG_CONSTRAINT, PG_ATTRDEF, PG_REWRITE, PG_TRIGGER = 2606, 2604, 2618, 2620

Dep = tuple[int, int, int, int, int, int, str]


def rule_oid(view_oid: int) -> int:
    """The synthetic OID of a view's `_RETURN` rule (views have no rule object here)."""
    return (3 << 29) + view_oid


@pg_relation("pg_catalog", "pg_rewrite")
def pg_rewrite(ctx: Any) -> list[tuple[Any, ...]]:
    """One ON SELECT DO INSTEAD rule per view, as PostgreSQL stores a view."""
    return [(rule_oid(v.oid), "_RETURN", v.oid, "1", "O", True, "<>", v.view_sql)
            for v in ctx.catalog.tables if v.kind == "v"]


@pg_relation("pg_catalog", "pg_depend")
def pg_depend(ctx: Any) -> list[Dep]:
    """The dependencies of the database's own objects (see the module docstring)."""
    cat: M.CatalogSnapshot = ctx.catalog
    return [*_relations(cat), *_indexes(cat), *_constraints(cat), *_columns(cat),
            *_sequences(cat), *_views(cat), *_types(cat), *_routines(cat)]


def _relations(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    for t in cat.tables:
        yield (PG_CLASS, t.oid, 0, PG_NAMESPACE, t.schema_oid, 0, "n")
        if t.reltype:
            yield (PG_TYPE, t.reltype, 0, PG_CLASS, t.oid, 0, "i")
            if t.array_type:
                yield (PG_TYPE, t.array_type, 0, PG_TYPE, t.reltype, 0, "i")
    for s in cat.sequences:
        yield (PG_CLASS, s.oid, 0, PG_NAMESPACE, s.schema_oid, 0, "n")


def _indexes(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    backing = {c.index_oid: c.oid for c in cat.constraints if c.kind in "pu" and c.index_oid}
    for i in cat.indexes:
        if i.oid in backing:
            yield (PG_CLASS, i.oid, 0, PG_CONSTRAINT, backing[i.oid], 0, "i")
            continue
        keys = [a for a in i.columns if a > 0]
        for a in keys or [0]:
            yield (PG_CLASS, i.oid, 0, PG_CLASS, i.table_oid, a, "a")


def _constraints(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    for c in cat.constraints:
        for a in c.columns or (0,):
            yield (PG_CONSTRAINT, c.oid, 0, PG_CLASS, c.table_oid, a, "a")
        if c.kind == "c":
            yield from ((PG_CONSTRAINT, c.oid, 0, PG_CLASS, c.table_oid, a, "n")
                        for a in c.columns)
        elif c.kind == "f":
            yield from ((PG_CONSTRAINT, c.oid, 0, PG_CLASS, c.ref_table_oid, a, "n")
                        for a in c.ref_columns)
            index = next((i.oid for i in cat.indexes_of(c.ref_table_oid)
                          if (i.unique or i.primary) and sorted(i.columns) == sorted(c.ref_columns)),
                         0)
            if index:
                yield (PG_CONSTRAINT, c.oid, 0, PG_CLASS, index, 0, "n")
    for d in cat.types:
        yield from ((PG_CONSTRAINT, oid, 0, PG_TYPE, d.oid, 0, "a") for oid in d.check_oids)


def _columns(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    user_types = {u.oid for u in cat.types} | {u.array_oid for u in cat.types if u.array_oid}
    for t in cat.tables:
        for c in t.columns:
            if c.dropped:
                continue
            typ = c.domain or c.type_oid
            if typ in user_types:
                yield (PG_CLASS, t.oid, c.attnum, PG_TYPE, typ, 0, "n")
            text = column_default(c)
            if text is None:
                continue
            yield (PG_ATTRDEF, attrdef_oid(t.oid, c.attnum), 0, PG_CLASS, t.oid, c.attnum, "a")
            if "nextval(" in text:
                yield from ((PG_ATTRDEF, attrdef_oid(t.oid, c.attnum), 0, PG_CLASS, s.oid, 0, "n")
                            for s in sequences_of(cat, t, text))


def _sequences(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    """Owned sequences: 'a' on the column (OWNED BY, SERIAL), 'i' for identity columns."""
    for s in cat.sequences:
        if s.owned_by:
            t = cat.table_by_oid(s.owned_by[0])
            col = next((c for c in t.columns if c.attnum == s.owned_by[1]), None) if t else None
            kind = "i" if col is not None and col.identity else "a"
            yield (PG_CLASS, s.oid, 0, PG_CLASS, s.owned_by[0], s.owned_by[1], kind)


def _views(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    for v in cat.tables:
        if v.kind != "v":
            continue
        rule = rule_oid(v.oid)
        yield (PG_REWRITE, rule, 0, PG_CLASS, v.oid, 0, "i")
        yield (PG_REWRITE, rule, 0, PG_CLASS, v.oid, 0, "n")
        for rel, attnums in view_references(cat, v):
            for a in sorted(attnums) or [0]:
                yield (PG_REWRITE, rule, 0, PG_CLASS, rel, a, "n")


def _types(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    for u in cat.types:
        yield (PG_TYPE, u.oid, 0, PG_NAMESPACE, u.schema_oid, 0, "n")
        if u.array_oid:
            yield (PG_TYPE, u.array_oid, 0, PG_TYPE, u.oid, 0, "i")
        if u.relid:  # a composite type's pg_class row is the type's
            yield (PG_CLASS, u.relid, 0, PG_TYPE, u.oid, 0, "i")


def _routines(cat: M.CatalogSnapshot) -> Iterator[Dep]:
    for f in cat.functions:
        yield (PG_PROC, f.oid, 0, PG_NAMESPACE, f.schema_oid, 0, "n")
    tables = {t.oid for t in cat.tables}
    for tg in cat.triggers:
        if tg.table_oid not in tables:
            continue
        if tg.constraint_oid:  # NB: CREATE CONSTRAINT TRIGGER: its constraint is the trigger's
            yield (PG_CONSTRAINT, tg.constraint_oid, 0, PG_CLASS, tg.table_oid, 0, "a")
            yield (PG_CONSTRAINT, tg.constraint_oid, 0, PG_TRIGGER, tg.oid, 0, "i")
        yield (PG_TRIGGER, tg.oid, 0, PG_CLASS, tg.table_oid, 0, "a")
        if tg.constrrelid and tg.constrrelid in tables:  # FROM other_table: dropped with it
            yield (PG_TRIGGER, tg.oid, 0, PG_CLASS, tg.constrrelid, 0, "a")
        yield (PG_TRIGGER, tg.oid, 0, PG_PROC, tg.function_oid, 0, "n")


def view_references(cat: M.CatalogSnapshot, view: M.Table) -> list[tuple[int, set[int]]]:
    """The relations a view's query reads and the attnums it reads of each, in the order
    they are first named (see the module docstring for how names resolve)."""
    key = ("view_references", view.oid)
    found = cat.derived.setdefault("view_references", {})
    if key not in found:
        found[key] = _references(cat, view)
    return found[key]


def _references(cat: M.CatalogSnapshot, view: M.Table) -> list[tuple[int, set[int]]]:
    try:
        tree = parse_sql(view.view_sql or "")
    except Exception:  # NB: stored text came from sqlglot; unparsable means no known deps
        return []
    ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
    refs: dict[int, tuple[M.Table, set[str]]] = {}
    for node in tree.find_all(exp.Table):
        if not node.name or (not node.db and node.name in ctes):
            continue
        rel = _resolve(cat, view, node.db, node.name)
        if rel is not None and rel.oid != view.oid:
            refs.setdefault(rel.oid, (rel, set()))[1].update({node.name, node.alias_or_name})
    columns = [(c.table, "*" if isinstance(c.this, exp.Star) else c.name)
               for c in tree.find_all(exp.Column)]
    if any(isinstance(n.parent, exp.Select) for n in tree.find_all(exp.Star)):
        columns.append(("", "*"))  # SELECT *: every column of every relation
    out = []
    for oid, (rel, names) in refs.items():
        read = {c.attnum for c in rel.columns if not c.dropped and any(
            name in (c.name, "*") and (not qual or qual in names) for qual, name in columns)}
        out.append((oid, read))
    return out


def _resolve(cat: M.CatalogSnapshot, view: M.Table, schema: str, name: str) -> M.Table | None:
    hits = [t for t in cat.tables if t.name == name]
    if schema:
        return next((t for t in hits if (s := cat.schema_by_oid(t.schema_oid)) is not None
                     and s.name == schema), None)
    public = next((s.oid for s in cat.schemas if s.name == "public"), None)
    return min(hits, key=lambda t: (t.schema_oid != view.schema_oid, t.schema_oid != public),
               default=None)
