"""A connection pool for the asyncio API: `create_pool(dsn, min_size=, max_size=)`.

Idle connections wait in a LIFO list; `acquire()` takes one or opens a new
one while fewer than max_size exist, and otherwise waits for a release (at
most `timeout` seconds, if given).
A released connection is reset (rollback of a forgotten transaction,
`RESET ALL`, `UNLISTEN *` if it had listeners) before anyone else gets it;
a broken one is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager

from cumulo.driver import errors
from cumulo.driver.aio.connection import Connection, connect
from cumulo.driver.aio.record import Record


async def create_pool(dsn: str | None = None, *, min_size: int = 1, max_size: int = 10,
                      **kwargs: object) -> Pool:
    """Creates a pool and opens its first `min_size` connections."""
    pool = Pool(dsn, min_size, max_size, kwargs)
    await pool._fill()
    return pool


class Pool:
    """Hands out up to `max_size` connections to one database."""

    def __init__(self, dsn: str | None, min_size: int, max_size: int, kwargs: dict):
        if not 0 <= min_size <= max_size or max_size < 1:
            raise errors.InterfaceError("need 0 <= min_size <= max_size and max_size >= 1")
        self._dsn, self._kwargs = dsn, kwargs
        self.min_size, self.max_size = min_size, max_size
        self._idle: list[Connection] = []
        self._size = 0  # connections open or being opened
        self._cond = asyncio.Condition()
        self._closed = False

    async def _fill(self) -> None:
        conns = await asyncio.gather(*(self._open() for _ in range(self.min_size)))
        self._idle.extend(conns)

    async def _open(self) -> Connection:
        self._size += 1
        try:
            return await connect(self._dsn, **self._kwargs)
        except BaseException:
            self._size -= 1
            raise

    def get_size(self) -> int:
        """Returns how many connections are open (idle or in use)."""
        return self._size

    def get_idle_size(self) -> int:
        return len(self._idle)

    async def _acquire(self, timeout: float | None = None) -> Connection:
        if self._closed:
            raise errors.InterfaceError("the pool is closed")
        async with self._cond:
            try:
                await asyncio.wait_for(self._cond.wait_for(
                    lambda: self._idle or self._size < self.max_size or self._closed), timeout)
            except TimeoutError:
                raise errors.OperationalError(
                    f"no connection became free within {timeout} s") from None
            if self._closed:
                raise errors.InterfaceError("the pool is closed")
            if self._idle:
                return self._idle.pop()
            self._size += 1  # reserved now, so that waiters do not overshoot max_size
        try:
            return await connect(self._dsn, **self._kwargs)
        except BaseException:
            async with self._cond:
                self._size -= 1
                self._cond.notify()
            raise

    async def release(self, conn: Connection) -> None:
        """Returns a connection to the pool after resetting its session."""
        try:
            if not conn.is_closed():
                conn._tx_depth = 0
                reset = "ROLLBACK; RESET ALL" if conn.is_in_transaction() else "RESET ALL"
                if conn._listeners:
                    conn._listeners.clear()
                    reset += "; UNLISTEN *"
                await conn.execute(reset)
        except (errors.Error, OSError):
            await conn.close()
        async with self._cond:
            if conn.is_closed() or self._closed:
                self._size -= 1
                await conn.close()
            else:
                self._idle.append(conn)
            self._cond.notify()

    @asynccontextmanager
    async def acquire(self, timeout: float | None = None) -> AsyncIterator[Connection]:
        """`async with pool.acquire() as conn:` borrows a connection, waiting at most
        `timeout` seconds for one to be free."""
        conn = await self._acquire(timeout)
        try:
            yield conn
        finally:
            await self.release(conn)

    async def execute(self, query: str, *args: object) -> str:
        """Runs a statement on a pooled connection."""
        async with self.acquire() as conn:
            return await conn.execute(query, *args)

    async def fetch(self, query: str, *args: object) -> list[Record]:
        """Fetches rows on a pooled connection."""
        async with self.acquire() as conn:
            return await conn.fetch(query, *args)

    async def fetchrow(self, query: str, *args: object) -> Record | None:
        """Fetches the first row on a pooled connection."""
        async with self.acquire() as conn:
            return await conn.fetchrow(query, *args)

    async def executemany(self, query: str, args: Iterable[Sequence]) -> None:
        """Runs a statement per argument tuple, pipelined, on a pooled connection."""
        async with self.acquire() as conn:
            await conn.executemany(query, args)

    async def fetchval(self, query: str, *args: object) -> object:
        """Fetches one value on a pooled connection."""
        async with self.acquire() as conn:
            return await conn.fetchval(query, *args)

    async def close(self) -> None:
        """Closes idle connections now and the others when they are released."""
        self._closed = True
        async with self._cond:
            idle, self._idle = self._idle, []
            self._size -= len(idle)
            self._cond.notify_all()  # waiters learn that the pool is closed
        for conn in idle:
            await conn.close()

    async def __aenter__(self) -> Pool:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
