"""Transaction control: BEGIN, COMMIT, ROLLBACK, savepoints and SET TRANSACTION.

These statements change the session's transaction state rather than data,
so they run outside the statement savepoint machinery (`in_txn=False`). The
messages, warnings and SQLSTATEs are PostgreSQL 15's: a COMMIT with no block
warns 25P01, a BEGIN inside one warns 25001, COMMIT of a failed block rolls
back and answers ROLLBACK, and SAVEPOINT outside a block is an error.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import (
    ActiveSQLTransaction,
    FeatureNotSupported,
    NoActiveSQLTransaction,
    ObjectNotInPrerequisiteState,
    SQLError,
    UndefinedObject,
)
from ..pgwire.backend import Result
from ..txn.snapexport import import_snapshot
from .dml import deferstate
from .largeobj.objects import savepoint_ended
from .parse import txn_modes, unquote_ident
from .stmt import ANY_VERSION, Stmt

if TYPE_CHECKING:
    from .session import SQLSession


def _stmt(sql: str, tag: str, fn: Any, failed_ok: bool = False) -> Stmt:
    return Stmt(sql, "txn", fn, version=ANY_VERSION, in_txn=False,
                allowed_when_failed=failed_ok, tag=tag)


def begin(s: SQLSession, modes: dict[str, Any], tag: str = "BEGIN") -> Result:
    """BEGIN / START TRANSACTION (the tag is the command's own, as in PostgreSQL)."""
    if s.in_block:
        s.notice("there is already a transaction in progress", "WARNING", "25001")
        if modes:  # NB: PostgreSQL still applies the modes, as SET TRANSACTION would
            set_transaction(s, modes)
        return Result(tag)
    if s.txn is not None and modes.get("isolation", s.txn.isolation) != s.txn.isolation:
        # statements earlier in this Query message already run in the transaction
        raise ActiveSQLTransaction(
            "SET TRANSACTION ISOLATION LEVEL must be called before any query")
    s.in_block = True
    s.txn_modes = dict(modes)
    if modes:  # NB: a plain BEGIN shows the defaults already
        _show_modes(s, modes)
    return Result(tag)


def begin_plain(s: SQLSession, _params: Any = None) -> Result:
    """A plain BEGIN (no modes), run as the statement itself: `begin`'s work without the
    lambda around it (a Python call fewer per transaction, as `commit`)."""
    if s.in_block:  # NB: a warning; else as `begin` with no modes (a txn already open too)
        return begin(s, {}, "BEGIN")
    s.in_block = True
    s.txn_modes = {}
    return Result("BEGIN")


def _show_modes(s: SQLSession, modes: dict[str, Any]) -> None:
    """Makes SHOW transaction_* report the block's modes before its first query."""
    if "isolation" in modes:
        s.settings.values["transaction_isolation"] = modes["isolation"]
    if "read_only" in modes:
        s.settings.values["transaction_read_only"] = "on" if modes["read_only"] else "off"
    if "deferrable" in modes:
        s.settings.values["transaction_deferrable"] = "on" if modes["deferrable"] else "off"


def _begin_tag(sql: str) -> str:
    return "START TRANSACTION" if sql.lstrip()[:5].upper() == "START" else "BEGIN"


def commit(s: SQLSession, _params: Any = None) -> Result:
    """COMMIT / END: ROLLBACK if the block failed. (A statement's run as it is: the
    parameters unused, and no lambda around it, a Python call fewer per transaction.)"""
    if s.failed:
        s.abort_txn()
        return Result("ROLLBACK")
    if not s.in_block:
        s.notice("there is no transaction in progress", "WARNING", "25P01")
    s.commit_txn()
    return Result("COMMIT")


def rollback(s: SQLSession, _params: Any = None) -> Result:
    """ROLLBACK / ABORT (a statement's run as it is, as `commit`)."""
    if not s.in_block:
        s.notice("there is no transaction in progress", "WARNING", "25P01")
    s.abort_txn()
    return Result("ROLLBACK")


def prepare_transaction(s: SQLSession) -> Result:
    """PREPARE TRANSACTION 'gid' with max_prepared_transactions 0 (PostgreSQL's default and
    ours: no two-phase commit): the block ends rolled back; one that had not failed reports
    55000, as PostgreSQL's does when it cannot mark the transaction prepared."""
    if not s.in_block:
        s.notice("there is no transaction in progress", "WARNING", "25P01")
        s.abort_txn()
        return Result("ROLLBACK")
    failed = s.failed
    s.abort_txn()
    if failed:
        return Result("ROLLBACK")
    raise ObjectNotInPrerequisiteState("prepared transactions are disabled",
                                       hint="Set max_prepared_transactions to a nonzero value.")


def finish_prepared(s: SQLSession, verb: str, gid: str) -> Result:
    """COMMIT PREPARED / ROLLBACK PREPARED 'gid': no transaction is ever prepared here."""
    if s.in_block:
        raise ActiveSQLTransaction(f"{verb} PREPARED cannot run inside a transaction block")
    raise UndefinedObject(f'prepared transaction with identifier "{gid}" does not exist')


def savepoint(s: SQLSession, name: str) -> Result:
    """SAVEPOINT name."""
    if not s.in_block:
        raise NoActiveSQLTransaction("SAVEPOINT can only be used in transaction blocks")
    txn = s.ensure_txn()
    s.savepoints.append((name, txn.savepoint(), s.txn_ddl, s.settings.mark()))
    deferstate.mark(s, s.savepoints[-1][1])  # NB: deferred constraint triggers' queue
    return Result("SAVEPOINT")


def _find(s: SQLSession, name: str, verb: str) -> int:
    if not s.in_block:
        raise NoActiveSQLTransaction(f"{verb} can only be used in transaction blocks")
    for i in range(len(s.savepoints) - 1, -1, -1):
        if s.savepoints[i][0] == name:
            return i
    raise SQLError(f'savepoint "{name}" does not exist', sqlstate="3B001")


def release(s: SQLSession, name: str) -> Result:
    """RELEASE [SAVEPOINT] name."""
    i = _find(s, name, "RELEASE SAVEPOINT")
    del s.savepoints[i:]
    savepoint_ended(s, i, rolled_back=False)  # NB: large-object descriptors opened since
    return Result("RELEASE")


def rollback_to(s: SQLSession, name: str) -> Result:
    """ROLLBACK TO [SAVEPOINT] name: undoes the writes since it and clears the failed state."""
    i = _find(s, name, "ROLLBACK TO SAVEPOINT")
    _, token, ddl, settings = s.savepoints[i]
    del s.savepoints[i + 1:]
    s.txn.rollback_to(token)
    savepoint_ended(s, i, rolled_back=True)
    deferstate.rewind(s, token)
    s.settings.restore(settings)
    s.failed = False
    if s.txn_ddl:
        s.txn_ddl = ddl
        s.txn_catalog = s.store.load_snapshot(s.txn, s.db.oid) if ddl else None
    return Result("ROLLBACK")


def set_transaction(s: SQLSession, modes: dict[str, Any]) -> Result:
    """SET TRANSACTION ...: only before the block's first query."""
    if not s.in_block:
        s.notice("SET TRANSACTION can only be used in transaction blocks", "WARNING", "25P01")
        return Result("SET")
    if s.txn is not None and "isolation" in modes:
        raise ActiveSQLTransaction("SET TRANSACTION ISOLATION LEVEL must be called before any query")
    if s.txn is not None and modes.get("read_only") is False and s.txn.read_only:
        raise ActiveSQLTransaction(
            "transaction read-write mode must be set before any query")
    s.txn_modes.update(modes)
    _show_modes(s, modes)
    return Result("SET")


_SNAPSHOT = re.compile(r"\s*SNAPSHOT\s+'((?:[^']|'')*)'\s*$", re.I)


def set_transaction_snapshot(s: SQLSession, ident: str) -> Result:
    """SET TRANSACTION SNAPSHOT '...': read at a snapshot another transaction exported."""
    iso = s.txn_modes.get("isolation") or s.settings.values["default_transaction_isolation"]
    if not s.in_block or iso not in ("repeatable read", "serializable"):
        raise FeatureNotSupported("a snapshot-importing transaction must have isolation level "
                                  "SERIALIZABLE or REPEATABLE READ")
    if s.txn is not None:  # NB: a statement of the block ran, data or not (SELECT 1 counts)
        raise ActiveSQLTransaction("SET TRANSACTION SNAPSHOT must be called before any query")
    import_snapshot(s.ensure_txn(), ident)
    return Result("SET")


def set_session_characteristics(s: SQLSession, modes: dict[str, Any]) -> Result:
    """SET SESSION CHARACTERISTICS AS TRANSACTION ...: the session defaults."""
    if "isolation" in modes:
        s.settings.set("default_transaction_isolation", modes["isolation"])
    if "read_only" in modes:
        s.settings.set("default_transaction_read_only", "on" if modes["read_only"] else "off")
    if "deferrable" in modes:
        s.settings.set("default_transaction_deferrable", "on" if modes["deferrable"] else "off")
    return Result("SET")


def analyse_txn(sql: str, kind: str, m: Any) -> Stmt:
    """Builds the Stmt for a transaction-control statement recognised by the pre-parser."""
    if kind == "begin":
        modes = txn_modes(m.group("modes"))
        tag = _begin_tag(sql)
        if not modes and tag == "BEGIN":
            return _stmt(sql, tag, begin_plain)
        return _stmt(sql, tag, lambda s, p: begin(s, modes, tag))
    if kind == "commit":
        return _stmt(sql, "COMMIT", commit, True)
    if kind == "rollback":
        return _stmt(sql, "ROLLBACK", rollback, True)
    if kind == "prepare_txn":
        return _stmt(sql, "PREPARE TRANSACTION", lambda s, p: prepare_transaction(s), True)
    if kind == "finish_prepared":
        verb, gid = m.group("verb").upper(), m.group("gid")[1:-1].replace("''", "'")
        return _stmt(sql, f"{verb} PREPARED", lambda s, p: finish_prepared(s, verb, gid))
    name = unquote_ident(m.group("name")) if "name" in m.groupdict() else ""
    if kind == "savepoint":
        return _stmt(sql, "SAVEPOINT", lambda s, p: savepoint(s, name))
    if kind == "release":
        return _stmt(sql, "RELEASE", lambda s, p: release(s, name))
    if kind == "rollback_to":
        return _stmt(sql, "ROLLBACK", lambda s, p: rollback_to(s, name), True)
    if kind == "set_txn" and (snap := _SNAPSHOT.match(m.group("modes") or "")):
        ident = snap.group(1).replace("''", "'")
        return _stmt(sql, "SET", lambda s, p: set_transaction_snapshot(s, ident))
    modes = txn_modes(m.group("modes"))
    if kind == "set_txn":
        return _stmt(sql, "SET", lambda s, p: set_transaction(s, modes))
    return _stmt(sql, "SET", lambda s, p: set_session_characteristics(s, modes))


def analyse_sqlglot_txn(session: SQLSession, sql: str, tree: Any) -> Stmt:
    """Builds the Stmt for a transaction statement that only sqlglot recognised."""
    if isinstance(tree, exp.Commit):
        return _stmt(sql, "COMMIT", commit, True)
    if isinstance(tree, exp.Rollback):
        return _stmt(sql, "ROLLBACK", rollback, True)
    modes = txn_modes(" ".join(str(m) for m in tree.args.get("modes") or []))
    tag = _begin_tag(sql)
    return _stmt(sql, tag, lambda s, p: begin(s, modes, tag))
