"""The asyncio connection, asyncpg style, over the same sans-I/O core as the sync driver.

`Connection._drive` feeds the core's conversations from an asyncio stream.
Writes are not awaited with drain(): the event loop keeps reading replies
while a long pipeline goes out, so neither side can block the other.
Queries use PostgreSQL's own `$n` placeholders, and every statement runs in
autocommit unless inside `async with conn.transaction()`, as in asyncpg.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cumulo.driver import copyrows, core, errors, failover, types
from cumulo.driver import protocol as p
from cumulo.driver.aio.cursor import CursorFactory
from cumulo.driver.aio.record import Record
from cumulo.driver.errors import InterfaceError, OperationalError
from cumulo.driver.net import ssl_context, tls_answer, unix_path
from cumulo.driver.url import ConnectParams, make_params

if TYPE_CHECKING:
    from cumulo.driver.aio.table import Table


async def connect(dsn: str | None = None, **kwargs: object) -> Connection:
    """Opens a connection from a URL and/or keywords; tries hosts as the sync driver does."""
    params = make_params(dsn, **kwargs)
    hosts = list(params.hosts)
    if params.load_balance and len(hosts) > 1:
        return await _connect_least_loaded(hosts, params)
    attempts: list[tuple[tuple[str, int], BaseException]] = []
    for host in hosts:
        try:
            return await Connection.open(host, params)
        except (OSError, errors.Error) as e:
            attempts.append((host, e))
            if not failover.try_next_host(e):
                raise
    raise failover.all_failed(attempts)


async def _connect_least_loaded(hosts: list[tuple[str, int]], params: ConnectParams) -> Connection:
    """Connects to every host at once, keeps the connection to the least-loaded one."""
    tried = await asyncio.gather(*(_open_with_load(h, params) for h in hosts),
                                 return_exceptions=True)
    opened = [t for t in tried if isinstance(t, tuple)]
    fatal = [t for t in tried if isinstance(t, BaseException) and not failover.try_next_host(t)]
    if fatal or not opened:
        for conn, _ in opened:
            await conn.close()
        if fatal:
            raise fatal[0]
        raise failover.all_failed([(h, t) for h, t in zip(hosts, tried, strict=True)
                                   if isinstance(t, BaseException)])  # here: all of them
    best = failover.least_loaded([load for _, load in opened])
    for i, (conn, _) in enumerate(opened):
        if i != best:
            await conn.close()
    return opened[best][0]


async def _open_with_load(host: tuple[str, int],
                          params: ConnectParams) -> tuple[Connection, int | None]:
    conn = await Connection.open(host, params)
    try:
        return conn, int(await conn.fetchval(failover.LOAD_QUERY))  # type: ignore[call-overload]
    except (errors.Error, TypeError, ValueError):
        return conn, None


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


async def _open_stream(host: str, port: int
                       ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A stream to host:port, or to the Unix-domain socket the host names (`net.unix_path`:
    a directory or an @abstract name, as libpq takes them)."""
    path = unix_path(host, port)
    if path is None:
        return await asyncio.open_connection(host, port)
    return await asyncio.open_unix_connection(path)


# How long a cancelled call waits for the server to finish the conversation before the
# connection is given up.
_CANCEL_GRACE = 10.0
_CANCEL_RETRY = 1.0


class _CancelIgnored(Exception):
    """The server went on with a statement after every cancel request of the grace period."""


class Connection:
    """An asyncio session with one server."""

    def __init__(self, host: tuple[str, int], params: ConnectParams,
                 reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.host, self.port = host
        self.params = params
        self.session = core.Session(params.statement_cache_size, params.binary_results)
        self._reader, self._writer = reader, writer
        self._lock = asyncio.Lock()
        self._closed = False
        self._tx_depth = 0
        self._cursors: weakref.WeakSet = weakref.WeakSet()  # cursors with open portals
        self._listeners: dict[str, list[Callable]] = {}
        self._idle_reader: asyncio.Task | None = None  # reads NOTIFYs while nothing runs

    @classmethod
    async def open(cls, host: tuple[str, int], params: ConnectParams) -> Connection:
        """Connects, negotiates TLS and authenticates, within `connect_timeout` seconds
        (a server that accepts but never answers counts as down)."""
        try:
            async with asyncio.timeout(params.connect_timeout):
                return await cls._open(host, params)
        except TimeoutError as e:
            raise OperationalError(f"timeout connecting to {host[0]}:{host[1]}") from e

    @classmethod
    async def _open(cls, host: tuple[str, int], params: ConnectParams) -> Connection:
        reader, writer = await _open_stream(host[0], host[1])
        try:
            if params.sslmode != "disable" and unix_path(host[0], host[1]) is None:
                writer.write(p.ssl_request())
                if tls_answer(await reader.readexactly(1), params.sslmode):
                    await writer.start_tls(ssl_context(params.sslmode, params.sslrootcert),
                                           server_hostname=host[0])
            conn = cls(host, params, reader, writer)
            await conn._drive(core.startup(conn.session, params.user, params.password,
                                           params.startup_params()))
            return conn
        except asyncio.IncompleteReadError as e:
            writer.close()
            raise OperationalError(f"the server closed the connection: {e}") from e
        except BaseException:
            writer.close()
            raise

    async def _drive(self, conv: core.Conversation) -> Any:  # the conversation's result
        async with self._lock:
            if self._closed:
                raise InterfaceError("the connection is closed")
            await self._stop_idle_reader()
            try:
                return await self._drive_locked(conv)
            finally:
                self._dispatch()
                if self._listeners and not self._closed:
                    self._idle_reader = asyncio.ensure_future(self._read_idle())

    async def _drive_locked(self, conv: core.Conversation) -> Any:
        if self.session.status == "I":
            self._cursors.clear()  # portals do not outlive their transaction
        self.session.hold_closes = bool(self._cursors)
        try:
            try:
                return await self._pump(conv, next(conv))
            except asyncio.CancelledError as e:
                if not self.session.pid:  # still starting up: nothing to cancel or keep
                    self._abort()
                    raise
                cancelled = e
            # A timeout, say. Stop the statement on the server and read the rest of the
            # conversation, so that the connection stays in step and usable.
            try:
                await self._finish_cancelled(conv)
            except errors.DatabaseError:
                pass  # most likely 57014, from our own cancel
        except _CancelIgnored as e:
            self._abort()
            raise OperationalError(str(e)) from e
        except (OSError, asyncio.IncompleteReadError) as e:
            self._abort()
            raise OperationalError(f"connection to the server lost: {e}") from e
        except errors.DatabaseError:
            raise  # the server's error, raised at ReadyForQuery: the session goes on
        except BaseException:
            # Broken midway, cancelled twice, or the server did not finish within the
            # grace period after a cancel: the rest of the conversation is still on the
            # wire, so the connection cannot be used any more.
            self._abort()
            raise
        raise cancelled

    async def _pump(self, conv: core.Conversation, req: object) -> Any:
        """Feeds the conversation messages and sends what it yields; returns its result."""
        try:
            while True:
                if req is core.RECV:
                    req = conv.send(await self._recv())
                else:
                    self._writer.write(req)  # type: ignore[arg-type]
                    req = conv.send(None)
        except StopIteration as stop:
            return stop.value

    # ------------------------------------------------------------ LISTEN / NOTIFY

    async def add_listener(self, channel: str, callback: Callable) -> None:
        """Calls `callback(connection, pid, channel, payload)` for each NOTIFY on `channel`,
        also while the connection is idle (a coroutine function's result is scheduled)."""
        if channel not in self._listeners:
            # Registered first: a notification that comes with the LISTEN's own reply
            # (the server sends pending ones before ReadyForQuery) reaches the callback.
            self._listeners[channel] = [callback]
            try:
                await self.execute("LISTEN " + _ident(channel))
            except BaseException:
                callbacks = self._listeners.get(channel, [])
                if callback in callbacks:
                    callbacks.remove(callback)
                if not callbacks:
                    self._listeners.pop(channel, None)
                raise
        else:
            self._listeners[channel].append(callback)
        if self._idle_reader is None and not self._lock.locked():
            self._idle_reader = asyncio.ensure_future(self._read_idle())

    async def remove_listener(self, channel: str, callback: Callable) -> None:
        """Stops calling `callback` for `channel` (UNLISTEN after the last one)."""
        callbacks = self._listeners.get(channel, [])
        if callback in callbacks:
            callbacks.remove(callback)
        if channel in self._listeners and not callbacks:
            del self._listeners[channel]
            await self.execute("UNLISTEN " + _ident(channel))

    def _dispatch(self) -> None:
        notes = self.session.notifies
        if not notes:
            return
        self.session.notifies = []
        for pid, channel, payload in notes:
            for callback in list(self._listeners.get(channel, ())):
                try:
                    res = callback(self, pid, channel, payload)
                    if asyncio.iscoroutine(res):
                        asyncio.ensure_future(res)
                except Exception as e:  # noqa: BLE001 - a listener's bug must not break the call
                    asyncio.get_running_loop().call_exception_handler(
                        {"message": f"listener for {channel!r} failed", "exception": e})

    async def _read_idle(self) -> None:
        """Waits for NotificationResponse (and other asynchronous messages) between calls."""
        try:
            while True:
                kind, payload = await self._recv()
                if kind not in (p.NOTIFICATION, p.PARAMETER_STATUS, p.NOTICE_RESPONSE):
                    raise InterfaceError(f"unexpected message {kind!r} while idle")
                core.handle_async_message(self.session, kind, payload)
                self._dispatch()
        except asyncio.CancelledError:
            raise
        except (errors.Error, OSError, asyncio.IncompleteReadError):
            self._abort()  # the server went away (or spoke out of turn) while we were idle

    async def _stop_idle_reader(self) -> None:
        task, self._idle_reader = self._idle_reader, None
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise  # we were cancelled ourselves, not just the reader

    async def _finish_cancelled(self, conv: core.Conversation) -> None:
        """Cancels the running statement and reads the rest of its conversation.

        The cancel is sent again every `_CANCEL_RETRY` seconds until the reply ends: a
        server drops a cancel that arrives while the backend has not yet read the query
        (it is idle then), which happens on a loaded machine. A repeat is harmless, as
        each cancel request has been delivered by the time `cancel()` returns, so none
        can reach a later statement."""
        await self._cancel_quietly()
        pump = asyncio.ensure_future(self._pump(conv, core.RECV))
        deadline = asyncio.get_running_loop().time() + _CANCEL_GRACE
        try:
            while not (await asyncio.wait({pump}, timeout=_CANCEL_RETRY))[0]:
                if asyncio.get_running_loop().time() >= deadline:
                    raise _CancelIgnored(
                        f"the server did not end the cancelled statement within "
                        f"{_CANCEL_GRACE:g} s; the connection was closed")
                await self._cancel_quietly()
        finally:
            if not pump.done():
                pump.cancel()
                with contextlib.suppress(BaseException):
                    await pump
        pump.result()

    async def _cancel_quietly(self) -> None:
        """On a cancelled await (a timeout, say): asks the server to stop the statement,
        so that the conversation can finish and the connection stays usable."""
        if self.session.pid:
            with contextlib.suppress(OSError, asyncio.TimeoutError):
                await asyncio.wait_for(self.cancel(), _CANCEL_GRACE)

    async def _recv(self) -> tuple[bytes, bytes]:
        while (msg := self.session.reader.next()) is None:
            data = await self._reader.read(262144)
            if not data:
                self._abort()
                raise OperationalError("the server closed the connection")
            self.session.reader.feed(data)
        return msg

    def _abort(self) -> None:
        self._closed = True
        self._writer.close()

    async def _prepare(self, sql: str, oids: tuple[int, ...]) -> core.Prepared:
        stmt = self.session.cached(sql, oids)
        if stmt is None:
            name = self.session.next_name("s") if self.session.cache_size > 0 else ""
            stmt = await self._drive(core.prepare(self.session, name, sql, oids))
            self.session.remember(stmt, oids)
        return stmt

    async def _run(self, out: bytes, results: list[core.Result],
                   copy: core.CopyIO | None = None) -> list[core.Result]:
        out = self.session.pending_closes() + out
        return await self._drive(core.run(self.session, out, results, 1, copy))

    async def _execute(self, sql: str, args: Sequence, max_rows: int = 0) -> core.Result:
        oids, encoded = core.encode_params(args)
        while True:
            stmt = await self._prepare(sql, oids)
            out = core.execute_message(self.session, stmt, encoded, "", max_rows) + p.SYNC
            try:
                return (await self._run(out, [core.new_result(stmt)]))[0]
            except errors.DatabaseError as e:
                if not core.is_stale(e):
                    raise
                self.session.forget(sql, oids)
                if self.is_in_transaction():
                    raise  # the transaction failed with it: only the caller can retry
                # Autocommit: the statement changed under its cached plan; prepare it again.

    @property
    def json_loads(self) -> Callable[[str], object] | None:
        """The function decoding json/jsonb values (None: json.loads)."""
        return self.session.json_loads

    @json_loads.setter
    def json_loads(self, fn: Callable[[str], object] | None) -> None:
        self.session.json_loads = fn

    # ------------------------------------------------------------ asyncpg-style API

    async def execute(self, query: str, *args: object) -> str:
        """Runs a statement (or several, without arguments); returns the last command tag."""
        if args:
            return (await self._execute(query, args)).tag or ""
        results = await self._run(p.query(query), [])
        return (results[-1].tag or "") if results else ""

    async def executemany(self, query: str, args: Iterable[Sequence]) -> None:
        """Runs a statement for each argument tuple, pipelined with a single Sync."""
        rows = [core.encode_params(a)[1] for a in args]
        for oids, run in core.batch_runs(rows):
            stmt = await self._prepare(query, oids)
            out = core.execute_many(self.session, stmt, run) + p.SYNC
            await self._run(out, [core.new_result(stmt) for _ in run])

    async def fetch(self, query: str, *args: object) -> list[Record]:
        """Returns every row of a query."""
        return Record.wrap(await self._execute(query, args))

    async def fetchrow(self, query: str, *args: object) -> Record | None:
        """Returns the first row (asking the server for just one), or None."""
        rows = Record.wrap(await self._execute(query, args, max_rows=1))
        return rows[0] if rows else None

    async def fetchval(self, query: str, *args: object, column: int = 0) -> object:
        """Returns one value of the first row, or None when there is no row."""
        row = await self.fetchrow(query, *args)
        return None if row is None else row[column]

    async def prepare(self, query: str) -> PreparedStatement:
        """Prepares a statement on the server (its parameter types are inferred there).

        It gets its own name, outside the statement cache, so that neither cache
        eviction nor DDL invalidation can close it under its holder.
        """
        name = self.session.next_name("ps")
        stmt = await self._drive(core.prepare(self.session, name, query, ()))
        return PreparedStatement(self, stmt)

    def table(self, name: str) -> Table:
        """Returns the direct (no SQL per row) API of a table (driver/aio/table.py)."""
        from cumulo.driver.aio.table import Table  # NB: here, so that pyarrow loads only when used

        return Table(self, name)

    def transaction(self, isolation: str | None = None, readonly: bool = False) -> Transaction:
        """Returns an async context manager running its block in a transaction (or savepoint)."""
        return Transaction(self, isolation, readonly)

    def cursor(self, query: str, *args: object, prefetch: int | None = None) -> CursorFactory:
        """Returns an async iterator over a query's rows, fetched `prefetch` at a time;
        `await` it for a Cursor to fetch from by hand."""
        return CursorFactory(self, query, args, prefetch or max(self.params.fetch_size, 1))

    async def copy_to(self, query: str, write) -> str:  # noqa: ANN001
        """Runs COPY ... TO STDOUT, passing each chunk of data to `write`."""
        results = await self._run(p.query(query), [], core.CopyIO(write=write))
        return results[-1].tag or ""

    async def copy_from(self, query: str, read) -> str:  # noqa: ANN001
        """Runs COPY ... FROM STDIN with data from `read(n)`."""
        results = await self._run(p.query(query), [], core.CopyIO(read=read))
        return results[-1].tag or ""

    async def copy_records_to_table(self, table_name: str, *, records: Iterable[Sequence],
                                    columns: Sequence[str] | None = None,
                                    schema_name: str | None = None) -> str:
        """Loads rows into a table with one COPY (see copyrows.py); returns the COPY tag."""
        sql = copyrows.copy_statement(table_name, columns, schema_name)
        return await self.copy_from(sql, copyrows.ChunkReader(records).read)

    async def cancel(self) -> None:
        """Asks the server to cancel what this connection is running."""
        reader, writer = await _open_stream(self.host, self.port)
        writer.write(p.cancel_request(self.session.pid, self.session.secret))
        await writer.drain()
        await reader.read(1)
        writer.close()

    def is_in_transaction(self) -> bool:
        return self.session.status != "I"

    def is_closed(self) -> bool:
        return self._closed

    def get_server_pid(self) -> int:
        return self.session.pid

    def get_settings(self) -> dict[str, str]:
        return dict(self.session.parameters)

    async def close(self) -> None:
        """Closes the connection."""
        if self._closed:
            return
        await self._stop_idle_reader()
        try:
            self._writer.write(p.TERMINATE)
            await self._writer.drain()
        except OSError:
            pass
        self._abort()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()


class PreparedStatement:
    """A statement prepared on the server, run with different arguments."""

    def __init__(self, conn: Connection, stmt: core.Prepared):
        self._conn, self._stmt = conn, stmt

    def get_parameters(self) -> tuple[int, ...]:
        """Returns the parameter type OIDs the server inferred."""
        return self._stmt.param_oids

    def get_attributes(self) -> list[tuple[str, int]]:
        """Returns (name, type oid) of each result column."""
        return [(c[0], c[3]) for c in self._stmt.columns or ()]

    async def _run(self, args: Sequence, max_rows: int = 0) -> core.Result:
        s = self._conn.session
        encoded = types.encode_for(args, self._stmt.param_oids)
        out = core.execute_message(s, self._stmt, encoded, "", max_rows) + p.SYNC
        return (await self._conn._run(out, [core.new_result(self._stmt)]))[0]

    async def fetch(self, *args: object) -> list[Record]:
        """Returns every row."""
        return Record.wrap(await self._run(args))

    async def fetchrow(self, *args: object) -> Record | None:
        """Returns the first row, or None."""
        rows = Record.wrap(await self._run(args, 1))
        return rows[0] if rows else None

    async def fetchval(self, *args: object, column: int = 0) -> object:
        """Returns one value of the first row."""
        row = await self.fetchrow(*args)
        return None if row is None else row[column]

    async def executemany(self, args: Iterable[Sequence]) -> None:
        """Runs the statement once per argument tuple in one pipeline."""
        s = self._conn.session
        rows = [types.encode_for(r, self._stmt.param_oids) for r in args]
        out = core.execute_many(s, self._stmt, rows) + p.SYNC
        await self._conn._run(out, [core.new_result(self._stmt) for _ in rows])


class Transaction:
    """`async with conn.transaction():` BEGIN/COMMIT, or a savepoint when nested."""

    def __init__(self, conn: Connection, isolation: str | None, readonly: bool):
        self._conn, self._isolation, self._readonly = conn, isolation, readonly
        self._savepoint: str | None = None

    async def start(self) -> None:
        """Begins the transaction or sets the savepoint."""
        conn = self._conn
        if conn._tx_depth:
            self._savepoint = conn.session.next_name("sp")
            await conn.execute(f"SAVEPOINT {self._savepoint}")
        else:
            sql = "BEGIN"
            if self._isolation:
                sql += " ISOLATION LEVEL " + self._isolation.upper().replace("_", " ")
            if self._readonly:
                sql += " READ ONLY"
            await conn.execute(sql)
        conn._tx_depth += 1

    async def commit(self) -> None:
        """Commits (or releases the savepoint)."""
        self._conn._tx_depth -= 1
        if self._savepoint:
            await self._conn.execute(f"RELEASE SAVEPOINT {self._savepoint}")
        else:
            await self._conn.execute("COMMIT")

    async def rollback(self) -> None:
        """Rolls back (to the savepoint)."""
        self._conn._tx_depth -= 1
        if self._savepoint:
            await self._conn.execute(f"ROLLBACK TO SAVEPOINT {self._savepoint}")
        else:
            await self._conn.execute("ROLLBACK")

    async def __aenter__(self) -> Transaction:
        await self.start()
        return self

    async def __aexit__(self, exc_type: object, *_: object) -> None:
        if self._conn.is_closed():
            return
        if exc_type is None:
            await self.commit()
        else:
            await self.rollback()
