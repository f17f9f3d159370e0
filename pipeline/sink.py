"""The `cumulo` streaming sink: every micro-batch lands exactly once, atomically with its ledger row.

    df.writeStream.format("cumulo").option("url", URL).option("table", T)
      .option("checkpointLocation", dir).option("upsert", "true").start()

Spark re-runs a micro-batch after a failure with the same `batchId` and the
same data (its offsets are in the checkpoint before the batch runs), but it
records the batch as done in its commit log only after the sink returns. A
crash between the two replays a batch the sink already wrote. So:

- each task only packs its Arrow batches into its commit message;
- the driver-side `commit(messages, batchId)` writes all of the batch's rows
  **and** the ledger row `(query, batchId, rows)` in one transaction, after
  checking that the ledger has no such row; a replayed batch finds its row
  and is skipped, and two racing attempts collide on the ledger's primary
  key, so one of them rolls back.

Exactly-once thus holds for append tables without a primary key too. The
query's ledger key is the `queryName` option, else its `checkpointLocation`
(one checkpoint per query, as Spark requires anyway). The rows of a
micro-batch travel through the driver: this sink is for ingest streams, with
micro-batches of thousands of rows, not for bulk copies (use the batch writer).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage

import cumulo.driver as cd

from .sparkhome import forget_spark_jar
from .target import InjectedCrash, Options, ledger_commit, ledger_has, prepare_target

log = logging.getLogger("cumulo.pipeline.sink")


@dataclass
class Packed(WriterCommitMessage):
    """One task's rows of a micro-batch, as an Arrow IPC stream."""

    ipc: bytes
    rows: int


def pack(batches: Iterator[pa.RecordBatch]) -> Packed:
    """Packs a task's batches into one IPC payload."""
    sink = pa.BufferOutputStream()
    rows = 0
    writer = None
    for b in batches:
        if writer is None:
            writer = pa.ipc.new_stream(sink, b.schema)
        writer.write_batch(b)
        rows += b.num_rows
    if writer is None:
        return Packed(b"", 0)
    writer.close()
    return Packed(sink.getvalue().to_pybytes(), rows)


# The commit side's connections, one per URL, kept from micro-batch to micro-batch. Spark
# makes a new writer for every commit (in a reused Python worker), so they cannot live on
# the writer; a new connection per batch cost about a third of a small batch's commit
# (connecting, then parsing its statements again).
_KEPT: dict[str, cd.Connection] = {}

# The targets this process made sure of (CREATE TABLE IF NOT EXISTS, the ledger). The
# writer is made anew for every micro-batch's commit, and preparing took a connection
# and two DDL statements each time; a target dropped since is prepared again on the
# commit that finds it missing (`UNDEFINED_TABLE`).
_PREPARED: set[tuple[object, ...]] = set()
UNDEFINED_TABLE = "42P01"


def _target_key(o: Options, schema: st.StructType) -> tuple[object, ...]:
    return (o.url, o.table, o.ledger, o.create_table, o.primary_key, schema.json())


def _drop(url: str) -> None:
    conn = _KEPT.pop(url, None)
    if conn is not None:
        conn.close()


def _begin(o: Options, batch_id: int) -> tuple[cd.Connection, bool]:
    """The connection for a micro-batch and whether its ledger row exists.

    A kept connection the server dropped meanwhile (a restart) is replaced once,
    before anything is written, as a new connection per batch would have been.
    """
    for attempt in (0, 1):
        conn = _KEPT.get(o.url)
        if conn is None:
            conn = _KEPT[o.url] = o.connect()
        try:
            return conn, ledger_has(conn, o, o.query_name, batch_id)
        except (cd.OperationalError, cd.InterfaceError, OSError):
            _drop(o.url)
            if attempt:
                raise
        except BaseException:
            _drop(o.url)  # NB: never keep a connection in a failed transaction
            raise
    raise AssertionError("unreachable")


class CumuloStreamWriter(DataSourceStreamArrowWriter):
    """The exactly-once streaming writer (see the module doc)."""

    def __init__(self, options: Options, schema: st.StructType, overwrite: bool) -> None:
        if not options.query_name:
            raise ValueError("the cumulo sink needs the option queryName or checkpointLocation "
                             "(the key of its ledger)")
        self.options = options
        self.schema = schema
        if _target_key(options, schema) not in _PREPARED:
            self._prepare()

    def _prepare(self) -> None:
        prepare_target(self.options, self.schema, False)
        _PREPARED.add(_target_key(self.options, self.schema))

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Packed:  # type: ignore[override]
        forget_spark_jar()
        return pack(iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803
        """Writes the batch's rows and its ledger row in one transaction, unless done before.

        A target dropped since this process prepared it is prepared again and the
        batch retried once (its first attempt rolled back whole).
        """
        forget_spark_jar()
        try:
            self._commit(messages, batchId)
        except cd.Error as e:
            if e.sqlstate != UNDEFINED_TABLE:
                raise
            _PREPARED.discard(_target_key(self.options, self.schema))
            self._prepare()
            self._commit(messages, batchId)

    def _commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803
        o = self.options
        conn, done = _begin(o, batchId)
        try:
            if done:
                conn.rollback()
                log.info("batch %d of %s: already committed, skipped", batchId, o.query_name)
                return
            t = conn.table(o.table)
            op = t.upsert if o.upsert else t.insert
            parts = [pa.ipc.open_stream(pa.py_buffer(m.ipc)).read_all()
                     for m in messages if isinstance(m, Packed) and m.rows]
            n = op(pa.concat_tables(parts)) if parts else 0  # NB: one call for the whole batch
            ledger_commit(conn, o, o.query_name, batchId, n)
        except BaseException:
            _drop(o.url)  # NB: closing rolls back whatever the batch had written
            raise
        if batchId == o.fail_after_commit:
            raise InjectedCrash(f"injected crash after the commit of batch {batchId}")

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803
        """Nothing was written outside `commit`, so there is nothing to undo."""
