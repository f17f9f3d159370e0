"""Primary-key and identity changes that Django's migrations emit.

- `ALTER TABLE t ALTER COLUMN c DROP IDENTITY [IF EXISTS]`: the column keeps its
  values, loses its generator, and its owned sequence is dropped.
- `ALTER TABLE t ALTER COLUMN c ADD GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY
  [( sequence options )]`: a new owned sequence (starting at 1, as PostgreSQL).
- Dropping the primary key (`DROP CONSTRAINT t_pkey`, or dropping a key column):
  rows live under their primary-key values, so the table moves to hidden row ids
  in a new space and its secondary indexes are rebuilt (their entries point at
  the key). A foreign key that references the key blocks it (2BP01) unless CASCADE.
- Changing a key column's type with a value conversion (`TYPE bigint USING ...`):
  after the rows are rewritten, they move under their new key values (`rekey`).

sqlglot reads the two identity forms as an opaque Command, so they are matched
here with regular expressions (`analyse_identity`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    InvalidTableDefinition,
    ObjectNotInPrerequisiteState,
    UndefinedColumn,
)
from ...pgwire.backend import Result
from ...txn.api import ScanSpec
from ..catalog.model import Constraint, Sequence, Table
from ..dml.deferstate import refuse_pending
from ..dml.writer import int_keys
from ..parse import unquote_ident
from ..stmt import Stmt
from .depends import refuse_dependents, report_cascade
from .indexes import build_index
from .names import get_relation, parse_qualified, unique_name

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_IDENTITY = re.compile(
    rf"ALTER\s+TABLE\s+(?:ONLY\s+)?(?P<if>IF\s+EXISTS\s+)?(?P<table>{_NAME}(?:\s*\.\s*{_NAME})?)"
    rf"\s+ALTER\s+(?:COLUMN\s+)?(?P<col>{_NAME})\s+"
    r"(?:(?P<drop>DROP\s+IDENTITY(?P<ifx>\s+IF\s+EXISTS)?)"
    r"|ADD\s+GENERATED\s+(?P<gen>ALWAYS|BY\s+DEFAULT)\s+AS\s+IDENTITY\s*(?P<opts>\(.*\))?)"
    r"\s*;?\s*$", re.I | re.S)
_SEQ_OPT = re.compile(r"(START\s+(?:WITH\s+)?|INCREMENT\s+(?:BY\s+)?|MINVALUE\s+|MAXVALUE\s+"
                      r"|CACHE\s+)(-?\d+)", re.I)
SEQ_MAX = {21: 2**15 - 1, 23: 2**31 - 1, 20: 2**63 - 1}


def analyse_identity(session: SQLSession, sql: str) -> Stmt | None:
    """The Stmt of ALTER COLUMN ... DROP IDENTITY / ADD GENERATED ... AS IDENTITY, else None."""
    m = _IDENTITY.match(sql.strip())
    if m is None:
        return None
    schema, tname = parse_qualified(m.group("table"))
    col_name = unquote_ident(m.group("col"))
    opts: dict[str, int] = {k.split()[0].upper(): int(v)
                            for k, v in _SEQ_OPT.findall(m.group("opts") or "")}

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        table = get_relation(cat, schema, tname, s.search_path())
        refuse_pending(s, cat, table, "ALTER TABLE")
        col = next((c for c in table.live_columns if c.name == col_name), None)
        if col is None:
            raise UndefinedColumn(
                f'column "{col_name}" of relation "{table.name}" does not exist')
        txn = s.ensure_txn()
        if m.group("drop"):
            if not col.identity:
                if m.group("ifx"):
                    s.notice(f'column "{col.name}" of relation "{table.name}" is not an '
                             "identity column, skipping")
                    return Result("ALTER TABLE")
                raise ObjectNotInPrerequisiteState(
                    f'column "{col.name}" of relation "{table.name}" is not an identity column')
            for q in cat.sequences:
                if q.owned_by == (table.oid, col.attnum):
                    s.store.delete(txn, s.db.oid, q)
            _put_column(s, table, dataclasses.replace(col, identity=""))
            return Result("ALTER TABLE")
        if col.identity:
            raise ObjectNotInPrerequisiteState(
                f'column "{col.name}" of relation "{table.name}" is already an identity column')
        if not col.not_null:
            raise ObjectNotInPrerequisiteState(
                f'column "{col.name}" of relation "{table.name}" must be declared NOT NULL '
                "before identity can be added")
        if col.default is not None:
            raise InvalidTableDefinition(
                f'column "{col.name}" of relation "{table.name}" already has a default value')

        inc = opts.get("INCREMENT", 1)
        top = SEQ_MAX.get(col.type_oid, 2**63 - 1)
        lo = opts.get("MINVALUE", 1 if inc > 0 else -top - 1)
        hi = opts.get("MAXVALUE", top if inc > 0 else -1)
        start = opts.get("START", lo if inc > 0 else hi)
        seq = Sequence(s.store.allocate_oid(),
                       unique_name(cat, table.schema_oid, f"{table.name}_{col.name}_seq"),
                       table.schema_oid, col.type_oid, start=start, increment=inc, min_value=lo, max_value=hi, cache=opts.get("CACHE", 1),
                       owned_by=(table.oid, col.attnum))
        s.store.put(txn, s.db.oid, seq)
        gen = "a" if m.group("gen").upper() == "ALWAYS" else "d"
        _put_column(s, table, dataclasses.replace(col, identity=gen))
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")


def _put_column(s: SQLSession, table: Table, col: Any) -> None:
    cols = tuple(col if c.attnum == col.attnum else c for c in table.columns)
    s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(table, columns=cols))
    s.catalog_changed()


def drop_primary_key(s: SQLSession, table: Table, cascade: bool) -> None:
    """Drops the primary key: the rows move under hidden row ids, indexes are rebuilt."""

    cat = s.catalog()
    pk = next((c for c in cat.constraints_of(table.oid) if c.kind == "p"), None)
    txn, db = s.ensure_txn(), s.db.oid
    if not table.primary_key:  # NB: a DEFERRABLE key: the rows live under row ids already
        for idx in cat.indexes_of(table.oid):
            if idx.primary or (pk is not None and idx.oid == pk.index_oid):
                s.pending_drops.append(idx.space)
                s.store.delete(txn, db, idx)
        if pk is not None:
            s.store.delete(txn, db, pk)
        s.catalog_changed()
        return
    refs = [c for c in cat.constraints if c.kind == "f" and c.ref_table_oid == table.oid
            and set(c.ref_columns) == set(table.primary_key)]
    if refs and not cascade:
        name = pk.name if pk is not None else f"{table.name}_pkey"
        refuse_dependents(f"constraint {name} on table {table.name}", [
            f"constraint {c.name} on table {_table_name(cat, c)} depends on index {name}"
            for c in refs])
    for c in refs:
        s.store.delete(txn, db, c)
    report_cascade(s, [f"constraint {c.name} on table {_table_name(cat, c)}" for c in refs])
    new_space = s.store.allocate_oid()
    txn.claim_space(new_space)
    for batch in txn.scan(ScanSpec(table.space, batch_size=4096)):
        s.exec_context([]).check_cancel()
        start = s.store.allocate_rowids(table.oid, len(batch))
        keys = int_keys(range(start, start + len(batch)))
        assert keys is not None
        txn.put(new_space, list(zip(keys, batch, strict=True)))
    s.pending_drops.append(table.space)
    if pk is not None:
        s.store.delete(txn, db, pk)
    for idx in cat.indexes_of(table.oid):
        if idx.primary or (pk is not None and idx.oid == pk.index_oid):
            s.store.delete(txn, db, idx)
    moved = dataclasses.replace(table, primary_key=(), space=new_space)
    s.store.put(txn, db, moved)
    s.catalog_changed()
    rebuild_indexes(s, moved)


def rebuild_indexes(s: SQLSession, table: Table) -> None:
    """Rebuilds every secondary index of `table` into a new space (their entries hold keys)."""

    txn = s.ensure_txn()
    for idx in s.catalog().indexes_of(table.oid):
        if not idx.space:
            continue
        s.pending_drops.append(idx.space)
        moved = dataclasses.replace(idx, space=s.store.allocate_oid())
        s.store.put(txn, s.db.oid, moved)
        s.catalog_changed()
        build_index(s, s.catalog().existing_table(table.oid), moved)


def _table_name(cat: Any, c: Constraint) -> str:
    t = cat.table_by_oid(c.table_oid)
    return t.name if t is not None else "?"
