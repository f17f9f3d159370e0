"""REINDEX and CLUSTER: PostgreSQL 15's checks and outcomes, with nothing to rebuild.

Why nothing is rebuilt: a Cumulo index is written in the same transaction as
its table's rows (KiVi keeps both), so it can neither bloat nor be left
corrupt by a crash the way a PostgreSQL heap index can; and a Cumulo table is
stored in primary-key order by its storage, so CLUSTER's physical reordering by
another index has no meaning (and no effect a client can see: row order without
ORDER BY is unspecified in both). What a client *can* see is kept: the command
tags, the errors PostgreSQL raises first (missing relation 42P01, wrong kind
42809, not the owner 42501, 25001 where PostgreSQL refuses a transaction block,
the unclusterable indexes), REINDEX (VERBOSE)'s INFO per index, and the index
CLUSTER marks (pg_index.indisclustered, psql's `\\d` "CLUSTER"), which a later
`CLUSTER t` and `CLUSTER` without a table read.

>>> _reindex_parts("REINDEX (VERBOSE) TABLE CONCURRENTLY public.t")
('TABLE', 'public.t', {'verbose': True, 'concurrently': True})
>>> _cluster_parts("CLUSTER ti ON t")
('t', 'ti', {'verbose': False})
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ..errors import (
    ActiveSQLTransaction,
    FeatureNotSupported,
    ReadOnlySQLTransaction,
    SQLError,
    SyntaxError_,
    UndefinedObject,
    UndefinedTable,
    WrongObjectType,
)
from ..pgwire.backend import Result
from .ddl.names import schema_by_name
from .ddl.physical import check_clusterable
from .parse import unquote_ident
from .pgcatalog.names import names, split_name
from .privileges.check import current_role, must_own
from .setvalue import split_commas
from .stmt import ANY_VERSION, Stmt

if TYPE_CHECKING:
    from .session import SQLSession

_SIMPLE = r'(?:"(?:[^"]|"")+"|[^\s"(),;.]+)'
_NAME = _SIMPLE + r'(?:\s*\.\s*' + _SIMPLE + ')*'
_REINDEX = re.compile(r"REINDEX\s*(?:\((?P<opts>[^)]*)\))?\s*(?P<rest>.*?)\s*;?\s*$",
                      re.I | re.S)
_CLUSTER = re.compile(r"CLUSTER\b\s*(?:\((?P<opts>[^)]*)\)|(?P<verbose>VERBOSE\b))?\s*"
                      r"(?P<rest>.*?)\s*;?\s*$", re.I | re.S)
_KINDS = ("INDEX", "TABLE", "SCHEMA", "DATABASE", "SYSTEM")
_TABLE_KINDS = ("r", "m", "p", "t")
_NO_TIME = "CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s"  # pg_rusage_show: nothing ran
_CATALOG_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")


def _bool(word: str, option: str, verb: str) -> bool:
    w = word.strip().strip("'").lower()
    if w in ("", "true", "on", "1", "yes"):
        return True
    if w in ("false", "off", "0", "no"):
        return False
    raise SyntaxError_(f"{option} requires a Boolean value")


def _options(text: str | None, verb: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The parenthesised option list: 42601 for an option the verb does not take."""
    out: dict[str, Any] = {}
    for item in split_commas(text) if text is not None else []:
        words = item.strip().split(None, 1)
        if not words:
            raise SyntaxError_('syntax error at or near ")"')
        name = words[0].lower()
        if name not in allowed:
            raise SyntaxError_(f'unrecognized {verb} option "{name}"')
        value = words[1] if len(words) > 1 else ""
        out[name] = value if name == "tablespace" else _bool(value, name, verb)
    return out


def _syntax(rest: str) -> SQLError:
    word = rest.split()[0] if rest.split() else ""
    return SyntaxError_(f'syntax error at or near "{word}"' if word else
                        "syntax error at end of input")


def _reindex_parts(sql: str) -> tuple[str, str, dict[str, Any]]:
    """(kind, name as written, options) of a REINDEX text; 42601 as PostgreSQL's grammar."""
    m = _REINDEX.match(sql.strip())
    if m is None:
        raise SyntaxError_("syntax error at end of input")
    opts = {"verbose": False, "concurrently": False,
            **_options(m.group("opts"), "REINDEX", ("verbose", "concurrently", "tablespace"))}
    words = m.group("rest").split(None, 1)
    if not words or words[0].upper() not in _KINDS:
        raise _syntax(m.group("rest"))
    kind, rest = words[0].upper(), (words[1] if len(words) > 1 else "")
    conc = re.match(r"CONCURRENTLY\b\s*", rest, re.I)
    if conc is not None:
        opts["concurrently"] = True
        rest = rest[conc.end():]
    name = re.match(_NAME, rest)
    if name is None:
        raise _syntax(rest)
    if rest[name.end():].strip():
        raise _syntax(rest[name.end():])
    return kind, name.group(0), opts


def _cluster_parts(sql: str) -> tuple[str | None, str | None, dict[str, Any]]:
    """(table, index, options) of a CLUSTER text, either `t [USING i]` or the old `i ON t`."""
    m = _CLUSTER.match(sql.strip())
    if m is None:
        raise SyntaxError_("syntax error at end of input")
    opts = {"verbose": m.group("verbose") is not None,
            **_options(m.group("opts"), "CLUSTER", ("verbose",))}
    rest = m.group("rest")
    if not rest:
        return None, None, opts
    first = re.match(_NAME, rest)
    if first is None:
        raise _syntax(rest)
    tail = rest[first.end():].strip()
    if not tail:
        return first.group(0), None, opts
    using = re.match(r"(USING|ON)\b\s*", tail, re.I)
    if using is None:
        raise _syntax(tail)
    second = re.match(_NAME, tail[using.end():])
    if second is None or tail[using.end() + second.end():].strip():
        raise _syntax(tail[using.end() + (second.end() if second else 0):])
    table, index = (second, first) if using.group(1).upper() == "ON" else (first, second)
    if not re.fullmatch(_SIMPLE, index.group(0)):  # NB: an index name is never qualified here
        raise SyntaxError_('syntax error at or near "."')
    return table.group(0), index.group(0), opts


def _relation(s: SQLSession, written: str) -> Any:
    """The pgcatalog Rel a written name denotes: 42P01 (3F000 for a missing schema)."""
    parts = split_name(written)
    rel = names(s.catalog()).find_rel(s, parts)
    if rel is None:
        raise UndefinedTable(f'relation "{".".join(parts)}" does not exist')
    return rel


def _schema_name(s: SQLSession, rel: Any) -> str:
    return names(s.catalog()).schema_name(rel.schema_oid) or ""


def _block(s: SQLSession, what: str) -> None:
    if s.in_block:
        raise ActiveSQLTransaction(f"{what} cannot run inside a transaction block")


def analyse_reindex(sql: str) -> Stmt:
    """REINDEX [(options)] {INDEX | TABLE | SCHEMA | DATABASE | SYSTEM} [CONCURRENTLY] name."""
    kind, written, opts = _reindex_parts(sql)

    def run(s: SQLSession, p: list[Any]) -> Result:
        conc = opts["concurrently"]
        if kind in ("INDEX", "TABLE"):
            if conc:
                _block(s, "REINDEX CONCURRENTLY")
            return _reindex_relation(s, kind, written, conc, opts["verbose"])
        _block(s, f"REINDEX {kind}")
        if kind == "SYSTEM" and conc:
            raise FeatureNotSupported("cannot reindex system catalogs concurrently")
        cat = s.catalog()
        if kind == "SCHEMA":
            name = unquote_ident(written)
            schema = schema_by_name(cat, name)
            system = name in _CATALOG_SCHEMAS or name.startswith("pg_temp")
            if schema is None and not system:
                raise SQLError(f'schema "{name}" does not exist', sqlstate="3F000")
            if schema is not None:
                must_own(cat, current_role(s), schema.owner, "schema", name)
            if conc and name in ("pg_catalog", "pg_toast"):
                s.notice("cannot reindex system catalogs concurrently, skipping all", "WARNING")
            return Result("REINDEX")
        if unquote_ident(written) != s.database:
            raise FeatureNotSupported("can only reindex the currently open database")
        must_own(cat, current_role(s), s.db.owner, "database", s.database)
        return Result("REINDEX")

    return Stmt(sql, "utility", run, None, [], ANY_VERSION, in_txn=False, tag="REINDEX")


def _reindex_relation(s: SQLSession, kind: str, written: str, conc: bool,
                      verbose: bool) -> Result:
    rel = _relation(s, written)
    cat = s.catalog()
    system = _schema_name(s, rel) in _CATALOG_SCHEMAS
    if kind == "INDEX":
        if rel.kind not in ("i", "I"):
            raise WrongObjectType(f'"{rel.name}" is not an index')
        table = cat.table_by_oid(rel.obj.table_oid)
        if table is not None:
            must_own(cat, current_role(s), table.owner, "index", rel.name)
            if table.partkey:
                _block(s, "REINDEX INDEX")
        if conc and system:
            raise FeatureNotSupported("cannot reindex system catalogs concurrently")
        if verbose:
            s.notice(f'index "{rel.name}" was reindexed', "INFO", detail=_NO_TIME)
        return Result("REINDEX")
    if rel.kind not in _TABLE_KINDS:
        raise WrongObjectType(f'"{rel.name}" is not a table or materialized view')
    if conc and system:
        raise FeatureNotSupported("cannot reindex system catalogs concurrently")
    table = cat.table_by_oid(rel.oid)
    if table is None:  # NB: a system catalog: Cumulo keeps no index of its own for it
        return Result("REINDEX")
    must_own(cat, current_role(s), table.owner, "table", rel.name)
    if table.partkey:
        _block(s, "REINDEX TABLE")
    indexes = sorted(cat.indexes_of(table.oid), key=lambda i: i.oid)
    if not indexes:
        s.notice(f'table "{rel.name}" has no indexes '
                 + ("that can be reindexed concurrently" if conc else "to reindex"))
    elif verbose:
        for index in indexes:
            s.notice(f'index "{index.name}" was reindexed', "INFO", detail=_NO_TIME)
    return Result("REINDEX")


def analyse_cluster(sql: str) -> Stmt:
    """CLUSTER [VERBOSE | (options)] [table [USING index]], and the old `CLUSTER index ON table`."""
    written, index_written, _ = _cluster_parts(sql)

    def run(s: SQLSession, p: list[Any]) -> Result:
        if written is None:
            _block(s, "CLUSTER")  # NB: every table marked, each in its own transaction in PG
            return Result("CLUSTER")
        rel = _relation(s, written)
        if rel.kind not in ("r", "m", "p"):
            raise WrongObjectType(f'"{rel.name}" is not a table or materialized view')
        cat = s.catalog()
        table = cat.table_by_oid(rel.oid)
        if table is None:  # NB: a system catalog: nothing is marked on it
            raise UndefinedObject(f'there is no previously clustered index for table "{rel.name}"')
        must_own(cat, current_role(s), table.owner, "table", rel.name)
        indexes = {i.oid: i for i in cat.indexes_of(table.oid)}
        if index_written is None:
            index = indexes.get(table.cluster_index)
            if index is None:
                raise UndefinedObject(
                    f'there is no previously clustered index for table "{rel.name}"')
        else:
            name = unquote_ident(index_written)
            found = names(cat).rel_by_name.get((table.schema_oid, name))
            if found is None:
                raise UndefinedObject(f'index "{name}" for table "{rel.name}" does not exist')
            if found.kind not in ("i", "I"):
                raise WrongObjectType(f'"{name}" is not an index')
            if found.obj.table_oid != table.oid:
                raise WrongObjectType(f'"{name}" is not an index for table "{rel.name}"')
            index = found.obj
        check_clusterable(index)
        if table.partkey:
            _block(s, "CLUSTER")
            return Result("CLUSTER")
        if table.cluster_index != index.oid:
            txn = s.ensure_txn()
            if txn.read_only or s.txn_modes.get("read_only"):  # NB: PostgreSQL marks it anyway
                raise ReadOnlySQLTransaction("cannot execute CLUSTER in a read-only transaction")
            s.store.put(txn, s.db.oid, dataclasses.replace(table, cluster_index=index.oid))
            s.catalog_changed()
        return Result("CLUSTER")

    # NB: "utility": a READ ONLY transaction may CLUSTER by the index already marked
    return Stmt(sql, "utility", run, None, [], ANY_VERSION, tag="CLUSTER")
