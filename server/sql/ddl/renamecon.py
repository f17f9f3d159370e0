"""ALTER TABLE ... RENAME CONSTRAINT a TO b, as PostgreSQL 15 does it.

A constraint backed by an index (PRIMARY KEY, UNIQUE, EXCLUDE) renames its index with it,
so the name stays the index's too (pg_class, psql's `\\d`); the new name must be free
among the table's constraints (42710) and, for those, among the schema's relations
(42P07). sqlglot reads the statement as a bare command, so it is matched here.

>>> _RENAME.match('alter table only "T" rename constraint a to "B"').group("new")
'"B"'
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import DuplicateObject, DuplicateTable, UndefinedObject, UndefinedTable
from ...pgwire.backend import Result
from ..dml.deferstate import refuse_pending
from ..parse import unquote_ident
from ..privileges.check import current_role, must_own, relation_noun
from ..stmt import Stmt
from .names import find_relation, parse_qualified, relation_name_taken, skip_or_raise

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[^\s"]+)'
_RENAME = re.compile(rf"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<table>\S+?)"
                     rf"\s+RENAME\s+CONSTRAINT\s+(?P<old>{_NAME})\s+TO\s+(?P<new>{_NAME})"
                     r"\s*;?\s*$", re.I | re.S)


def analyse_rename_constraint(sql: str) -> Stmt | None:
    """The Stmt of ALTER TABLE ... RENAME CONSTRAINT, else None."""
    m = _RENAME.match(sql)
    if m is None:
        return None
    schema, name = parse_qualified(m.group("table"))
    old, new = unquote_ident(m.group("old")), unquote_ident(m.group("new"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        table = find_relation(cat, schema, name, s.search_path())
        if table is None:
            skip_or_raise(s, f'relation "{name}"', bool(m.group("ie")), UndefinedTable)
            return Result("ALTER TABLE")
        must_own(cat, current_role(s, cat), table.owner, relation_noun(table), table.name)
        con = next((c for c in cat.constraints_of(table.oid) if c.name == old), None)
        if con is None:
            raise UndefinedObject(f'constraint "{old}" for table "{table.name}" does not exist')
        if any(c.name == new for c in cat.constraints_of(table.oid)):
            raise DuplicateObject(
                f'constraint "{new}" for relation "{table.name}" already exists')
        refuse_pending(s, cat, table, "ALTER TABLE")
        txn = s.ensure_txn()
        idx = next((i for i in cat.indexes if i.oid == con.index_oid), None) \
            if con.kind in ("p", "u", "x") else None
        if idx is not None:
            if relation_name_taken(cat, table.schema_oid, new):
                raise DuplicateTable(f'relation "{new}" already exists')
            s.store.put(txn, s.db.oid, dataclasses.replace(idx, name=new))
        s.store.put(txn, s.db.oid, dataclasses.replace(con, name=new))
        s.catalog_changed()
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")
