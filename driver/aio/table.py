"""The asyncio twin of `cumulo.driver.table`: the direct table API on an aio connection.

Same calls, same payloads, same transaction semantics; only the I/O is
awaited. Statements use the aio driver's `$n` placeholders and run in the
connection's transaction (`async with conn.transaction():`), or in
autocommit outside one, as every aio statement does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from cumulo.driver.table import (
    chunks,
    from_ipc,
    key_table,
    primary_key,
    scan_request,
    to_arrow,
    to_ipc,
)

if TYPE_CHECKING:
    from cumulo.driver.aio.connection import Connection

WRITE_SQL = "SELECT cumulo_write($1, $2, $3)"
SCAN_SQL = "SELECT cumulo_scan($1, $2)"
GET_SQL = "SELECT cumulo_get($1, $2)"
DESCRIBE_SQL = "SELECT cumulo_describe($1)"
SPLITS_SQL = "SELECT cumulo_splits($1, $2)"


class Table:
    """One table of an aio connection, reached through the direct API."""

    def __init__(self, conn: Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self._schema: pa.Schema | None = None

    async def schema(self) -> pa.Schema:
        """The table's Arrow schema (PK names in its metadata)."""
        if self._schema is None:
            raw = await self.conn.fetchval(DESCRIBE_SQL, self.name)
            self._schema = pa.ipc.read_schema(pa.py_buffer(raw))
        return self._schema

    async def _write(self, op: str, data: Any) -> int:
        if isinstance(data, pa.Table | pa.RecordBatch):
            table = to_arrow(data)
        else:
            table = to_arrow(data, await self.schema())
        n = 0
        for payload in chunks(table):
            n += int(await self.conn.fetchval(WRITE_SQL, self.name, op, payload))  # type: ignore[call-overload]
        return n

    async def upsert(self, data: Any) -> int:
        """Inserts rows or replaces them by primary key; returns how many."""
        return await self._write("upsert", data)

    async def insert(self, data: Any) -> int:
        """Inserts rows (23505 if a key exists); returns how many."""
        return await self._write("insert", data)

    async def delete(self, keys: Any) -> int:
        """Deletes rows by primary key; returns how many."""
        schema = await self.schema()
        return await self._write("delete", key_table(keys, primary_key(schema), schema))

    async def get_many(self, keys: Any) -> pa.Table:
        """Reads rows by primary key; absent keys are left out."""
        schema = await self.schema()
        raw = await self.conn.fetchval(GET_SQL, self.name,
                                       to_ipc(key_table(keys, primary_key(schema), schema)))
        return from_ipc(raw)  # type: ignore[arg-type]

    async def get(self, key: Any) -> dict[str, Any] | None:
        """Reads one row by primary key; None when there is none."""
        rows = (await self.get_many([key])).to_pylist()
        return rows[0] if rows else None

    async def scan(self, start: Any = None, end: Any = None, columns: Sequence[str] | None = None,
                   where: Iterable[Sequence[Any]] | None = None, *, lo: bytes | None = None,
                   hi: bytes | None = None, ordered: bool = True
                   ) -> AsyncIterator[pa.RecordBatch]:
        """Yields record batches in primary-key order (any order with `ordered=False`: the
        server may read its columnar copy) at the transaction's snapshot."""
        rows = await self.conn.fetch(SCAN_SQL, self.name,
                                     scan_request(start, end, columns, where, lo, hi, ordered))
        for r in rows:
            for b in from_ipc(r[0]).to_batches():  # type: ignore[arg-type]
                yield b

    async def read(self, start: Any = None, end: Any = None, columns: Sequence[str] | None = None,
                   where: Iterable[Sequence[Any]] | None = None, *, lo: bytes | None = None,
                   hi: bytes | None = None, ordered: bool = True) -> pa.Table:
        """The scan collected into one table (with the schema even when no row matches)."""
        rows = await self.conn.fetch(SCAN_SQL, self.name,
                                     scan_request(start, end, columns, where, lo, hi, ordered))
        return pa.concat_tables([from_ipc(r[0]) for r in rows])  # type: ignore[arg-type]

    async def splits(self, n: int) -> list[bytes]:
        """Keys that cut the table into n ranges of about equal size."""
        return [bytes(r[0]) for r in await self.conn.fetch(SPLITS_SQL, self.name, n)]  # type: ignore[call-overload]
