"""CREATE [UNIQUE] INDEX and DROP INDEX.

An index is its own KiVi space of entries `encode_key(index values + primary
key values) -> primary key tuple` (see `dml.writer`). CREATE INDEX fills it
from the table's current rows inside the creating transaction, checking
uniqueness as it goes (23505 `could not create unique index`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DependentObjectsStillExist,
    DuplicateTable,
    FeatureNotSupported,
    UndefinedColumn,
    UndefinedObject,
    UndefinedTable,
    UniqueViolation,
)
from ...kivi.keycodec import encode_key
from ...txn.api import ScanSpec
from ..catalog.indexoptions import index_options
from ..catalog.model import CatalogSnapshot, Index, Table
from ..catalog.tableoptions import option_item
from ..catalog.viewoptions import merge_options
from ..dml.deferstate import refuse_pending
from ..dml.writer import TableWriter, key_detail
from ..pgcatalog.accessmethods import check as check_method
from ..pgcatalog.accessmethods import check_key_types, method
from ..pgcatalog.opclasses import resolve as resolve_opclass
from .immutable import check_index_exprs
from .indexkeys import (
    check_immutable,
    compile_exprs,
    expr_types,
    key_colname,
    key_function,
    pg_quoted,
    predicate_function,
)
from .names import (
    find_index,
    get_relation,
    ident,
    missing_schema,
    relation_name_taken,
    schema_by_name,
    skip_or_raise,
    table_name,
    unique_name,
)
from .partitions import index_partitions
from .persistence import check_tablespace

if TYPE_CHECKING:
    from ..session import SQLSession


def build_index(s: SQLSession, table: Table, idx: Index) -> None:
    """Writes the entries of a new index for every stored row of its table."""

    txn = s.ensure_txn()
    txn.claim_space(idx.space)  # NB: every caller builds a new space: no conflict checks
    w = TableWriter(s, table)
    seen: set[bytes] = set()
    key = key_function(s, table, idx)
    covers = predicate_function(s, table, idx)

    for batch in txn.scan(ScanSpec(table.space, batch_size=4096, with_keys=True)):
        s.exec_context([]).check_cancel()
        keys = [r[0] for r in batch]
        rows = [tuple(r[1:]) for r in batch]
        if idx.unique:
            for r in rows:
                vals = key(r)
                if (None in vals and not idx.nulls_not_distinct) or (
                        covers is not None and not covers(r)):
                    continue
                p = encode_key(vals)
                if p in seen:

                    raise UniqueViolation(
                        f'could not create unique index "{idx.name}"',
                        detail=key_detail(table, idx.columns, vals, idx.exprs).replace(
                            "already exists", "is duplicated"),
                        table=table.name, constraint=idx.name)
                seen.add(p)
        if rows:
            txn.put(idx.space, w.index_entries(idx, keys, rows))


def create_index(s: SQLSession, tree: exp.Create) -> str:
    """CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table (columns)."""
    node = tree.this
    schema, tname = table_name(node.args["table"])
    cat = s.catalog()
    table = get_relation(cat, schema, tname, s.search_path())
    refuse_pending(s, cat, table, "CREATE INDEX")
    params = node.args.get("params")
    cols_nodes = params.args.get("columns") if params else []
    using = params.args.get("using") if params else None
    if params is not None and params.args.get("tablespace") is not None:
        check_tablespace(ident(params.args["tablespace"]))
    am_name = using.name.lower() if using is not None else "btree"
    if am_name == "rtree":
        s.notice('substituting access method "gist" for obsolete method "rtree"')
        am_name = "gist"
    am = method(am_name)
    k = key_parts(table, cols_nodes or [], params.args.get("include") if params else None)
    attnums, desc, exprs, parts, classes, include = (k.attnums, k.desc, k.exprs, k.parts,
                                                     k.classes, k.include)
    nulls_first = k.nulls_first
    check_method(am, bool(tree.args.get("unique")), len(attnums), any(desc), nulls_first,
                 bool(include))
    if exprs:
        compile_exprs(s, table, tuple(exprs))  # NB: reports unknown columns, functions (42703...)
        check_immutable(exprs, "index expression")
        check_index_exprs(s, table, exprs, "index expression")
    opclasses = _opclasses(table, attnums, exprs, classes, am.name)
    if am.name != "btree":
        check_key_types(am, _key_types(table, attnums, exprs, classes), has_btree_gist(cat))
    pwhere = params.args.get("where") if params else None
    if pwhere is not None:
        check_immutable([pwhere.this.sql("postgres")], "index predicate")
        check_index_exprs(s, table, [pwhere.this.sql("postgres")], "index predicate")
    name = ident(node.this) if node.this else unique_name(
        cat, table.schema_oid, f"{table.name}_{'_'.join(parts)}_idx")
    if relation_name_taken(cat, table.schema_oid, name):
        if tree.args.get("exists"):
            s.notice(f'relation "{name}" already exists, skipping', sqlstate="42P07")
            return "CREATE INDEX"
        raise DuplicateTable(f'relation "{name}" already exists')
    where = params.args.get("where") if params else None
    options = index_options(am.name, [option_item(p) for p in (
        params.args.get("with_storage") if params else None) or ()])
    oid = s.store.allocate_oid()
    idx = Index(oid, name, table.oid, tuple(attnums), bool(tree.args.get("unique")), False, oid,
                tuple(desc), where.this.sql("postgres") if where is not None else None,
                tuple(include), tuple(exprs),
                nulls_not_distinct=bool(tree.meta.get("nulls_not_distinct")), opclasses=opclasses,
                method=am.name, options=options)
    s.store.put(s.ensure_txn(), s.db.oid, idx)
    s.catalog_changed()
    build_index(s, table, idx)
    if table.partkey:  # NB: a copy on each partition (ddl.partitions)
        index_partitions(s, table, tree, attnums, create_index)
    return "CREATE INDEX"


@dataclasses.dataclass
class KeyParts:
    """An index's keys as written: attnums (0 for an expression), DESC flags, expression
    texts, the names its default name is made of, operator classes ("" for the default),
    INCLUDE attnums, and whether any key said NULLS FIRST."""

    attnums: list[int]
    desc: list[bool]
    exprs: list[str]
    parts: list[str]
    classes: list[str]
    include: list[int]
    nulls_first: bool


def key_parts(table: Table, nodes: list[exp.Expression], include_nodes: Any = None,
              missing: str = 'column "{}" does not exist') -> KeyParts:
    """Reads the key list of CREATE INDEX (or of an EXCLUDE constraint: `missing` is its
    42703 message) against the table's columns."""
    k = KeyParts([], [], [], [], [], [], False)
    by_name = {c.name: c.attnum for c in table.live_columns}
    for o in nodes:
        e = o.this if isinstance(o, exp.Ordered) else o
        k.classes.append(ident(e.expression.this) if isinstance(e, exp.Opclass) else "")
        if isinstance(e, exp.Opclass):
            e = e.this
        while isinstance(e, exp.Paren):
            e = e.this
        k.desc.append(bool(isinstance(o, exp.Ordered) and o.args.get("desc")))
        k.nulls_first = k.nulls_first or bool(isinstance(o, exp.Ordered)
                                              and o.args.get("nulls_first"))
        if not isinstance(e, exp.Column):
            k.exprs.append(pg_quoted(e).sql("postgres"))
            k.attnums.append(0)
            k.parts.append(key_colname(e) or "expr")  # NB: as pg_attribute names it
            continue
        n = ident(e.this)
        if n not in by_name:
            raise UndefinedColumn(missing.format(n))
        k.attnums.append(by_name[n])
        k.parts.append(n)
    for c in include_nodes or []:
        n = ident(c.this if isinstance(c, exp.Column) else c)
        if n not in by_name:
            raise UndefinedColumn(missing.format(n))
        k.include.append(by_name[n])
        k.parts.append(n)
    return k


def has_btree_gist(cat: CatalogSnapshot) -> bool:
    """Tells whether CREATE EXTENSION btree_gist made GiST classes for scalar types here."""
    return any(e.name == "btree_gist" for e in cat.extensions)


def _opclasses(table: Table, attnums: list[int], exprs: list[str],
               classes: list[str], am: str = "btree") -> tuple[str, ...]:
    """The keys' explicit operator classes, checked against their types (42704, 42804)."""
    if not any(classes):
        return ()
    types = {c.attnum: c.type_oid for c in table.columns}
    it = iter(expr_types(table, tuple(exprs)))
    key_types = [types[a] if a else next(it) for a in attnums]
    return tuple(resolve_opclass(c, t, am) if c else "" for c, t in zip(classes, key_types, strict=True))


def _key_types(table: Table, attnums: list[int], exprs: list[str],
               classes: list[str]) -> list[int]:
    """The types of the keys that name no operator class (0 for one that does)."""
    types = {c.attnum: c.domain or c.type_oid for c in table.columns}
    it = iter(expr_types(table, tuple(exprs)))
    out = [types[a] if a else next(it) for a in attnums]
    return [0 if c else t for c, t in zip(classes, out, strict=True)]


def alter_index(s: SQLSession, tree: exp.Alter) -> str:
    """ALTER INDEX [IF EXISTS] name RENAME TO new_name (a constraint's index renames it too),
    SET TABLESPACE pg_default (where every index is) or SET (storage parameters)."""
    actions = tree.args.get("actions") or []
    sets = actions[0] if len(actions) == 1 and isinstance(actions[0], exp.AlterSet) else None
    space = sets.args.get("tablespace") if sets is not None else None
    if len(actions) != 1 or not isinstance(actions[0], exp.AlterRename) and sets is None:
        raise FeatureNotSupported("ALTER INDEX supports only RENAME TO, SET TABLESPACE and SET")
    cat = s.catalog()
    schema, name = table_name(tree.this)
    idx = _find_index(s, schema, name)
    if idx is None:
        skip_or_raise(s, f'relation "{name}"', bool(tree.args.get("exists")), UndefinedTable)
        return "ALTER INDEX"
    if space is not None:
        check_tablespace(ident(space))
        return "ALTER INDEX"
    if sets is not None:
        if not sets.expressions:
            raise FeatureNotSupported("ALTER INDEX action not supported: "
                                      f"{sets.sql('postgres')}")
        opts = merge_options(idx.options, [option_item(e) for e in sets.expressions],
                             lambda items: index_options(idx.method, items))
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(idx, options=opts))
        s.catalog_changed()
        return "ALTER INDEX"
    new_name = table_name(actions[0].this)[1]
    table = cat.table_by_oid(idx.table_oid)
    if table is not None and relation_name_taken(cat, table.schema_oid, new_name):
        raise DuplicateTable(f'relation "{new_name}" already exists')
    txn = s.ensure_txn()
    s.store.put(txn, s.db.oid, dataclasses.replace(idx, name=new_name))
    for con in cat.constraints:
        if con.index_oid == idx.oid and con.name == idx.name:
            s.store.put(txn, s.db.oid, dataclasses.replace(con, name=new_name))
    s.catalog_changed()
    return "ALTER INDEX"


def _find_index(s: SQLSession, schema: str | None, name: str) -> Index | None:
    return find_index(s.catalog(), schema, name, s.search_path())


def drop_index(s: SQLSession, tree: exp.Drop) -> str:
    """DROP INDEX [IF EXISTS] name [, ...]."""
    cat = s.catalog()
    for t in tree.args.get("tables") or [tree.this]:
        schema, name = table_name(t)
        if missing_schema(s, schema, bool(tree.args.get("exists"))):
            continue
        schemas = [schema] if schema else s.search_path()
        idx = None
        for sname in schemas:
            sch = schema_by_name(cat, sname)
            if sch is None:
                continue
            idx = next((i for i in cat.indexes if i.name == name and (
                tb := cat.table_by_oid(i.table_oid)) is not None and tb.schema_oid == sch.oid),
                None)
            if idx:
                break
        if idx is None:
            skip_or_raise(s, f'index "{name}"', bool(tree.args.get("exists")), UndefinedObject)
            continue
        con = next((c for c in cat.constraints if c.index_oid == idx.oid), None)
        if con is not None:
            tb = cat.table_by_oid(idx.table_oid)
            raise DependentObjectsStillExist(
                f"cannot drop index {idx.name} because constraint {con.name} on table "
                f"{tb.name if tb else '?'} requires it",
                hint=f"You can drop constraint {con.name} on table {tb.name if tb else '?'} "
                "instead.")
        s.store.delete(s.ensure_txn(), s.db.oid, idx)
        s.pending_drops.append(idx.space)
        s.catalog_changed()
    return "DROP INDEX"
