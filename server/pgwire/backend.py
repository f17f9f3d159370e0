"""The narrow interface between the pgwire front end and the SQL layer.

pgwire owns bytes, message framing, authentication exchanges, protocol-level
statements and portals, and value encoding (text/binary, via `pgtypes`). The
SQL layer owns everything about meaning: parsing, planning, execution,
transactions, settings and SQL-level cursors (DECLARE/FETCH).

Threading: every `Session` method is synchronous and may block (lock waits,
commit fsync, long scans). The threaded front end runs them in one thread per
connection; the event-loop front end runs them in a greenlet per connection on
the loop's thread, where the SQL layer's waits (through `server/waits.py`) park
the greenlet. Either way one slow statement never stalls other sessions, and
`cancel()` can be called from the event-loop thread at any time.

Values cross this boundary as Python objects: parameters are decoded by pgwire
(from the inferred or declared OID) before `execute`; result rows are tuples of
Python values that pgwire encodes per column OID and requested format.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain, islice, repeat
from typing import Any, Protocol

from ..errors import SQLError
from ..pgtypes.coded import values as column_values


@dataclass(frozen=True)
class Column:
    """One RowDescription field."""

    name: str
    type_oid: int
    typmod: int = -1
    table_oid: int = 0
    attnum: int = 0


@dataclass
class Prepared:
    """A parsed, analysed statement: what Parse produces and Describe('S') reports.

    `param_oids` are the parameter types after server-side inference (a client's
    0 replaced by the inferred type). `columns` is None for statements that
    return no rows. `handle` is the SQL layer's own (a cached plan).
    """

    sql: str
    param_oids: list[int]
    columns: list[Column] | None
    handle: Any = None
    # pg_prepared_statements: when Parse/PREPARE ran, and how often it ran (the SQL layer
    # tells which plans those executions used: `prepstmts.plans`)
    prepared_at: Any = None
    executions: int = 0
    # the SQL layer's rows of literals a statement without parameters binds itself: a plan
    # cached by the statement's shape then serves any row count and values (literal INSERTs)
    literals: Any = None
    # a statement whose rows' shape is only known when it runs (FETCH: the cursor it names as
    # it stands then): each Bind describes its portal by calling this, as PostgreSQL's
    # PortalStart re-describes a utility statement; Describe('S') still gives `columns`
    portal_columns: Callable[[], list[Column] | None] | None = None


class CopyIn(Protocol):
    """A COPY ... FROM STDIN in progress: pgwire feeds it CopyData payloads."""

    format: str  # "text" | "csv" | "binary"
    column_count: int

    def feed(self, data: bytes) -> None: ...

    def finish(self) -> str:
        """Ends the copy at CopyDone; returns the command tag ("COPY n")."""

    def fail(self, message: str) -> None:
        """Ends the copy at CopyFail (the statement fails with 57014)."""


class CopyOut(Protocol):
    """A COPY ... TO STDOUT: pgwire sends each chunk as CopyData."""

    format: str
    column_count: int
    column_types: list[int]  # NB: a client encoding converts binary fields of text types

    def chunks(self) -> Iterator[bytes]: ...

    def frames(self) -> Iterator[bytes]:
        """The same rows as whole CopyData messages (one per chunk), many per bytes."""

    @property
    def tag(self) -> str:
        """The command tag, valid once `chunks()` is exhausted."""


@dataclass
class Result:
    """One statement's outcome.

    For a row-returning statement, `columns` is set and `fetch(n)` pulls up to
    n rows (n=None: all). `done` becomes True once the rows are exhausted, and
    only then is `tag` final (e.g. "SELECT 42"). pgwire uses `fetch(n)` for
    Execute(max_rows=n) and answers PortalSuspended while not `done`.
    """

    tag: str
    columns: list[Column] | None = None
    rows: Iterator[tuple[Any, ...]] | None = None
    copy_in: CopyIn | None = None
    copy_out: CopyOut | None = None
    empty: bool = False  # an empty query: EmptyQueryResponse
    done: bool = True
    # the same rows as column batches ((columns, row count)), while no row was fetched
    # (a whole table's scan: `fetch_columns`); `rows` reads them too, once it starts
    column_batches: Iterator[tuple[list[Any], int]] | None = None
    _count: int = field(default=0, repr=False, init=False)
    # a column batch (its columns as values, its row count) an Execute with a row limit
    # took part of, and where the rows not taken yet begin
    _left: tuple[list[Any], int, int] | None = field(default=None, repr=False, init=False)

    def __init__(self, tag: str, columns: list[Column] | None = None,
                 rows: Iterator[tuple[Any, ...]] | None = None, copy_in: CopyIn | None = None,
                 copy_out: CopyOut | None = None, empty: bool = False, done: bool = True,
                 column_batches: Iterator[tuple[list[Any], int]] | None = None) -> None:
        """The dataclass's own, written out without `_count` and `_left`: the class's
        defaults stand until a fetch sets them (every statement makes a Result, and most,
        UPDATE 1 or BEGIN, never fetch)."""
        self.tag = tag
        self.columns = columns
        self.rows = rows
        self.copy_in = copy_in
        self.copy_out = copy_out
        self.empty = empty
        self.done = done
        self.column_batches = column_batches

    def fetch_columns(self, limit: int = 0) -> tuple[list[Any], int] | None:
        """The next column batch of a result that has them and of which no row was fetched;
        None otherwise (then `fetch`) or once exhausted (`done` and the tag set). With a
        `limit` (> 0) at most that many rows: an Execute with a row limit (a driver's fetch
        size, JDBC's setFetchSize) streams by columns too, the rest of a batch (decoded
        once) waiting for the next call.

        >>> r = Result("SELECT", column_batches=iter([([[1, 2, 3]], 3)]), done=False)
        >>> r.fetch_columns(2), r.fetch_columns(2), r.fetch_columns(2), r.done, r.tag
        (([[1, 2]], 2), ([[3]], 1), None, True, 'SELECT 3')
        >>> r = Result("SELECT", column_batches=iter([([[1, 2, 3], "abc"], 3)]), done=False,
        ...            rows=iter([(9, "z")]))  # NB: what rows reads after the batches
        >>> r.fetch_columns(1), r.fetch(), r.tag
        (([[1], 'a'], 1), [(2, 'b'), (3, 'c'), (9, 'z')], 'SELECT 4')
        """
        if self.column_batches is None or self.done:
            return None
        left, self._left = self._left, None
        if left is not None:
            cols, n, start = left
        else:
            got = next(self.column_batches, None)
            if got is None:
                self._finish()
                return None
            (cols, n), start = got, 0
            if not 0 < limit < n:
                self._count += n
                return got
            cols = [column_values(c) for c in cols]
        stop = n if limit <= 0 else min(n, start + limit)
        if stop < n:  # NB: an offset, not a copy of the rest: one row per Execute stays linear
            self._left = (cols, n, stop)
        self._count += stop - start
        return [c[start:stop] for c in cols], stop - start

    def _finish(self) -> None:
        self.done = True
        if self.tag.startswith(("SELECT", "FETCH", "MOVE")) and " " not in self.tag:
            self.tag = f"{self.tag} {self._count}"

    def fetch(self, n: int | None = None) -> list[tuple[Any, ...]]:
        """Returns up to n more rows; sets `done` and the final tag when exhausted."""
        self.column_batches = None  # NB: the rows iterator reads the batches from here on
        if self.rows is None or self.done:
            return []
        if self._left is not None:  # NB: a batch's rows `fetch_columns` left come first
            (cols, count, start), self._left = self._left, None
            rest = zip(*(c[start:] for c in cols), strict=True) if cols else \
                repeat((), count - start)
            self.rows = chain(rest, self.rows)
        it = self.rows
        if n is None or n <= 0:
            out = list(it)
            self.done = True
        else:
            out = list(islice(it, n))  # NB: C-level; n rows exactly leaves it not done
            if len(out) < n:
                self.done = True
        self._count += len(out)
        if self.done and self.tag.startswith(("SELECT", "FETCH", "MOVE")) and " " not in self.tag:
            self.tag = f"{self.tag} {self._count}"
        return out


class CancelFlag(Protocol):
    """A session's cancel flag as pgwire reads it: a plain attribute (`waits.Flag`)."""

    up: bool  # a cancel is pending


class Session(Protocol):
    """One client session, created by `Engine.open_session`."""

    backend_pid: int
    # LISTEN deliveries not yet taken; pgwire pushes them to an idle connection
    inbox: list[tuple[int, str, str]]
    notices: list[SQLError]  # notices not yet taken (`take_notices`)
    # set by pgwire: called (from any thread) when a NOTIFY arrives / by `terminate`
    notify_hook: Callable[[], None] | None
    terminate_hook: Callable[[], None] | None

    @property
    def transaction_status(self) -> str:
        """ReadyForQuery status: "I" idle, "T" in a transaction block, "E" failed block."""

    def parameter_status(self) -> dict[str, str]:
        """The ParameterStatus values to send after authentication (13 of them, like PG 15)."""

    @property
    def parameters_changed(self) -> Collection[str]:
        """Non-empty while `take_changed_parameters` has settings to give: pgwire calls it
        only then (an attribute in the SQL session: no call per statement)."""

    def take_changed_parameters(self) -> dict[str, str]:
        """Reported settings changed since the last call (pgwire re-sends them as ParameterStatus)."""

    def take_notices(self) -> list[SQLError]:
        """Notices raised since the last call (severity NOTICE/WARNING)."""

    def take_notifications(self) -> list[tuple[int, str, str]]:
        """LISTEN notifications delivered since the last call: (sender pid, channel, payload).
        pgwire sends them as NotificationResponse before each ReadyForQuery."""

    def setting(self, name: str) -> str | None:
        """A setting's current value (pgwire reads idle_in_transaction_session_timeout)."""

    @property
    def setting_values(self) -> Mapping[str, str]:
        """Every setting's current value by its lower-case name, as `setting` reads them: the
        loop front end's read after each round trip in a block, without a call."""

    def simple_query(self, sql: str) -> Generator[Result, None, None]:
        """Runs every statement of a Query message, lazily, as one implicit transaction.

        Yields one Result per statement; raises SQLError at the first failure
        (the remaining statements are skipped). An empty string yields one
        Result with `empty=True`. pgwire closes the generator to abandon the rest.
        """

    def simple_read(self, sql: str) -> tuple[list[Column], list[tuple[Any, ...]], str] | None:
        """A fast lane for a Query of one repeated read: (columns, rows, tag) at once, or None
        when the statement must go through `simple_query` (a session may always say None)."""

    def prepare(self, sql: str, param_oids: list[int]) -> Prepared:
        """Parses and analyses one statement; 0 in `param_oids` means: infer it."""

    def check_prepared(self, prepared: Prepared) -> None:
        """Re-validates a statement at Bind, before it runs: re-plans it after DDL, and raises
        0A000 "cached plan must not change result type" if its row shape changed."""

    def still_valid(self, prepared: Prepared) -> bool:
        """True while `prepared`'s plan stands as a new Parse of its text would make it: pgwire
        then reuses an unnamed statement instead of parsing again. Raises nothing."""

    def watch_statements(self, named: Any, drop: Any) -> None:
        """Gets a callable returning the connection's named Parse statements as (name,
        Prepared) pairs, so that pg_prepared_statements can list them, and one that drops
        them (a name, or None for all: DEALLOCATE and DISCARD ALL, as PostgreSQL)."""

    def connected_from(self, addr: str | None, port: int | None) -> None:
        """The client's address and TCP port (pg_stat_activity); None for a Unix socket."""

    def execute(self, prepared: Prepared, params: list[Any]) -> Result:
        """Binds parameters and starts executing (extended protocol, inside the implicit txn)."""

    def read_point(self, prepared: Prepared, params: list[Any]) -> list[tuple[Any, ...]] | None:
        """A fast lane for Bind+Execute of a checked read by key: all its rows at once, or
        None when it must go through `execute` (a session may always say None)."""

    def can_batch(self, prepared: Prepared) -> bool:
        """True if pgwire may hold pipelined Executes of `prepared` for `execute_many`."""

    def execute_many(self, prepared: Prepared, seq: list[list[Any]]
                     ) -> tuple[list[Result], BaseException | None]:
        """Runs `prepared` once per parameter list (held Executes): the results that
        succeeded, and the error that stopped the rest."""

    def sql_prepared(self, name: str) -> Prepared | None:
        """The statement SQL PREPARE named `name`, for Describe('S') and Bind: one namespace
        with Parse's in PostgreSQL. None if there is none."""

    def close_sql_prepared(self, name: str) -> None:
        """Drops the statement SQL PREPARE named `name` for Close('S', name): one namespace
        with Parse's in PostgreSQL, so Close drops it as DEALLOCATE does. No error when there
        is none."""

    def cursor_columns(self, name: str) -> list[Column] | None:
        """The row shape of a SQL-level cursor (DECLARE), for Describe('P', name); None if absent."""

    def close_cursor(self, name: str) -> None:
        """Closes a SQL-level cursor for Close('P', name): portals and DECLAREd cursors share
        one namespace in PostgreSQL. No error when there is none."""

    def sync(self) -> str:
        """Ends an extended-protocol implicit transaction (commit, or rollback after an error);
        returns `transaction_status` after it (what ReadyForQuery reports)."""

    def statement_failed(self, exc: BaseException) -> None:
        """Tells the session a statement failed outside its own calls (e.g. a bad binary parameter)."""

    def cancel(self) -> None:
        """Cancels the running statement (57014). Called from another thread."""

    def terminate(self) -> None:
        """pg_terminate_backend: ends the session with FATAL 57P01 (through `terminate_hook`)."""

    def reset_cancel(self) -> None:
        """Drops a cancel that arrived while the session was idle. pgwire calls it
        when a new message arrives, before running it (the loop front end: once when the
        session starts, then only while `cancel_flag.up`). A cancel arriving after that, while
        the statement is still being parsed or planned, must cancel it (PostgreSQL drops
        only the cancels that arrive between commands)."""

    @property
    def cancel_flag(self) -> CancelFlag:
        """Up while a cancel is pending (what `reset_cancel` drops): read without a call."""

    def close(self) -> None:
        """Ends the session, rolling back any open transaction."""


@dataclass(frozen=True)
class RoleInfo:
    """What authentication needs to know about a role.

    `password` is what CREATE ROLE ... PASSWORD stored: a SCRAM-SHA-256 verifier
    ("SCRAM-SHA-256$..."), an md5 hash ("md5..."), or None for no password.
    """

    name: str
    can_login: bool = True
    superuser: bool = False
    password: str | None = None


class Engine(Protocol):
    """The SQL side of a query engine: one per server process."""

    def role(self, name: str) -> RoleInfo | None:
        """Looks up a role for authentication; None if it does not exist."""

    def open_session(self, user: str, database: str, options: dict[str, str]) -> Session:
        """Opens a session (3D000 for a missing database); `options` are the startup parameters."""

    def load(self) -> int:
        """The number of active sessions: reported to clients that balance load."""

    def close(self) -> None:
        """Shuts the engine down cleanly (checkpoint, flush logs)."""
