"""`ALTER TABLE parent ATTACH PARTITION t FOR VALUES ... | DEFAULT` and `ALTER TABLE parent
DETACH PARTITION t`, as PostgreSQL 15 (sqlglot reads neither: the text is matched here).

ATTACH makes an existing table a partition: it must have the parent's columns at
the same positions (`partitions.same_layout`), its bound is checked as CREATE
TABLE ... PARTITION OF checks one (`partitions.bound_text`), and every row it
holds must fit that bound (23514), as must the rows left in the default partition.
DETACH makes a partition an ordinary table again, with its rows.

>>> _ACTION.match('ALTER TABLE m ATTACH PARTITION "M 1" DEFAULT').group("part")
'"M 1"'
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import UndefinedTable, WrongObjectType
from ...pgwire.backend import Result
from ..parse import parse_sql
from ..stmt import Stmt
from .names import find_relation, get_relation, parse_qualified, skip_or_raise
from .partitions import bound_text, check_attached_rows, parent_of, same_layout

if TYPE_CHECKING:
    from ..session import SQLSession

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_QNAME = rf"{_NAME}(?:\s*\.\s*{_NAME})?"
_ACTION = re.compile(
    rf"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<table>{_QNAME})\s+"
    rf"(?P<verb>ATTACH|DETACH)\s+PARTITION\s+(?P<part>{_QNAME})\s*(?P<rest>.*?)\s*;?\s*$",
    re.I | re.S)


def analyse_attach(session: SQLSession, sql: str) -> Stmt | None:
    """The Stmt of an ATTACH or DETACH PARTITION, else None."""
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
            same_layout(parent, table)
            bound = bound_text(s, parent, spec, table.name)
            s.store.put(txn, db, dataclasses.replace(table, partof=parent.oid, partbound=bound))
            s.catalog_changed()
            check_attached_rows(s, parent, s.catalog().existing_table(table.oid))
        else:
            if table.partof != parent.oid:
                raise UndefinedTable(f'relation "{table.name}" is not a partition of relation '
                                     f'"{parent.name}"')
            s.store.put(txn, db, dataclasses.replace(table, partof=0, partbound=""))
            s.catalog_changed()
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")


def _bound_clause(text: str) -> exp.Expression:
    """The FOR VALUES / DEFAULT clause, read by sqlglot as CREATE TABLE ... PARTITION OF's."""
    tree = parse_sql(f"CREATE TABLE _ PARTITION OF _ {text}")
    prop = next(p for p in tree.args["properties"].expressions
                if isinstance(p, exp.PartitionedOfProperty))
    return prop.expression
