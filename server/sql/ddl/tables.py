"""CREATE TABLE, DROP TABLE and TRUNCATE.

Storage layout (what the query compiler reads): a table's rows live in its
own KiVi space, one row tuple per table row with slot `attnum - 1` for each
column (a dropped column keeps a None slot, so attnums stay stable). The key
is `encode_key(primary-key values)`; a table without a primary key gets a
hidden row id as its key, `encode_key((rowid,))`. Every unique or primary-key
constraint is backed by an `Index`; the primary key's index is the table
itself (space 0).

SERIAL columns and identity columns own a sequence named `<table>_<col>_seq`;
their default is `nextval('<seq>'::regclass)`, as in PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DuplicateColumn,
    DuplicateObject,
    DuplicateTable,
    FeatureNotSupported,
    InvalidTableDefinition,
    UndefinedColumn,
    UndefinedTable,
    WrongObjectType,
)
from ...pgtypes import oids as T
from ..catalog import statstore
from ..catalog.model import Column, Constraint, Index, Schema, Sequence, Table
from ..catalog.syscols import check_column_name
from ..catalog.tableoptions import option_item, table_options
from ..context import ParamTypes
from ..dml.deferstate import refuse_pending
from ..dml.firetriggers import TableTriggers
from ..dml.writer import writer_for
from ..expr.types import array_ndims, declared_domain, domain_of
from ..partitions.members import descendants, partitions_of
from ..pgcatalog.collations import column_collation
from ..plan.compiler import COMPILER
from ..privileges.check import current_role_oid
from ..privileges.defaults import table_acl
from .checkcols import check_attnums, check_col
from .coldefs import column_type, default_sql, identity_options, quote_ident
from .constraints import add_foreign_key, fk_deferral
from .depends import refuse_dependents, relation_description, report_cascade, views_depending
from .exclusion import add_exclusion
from .immutable import check_generated
from .liketable import add_like, copy_indexes
from .names import (
    creation_schema,
    find_relation,
    get_relation,
    ident,
    missing_schema,
    relation_name_taken,
    schema_by_name,
    skip_or_raise,
    table_name,
    unique_name,
)
from .oncommit import ACTIONS
from .oncommit import register as register_on_commit
from .partitions import bound_text, fill_partition, key_text, parent_of
from .persistence import check_table_method, check_tablespace

if TYPE_CHECKING:
    from ..session import SQLSession

SERIALS = {"SERIAL": T.INT4, "BIGSERIAL": T.INT8, "SMALLSERIAL": T.INT2}
SEQ_MAX = {T.INT2: 2**15 - 1, T.INT4: 2**31 - 1, T.INT8: 2**63 - 1}


def _fk_action(options: list[Any] | None, which: str) -> str:
    for o in options or []:
        text = str(o).upper()
        if text.startswith(f"ON {which.upper()}"):
            action = text[len(which) + 4:].strip()
            return {"CASCADE": "c", "RESTRICT": "r", "SET NULL": "n", "SET DEFAULT": "d",
                    "NO ACTION": "a"}.get(action, "a")
    return "a"


class TableBuilder:
    """Collects a CREATE TABLE's columns and constraints, then writes the catalog rows."""

    def __init__(self, s: SQLSession, schema_oid: int, name: str) -> None:
        self.s = s
        self.cat = s.catalog()
        self.schema_oid = schema_oid
        self.name = name
        self.oid = s.store.allocate_oid()
        self.columns: list[Column] = []
        self.pk: tuple[int, ...] = ()
        self.pk_name = ""
        self.pk_deferral = (False, False)  # (DEFERRABLE, INITIALLY DEFERRED), as for uniques
        # (name, cols, NULLS NOT DISTINCT, deferral)
        self.uniques: list[tuple[str, tuple[int, ...], bool, tuple[bool, bool]]] = []
        self.exclusions: list[tuple[str, exp.Expression]] = []  # EXCLUDE (name, node)
        self.checks: list[tuple[str, str]] = []
        self.fks: list[tuple[str, tuple[int, ...], Any, list[str], list[Any] | None]] = []
        self.sequences: list[Sequence] = []
        self.names: set[str] = set()
        self.persistence = "p"  # "u": CREATE UNLOGGED TABLE (ddl.persistence)

    def attnum(self, name: str) -> int:
        """Returns a column's attnum (42703 if there is no such column)."""
        for c in self.columns:
            if c.name == name:
                return c.attnum
        raise UndefinedColumn(f'column "{name}" named in key does not exist')

    def add_column(self, cd: exp.ColumnDef) -> None:
        """Adds one column definition with its inline constraints."""
        name = ident(cd.this)
        check_column_name(name)
        if any(c.name == name for c in self.columns):
            raise DuplicateColumn(f'column "{name}" specified more than once')
        kind = cd.args.get("kind")
        if kind is None:
            raise InvalidTableDefinition(f'column "{name}" has no type')
        attnum = len(self.columns) + 1
        serial = (SERIALS.get(getattr(kind.this, "name", str(kind.this)))
                  if isinstance(kind, exp.DataType) else None)
        oid, typmod = (serial, -1) if serial else column_type(kind)
        not_null, default, identity = bool(serial), None, ""
        generated: str | None = None
        collation = ""
        seq_opts: dict[str, Any] = {}
        for cc in cd.args.get("constraints") or []:
            k = cc.args.get("kind")
            cname = ident(cc.this) if cc.this else None
            if isinstance(k, exp.NotNullColumnConstraint):
                not_null = not k.args.get("allow_null")
            elif isinstance(k, exp.PrimaryKeyColumnConstraint):
                self.set_pk((attnum,), cname)
                self.pk_deferral = fk_deferral(k.args.get("options"))
                not_null = True
            elif isinstance(k, exp.UniqueColumnConstraint):
                self.uniques.append((cname or "", (attnum,), bool(k.args.get("nulls")),
                                     fk_deferral(k.args.get("options"))))
            elif isinstance(k, exp.DefaultColumnConstraint):
                default = default_sql(k.this)
            elif isinstance(k, exp.CheckColumnConstraint):
                self.checks.append((cname or "", k.this.sql("postgres")))
            elif isinstance(k, exp.Reference):
                self.fks.append((cname or "", (attnum,), k.this, [], k.args.get("options")))
            elif isinstance(k, exp.ComputedColumnConstraint):
                generated = k.this.sql("postgres", normalize_functions="lower")
            elif isinstance(k, exp.CollateColumnConstraint):
                collation = column_collation(ident(k.this), oid, self.cat)
            elif isinstance(k, exp.GeneratedAsIdentityColumnConstraint):
                identity = "a" if k.this else "d"
                not_null = True
                seq_opts = identity_options(k)
        if serial or identity:
            default = self._owned_sequence(name, oid, attnum, identity,
                                           seq_opts if identity else {})
        if generated is not None and default is not None:
            raise InvalidTableDefinition(
                f'both default and generation expression specified for column "{name}" of '
                f'table "{self.name}"')
        dom = domain_of(kind)  # a CREATE DOMAIN type: its base type, checks, and default
        inherit = dom is not None and default is None and generated is None  # ddl.domaindefault
        if dom is not None and inherit:
            default = dom.default
        self.columns.append(Column(name, oid, typmod, attnum, not_null, default, identity,
                                   generated=generated, ndims=array_ndims(kind),
                                   collation=collation, domain=declared_domain(kind),
                                   domain_default=inherit))

    def _owned_sequence(self, col: str, type_oid: int, attnum: int, identity: str,
                        opts: dict[str, Any]) -> str | None:
        seq_name = unique_name(self.cat, self.schema_oid, f"{self.name}_{col}_seq", self.names)
        self.names.add(seq_name)
        inc = opts.get("increment", 1)
        lo = opts.get("min_value", 1 if inc > 0 else -SEQ_MAX[type_oid] - 1)
        hi = opts.get("max_value", SEQ_MAX[type_oid] if inc > 0 else -1)
        seq = Sequence(self.s.store.allocate_oid(), seq_name, self.schema_oid, type_oid,
                       start=opts.get("start", lo if inc > 0 else hi), increment=inc,
                       min_value=lo, max_value=hi, cycle=opts.get("cycle", False),
                       cache=opts.get("cache", 1), owned_by=(self.oid, attnum))
        self.sequences.append(seq)
        if identity:
            return None
        ref = quote_ident(seq_name)
        schema = next((x.name for x in self.cat.schemas if x.oid == self.schema_oid), "public")
        if schema not in self.s.search_path():  # NB: as PostgreSQL, qualified when not visible
            ref = f"{quote_ident(schema)}.{ref}"
        return "nextval('" + ref.replace("'", "''") + "'::regclass)"

    def set_pk(self, cols: tuple[int, ...], name: str | None) -> None:
        """Declares the primary key (42P16 if there already is one)."""
        if self.pk:
            raise InvalidTableDefinition(
                f'multiple primary keys for table "{self.name}" are not allowed')
        self.pk, self.pk_name = cols, name or ""

    def add_table_constraint(self, node: exp.Expression) -> None:
        """Adds a table-level constraint (PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY)."""
        cname = ""
        if isinstance(node, exp.Constraint):
            cname = ident(node.this)
            inner = node.expressions
        else:
            inner = [node]
        for c in inner:
            if isinstance(c, exp.PrimaryKey):
                self.set_pk(tuple(self.attnum(ident(e)) for e in c.expressions), cname)
                self.pk_deferral = fk_deferral(c.args.get("options"))
            elif isinstance(c, exp.UniqueColumnConstraint):
                cols = c.this.expressions if isinstance(c.this, exp.Schema) else []
                self.uniques.append((cname, tuple(self.attnum(ident(e)) for e in cols),
                                     bool(c.args.get("nulls")), fk_deferral(c.args.get("options"))))
            elif isinstance(c, exp.CheckColumnConstraint):
                self.checks.append((cname, c.this.sql("postgres")))
            elif isinstance(c, exp.ForeignKey):
                ref = c.args.get("reference")
                if ref is None:
                    raise FeatureNotSupported(f"constraint not supported: {c.sql('postgres')}")
                fk_cols = tuple(self.attnum(ident(e)) for e in c.expressions)
                self.fks.append((cname, fk_cols, ref.this, [], ref.args.get("options")))
            elif isinstance(c, exp.ExcludeColumnConstraint):
                self.exclusions.append((cname, c))
            else:
                raise FeatureNotSupported(f"constraint not supported: {c.sql('postgres')}")

    def _name(self, given: str | None, base: str, index_backed: bool) -> str:
        """A constraint's name: the one given (kept as is, as in PostgreSQL) or a free one."""
        if not given:
            name = unique_name(self.cat, self.schema_oid, base, self.names)
        elif given in self.names or (index_backed and relation_name_taken(
                self.cat, self.schema_oid, given)):
            if index_backed:
                raise DuplicateTable(f'relation "{given}" already exists')
            raise DuplicateObject(f'check constraint "{given}" already exists')
        else:
            name = given
        self.names.add(name)
        return name

    def finish(self, options: tuple[str, ...]) -> Table:
        """Writes the table, its sequences, indexes and constraints."""
        check_generated(self.s, self.name, self.columns)
        cols = list(self.columns)
        for a in self.pk:
            c = cols[a - 1]
            cols[a - 1] = dataclasses.replace(c, not_null=True)
        store, txn, db = self.s.store, self.s.ensure_txn(), self.s.db.oid
        owner = current_role_oid(self.s)
        # A DEFERRABLE primary key may hold a value twice until COMMIT: its rows then live
        # under hidden row ids and the key is a unique index of its own (writer's checks)
        by_rowid = bool(self.pk) and self.pk_deferral[0]
        table = Table(self.oid, self.name, self.schema_oid, tuple(cols),
                      () if by_rowid else self.pk, self.oid,
                      owner=owner, options=options,
                      reltype=store.allocate_oid(), array_type=store.allocate_oid(),
                      acl=table_acl(self.s, owner, self.schema_oid), persistence=self.persistence)
        txn.claim_space(self.oid)  # NB: a new space: loads in this txn skip conflict checks
        store.put(txn, db, table)
        for seq in self.sequences:
            store.put(txn, db, dataclasses.replace(seq, persistence=self.persistence))
        if self.pk:
            iname = self._name(self.pk_name, f"{self.name}_pkey", True)
            self.names.add(iname)
            ioid = store.allocate_oid()
            idx = Index(ioid, iname, self.oid, self.pk, True, True, ioid if by_rowid else 0)
            store.put(txn, db, idx)
            store.put(txn, db, Constraint(store.allocate_oid(), iname, self.oid, "p", self.pk,
                                          idx.oid, deferrable=self.pk_deferral[0],
                                          deferred=self.pk_deferral[1]))
        for cname, ucols, nnd, deferral in self.uniques:
            colnames = "_".join(cols[a - 1].name for a in ucols)
            iname = self._name(cname, f"{self.name}_{colnames}_key", True)
            self.names.add(iname)
            ioid = store.allocate_oid()
            store.put(txn, db, Index(ioid, iname, self.oid, ucols, True, False, ioid,
                                     nulls_not_distinct=nnd))
            store.put(txn, db, Constraint(store.allocate_oid(), iname, self.oid, "u", ucols, ioid,
                                          deferrable=deferral[0], deferred=deferral[1]))
        for cname, text in self.checks:
            n = self._name(cname, f"{self.name}_{check_col(text, cols)}check", False)
            self.names.add(n)
            store.put(txn, db, Constraint(store.allocate_oid(), n, self.oid, "c",
                                          check_attnums(text, cols), check=text))
        self.s.catalog_changed()
        if self.fks:
            for cname, fcols, ref, _, opts in self.fks:
                add_foreign_key(self.s, self.s.catalog().existing_table(self.oid), cname, fcols,
                                ref, _fk_action(opts, "delete"), _fk_action(opts, "update"),
                                self.names, fk_deferral(opts))
        for cname, node in self.exclusions:
            add_exclusion(self.s, self.s.catalog().existing_table(self.oid), cname, node,
                          self.names)
        return table


def create_table_as(s: SQLSession, tree: exp.Create, schema: Any, name: str) -> str:
    """CREATE TABLE name AS query: a table shaped like the query, filled from it."""
    query = tree.expression
    plan = COMPILER.plan_query(query, s.catalog(), ParamTypes(), s.search_path())
    b = TableBuilder(s, schema.oid, name)
    b.persistence = _storage(tree)
    names = [ident(e) for e in tree.this.expressions] if isinstance(tree.this, exp.Schema) else []
    for i, c in enumerate(plan.columns):
        cname = names[i] if i < len(names) else c.name
        check_column_name(cname)
        b.columns.append(Column(cname, c.type_oid, c.typmod, i + 1))
    table = b.finish(_reloptions(tree))  # NB: WITH (fillfactor = 70) AS ..., checked
    props = tree.args.get("properties")
    if props is not None and any(isinstance(p, exp.WithDataProperty) and p.args.get("no")
                                 for p in props.expressions):
        return "CREATE TABLE AS"  # NB: WITH NO DATA: the shape only, as PostgreSQL tags it
    table = s.catalog().existing_table(table.oid)
    writer = writer_for(s, table)
    ctx = s.exec_context([])
    n = 0
    for batch in plan.execute(ctx):
        writer.insert(s, [list(r) for r in batch], check_unique=False)
        n += len(batch)
    return f"SELECT {n}"


def _refuse_hierarchy(props: list[exp.Expression]) -> None:
    """INHERITS is 0A000: a child made as a table of its own (it was: with no columns, its
    rows apart from the parent's) gives wrong answers silently. Declarative partitioning
    is `ddl.partitions`."""
    for p in props:
        if isinstance(p, exp.InheritsProperty):
            raise FeatureNotSupported("table inheritance is not supported: CREATE TABLE ... INHERITS")


def create_table(s: SQLSession, tree: exp.Create) -> str:
    """CREATE TABLE [IF NOT EXISTS] ... [AS query]."""
    target = tree.this
    schema, name = table_name(target)
    props = tree.args.get("properties")
    if props is not None:
        _refuse_hierarchy(props.expressions)
    _storage(tree)  # NB: TABLESPACE and USING are checked before the name, as in PostgreSQL
    if props is not None and any(isinstance(p, exp.TemporaryProperty) for p in props.expressions):
        if schema is not None and not schema.startswith("pg_temp"):
            raise InvalidTableDefinition("cannot create temporary relation in non-temporary "
                                         "schema")
        schema = temp_schema(s)
    cat = s.catalog()
    sch = creation_schema(cat, schema, s.search_path())
    if relation_name_taken(cat, sch.oid, name):
        if tree.args.get("exists"):
            s.notice(f'relation "{name}" already exists, skipping', sqlstate="42P07")
            return "CREATE TABLE AS" if tree.expression is not None else "CREATE TABLE"
        raise DuplicateTable(f'relation "{name}" already exists')
    on_commit = ACTIONS.get(tree.meta.get("on_commit", ""))
    if on_commit is not None and schema != s.temp_schema:
        register_on_commit(s, sch.name, name, on_commit, temporary=False)  # 42P16
    if tree.expression is not None:

        tag = create_table_as(s, tree, sch, name)
        if on_commit is not None:
            register_on_commit(s, sch.name, name, on_commit, temporary=True)
        return tag
    b = TableBuilder(s, sch.oid, name)
    b.persistence = _storage(tree)
    like_indexes: list[str] = []  # LIKE ... INCLUDING INDEXES: the source's other indexes
    defs = target.expressions if isinstance(target, exp.Schema) else []
    part_of = _property(props, exp.PartitionedOfProperty)
    parent, bound = None, ""
    if part_of is not None:  # NB: the parent's columns and constraints (ddl.partitions)
        pschema, pname = table_name(part_of.this)
        parent = parent_of(get_relation(cat, pschema, pname, s.search_path()))
        bound = bound_text(s, parent, part_of.expression, name)
        like_indexes = fill_partition(b, parent)
        defs = part_of.this.expressions if isinstance(part_of.this, exp.Schema) else []
    for d in defs:
        if isinstance(d, exp.ColumnDef):
            b.add_column(d)
        elif isinstance(d, exp.LikeProperty):  # LIKE src: its columns, where it stands
            like_indexes += add_like(b, d)
    for d in defs:
        if not isinstance(d, exp.ColumnDef | exp.LikeProperty):
            b.add_table_constraint(d)
    part_by = _property(props, exp.PartitionedByProperty)
    key = key_text(b, part_by) if part_by is not None else ""
    table = b.finish(_reloptions(tree))
    if key or parent is not None:
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(
            table, partkey=key, partof=parent.oid if parent else 0, partbound=bound))
        s.catalog_changed()
    if like_indexes:
        s.catalog_changed()
        copy_indexes(s, sch.name, name, like_indexes)
    if on_commit is not None:
        register_on_commit(s, sch.name, name, on_commit, temporary=True)
    return "CREATE TABLE"


def _property(props: exp.Properties | None, kind: type) -> Any:
    """The CREATE TABLE property of one kind (PARTITION BY, PARTITION OF), or None."""
    return next((p for p in props.expressions if isinstance(p, kind)), None) if props else None


def temp_schema(s: SQLSession) -> str:
    """Returns the session's temporary schema (`pg_temp_<pid>`), creating it if needed."""

    name = f"pg_temp_{s.backend_pid}"
    if schema_by_name(s.catalog(), name) is None:
        s.store.put(s.ensure_txn(), s.db.oid, Schema(s.store.allocate_oid(), name))
        s.catalog_changed()
    s.temp_schema = name
    return name


def _storage(tree: exp.Create) -> str:
    """CREATE [UNLOGGED] TABLE ... [USING method] [TABLESPACE name]: the table's
    relpersistence ("u" or "p"), after checking the method and the tablespace."""
    props = tree.args.get("properties")
    unlogged = False
    for p in props.expressions if props else ():
        if isinstance(p, exp.UnloggedProperty):
            unlogged = True
        elif isinstance(p, exp.FileFormatProperty):
            check_table_method(p.name.lower())  # NB: a Var, not folded by sqlglot
        elif isinstance(p, exp.TableSpaceProperty):
            check_tablespace(p.name)
    return "u" if unlogged else "p"


def _reloptions(tree: exp.Create) -> tuple[str, ...]:
    """WITH (storage parameters), checked as PostgreSQL checks them (`catalog.tableoptions`)."""
    props = tree.args.get("properties")
    return table_options([option_item(p) for p in (props.expressions if props else ())
                          if type(p) is exp.Property and p.args.get("value") is not None])


def drop_table_objects(s: SQLSession, table: Table, cascade: bool) -> list[str]:
    """Deletes a table's catalog rows (indexes, constraints, owned sequences) and its data.

    Without `cascade`, foreign keys and views that need the table are refused with
    PostgreSQL's 2BP01 listing every one of them; with it they go too, and their
    descriptions come back for the caller's "drop cascades to" notice."""
    cat, store, txn, db = s.catalog(), s.store, s.ensure_txn(), s.db.oid
    for part in partitions_of(cat, table.oid):  # NB: a partitioned table's go with it
        drop_table_objects(s, part, cascade)
    visible = s.search_path()
    refs = [c for c in cat.constraints if c.kind == "f" and c.ref_table_oid == table.oid
            and c.table_oid != table.oid]
    ref_names = [f"constraint {c.name} on "
                 f"{relation_description(cat, cat.existing_table(c.table_oid), visible)}"
                 for c in refs]
    views = views_depending(cat, table, visible)
    if (refs or views) and not cascade:
        this = relation_description(cat, table, visible)
        refuse_dependents(this, [f"{r} depends on {this}" for r in ref_names]
                          + [line for _, line in views])
    for c in refs:
        store.delete(txn, db, c)
    for v, _ in views:
        store.delete(txn, db, v)
        if v.kind == "m":  # NB: a materialized view's rows and indexes go with it
            s.pending_drops.append(v.space)
            for i in cat.indexes_of(v.oid):
                store.delete(txn, db, i)
                s.pending_drops.append(i.space)
    for c in cat.constraints_of(table.oid):
        store.delete(txn, db, c)
    for tg in cat.triggers:  # NB: its triggers go with it, and constraint triggers FROM it
        if tg.table_oid == table.oid or tg.constrrelid == table.oid:
            store.delete(txn, db, tg)
    for i in cat.indexes_of(table.oid):
        store.delete(txn, db, i)
        if i.space:
            s.pending_drops.append(i.space)
    for q in cat.sequences:
        if q.owned_by and q.owned_by[0] == table.oid:
            store.delete(txn, db, q)
    for key, _ in list(cat.comments.items()):
        if key[0] == table.oid:
            store.set_comment(txn, db, key[0], key[1], None)
    store.delete(txn, db, table)
    if table.kind in ("r", "m"):  # NB: a materialized view's rows too (ddl.matviews)

        statstore.delete(txn, db, table.oid)  # ANALYZE's statistics go with the table
        s.pending_drops.append(table.space)
    return ref_names + [relation_description(cat, v, visible) for v, _ in views]


def drop_relations(s: SQLSession, tree: exp.Drop, kind: str) -> str:
    """DROP TABLE / VIEW [IF EXISTS] a, b [CASCADE]."""
    want = "r" if kind == "TABLE" else "v"
    noun = "table" if want == "r" else "view"
    tag = f"DROP {kind}"
    targets = tree.args.get("tables") or [tree.this]
    found: list[Table] = []  # NB: all looked up first: `DROP TABLE parent, its_partition`
    for t in targets:
        schema, name = table_name(t)
        if missing_schema(s, schema, bool(tree.args.get("exists"))):
            continue
        rel = find_relation(s.catalog(), schema, name, s.search_path())
        if rel is None:
            skip_or_raise(s, f'{noun} "{name}"', bool(tree.args.get("exists")), UndefinedTable)
            continue
        if rel.kind != want:
            other = {"v": "view", "m": "materialized view"}.get(rel.kind, "table")
            raise WrongObjectType(f'"{name}" is not a {noun}',
                                  hint=f"Use DROP {other.upper()} to remove a {other}.")
        found.append(rel)
    for rel in found:
        current = s.catalog().table_by_oid(rel.oid)
        if current is None:
            continue  # NB: gone with a table dropped before it (a partition, CASCADE)
        if current.kind == "r":
            refuse_pending(s, s.catalog(), current, "DROP TABLE")
        report_cascade(s, drop_table_objects(s, current, bool(tree.args.get("cascade"))))
        s.catalog_changed()
    return tag


def truncate(s: SQLSession, tree: exp.TruncateTable) -> str:
    """TRUNCATE: gives each table (and index) a fresh KiVi space; the old ones go after commit."""
    store, txn, db = s.store, s.ensure_txn(), s.db.oid
    cat = s.catalog()
    targets: list[Table] = []
    for t in tree.expressions:
        schema, name = table_name(t)
        rel = get_relation(cat, schema, name, s.search_path())
        if rel.kind != "r":
            raise WrongObjectType(f'"{name}" is not a table')
        targets.append(rel)
        targets += descendants(cat, rel)  # NB: a partitioned table's partitions (no rows itself)
    cascade = str(tree.args.get("option") or "").upper() == "CASCADE"
    i = 0
    while i < len(targets):  # tables referencing a truncated one: an error, or truncated too
        oids = {t.oid for t in targets}
        for c in cat.constraints:
            if c.kind == "f" and c.ref_table_oid == targets[i].oid and c.table_oid not in oids:
                child = cat.existing_table(c.table_oid)
                if not cascade:
                    raise FeatureNotSupported(
                        "cannot truncate a table referenced in a foreign key constraint",
                        detail=f'Table "{child.name}" references "{targets[i].name}".',
                        hint=f'Truncate table "{child.name}" at the same time, or use '
                        "TRUNCATE ... CASCADE.")
                s.notice(f'truncate cascades to table "{child.name}"')
                targets.append(child)
                oids.add(child.oid)
        i += 1
    for rel in targets:
        refuse_pending(s, cat, rel, "TRUNCATE")
    fired = [tt for t in targets if (tt := TableTriggers.of(cat, t)) is not None]
    for tt in fired:  # NB: statement-level TRUNCATE triggers, before and after
        tt.statement(s, "BEFORE", "TRUNCATE")
    # NB: one catalog snapshot for every table, and one catalog change at the end: a
    # snapshot per table made TRUNCATE of n tables quadratic (Django flushes every table
    # of the database after each TransactionTestCase: 300 tables took 20 s, PG 0.9 s)
    cat = s.catalog()
    restart = bool(tree.args.get("identity")) and str(tree.args["identity"]).upper() == "RESTART"
    owned: dict[int, list[Any]] = {}
    for q in cat.sequences if restart else ():
        if q.owned_by:
            owned.setdefault(q.owned_by[0], []).append(q)
    for rel in {t.oid: t for t in targets}.values():  # NB: TRUNCATE t, t: once
        rel = cat.existing_table(rel.oid)
        new_space = store.allocate_oid()
        txn.claim_space(new_space)  # NB: a load after TRUNCATE skips conflict checks
        s.pending_drops.append(rel.space)
        store.put(txn, db, _replace(rel, space=new_space))
        for ix in cat.indexes_of(rel.oid):
            if ix.space:
                s.pending_drops.append(ix.space)
                ix_space = store.allocate_oid()
                txn.claim_space(ix_space)
                store.put(txn, db, _replace(ix, space=ix_space))
        for q in owned.get(rel.oid, ()):
            s.store.setval(q, q.start, False)
    s.catalog_changed()
    for tt in fired:
        tt.statement(s, "AFTER", "TRUNCATE")
    return "TRUNCATE TABLE"


def _replace(obj: Any, **kw: Any) -> Any:

    return dataclasses.replace(obj, **kw)
