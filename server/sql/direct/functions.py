"""The SQL entry points of the direct API, and pg_export_snapshot().

The direct API travels over the ordinary extended query protocol: a client
prepares `SELECT cumulo_write($1, $2, $3)` once per connection and then
binds an Arrow IPC batch as the bytea parameter for every call. The server
parses and plans that statement once (it is cached like any prepared
statement), so per batch there is no SQL text to parse, and per row there
is no SQL at all. Because the call is a statement of the session, it runs
in the connection's transaction, behind the statement's savepoint: an error
undoes the batch and leaves the transaction in the failed state, exactly
as a failing INSERT would, with the same SQLSTATEs.

| function | returns |
|---|---|
| `cumulo_write(table, op, batch)` | rows written (`op`: upsert, insert, delete) |
| `cumulo_scan(table, request)` | set of bytea, one Arrow IPC stream per batch |
| `cumulo_get(table, keys)` | one Arrow IPC stream: the rows found, in key order |
| `cumulo_describe(table)` | the table's Arrow schema (PK names in its metadata) |
| `cumulo_splits(table, n)` | set of bytea: keys cutting the table in n ranges |
| `cumulo_export_snapshot(lease_s)` | the same, valid for lease_s seconds after the transaction |
| `cumulo_read_snapshot(name, lease_s)` | the snapshot named `name`: the first caller exports its own (`readsnap.py`) |
| `pg_export_snapshot()` | the transaction's snapshot identifier, as PostgreSQL's |
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ...txn.snapexport import export_leased, export_snapshot
from ..catalog.model import Table
from ..ddl.names import get_relation, parse_qualified
from ..functions.registry import register
from ..privileges.check import check_table, current_role
from .arrowcols import rows_to_batch, table_schema, write_ipc
from .readsnap import NAMED
from .scan import key_splits, scan_batches
from .write import get_rows, write_batch


def _table(ctx: Any, name: str, want: str = "r") -> Table:
    """The table, once the current role is found to hold `want` on it (as SQL checks it)."""
    s = ctx.session
    schema, rel = parse_qualified(name)
    cat = s.catalog()
    t = get_relation(cat, schema, rel, s.search_path())
    if want:
        check_table(s, cat, current_role(s, cat), t, want)
    return t


@register("cumulo_write", args=[T.TEXT, T.TEXT, T.BYTEA], returns=T.INT8, needs_context=True,
          volatile=True)
def cumulo_write(ctx: Any, table: str, op: str, batch: bytes) -> int:
    """Upserts, inserts or deletes an Arrow batch of rows in the transaction."""
    want = {"insert": "a", "delete": "d"}.get(op, "aw")
    return write_batch(ctx.session, _table(ctx, table, want), op, bytes(batch))


@register("cumulo_scan", args=[T.TEXT, T.TEXT], returns=T.BYTEA, needs_context=True,
          volatile=True, strict=False, set_returning=True)
def cumulo_scan(ctx: Any, table: str, request: str | None) -> Iterator[bytes]:
    """Scans a table (range, projection, filters) at the snapshot, as Arrow IPC batches."""
    return list(scan_batches(ctx.session, _table(ctx, table), request))  # type: ignore[return-value]


@register("cumulo_get", args=[T.TEXT, T.BYTEA], returns=T.BYTEA, needs_context=True,
          volatile=True)
def cumulo_get(ctx: Any, table: str, keys: bytes) -> bytes:
    """Reads rows by primary key; absent keys are left out."""
    t = _table(ctx, table)
    positions = [c.attnum - 1 for c in t.live_columns]
    rows = [r for r in get_rows(ctx.session, t, bytes(keys)) if r is not None]
    schema = table_schema(t)
    if len(positions) != len(t.columns):
        rows = [tuple(r[i] for i in positions) for r in rows]
    return write_ipc(rows_to_batch(t, positions, rows, schema), schema)


@register("cumulo_describe", args=[T.TEXT], returns=T.BYTEA, needs_context=True, volatile=True)
def cumulo_describe(ctx: Any, table: str) -> bytes:
    """Returns the table's Arrow schema (IPC-serialised)."""
    return table_schema(_table(ctx, table, "")).serialize().to_pybytes()


@register("cumulo_splits", args=[T.TEXT, T.INT4], returns=T.BYTEA, needs_context=True,
          volatile=True, set_returning=True)
def cumulo_splits(ctx: Any, table: str, n: int) -> list[bytes]:
    """Returns keys cutting the table into n ranges of about equal size, at the snapshot."""
    return key_splits(ctx.session, _table(ctx, table), n)


@register("cumulo_export_snapshot", args=[T.FLOAT8], returns=T.TEXT, needs_context=True,
          volatile=True)
def cumulo_export_snapshot(ctx: Any, lease_seconds: float) -> str:
    """Exports the transaction's snapshot, valid for `lease_seconds` even after it ends.

    For readers whose parts start later in other processes (Spark partitions).
    """
    if not 0 < lease_seconds <= 86400:
        raise InvalidParameterValue("the lease must be between 0 and 86400 seconds")
    return export_leased(ctx.session.ensure_txn(), lease_seconds)


@register("cumulo_read_snapshot", args=[T.TEXT, T.FLOAT8], returns=T.TEXT, needs_context=True,
          volatile=True)
def cumulo_read_snapshot(ctx: Any, name: str, lease_seconds: float) -> str:
    """The snapshot shared under `name`; the first caller exports its transaction's (leased)."""
    if not 0 < lease_seconds <= 86400:
        raise InvalidParameterValue("the lease must be between 0 and 86400 seconds")
    held = NAMED.get(name)
    if held is not None:
        return held
    return NAMED.put(name, export_leased(ctx.session.ensure_txn(), lease_seconds), lease_seconds)


@register("pg_export_snapshot", args=[], returns=T.TEXT, needs_context=True, volatile=True)
def pg_export_snapshot(ctx: Any) -> str:
    """Exports the transaction's snapshot for SET TRANSACTION SNAPSHOT (PostgreSQL's)."""
    return export_snapshot(ctx.session.ensure_txn())

