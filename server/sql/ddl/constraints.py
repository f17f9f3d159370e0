"""Adding constraints to an existing table: FOREIGN KEY, UNIQUE, CHECK and PRIMARY KEY.

A foreign key must reference columns with a primary-key or unique constraint
(42830 otherwise), as in PostgreSQL. Constraints added to a table that holds
rows are validated against them first; ADD PRIMARY KEY on a table that was
keyed by hidden row ids (pgbench's load-then-add-key order) rewrites the
rows under their new key into a fresh space.
"""

from __future__ import annotations

import dataclasses
import re
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ...errors import (
    DuplicateObject,
    DuplicateTable,
    InvalidForeignKey,
    InvalidTableDefinition,
    NotNullViolation,
    ObjectNotInPrerequisiteState,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
    UndefinedTable,
    UniqueViolation,
    WrongObjectType,
)
from ...kivi.keycodec import encode_key
from ...pgtypes.oids import INT2, INT4, INT8
from ...pgwire.backend import Result
from ...txn.api import ScanSpec
from ..catalog.model import Column, Constraint, Index, Table
from ..dml.deferstate import refuse_pending
from ..dml.writer import int_keys, key_detail, validate_existing
from ..parse import unquote_ident
from ..privileges.check import current_role, must_own, relation_noun
from ..stmt import Stmt
from .checkcols import check_attnums, check_col
from .indexes import build_index
from .names import (
    find_relation,
    get_relation,
    ident,
    parse_qualified,
    relation_name_taken,
    skip_or_raise,
    table_name,
    unique_name,
)
from .persistence import check_fk_persistence
from .pkeys import rebuild_indexes

if TYPE_CHECKING:
    from ..session import SQLSession


def _attnum(table: Table, name: str) -> int:
    for c in table.live_columns:
        if c.name == name:
            return c.attnum
    raise UndefinedColumn(f'column "{name}" referenced in foreign key constraint does not exist')


def check_name_free(s: SQLSession, table: Table, name: str) -> None:
    """42710 if the table already has a constraint called `name` (an explicit name only)."""
    if name and any(c.name == name for c in s.catalog().constraints_of(table.oid)):
        raise DuplicateObject(
            f'constraint "{name}" for relation "{table.name}" already exists')


def fk_deferral(opts: list[str] | None) -> tuple[bool, bool]:
    """(deferrable, initially deferred) from a key's or REFERENCES clause's options, as PostgreSQL:
    INITIALLY DEFERRED implies DEFERRABLE; NOT DEFERRABLE with it is an error (42601)."""
    words = [" ".join(o.upper().split()) for o in opts or []]
    deferred = "INITIALLY DEFERRED" in words
    if "NOT DEFERRABLE" in words and deferred:
        raise SyntaxError_("constraint declared INITIALLY DEFERRED must be DEFERRABLE")
    return "DEFERRABLE" in words or deferred, deferred


def add_foreign_key(s: SQLSession, table: Table, name: str, cols: tuple[int, ...], ref: Any,
                    on_delete: str, on_update: str, taken: set[str] | None = None,
                    deferral: tuple[bool, bool] = (False, False),
                    validate: bool = True) -> Constraint:
    """Adds a FOREIGN KEY constraint (validating existing rows unless NOT VALID)."""

    check_name_free(s, table, name)
    schema, rname = table_name(ref)
    cat = s.catalog()
    parent = get_relation(cat, schema, rname, s.search_path())
    check_fk_persistence(cat, table, parent)  # NB: before the keys, as in PostgreSQL
    ref_names = [ident(e) for e in ref.expressions] if hasattr(ref, "expressions") else []
    # NB: a DEFERRABLE key cannot be referenced: its rows may repeat it until COMMIT
    deferrable = {c.index_oid: c.kind for c in cat.constraints_of(parent.oid)
                  if c.kind in ("p", "u") and c.deferrable}
    pk_deferrable = "p" in deferrable.values()
    if ref_names:
        ref_cols = tuple(_attnum(parent, n) for n in ref_names)
    else:
        pk = primary_key_of(cat, parent)
        if pk is None:
            raise InvalidForeignKey(
                f'there is no primary key for referenced table "{parent.name}"')
        if pk_deferrable:
            raise ObjectNotInPrerequisiteState(
                f'cannot use a deferrable primary key for referenced table "{parent.name}"')
        ref_cols = pk.columns
    if len(ref_cols) != len(cols):
        raise InvalidForeignKey("number of referencing and referenced columns for foreign key "
                                "disagree")
    keys = [i.columns for i in cat.indexes_of(parent.oid)
            if i.unique and i.oid not in deferrable and not i.predicate and not i.exprs]
    if parent.primary_key and not pk_deferrable:
        keys.append(parent.primary_key)
    if not any(set(k) == set(ref_cols) for k in keys):
        if any(set(i.columns) == set(ref_cols) for i in cat.indexes_of(parent.oid)
               if i.oid in deferrable):
            raise ObjectNotInPrerequisiteState(
                f'cannot use a deferrable unique constraint for referenced table "{parent.name}"')
        raise InvalidForeignKey(
            "there is no unique constraint matching given keys for referenced table "
            f'"{parent.name}"')
    colnames = "_".join(table.columns[a - 1].name for a in cols)
    cname = name or unique_name(cat, table.schema_oid, f"{table.name}_{colnames}_fkey", taken)
    if taken is not None:
        taken.add(cname)
    con = Constraint(s.store.allocate_oid(), cname, table.oid, "f", cols, 0, parent.oid, ref_cols,
                     on_delete, on_update, deferrable=deferral[0], deferred=deferral[1],
                     validated=validate)
    s.store.put(s.ensure_txn(), s.db.oid, con)
    s.catalog_changed()

    if validate:
        validate_existing(s, table, con)
    return con


def primary_key_of(cat: Any, table: Table) -> Constraint | None:
    """The table's PRIMARY KEY constraint. Its columns are `table.primary_key`, the rows'
    KiVi key, unless it is DEFERRABLE: the rows then live under row ids, since two may
    hold one key until COMMIT, and the key is a unique index of its own."""
    return next((c for c in cat.constraints_of(table.oid) if c.kind == "p"), None)


def add_unique(s: SQLSession, table: Table, name: str, cols: tuple[int, ...],
               primary: bool, nulls_not_distinct: bool = False,
               deferral: tuple[bool, bool] = (False, False)) -> None:
    """Adds a UNIQUE or PRIMARY KEY constraint (building its index from existing rows).

    NB: `deferral` (DEFERRABLE, INITIALLY DEFERRED) is recorded for the catalog
    (pg_get_constraintdef, pg_dump); the index still checks each row as it is written.
    """

    if name:

        if relation_name_taken(s.catalog(), table.schema_oid, name):  # NB: the index's name
            raise DuplicateTable(f'relation "{name}" already exists')
    check_name_free(s, table, name)
    cat = s.catalog()
    store, txn, db = s.store, s.ensure_txn(), s.db.oid
    if primary:
        if primary_key_of(cat, table) is not None:
            raise InvalidTableDefinition(
                f'multiple primary keys for table "{table.name}" are not allowed')
        iname = name or unique_name(cat, table.schema_oid, f"{table.name}_pkey")
        if deferral[0]:  # NB: its rows stay under row ids: a value may repeat until COMMIT
            for a in cols:
                t = s.catalog().existing_table(table.oid)
                set_not_null(s, t, t.columns[a - 1], True)
            ioid = store.allocate_oid()
            idx = Index(ioid, iname, table.oid, cols, True, True, ioid)
            store.put(txn, db, idx)
            store.put(txn, db, Constraint(store.allocate_oid(), iname, table.oid, "p", cols,
                                          ioid, deferrable=True, deferred=deferral[1]))
            s.catalog_changed()
            build_index(s, s.catalog().existing_table(table.oid), idx)
            return
        _rekey(s, table, cols)
        idx = Index(store.allocate_oid(), iname, table.oid, cols, True, True, 0)
        store.put(txn, db, idx)
        store.put(txn, db, Constraint(store.allocate_oid(), iname, table.oid, "p", cols, idx.oid,
                                      deferrable=deferral[0], deferred=deferral[1]))
        s.catalog_changed()
        if any(i.space for i in s.catalog().indexes_of(table.oid)):

            rebuild_indexes(s, s.catalog().existing_table(table.oid))  # entries held row ids
        return
    colnames = "_".join(table.columns[a - 1].name for a in cols)
    iname = name or unique_name(cat, table.schema_oid, f"{table.name}_{colnames}_key")
    ioid = store.allocate_oid()
    idx = Index(ioid, iname, table.oid, cols, True, False, ioid,
                nulls_not_distinct=nulls_not_distinct)
    store.put(txn, db, idx)
    store.put(txn, db, Constraint(store.allocate_oid(), iname, table.oid, "u", cols, ioid,
                                  deferrable=deferral[0], deferred=deferral[1]))
    s.catalog_changed()
    build_index(s, s.catalog().existing_table(table.oid), idx)


def _rekey(s: SQLSession, table: Table, cols: tuple[int, ...]) -> None:
    """Moves a table's rows under primary-key keys into a new space (NOT NULL + unique checked)."""

    int_types = (INT2, INT4, INT8)
    store, txn, db = s.store, s.ensure_txn(), s.db.oid
    new_space = store.allocate_oid()
    txn.claim_space(new_space)  # NB: the rewrite's million writes skip the conflict managers
    pos = [a - 1 for a in cols]
    seen: set[bytes] = set()
    one_int = len(pos) == 1 and table.columns[pos[0]].type_oid in int_types
    for batch in txn.scan(ScanSpec(table.space, batch_size=4096)):
        s.exec_context([]).check_cancel()
        if one_int:  # pgbench's case: a batch of int keys with C-level passes only
            keys = int_keys(list(map(itemgetter(pos[0]), batch)))  # None: a NULL, say
            if keys is not None:
                fresh = set(keys)
                if len(fresh) == len(keys) and seen.isdisjoint(fresh):
                    seen |= fresh
                    txn.put(new_space, list(zip(keys, batch, strict=True)))
                    continue
        items = []  # row by row, reporting the first NULL or duplicate as PostgreSQL does
        for row in batch:
            vals = tuple(row[i] for i in pos)
            if None in vals:
                col = table.columns[pos[vals.index(None)]]
                raise NotNullViolation(
                    f'column "{col.name}" of relation "{table.name}" contains null values',
                    table=table.name, column=col.name)
            k = encode_key(vals)
            if k in seen:
                raise UniqueViolation(
                    f'could not create unique index "{table.name}_pkey"',
                    detail=key_detail(table, cols, vals).replace("already exists",
                                                                 "is duplicated"))
            seen.add(k)
            items.append((k, row))
        if items:
            txn.put(new_space, items)
    columns = tuple(
        dataclasses.replace(c, not_null=True) if c.attnum in cols else c for c in table.columns
    )
    s.pending_drops.append(table.space)
    store.put(txn, db, dataclasses.replace(table, columns=columns, primary_key=cols,
                                           space=new_space))


def add_check(s: SQLSession, table: Table, name: str, text: str, validate: bool = True) -> None:
    """Adds a CHECK constraint (validating existing rows unless NOT VALID)."""

    check_name_free(s, table, name)
    cat = s.catalog()
    cname = name or unique_name(cat, table.schema_oid,
                                f"{table.name}_{check_col(text, list(table.columns))}check")
    con = Constraint(s.store.allocate_oid(), cname, table.oid, "c",
                     check_attnums(text, list(table.columns)), check=text, validated=validate)
    s.store.put(s.ensure_txn(), s.db.oid, con)
    s.catalog_changed()

    if validate:
        validate_existing(s, s.catalog().existing_table(table.oid), con)


def validate_constraint(s: SQLSession, table: Table, name: str) -> None:
    """ALTER TABLE ... VALIDATE CONSTRAINT: checks the rows a NOT VALID constraint skipped."""
    con = next((c for c in s.catalog().constraints_of(table.oid) if c.name == name), None)
    if con is None:
        raise UndefinedObject(f'constraint "{name}" of relation "{table.name}" does not exist')
    if con.kind not in ("c", "f"):
        raise WrongObjectType(
            f'constraint "{name}" of relation "{table.name}" is not a foreign key or check '
            "constraint")
    if con.validated:
        return

    validate_existing(s, table, con)
    s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(con, validated=True))
    s.catalog_changed()


def set_not_null(s: SQLSession, table: Table, col: Column, value: bool) -> None:
    """ALTER COLUMN SET / DROP NOT NULL."""
    pk = primary_key_of(s.catalog(), table) if not value else None
    if pk is not None and col.attnum in pk.columns:
        raise InvalidTableDefinition(f'column "{col.name}" is in a primary key')
    if value:

        txn = s.ensure_txn()
        at = col.attnum - 1
        if txn.has_writes and txn.ws.written(table.space):
            # NB: a pushed filter reads the stored rows, narrower than the ones this
            # transaction rewrote when it added the column (ADD COLUMN, then SET NOT NULL)
            nulls = (r for b in txn.scan(ScanSpec(table.space)) for r in b if r[at] is None)
            found = next(nulls, None) is not None
        else:
            spec = ScanSpec(table.space, filter=("is_null", ("col", at)), limit=1)
            found = any(batch for batch in txn.scan(spec))
        if found:
            raise NotNullViolation(
                f'column "{col.name}" of relation "{table.name}" contains null values',
                table=table.name, column=col.name)
    cols = tuple(dataclasses.replace(c, not_null=value) if c.attnum == col.attnum else c
                 for c in table.columns)
    s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(table, columns=cols))
    s.catalog_changed()


_VALIDATE = re.compile(r"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<table>\S+)\s+"
                       r"VALIDATE\s+CONSTRAINT\s+(?P<name>\S+?)\s*;?\s*$", re.I | re.S)


_ALTER_CON = re.compile(
    r"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<table>\S+)\s+ALTER\s+"
    r"CONSTRAINT\s+(?P<name>\S+?)(?P<opts>(?:\s+(?:NOT\s+DEFERRABLE|DEFERRABLE|"
    r"INITIALLY\s+DEFERRED|INITIALLY\s+IMMEDIATE))*)\s*;?\s*$", re.I | re.S)


def alter_constraint(s: SQLSession, table: Table, name: str, deferral: tuple[bool, bool]
                     ) -> None:
    """ALTER TABLE ... ALTER CONSTRAINT fk [NOT] DEFERRABLE [INITIALLY ...]: PostgreSQL 15
    alters foreign keys only, and what the clause leaves out is NOT DEFERRABLE INITIALLY
    IMMEDIATE."""
    con = next((c for c in s.catalog().constraints_of(table.oid) if c.name == name), None)
    if con is None:
        raise UndefinedObject(f'constraint "{name}" of relation "{table.name}" does not exist')
    if con.kind != "f":
        raise WrongObjectType(
            f'constraint "{name}" of relation "{table.name}" is not a foreign key constraint')
    s.store.put(s.ensure_txn(), s.db.oid,
                dataclasses.replace(con, deferrable=deferral[0], deferred=deferral[1]))
    s.catalog_changed()


def analyse_validate(sql: str) -> Stmt | None:
    """ALTER TABLE t VALIDATE CONSTRAINT c, and ALTER TABLE t ALTER CONSTRAINT c [NOT]
    DEFERRABLE [INITIALLY ...] (sqlglot reads both as bare commands)."""
    m = _VALIDATE.match(sql)
    if m is None:
        m = _ALTER_CON.match(sql)
        if m is None:
            return None
        deferral = fk_deferral(re.findall(r"NOT\s+DEFERRABLE|DEFERRABLE|INITIALLY\s+\w+",
                                          m.group("opts"), re.I))

    def run(s: SQLSession, p: list[Any]) -> Result:
        schema, name = parse_qualified(m.group("table"))
        table = find_relation(s.catalog(), schema, name, s.search_path())
        if table is None:
            skip_or_raise(s, f'relation "{name}"', bool(m.group("ie")), UndefinedTable)
            return Result("ALTER TABLE")
        cat = s.catalog()
        must_own(cat, current_role(s, cat), table.owner, relation_noun(table), table.name)
        refuse_pending(s, cat, table, "ALTER TABLE")
        if "opts" in m.groupdict():
            alter_constraint(s, table, unquote_ident(m.group("name")), deferral)
        else:
            validate_constraint(s, table, unquote_ident(m.group("name")))
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")
