"""The direct table API: Arrow column batches in and out of a table, without SQL per row.

    conn = cumulo.driver.connect("cumulo://cumulo@127.0.0.1:5433/cumulo")
    t = conn.table("tickdata")
    t.upsert(arrow_table_or_rows)      # insert or replace by primary key
    t.insert(rows); t.delete(keys); t.get(key)
    for batch in t.scan(start=None, end=None, columns=None, where=None): ...
    conn.commit()

Each call is one execution of a statement the connection prepared once
(`SELECT cumulo_write($1, $2, $3)` and friends), with the batch as an
Arrow IPC bytea parameter; the server converts whole columns and writes
them through its transaction layer with one conflict check per batch. So
the calls join the connection's transaction like any statement: they see
its snapshot, are undone by rollback(), follow its isolation level, and
fail with the same SQLSTATE-carrying errors (23505 on a duplicate insert,
40001 on a write conflict, 25006 in a read-only transaction...).

`where` takes conjunctive filters as tuples, evaluated on the storage node:

    >>> scan_request(None, None, ["ts", "px"], [("px", ">", 1.5), ("sym", "in", ["A", "B"])])
    '{"columns": ["ts", "px"], "filters": [["cmp", ">", "px", 1.5], ["in", "sym", ["A", "B"]]]}'
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from cumulo.driver.errors import ProgrammingError

if TYPE_CHECKING:
    from cumulo.driver.connection import Connection

CHUNK_ROWS = 131072  # rows per call: bounds the server's memory per statement
WRITE_SQL = "SELECT cumulo_write(%s, %s, %s)"
SCAN_SQL = "SELECT cumulo_scan(%s, %s)"
GET_SQL = "SELECT cumulo_get(%s, %s)"
DESCRIBE_SQL = "SELECT cumulo_describe(%s)"
SPLITS_SQL = "SELECT cumulo_splits(%s, %s)"
_OPS = {"=": "=", "==": "=", "!=": "<>", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def to_arrow(data: Any, schema: pa.Schema | None = None) -> pa.Table:
    """Accepts an Arrow table or batch, a pandas DataFrame, a dict of columns, or rows.

    Rows may be mappings (column -> value) or tuples in the order of `schema`
    (the table's columns, fetched once per Table).
    """
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, Mapping):
        return pa.table(dict(data))
    if type(data).__name__ == "DataFrame" and hasattr(data, "columns"):
        return pa.Table.from_pandas(data, preserve_index=False)
    rows = list(data)
    if not rows:
        return pa.table({})
    if isinstance(rows[0], Mapping):
        return pa.Table.from_pylist(rows)
    if schema is None:
        raise ProgrammingError("rows as tuples need the table's schema")
    width = len(rows[0])
    fields = list(schema)[:width]
    cols = list(zip(*rows, strict=True))
    return pa.table({f.name: pa.array(c, type=f.type) for f, c in zip(fields, cols, strict=True)})


def to_ipc(table: pa.Table) -> bytes:
    """Serialises an Arrow table as one IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def from_ipc(data: bytes) -> pa.Table:
    """Reads one IPC stream into a table."""
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def chunks(table: pa.Table, rows: int = CHUNK_ROWS) -> Iterator[bytes]:
    """Cuts a table into IPC payloads of at most `rows` rows."""
    for off in range(0, max(table.num_rows, 1), rows):
        yield to_ipc(table.slice(off, rows))


def _json_value(v: Any) -> Any:
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, list | tuple | set | frozenset):
        return [_json_value(x) for x in v]
    return v


_RAW = frozenset({"cmp", "in", "null", "notnull", "prefix", "not"})


def filter_json(f: Sequence[Any]) -> list[Any]:
    """Translates one `where` tuple into the server's filter form (see server/sql/direct/scan.py).

    A list already in that form (`["cmp", ">", "px", 1]`) passes as it is.
    """
    if isinstance(f, list) and f and f[0] in _RAW:
        return f
    if len(f) == 2 and f[0] == "not":
        return ["not", filter_json(f[1])]
    if len(f) == 2 and isinstance(f[1], str) and f[1].lower() in ("is null", "is not null"):
        return ["null" if f[1].lower() == "is null" else "notnull", f[0]]
    if len(f) != 3:
        raise ProgrammingError(f"a filter is (column, op, value): {f!r}")
    col, op, value = f
    op = op.lower() if isinstance(op, str) else op
    if op in _OPS:
        return ["cmp", _OPS[op], col, _json_value(value)]
    if op == "in":
        return ["in", col, _json_value(list(value))]
    if op in ("startswith", "prefix"):
        return ["prefix", col, value]
    raise ProgrammingError(f"unknown filter operator {op!r}")


def scan_request(start: Any, end: Any, columns: Sequence[str] | None,
                 where: Iterable[Sequence[Any]] | None, lo: bytes | None = None,
                 hi: bytes | None = None, ordered: bool = True) -> str:
    """Builds the JSON scan request; start/end are primary-key values (a prefix), end exclusive.

    `ordered=False` lets the server answer in any row order, from its columnar copy.
    """
    req: dict[str, Any] = {}
    if columns is not None:
        req["columns"] = list(columns)
    if start is not None:
        req["start"] = _json_value(start if isinstance(start, list | tuple) else [start])
    if end is not None:
        req["end"] = _json_value(end if isinstance(end, list | tuple) else [end])
    if lo is not None:
        req["lo"] = lo.hex()
    if hi is not None:
        req["hi"] = hi.hex()
    if where:
        req["filters"] = [filter_json(f) for f in where]
    if not ordered:
        req["ordered"] = False
    return json.dumps(req)


def key_table(keys: Any, pk: Sequence[str], schema: pa.Schema) -> pa.Table:
    """Turns keys (scalars for a one-column key, tuples, mappings or an Arrow table) into a table."""
    if isinstance(keys, pa.Table | pa.RecordBatch) or type(keys).__name__ == "DataFrame":
        return to_arrow(keys)
    keys = list(keys)
    if keys and not isinstance(keys[0], tuple | list | Mapping):
        keys = [(k,) for k in keys]
    if keys and isinstance(keys[0], Mapping):
        return pa.Table.from_pylist(keys)
    types = {f.name: f.type for f in schema}
    cols = list(zip(*keys, strict=True)) if keys else [() for _ in pk]
    return pa.table({n: pa.array(c, type=types[n]) for n, c in zip(pk, cols, strict=False)})


def primary_key(schema: pa.Schema) -> list[str]:
    """The primary-key column names recorded in a described schema's metadata."""
    raw = (schema.metadata or {}).get(b"cumulo.primary_key", b"")
    return [n for n in raw.decode().split(",") if n]


class Table:
    """One table of a connection, reached through the direct API (see the module doc)."""

    def __init__(self, conn: Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self._schema: pa.Schema | None = None

    def _one(self, sql: str, *params: Any) -> Any:
        cur = self.conn.cursor()
        cur.execute(sql, params)
        row = cur.fetchone()
        cur.close()
        return None if row is None else row[0]

    @property
    def schema(self) -> pa.Schema:
        """The table's Arrow schema (column types as the API carries them; PK in metadata)."""
        if self._schema is None:
            self._schema = pa.ipc.read_schema(pa.py_buffer(self._one(DESCRIBE_SQL, self.name)))
        return self._schema

    @property
    def primary_key(self) -> list[str]:
        """The primary-key column names (empty for a table without one)."""
        return primary_key(self.schema)

    def _write(self, op: str, data: Any) -> int:
        table = to_arrow(data, None if isinstance(data, pa.Table | pa.RecordBatch)
                         else self.schema)
        return sum(int(self._one(WRITE_SQL, self.name, op, payload))
                   for payload in chunks(table))

    def upsert(self, data: Any) -> int:
        """Inserts rows or replaces them by primary key; returns how many rows were written."""
        return self._write("upsert", data)

    def insert(self, data: Any) -> int:
        """Inserts rows (23505 if a key exists); returns how many."""
        return self._write("insert", data)

    def delete(self, keys: Any) -> int:
        """Deletes rows by primary key (scalars, tuples, mappings or a table); returns how many."""
        return self._write("delete", key_table(keys, self.primary_key, self.schema))

    def get_many(self, keys: Any) -> pa.Table:
        """Reads rows by primary key at the transaction's snapshot; absent keys are left out."""
        payload = to_ipc(key_table(keys, self.primary_key, self.schema))
        return from_ipc(self._one(GET_SQL, self.name, payload))

    def get(self, key: Any) -> dict[str, Any] | None:
        """Reads one row by primary key; None when there is none."""
        rows = self.get_many([key]).to_pylist()
        return rows[0] if rows else None

    def scan(self, start: Any = None, end: Any = None, columns: Sequence[str] | None = None,
             where: Iterable[Sequence[Any]] | None = None, *, lo: bytes | None = None,
             hi: bytes | None = None, ordered: bool = True) -> Iterator[pa.RecordBatch]:
        """Yields the rows in primary-key order as record batches, at the transaction's snapshot.

        `start`/`end` bound the primary key (end exclusive); `lo`/`hi` are raw key
        bounds from `splits()`. With `ordered=False` the rows come in any order,
        which lets the server read its columnar copy (whole columns, no row
        tuples: several times less server CPU for a large scan).
        """
        cur = self.conn.cursor()
        cur.execute(SCAN_SQL, (self.name, scan_request(start, end, columns, where, lo, hi,
                                                       ordered)))
        for (payload,) in cur:
            yield from from_ipc(payload).to_batches()
        cur.close()

    def read(self, start: Any = None, end: Any = None, columns: Sequence[str] | None = None,
             where: Iterable[Sequence[Any]] | None = None, *, lo: bytes | None = None,
             hi: bytes | None = None, ordered: bool = True) -> pa.Table:
        """`scan()` collected into one table (with the schema even when no row matches)."""
        cur = self.conn.cursor()
        cur.execute(SCAN_SQL, (self.name, scan_request(start, end, columns, where, lo, hi,
                                                       ordered)))
        parts = [from_ipc(payload) for (payload,) in cur]
        cur.close()
        return pa.concat_tables(parts)

    def splits(self, n: int) -> list[bytes]:
        """Keys that cut the table into n ranges of about equal size (for parallel scans)."""
        cur = self.conn.cursor()
        cur.execute(SPLITS_SQL, (self.name, n))
        out = [bytes(r[0]) for r in cur.fetchall()]
        cur.close()
        return out
