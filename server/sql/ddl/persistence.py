"""UNLOGGED tables, tablespaces and table access methods, as PostgreSQL 15 checks and shows them.

KiVi logs every write, so an UNLOGGED table is stored like any other; what changes is
what the catalog says (pg_class.relpersistence "u" for the table, its indexes and the
sequences it owns, as pg_dump and ORMs read it back) and what PostgreSQL refuses:
a permanent table's foreign key cannot reference an unlogged one, and SET LOGGED /
SET UNLOGGED check the keys both ways (42P16).

Cumulo has the two built-in tablespaces and the one table access method `heap`:
`TABLESPACE pg_default` and `USING heap` are accepted as no-ops, `pg_global` is for shared
relations only (22023), an index method is not a table method (55000), and any other name
is 42704, as in PostgreSQL.

>>> check_tablespace("pg_default")
>>> try:
...     check_tablespace("fast")
... except UndefinedObject as e:
...     print(e.sqlstate, e.message)
42704 tablespace "fast" does not exist
>>> try:
...     check_table_method("btree")
... except ObjectNotInPrerequisiteState as e:
...     print(e.sqlstate, e.message)
55000 access method "btree" is not of type TABLE
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...errors import (
    InvalidParameterValue,
    InvalidTableDefinition,
    ObjectNotInPrerequisiteState,
    UndefinedObject,
    WrongObjectType,
)
from ..catalog.model import CatalogSnapshot, Table
from ..pgcatalog.accessmethods import INDEX_METHODS
from ..privileges.check import relation_noun

if TYPE_CHECKING:
    from ..session import SQLSession

__all__ = ["check_fk_persistence", "check_table_method", "check_tablespace", "persistence_of",
           "refuse_on_kind", "set_persistence"]

_TABLESPACES = ("pg_default", "pg_global")


def check_tablespace(name: str) -> None:
    """TABLESPACE name of a table or index: pg_default is where everything lives."""
    if name not in _TABLESPACES:
        raise UndefinedObject(f'tablespace "{name}" does not exist')
    if name == "pg_global":
        raise InvalidParameterValue(
            "only shared relations can be placed in pg_global tablespace")


def check_table_method(name: str) -> None:
    """USING / SET ACCESS METHOD name of a table: only heap."""
    if name == "heap":
        return
    if name in INDEX_METHODS:
        raise ObjectNotInPrerequisiteState(f'access method "{name}" is not of type TABLE')
    raise UndefinedObject(f'access method "{name}" does not exist')


def persistence_of(cat: CatalogSnapshot, table: Table) -> str:
    """pg_class.relpersistence: "t" in a temporary schema, else the table's "p" or "u"."""
    schema = cat.schema_by_oid(table.schema_oid)
    if schema is not None and schema.name.startswith("pg_temp"):
        return "t"
    return table.persistence


def refuse_on_kind(table: Table, action: str) -> None:
    """42809 for an ALTER TABLE action on a view (or other relation without storage)."""
    if table.kind not in ("r", "p", "m"):
        raise WrongObjectType(
            f'ALTER action {action} cannot be performed on relation "{table.name}"',
            detail=f"This operation is not supported for {relation_noun(table)}s.")


def check_fk_persistence(cat: CatalogSnapshot, table: Table, parent: Table) -> None:
    """A foreign key of `table` referencing `parent`: PostgreSQL's 42P16 checks."""
    mine, theirs = persistence_of(cat, table), persistence_of(cat, parent)
    if mine == "p" and theirs != "p":
        raise InvalidTableDefinition(
            "constraints on permanent tables may reference only permanent tables")
    if mine == "u" and theirs == "t":
        raise InvalidTableDefinition(
            "constraints on unlogged tables may reference only permanent or unlogged tables")
    if mine == "t" and theirs != "t":
        raise InvalidTableDefinition(
            "constraints on temporary tables may reference only temporary tables")


def set_persistence(s: SQLSession, table: Table, logged: bool) -> Table:
    """ALTER TABLE SET LOGGED / SET UNLOGGED: the table, its indexes (which follow it in
    pg_class) and the sequences it owns (identity, serial) change together."""
    refuse_on_kind(table, "SET LOGGED" if logged else "SET UNLOGGED")
    cat = s.catalog()
    now = persistence_of(cat, table)
    if now == "t":
        raise InvalidTableDefinition(f'cannot change logged status of table "{table.name}" '
                                     "because it is temporary")
    want = "p" if logged else "u"
    if now == want:
        return table
    for con in cat.constraints:  # NB: to logged, the tables it references; else those that
        if con.kind != "f":      # reference it (scanned as PostgreSQL scans conrelid/confrelid)
            continue
        mine, other = (con.table_oid, con.ref_table_oid) if logged else \
            (con.ref_table_oid, con.table_oid)
        if mine != table.oid or other == table.oid:
            continue
        foreign = cat.table_by_oid(other)
        if foreign is None:
            continue
        if logged and persistence_of(cat, foreign) != "p":
            raise InvalidTableDefinition(f'could not change table "{table.name}" to logged '
                                         f'because it references unlogged table "{foreign.name}"')
        if not logged and persistence_of(cat, foreign) == "p":
            raise InvalidTableDefinition(f'could not change table "{table.name}" to unlogged '
                                         f'because it references logged table "{foreign.name}"')
    txn = s.ensure_txn()
    for seq in cat.sequences:
        if seq.owned_by is not None and seq.owned_by[0] == table.oid:
            s.store.put(txn, s.db.oid, dataclasses.replace(seq, persistence=want))
    return dataclasses.replace(table, persistence=want)
