"""The asyncio connection, asyncpg style, over the same sans-I/O core as the sync driver.

`Connection._drive` feeds the core's conversations from an asyncio stream.
Writes are not awaited with drain(): the event loop keeps reading replies
while a long pipeline goes out, so neither side can block the other.
Queries use PostgreSQL's own `$n` placeholders, and every statement runs in
autocommit unless inside `async with conn.transaction()`, as in asyncpg.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence

from cumulo.driver import core, errors, failover, types
from cumulo.driver import protocol as p
from cumulo.driver.aio.record import Record
from cumulo.driver.errors import InterfaceError, OperationalError
from cumulo.driver.net import ssl_context, tls_answer
from cumulo.driver.url import ConnectParams, make_params


async def connect(dsn: str | None = None, **kwargs: object) -> Connection:
    """Opens a connection from a URL and/or keywords; tries hosts as the sync driver does."""
    params = make_params(dsn, **kwargs)
    hosts = list(params.hosts)
    if params.load_balance and len(hosts) > 1:
        loads = await asyncio.gather(*(_probe_load(h, params) for h in hosts))
        hosts = failover.order_by_load(hosts, list(loads))
    attempts: list[tuple[tuple[str, int], BaseException]] = []
    for host in hosts:
        try:
            return await Connection.open(host, params)
        except (OSError, errors.Error) as e:
            attempts.append((host, e))
            if not failover.try_next_host(e):
                raise
    raise failover.all_failed(attempts)


async def _probe_load(host: tuple[str, int], params: ConnectParams) -> int | None:
    try:
        conn = await Connection.open(host, params)
    except (OSError, errors.Error):
        return None
    try:
        return int(await conn.fetchval(failover.LOAD_QUERY))
    except errors.Error:
        return None
    finally:
        await conn.close()


class Connection:
    """An asyncio session with one server."""

    def __init__(self, host: tuple[str, int], params: ConnectParams,
                 reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.host, self.port = host
        self.params = params
        self.session = core.Session(params.statement_cache_size, params.binary_results)
        self._reader, self._writer = reader, writer
        self._messages = p.MessageReader()
        self._lock = asyncio.Lock()
        self._closed = False
        self._tx_depth = 0

    @classmethod
    async def open(cls, host: tuple[str, int], params: ConnectParams) -> Connection:
        """Connects, negotiates TLS and authenticates."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host[0], host[1]), params.connect_timeout)
        try:
            if params.sslmode != "disable":
                writer.write(p.ssl_request())
                if tls_answer(await reader.readexactly(1), params.sslmode):
                    await writer.start_tls(ssl_context(params.sslmode, params.sslrootcert),
                                           server_hostname=host[0])
            conn = cls(host, params, reader, writer)
            await conn._drive(core.startup(conn.session, params.user, params.password,
                                           params.startup_params()))
            return conn
        except BaseException:
            writer.close()
            raise

    async def _drive(self, conv: core.Conversation) -> object:
        async with self._lock:
            if self._closed:
                raise InterfaceError("the connection is closed")
            try:
                req = next(conv)
                while True:
                    if req is core.RECV:
                        req = conv.send(await self._recv())
                    else:
                        self._writer.write(req)  # type: ignore[arg-type]
                        req = conv.send(None)
            except StopIteration as stop:
                return stop.value
            except (OSError, asyncio.IncompleteReadError) as e:
                self._abort()
                raise OperationalError(f"connection to the server lost: {e}") from e

    async def _recv(self) -> tuple[bytes, bytes]:
        while (msg := self._messages.next()) is None:
            data = await self._reader.read(262144)
            if not data:
                self._abort()
                raise OperationalError("the server closed the connection")
            self._messages.feed(data)
        return msg

    def _abort(self) -> None:
        self._closed = True
        self._writer.close()

    async def _prepare(self, sql: str, oids: tuple[int, ...]) -> core.Prepared:
        stmt = self.session.cached(sql, oids)
        if stmt is None:
            name = self.session.next_name("s") if self.session.cache_size > 0 else ""
            stmt = await self._drive(core.prepare(self.session, name, sql, oids))  # type: ignore
            self.session.remember(stmt, oids)
        return stmt

    async def _run(self, out: bytes, results: list[core.Result],
                   copy: core.CopyIO | None = None) -> list[core.Result]:
        out = self.session.pending_closes() + out
        return await self._drive(core.run(self.session, out, results, 1, copy))  # type: ignore

    async def _execute(self, sql: str, args: Sequence, max_rows: int = 0) -> core.Result:
        oids, encoded = core.encode_params(args)
        stmt = await self._prepare(sql, oids)
        out = core.execute_message(self.session, stmt, encoded, "", max_rows) + p.SYNC
        return (await self._run(out, [core.new_result(stmt)]))[0]

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
            out = b"".join(core.execute_message(self.session, stmt, r) for r in run) + p.SYNC
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
        """Prepares a statement on the server (its parameter types are inferred there)."""
        stmt = await self._prepare(query, ())
        return PreparedStatement(self, stmt)

    def transaction(self, isolation: str | None = None, readonly: bool = False) -> Transaction:
        """Returns an async context manager running its block in a transaction (or savepoint)."""
        return Transaction(self, isolation, readonly)

    def cursor(self, query: str, *args: object, prefetch: int | None = None) -> Cursor:
        """Returns an async iterator over a query's rows, fetched `prefetch` at a time."""
        return Cursor(self, query, args, prefetch or max(self.params.fetch_size, 1))

    async def copy_to(self, query: str, write) -> str:  # noqa: ANN001
        """Runs COPY ... TO STDOUT, passing each chunk of data to `write`."""
        results = await self._run(p.query(query), [], core.CopyIO(write=write))
        return results[-1].tag or ""

    async def copy_from(self, query: str, read) -> str:  # noqa: ANN001
        """Runs COPY ... FROM STDIN with data from `read(n)`."""
        results = await self._run(p.query(query), [], core.CopyIO(read=read))
        return results[-1].tag or ""

    async def cancel(self) -> None:
        """Asks the server to cancel what this connection is running."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
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
        out = b"".join(core.execute_message(s, self._stmt, r) for r in rows) + p.SYNC
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


class Cursor:
    """Streams a query's rows through a named portal, `prefetch` rows per round trip."""

    def __init__(self, conn: Connection, query: str, args: Sequence, prefetch: int):
        self._conn, self._query, self._args, self._prefetch = conn, query, args, prefetch

    async def __aiter__(self) -> AsyncIterator[Record]:
        conn = self._conn
        if not conn.is_in_transaction():
            raise InterfaceError("cursor cannot be created outside of a transaction")
        oids, encoded = core.encode_params(self._args)
        stmt = await conn._prepare(self._query, oids)
        portal = conn.session.next_name("p")
        res = core.new_result(stmt)
        out = core.execute_message(conn.session, stmt, encoded, portal, self._prefetch) + p.SYNC
        await conn._run(out, [res])
        while True:
            for row in Record.wrap(res):
                yield row
            if not res.suspended:
                break
            res = core.Result(res.columns, res.decoders)
            await conn._run(core.fetch_message(conn.session, portal, self._prefetch), [res])
        await conn._run(p.close(b"P", portal) + p.SYNC, [])
