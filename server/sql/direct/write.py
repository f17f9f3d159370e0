"""The direct API's writes: a column batch goes into the session's transaction in one go.

A batch arrives as an Arrow table. Its columns are converted once
(`arrowcols`), the table's `TableWriter` checks typmods, NOT NULL and CHECK
constraints a column at a time and encodes the keys in one pass, and the
rows reach the write set through `txn.put_bulk` / `txn.delete` in one call per
space. That call is where the transaction layer conflict-checks the whole
batch at once (and, when every key is free, holds it whole: no entry per
key in the conflict manager, see `ConflictManager.acquire_bulk`), and since KiVi places each key in its region when the write
set is applied, the batch is split by region there, not here. The writes
belong to the connection's transaction: they commit with it, are checked
for SERIALIZABLE with it, and are durable when its COMMIT returns.

Columns a batch leaves out take their DEFAULT, as INSERT's would
(`defaults.py`). Upsert = insert or replace by primary key. A table with neither secondary
indexes nor foreign keys pointing either way takes the short path: the new
rows simply replace whatever the keys held (`put` has replace semantics).
Otherwise the stored rows are read first, so replaced rows move their
index entries and cascade as an UPDATE would.
"""

from __future__ import annotations

from itertools import repeat
from operator import is_
from typing import TYPE_CHECKING, Any

import pyarrow.compute as pc

from ...errors import FeatureNotSupported, InvalidParameterValue, ReadOnlySQLTransaction
from ...kivi.keycodec import encode_key
from ...txn.api import ScanSpec
from ..catalog.model import Table
from ..dml.writer import TableWriter, writer_for
from .arrowcols import batch_columns, batch_rows, columns_rows, read_ipc, resolve_columns
from .colkeys import has_duplicates, int_column_keys
from .compositekeys import element_keys, key_kinds
from .defaults import check_writable, default_columns

if TYPE_CHECKING:
    from ..session import SQLSession

OPS = ("upsert", "insert", "delete")


def _dedupe_last(keys: list[bytes], rows: list[tuple[Any, ...]]
                 ) -> tuple[list[bytes], list[tuple[Any, ...]]]:
    """Keeps the last row of each key, in first-seen key order (a batch may repeat a key)."""
    if len(set(keys)) == len(keys):
        return keys, rows
    last = dict(zip(keys, rows, strict=True))
    return list(last), list(last.values())


def _batch_keys(table: Table, w: TableWriter, batch: Any) -> list[bytes] | None:
    """The keys of a batch with any other primary key, from its columns (`compositekeys`);
    None when the row path must encode them."""
    if not w.pk or w.int_pk:
        return None
    cols = [table.columns[i] for i in w.pk]
    if any(c.name not in batch.column_names for c in cols):
        return None
    converted = {pos for pos, _ in w.converters}
    kinds = key_kinds([c.type_oid for c in cols],
                      [i not in converted and not c.generated for i, c in zip(w.pk, cols, strict=True)])
    return None if kinds is None else element_keys([batch.column(c.name) for c in cols], kinds)


def _prepared(s: SQLSession, w: TableWriter, batch: Any, positions: list[int],
              cols: list[list[Any]],
              rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows as `prepare_rows` gives them, without its passes over every row when it
    would change nothing: no typmod, generated column, domain or CHECK, and no NULL in a
    NOT NULL column (Arrow's null count for the batch's columns, one pass for defaults).
    `prepare_rows` runs whenever there is something to do or report (23502's message)."""
    if w.converters or w.generated or w.domains is not None or w.checks:
        return w.prepare_rows(s, rows)
    names = dict(zip(positions, batch.column_names, strict=True))
    for pos, _ in w.not_null:
        name = names.get(pos)
        if (batch.column(name).null_count if name is not None
                else any(map(is_, cols[pos], repeat(None)))):
            return w.prepare_rows(s, rows)
    return rows


def _int_range_free(txn: Any, space: int, pk_col: Any) -> bool:
    """Whether a batch keyed by one integer column may skip the per-key lookup of its
    inserts: no value repeats (numpy) and no stored key lies in [min, max] (one short
    scan). `TableWriter._pk_range_free` answers the same from the encoded keys, with a
    min, a max and a set over a million key bytes; SERIALIZABLE keeps the point reads
    there too (a range read would turn concurrent inserts in the range into conflicts)."""
    if txn.isolation == "serializable" or has_duplicates(pk_col):
        return False
    ends = pc.min_max(pk_col)
    lo, hi = encode_key((ends["min"].as_py(),)), encode_key((ends["max"].as_py(),))
    return not any(txn.scan(ScanSpec(space, lo, hi + b"\x00", projection=(), limit=1)))


def write_batch(s: SQLSession, table: Table, op: str, data: bytes) -> int:
    """Applies one Arrow IPC batch to `table` (`upsert`, `insert` or `delete`); returns the rows."""
    if op not in OPS:
        raise InvalidParameterValue(f'unknown direct write "{op}"', hint="Use upsert, insert or delete.")
    return _write_batch(s, table, op, read_ipc(data))


def _write_batch(s: SQLSession, table: Table, op: str, batch: Any) -> int:
    txn = s.ensure_txn()
    if txn.read_only:
        raise ReadOnlySQLTransaction(f"cannot execute {op} in a read-only transaction")
    if table.kind != "r":
        raise FeatureNotSupported(f'"{table.name}" is not a table')
    if batch.num_rows == 0:
        return 0
    w = writer_for(s, table)
    if op == "delete":
        return _delete(s, table, batch)
    if op == "upsert" and not w.pk:
        raise InvalidParameterValue(f'table "{table.name}" has no primary key to upsert by',
                                    hint="Use insert, or add a primary key.")
    positions = resolve_columns(table, batch.column_names)
    check_writable(table, positions)
    cols = batch_columns(table, batch, need_all_pk=op == "upsert",
                         fill=default_columns(s, table, positions, batch.num_rows))
    rows = columns_rows(cols, batch.num_rows)
    lead = table.columns[w.pk[0]].name if w.pk else ""
    pk_col = batch.column(lead) if w.int_pk and lead in batch.column_names else None
    col_keys = int_column_keys(pk_col) if pk_col is not None else _batch_keys(table, w, batch)
    if op == "insert":
        if col_keys is None or w.indexes or w.fks or w.triggers is not None:  # NB: row path
            return w.insert(s, rows)  # type: ignore[arg-type]
        tuples = _prepared(s, w, batch, positions, cols, rows)  # NB: as insert(), with the keys
        w.check_unique(s, txn, col_keys, tuples,
                       skip_pk=pk_col is not None and _int_range_free(txn, w.space, pk_col))
        # NB: the columns are the rows' own unless a typmod or generated column made new ones
        txn.put_bulk(w.space, col_keys, tuples, cols if tuples is rows else None)
        return len(tuples)
    tuples = _prepared(s, w, batch, positions, cols, rows)
    keys = col_keys or w.new_keys(s, tuples)
    if pk_col is None or has_duplicates(pk_col):
        keys, tuples = _dedupe_last(keys, tuples)
    if not (w.indexes or w.fks or w.children or w.triggers is not None):
        txn.put_bulk(w.space, keys, tuples, cols if tuples is rows else None)
        return len(tuples)
    old = txn.get(w.space, keys)
    fresh = [i for i, o in enumerate(old) if o is None]
    seen = [i for i, o in enumerate(old) if o is not None]
    n = 0
    if fresh:
        n += w.insert(s, [tuples[i] for i in fresh], check_unique=False)  # type: ignore[misc]
    if seen:
        n += w.update(s, [keys[i] for i in seen], [old[i] for i in seen],
                      [list(tuples[i]) for i in seen])
    return n


def _delete(s: SQLSession, table: Table, batch: Any) -> int:
    """Deletes the rows whose primary keys the batch lists (other columns are ignored)."""
    if not table.primary_key:
        raise InvalidParameterValue(f'table "{table.name}" has no primary key to delete by')
    rows = batch_rows(table, batch.select([table.columns[a - 1].name for a in table.primary_key
                                           if table.columns[a - 1].name in batch.column_names]))
    pk = [a - 1 for a in table.primary_key]
    keys = list(dict.fromkeys(encode_key(tuple(r[i] for i in pk)) for r in rows))
    w = writer_for(s, table)
    old = s.txn.get(w.space, keys)
    found = [(k, o) for k, o in zip(keys, old, strict=True) if o is not None]
    if not found:
        return 0
    return w.delete(s, [k for k, _ in found], [o for _, o in found])


def get_rows(s: SQLSession, table: Table, keys_batch: bytes) -> list[tuple[Any, ...] | None]:
    """Reads rows by primary key at the transaction's snapshot (None where a key is absent)."""
    if not table.primary_key:
        raise InvalidParameterValue(f'table "{table.name}" has no primary key to get by')
    batch = read_ipc(keys_batch)
    resolve_columns(table, batch.column_names)
    rows = batch_rows(table, batch)
    pk = [a - 1 for a in table.primary_key]
    keys = [encode_key(tuple(r[i] for i in pk)) for r in rows]
    return s.ensure_txn().get(table.space, keys)
