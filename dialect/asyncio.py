"""The `cumulo+async://` SQLAlchemy dialect, over the asyncpg-style `cumulo.driver.aio`.

SQLAlchemy runs async drivers through its greenlet bridge: the dialect talks
to a synchronous-looking DBAPI connection whose methods `await_()` the real
coroutines. `cumulo.driver.aio` is asyncpg-shaped (no cursors, no implicit
transactions), so this module first gives it a small async DBAPI face:

- `_AioDBAPIConnection` begins a transaction lazily before the first
  statement unless in autocommit, the way a PEP 249 driver does, and carries
  the `autocommit`, `isolation_level` and `readonly` attributes the sync
  dialect's methods use;
- `_AioDBAPICursor` turns pyformat into `$n` with the sync driver's own
  lexer (so quoting rules are the same on both paths) and keeps the result's
  description, rowcount and rows; `_AioDBAPISSCursor` (stream_results /
  yield_per) streams through the driver's named-portal cursor instead.

Everything SQL-level, types included, is the sync `CumuloDialect`'s.
"""

from __future__ import annotations

import collections
from typing import Any

from sqlalchemy.connectors.asyncio import (
    AsyncAdapt_dbapi_connection,
    AsyncAdapt_dbapi_cursor,
    AsyncAdapt_dbapi_module,
    AsyncAdapt_dbapi_ss_cursor,
)
from sqlalchemy.util.concurrency import await_

from cumulo.dialect.base import CumuloDialect


class _AioDBAPICursor:
    """An async PEP 249 cursor on a `cumulo.driver.aio.Connection`."""

    arraysize = 1
    lastrowid = None

    def __init__(self, conn: _AioDBAPIConnection):
        self._conn = conn
        self.description: list[tuple] | None = None
        self.rowcount = -1
        self._rows: collections.deque = collections.deque()

    async def __aenter__(self) -> _AioDBAPICursor:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._rows.clear()

    async def execute(self, operation: str, parameters: Any = None) -> None:
        from cumulo.driver import core, sqlparams
        from cumulo.driver import protocol as p

        sql, args, multi = sqlparams.bind_params(operation, parameters)
        await self._conn.ensure_transaction()
        aio = self._conn.aio
        if multi and not args:
            results = await aio._run(p.query(sql), [])
            result = results[-1] if results else None
        else:
            result = await aio._execute(sql, args)
        if result is None:
            self.description, self.rowcount, self._rows = None, -1, collections.deque()
            return
        self.description = core.description(result.columns)
        self.rowcount = result.rowcount
        self._rows = collections.deque(result.rows)

    async def executemany(self, operation: str, seq_of_parameters: Any) -> None:
        """One pipelined batch per run of equal parameter types; rowcount is the total."""
        from cumulo.driver import core, sqlparams
        from cumulo.driver import protocol as p

        await self._conn.ensure_transaction()
        aio, sql, rows = self._conn.aio, operation, []
        for params in seq_of_parameters:
            sql, args, _ = sqlparams.bind_params(operation, params)
            rows.append(core.encode_params(args)[1])
        total = 0
        for oids, run in core.batch_runs(rows):
            stmt = await aio._prepare(sql, oids)
            out = b"".join(core.execute_message(aio.session, stmt, r) for r in run) + p.SYNC
            results = await aio._run(out, [core.new_result(stmt) for _ in run])
            total += sum(max(r.rowcount, 0) for r in results)
        self.description, self.rowcount = None, total
        self._rows = collections.deque()

    async def fetchone(self) -> Any:
        return self._rows.popleft() if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list:
        size = self.arraysize if size is None else size
        return [self._rows.popleft() for _ in range(min(size, len(self._rows)))]

    async def fetchall(self) -> list:
        rows = list(self._rows)
        self._rows.clear()
        return rows

    async def setinputsizes(self, *sizes: Any) -> None:
        return None

    async def nextset(self) -> None:
        return None


class _AioDBAPISSCursor(_AioDBAPICursor):
    """A server-side cursor: the driver's named-portal Cursor, `arraysize` rows per fetch."""

    arraysize = 1000

    def __init__(self, conn: _AioDBAPIConnection):
        super().__init__(conn)
        self._portal: Any = None

    async def execute(self, operation: str, parameters: Any = None) -> None:
        from cumulo.driver import core, sqlparams

        sql, args, _ = sqlparams.bind_params(operation, parameters)
        await self._conn.ensure_transaction()
        await self.close()
        self._portal = await self._conn.aio.cursor(sql, *args)
        self.description = core.description(self._portal._shape.columns)
        self.rowcount = -1

    async def fetchone(self) -> Any:
        rows = await self.fetchmany(1)
        return rows[0] if rows else None

    async def fetchmany(self, size: int | None = None) -> list:
        if self._portal is None:
            return []
        return [tuple(r) for r in await self._portal.fetch(size or self.arraysize)]

    async def fetchall(self) -> list:
        rows: list = []
        while batch := await self.fetchmany(self.arraysize):
            rows.extend(batch)
        return rows

    async def close(self) -> None:
        if self._portal is not None:
            portal, self._portal = self._portal, None
            await portal.close()

    def __aiter__(self) -> Any:
        return self._iterate()

    async def _iterate(self) -> Any:
        while batch := await self.fetchmany(self.arraysize):
            for row in batch:
                yield row


class _AioDBAPIConnection:
    """PEP 249 transaction semantics on top of the asyncpg-style connection."""

    def __init__(self, aio: Any):
        self.aio = aio
        self.autocommit = False
        self.isolation_level: str | None = None
        self.readonly = False
        self._in_tx = False

    def cursor(self) -> _AioDBAPICursor:
        return _AioDBAPICursor(self)

    async def ensure_transaction(self) -> None:
        """Sends BEGIN (with the chosen level) before the first statement of a transaction."""
        if self.autocommit or self._in_tx:
            return
        sql = "BEGIN"
        if self.isolation_level:
            sql += " ISOLATION LEVEL " + self.isolation_level
        if self.readonly:
            sql += " READ ONLY"
        await self.aio.execute(sql)
        self._in_tx = True

    async def commit(self) -> None:
        if self._in_tx:
            self._in_tx = False
            await self.aio.execute("COMMIT")

    async def rollback(self) -> None:
        if self._in_tx:
            self._in_tx = False
            await self.aio.execute("ROLLBACK")

    async def close(self) -> None:
        await self.aio.close()


class AsyncAdaptCumuloCursor(AsyncAdapt_dbapi_cursor):
    """The greenlet-side cursor SQLAlchemy calls synchronously."""

    __slots__ = ()
    _awaitable_cursor_close = True


class AsyncAdaptCumuloSSCursor(AsyncAdapt_dbapi_ss_cursor):
    """The greenlet-side server-side cursor: rows stream through a named portal."""

    __slots__ = ()

    def _make_new_cursor(self, connection: Any) -> Any:  # an _AioDBAPISSCursor
        return _AioDBAPISSCursor(connection)


class AsyncAdaptCumuloConnection(AsyncAdapt_dbapi_connection):
    """The greenlet-side connection; exposes the attributes CumuloDialect sets."""

    __slots__ = ()
    _cursor_cls = AsyncAdaptCumuloCursor
    _ss_cursor_cls = AsyncAdaptCumuloSSCursor

    @staticmethod
    def _attr(name: str) -> property:  # a property factory used in the body
        def get(self: AsyncAdaptCumuloConnection) -> Any:
            return getattr(self._connection, name)

        def put(self: AsyncAdaptCumuloConnection, value: Any) -> None:
            setattr(self._connection, name, value)

        return property(get, put)

    autocommit = _attr("autocommit")
    isolation_level = _attr("isolation_level")
    readonly = _attr("readonly")
    del _attr

    @property
    def json_loads(self) -> Any:
        return self._connection.aio.json_loads

    @json_loads.setter
    def json_loads(self, fn: Any) -> None:
        self._connection.aio.json_loads = fn

    def terminate(self) -> None:
        self._connection.aio._abort()


class CumuloAdaptDBAPI(AsyncAdapt_dbapi_module):
    """The module-like object SQLAlchemy uses as the DBAPI: errors and `connect`."""

    def __init__(self) -> None:
        import cumulo.driver
        import cumulo.driver.aio

        super().__init__(cumulo.driver.aio, dbapi_module=cumulo.driver)
        self.paramstyle = "pyformat"
        for name in dir(cumulo.driver):
            if not name.startswith("_") and name not in ("connect", "aio"):
                setattr(self, name, getattr(cumulo.driver, name))

    def connect(self, *args: Any, **kw: Any) -> AsyncAdaptCumuloConnection:
        creator = kw.pop("async_creator_fn", None) or self.driver.connect
        return await_(AsyncAdaptCumuloConnection.create(self, _connect(creator, *args, **kw)))


async def _connect(creator: Any, *args: Any, **kw: Any) -> Any:  # an _AioDBAPIConnection
    return _AioDBAPIConnection(await creator(*args, **kw))


class CumuloAsyncDialect(CumuloDialect):
    """`cumulo+async://`: CumuloDialect on the asyncio driver."""

    driver = "async"
    is_async = True
    supports_statement_cache = True
    supports_server_side_cursors = True

    @classmethod
    def import_dbapi(cls) -> Any:
        return CumuloAdaptDBAPI()

    @classmethod
    def get_pool_class(cls, url: Any) -> Any:
        from sqlalchemy import pool

        return pool.AsyncAdaptedQueuePool

    def get_driver_connection(self, connection: Any) -> Any:
        return connection._connection.aio

    def do_terminate(self, dbapi_connection: Any) -> None:
        dbapi_connection.terminate()


dialect = CumuloAsyncDialect
