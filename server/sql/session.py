"""One client session: the transaction state machine behind pgwire's `Session` protocol.

State:

- `txn` is the open `Txn` (None until a statement needs one: BEGIN only sets
  `in_block` and the modes, so SET TRANSACTION can still change them and the
  snapshot is taken by the first statement, as in PostgreSQL);
- `in_block` is True inside BEGIN ... COMMIT; outside it, each Query message
  (or each extended-protocol run up to Sync) is one implicit transaction;
- `failed` is the "E" state: every statement but COMMIT/ROLLBACK/ROLLBACK TO
  gets 25P02.

Each statement runs behind a savepoint of the write set. Under READ COMMITTED
a `RetryStatement` from the transaction layer rolls back to it and reruns the
statement on a fresh snapshot (PostgreSQL's EvalPlanQual, coarsened).

A transaction that changes the catalog reads the catalog through its own
write set until it ends; at commit the catalog version is bumped, which
invalidates every session's cached plans.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable, Generator, Iterator
from decimal import Decimal
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any

from .. import oplog, waits
from ..errors import (
    ActiveSQLTransaction,
    AdminShutdown,
    FeatureNotSupported,
    InFailedSQLTransaction,
    NumericValueOutOfRange,
    ObjectNotInPrerequisiteState,
    QueryCanceled,
    ReadOnlySQLTransaction,
    SQLError,
    SyntaxError_,
    UndefinedParameter,
    UndefinedTable,
)
from ..pgtypes.coded import values as column_values
from ..pgwire.backend import Column, Prepared, Result
from ..txn.api import RetryStatement
from ..txn.transaction import Transaction
from . import batchexec, literalrows, nonstdstrings, prepstmts
from .catalog.model import CatalogSnapshot, Sequence
from .context import ExecContext
from .cursors import close_at_txn_end, materialize_held
from .ddl.oncommitrun import before_commit
from .dml import deferred, deferstate
from .errpos import locate_literal, semicolon_after
from .expr import usertypes
from .expr.casts import cast_function
from .expr.constfold import literal_parameters
from .expr.regarrays import REG_PARAMS
from .functx import SessionFunctions
from .inttail import IntTailShapes
from .notify import notifier, queue
from .parse import PlanCache, normalize, split_statements, strip_leading_comments
from .plan.deps import plan_deps
from .plan.pointread import constant_row
from .prepstmts import PreparedStatements
from .prepstmts import now as prepare_time
from .privileges.check import check_sequence
from .settings import SERVER, Settings, duration_ms, published, startup_settings
from .statement import Stmt, analyse

if TYPE_CHECKING:
    from .engine import SQLEngine

MAX_RETRIES = 20
_ALONE = frozenset({"read committed", "read uncommitted"})  # see `_reads_alone`
_REPLANNED = frozenset({"query", "dml"})  # the kinds `revalidate` analyses again after DDL
# NB: no dates or times: their conversion from the literal depends on DateStyle and TimeZone
_SPLITS_TEXT = 512  # Query texts up to this long keep their split (`simple_query`)
_IMMUTABLE = frozenset({int, str, bool, float, Decimal, bytes, type(None)})


class SQLSession:
    """A session: settings, transaction state, plan cache, prepared statements and cursors."""

    def __init__(self, engine: SQLEngine, user: str, database: Any, options: dict[str, str],
                 backend_pid: int) -> None:
        self.engine = engine
        self.store = engine.store
        self.user = user
        self.db = database
        self.database = database.name
        self.backend_pid = backend_pid
        self.settings = Settings(startup_settings(options))
        self.settings.values["session_authorization"] = user
        self.parameters_changed = self.settings.changed  # NB: the set itself, kept in place
        self.setting_values = self.settings.values  # NB: the dict itself, never replaced
        self.txn: Any = None
        self.in_block = False
        self.implicit_block = False  # a Query message of several statements: CALL is atomic
        self.failed = False
        self.txn_modes: dict[str, Any] = {}
        self.savepoints: list[tuple[str, Any, bool, dict[str, str]]] = []
        self.txn_catalog: CatalogSnapshot | None = None
        self.txn_ddl = False
        self.txn_analyzed: frozenset[str] = frozenset()  # tables ANALYZE'd in the block
        self.pending_drops: list[int] = []
        self.notices: list[SQLError] = []
        self.cache = PlanCache(self.store.keeps)
        # simple-protocol texts seen lately -> (stmt, bound literals, catalog version, cache
        # generation): a repeated `SELECT 1` skips the literal stripping too
        self._raw_texts: dict[str, tuple[Stmt, tuple[Any, ...], int, int]] = {}
        self._splits: dict[str, list[str]] = {}  # short Query texts -> their statements
        self._read_texts: dict[str, str] = {}  # Query texts `simple_read` takes -> their statement
        self._int_tails = IntTailShapes()  # texts differing in a trailing integer (inttail.py)
        self._statements_run = 0  # statements started: see check_prepared
        self._bound: Stmt | None = None
        self._bound_at = -1
        self.prepared_sql: dict[str, Stmt] = {}  # PREPARE name AS ...
        self.prepared_info = PreparedStatements()  # pg_prepared_statements
        self.cursors: dict[str, Any] = {}
        self.currvals: dict[int, int] = {}
        self.txn_started_at: dt.datetime | None = None
        self._cancel = waits.Flag()
        self.cancel_flag = self._cancel  # pgwire's view of it (`reset_cancel` only while up)
        self._errors = 0
        self._search_path: tuple[str, list[str]] | None = None
        self.functions = SessionFunctions(self)
        self.temp_schema: str | None = None  # pg_temp_<pid> once a TEMP table was created
        self.on_commit: dict[int, str] = {}  # TEMP tables' ON COMMIT DROP / DELETE ROWS
        self._cached_sp = self.settings.values["search_path"]
        self._cached_tz = self.settings.style_key
        self._timer: waits.TimerHandle | None = None
        self._timed_out = False
        self._reset_by_pgwire = False
        self.inbox: list[tuple[int, str, str]] = []  # NOTIFY deliveries: (pid, channel, payload)
        # called (from the notifying thread) when deliveries arrive: pgwire pushes them to an
        # idle connection
        self.notify_hook: Callable[[], None] | None = None
        self.terminate_hook: Callable[[], None] | None = None  # pgwire's: closes the connection
        self.pending_notifies: list[tuple[str, str]] = []  # NOTIFYs of the open block
        # pg_stat_activity's view of the session (epoch seconds; plain floats, set per statement)
        self.backend_start = self.state_change = time.time()
        self.query_start: float | None = None
        self.last_query = ""  # the running statement, else the last one (as in PostgreSQL)
        self.running = False  # from a statement's start until the Query or Sync ends
        self._query: object | None = None  # the simple_query generator running now (a token)
        self.client_addr: str | None = None  # set by pgwire through `connected_from`
        self.client_port: int | None = None
        self.wait_event: tuple[str, str] | None = None  # (type, event) while a function waits
        self.terminated = False  # pg_terminate_backend: the next statement ends the session

    # -- pgwire's Session protocol ----------------------------------------

    @property
    def transaction_status(self) -> str:
        """ReadyForQuery status: I, T or E."""
        if self.failed:
            return "E"
        return "T" if self.in_block else "I"

    def parameter_status(self) -> dict[str, str]:
        """The 13 ParameterStatus values of PostgreSQL 15."""
        self.settings.changed.clear()
        return self.settings.reported()

    def take_changed_parameters(self) -> dict[str, str]:
        """Reported settings changed since the last call."""
        return self.settings.take_changed() if self.settings.changed else {}

    def take_notifications(self) -> list[tuple[int, str, str]]:
        """LISTENed notifications delivered since the last call: (sender pid, channel, payload)."""
        if not self.inbox:
            return []
        out, self.inbox = self.inbox, []
        return out

    def setting(self, name: str) -> str | None:
        """A setting's current value, None if there is no such setting."""
        return self.settings.values.get(name.lower())  # NB: `Settings.get`, one call less

    def take_notices(self) -> list[SQLError]:
        """Notices and warnings raised since the last call."""
        out, self.notices = self.notices, []
        return out

    def notice(self, message: str, severity: str = "NOTICE", sqlstate: str = "00000",
               detail: str | None = None) -> None:
        """Queues a NOTICE or WARNING for the client."""
        self.notices.append(SQLError(message, severity=severity, sqlstate=sqlstate,
                                     detail=detail))

    def _nonstandard(self, sql: str) -> str:
        """standard_conforming_strings is off: backslashes in ordinary literals escape, with
        PostgreSQL's 22P06 warning per such literal while escape_string_warning is on."""
        sql, said = nonstdstrings.rewrite(sql)
        if self.settings.values.get("escape_string_warning") != "off":
            for message, hint, position in said:
                self.notices.append(SQLError(message, severity="WARNING", sqlstate="22P06",
                                             hint=hint, position=position))
        return sql

    def simple_query(self, sql: str) -> Generator[Result, None, None]:
        """Runs every statement of a Query message as one implicit transaction."""
        if "\\" in sql and self.settings.values.get("standard_conforming_strings") == "off":
            sql = self._nonstandard(sql)
        texts = self._splits.get(sql)
        if texts is None:
            texts = split_statements(sql)
            if len(sql) <= _SPLITS_TEXT:  # NB: a short text that comes again (SELECT 1)
                if len(self._splits) >= 256:
                    self._splits.clear()
                self._splits[sql] = texts
        if not texts:
            yield Result("", empty=True)
            return
        logged = self._started(sql, False)  # NB: and log_statement's; its duration
        # NB: a generator that is dropped unfinished (its caller failed) is closed when the
        # garbage collector gets to it, maybe during a later statement: its cleanup must then
        # leave alone the transaction that statement runs in (it aborted a later COPY's)
        token = self._query = object()
        self.implicit_block = len(texts) > 1
        try:
            cursor = 0
            for text in texts:
                errors = self._errors
                start = sql.find(text, cursor)
                cursor = start + len(text) if start >= 0 else cursor
                try:
                    stmt, values = self.lookup_simple(text)
                    if len(texts) == 1 and _lone_read(stmt) and len(sql) <= _SPLITS_TEXT:
                        if len(self._read_texts) >= 256:
                            self._read_texts.clear()
                        self._read_texts[sql] = text  # NB: the next time, `simple_read`
                    res = self.execute_stmt(stmt, values)
                except BaseException as e:
                    _shift_position(e, sql, start, text)
                    locate_literal(e, text, start)
                    semicolon_after(e, sql)
                    self.on_error(e)
                    raise
                yield res
                if self._errors != errors:
                    return  # the rows failed while pgwire fetched them
        except GeneratorExit:
            if self._query is token and not self.in_block:
                self.abort_txn()
            raise
        finally:
            if self._query is token:
                self.running = False
                self._query = None
                self.implicit_block = False
            oplog.finished(self.settings.values, sql, logged)
        if not self.in_block:
            if self.txn is not None:
                self.commit_txn()
            else:
                self.settings.commit_sets()

    def simple_read(self, sql: str) -> tuple[list[Column], list[tuple[Any, ...]], str] | None:
        """pgwire's lane for a Query message that repeats a one-statement read `simple_query`
        ran before (`SELECT 1`, a primary-key read by a constant): its columns, rows and tag
        at once, instead of a generator of `Result`s. None when the text is not such a read
        (any more), outside a block and READ COMMITTED (`_reads_alone`); pgwire then runs
        `simple_query`, whose plan lookup is a cache hit. Does all that `simple_query` does
        for the statement: pg_stat_activity's fields, the plan lookup with its checks,
        `execute_stmt` (cancel, privileges, the snapshot), the errors' positions and
        `on_error`, and keeps the SETs of an ended statement; a session that logs statements
        (log_statement, log_min_duration_statement) takes `simple_query`."""
        text = self._read_texts.get(sql)
        if text is None or self.in_block or self.txn is not None or self.failed:
            return None
        self._started(sql, None)
        settings = self.settings.values
        if settings.get("log_statement", "none") != "none" or \
                settings.get("log_min_duration_statement", "-1") != "-1":
            return None  # NB: `simple_query` logs it (`oplog`)
        try:
            stmt, values = self.lookup_simple(text)
        except BaseException as e:
            self.running = False
            self._failed_in(e, sql, text)
            raise
        if not _lone_read(stmt) or not self._reads_alone():
            del self._read_texts[sql]
            return None
        try:
            # NB: `execute_stmt` of such a read, whose checks passed above
            self._statement_begins()
            plan = stmt.plan
            if plan.point is None:  # SELECT 1: its row as `run_plan` makes it, no Result
                rows = [constant_row(plan.root, values)]  # NB: names no relation: no grants
                self._raise_if_cancelled()
                columns, tag = plan.columns, "SELECT 1"
            else:
                rows = self._point_rows(stmt, values)
                columns, tag = plan.columns, f"SELECT {len(rows)}"
        except BaseException as e:
            self._failed_in(e, sql, text)
            raise
        finally:
            self.running = False
        self.settings.commit_sets()
        assert columns is not None
        return columns, rows, tag

    def _failed_in(self, e: BaseException, sql: str, text: str) -> None:
        """A statement of Query text `sql` failed: positions as `simple_query` gives them."""
        start = sql.find(text)
        _shift_position(e, sql, start, text)
        locate_literal(e, text, start)
        semicolon_after(e, sql)
        self.on_error(e)

    def prepare(self, sql: str, param_oids: list[int]) -> Prepared:
        """Parses and analyses one statement for the extended protocol."""
        if "\\" in sql and self.settings.values.get("standard_conforming_strings") == "off":
            sql = self._nonstandard(sql)
        texts = split_statements(sql)
        if len(texts) > 1:
            raise SyntaxError_("cannot insert multiple commands into a prepared statement")
        if not texts:
            return Prepared(sql, list(param_oids), None, None)
        try:
            if not param_oids and not self.failed:
                literal = self._prepare_literal_rows(sql, texts[0])
                if literal is not None:
                    return literal
            stmt = self.lookup(texts[0], tuple(param_oids))
            if self.failed and not stmt.allowed_when_failed:
                raise _in_failed()
        except BaseException as e:
            if self.failed and not isinstance(e, InFailedSQLTransaction) and not (
                    isinstance(e, SQLError) and e.sqlstate == "42601"):
                # NB: PostgreSQL refuses the Parse right after its raw parse: only a syntax
                # error comes before 25P02 (exec_parse_message); analysis never runs
                e = _in_failed()
            _shift_position(e, sql, sql.find(texts[0]), texts[0])
            locate_literal(e, sql)
            semicolon_after(e, sql)
            self.on_error(e)
            raise e from None
        return Prepared(sql, list(stmt.param_oids), stmt.columns, stmt,
                        prepared_at=prepare_time(), portal_columns=None
                        if stmt.describe is None else partial(stmt.describe, self))

    def _prepare_literal_rows(self, sql: str, text: str) -> Prepared | None:
        """A Parse of a multi-row INSERT of literals without parameters (pg8000, JDBC and
        psycopg's pipeline send them so): the plan of its shape, and the literals to bind."""
        if text[:6].upper() != "INSERT" or not ("),(" in text or "), (" in text):
            return None
        self._check_search_path()
        version = self.catalog_version()
        rows = literalrows.split(text) if version != -1 else None
        found = None if rows is None else self._lookup_literal_rows(rows, version)
        if found is None:
            return None
        return Prepared(sql, [], found[0].columns, found[0], prepared_at=prepare_time(),
                        literals=rows)

    def _bind_literal_rows(self, prepared: Prepared) -> tuple[Stmt, list[Any]]:
        """The plan and parameters of a `_prepare_literal_rows` statement at Execute: the cache
        replans after DDL; a shape that no longer analyses gives the text's own error."""
        self._check_search_path()
        found = self._lookup_literal_rows(prepared.literals, self.catalog_version())
        if found is None:
            texts = split_statements(prepared.sql)
            found = _no_params(self.lookup(texts[0], ()), texts[0]), []
        if _shape(found[0].columns) != _shape(prepared.columns):
            raise FeatureNotSupported("cached plan must not change result type",
                                      routine="RevalidateCachedQuery")
        return found

    def watch_statements(self, named: Any, drop: Any) -> None:
        """pgwire's named Parse statements: pg_prepared_statements lists them, DEALLOCATE drops."""
        self.prepared_info.watch(named, drop)

    def execute(self, prepared: Prepared, params: list[Any]) -> Result:
        """Runs a prepared statement inside the implicit or explicit transaction."""
        stmt = prepared.handle
        if stmt is None:
            return Result("", empty=True)
        logged = self._started(prepared.sql, True)
        prepared.executions += 1  # NB: pg_prepared_statements' plans (`prepstmts.plans`)
        try:
            if prepared.literals is not None:
                stmt, params = self._bind_literal_rows(prepared)
            elif self._bound is not stmt or self._bound_at != self._statements_run:
                stmt = self._revalidate_prepared(prepared)
            return self.execute_stmt(stmt, params)
        except BaseException as e:
            locate_literal(e, prepared.sql)
            self.on_error(e)
            raise
        finally:
            if logged is not None:  # NB: the usual case, nothing to log, costs no call
                oplog.finished(self.settings.values, prepared.sql, logged, extended=True)

    def read_point(self, prepared: Prepared, params: list[Any]) -> list[tuple[Any, ...]] | None:
        """pgwire's lane for a prepared primary-key read outside a block (pgbench -S, an
        ORM's get by id), or a one-row SELECT of constants and parameters (`SELECT 1`):
        `execute` of such a statement, returning its rows at once instead of a `Result`;
        None, with nothing done, for any other statement or state, which then takes
        `execute`. The lane is open when `check_prepared` bound this plan at this
        Bind (nothing to revalidate), no transaction is open and `_reads_alone` holds (no
        block, READ COMMITTED, no statement_timeout); inside a block, see `_block_rows`.
        On the way it does all that `execute`
        and `execute_stmt` do for such a read: pg_stat_activity's fields, the plan counts,
        log_statement, cancel, the privilege check (`Stmt.check`, as the statement's `run`
        makes it), a snapshot of its own (as `_run_read`; `TxnManager.read_rows` reads at the
        newest one without registering it when nothing has to wait), and `on_error` for a
        failure."""
        stmt = self._bound
        if (stmt is None or stmt is not prepared.handle or self._bound_at != self._statements_run
                or prepared.literals is not None or self.failed):
            return None
        plan = stmt.plan
        in_block = self.txn is not None  # NB: see `_block_rows`
        if in_block:
            if (not self.in_block or plan is None or plan.point is None or stmt.check is None
                    or stmt.kind != "query" or not stmt.in_txn
                    or self.settings.values["statement_timeout"] != "0"):
                return None
        elif plan is None or (plan.point is None and not plan.constant) \
                or stmt.kind != "query" or not stmt.in_txn or not self._reads_alone():
            return None
        logged = self._started(prepared.sql, True)
        prepared.executions += 1
        try:
            self._statement_begins()
            if in_block:
                return self._block_rows(stmt, params)
            if plan.point is None:  # SELECT 1, SELECT $1: its row as `simple_read` makes it
                rows = [constant_row(plan.root, params)]
                self._raise_if_cancelled()
                return rows
            return self._point_rows(stmt, params)
        except BaseException as e:
            locate_literal(e, prepared.sql)
            self.on_error(e)
            raise
        finally:
            if logged is not None:
                oplog.finished(self.settings.values, prepared.sql, logged, extended=True)

    def _block_rows(self, stmt: Stmt, params: list[Any]) -> list[tuple[Any, ...]]:
        """`read_point`'s lane inside a transaction block (pgbench's SELECT abalance between
        its UPDATEs): a primary-key read whose privilege check is known, with no
        statement_timeout to arm (`read_point` lets nothing else here: BEGIN not followed
        by a statement yet, another plan). `execute_stmt` would run it as the next statement of
        the block (counted, a new READ COMMITTED snapshot) and `run_plan` read its rows by
        key at the transaction's snapshot, own writes included; this does the same without
        the savepoint (a read writes nothing to undo), the Result or the executor's run."""
        txn = self.txn
        txn.new_statement()
        stmt.check(self)  # type: ignore[misc]  # NB: read_point let no None here
        rows = stmt.plan.point.read(txn, params)
        self._raise_if_cancelled()  # NB: where `run_plan` checks
        return rows

    def _point_rows(self, stmt: Stmt, params: list[Any]) -> list[tuple[Any, ...]]:
        """The rows of a primary-key read outside a block (`read_point`, `simple_read`), as
        `execute_stmt` would give them: privileges, a snapshot of its own, cancel."""
        check = stmt.check
        if check is None:  # NB: not known: the statement's own run makes it
            return list(self._run_read(stmt, params).rows or ())
        check(self)
        point = stmt.plan.point
        keys = point.keys_of(params)
        got = self.engine.tm.read_rows(self, point.space, keys) if keys else []
        if got is None:  # NB: it must wait, or GC ran meanwhile: a registered read
            read = self.txn = self.engine.tm.statement_read(self)
            try:
                got = read.get(point.space, keys)
            finally:
                self.txn = None
                read.end()
        rows = point.pick(got)
        self._raise_if_cancelled()  # NB: where `run_plan` checks
        return rows

    def can_batch(self, prepared: Prepared) -> bool:
        """pgwire may hold pipelined Executes of `prepared` for `execute_many` (batchexec)."""
        return prepared.literals is None and batchexec.can_batch(prepared)

    def execute_many(self, prepared: Prepared, seq: list[list[Any]]
                     ) -> tuple[list[Result], BaseException | None]:
        """Runs `prepared` once per parameter list as one bulk write, with the row path's
        outcome: the results that succeeded and the error that stopped them (batchexec)."""
        return batchexec.execute_many(self, prepared, seq)

    def check_prepared(self, prepared: Prepared) -> None:
        """Bind-time check: replans a statement after DDL; 0A000 if its row shape changed.
        In a failed block only COMMIT, ROLLBACK and ROLLBACK TO may be bound: 25P02, as
        PostgreSQL's exec_bind_message (an empty statement too)."""
        stmt = prepared.handle
        if self.failed and (stmt is None or not stmt.allowed_when_failed):
            err = _in_failed()
            self.on_error(err)
            raise err
        if stmt is None:
            return
        settings = self.settings
        if published() is not settings:
            # NB: another session ran on this thread since (the loop front end's clients take
            # turns): publish ours as `revalidate` would, and the usual Bind stays short
            settings.use_zone()
        sp, tz = self._cached_sp, self._cached_tz
        if (settings.values["search_path"] is sp and settings.style_key is tz
                and (stmt.kind not in _REPLANNED
                     or (stmt.version == self.store.version and self.txn_catalog is None
                         and stmt.search_path == sp and stmt.timezone == tz))):
            # NB: the usual Bind: nothing `revalidate` looks at changed since the plan was
            # made (compared as it compares them), so it would return the same statement
            # (ours is the published Settings now: `use_zone` above publishes it); one it
            # never replans (BEGIN, COMMIT) needs only its `_check_search_path`, a no-op here
            self._bound = stmt
            self._bound_at = self._statements_run
            return
        try:
            # NB: as in PostgreSQL, the portal runs the plan checked here: Execute right
            # after it (no statement in between) need not check again
            self._bound = self._revalidate_prepared(prepared)
            self._bound_at = self._statements_run
        except BaseException as e:
            self.on_error(e)
            raise

    def still_valid(self, prepared: Prepared) -> bool:
        """pgwire's reuse of an unnamed Parse of the same text: True while `prepared`'s plan
        stands as a new Parse would make it (no DDL or search_path change since). Raises
        nothing and leaves the transaction alone: on False pgwire parses the text again."""
        stmt = prepared.handle
        if stmt is None or stmt.kind not in ("query", "dml"):
            return False
        try:
            return self.revalidate(stmt) is stmt
        except Exception:
            return False

    def _revalidate_prepared(self, prepared: Prepared) -> Stmt:
        stmt = prepared.handle
        new = self.revalidate(stmt)
        if new is not stmt and _shape(new.columns) != _shape(stmt.columns):
            # NB: the client decodes with the RowDescription it already has
            raise FeatureNotSupported("cached plan must not change result type",
                                      routine="RevalidateCachedQuery")
        prepared.handle = new
        return new

    def sql_prepared(self, name: str) -> Prepared | None:
        """PREPARE's statement of that name for the protocol's Describe and Bind (one
        namespace in PostgreSQL); None if there is none."""
        return prepstmts.protocol_view(self, name)

    def close_sql_prepared(self, name: str) -> None:
        """Close('S', name) of a statement PREPARE made drops it, as DEALLOCATE does."""
        self.prepared_sql.pop(name, None)

    def cursor_columns(self, name: str) -> list[Column] | None:
        """The row shape of a DECLAREd cursor, None if there is none by that name."""
        cur = self.cursors.get(name)
        return None if cur is None else cur.columns

    def close_cursor(self, name: str) -> None:
        """Close('P', name) of a DECLAREd cursor (libpq's PQclosePortal)."""
        self.cursors.pop(name, None)

    def sync(self) -> str:
        """Ends an extended-protocol implicit transaction; returns `transaction_status` after
        it (what pgwire's ReadyForQuery reports)."""
        self.running = False
        if not self.in_block:
            if self.txn is not None:
                self.commit_txn()
            else:
                self.settings.commit_sets()
        if self.failed:  # NB: `transaction_status`, inline
            return "E"
        return "T" if self.in_block else "I"

    def _started(self, sql: str, extended: bool | None) -> float | None:
        """Records a statement's start for pg_stat_activity (ends a terminated session), then
        logs it as log_statement asks (`oplog.started`: `extended` False for a Query's text,
        True for a prepared statement's Execute; None: not here, `simple_read` asks
        itself). Returns what `oplog.finished` takes."""
        if self.terminated:
            raise _terminated()
        settings = self.settings
        if settings.generation != SERVER.generation:  # NB: no call while none came
            settings.refresh()  # NB: takes a configuration reload (SIGHUP), as PostgreSQL
        self.running = True
        self.last_query = sql
        self.query_start = self.state_change = time.time()
        if extended is None:
            return None
        values = settings.values
        if values["log_statement"] == "none" and values["log_min_duration_statement"] == "-1":
            return None  # NB: `oplog.started`'s answer when nothing is logged, with no call
        return oplog.started(values, sql, extended)

    def connected_from(self, addr: str | None, port: int | None = None) -> None:
        """pgwire tells the session its client's address and port (pg_stat_activity)."""
        self.client_addr, self.client_port = addr, port

    def terminate(self) -> None:
        """pg_terminate_backend: ends the session with FATAL 57P01. pgwire's hook closes the
        connection (cancelling a running statement); without one, the running statement's
        cancel or else the next statement reports it."""
        self.terminated = True
        self._cancel.set()
        hook = self.terminate_hook
        if hook is not None:
            hook()  # NB: ends an idle connection at once, with FATAL 57P01, as PostgreSQL does

    def statement_failed(self, exc: BaseException) -> None:
        """Records a failure that happened outside the session's own calls."""
        self.on_error(exc)

    def reset_cancel(self) -> None:
        """Forgets a cancel that arrived while idle; pgwire calls it as each batch arrives.

        A CancelRequest that arrives while the statement is still parsed or planned
        must cancel it, so the session no longer clears the flag when a statement starts.
        """
        self._reset_by_pgwire = True
        if self._cancel.up:  # NB: clear() takes the Event's lock: only when needed
            self._cancel.clear()

    def cancel(self) -> None:
        """Asks the running statement to stop (it raises 57014 at its next batch)."""
        self._cancel.set()
        self._interrupt_wait()

    def _raise_if_cancelled(self) -> None:
        """57014 if a cancel is pending (and forgotten then), for the reads that skip the
        executor, whose `ExecContext.check_cancel` would have seen it."""
        if self._cancel.up:
            self._cancel.clear()
            raise QueryCanceled("canceling statement due to user request")

    def _interrupt_wait(self) -> None:
        """Wakes the statement if it waits in the LTM (a row lock, its session's snapshot)."""
        txn = self.txn
        if txn is not None:
            txn.cancel()

    def close(self) -> None:
        """Ends the session, rolling back any open transaction and dropping its TEMP tables."""
        self.abort_txn()
        self.cursors.clear()
        if self.engine.notifier is not None:
            self.engine.notifier.unlisten(self, None)
        if self.temp_schema is not None:
            try:
                for _ in self.simple_query(f'DROP SCHEMA IF EXISTS "{self.temp_schema}" CASCADE'):
                    pass
            except SQLError:
                pass  # NB: best effort; a leftover pg_temp schema is dropped on the next use
            self.notices.clear()
        self.engine.session_closed(self)

    # -- statements -------------------------------------------------------

    def revalidate(self, stmt: Stmt) -> Stmt:
        """Re-analyses a prepared query or DML statement if the catalog or search_path changed."""
        self._check_search_path()
        if stmt.kind in _REPLANNED and (stmt.version == -1
                                        or stmt.version != self.catalog_version()
                                        or stmt.search_path != self._cached_sp
                                        or stmt.timezone != self._cached_tz):
            if (stmt.search_path == self._cached_sp and stmt.timezone == self._cached_tz
                    and self.catalog_version() != -1 and self.store.keeps(stmt.version, stmt.deps)):
                stmt.version = self.catalog_version()  # NB: no DDL since touched what it names
                return stmt
            return self.lookup(stmt.sql, tuple(stmt.param_oids))
        return stmt

    def _check_search_path(self) -> None:
        sp = self.settings.values["search_path"]
        if sp is not self._cached_sp:  # NB: plans bind names through the search_path
            if sp != self._cached_sp:
                self.cache.clear()
            self._cached_sp = sp
        if published() is not self.settings:
            self.settings.use_zone()  # NB: another session ran on this thread (in-process use)
        tz = self.settings.style_key  # NB: plans fold '..'::timestamptz, date::text in these
        if tz is not self._cached_tz:
            if tz != self._cached_tz:
                self.cache.clear()
            self._cached_tz = tz

    def lookup(self, text: str, param_oids: tuple[int, ...]) -> Stmt:
        """Returns the analysed statement for a text, from the plan cache when possible."""
        self._check_search_path()
        version = self.catalog_version()
        key = (text, param_oids)
        stmt = self.cache.get(key, version)
        if stmt is None and version == -1:
            stmt = self.cache.get_private(key, self.txn_catalog)
        if stmt is None:
            stmt = analyse(self, text, list(param_oids))
            stmt.search_path = self._cached_sp
            stmt.timezone = self._cached_tz
            if stmt.version != -1 and version != -1:
                self._note_deps(stmt, text)
                self.cache.put(key, stmt)
            elif version == -1 and stmt.kind in ("query", "dml"):
                self.cache.put_private(key, self.txn_catalog, stmt)
        return stmt

    def lookup_simple(self, text: str) -> tuple[Stmt, list[Any]]:
        """Returns the analysed statement and parameter values for a simple-protocol text.

        Literals are turned into parameters (`parse.normalize`) so that statements
        differing only in their constants share one cached plan.
        """
        self._check_search_path()
        version = self.catalog_version()
        raw = self._raw_texts.get(text)
        if raw is not None and raw[2] == version and raw[3] == self.cache.generation:
            return raw[0], list(raw[1])
        stmt = self.cache.get((text, ()), version)
        if stmt is not None:
            _no_params(stmt, text)
            if version != -1:  # NB: `SELECT 1` again: the next time, `_raw_texts` answers
                if len(self._raw_texts) >= 256:
                    self._raw_texts.clear()
                self._raw_texts[text] = (stmt, (), version, self.cache.generation)
            return stmt, []
        norm = None
        if version != -1 and text[:6].upper() == "INSERT" and ("),(" in text or "), (" in text):
            rows = literalrows.split(text)  # NB: many rows of literals, in C-level passes
            if rows is not None:
                found = self._lookup_literal_rows(rows, version)
                if found is not None:
                    return found
                norm = (rows.text(), rows.values, rows.oids)  # NB: rows of differing types
        remember = True
        if version != -1 and norm is None:
            norm = self._int_tails.lookup(text)
            if norm is None:
                norm = normalize(text)
                if norm is not None:
                    self._int_tails.learn(text, norm)
            else:
                remember = False  # NB: as cheap as _raw_texts; keep that for other shapes
        if norm is not None:
            ntext, values, oids = norm
            key = (ntext, oids, "normalized")
            entry = self.cache.get(key, version)
            if entry is None:
                entry = self._analyse_normalized(ntext, oids)
                if entry is not None:
                    self.cache.put(key, entry)
            if entry is not None and entry.stmt is not None:
                params = entry.bind(values)
                # NB: shared; a bulk INSERT's thousands of literals are not worth keeping
                if remember and len(params) <= 64 and all(type(v) in _IMMUTABLE for v in params):
                    if len(self._raw_texts) >= 256:
                        self._raw_texts.clear()
                    self._raw_texts[text] = (entry.stmt, tuple(params), version,
                                             self.cache.generation)
                return entry.stmt, params
        return _no_params(self.lookup(text, ()), text), []

    def _lookup_literal_rows(self, rows: literalrows.LiteralRows, version: int
                             ) -> tuple[Stmt, list[Any]] | None:
        """A multi-row VALUES of literals whose rows declare the same types, planned once per
        shape: another row count or other values reuse the plan (`LiteralRows.shape`)."""
        shape = rows.shape()
        if shape is None:
            return None
        stext, soids = shape
        key = (stext, soids, "literal rows")
        entry = self.cache.get(key, version)
        if entry is None:
            entry = self._analyse_normalized(stext, soids)
            if entry is None:
                return None
            self.cache.put(key, entry)
        if entry.stmt is None:
            return None  # NB: the statement as written gives the error, at its position
        width = len(soids) // literalrows.MIN_ROWS
        return entry.stmt, entry.bind_rows(rows.values, width, rows.rows)

    def _analyse_normalized(self, ntext: str, oids: tuple[int, ...]) -> _Normalized | None:
        try:
            with literal_parameters():  # NB: a call PostgreSQL folds refuses a shared plan
                stmt = analyse(self, ntext, list(oids))
            if stmt.version == -1:
                return None
            self._note_deps(stmt, ntext)
            convs: list[Any] = []
            known: dict[tuple[int, int], Any] = {}  # NB: thousands of literal rows, few pairs
            for i, declared in enumerate(oids):
                final = stmt.param_oids[i] if i < len(stmt.param_oids) else 0
                src = declared or 705
                # NB: a name literal for a reg* parameter stays text: `reg_param` looks it up
                if final in (0, src) or (final in REG_PARAMS and src in (25, 705)):
                    convs.append(None)
                    continue
                if (src, final) not in known:
                    known[(src, final)] = cast_function(src, final)
                convs.append(known[(src, final)])
        except SQLError:
            return _Normalized(None, [], self.catalog_version())  # remember: use the raw text
        return _Normalized(stmt, convs, stmt.version)

    def _note_deps(self, stmt: Stmt, text: str) -> None:
        """Records what a plan about to be cached depends on: a DDL commit that changed none
        of it keeps the plan (`plan.deps`, `CatalogStore.keeps`). From the text analysed, not
        `stmt.sql`: an INSERT into a view carries the base table's INSERT there, without
        the view's name (its defaults changed and the plan stayed)."""
        if stmt.kind in ("query", "dml") and stmt.version == self.store.version:
            stmt.deps = plan_deps(text, self.catalog())

    def _statement_begins(self) -> None:
        """What every statement does first: counted, a stale cancel forgotten, the timer a
        portal left unfinished by the previous statement disarmed (`execute_stmt` and the
        read lanes that bypass it)."""
        self._statements_run += 1
        if not self._reset_by_pgwire and self._cancel.up:
            self._cancel.clear()  # NB: pgwire clears it when a batch arrives (reset_cancel)
        if self._timer is not None:
            self._disarm()

    def execute_stmt(self, stmt: Stmt, params: list[Any]) -> Result:
        """Runs one analysed statement with statement-level atomicity and READ COMMITTED retry."""
        if self.failed and not stmt.allowed_when_failed:
            self._statements_run += 1
            raise _in_failed()
        self._statement_begins()
        if stmt.no_block and (self.in_block or self.txn is not None):
            raise ActiveSQLTransaction(f"{stmt.tag} cannot run inside a transaction block")
        if not stmt.in_txn:
            return stmt.run(self, params)
        txn = self.txn
        if txn is None:  # NB: the block's later statements have theirs: no call
            if stmt.kind == "query" and stmt.plan is not None:
                plan = stmt.plan
                if plan.point is not None and self._reads_alone():
                    return self._run_read(stmt, params)
                if plan.constant and self._reads_alone():
                    return stmt.run(self, params)  # NB: SELECT 1: nothing to read, no transaction
            txn = self.ensure_txn()
        if stmt.kind in ("dml", "ddl") and (txn.read_only or (
                self.txn_modes and self.txn_modes.get("read_only"))):
            raise ReadOnlySQLTransaction(
                f"cannot execute {stmt.tag} in a read-only transaction")
        txn.new_statement()
        values = self.settings.values  # NB: every setting has a value (DEFAULTS): no .get
        lt = values["lock_timeout"]
        if lt != "0" or txn.lock_timeout is not None:
            txn.lock_timeout = duration_ms(lt) / 1000.0 or None  # NB: read by the LTM's waits
        token = (len(txn.ws.undo), len(txn.locked))  # NB: `txn.savepoint()`, inline
        timed = values["statement_timeout"] != "0" and self._arm_timeout()
        try:
            try:
                res = stmt.run(self, params)
                retry = False
            except RetryStatement:  # NB: the loop only then: no range() per statement
                retry = True
            if retry:  # NB: outside the handler, so a later error chains nothing to it
                res = self._retried(stmt, params, txn, token)
        except QueryCanceled as e:
            self._disarm()
            raise self._cancel_error(e) from None
        except BaseException:
            self._disarm()
            raise
        if timed and res.rows is None:
            self._disarm()
        return res

    def _retried(self, stmt: Stmt, params: list[Any], txn: Any, token: Any) -> Result:
        """`execute_stmt` after its statement's first run raised RetryStatement: rolled back
        to the statement's savepoint, run again on a new statement snapshot, up to
        MAX_RETRIES times in all; the last run's RetryStatement is the caller's."""
        for _ in range(MAX_RETRIES - 1):
            txn.rollback_to(token)
            txn.new_statement()
            try:
                return stmt.run(self, params)
            except RetryStatement:
                pass
        txn.rollback_to(token)
        txn.new_statement()
        return stmt.run(self, params)

    def _reads_alone(self) -> bool:
        """Whether a primary-key read may run on a `StatementRead` instead of a transaction:
        no block (nor BEGIN waiting for its first statement), READ COMMITTED (the next
        statement takes a new snapshot anyway) and no statement_timeout to arm."""
        if self.in_block or self.txn_modes:
            return False
        values = self.settings.values
        return values["default_transaction_isolation"] in _ALONE \
            and values.get("statement_timeout", "0") == "0"

    def _run_read(self, stmt: Stmt, params: list[Any]) -> Result:
        """Runs a primary-key read outside a block on a snapshot alone (txn/statementread):
        no write set, savepoint or commit. `run_plan` reads its rows at once, so the read
        has ended when this returns and the session is again without a transaction."""
        if stmt.check is not None:  # NB: its privilege check known: read with no read id
            rows = self._point_rows(stmt, params)
            return Result("SELECT", columns=stmt.plan.columns, rows=iter(rows), done=False)
        read = self.txn = self.engine.tm.statement_read(self)
        try:
            return stmt.run(self, params)
        finally:
            self.txn = None
            read.end()

    def _arm_timeout(self) -> bool:
        """Starts the statement_timeout timer, if one is set; True if it was started."""
        value = self.settings.values.get("statement_timeout", "0")
        if value == "0":
            return False
        ms = duration_ms(value)
        if ms <= 0:
            return False
        self._disarm()
        self._timed_out = False
        self._timer = waits.call_later(ms / 1000.0, self._fire_timeout)  # the loop's, on one
        return True

    def _fire_timeout(self) -> None:
        self._timed_out = True
        self._cancel.set()
        self._interrupt_wait()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _cancel_error(self, e: BaseException) -> BaseException:
        if self.terminated:
            return _terminated()
        if self._timed_out:
            self._timed_out = False
            return QueryCanceled("canceling statement due to statement timeout")
        return e

    def on_error(self, exc: BaseException) -> None:
        """Puts the session into the state PostgreSQL is in after a failed statement."""
        self._errors += 1
        if self.in_block:
            self.failed = True
            if not self.savepoints and self.txn is not None:
                # NB: PostgreSQL aborts the transaction at the error, not at the ROLLBACK
                # that follows: its row and write locks are released now
                self.txn.abort()
            # PostgreSQL undoes the (sub)transaction's SETs when the error aborts it,
            # not at the ROLLBACK that follows; clients see the ParameterStatus at once
            if self.savepoints:
                self.settings.restore(self.savepoints[-1][3])
            else:
                self.settings.undo_transaction()
        else:
            self.abort_txn()

    def run_plan(self, plan: Any, values: list[Any], tag: str = "SELECT") -> Result:
        """Starts a compiled query; its rows are produced as pgwire fetches them."""
        point = plan.point
        if point is not None:  # primary-key gets: read now, without the executor
            rows = point.read(self.txn, values)
            self._raise_if_cancelled()  # NB: where the executor checks, after the batch
            if self._timer is not None:
                self._disarm()
            return Result(tag, columns=plan.columns, rows=iter(rows), done=False)
        if plan.constant:  # SELECT 1: its one row, without the executor
            row = constant_row(plan.root, values)
            self._raise_if_cancelled()
            if self._timer is not None:
                self._disarm()
            return Result(tag, columns=plan.columns, rows=iter((row,)), done=False)
        ctx = self.exec_context(values)
        by_columns = plan.execute_columns(ctx)
        if by_columns is not None:  # a whole table's scan: its cold segments' columns
            src = self._guarded(by_columns)
            return Result(tag, columns=list(plan.columns), column_batches=src, done=False,
                          rows=_column_rows(src))
        batches = plan.execute(ctx)
        return Result(tag, columns=list(plan.columns), rows=self._rows(batches), done=False)

    def _guarded(self, batches: Iterator[Any]) -> Iterator[Any]:
        """A result's batches (of rows, or column batches) with the statement's end: the
        timer disarmed, an error handled as the session's (`on_error`)."""
        try:
            yield from batches
        except Exception as e:  # NB: not GeneratorExit: an abandoned portal is no error
            self._disarm()
            err = self._cancel_error(e) if isinstance(e, QueryCanceled) else e
            self.on_error(err)
            if err is not e:
                raise err from None
            raise
        self._disarm()

    def _rows(self, batches: Iterator[list[tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
        for batch in self._guarded(batches):
            yield from batch

    def exec_context(self, values: list[Any]) -> ExecContext:
        """Builds the ExecContext of one statement execution."""
        # NB: `catalog()`, inline (each keyed write makes one)
        cat = self.txn_catalog if self.txn_catalog is not None else self.store.snapshot(self.db.oid)
        if usertypes.INSTALLED.get()() is not cat:  # NB: no call when this context has it
            usertypes.use(cat)  # type names resolve against this catalog's CREATE TYPEs
        return ExecContext(cat, self.txn, self.functions, values, self._cancel,
                           self.settings.values)

    # -- transactions -----------------------------------------------------

    def ensure_txn(self) -> Any:
        """Returns the open transaction, beginning one with the current modes if needed."""
        if self.txn is None:
            values, modes = self.settings.values, self.txn_modes
            iso = shown = modes.get("isolation") or values["default_transaction_isolation"]
            if iso == "read uncommitted":  # NB: runs as READ COMMITTED, reported as set (PG)
                iso = "read committed"
            ro = modes.get("read_only")
            if ro is None:
                ro = values["default_transaction_read_only"] == "on"
            self.txn = self.engine.tm.begin(isolation=iso, read_only=ro, session=self)
            self.txn_started_at = dt.datetime.now(dt.UTC)
            values["transaction_isolation"] = shown
            values["transaction_read_only"] = "on" if ro else "off"
            deferrable = modes.get("deferrable")  # NB: accepted; snapshots are safe
            values["transaction_deferrable"] = (
                values["default_transaction_deferrable"] if deferrable is None
                else "on" if deferrable else "off")
        return self.txn

    def commit_txn(self) -> None:
        """Commits the open transaction (if any) and leaves the transaction block."""
        if self.cursors and self.txn is not None:
            materialize_held(self)
        if self.txn is not None and deferstate.ANY and deferred.pending(self):
            try:  # DEFERRABLE INITIALLY DEFERRED foreign keys: checked now (23503 rolls back)
                deferred.check_at_commit(self)
            except BaseException:
                self.abort_txn()
                raise
        if self.txn is not None and self.on_commit:
            try:  # CREATE TEMP TABLE ... ON COMMIT DROP / DELETE ROWS (ddl/oncommit.py)
                before_commit(self)
            except BaseException:
                self.abort_txn()
                raise
        txn, ddl, drops, analyzed = self.txn, self.txn_ddl, self.pending_drops, self.txn_analyzed
        notifies = self.pending_notifies
        if notifies:
            self.pending_notifies = []
        self._reset_txn_state()
        if txn is None:
            self._deliver(notifies)
            return
        # NB: automatic ANALYZE counts the write set (`note_writes`); read without the
        # has_writes property and WriteSet.__bool__ (two Python calls per commit)
        ws = txn.ws if type(txn) is Transaction else None
        changed = self.store.changes_of(txn, self.db.oid) if ddl else None
        if analyzed and (changed is not None or not ddl):  # NB: plans made without the stats
            changed = analyzed if changed is None else changed | analyzed
        try:
            cts = txn.commit(self.settings.values.get("synchronous_commit") != "off")
        except BaseException:
            txn.abort()
            if ddl:
                self.store.bump()
            raise
        if ddl or analyzed:
            self.store.bump(cts, changed)  # NB: with several query engines, returns once they know
        if ws is not None and (ws.spaces or ws.runs):
            self.engine.autoanalyze.note_writes(self.db.oid, ws)
        if notifies:
            self._deliver(notifies)
        for space in drops:
            self.engine.tm.drop_space(space)

    def _deliver(self, notifies: list[tuple[str, str]]) -> None:
        if notifies:
            notifier(self).deliver(self.backend_pid, notifies)

    def notify(self, channel: str, payload: str) -> None:
        """NOTIFY channel, 'payload': delivered now outside a transaction block, else at
        COMMIT (pg_notify)."""
        queue(self, channel, payload)

    def abort_txn(self) -> None:
        """Rolls back the open transaction (if any) and leaves the transaction block."""
        self.pending_notifies = []
        txn = self.txn
        self._reset_txn_state(aborted=True)
        if txn is not None:
            txn.abort()

    def _reset_txn_state(self, aborted: bool = False) -> None:
        if deferstate.ANY:  # NB: only while some session has deferred state (as commit_txn)
            deferred.forget(self)
        self.txn = None
        self.in_block = False
        self.failed = False
        if self.txn_modes:
            self.txn_modes = {}
        if self.savepoints:
            self.savepoints = []
        self.txn_catalog = None
        self.txn_ddl = False
        self.txn_analyzed = frozenset()
        if self.pending_drops:
            self.pending_drops = []
        self.txn_started_at = None
        self.settings.end_transaction(aborted)
        values = self.settings.values
        values["transaction_isolation"] = values["default_transaction_isolation"]
        values["transaction_read_only"] = values["default_transaction_read_only"]
        values["transaction_deferrable"] = values["default_transaction_deferrable"]
        if self.cursors:
            close_at_txn_end(self)

    # -- the catalog as this session sees it ------------------------------

    def catalog(self) -> CatalogSnapshot:
        """The catalog this session's statements see (its own uncommitted DDL included)."""
        cat = self.txn_catalog if self.txn_catalog is not None else self.store.snapshot(self.db.oid)
        if usertypes.INSTALLED.get()() is not cat:  # NB: no call when this context has it
            usertypes.use(cat)  # type names resolve against this catalog's CREATE TYPEs
        return cat

    def catalog_version(self) -> int:
        """The version of `catalog()`; -1 while the transaction has uncommitted DDL."""
        return -1 if self.txn_catalog is not None else self.store.version

    def catalog_changed(self) -> None:
        """Called by DDL after writing catalog rows through the session's transaction."""
        self.txn_ddl = True
        self.txn_catalog = self.store.load_snapshot(self.txn, self.db.oid)

    # -- FunctionContext ----------------------------------------------------

    @property
    def statement_timestamp(self) -> dt.datetime:
        """The transaction's start time: what now() returns."""
        return self.txn_started_at or dt.datetime.now(dt.UTC)

    def get_setting(self, name: str) -> str | None:
        """Returns a setting's value (None if unknown)."""
        key = name.lower()
        if key in ("transaction_isolation", "transaction_read_only",
                   "transaction_deferrable") and self.txn is None:
            if key == "transaction_isolation":
                iso = self.txn_modes.get("isolation")
                return iso or self.settings.values["default_transaction_isolation"]
            mode = key[len("transaction_"):]
            flag = self.txn_modes.get(mode)
            if flag is None:
                return self.settings.values["default_" + key]
            return "on" if flag else "off"
        return self.settings.get(name)

    def set_setting(self, name: str, value: str, is_local: bool) -> str:
        """Sets a setting, as set_config does."""
        return self.settings.set(name, value, local=is_local)

    def search_path(self) -> list[str]:
        """The schemas unqualified names resolve through (existing ones only)."""
        raw = self.settings.values["search_path"]
        cached = self._search_path
        if cached is not None and cached[0] == raw + (self.temp_schema or ""):
            return cached[1]
        out = []
        for part in raw.split(","):
            p = part.strip()
            if p == '"$user"' or p == "$user":
                p = self.user
            elif p.startswith('"') and p.endswith('"'):
                p = p[1:-1]
            else:
                p = p.lower()
            if p:
                out.append(p)
        if self.temp_schema is not None:
            out.insert(0, self.temp_schema)  # NB: PostgreSQL looks in pg_temp first
        self._search_path = (raw + (self.temp_schema or ""), out)
        return out

    def sequence(self, seq_oid: int) -> Sequence:
        """Returns a sequence of this database by OID."""
        seq = next((s for s in self.catalog().sequences if s.oid == seq_oid), None)
        if seq is None:
            raise UndefinedTable(f"could not open relation with OID {seq_oid}")
        return seq

    def nextval(self, seq_oid: int) -> int:
        """Advances a sequence (not rolled back with the transaction)."""
        seq = self.sequence(seq_oid)
        check_sequence(self, seq, "Uw")
        v = self.store.nextval(seq)
        self.currvals[seq_oid] = v
        return v

    def sequence_state(self, seq_oid: int) -> tuple[int, bool]:
        """(last_value, is_called) of a sequence, for `SELECT ... FROM seq` (needs SELECT)."""
        seq = self.sequence(seq_oid)
        check_sequence(self, seq, "r")
        return self.store.sequence_state(seq)

    def currval(self, seq_oid: int) -> int:
        """The value nextval last returned in this session."""
        seq = self.sequence(seq_oid)
        check_sequence(self, seq, "Ur")
        if seq_oid not in self.currvals:
            raise ObjectNotInPrerequisiteState(
                f'currval of sequence "{seq.name}" is not yet defined in this session')
        return self.currvals[seq_oid]

    def setval(self, seq_oid: int, value: int, is_called: bool) -> int:
        """Sets a sequence's value."""
        seq = self.sequence(seq_oid)
        check_sequence(self, seq, "w")
        if value < seq.min_value or value > seq.max_value:
            raise NumericValueOutOfRange(
                f'setval: value {value} is out of bounds for sequence "{seq.name}" '
                f"({seq.min_value}..{seq.max_value})")
        self.store.setval(seq, value, is_called)
        if is_called:
            self.currvals[seq_oid] = value
        return value


def _lone_read(stmt: Stmt) -> bool:
    """Whether a statement is a read `simple_read` may run: a query whose plan reads by
    primary key or computes one row of constants, which `execute_stmt` runs outside a block
    on a snapshot alone and whose rows are read before it returns."""
    plan = stmt.plan
    return stmt.kind == "query" and stmt.in_txn and plan is not None and (
        plan.point is not None or plan.constant)


def _shift_position(e: BaseException, message: str, start: int, text: str) -> None:
    """Makes an error's position count from the start of the whole message, as PostgreSQL's.

    Statements are analysed one by one, without their leading comments, so positions
    arrive relative to that text.
    """
    if not isinstance(e, SQLError) or e.position is None or start < 0:
        return
    skipped = len(text) - len(strip_leading_comments(text))
    offset = start + skipped  # NB: positions count characters, as PostgreSQL's
    if offset:
        e.position += offset


def _shape(columns: list[Column] | None) -> list[tuple[str, int, int]] | None:
    """A result's row shape as a client sees it: names, type OIDs and typmods."""
    if columns is None:
        return None
    return [(c.name, c.type_oid, getattr(c, "typmod", -1)) for c in columns]


class _Normalized:
    """A plan-cache entry for a statement whose literals became parameters."""

    __slots__ = ("stmt", "convs", "version", "deps")

    def __init__(self, stmt: Stmt | None, convs: list[Any], version: int) -> None:
        self.stmt = stmt
        self.convs = convs
        self.version = version
        self.deps = None if stmt is None else stmt.deps  # NB: a failed text may now analyse

    def bind(self, values: tuple[Any, ...]) -> list[Any]:
        """Converts the literal values to the parameter types the plan settled on."""
        # NB: a NULL literal (literalrows) is an unknown-typed None: NULL of any type
        return [v if c is None or v is None else c(v)
                for v, c in zip(values, self.convs, strict=True)]

    def bind_rows(self, values: tuple[Any, ...], width: int, rows: int) -> list[Any]:
        """`bind` for `rows` rows of a plan made for rows of `width` parameters of one shape."""
        if not any(self.convs):
            return list(values)
        return [v if c is None or v is None else c(v)
                for v, c in zip(values, self.convs[:width] * rows, strict=True)]


def _no_params(stmt: Stmt, text: str) -> Stmt:
    """A Query message cannot bind `$1`: 42P02, as PostgreSQL says at parse analysis."""
    if stmt.param_oids:
        m = re.search(r"\$(\d+)", text)
        raise UndefinedParameter(f"there is no parameter ${m.group(1) if m else 1}",
                                 position=m.start() + 1 if m else None)
    return stmt


def _in_failed() -> SQLError:
    """The 25P02 of every statement but COMMIT, ROLLBACK and ROLLBACK TO in a failed block."""
    return InFailedSQLTransaction(
        "current transaction is aborted, commands ignored until end of transaction block")


def _terminated() -> SQLError:
    """The FATAL 57P01 a session ended by pg_terminate_backend reports."""
    return AdminShutdown("terminating connection due to administrator command", severity="FATAL")


def _column_rows(batches: Iterator[tuple[list[Any], int]]) -> Iterator[tuple[Any, ...]]:
    """The rows of column batches (a result of a whole table's scan read by `fetch`)."""
    for cols, n in batches:
        yield from zip(*map(column_values, cols), strict=True) if cols else repeat((), n)
