"""ALTER TABLE t SET SCHEMA s: the table moves with what PostgreSQL moves along with it.

Its indexes, constraints and row type have no schema of their own in our catalog (pg_class,
pg_constraint and pg_type derive it from the table), so they follow at once. The sequences
it owns (serial and identity columns) move too, and its `nextval('seq'::regclass)` defaults,
which hold the sequence's name where PostgreSQL holds its OID, are rewritten to name it where
it now is (qualified unless the schema is on the search_path, as pg_get_expr prints it).
Views that read the table are rewritten to name it in its new schema (`ddl.depends`). Every
name that moves must be free in the target schema: 42P07 otherwise, as in PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...errors import DuplicateTable
from ..catalog.model import Column, Schema, Table
from .coldefs import quote_ident
from .depends import move_table_in_views
from .names import relation_name_taken

if TYPE_CHECKING:
    from ..session import SQLSession


def move_table(s: SQLSession, table: Table, to: Schema) -> None:
    """Moves `table` (a checked, owned relation of kind "r") into schema `to`."""
    cat = s.catalog()
    old = cat.schema_by_oid(table.schema_oid)
    seqs = [q for q in cat.sequences if q.owned_by is not None and q.owned_by[0] == table.oid]
    names = [table.name, *(i.name for i in cat.indexes if i.table_oid == table.oid),
             *(q.name for q in seqs)]
    for name in names:
        if relation_name_taken(cat, to.oid, name):
            raise DuplicateTable(f'relation "{name}" already exists in schema "{to.name}"')
    txn = s.ensure_txn()
    columns = table.columns
    for q in seqs:
        s.store.put(txn, s.db.oid, dataclasses.replace(q, schema_oid=to.oid))
        new_ref = quote_ident(q.name)
        if to.name not in s.search_path():
            new_ref = f"{quote_ident(to.name)}.{new_ref}"
        olds = [f"'{quote_ident(q.name)}'::regclass"]
        if old is not None:
            olds.append(f"'{quote_ident(old.name)}.{quote_ident(q.name)}'::regclass")
        columns = tuple(_rewrite_default(c, olds, f"'{new_ref}'::regclass") for c in columns)
    move_table_in_views(s, table, to.name)
    s.store.put(txn, s.db.oid, dataclasses.replace(table, schema_oid=to.oid, columns=columns))
    s.catalog_changed()


def _rewrite_default(c: Column, olds: list[str], new: str) -> Column:
    if not c.default:
        return c
    text = c.default
    for o in olds:
        text = text.replace(o, new)
    return dataclasses.replace(c, default=text) if text != c.default else c
