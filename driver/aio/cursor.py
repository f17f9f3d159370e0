"""Server-side cursors of the asyncio API, asyncpg style: `conn.cursor(query, *args)`.

A cursor is a named portal inside the connection's transaction. Iterating
the factory (`async for row in conn.cursor(...)`) fetches `prefetch` rows
per round trip, the first batch riding with the Bind; awaiting it gives a
Cursor to fetch from by hand. Open cursors are registered with their
connection so that statement Closes (cache eviction, DDL invalidation) wait:
closing a statement would close the portals made from it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from cumulo.driver import core
from cumulo.driver import protocol as p
from cumulo.driver.aio.record import Record
from cumulo.driver.errors import InterfaceError

if TYPE_CHECKING:
    from cumulo.driver.aio.connection import Connection


class CursorFactory:
    """`conn.cursor(query, *args)`: iterate it with `async for`, or `await` it for a Cursor.

    Either way the rows stream through a named portal: `prefetch` rows per
    round trip when iterating (the first batch rides with the Bind), or as
    many as asked by `Cursor.fetch(n)`.
    """

    def __init__(self, conn: Connection, query: str, args: Sequence, prefetch: int):
        self._conn, self._query, self._args, self._prefetch = conn, query, args, prefetch

    async def __aiter__(self) -> AsyncIterator[Record]:
        cur = await self._open(self._prefetch)
        try:
            while rows := await cur.fetch(self._prefetch):
                for row in rows:
                    yield row
        finally:
            await cur.close()

    def __await__(self):  # noqa: ANN204 - a generator, as __await__ must be
        return self._open(0).__await__()

    async def _open(self, first: int) -> Cursor:
        conn = self._conn
        if not conn.is_in_transaction():
            raise InterfaceError("cursor cannot be created outside of a transaction")
        oids, encoded = core.encode_params(self._args)
        stmt = await conn._prepare(self._query, oids)
        portal = conn.session.next_name("p")
        res = core.new_result(stmt)
        if first:
            out = core.execute_message(conn.session, stmt, encoded, portal, first)
        else:
            out = core.bind_message(stmt, encoded, portal)
        await conn._run(out + p.SYNC, [res])
        cur = Cursor(conn, portal, res, done=bool(first) and not res.suspended)
        if cur._done:
            conn.session.portals_to_close.append(portal)
        else:
            conn._cursors.add(cur)
        return cur


class Cursor:
    """An open portal: `await cur.fetch(n)`, `await cur.fetchrow()`, `await cur.forward(n)`."""

    def __init__(self, conn: Connection, portal: str, first: core.Result, done: bool):
        self._conn, self._portal, self._shape = conn, portal, first
        self._buffer = Record.wrap(first)
        self._done = done

    async def fetch(self, n: int) -> list[Record]:
        """Returns up to `n` more rows (fewer, or none, at the end)."""
        if n <= 0:
            raise InterfaceError("n must be greater than zero")
        rows, self._buffer = self._buffer[:n], self._buffer[n:]
        if len(rows) == n or self._done:
            return rows
        conn = self._conn
        res = core.Result(self._shape.columns, self._shape.decoders)
        await conn._run(core.fetch_message(conn.session, self._portal, n - len(rows)), [res])
        if not res.suspended:
            self._done = True
            conn._cursors.discard(self)
            # Read to the end: close it ahead of the next pipeline (PostgreSQL keeps a
            # finished portal, and its tables in use, until then).
            conn.session.portals_to_close.append(self._portal)
        return rows + Record.wrap(res)

    async def fetchrow(self) -> Record | None:
        """Returns the next row, or None at the end."""
        rows = await self.fetch(1)
        return rows[0] if rows else None

    async def forward(self, n: int) -> int:
        """Skips `n` rows; returns how many were skipped."""
        return len(await self.fetch(n)) if n > 0 else 0

    async def close(self) -> None:
        """Closes the portal (the transaction's end would too)."""
        conn = self._conn
        if not conn.is_closed() and conn.session.status == "T" and not self._done:
            conn.session.portals_to_close.append(self._portal)  # goes with the next call
        self._done, self._buffer = True, []
        conn._cursors.discard(self)
