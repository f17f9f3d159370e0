"""ALTER TABLE: columns, constraints, defaults, NOT NULL, renames and storage options.

Each action re-reads the table from the transaction's catalog, so several
actions in one statement (`ADD PRIMARY KEY (a), ADD COLUMN z int`) see each
other. ADD and DROP COLUMN rewrite the stored rows in one batched pass, so
that every stored row always has exactly one slot per attnum (the layout
the query compiler relies on) instead of readers padding short rows.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DatatypeMismatch,
    DuplicateColumn,
    DuplicateTable,
    FeatureNotSupported,
    InvalidTableDefinition,
    NotNullViolation,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
    UndefinedTable,
)
from ...txn.api import ScanSpec
from ..catalog.model import Column, Table
from ..catalog.syscols import check_column_name
from ..catalog.tableoptions import option_item, table_options
from ..catalog.viewoptions import merge_options, view_options
from ..context import ParamTypes
from ..dml.deferstate import refuse_pending
from ..dml.domaincheck import for_table
from ..dml.values import compile_default, compile_value, table_scope
from ..dml.writer import writer_for
from ..expr.casts import cast_function
from ..expr.types import STRINGS, array_ndims, declared_domain, domain_of, is_string, type_name
from ..parse import parse_sql
from ..partitions.members import ancestors, descendants
from ..pgcatalog.collations import COLLATABLE, column_collation, value_wrapper
from .constraints import (
    _rekey,
    add_check,
    add_foreign_key,
    add_unique,
    fk_deferral,
    primary_key_of,
    set_not_null,
)
from .depends import (
    refuse_dependents,
    relation_description,
    rename_column_in_checks,
    rename_column_in_views,
    rename_table_in_views,
    report_cascade,
    views_depending,
    views_using_column,
)
from .domaindefault import domain_of_column, with_default
from .exclusion import add_exclusion
from .immutable import check_generated
from .indexes import build_index
from .names import (
    find_relation,
    find_sequence,
    ident,
    relation_name_taken,
    schema_by_name,
    skip_or_raise,
    table_name,
)
from .partitions import cascade_alter, check_alter
from .persistence import check_table_method, check_tablespace, refuse_on_kind, set_persistence
from .pkeys import drop_primary_key, rebuild_indexes
from .sequences import set_sequence_logged
from .tables import TableBuilder, _fk_action, column_type, default_sql

if TYPE_CHECKING:
    from ..session import SQLSession


def _table(s: SQLSession, oid: int) -> Table:
    t = s.catalog().table_by_oid(oid)
    assert t is not None
    return t


def _column(table: Table, name: str) -> Column:
    for c in table.live_columns:
        if c.name == name:
            return c
    raise UndefinedColumn(f'column "{name}" of relation "{table.name}" does not exist')


def _put(s: SQLSession, table: Table) -> None:
    s.store.put(s.ensure_txn(), s.db.oid, table)
    s.catalog_changed()


def rewrite_rows(s: SQLSession, table: Table, fill: Any) -> None:
    """Rewrites every stored row through `fill(row) -> row` in batches."""
    txn = s.ensure_txn()
    for batch in txn.scan(ScanSpec(table.space, batch_size=4096, with_keys=True)):
        ctx = s.exec_context([])
        ctx.check_cancel()
        txn.put(table.space, [(r[0], fill(tuple(r[1:]), ctx)) for r in batch])


def _with_typmod(s: SQLSession, table: Table, col: Column, fill: Any) -> Any:
    """The new column's value for existing rows, coerced to its typmod as INSERT would
    (PG: ADD COLUMN w numeric(3,1) DEFAULT 1.26 stores 1.3; too long a varchar fails)."""

    conv = dict(writer_for(s, table).converters).get(col.attnum - 1)
    if conv is None:
        return fill

    def coerced(r: tuple, ctx: Any) -> Any:
        v = fill(r, ctx)
        return None if v is None else conv(v)

    return coerced


def add_column(s: SQLSession, table: Table, cd: exp.ColumnDef) -> None:
    """ALTER TABLE ADD COLUMN."""

    name = ident(cd.this)
    if any(c.name == name for c in table.live_columns):
        if cd.args.get("exists"):
            s.notice(f'column "{name}" of relation "{table.name}" already exists, skipping',
                     sqlstate="42701")
            return
        raise DuplicateColumn(f'column "{name}" of relation "{table.name}" already exists')
    b = TableBuilder(s, table.schema_oid, table.name)
    b.oid = table.oid
    b.columns = list(table.columns)
    b.add_column(cd)
    col = b.columns[-1]
    check_generated(s, table.name, b.columns, only=col)
    if b.pk:  # NB: the key implies NOT NULL, checked before the key is built, as PostgreSQL
        if primary_key_of(s.catalog(), table) is not None:
            raise InvalidTableDefinition(
                f'multiple primary keys for table "{table.name}" are not allowed')
        col = b.columns[-1] = dataclasses.replace(col, not_null=True)
    new = dataclasses.replace(table, columns=tuple(b.columns))
    store, txn = s.store, s.ensure_txn()
    for seq in b.sequences:
        store.put(txn, s.db.oid, seq)
    _put(s, new)

    default = compile_default(s, col, new)
    if col.generated:

        gen = compile_value(s, parse_sql(f"SELECT {col.generated}").expressions[0], col,
                            table_scope(new), ParamTypes())

        def default(r: tuple, ctx: Any) -> Any:  # NB: computed from the row's other columns
            return gen(r + (None,), ctx)
    default = _with_typmod(s, new, col, default)
    if col.not_null and col.default is None and not col.identity:
        for batch in txn.scan(ScanSpec(table.space, limit=1)):
            if batch:
                raise NotNullViolation(
                    f'column "{name}" of relation "{table.name}" contains null values',
                    table=table.name, column=name)
    rewrite_rows(s, new, lambda r, ctx: r + (default(r, ctx),))
    if b.pk:  # ADD COLUMN id serial PRIMARY KEY (Django's AutoField added to a table)
        add_unique(s, _table(s, table.oid), b.pk_name, b.pk, True, deferral=b.pk_deferral)
    for cname, cols, nnd, deferral in b.uniques:

        add_unique(s, _table(s, table.oid), cname, cols, False, nnd, deferral)
    for cname, text in b.checks:

        add_check(s, _table(s, table.oid), cname, text)
    for cname, cols, ref, _, opts in b.fks:

        add_foreign_key(s, _table(s, table.oid), cname, cols, ref,
                        _fk_action(opts, "delete"), _fk_action(opts, "update"),
                        deferral=fk_deferral(opts))


def _drop_views_using(s: SQLSession, table: Table, column: str, cascade: bool) -> None:
    """DROP COLUMN under views that read the column: 2BP01 naming every one, or with
    CASCADE drops them and the views that read those."""
    cat = s.catalog()
    visible = s.search_path()
    views = views_using_column(cat, table, column)
    if not views:
        return
    target = f"column {column} of {relation_description(cat, table, visible)}"
    gone = list(views)
    lines = [f"{relation_description(cat, v, visible)} depends on {target}" for v in views]
    for v in views:
        for w, line in views_depending(cat, v, visible):
            if all(w.oid != g.oid for g in gone):
                gone.append(w)
                lines.append(line)
    if not cascade:
        refuse_dependents(target, lines)
    for v in gone:
        s.store.delete(s.ensure_txn(), s.db.oid, v)
    report_cascade(s, [relation_description(cat, v, visible) for v in gone])
    s.catalog_changed()


def drop_column(s: SQLSession, table: Table, node: exp.Drop) -> None:
    """ALTER TABLE DROP COLUMN: the slot stays (as NULLs), the column is marked dropped."""
    for c in node.args.get("tables") or []:
        name = ident(c.this if isinstance(c, exp.Column) else c)
        col = next((x for x in table.live_columns if x.name == name), None)
        if col is None:
            skip_or_raise(s, f'column "{name}" of relation "{table.name}"', bool(node.args.get("exists")), UndefinedColumn)
            continue
        _drop_views_using(s, table, name, bool(node.args.get("cascade")))
        if col.attnum in table.primary_key:  # PostgreSQL drops the key with its column
            drop_primary_key(s, table, bool(node.args.get("cascade")))
            table = _table(s, table.oid)
        cat, txn = s.catalog(), s.ensure_txn()
        for i in cat.indexes_of(table.oid):
            if col.attnum in i.columns or col.attnum in i.include or any(
                    name in e for e in i.exprs):
                s.store.delete(txn, s.db.oid, i)
                if i.space:
                    s.pending_drops.append(i.space)
        for con in cat.constraints_of(table.oid):
            if col.attnum in con.columns or (con.kind == "c" and name in (con.check or "")):
                s.store.delete(txn, s.db.oid, con)
        cols = tuple(dataclasses.replace(
            x, dropped=True, name=f"........pg.dropped.{x.attnum}........", not_null=False,
            default=None) if x.attnum == col.attnum else x for x in table.columns)
        table = dataclasses.replace(table, columns=cols)
        _put(s, table)
        pos = col.attnum - 1
        rewrite_rows(s, table, lambda r, ctx, pos=pos: r[:pos] + (None,) + r[pos + 1:])


def alter_column(s: SQLSession, table: Table, node: exp.AlterColumn) -> None:
    """ALTER COLUMN SET/DROP DEFAULT, SET/DROP NOT NULL, TYPE."""
    col = _column(table, ident(node.this))
    if node.args.get("dtype") is not None:
        alter_type(s, table, col, node)
        return
    if "allow_null" in node.args and node.args["allow_null"] is not None:

        set_not_null(s, table, col, not node.args["allow_null"])
        return
    if node.args.get("drop"):  # a domain column gets its domain's default back
        new = with_default(col, None, domain_of_column(s.catalog(), col))
    elif node.args.get("default") is not None:

        new = with_default(col, default_sql(node.args["default"]), None)
    else:
        raise FeatureNotSupported(f"ALTER COLUMN not supported: {node.sql('postgres')}")
    cols = tuple(new if c.attnum == col.attnum else c for c in table.columns)
    _put(s, dataclasses.replace(table, columns=cols))


def alter_type(s: SQLSession, table: Table, col: Column, node: exp.AlterColumn) -> None:
    """ALTER COLUMN ... TYPE t [USING expr]: converts every stored value, rebuilds indexes."""

    users = views_using_column(s.catalog(), table, col.name)
    if users:
        raise FeatureNotSupported(
            "cannot alter type of a column used by a view or rule",
            detail=f'rule _RETURN on view {users[0].name} depends on column "{col.name}"')
    oid, typmod = column_type(node.args["dtype"])
    coll = node.args.get("collate")  # NB: without COLLATE the new type's default, as PostgreSQL
    collation = column_collation(ident(coll.this), oid, s.catalog()) \
        if isinstance(coll, exp.Expression) else ""
    pos = col.attnum - 1
    using = node.args.get("using")
    conv: Any = None
    if using:

        target = dataclasses.replace(col, type_oid=oid, typmod=typmod)
        fn = compile_value(s, using, target, table_scope(table), ParamTypes())
        conv = ("row", fn)
    else:

        try:
            if col.type_oid in STRINGS and not is_string(oid):  # NB: text -> citext is one
                raise SQLError("no assignment cast")  # text -> int needs USING, as in PostgreSQL
            f = cast_function(col.type_oid, oid, typmod)
        except SQLError:
            raise DatatypeMismatch(
                f'column "{col.name}" cannot be cast automatically to type {type_name(oid)}',
                hint=f'You might need to specify "USING {col.name}::{type_name(oid)}".') from None
        conv = ("value", f)
    ndims = array_ndims(node.args["dtype"])
    changed = _retyped(col, node.args["dtype"], oid, typmod, ndims, collation)
    conv = _collating(s, conv, changed, col)
    rekey = col.attnum in table.primary_key and conv[1] is not None  # new values, new keys
    cols = tuple(changed if c.attnum == col.attnum else c for c in table.columns)
    new = dataclasses.replace(table, columns=cols)
    _put(s, new)
    kind, f = conv
    if f is not None:
        if kind == "value":
            rewrite_rows(s, new, lambda r, ctx: r[:pos] + (None if r[pos] is None else f(r[pos]),)
                     + r[pos + 1:])
        else:
            rewrite_rows(s, new, lambda r, ctx: r[:pos] + (f(r, ctx),) + r[pos + 1:])
    if changed.domain:
        _check_domain(s, _table(s, table.oid))
    if rekey:
        _rekey(s, _table(s, table.oid), table.primary_key)
        s.catalog_changed()
        rebuild_indexes(s, _table(s, table.oid))
        return
    txn = s.ensure_txn()
    for idx in s.catalog().indexes_of(table.oid):
        if idx.space and (col.attnum in idx.columns or any(col.name in e for e in idx.exprs)):
            s.pending_drops.append(idx.space)
            moved = dataclasses.replace(idx, space=s.store.allocate_oid())
            s.store.put(txn, s.db.oid, moved)
            s.catalog_changed()
            build_index(s, _table(s, table.oid), moved)


def _collating(s: SQLSession, conv: tuple[str, Any], new: Column, old: Column) -> tuple[str, Any]:
    """The conversion, its text values then under the column's new collation (ICU-collated
    or plain again, as the writer stores them: `pgcatalog.collations.wrappers`), when the
    collation changes or the values are converted; a COLLATE-only change (Django's
    `db_collation`) rewrote nothing and kept comparing under the old one."""
    kind, f = conv
    if new.type_oid not in COLLATABLE or new.ndims or (f is None and new.collation == old.collation):
        return conv
    wrap = value_wrapper(s.catalog(), new.collation)
    if kind == "row":
        return "row", lambda r, ctx: wrap(f(r, ctx))
    return "value", wrap if f is None else lambda v: wrap(f(v))


def _retyped(col: Column, dtype: exp.Expression, oid: int, typmod: int, ndims: int,
             collation: str) -> Column:
    """`col` as ALTER COLUMN TYPE `dtype` leaves it: a domain (`d`, `d[]`) is recorded as
    CREATE TABLE records it, and a default that was the old domain's is dropped, the new
    domain's taken when the column has none of its own (PostgreSQL keeps it on the type)."""
    own = None if col.domain_default else col.default
    out = dataclasses.replace(col, type_oid=oid, typmod=typmod, ndims=ndims, collation=collation,
                              domain=declared_domain(dtype))
    return with_default(out, own, domain_of(dtype) if own is None else None)


def _check_domain(s: SQLSession, table: Table) -> None:
    """ALTER COLUMN TYPE d (or d[]): every stored value must pass d, PostgreSQL's 23514 /
    23502 (the table's other domain columns pass already: the check is theirs too)."""
    checks = for_table(s, s.catalog(), table)
    if checks is None:
        return
    txn = s.ensure_txn()
    for batch in txn.scan(ScanSpec(table.space, batch_size=4096)):
        checks.run(s, [tuple(r) for r in batch])


def add_constraint(s: SQLSession, table: Table, node: exp.AddConstraint,
                   validate: bool = True) -> None:
    """ALTER TABLE ADD [CONSTRAINT name] PRIMARY KEY / UNIQUE / CHECK / FOREIGN KEY [NOT VALID]."""

    for item in node.expressions:
        name, inner = "", [item]
        if isinstance(item, exp.Constraint):
            name, inner = ident(item.this), item.expressions
        for c in inner:
            t = _table(s, table.oid)
            by_name = {x.name: x.attnum for x in t.live_columns}

            def cols_of(nodes: list[Any], t: Table = t, by_name: dict = by_name) -> tuple:
                out = []
                for e in nodes:
                    n = ident(e)
                    if n not in by_name:
                        raise UndefinedColumn(f'column "{n}" named in key does not exist')
                    out.append(by_name[n])
                return tuple(out)

            if isinstance(c, exp.PrimaryKey):
                add_unique(s, t, name, cols_of(c.expressions), True,
                           deferral=fk_deferral(c.args.get("options")))
            elif isinstance(c, exp.UniqueColumnConstraint):
                nodes = c.this.expressions if isinstance(c.this, exp.Schema) else []
                add_unique(s, t, name, cols_of(nodes), False, bool(c.args.get("nulls")),
                           fk_deferral(c.args.get("options")))
            elif isinstance(c, exp.CheckColumnConstraint):
                add_check(s, t, name, c.this.sql("postgres"), validate=validate)
            elif isinstance(c, exp.ForeignKey):
                ref = c.args["reference"]
                opts = ref.args.get("options")
                add_foreign_key(s, t, name, cols_of(c.expressions), ref.this,
                                _fk_action(opts, "delete"), _fk_action(opts, "update"),
                                deferral=fk_deferral(opts), validate=validate)
            elif isinstance(c, exp.ExcludeColumnConstraint):
                add_exclusion(s, t, name, c)
            else:
                raise FeatureNotSupported(f"constraint not supported: {c.sql('postgres')}")


def drop_constraint(s: SQLSession, table: Table, node: exp.Drop) -> None:
    """ALTER TABLE DROP CONSTRAINT [IF EXISTS] name."""
    for t in node.args.get("tables") or []:
        name = ident(t.this if isinstance(t, exp.Table) else t)
        cat = s.catalog()
        con = next((c for c in cat.constraints_of(table.oid) if c.name == name), None)
        if (con is None or con.kind == "c") and table.partof and any(
                k.name == name and k.kind in ("c", "f") for o in ancestors(cat, table)
                for k in cat.constraints_of(o)):  # NB: a parent's CHECK or foreign key
            raise InvalidTableDefinition(
                f'cannot drop inherited constraint "{name}" of relation "{table.name}"')
        if con is None:
            if node.args.get("exists"):
                s.notice(f'constraint "{name}" of relation "{table.name}" does not exist, '
                         "skipping")
                continue
            raise UndefinedObject(
                f'constraint "{name}" of relation "{table.name}" does not exist')
        if con.kind == "p":  # the rows move under hidden row ids
            drop_primary_key(s, table, bool(node.args.get("cascade")))
            table = _table(s, table.oid)
            continue
        txn = s.ensure_txn()
        s.store.delete(txn, s.db.oid, con)
        for part in descendants(cat, table) if con.kind == "c" else ():  # their copies
            for k in cat.constraints_of(part.oid):
                if k.kind == "c" and k.name == name:
                    s.store.delete(txn, s.db.oid, k)
        if con.index_oid:
            idx = next((i for i in cat.indexes if i.oid == con.index_oid), None)
            if idx is not None:
                s.store.delete(txn, s.db.oid, idx)
                if idx.space:
                    s.pending_drops.append(idx.space)
        s.catalog_changed()


def relation_to_alter(s: SQLSession, tree: exp.Alter) -> Table | None:
    """The relation ALTER TABLE / ALTER VIEW names: 42P01 if there is none, or None with
    PostgreSQL's notice under IF EXISTS."""
    schema, name = table_name(tree.this)
    exists = bool(tree.args.get("exists"))
    rel = None if exists and schema is not None and schema_by_name(s.catalog(), schema) is None \
        else find_relation(s.catalog(), schema, name, s.search_path())  # NB: PG's IF EXISTS
    if rel is None:  # names the relation when its schema is missing too; without, 3F000
        skip_or_raise(s, f'relation "{name}"', exists, UndefinedTable)
        return None
    return rel


def _column_rename(tree: exp.Alter, action: exp.Expression) -> exp.Expression:
    """`RENAME a TO b` (COLUMN omitted) renames a column, as in PostgreSQL; sqlglot reads it
    as a table rename to `a` with a stray `TO b` option."""
    to = next((o for o in tree.args.get("options") or [] if isinstance(o, exp.ToTableProperty)),
              None)
    if not isinstance(action, exp.AlterRename) or to is None:
        return action
    return exp.RenameColumn(this=exp.column(action.this.this.copy()),
                            to=exp.column(to.this.this.copy()))


def _trailing_sets(tree: exp.Alter) -> list[exp.Expression]:
    """`ADD COLUMN b int, SET (fillfactor = 70)`: sqlglot keeps a SET after the first action
    as an unparsed option; it is read again here as the action it is (it was lost)."""
    out: list[exp.Expression] = []
    for o in tree.args.get("options") or []:
        if isinstance(o, exp.ToTableProperty):
            continue
        cmd = o.this if isinstance(o, exp.SetConfigProperty) else None
        text = cmd.expression if isinstance(cmd, exp.Command) else None
        if isinstance(text, str) and text.split()[0].lower() == "schema":
            raise SyntaxError_(f'syntax error at or near "{text.split()[0]}"')  # NB: alone only
        again = parse_sql(f"ALTER TABLE t SET {text}") if isinstance(text, str) else None
        actions = again.args.get("actions") if isinstance(again, exp.Alter) else None
        if not actions or not all(isinstance(a, exp.AlterSet) for a in actions):
            raise FeatureNotSupported(f"ALTER TABLE action not supported: {o.sql('postgres')}")
        out.extend(actions)
    return out


def _sequence_logged(s: SQLSession, tree: exp.Alter) -> bool:
    """ALTER TABLE seq SET LOGGED / UNLOGGED: PostgreSQL lets ALTER TABLE change a
    sequence's persistence as ALTER SEQUENCE does (pg_dump of an unlogged table's serial)."""
    actions = tree.args.get("actions") or []
    if len(actions) != 1 or not isinstance(actions[0], exp.AlterSet) or \
            actions[0].text("option").upper() not in ("LOGGED", "UNLOGGED"):
        return False
    schema, name = table_name(tree.this)
    cat = s.catalog()
    if find_relation(cat, schema, name, s.search_path()) is not None:
        return False
    seq = find_sequence(cat, schema, name, s.search_path())
    if seq is None:
        return False
    set_sequence_logged(s, seq, actions[0].text("option").upper() == "LOGGED")
    return True


def alter_table(s: SQLSession, tree: exp.Alter) -> str:
    """ALTER TABLE [IF EXISTS] name action [, ...]."""
    if _sequence_logged(s, tree):
        return "ALTER TABLE"
    table = relation_to_alter(s, tree)
    if table is None:
        return "ALTER TABLE"
    if not all(isinstance(a, exp.AlterRename | exp.RenameColumn) for a in tree.args.get(
            "actions") or []):  # NB: renames do not check, as in PostgreSQL
        refuse_pending(s, s.catalog(), table, "ALTER TABLE")
    for action in [*(tree.args.get("actions") or []), *_trailing_sets(tree)]:
        table = _table(s, table.oid)
        action = _column_rename(tree, action)
        check_alter(table, tree, action)  # NB: a partition's columns are its parent's
        if isinstance(action, exp.ColumnDef):
            add_column(s, table, action)
        elif isinstance(action, exp.Drop) and str(action.args.get("kind")).upper() == "COLUMN":
            drop_column(s, table, action)
        elif isinstance(action, exp.Drop) and str(action.args.get("kind")).upper() == \
                "CONSTRAINT":
            drop_constraint(s, table, action)
        elif isinstance(action, exp.AlterColumn):
            alter_column(s, table, action)
        elif isinstance(action, exp.AddConstraint):
            add_constraint(s, table, action, not tree.args.get("not_valid"))
        elif isinstance(action, exp.AlterRename):
            new_name = table_name(action.this)[1]
            if relation_name_taken(s.catalog(), table.schema_oid, new_name):
                raise DuplicateTable(f'relation "{new_name}" already exists')
            rename_table_in_views(s, table, new_name)
            _put(s, dataclasses.replace(table, name=new_name))
        elif isinstance(action, exp.RenameColumn):
            old_name = ident(action.this.this)
            old = next((c for c in table.live_columns if c.name == old_name), None)
            if old is None:
                raise UndefinedColumn(f'column "{old_name}" does not exist')
            new_name = ident(action.args["to"].this)
            check_column_name(new_name)
            if any(c.name == new_name for c in table.live_columns):
                raise DuplicateColumn(
                    f'column "{new_name}" of relation "{table.name}" already exists')
            cols = tuple(dataclasses.replace(c, name=new_name) if c.attnum == old.attnum else c
                         for c in table.columns)
            rename_column_in_views(s, table, old_name, new_name)
            rename_column_in_checks(s, table, old_name, new_name)
            _put(s, dataclasses.replace(table, columns=cols))
        elif isinstance(action, exp.AlterSet) and action.text("option").upper() == \
                "WITHOUT CLUSTER":  # NB: the other physical actions: ddl.physical
            _put(s, dataclasses.replace(table, cluster_index=0))
        elif isinstance(action, exp.AlterSet) and _physical_set(s, table, action):
            pass  # SET LOGGED / UNLOGGED / TABLESPACE / ACCESS METHOD (ddl.persistence)
        elif isinstance(action, exp.AlterSet):  # SET (storage parameters), checked as PG
            _put(s, dataclasses.replace(table, options=merge_options(
                table.options, [option_item(e) for e in action.expressions],
                view_options if table.kind == "v" else table_options)))
        else:
            raise InvalidTableDefinition(
                f"ALTER TABLE action not supported: {action.sql('postgres')}")
        cascade_alter(s, table, tree, action, alter_table)  # NB: to each partition
    return "ALTER TABLE"


def _physical_set(s: SQLSession, table: Table, action: exp.AlterSet) -> bool:
    """SET LOGGED / SET UNLOGGED / SET TABLESPACE / SET ACCESS METHOD; False for another SET."""
    option = action.text("option").upper()
    if option in ("LOGGED", "UNLOGGED"):
        changed = set_persistence(s, table, option == "LOGGED")
        if changed is not table:
            _put(s, changed)
        return True
    space, method = action.args.get("tablespace"), action.args.get("access_method")
    if space is not None:
        refuse_on_kind(table, "SET TABLESPACE")
        check_tablespace(ident(space))
        return True
    if method is not None:
        refuse_on_kind(table, "SET ACCESS METHOD")
        check_table_method(ident(method))
        return True
    return False
