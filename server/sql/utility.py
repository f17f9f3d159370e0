"""Utility statements: SET/RESET/SHOW, DISCARD, LISTEN, VACUUM, CHECKPOINT, PREPARE/EXECUTE, EXPLAIN.

These are recognised by the pre-parser (`parse.utility`) and routed here;
the ones that belong to a module of their own (transaction control, COPY,
cursors, roles, databases, sequences, COMMENT) are forwarded to it. None of
them is planned by the query compiler except the query inside EXPLAIN,
PREPARE and DECLARE.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from .. import waits
from ..errors import (
    ActiveSQLTransaction,
    DuplicatePreparedStatement,
    InvalidParameterValue,
    InvalidSQLStatementName,
    NoActiveSQLTransaction,
    SQLError,
    SyntaxError_,
)
from ..pgtypes import oids as T
from ..pgwire.backend import Column, Result
from . import adminstmts, cursors, maintenance, notify, txnctl
from .catalog import statstore
from .copy import analyse_copy
from .ddl import collationstmt, extensions, misc, roles, sequences
from .ddl import types as ddltypes
from .ddl.names import get_relation
from .dml.deferred import set_constraints
from .explainable import check_preparable
from .explainstmt import analyse_explain
from .expr.types import type_by_name
from .largeobj.comments import analyse_comment as analyse_lo_comment
from .optimizer import stats
from .parse import split_statements, unquote_ident
from .prepstmts import bind_prepared, deferred, raised_at_execute
from .privileges import grant
from .privileges.check import check_set_role, role_by_name
from .privileges.owner import analyse_owner
from .settings import canonical
from .setvalue import set_value, split_commas
from .stmt import ANY_VERSION, Analyse, AnalyseTree, Stmt
from .txnctl import analyse_txn

if TYPE_CHECKING:
    from .session import SQLSession


def _u(sql: str, tag: str, fn: Any, columns: list[Column] | None = None,
       in_txn: bool = False, no_block: bool = False) -> Stmt:
    return Stmt(sql, "utility", fn, columns, [], ANY_VERSION, in_txn=in_txn, no_block=no_block,
                tag=tag)


def do_set(s: SQLSession, name: str, value: str | None, local: bool) -> Result:
    """SET [LOCAL] name TO value (value None: DEFAULT)."""
    if name in ("transaction_isolation", "transaction_read_only", "transaction_deferrable"):
        key = {"transaction_isolation": "isolation", "transaction_read_only": "read_only",
               "transaction_deferrable": "deferrable"}[name]
        v: Any = (value or "").lower()
        if key != "isolation":
            v = v in ("on", "true", "1", "yes")
        return txnctl.set_transaction(s, {key: v})
    if local and not s.in_block:
        s.notice("SET LOCAL can only be used in transaction blocks", "WARNING", "25P01")
        return Result("SET")
    s.settings.set(name, value, local=local)
    return Result("SET")


def show(s: SQLSession, name: str) -> Result:
    """SHOW name / SHOW ALL."""
    if name == "all":
        cols = [Column("name", T.TEXT), Column("setting", T.TEXT), Column("description", T.TEXT)]
        return Result("SHOW", cols, iter(s.settings.all_rows()), done=False)
    value = s.get_setting(name)
    if value is None:
        value = s.settings.show(name)
    return Result("SHOW", [Column(canonical(name), T.TEXT)], iter([(value,)]), done=False)


def discard(s: SQLSession, what: str) -> Result:
    """DISCARD ALL / PLANS / SEQUENCES / TEMP."""
    if what == "all":
        if s.in_block:
            raise ActiveSQLTransaction("DISCARD ALL cannot run inside a transaction block")
        s.settings.reset_all()
        s.cursors.clear()
        s.prepared_sql.clear()
        s.prepared_info.drop_protocol(None)
        s.cache.clear()
        s.currvals.clear()
        if s.engine.notifier is not None:
            s.engine.notifier.unlisten(s, None)  # NB: DISCARD ALL includes UNLISTEN *
        _discard_temp(s)
    elif what == "plans":
        s.cache.clear()
    elif what == "sequences":
        s.currvals.clear()
    elif what.startswith("temp"):
        _discard_temp(s)
    return Result("DISCARD " + ("TEMP" if what.startswith("temp") else what.upper()))


def _discard_temp(s: SQLSession) -> None:
    """DISCARD TEMP: drops the session's temporary schema and everything in it."""
    if s.temp_schema is None:
        return
    schema, notices = s.temp_schema, list(s.notices)
    for _ in s.simple_query(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'):
        pass
    s.notices = notices  # NB: PostgreSQL's DISCARD TEMP reports no cascade notices
    # NB: temp_schema keeps its name: a ROLLBACK brings the schema back, and the next
    # CREATE TEMP recreates it if the drop committed.


def checkpoint(s: SQLSession) -> Result:
    """CHECKPOINT: checkpoints storage."""
    waits.blocking(s.engine.tm.checkpoint)  # NB: file writes and fsyncs: off the loop's thread
    return Result("CHECKPOINT")


def _session_authorization(s: SQLSession, role: str | None) -> None:
    """SET SESSION AUTHORIZATION role (None: DEFAULT, or RESET: the login user)."""
    s.settings.values["session_authorization"] = role or s.user
    s.settings.changed.add("session_authorization")


def analyse_utility(session: SQLSession, sql: str, kind: str, m: re.Match[str],
                    param_oids: list[int], analyse: Analyse, analyse_tree: AnalyseTree) -> Stmt:
    """Builds the Stmt of a statement the pre-parser recognised (`analyse`, `analyse_tree`:
    `statement`'s, for PREPARE and EXPLAIN, which analyse the statement they contain)."""
    if kind in ("begin", "commit", "rollback", "rollback_to", "savepoint", "release", "set_txn",
                "set_session_txn", "prepare_txn", "finish_prepared"):
        return analyse_txn(sql, kind, m)
    if kind == "set":
        name = m.group("name").lower()
        name = ".".join(unquote_ident(p) for p in m.group("name").split(".")) \
            if '"' in name else name
        value = set_value(m.group("value"))
        local = (m.group("local") or "").strip().lower() == "local"
        return _u(sql, "SET", lambda s, p: do_set(s, name, value or None, local))
    if kind == "set_role":
        raw = set_value(m.group("value"))
        role = None if raw.upper() in ("NONE", "DEFAULT") or raw == "" else raw
        what = "role" if m.group("what").upper() == "ROLE" else "session_authorization"
        local = (m.group("local") or "").strip().lower() == "local"

        def set_role(s: SQLSession, p: list[Any]) -> Result:
            if role is not None and role_by_name(s.catalog(), role) is None:
                # NB: PostgreSQL checks it as the setting's value: 22023, not 42704; in the
                # session's catalog, so a role its open transaction created counts
                raise InvalidParameterValue(f'role "{role}" does not exist')
            check_set_role(s, role, what)
            if what == "role":
                do_set(s, "role", role or "none", local)
            else:
                _session_authorization(s, role)
            return Result("SET")

        return _u(sql, "SET", set_role)
    if kind == "set_tz":
        value = set_value(m.group("value"))
        if value.lower() == "local":
            value = ""
        local = (m.group("local") or "").strip().lower() == "local"
        return _u(sql, "SET", lambda s, p: do_set(s, "timezone", value or None, local))
    if kind == "set_names":
        value = set_value(m.group("value"))
        return _u(sql, "SET", lambda s, p: do_set(s, "client_encoding", value or None, False))
    if kind == "reset":
        name = unquote_ident(" ".join(m.group("name").split()))

        def reset(s: SQLSession, p: list[Any]) -> Result:
            if name == "all":
                s.settings.reset_all()
                return Result("RESET")
            if name == "session authorization":
                check_set_role(s, None, "session_authorization")
                _session_authorization(s, None)
                return Result("RESET")
            do_set(s, name, None, False)
            return Result("RESET")

        return _u(sql, "RESET", reset)
    if kind == "show":
        raw = " ".join(m.group("name").lower().split())
        name = {"transaction isolation level": "transaction_isolation",
                "time zone": "timezone"}.get(raw, unquote_ident(m.group("name")))
        cols = None if name == "all" else [Column(canonical(name), T.TEXT)]
        if cols is None:
            cols = [Column("name", T.TEXT), Column("setting", T.TEXT),
                    Column("description", T.TEXT)]
        return _u(sql, "SHOW", lambda s, p: show(s, name), cols)
    if kind == "discard":
        what = m.group("what").lower()
        return _u(sql, "DISCARD", lambda s, p: discard(s, what))
    if kind in ("close", "declare", "fetch"):
        return cursors.analyse_cursor(session, sql, kind, m, param_oids)
    if kind == "listen":
        verb = m.group("verb").upper()
        return _u(sql, verb, lambda s, p: notify.run(s, sql))
    if kind == "vacuum":
        verb = "ANALYZE" if m.group("verb").upper().startswith("ANALY") else "VACUUM"
        targets = _vacuum_targets(sql)

        analyze = verb == "ANALYZE" or re.search(r"\bANALY[SZ]E\b", sql[6:], re.I) is not None

        def vacuum(s: SQLSession, p: list[Any]) -> Result:
            cat = s.catalog()
            tables = [get_relation(cat, schema, name, s.search_path())  # NB: 42P01 if missing
                      for schema, name in targets]
            if verb == "VACUUM":  # old versions go, settled rows go cold (`kivi.freeze`)
                # NB: in every table, even when it names some: KiVi's Collect has no space
                # filter (a `spaces` field in kivi.api.Collect, which node.collect would test
                # each region's space against, passed through LTM.collect and the cluster
                # manager, would let it collect only the tables' and their indexes' spaces)
                waits.blocking(s.engine.tm.collect)
            if analyze:
                run_analyze(s, tables or [t for t in cat.tables if t.kind == "r"])
            return Result(verb)

        return _u(sql, verb, vacuum, no_block=verb == "VACUUM")
    if kind == "noop" and m.group("verb").split()[0].upper() in ("LOCK", "REINDEX", "CLUSTER"):
        verb = m.group("verb").split()[0].upper()
        if verb == "LOCK":
            return adminstmts.analyse_lock(sql)
        return maintenance.analyse_reindex(sql) if verb == "REINDEX" else \
            maintenance.analyse_cluster(sql)
    if kind == "alter_system":
        return adminstmts.analyse_alter_system(sql)
    if kind == "noop" and m.group("verb").split()[0].upper() == "SECURITY":
        return adminstmts.analyse_security_label(sql)
    if kind == "noop" and m.group("verb").split()[0].upper() == "SET":
        return _u(sql, "SET CONSTRAINTS", lambda s, p: set_constraints(s, sql), in_txn=True)
    if kind == "noop" and m.group("verb").upper() in ("GRANT", "REVOKE"):
        return grant.analyse(session, sql)
    if kind == "noop":
        # Accepted for compatibility (migrations, pg_restore): Cumulo has no privileges,
        # explicit locks or physical clustering to change.
        verb = " ".join(m.group("verb").upper().split())
        tag = "LOCK TABLE" if verb.startswith("LOCK") else verb

        def noop(s: SQLSession, p: list[Any]) -> Result:
            if tag == "LOCK TABLE" and not s.in_block:
                raise NoActiveSQLTransaction("LOCK TABLE can only be used in transaction blocks")
            return Result(tag)

        return _u(sql, tag, noop)
    if kind == "checkpoint":
        return _u(sql, "CHECKPOINT", lambda s, p: checkpoint(s))
    if kind == "prepare":
        return _prepare(sql, m, analyse)
    if kind == "execute":
        return _execute(sql, m)
    if kind == "deallocate":
        name = unquote_ident(m.group("name"))

        def dealloc(s: SQLSession, p: list[Any]) -> Result:
            if name == "all":
                s.prepared_sql.clear()
                s.prepared_info.drop_protocol(None)
            elif s.prepared_sql.pop(name, None) is None and not s.prepared_info.drop_protocol(name):
                raise InvalidSQLStatementName(f'prepared statement "{name}" does not exist')
            return Result("DEALLOCATE ALL" if name == "all" else "DEALLOCATE")

        return _u(sql, "DEALLOCATE", dealloc)
    if kind == "explain":
        return analyse_explain(session, sql, m, param_oids, analyse_tree)
    if kind == "copy":
        return analyse_copy(session, sql, param_oids)
    if kind in ("database", "sequence") and m.group("verb").upper() == "ALTER":
        owner = analyse_owner(session, sql)
        if owner is not None:
            return owner
    if kind in ("role", "database"):
        return roles.analyse(session, sql, kind, m)
    if kind == "comment":
        return analyse_lo_comment(sql) or misc.analyse_comment(session, sql)
    if kind == "sequence":
        return sequences.analyse_create(session, sql, m)
    if kind == "type":
        return ddltypes.analyse(session, sql, m)
    if kind == "extension":
        return extensions.analyse(session, sql, m)
    if kind == "collation":
        return collationstmt.analyse(session, sql)
    raise AssertionError(kind)


def _prepare(sql: str, m: re.Match[str], analyse: Analyse) -> Stmt:
    check_preparable(sql, m.start("query"))
    name = unquote_ident(m.group("name"))
    query = m.group("query").strip()
    types = [t.strip() for t in split_commas(m.group("types") or "") if t.strip()]

    def run(s: SQLSession, p: list[Any]) -> Result:
        if name in s.prepared_sql or s.prepared_info.has_protocol(name):
            raise DuplicatePreparedStatement(f'prepared statement "{name}" already exists')
        oids = [type_by_name(t)[0] for t in types]
        try:
            s.prepared_sql[name] = analyse(s, query, oids)
        except SQLError as err:  # NB: a folded constant's error: PostgreSQL's comes at EXECUTE
            if not raised_at_execute(err):
                raise
            s.prepared_sql[name] = deferred(query, oids)
        s.prepared_info.prepared(name, sql, s.prepared_sql[name].param_oids)
        return Result("PREPARE")

    return _u(sql, "PREPARE", run)


def _execute(sql: str, m: re.Match[str]) -> Stmt:
    name = unquote_ident(m.group("name"))
    args = m.group("args")

    def run(s: SQLSession, p: list[Any]) -> Result:
        stmt, values = bind_prepared(s, name, args)
        return s.execute_stmt(stmt, values)

    return _u(sql, "EXECUTE", run)


def analyse_set_tree(session: SQLSession, sql: str, tree: exp.Set) -> Stmt:
    """SET forms only sqlglot recognised: treated as their text."""
    raise SyntaxError_(f'syntax error at or near "{split_statements(sql)[0].split()[1]}"')


_VACUUM_WORDS = {"full", "freeze", "verbose", "analyze", "analyse", "skip_locked"}


def _vacuum_targets(sql: str) -> list[tuple[str | None, str]]:
    """The (schema, table) names after VACUUM / ANALYZE and their options."""
    rest = re.sub(r"^\s*(VACUUM|ANALYZE|ANALYSE)\b", "", sql, flags=re.I).strip().rstrip(";")
    if rest.startswith("("):
        depth = 0
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                rest = rest[i + 1:]
                break
    rest = re.sub(r"\([^)]*\)", "", rest)  # column lists
    words = rest.split()
    while words and words[0].lower() in _VACUUM_WORDS:
        words.pop(0)
    out: list[tuple[str | None, str]] = []
    for part in " ".join(words).split(","):
        name = part.strip()
        if not name:
            continue
        pieces = [unquote_ident(x) for x in name.split(".")]
        out.append((pieces[0], pieces[1]) if len(pieces) == 2 else (None, pieces[-1]))
    return out


def run_analyze(s: SQLSession, tables: list[Any]) -> None:
    """ANALYZE: collects each table's statistics and stores them (`catalog.statstore`) in the
    statement's transaction; the catalog version bump at commit makes every session reload
    them (the optimizer's `stats.STATS`) and replan what reads those tables: the bump names
    them (`CatalogStore.keeps`), so plans over other tables stay."""
    own = s.txn is None and not s.in_block  # NB: BEGIN starts no transaction until needed
    # NB: never overlapping the automatic ANALYZE's transaction, whose write would conflict
    with s.engine.autoanalyze.lock if own else contextlib.nullcontext():
        txn = s.ensure_txn() if not own else s.engine.tm.begin()
        try:
            for t in tables:
                if t.kind == "r":
                    s.exec_context([]).check_cancel()
                    statstore.save(txn, s.db.oid, t.oid, stats.analyze(txn, t, publish=False))
            if own:
                txn.commit()
        except BaseException:
            if own:
                txn.abort()
            raise
    analyzed = frozenset(t.name.lower() for t in tables if t.kind == "r")
    if own:
        s.store.bump(changed=analyzed)  # NB: their plans chose joins without these statistics
        s.store.snapshot(s.db.oid)  # reloads the optimizer's statistics now
    else:
        s.txn_analyzed |= analyzed  # the commit bumps the catalog version, naming them
