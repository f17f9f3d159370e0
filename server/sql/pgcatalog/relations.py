"""pg_namespace, pg_class, pg_attribute, pg_attrdef, pg_index, pg_constraint and their kin.

Rows are derived from the `CatalogSnapshot` on every scan, plus the virtual
system relations themselves (pg_class lists pg_class, as in PostgreSQL, so
`\\d pg_class` and `'pg_class'::regclass` work). The system relations' rows
never change, so they are built once and reused.

NB: pg_attrdef has no OIDs in the model; each default gets a synthetic OID
derived from (table, attnum), which nothing else refers to.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..catalog.syscols import SYSTEM_COLUMNS
from ..largeobj.pages import meta as large_object
from ..partitions.members import descendants
from ..privileges.acl import acl_texts, column_acl_texts
from .accessmethods import INDEX_METHODS
from .aggprocs import AGG_DESCRIPTIONS
from .collations import collation_oid
from .ddltext import predicate_text
from .descriptions import PROC_DESCRIPTIONS, TYPE_DESCRIPTIONS
from .exprtext import default_text
from .icucollations import descriptions as icu_descriptions
from .names import SYSTEM_SCHEMAS, names, schema_owner
from .opclasses import oid_of
from .operators import operator_oid
from .operdata import OPERATOR_DESCRIPTIONS
from .partfks import fk_copies
from .partindexes import index_parent
from .registry import VIRTUAL_TABLES, empty, pg_relation
from .rowtypes import reltype_of
from .stats import class_counts, index_counts
from .systypes import type_storage

COLLATABLE = (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME)
SHARED = frozenset(("pg_database", "pg_authid", "pg_tablespace", "pg_shdescription",
                    "pg_auth_members", "pg_db_role_setting"))
INDOPTION_DESC = 3  # DESC implies NULLS FIRST: INDOPTION_DESC | INDOPTION_NULLS_FIRST


def attrdef_oid(table_oid: int, attnum: int) -> int:
    """Returns the synthetic pg_attrdef OID of one column default."""
    return (1 << 30) + table_oid * 1600 + attnum


def collation_of(type_oid: int) -> int:
    """Returns the column collation PostgreSQL would record (100 default for text types)."""
    base = T.ELEMENT_OF.get(type_oid, type_oid)
    if base == T.NAME:
        return 950  # "C": name sorts bytewise in PostgreSQL
    return 100 if base in COLLATABLE else 0


_PUBLIC_ACL = ["pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"]  # PG 15


def _default_public(s: M.Schema) -> bool:
    return schema_owner(s) != s.owner


@pg_relation("pg_catalog", "pg_namespace")
def pg_namespace(ctx: Any) -> list[tuple[Any, ...]]:
    """The system schemas and the database's own schemas."""
    seen = {s.oid for s in ctx.catalog.schemas}
    rows: list[tuple[Any, ...]] = [(s.oid, s.name, s.owner, None) for s in SYSTEM_SCHEMAS
                                   if s.oid not in seen]
    rows += [(s.oid, s.name, schema_owner(s), acl_texts(ctx.catalog, s.acl) if s.acl is not None
              else _PUBLIC_ACL if _default_public(s) else None)
             for s in ctx.catalog.schemas]
    return rows


def _class_row(oid: int, name: str, nsp: int, kind: str, owner: int, natts: int,
               **kw: Any) -> tuple[Any, ...]:
    am = kw.get("am", {"r": 2, "m": 2, "i": 403}.get(kind, 0))  # NB: "m": ddl.matviews
    has_storage = kind in ("r", "m", "i", "S")
    replident = kw.get("replident", "d" if kind in ("r", "m") else "n")
    return (
        oid, name, nsp, kw.get("reltype", 0), 0, owner, am, oid if has_storage else 0, 0,
        kw.get("pages", 0),
        kw.get("tuples", -1.0 if kind == "r" else 0.0), 0, 0, kw.get("hasindex", False),
        kw.get("shared", False),
        kw.get("persistence", "p"), kind, natts, kw.get("checks", 0), kind == "v", kw.get("triggers", False), False,
        kw.get("rowsecurity", False), kw.get("forcerowsecurity", False),
        kw.get("populated", True), replident,
        kw.get("ispartition", kw.get("partbound") is not None), 0, 0, 0, kw.get("acl"),
        kw.get("options"),
        kw.get("partbound"),
    )


@cache
def _system_class_rows() -> tuple[tuple[Any, ...], ...]:
    nsp = {s.name: s.oid for s in SYSTEM_SCHEMAS}
    return tuple(
        _class_row(vt.oid, vt.name, nsp[vt.schema], vt.kind, M.BOOTSTRAP_SUPERUSER_OID,
                   len(vt.columns), shared=vt.name in SHARED, hasindex=vt.kind == "r",
                   replident="n", reltype=reltype_of(vt.schema, vt.name))
        for vt in VIRTUAL_TABLES.values() if vt.oid
    )


def _descendants(cat: M.CatalogSnapshot, oid: int) -> list[M.Table]:
    """The partitions under a partitioned table (none for another relation)."""
    t = cat.table_by_oid(oid)
    return descendants(cat, t) if t is not None and t.partkey else []


@pg_relation("pg_catalog", "pg_class")
def pg_class(ctx: Any) -> list[tuple[Any, ...]]:
    """Tables, views, indexes and sequences of the snapshot, then the system relations."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    indexed = {i.table_oid for i in cat.indexes}
    checks: dict[int, int] = {}
    triggers: set[int] = set()  # foreign keys are enforced by triggers in PostgreSQL
    for c in cat.constraints:
        if c.kind == "c":
            checks[c.table_oid] = checks.get(c.table_oid, 0) + 1
        elif c.kind == "f":
            triggers.update((c.table_oid, c.ref_table_oid))
            for end in (c.table_oid, c.ref_table_oid):  # NB: partitions get their copies
                triggers.update(d.oid for d in _descendants(cat, end))
    triggers.update(t.table_oid for t in cat.triggers)  # CREATE TRIGGER's
    for tg in cat.triggers:  # a row trigger of a partitioned table is cloned to partitions
        if tg.tgtype & 1:
            triggers.update(d.oid for d in _descendants(cat, tg.table_oid))
    temp = {s.oid for s in cat.schemas if s.name.startswith("pg_temp")}

    def persistence(schema_oid: int, unlogged: str = "p") -> str:
        return "t" if schema_oid in temp else unlogged  # NB: "u": ddl.persistence

    rows = [
        _class_row(t.oid, t.name, t.schema_oid, "p" if t.partkey else t.kind, t.owner,
                   max((c.attnum for c in t.columns), default=0), hasindex=t.oid in indexed,
                   checks=checks.get(t.oid, 0), options=list(t.options) or None,
                   triggers=t.oid in triggers,
                   persistence=persistence(t.schema_oid, t.persistence),
                   reltype=t.reltype, acl=acl_texts(cat, t.acl),
                   rowsecurity=t.rowsecurity, forcerowsecurity=t.forcerowsecurity,
                   populated=t.populated,
                   **({"replident": t.replident} if t.kind == "r" else {}),
                   partbound=t.partbound or None,  # NB: a partition's (sql.partitions)
                   **dict(zip(("pages", "tuples"), class_counts(t), strict=True)))
        for t in cat.tables
    ]
    for i in cat.indexes:
        owner = cat.table_by_oid(i.table_oid)
        nsp = idx.rel[i.oid].schema_oid
        rows.append(_class_row(i.oid, i.name, nsp, "I" if owner and owner.partkey else "i",
                               owner.owner if owner else M.BOOTSTRAP_SUPERUSER_OID,
                               len(i.columns) + len(i.include),
                               ispartition=bool(index_parent(cat, i)),  # sql.partitions
                               persistence=persistence(nsp, owner.persistence if owner else "p"),
                               options=list(i.options) or None,
                               am=INDEX_METHODS[i.method].oid,
                               **dict(zip(("pages", "tuples"), index_counts(owner, i),
                                          strict=True))))
    rows += [_class_row(s.oid, s.name, s.schema_oid, "S", s.owner, 3,
                        persistence=persistence(s.schema_oid, s.persistence),
                        acl=acl_texts(cat, s.acl))
             for s in cat.sequences]
    rows += [_class_row(u.relid, u.name, u.schema_oid, "c", u.owner, len(u.attrs), reltype=u.oid)
             for u in cat.types if u.kind == "c"]  # CREATE TYPE ... AS (...)
    rows.extend(_system_class_rows())
    return rows


def _attr_row(relid: int, name: str, typ: int, num: int, typmod: int = -1,
              notnull: bool = False, hasdef: bool = False, identity: str = "",
              dropped: bool = False, storage_of: int = 0, generated: str = "",
              collation: int | None = None, ndims: int | None = None,
              acl: list[str] | None = None, column: M.Column | None = None,
              stattarget: int = -1) -> tuple[Any, ...]:
    typlen, byval, align, storage = type_storage(storage_of or typ)
    if ndims is None:  # system catalogs and indexes: one dimension per array (and vector) type
        ndims = 1 if typ in T.ELEMENT_OF else 0
    if column is not None:
        stattarget = column.stattarget
    elif dropped:
        stattarget = 0
    if column is not None and column.storage:  # ALTER COLUMN SET STORAGE (ddl.physical)
        storage = column.storage
    return (
        relid, name, typ, stattarget, typlen, num, ndims, -1, typmod, byval,
        align, storage, column.compression if column else "", notnull, hasdef, False, identity,
        generated, dropped, True, 0,
        collation_of(typ) if collation is None else collation, acl,
        list(column.options) if column and column.options else None, None, None,
    )


def _fixed_prefix(columns: Any) -> int:
    """How many leading columns are fixed-width: a system catalog declares those NOT NULL.

    As PostgreSQL's genbki does, int2vector and oidvector count as fixed-width here.
    """
    for n, (_, typ) in enumerate(columns):
        if type_storage(typ)[0] == -1 and typ not in (T.INT2VECTOR, T.OIDVECTOR):
            return n
    return len(columns)


def _catalog_collation(typ: int, kind: str) -> int:
    """System catalogs store their collatable columns with collation "C" (950)."""
    coll = collation_of(typ)
    return 950 if kind == "r" and (coll == 100 or typ == T.PG_NODE_TREE) else coll


@cache
def _system_attr_rows() -> tuple[tuple[Any, ...], ...]:
    rows = []
    for vt in VIRTUAL_TABLES.values():
        if not vt.oid:
            continue
        fixed = _fixed_prefix(vt.columns) if vt.kind == "r" else 0
        rows += [_attr_row(vt.oid, col, typ, n, notnull=n <= fixed,
                           collation=_catalog_collation(typ, vt.kind))
                 for n, (col, typ) in enumerate(vt.columns, 1)]
    return tuple(rows)


@pg_relation("pg_catalog", "pg_attribute")
def pg_attribute(ctx: Any) -> list[tuple[Any, ...]]:
    """Columns of tables and views (dropped ones as PostgreSQL shows them), indexes, sequences."""
    cat: M.CatalogSnapshot = ctx.catalog
    rows = [_attr_row(u.relid, name, typ, n, typmod, ndims=int(typ in T.ELEMENT_OF))
            for u in cat.types if u.kind == "c"  # composite types' attributes
            for n, (name, typ, typmod) in enumerate(u.attrs, 1)]
    for t in cat.tables:
        col_acls = column_acl_texts(cat, t.column_acls) if t.column_acls else {}
        if t.kind in ("r", "m", "p"):  # NB: a table's ctid, xmin, ... as PostgreSQL lists them
            rows += [_attr_row(t.oid, name, typ, num, notnull=True)
                     for name, num, typ in SYSTEM_COLUMNS]
        for c in t.columns:
            if c.dropped:
                # NB: PostgreSQL keeps a dropped column's storage facts but not its type.
                rows.append(_attr_row(t.oid, f"........pg.dropped.{c.attnum}........", 0,
                                      c.attnum, dropped=True, storage_of=c.type_oid))
            else:
                rows.append(_attr_row(t.oid, c.name, c.domain or c.type_oid, c.attnum,
                                      -1 if c.domain else c.typmod, c.not_null,
                                      column_default(c) is not None, c.identity,
                                      storage_of=c.type_oid,
                                      generated="s" if _generated(c) else "", ndims=c.ndims,
                                      acl=col_acls.get(c.attnum),
                                      collation=collation_oid(cat, c.collation), column=c))
    for i in cat.indexes:
        owner = cat.table_by_oid(i.table_oid)
        cols = {c.attnum: c for c in owner.columns} if owner else {}
        key_types = _expr_types(owner, i, [0] * len(i.columns)) if i.exprs else []
        exprs = iter(i.exprs)
        taken: set[str] = set()
        for n, attnum in enumerate((*i.columns, *i.include), 1):
            ic = cols.get(attnum)
            target = i.stattargets[n - 1] if n <= len(i.stattargets) else -1
            if ic is not None:
                rows.append(_attr_row(i.oid, _unique_colname(ic.name, taken), ic.type_oid, n,
                                      ic.typmod))
            elif attnum == 0:  # PostgreSQL names an expression column after its function
                rows.append(_attr_row(i.oid, _unique_colname(_expr_colname(next(exprs)), taken),
                                      key_types[n - 1], n, stattarget=target))
    for s in cat.sequences:
        rows += [_attr_row(s.oid, "last_value", T.INT8, 1, notnull=True),
                 _attr_row(s.oid, "log_cnt", T.INT8, 2, notnull=True),
                 _attr_row(s.oid, "is_called", T.BOOL, 3, notnull=True)]
    rows.extend(_system_attr_rows())
    return rows


def _unique_colname(name: str, taken: set[str]) -> str:
    """An index column's name, numbered as ChooseIndexColumnNames does when it repeats.

    >>> seen: set[str] = set()
    >>> [_unique_colname(n, seen) for n in ("expr", "b", "expr", "expr")]
    ['expr', 'b', 'expr1', 'expr2']
    """
    out, n = name, 0
    while out in taken:
        n += 1
        out = f"{name}{n}"
    taken.add(out)
    return out


def _expr_colname(sql: str) -> str:
    from ..ddl.indexkeys import expr_colname

    return expr_colname(sql)


def _generated(c: M.Column) -> str | None:
    return c.generated


def column_default(c: M.Column) -> str | None:
    """pg_attrdef.adbin of a column: its default, or the expression of a generated column."""
    if c.domain_default and c.generated is None:
        return None  # the domain's DEFAULT: pg_type.typdefault, not pg_attrdef (ddl.domaindefault)
    gen = _generated(c)
    return default_text(gen if gen is not None else c.default, c.type_oid)


@pg_relation("pg_catalog", "pg_attrdef")
def pg_attrdef(ctx: Any) -> list[tuple[Any, ...]]:
    """Column defaults; adbin holds the default as pg_get_expr prints it (see exprtext)."""
    rows = []
    for t in ctx.catalog.tables:
        for c in t.columns:
            text = None if c.dropped else column_default(c)
            if text is not None:
                rows.append((attrdef_oid(t.oid, c.attnum), t.oid, c.attnum, text))
    return rows


def index_row(cat: M.CatalogSnapshot, i: M.Index, immediate: bool = True) -> tuple[Any, ...]:
    """Returns the pg_index row of one index (`immediate`: false for a DEFERRABLE key's)."""
    t = cat.table_by_oid(i.table_oid)
    types = {c.attnum: c.type_oid for c in t.columns} if t else {}
    typs = [types.get(a, 0) for a in i.columns]
    if i.exprs:  # NB: an expression key's type is the compiled expression's
        typs = _expr_types(t, i, typs)
    desc = list(i.descending) + [False] * (len(i.columns) - len(i.descending))
    every = list(i.columns) + list(i.include)
    return (
        i.oid, i.table_oid, len(every), len(i.columns), i.unique or i.primary,
        i.nulls_not_distinct,
        i.primary, False, immediate, False, True, False, True, True, False, every,
        [collation_of(x) for x in typs] + [0] * len(i.include),
        [oid_of(c, x, i.method) for c, x in zip(_padded(i.opclasses, len(typs)), typs, strict=True)]
        + [0] * len(i.include),
        [INDOPTION_DESC if d else 0 for d in desc] + [0] * len(i.include),
        ", ".join(i.exprs) if i.exprs else None,
        predicate_text(t, i.predicate, False) if i.predicate else None,
    )


def _padded(opclasses: tuple[str, ...], n: int) -> list[str]:
    return list(opclasses) + [""] * (n - len(opclasses))


def _expr_types(t: M.Table | None, i: M.Index, typs: list[int]) -> list[int]:
    """Key types of an expression index: the columns', and the expressions' result types."""
    from ..ddl.indexkeys import expr_types

    it = iter(expr_types(t, i.exprs))
    return [x if a else next(it) for a, x in zip(i.columns, typs, strict=True)]


@pg_relation("pg_catalog", "pg_index")
def pg_index(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per index; indkey, indoption are int2vectors (lists), indpred is SQL text."""
    cat = ctx.catalog
    deferrable = {c.index_oid for c in cat.constraints if c.deferrable}
    marks = {(t.cluster_index, 9) for t in cat.tables if t.cluster_index} | {
        (t.replident_index, 14) for t in cat.tables if t.replident == "i"} | {  # ddl.physical
        (c.index_oid, 7) for c in cat.constraints if c.kind == "x"}  # indisexclusion
    rows = [index_row(cat, i, i.oid not in deferrable) for i in cat.indexes]
    return [r if not marks else tuple(
        True if (r[0], n) in marks else v for n, v in enumerate(r)) for r in rows]


def referenced_index(cat: M.CatalogSnapshot, c: M.Constraint) -> int:
    """Returns the unique index a foreign key relies on (0 when none matches)."""
    for i in cat.indexes_of(c.ref_table_oid):
        if (i.unique or i.primary) and sorted(i.columns) == sorted(c.ref_columns):
            return i.oid
    return 0


def _exclusion_ops(cat: M.CatalogSnapshot, c: M.Constraint) -> list[int]:
    """conexclop: the EXCLUDE constraint's operators, by their keys' types."""
    idx = next((i for i in cat.indexes if i.oid == c.index_oid), None)
    if idx is None:
        return [0] * len(c.operators)
    t = cat.table_by_oid(c.table_oid)
    types = {col.attnum: col.type_oid for col in t.columns} if t else {}
    keys = [types.get(a, 0) for a in idx.columns]
    if idx.exprs:
        keys = _expr_types(t, idx, keys)
    return [operator_oid(op, k) for op, k in zip(c.operators, keys, strict=True)]


@pg_relation("pg_catalog", "pg_constraint")
def pg_constraint(ctx: Any) -> list[tuple[Any, ...]]:
    """Primary key, unique, foreign key and check constraints."""
    cat: M.CatalogSnapshot = ctx.catalog
    rows = []
    for c in cat.constraints:
        t = cat.table_by_oid(c.table_oid)
        fk = c.kind == "f"
        rows.append((
            c.oid, c.name, t.schema_oid if t else M.PUBLIC_OID, c.kind, c.deferrable,
            c.deferred, c.validated,
            c.table_oid, 0, c.index_oid if not fk else referenced_index(cat, c), 0,
            c.ref_table_oid if fk else 0, c.on_update if fk else " ",
            c.on_delete if fk else " ", "s" if fk else " ", True, 0,
            c.kind != "c" and not (fk and t is not None and t.partkey),  # NB: inherited
            list(c.columns) or None, list(c.ref_columns) if fk else None, None, None, None,
            None, _exclusion_ops(cat, c) if c.kind == "x" else None,
            c.check if c.kind == "c" else None,
        ))
    for copy in fk_copies(cat):  # NB: partitions' copies of foreign keys (pgcatalog.partfks)
        c, t = copy.con, cat.table_by_oid(copy.con.table_oid)
        rows.append((
            c.oid, c.name, t.schema_oid if t else M.PUBLIC_OID, "f", c.deferrable, c.deferred,
            c.validated, c.table_oid, 0, referenced_index(cat, c), copy.parent, c.ref_table_oid,
            c.on_update, c.on_delete, "s", False, 1, False, list(c.columns),
            list(c.ref_columns), None, None, None, None, None, None))
    for tg in cat.triggers:  # CREATE CONSTRAINT TRIGGER's own row (contype t)
        t = cat.table_by_oid(tg.table_oid)
        if tg.constraint_oid and t is not None:
            rows.append((tg.constraint_oid, tg.name, t.schema_oid, "t", tg.deferrable,
                         tg.initdeferred, True, tg.table_oid, 0, 0, 0, 0, " ", " ", " ", True, 0,
                         True, None, None, None, None, None, None, None, None))
    for dom in cat.types:  # CREATE DOMAIN's checks: contypid is the domain, conrelid 0
        for oid, name, text in zip(dom.check_oids, dom.check_names, dom.checks, strict=True):
            rows.append((oid, name, dom.schema_oid, "c", False, False, True, 0, dom.oid, 0, 0, 0,
                         " ", " ", " ", True, 0, False, None, None, None, None, None, None,
                         None, text))
    return rows


@pg_relation("pg_catalog", "pg_sequence")
def pg_sequence(ctx: Any) -> list[tuple[Any, ...]]:
    """Sequence parameters."""
    return [
        (s.oid, s.type_oid, s.start, s.increment, s.max_value, s.min_value, s.cache, s.cycle)
        for s in ctx.catalog.sequences
    ]


# PostgreSQL 15's own comments on the objects Cumulo also has (psql's \dx, \dL, \dn+ show them).
BUILTIN_DESCRIPTIONS = (
    (12, 2612, 0, "built-in functions"),
    (13, 2612, 0, "dynamically-loaded C functions"),
    (14, 2612, 0, "SQL-language functions"),
    (M.PG_CATALOG_OID, 2615, 0, "system catalog schema"),
    (M.PG_TOAST_OID, 2615, 0, "reserved schema for TOAST tables"),
    (M.PUBLIC_OID, 2615, 0, "standard public schema"),
    (13559, 3079, 0, "PL/pgSQL procedural language"),
    (13563, 2612, 0, "PL/pgSQL procedural language"),
    *((oid, 1255, 0, text) for oid, text in PROC_DESCRIPTIONS.items()),
    *((oid, 1255, 0, text) for oid, text in AGG_DESCRIPTIONS.items()),
    *((oid, 1247, 0, text) for oid, text in TYPE_DESCRIPTIONS.items()),
    *((oid, 2617, 0, text) for oid, text in OPERATOR_DESCRIPTIONS.items()),
)
# (objoid, classoid) -> description, for obj_description's lookups
BUILTIN_DESCRIPTION_OF = {(o, c): d for o, c, _, d in BUILTIN_DESCRIPTIONS}


@pg_relation("pg_catalog", "pg_description")
def pg_description(ctx: Any) -> list[tuple[Any, ...]]:
    """Comments on objects of the database (COMMENT ON ...), with their catalog's OID."""
    cat: M.CatalogSnapshot = ctx.catalog
    idx = names(cat)
    out = [row for row in BUILTIN_DESCRIPTIONS if (row[0], row[2]) not in cat.comments]
    out += [(oid, 3456, 0, text) for oid, text in icu_descriptions().items()
            if (oid, 0) not in cat.comments]  # the predefined ICU collations' (initdb's)
    for (objoid, subid), text in cat.comments.items():
        if objoid in idx.rel:
            classoid = 1259
        elif any(c.oid == objoid for c in cat.constraints):
            classoid = 2606
        elif objoid in idx.schemas:
            classoid = 2615
        elif objoid in icu_descriptions() or any(c.oid == objoid for c in cat.collations):
            classoid = 3456  # pg_collation
        elif objoid in idx.roles or any(d.oid == objoid for d in cat.databases):
            continue  # shared objects: pg_shdescription
        elif ctx.session is not None and large_object(ctx.session.ensure_txn(), cat.database.oid,
                                                      objoid) is not None:
            classoid = 2613  # pg_largeobject
        else:
            classoid = 1255
        out.append((objoid, classoid, subid, text))
    return out


for _name in ("pg_policy", "pg_statistic_ext",
              "pg_trigger", "pg_foreign_table", "pg_publication",
              "pg_publication_rel", "pg_publication_namespace", "pg_db_role_setting"):
    empty("pg_catalog", _name)
