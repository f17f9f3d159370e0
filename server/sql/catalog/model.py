"""The catalog's object model: plain dataclasses describing databases, schemas, tables and the rest.

The SQL core owns how these are stored (as rows of the system space, written
through ordinary transactions, so DDL is transactional and survives restarts)
and hands the rest of the SQL layer an immutable `CatalogSnapshot`. The
pg_catalog / information_schema views (`sql.pgcatalog`) are computed from a
snapshot, so psql, SQLAlchemy and JDBC see exactly what the engine uses.

OIDs follow PostgreSQL: built-in objects keep PostgreSQL's OIDs (pg_catalog is
11, public is 2200), user objects get OIDs from 16384 up, shared by every kind
of object, as PostgreSQL's OID counter is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FIRST_USER_OID = 16384
PG_CATALOG_OID = 11
PG_TOAST_OID = 99
PUBLIC_OID = 2200
INFORMATION_SCHEMA_OID = 13183
BOOTSTRAP_SUPERUSER_OID = 10


@dataclass(frozen=True)
class Role:
    oid: int
    name: str
    superuser: bool = False
    login: bool = True
    password: str | None = None  # SCRAM verifier or md5 hash
    createdb: bool = False
    createrole: bool = False
    inherit: bool = True  # INHERIT: uses the privileges of the roles it is a member of
    member_of: tuple[int, ...] = ()  # GRANT role TO this role: the granted roles' OIDs


@dataclass(frozen=True)
class Database:
    oid: int
    name: str
    owner: int = BOOTSTRAP_SUPERUSER_OID
    acl: tuple[str, ...] | None = None  # ACL items `grantee=privs/grantor` by OID (None: default)
    default_acls: tuple[str, ...] = ()  # ALTER DEFAULT PRIVILEGES (privileges.defaults)


@dataclass(frozen=True)
class Schema:
    oid: int
    name: str
    owner: int = BOOTSTRAP_SUPERUSER_OID
    acl: tuple[str, ...] | None = None  # ACL items `grantee=privs/grantor` by OID (None: default)


@dataclass(frozen=True)
class Column:
    name: str
    type_oid: int
    typmod: int = -1  # varchar(50) -> 54, numeric(10,2) -> 655366, as in PostgreSQL
    attnum: int = 0  # 1-based, stable across ALTER TABLE DROP COLUMN
    not_null: bool = False
    default: str | None = None  # the default's SQL text, as pg_get_expr prints it
    identity: str = ""  # "" | "a" (ALWAYS) | "d" (BY DEFAULT), as pg_attribute.attidentity
    dropped: bool = False
    generated: str | None = None  # GENERATED ALWAYS AS (expr) STORED: the expression's SQL text
    ndims: int = 0  # declared array dimensions (`int[][]` -> 2), as pg_attribute.attndims
    collation: str = ""  # COLLATE "C" / "POSIX" ("" = the database default), pgcatalog.collations
    domain: int = 0  # a CREATE DOMAIN type's OID (type_oid/typmod are then its base type's)
    domain_default: bool = False  # `default` is the domain's (no pg_attrdef row): ddl.domaindefault
    # ALTER COLUMN SET STATISTICS / STORAGE / COMPRESSION, as pg_attribute shows them
    # (ddl.physical; "" storage: the type's)
    stattarget: int = -1
    storage: str = ""
    compression: str = ""
    options: tuple[str, ...] = ()  # ALTER COLUMN SET (n_distinct = ...): pg_attribute.attoptions


@dataclass(frozen=True)
class Index:
    oid: int
    name: str
    table_oid: int
    columns: tuple[int, ...]  # attnums
    unique: bool = False
    primary: bool = False
    space: int = 0  # KiVi space holding the index entries (0 for the primary key: the table itself)
    descending: tuple[bool, ...] = ()
    predicate: str | None = None
    include: tuple[int, ...] = ()  # INCLUDE (...) attnums: stored with the index, not keys
    exprs: tuple[str, ...] = ()  # SQL of the expression keys, one per 0 in `columns`
    nulls_not_distinct: bool = False  # UNIQUE NULLS NOT DISTINCT: NULLs collide too
    opclasses: tuple[str, ...] = ()  # per key: an explicit operator class ("" = the default)
    method: str = "btree"  # CREATE INDEX ... USING: what pg_am names (stored ordered whatever it is)
    stattargets: tuple[int, ...] = ()  # ALTER INDEX ... ALTER COLUMN n SET STATISTICS, per key
    options: tuple[str, ...] = ()  # reloptions: WITH (fillfactor = 70) (catalog.indexoptions)


@dataclass(frozen=True)
class Constraint:
    oid: int
    name: str
    table_oid: int
    kind: str  # "p" primary key, "u" unique, "f" foreign key, "c" check, "x" exclusion (contype)
    columns: tuple[int, ...] = ()  # attnums
    index_oid: int = 0  # for p/u/x: the index that enforces it
    ref_table_oid: int = 0  # for f
    ref_columns: tuple[int, ...] = ()
    on_delete: str = "a"  # a no action, r restrict, c cascade, n set null, d set default
    on_update: str = "a"
    check: str | None = None  # for c: the expression's SQL text
    deferrable: bool = False  # DEFERRABLE (foreign keys): SET CONSTRAINTS may defer it
    deferred: bool = False  # INITIALLY DEFERRED: checked at COMMIT unless set IMMEDIATE
    validated: bool = True  # False after ADD ... NOT VALID until VALIDATE CONSTRAINT
    operators: tuple[str, ...] = ()  # for x (EXCLUDE): one operator name per index key


@dataclass(frozen=True)
class Table:
    """A table or a view (kind "r" or "v", as pg_class.relkind)."""

    oid: int
    name: str
    schema_oid: int
    columns: tuple[Column, ...]
    primary_key: tuple[int, ...] = ()  # attnums; empty: a hidden row id is the key
    space: int = 0  # KiVi space of the rows
    kind: str = "r"
    view_sql: str | None = None
    owner: int = BOOTSTRAP_SUPERUSER_OID
    options: tuple[str, ...] = ()  # reloptions, e.g. ("fillfactor=100",)
    reltype: int = 0  # the OID of its composite row type in pg_type (0: none)
    array_type: int = 0  # the OID of that row type's array type
    acl: tuple[str, ...] | None = None  # ACL items `grantee=privs/grantor` by OID (None: default)
    column_acls: tuple[str, ...] = ()  # column privileges: `attnum:grantee=privs/grantor`
    # ddl.physical: REPLICA IDENTITY (pg_class.relreplident; "i": replident_index), CLUSTER ON
    # (pg_index.indisclustered), [FORCE] ROW LEVEL SECURITY
    replident: str = "d"
    replident_index: int = 0
    cluster_index: int = 0
    rowsecurity: bool = False
    forcerowsecurity: bool = False
    persistence: str = "p"  # pg_class.relpersistence: "p", or "u" (UNLOGGED; ddl.persistence)
    # declarative partitioning (sql.partitions), as PostgreSQL prints them: a partitioned
    # table's key (`RANGE (d)`: relkind "p", it holds no rows itself), a partition's parent
    # and bound (`FOR VALUES FROM (1) TO (10)`, `DEFAULT`)
    partkey: str = ""
    partof: int = 0
    partbound: str = ""
    populated: bool = True  # a materialized view's relispopulated (ddl.matviews: WITH NO DATA)

    @property
    def live_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if not c.dropped)


@dataclass(frozen=True)
class Sequence:
    oid: int
    name: str
    schema_oid: int
    type_oid: int = 20
    start: int = 1
    increment: int = 1
    min_value: int = 1
    max_value: int = 2**63 - 1
    cycle: bool = False
    cache: int = 1
    owned_by: tuple[int, int] | None = None  # (table oid, attnum) for SERIAL / identity
    owner: int = BOOTSTRAP_SUPERUSER_OID
    acl: tuple[str, ...] | None = None  # ACL items `grantee=privs/grantor` by OID (None: default)
    persistence: str = "p"  # "u": its table was made UNLOGGED (ddl.persistence)


@dataclass(frozen=True)
class UserType:
    """A type made by CREATE TYPE: an enum ("e"), a composite ("c") or a range ("r"), or by
    CREATE DOMAIN ("d"), as pg_type.typtype. Its values use the representation of the type
    kind (see sql.expr.usertypes)."""

    oid: int
    name: str
    schema_oid: int
    kind: str
    array_oid: int = 0
    owner: int = BOOTSTRAP_SUPERUSER_OID
    labels: tuple[str, ...] = ()  # enum: the labels, in sort order
    label_oids: tuple[int, ...] = ()  # enum: pg_enum.oid of each label
    sort_orders: tuple[float, ...] = ()  # enum: pg_enum.enumsortorder of each label
    attrs: tuple[tuple[str, int, int], ...] = ()  # composite: (name, type oid, typmod)
    subtype: int = 0  # range: the subtype OID
    relid: int = 0  # composite: its pg_class OID (relkind "c")
    multi_oid: int = 0  # range: its multirange type
    multi_array_oid: int = 0  # range: the multirange's array type
    multi_name: str = ""  # range: the multirange type's name
    # domain ("d"; `subtype` is the base type): its typmod, NOT NULL, DEFAULT's SQL text, and
    # its CHECK constraints' names, SQL texts (over VALUE) and pg_constraint OIDs
    typmod: int = -1
    not_null: bool = False
    default: str | None = None
    check_names: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    check_oids: tuple[int, ...] = ()
    parent: int = 0  # domain over a domain: the parent domain's OID (its constraints apply too)


@dataclass(frozen=True)
class Function:
    """A function made by CREATE FUNCTION (LANGUAGE sql or plpgsql), as pg_proc lists it."""

    oid: int
    name: str
    schema_oid: int
    arg_types: tuple[int, ...] = ()
    arg_names: tuple[str, ...] = ()
    returns: int = 2278  # void
    language: str = "plpgsql"
    body: str = ""
    volatility: str = "v"  # provolatile: i, s, v
    strict: bool = False
    owner: int = BOOTSTRAP_SUPERUSER_OID
    acl: tuple[str, ...] | None = None  # ACL items `grantee=privs/grantor` by OID (None: default)
    retset: bool = False  # RETURNS SETOF / TABLE (proretset)
    out_names: tuple[str, ...] = ()  # a composite result's fields: OUT / TABLE columns, a
    out_types: tuple[int, ...] = ()  # table's row (`returns` is then its row type or record)
    out_column: str = ""  # a single OUT or TABLE column's name (the column's name in FROM)
    # every parameter as declared (plpgsql.signature): proargmodes' letters (i o b v t), the
    # printed declaration and the printed default ("" none), for pg_get_function_arguments
    param_modes: tuple[str, ...] = ()
    param_texts: tuple[str, ...] = ()
    param_defaults: tuple[str, ...] = ()
    kind: str = "f"  # prokind: f a function, p a procedure (CREATE PROCEDURE, run by CALL)
    atomic: bool = False  # a BEGIN ATOMIC body (prosqlbody): `body` is its statements, deparsed
    secdef: bool = False  # SECURITY DEFINER (prosecdef): runs as its owner (plpgsql.routinectx)
    config: tuple[str, ...] = ()  # SET clauses as `name=value` (proconfig), set for each call
    # a parameter (the result) declared as a CREATE DOMAIN type: its OID, else 0 (its base
    # type is in arg_types / returns): pg_proc lists it, calls check the domain's constraints
    arg_domains: tuple[int, ...] = ()
    returns_domain: int = 0


@dataclass(frozen=True)
class Extension:
    """An extension made by CREATE EXTENSION (pg_extension); its objects are built in."""

    oid: int
    name: str
    schema_oid: int
    version: str
    owner: int = BOOTSTRAP_SUPERUSER_OID


@dataclass(frozen=True)
class Collation:
    """A collation made by CREATE COLLATION, as pg_collation lists it: a code-point libc
    one ("C", "POSIX", "C.UTF-8") or an ICU one (provider "i", its locale in `iculocale`):
    see `ddl.collationstmt`."""

    oid: int
    name: str
    schema_oid: int
    owner: int = BOOTSTRAP_SUPERUSER_OID
    provider: str = "c"  # collprovider: c (libc)
    deterministic: bool = True
    encoding: int = -1  # collencoding: -1 (any) when copied FROM C or POSIX, else 6 (UTF8)
    collate: str | None = "C"
    ctype: str | None = "C"
    iculocale: str | None = None  # colliculocale (provider "i")
    version: str | None = None  # collversion


@dataclass(frozen=True)
class Trigger:
    """A trigger made by CREATE TRIGGER, as pg_trigger lists it (`tgtype`: PostgreSQL's bits,
    ROW 1, BEFORE 2, INSERT 4, DELETE 8, UPDATE 16, TRUNCATE 32, INSTEAD 64)."""

    oid: int
    name: str
    table_oid: int
    function_oid: int
    tgtype: int
    enabled: str = "O"  # tgenabled: O (origin, enabled), D (disabled), R, A
    args: tuple[str, ...] = ()  # the function's text arguments (TG_ARGV)
    columns: tuple[int, ...] = ()  # UPDATE OF: attnums
    when: str = ""  # WHEN (cond): the condition's SQL text, as written
    old_table: str = ""  # REFERENCING OLD TABLE AS o: the transition table's name
    new_table: str = ""
    constraint_oid: int = 0  # CREATE CONSTRAINT TRIGGER: its pg_constraint row (contype t)
    deferrable: bool = False
    initdeferred: bool = False
    constrrelid: int = 0  # CREATE CONSTRAINT TRIGGER ... FROM table: that table


@dataclass(frozen=True)
class CatalogSnapshot:
    """An immutable view of one database's catalog plus the shared roles and databases."""

    database: Database
    databases: tuple[Database, ...]
    roles: tuple[Role, ...]
    schemas: tuple[Schema, ...]
    tables: tuple[Table, ...]
    indexes: tuple[Index, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    sequences: tuple[Sequence, ...] = ()
    comments: dict[tuple[int, int], str] = field(default_factory=dict)  # (objoid, objsubid)
    version: int = 0
    types: tuple[UserType, ...] = ()  # CREATE TYPE's types
    extensions: tuple[Extension, ...] = ()  # CREATE EXTENSION's
    functions: tuple[Function, ...] = ()  # CREATE FUNCTION's
    triggers: tuple[Trigger, ...] = ()  # CREATE TRIGGER's
    collations: tuple[Collation, ...] = ()  # CREATE COLLATION's
    # what callers derive from this snapshot and keep while it lives (dml.writer's table
    # writers): a snapshot never changes, so neither does what is derived from it
    derived: dict[str, dict[Any, Any]] = field(default_factory=dict, compare=False, repr=False)

    def schema_by_oid(self, oid: int) -> Schema | None:
        return next((s for s in self.schemas if s.oid == oid), None)

    def table_by_oid(self, oid: int) -> Table | None:
        return next((t for t in self.tables if t.oid == oid), None)

    def existing_table(self, oid: int) -> Table:
        """The table `oid` where the OID comes from this catalog (a constraint's, an
        index's): its absence is a broken catalog, so a KeyError (XX000), not None."""
        t = self.table_by_oid(oid)
        if t is None:
            raise KeyError(f"table with OID {oid} not in the catalog")
        return t

    def indexes_of(self, table_oid: int) -> list[Index]:
        return [i for i in self.indexes if i.table_oid == table_oid]

    def constraints_of(self, table_oid: int) -> list[Constraint]:
        return [c for c in self.constraints if c.table_oid == table_oid]
