"""ALTER TABLE actions about how PostgreSQL stores, replicates and clusters a table.

Django, Alembic and pg_dump output emit them: `ALTER COLUMN c SET STATISTICS n`,
`SET STORAGE {PLAIN | EXTERNAL | EXTENDED | MAIN}`, `SET COMPRESSION {pglz | lz4 |
default}`, `REPLICA IDENTITY {DEFAULT | FULL | NOTHING | USING INDEX i}`, `CLUSTER ON
i` (`SET WITHOUT CLUSTER`, which sqlglot parses, is in `alter`), `{ENABLE | DISABLE | [NO] FORCE} ROW LEVEL SECURITY` and
`[NO] INHERIT parent`. Cumulo's storage does not act on the first five (KiVi has no
TOAST, no heap order, no logical decoding), so each is checked as PostgreSQL 15 checks
it and kept where its catalog shows it (pg_attribute.attstattarget / attstorage /
attcompression, pg_class.relreplident, pg_index.indisreplident / indisclustered).

Row-level security is kept in pg_class.relrowsecurity / relforcerowsecurity. Cumulo
has no policies (CREATE POLICY is 0A000), so a table under it is refused (0A000) to
every role PostgreSQL would filter through policies, instead of showing it rows that
PostgreSQL's default-deny hides (`privileges.check.check_table`).

Tables do not inherit here: `NO INHERIT p` is PostgreSQL's 42P01 (not a parent), and
`INHERIT p` is refused after PostgreSQL's own checks.

sqlglot reads these as opaque commands, so they are matched with a regular expression.

>>> _ACTION.match("alter column b set statistics 100").group("stat")
'100'
>>> _ACTION.match('REPLICA IDENTITY USING INDEX "I"').group("ri_index")
'"I"'
"""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import TYPE_CHECKING, Any

from ...errors import (
    DatatypeMismatch,
    DuplicateTable,
    FeatureNotSupported,
    InvalidParameterValue,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
    UndefinedTable,
    WrongObjectType,
)
from ...pgwire.backend import Result
from ..catalog.model import Column, Index, Table
from ..catalog.syscols import SYSTEM_COLUMNS
from ..dml.deferstate import refuse_pending
from ..expr.types import type_name
from ..parse import unquote_ident
from ..pgcatalog.systypes import type_storage
from ..privileges.check import current_role, must_own, relation_noun
from ..setvalue import split_commas
from ..stmt import Stmt
from .names import find_index, find_relation, parse_qualified, skip_or_raise

if TYPE_CHECKING:
    from ..session import SQLSession

__all__ = ["analyse_physical"]

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_QNAME = rf"{_NAME}(?:\s*\.\s*{_NAME})?"
_HEAD = re.compile(rf"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<table>{_QNAME})"
                   r"(?:\s*\*)?\s+", re.I)
_ACTION = re.compile(
    rf"(?:ALTER\s+(?:COLUMN\s+)?(?P<col>{_NAME})\s+SET\s+"
    r"(?:STATISTICS\s+(?P<stat>\S+)|STORAGE\s+(?P<storage>\S+)"
    r"|COMPRESSION\s+(?P<compression>\S+))"
    rf"|ALTER\s+(?:COLUMN\s+)?(?P<optcol>{_NAME})\s+(?P<optverb>SET|RESET)\s*"
    r"\((?P<attopts>[^)]*)\)"
    rf"|REPLICA\s+IDENTITY\s+(?:USING\s+INDEX\s+(?P<ri_index>{_NAME})|(?P<ri>\w+))"
    rf"|CLUSTER\s+ON\s+(?P<cluster>{_NAME})"
    r"|(?P<rls>ENABLE|DISABLE|FORCE|NO\s+FORCE)\s+ROW\s+LEVEL\s+SECURITY"
    rf"|(?P<noinherit>NO\s+)?INHERIT\s+(?P<parent>{_QNAME}))\s*;?\s*$", re.I | re.S)

_STORAGE = {"plain": "p", "external": "e", "extended": "x", "main": "m"}
_COMPRESSION = {"pglz": "p", "lz4": "l", "default": ""}
_REPLICA = {"default": "d", "full": "f", "nothing": "n"}
_WORDS = {"stat": "ALTER COLUMN ... SET STATISTICS", "storage": "ALTER COLUMN ... SET STORAGE",
          "compression": "ALTER COLUMN ... SET COMPRESSION", "ri": "REPLICA IDENTITY",
          "attopts": "ALTER COLUMN ... SET",
          "ri_index": "REPLICA IDENTITY", "cluster": "CLUSTER ON",
          "rls": "ENABLE ROW SECURITY",
          "parent": "INHERIT"}
_MAX_STATISTICS = 10000


_INDEX_STAT = re.compile(
    rf"\s*ALTER\s+INDEX\s+(?P<ie>IF\s+EXISTS\s+)?(?P<index>{_QNAME})\s+ALTER\s+(?:COLUMN\s+)?"
    r"(?P<num>[-+]?\d+)\s+SET\s+STATISTICS\s+(?P<stat>\S+?)\s*;?\s*$", re.I | re.S)


def analyse_physical(session: SQLSession, sql: str) -> Stmt | None:
    """The Stmt of one of the ALTER TABLE actions above, else None."""
    stat = _INDEX_STAT.match(sql)
    if stat is not None:
        return _index_statistics(sql, stat)
    head = _HEAD.match(sql)
    m = _ACTION.match(sql, head.end()) if head else None
    if head is None or m is None:
        return None
    schema, name = parse_qualified(head.group("table"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        table = find_relation(s.catalog(), schema, name, s.search_path())
        if table is None:
            skip_or_raise(s, f'relation "{name}"', bool(head.group("ie")), UndefinedTable)
            return Result("ALTER TABLE")
        cat = s.catalog()
        if table.kind not in ("r", "p", "m"):
            word = _WORDS[next(k for k in _WORDS if m.group(k) is not None)]
            raise WrongObjectType(f'ALTER action {word} cannot be performed on relation '
                                  f'"{table.name}"', detail=f"This operation is not supported "
                                  f"for {relation_noun(table)}s.")
        must_own(cat, current_role(s, cat), table.owner, relation_noun(table), table.name)
        refuse_pending(s, cat, table, "ALTER TABLE")
        changed = _column_action(s, table, m) if m.group("col") or m.group("optcol") \
            else _table_action(s, table, m)
        if changed is not table:
            s.store.put(s.ensure_txn(), s.db.oid, changed)
            s.catalog_changed()
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")


def _column_action(s: SQLSession, table: Table, m: re.Match[str]) -> Table:
    name = unquote_ident(m.group("col") or m.group("optcol"))
    if any(n == name for n, _, _ in SYSTEM_COLUMNS):
        raise FeatureNotSupported(f'cannot alter system column "{name}"')
    col = next((c for c in table.live_columns if c.name == name), None)
    if col is None:
        raise UndefinedColumn(f'column "{name}" of relation "{table.name}" does not exist')
    typlen, _, _, typstorage = type_storage(col.type_oid)
    if m.group("attopts") is not None:
        new = dataclasses.replace(col, options=attribute_options(
            col.options, m.group("attopts"), m.group("optverb").upper() == "RESET"))
    elif m.group("stat") is not None:
        new = dataclasses.replace(col, stattarget=_statistics(s, m.group("stat")))
    elif m.group("storage") is not None:
        word = m.group("storage").lower()
        if word not in _STORAGE:
            if word == "default":  # NB: PostgreSQL 16's
                raise SyntaxError_(f'syntax error at or near "{m.group("storage")}"')
            raise InvalidParameterValue(f'invalid storage type "{word}"')
        if _STORAGE[word] != "p" and typstorage == "p":
            raise FeatureNotSupported(
                f"column data type {_type_name(col)} can only have storage PLAIN")
        new = dataclasses.replace(col, storage=_STORAGE[word])
    else:
        word = m.group("compression").lower()
        if word not in _COMPRESSION:
            raise InvalidParameterValue(f'invalid compression method "{word}"')
        if typlen != -1 or typstorage == "p":
            raise FeatureNotSupported(
                f"column data type {_type_name(col)} does not support compression")
        new = dataclasses.replace(col, compression=_COMPRESSION[word])
    return dataclasses.replace(
        table, columns=tuple(new if c.attnum == col.attnum else c for c in table.columns))


_ATTRIBUTE_OPTIONS = ("n_distinct", "n_distinct_inherited")


def attribute_options(old: tuple[str, ...], text: str, reset: bool) -> tuple[str, ...]:
    """ALTER COLUMN SET (n_distinct = -0.5, ...) / RESET (n_distinct): pg_attribute.attoptions
    as PostgreSQL keeps them (the planner does not read them here; ANALYZE estimates on).

    >>> attribute_options(("n_distinct=-0.5",), "n_distinct_inherited = 100, n_distinct=5", False)
    ('n_distinct_inherited=100', 'n_distinct=5')
    >>> attribute_options(('n_distinct_inherited=100', 'n_distinct=5'), "n_distinct", True)
    ('n_distinct_inherited=100',)
    """
    items = [option_item_text(part) for part in split_commas(text) if part.strip()]
    for key, value in items:
        if key not in _ATTRIBUTE_OPTIONS:
            raise InvalidParameterValue(f'unrecognized parameter "{key}"')
        if reset:
            continue
        if value is None:
            raise InvalidParameterValue(f'invalid value for floating point option "{key}": true')
        try:
            number = float(value)
        except ValueError:
            raise InvalidParameterValue(
                f'invalid value for floating point option "{key}": {value}') from None
        if not -1.0 <= number <= sys.float_info.max:
            raise InvalidParameterValue(
                f'value {value} out of bounds for option "{key}"',
                detail=f'Valid values are between "{-1.0:f}" and "{sys.float_info.max:f}".')
    named = {k for k, _ in items}
    kept = tuple(o for o in old if o.split("=", 1)[0] not in named)
    return kept if reset else kept + tuple(f"{k}={v}" for k, v in items)


def option_item_text(part: str) -> tuple[str, str | None]:
    """`name = value` of an option list, the value's quotes taken off (None: bare name)."""
    key, eq, value = part.partition("=")
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        value = value[1:-1].replace("''", "'")
    return key.strip().lower(), value if eq else None


def _index_statistics(sql: str, m: re.Match[str]) -> Stmt:
    """ALTER INDEX i ALTER [COLUMN] n SET STATISTICS t (pg_dump emits it): only an
    expression column takes a target, kept in pg_attribute.attstattarget of the index."""
    num = int(m.group("num"))
    if not 0 < num <= 32767:  # NB: PostgreSQL's grammar checks it before any lookup
        raise InvalidParameterValue("column number must be in range from 1 to 32767")
    schema, name = parse_qualified(m.group("index"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        rel = find_relation(cat, schema, name, s.search_path())
        index = None if rel is not None else find_index(cat, schema, name, s.search_path())
        if index is None:
            if rel is not None:
                raise WrongObjectType(f'"{rel.name}" is not an index')
            skip_or_raise(s, f'relation "{name}"', bool(m.group("ie")), UndefinedTable)
            return Result("ALTER INDEX")
        table = cat.table_by_oid(index.table_oid)
        if table is not None:
            must_own(cat, current_role(s, cat), table.owner, "index", index.name)
        keys = (*index.columns, *index.include)
        if num > len(keys):
            raise UndefinedColumn(f'column number {num} of relation "{index.name}" does not exist')
        target = _statistics(s, m.group("stat"))
        if num > len(index.columns) or keys[num - 1] != 0:
            cols = {c.attnum: c.name for c in table.columns} if table else {}
            col = cols.get(keys[num - 1], "?")
            which = "included" if num > len(index.columns) else "non-expression"
            raise FeatureNotSupported(
                f'cannot alter statistics on {which} column "{col}" of index "{index.name}"',
                hint="Alter statistics on table column instead.")
        targets = list(index.stattargets or (-1,) * len(keys))
        targets[num - 1] = target
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(index, stattargets=tuple(targets)))
        s.catalog_changed()
        return Result("ALTER INDEX")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER INDEX")


def _statistics(s: SQLSession, text: str) -> int:
    """SET STATISTICS's integer: -1 resets, above 10,000 is lowered with a WARNING."""
    if not re.fullmatch(r"-?\d+", text):
        raise SyntaxError_(f'syntax error at or near "{text}"')
    n = int(text)
    if n < -1:
        raise InvalidParameterValue(f"statistics target {n} is too low")
    if n > _MAX_STATISTICS:
        s.notice(f"lowering statistics target to {_MAX_STATISTICS}", severity="WARNING",
                 sqlstate="01000")
        n = _MAX_STATISTICS
    return n


def _type_name(col: Column) -> str:
    return type_name(col.type_oid)


def _table_action(s: SQLSession, table: Table, m: re.Match[str]) -> Table:
    cat = s.catalog()
    if m.group("ri") is not None:
        word = m.group("ri").lower()
        if word not in _REPLICA:
            raise SyntaxError_(f'syntax error at or near "{m.group("ri")}"')
        return dataclasses.replace(table, replident=_REPLICA[word], replident_index=0)
    if m.group("ri_index") is not None:
        index = _index(s, table, m.group("ri_index"))
        what = f'index "{index.name}"'
        if not (index.unique or index.primary):
            raise WrongObjectType(f"cannot use non-unique {what} as replica identity")
        if any(c.index_oid == index.oid and c.deferrable for c in cat.constraints_of(table.oid)):
            raise FeatureNotSupported(f"cannot use non-immediate {what} as replica identity")
        if index.exprs or 0 in index.columns:
            raise FeatureNotSupported(f"cannot use expression {what} as replica identity")
        if index.predicate:
            raise FeatureNotSupported(f"cannot use partial {what} as replica identity")
        cols = {c.attnum: c for c in table.live_columns}
        for a in index.columns:
            if not cols[a].not_null:
                raise WrongObjectType(f"{what} cannot be used as replica identity because "
                                      f'column "{cols[a].name}" is nullable')
        return dataclasses.replace(table, replident="i", replident_index=index.oid)
    if m.group("cluster") is not None:
        index = _index(s, table, m.group("cluster"))
        if table.partkey:
            raise FeatureNotSupported("cannot mark index clustered in partitioned table")
        check_clusterable(index)
        return dataclasses.replace(table, cluster_index=index.oid)
    if m.group("rls") is not None:
        word = " ".join(m.group("rls").upper().split())
        if word in ("ENABLE", "DISABLE"):
            return dataclasses.replace(table, rowsecurity=word == "ENABLE")
        return dataclasses.replace(table, forcerowsecurity=word == "FORCE")
    return _inherit(s, table, m)


def check_clusterable(index: Index) -> None:
    """PostgreSQL's check_index_is_clusterable: 0A000 for an access method that cannot order
    a table (hash, gin, brin, spgist: pg_am.amclusterable) or a partial index."""
    if index.method not in ("btree", "gist"):
        raise FeatureNotSupported(f'cannot cluster on index "{index.name}" because access '
                                  "method does not support clustering")
    if index.predicate:
        raise FeatureNotSupported(f'cannot cluster on partial index "{index.name}"')


def _index(s: SQLSession, table: Table, written: str) -> Any:
    name = unquote_ident(written)
    index = next((i for i in s.catalog().indexes_of(table.oid) if i.name == name), None)
    if index is None:
        raise UndefinedObject(f'index "{name}" for table "{table.name}" does not exist')
    return index


def _inherit(s: SQLSession, table: Table, m: re.Match[str]) -> Table:
    """[NO] INHERIT: PostgreSQL's checks, then 0A000 (no table inherits here)."""
    schema, name = parse_qualified(m.group("parent"))
    parent = find_relation(s.catalog(), schema, name, s.search_path())
    if parent is None:
        raise UndefinedTable(f'relation "{name}" does not exist')
    if m.group("noinherit"):
        raise UndefinedTable(f'relation "{parent.name}" is not a parent of relation '
                             f'"{table.name}"')
    if parent.oid == table.oid:
        raise DuplicateTable("circular inheritance not allowed",
                             detail=f'"{table.name}" is already a child of "{table.name}".')
    mine = {c.name: c for c in table.live_columns}
    for c in parent.live_columns:
        if c.name not in mine:
            raise DatatypeMismatch(f'child table is missing column "{c.name}"')
    raise FeatureNotSupported("table inheritance is not supported")
