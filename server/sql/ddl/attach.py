"""`ALTER TABLE parent ATTACH PARTITION t FOR VALUES ... | DEFAULT`, `ALTER TABLE parent
DETACH PARTITION t` and `ALTER INDEX ... ATTACH PARTITION`, as PostgreSQL 15 (sqlglot
reads none of them: the text is matched here).

ATTACH makes an existing table a partition: it must have the parent's columns
(`partitions.same_layout`; `ddl.relayout` moves them to the parent's positions), its
bound is checked as CREATE TABLE ... PARTITION OF checks one (`partitions.bound_text`),
and every row it holds must fit that bound (23514), as must the rows left in the default partition.
DETACH makes a partition an ordinary table again, with its rows, and its ancestors'
foreign keys as its own (PostgreSQL's copies, with their names).

>>> _ACTION.match('ALTER TABLE m ATTACH PARTITION "M 1" DEFAULT').group("part")
'"M 1"'
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import InvalidObjectDefinition, UndefinedTable, WrongObjectType
from ...pgwire.backend import Result
from ..parse import parse_sql
from ..partitions.members import ancestors
from ..pgcatalog.partindexes import index_parent
from ..stmt import Stmt
from .detachcheck import check_no_references
from .names import find_index, find_relation, get_relation, parse_qualified, skip_or_raise
from .partitions import bound_text, check_attached_rows, parent_of, same_layout
from .relayout import relayout

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_QNAME = rf"{_NAME}(?:\s*\.\s*{_NAME})?"
_ACTION = re.compile(
    rf"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<table>{_QNAME})\s+"
    rf"(?P<verb>ATTACH|DETACH)\s+PARTITION\s+(?P<part>{_QNAME})\s*(?P<rest>.*?)\s*;?\s*$",
    re.I | re.S)


_INDEX = re.compile(
    rf"\s*ALTER\s+INDEX\s+(?P<index>{_QNAME})\s+ATTACH\s+PARTITION\s+(?P<part>{_QNAME})"
    r"\s*;?\s*$", re.I | re.S)


def analyse_attach(session: SQLSession, sql: str) -> Stmt | None:
    """The Stmt of an ATTACH or DETACH PARTITION, else None."""
    i = _INDEX.match(sql)
    if i is not None:
        return _attach_index(sql, i)
    m = _ACTION.match(sql)
    if m is None:
        return None
    schema, name = parse_qualified(m.group("table"))
    pschema, pname = parse_qualified(m.group("part"))
    attach = m.group("verb").upper() == "ATTACH"
    spec = _bound_clause(m.group("rest")) if attach else exp.Null()

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        parent = find_relation(cat, schema, name, s.search_path())
        if parent is None:
            skip_or_raise(s, f'relation "{name}"', bool(m.group("ie")), UndefinedTable)
            return Result("ALTER TABLE")
        parent_of(parent, attach=True)
        table = get_relation(cat, pschema, pname, s.search_path())
        txn, db = s.ensure_txn(), s.db.oid
        if attach:
            if table.partof:
                raise WrongObjectType(f'"{table.name}" is already a partition')
            in_place = same_layout(parent, table)
            bound = bound_text(s, parent, spec, table.name)
            if not in_place:
                table = relayout(s, parent, table)
            s.store.put(txn, db, dataclasses.replace(table, partof=parent.oid, partbound=bound))
            s.catalog_changed()
            check_attached_rows(s, parent, s.catalog().existing_table(table.oid))
        else:
            if table.partof != parent.oid:
                raise UndefinedTable(f'relation "{table.name}" is not a partition of relation '
                                     f'"{parent.name}"')
            check_no_references(s, table)
            for o in ancestors(cat, table):  # NB: their foreign keys become its own (PG's)
                for k in cat.constraints_of(o):
                    if k.kind == "f":
                        s.store.put(txn, db, dataclasses.replace(
                            k, oid=s.store.allocate_oid(), table_oid=table.oid))
            s.store.put(txn, db, dataclasses.replace(table, partof=0, partbound=""))
            s.catalog_changed()
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")


def _attach_index(sql: str, m: re.Match[str]) -> Stmt:
    """ALTER INDEX parent_index ATTACH PARTITION partition_index (pg_dump's): the pair is
    implicit here (a partition's index on the parent index's keys, `pgcatalog.partindexes`),
    so this checks that it is one."""
    schema, name = parse_qualified(m.group("index"))
    pschema, pname = parse_qualified(m.group("part"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        parent = find_index(cat, schema, name, s.search_path())
        part = find_index(cat, pschema, pname, s.search_path())
        if parent is None or part is None:
            raise UndefinedTable(f'relation "{name if parent is None else pname}" does not exist')
        owner = cat.table_by_oid(parent.table_oid)
        if owner is None or not owner.partkey:
            raise WrongObjectType(f'ALTER action ATTACH PARTITION cannot be performed on '
                                  f'relation "{parent.name}"',
                                  detail="This operation is not supported for indexes.")
        if index_parent(cat, part) != parent.oid:
            raise InvalidObjectDefinition(
                f'cannot attach index "{part.name}" as a partition of index "{parent.name}"',
                detail="The index definitions do not match.")
        return Result("ALTER INDEX")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER INDEX")


def _bound_clause(text: str) -> exp.Expression:
    """The FOR VALUES / DEFAULT clause, read by sqlglot as CREATE TABLE ... PARTITION OF's."""
    tree = parse_sql(f"CREATE TABLE _ PARTITION OF _ {text}")
    prop = next(p for p in tree.args["properties"].expressions
                if isinstance(p, exp.PartitionedOfProperty))
    return prop.expression
