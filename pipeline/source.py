"""The `cumulo` Spark data source: Arrow batches over the direct API, one snapshot per read.

    spark.read.format("cumulo").option("url", URL).option("table", T).load()
    df.write.format("cumulo").option("url", URL).option("table", T).mode("append").save()
    df.writeStream.format("cumulo").option("url", URL).option("table", T)
        .option("checkpointLocation", dir).start()

**Read.** The schema comes from the catalog (`cumulo_describe`), or from the
user (`.schema("a bigint, c double")`), which then prunes columns. The
driver opens a REPEATABLE READ transaction, exports its snapshot under a
lease (`cumulo_export_snapshot`) and cuts the table into `numPartitions`
primary-key ranges at that snapshot (`cumulo_splits`); every partition
imports one snapshot (SET TRANSACTION SNAPSHOT) before it scans its range,
so all partitions see one state of the table, whatever commits meanwhile.
That snapshot is the query execution's (`CumuloReader._snapshot`), so a
DataFrame queried again sees the commits made since.
Filters Spark pushes (=, <, <=, >, >=, IN, IS [NOT] NULL, NOT, LIKE 'x%')
are evaluated by KiVi; the rest come back to Spark. Partitions yield the
server's Arrow record batches, cast to exactly the schema Spark expects.

**Write.** A `DataSourceArrowWriter`: each task sends its batches through
the direct API (`upsert` with option upsert=true, else `insert`) in one
transaction, which also inserts a row (job id, partition id) into the
ledger table. A retried task finds its partition's row and skips, so a
retry never duplicates rows, with or without a primary key. Options:
`createTable` (CREATE TABLE IF NOT EXISTS from the Spark schema),
`primaryKey` ("a,b"), `upsert`, and mode("overwrite") (TRUNCATE first).

**Streaming write.** Exactly-once: see `sink.py`.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import types as st
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamWriter,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
    WriterCommitMessage,
)

from .sink import CumuloStreamWriter
from .sparkhome import forget_spark_jar
from .sparktypes import arrow_schema, quote_table, spark_schema
from .target import (
    InjectedCrash,
    Options,
    ledger_commit,
    ledger_has,
    one,
    prepare_target,
    write_batches,
)

# -- reading ------------------------------------------------------------------------------


_CMP = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<",
        LessThanOrEqual: "<="}


def _filter_value(v: Any, t: st.DataType) -> Any:
    """A Spark filter literal as the scan request carries it; None when it cannot be pushed."""
    if isinstance(t, st.FloatType | st.DoubleType):
        return None  # NB: NaN orders differently in a Python comparison than in Spark
    if isinstance(t, st.TimestampType):
        return v.isoformat() if isinstance(v, dt.datetime) and v.tzinfo is not None else None
    if isinstance(v, dt.date | dt.datetime):
        return v.isoformat()
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, bool | int | str):
        return v
    return None


def push_filter(f: Filter, types: dict[str, st.DataType]) -> list[Any] | None:
    """Translates a Spark filter into the scan request's form; None when KiVi cannot take it."""
    if isinstance(f, Not):
        inner = push_filter(f.child, types)
        return None if inner is None else ["not", inner]
    attr = getattr(f, "attribute", ())
    if len(attr) != 1 or attr[0] not in types:
        return None
    col, t = attr[0], types[attr[0]]
    if isinstance(f, IsNull | IsNotNull):
        return ["null" if isinstance(f, IsNull) else "notnull", col]
    if isinstance(f, StringStartsWith) and isinstance(t, st.StringType):
        return ["prefix", col, f.value]
    if isinstance(f, In):
        vals = [_filter_value(v, t) for v in f.value]
        return None if any(v is None for v in vals) else ["in", col, vals]
    op = _CMP.get(type(f))
    if op is None:
        return None
    v = _filter_value(f.value, t)  # type: ignore[attr-defined]
    return None if v is None else ["cmp", op, col, v]


@dataclass
class KeyRange(InputPartition):
    """One partition: a primary-key range [lo, hi) read at the exported snapshot."""

    index: int
    snapshot: str
    lo: bytes | None
    hi: bytes | None
    token: str = ""

    def __post_init__(self) -> None:
        InputPartition.__init__(self, self.index)


class CumuloReader(DataSourceReader):
    """Plans the partitions at one snapshot and reads them as Arrow batches."""

    def __init__(self, options: Options, schema: st.StructType) -> None:
        self.options = options
        self.columns = schema.names
        self.types = {f.name: f.dataType for f in schema.fields}
        self.arrow = arrow_schema(schema)
        self.filters: list[list[Any]] = []

    def partitions(self) -> list[KeyRange]:
        """Exports one snapshot and cuts the table into key ranges at it (driver side)."""
        o = self.options
        conn = o.connect()
        try:
            conn.isolation_level = "REPEATABLE READ"
            conn.readonly = True
            ident = one(conn, "SELECT cumulo_export_snapshot(%s)", (o.lease,))
            cuts = conn.table(o.table).splits(o.partitions) if o.partitions > 1 else []
            conn.commit()
        finally:
            conn.close()
        bounds: list[bytes | None] = [None, *cuts, None]
        token = uuid.uuid4().hex
        return [KeyRange(i, ident, lo, hi, token)
                for i, (lo, hi) in enumerate(zip(bounds, bounds[1:], strict=False))]

    def read(self, partition: KeyRange) -> Iterator[pa.RecordBatch]:  # type: ignore[override]
        """Scans one range at the snapshot (executor side)."""
        forget_spark_jar()
        conn = self.options.connect()
        try:
            ident = self._snapshot(conn, partition)
            conn.isolation_level = "REPEATABLE READ"
            conn.readonly = True
            one(conn, f"SET TRANSACTION SNAPSHOT '{ident}'")
            for b in conn.table(self.options.table).scan(
                    columns=self.columns, where=self.filters, lo=partition.lo, hi=partition.hi,
                    ordered=False):
                if b.num_rows:
                    yield b.cast(self.arrow)
            # NB: no COMMIT: the transaction only read, and closing ends it (a round trip less)
        finally:
            conn.close()


    def _snapshot(self, conn: Any, partition: KeyRange) -> str:
        """The snapshot of the Spark query execution this task belongs to.

        Spark reuses a planned read for the DataFrame's later queries, so the
        planning snapshot would repeat the first query's answer (and expire with
        its lease): every partition of one execution asks the server for the
        snapshot named by the planned read and the execution id instead
        (`cumulo_read_snapshot`: the first asker's, leased). Outside a SQL
        execution (no id) the planning snapshot serves.
        """
        ctx = TaskContext.get()
        run = ctx.getLocalProperty("spark.sql.execution.id") if ctx is not None else None
        if run is None or not partition.token:
            return partition.snapshot
        conn.autocommit = True  # NB: the leased export outlives its statement: no BEGIN/COMMIT
        try:
            ident = one(conn, "SELECT cumulo_read_snapshot(%s, %s)",
                        (f"{partition.token}:{run}", self.options.lease))
        finally:
            conn.autocommit = False
        return str(ident)


class FilteringReader(CumuloReader):
    """A reader that also takes Spark's pushed filters (option pushFilters=true).

    Opt-in, because no reader can apply pushed filters correctly on pyspark
    4.3 when one loaded DataFrame is scanned more than once. Spark keeps ONE
    planned reader (its pickled self and partitions, the `readInfo`) per
    loaded DataFrame (`PythonDataSourceV2`): a query with filters replaces it
    with the reader its `pushFilters` planned, a query without filters reuses
    whatever is there, and every scan of that DataFrame in one plan gets the
    last one planned. Measured with a toy source (pushing `g = v`):

    - `df.filter("g = 3").count()` then `df.count()`: the second is filtered;
    - `df.filter("g = 3").union(df)`: both sides filtered;
    - `df.filter("g = 3").join(df.filter("g = 4"), "k")`: both sides read
      with `g = 4`.

    Handing the filters back to Spark as well does not help: the second case
    still loses rows, and in the third Spark's `g = 3` on rows read with
    `g = 4` leaves none. `read()` cannot tell which scan it serves (the
    pickled reader and partitions are the same bytes), so the fault cannot
    be detected there either. Hence the default reader pushes nothing, and
    with pushFilters=true each query must get its own `load()`.
    """

    def pushFilters(self, filters: list[Filter]) -> Iterator[Filter]:  # noqa: N802 (Spark's name)
        """Keeps the filters KiVi can evaluate; hands the others back to Spark."""
        for f in filters:
            pushed = push_filter(f, self.types)
            if pushed is None:
                yield f
            else:
                self.filters.append(pushed)


# -- writing ------------------------------------------------------------------------------


@dataclass
class Wrote(WriterCommitMessage):
    """A task's report: its partition, the rows it wrote, whether it was a skipped retry."""

    partition: int
    rows: int
    skipped: bool = False


class CumuloWriter(DataSourceArrowWriter):
    """Batch writes: one transaction per task, made retry-safe by the ledger."""

    def __init__(self, options: Options, schema: st.StructType, overwrite: bool) -> None:
        self.options = options
        self.job = "write:" + uuid.uuid4().hex
        prepare_target(options, schema, overwrite)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> Wrote:  # type: ignore[override]
        forget_spark_jar()
        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx is not None else 0
        o = self.options
        conn = o.connect()
        try:
            if ledger_has(conn, o, self.job, part):  # a retry of a task that committed
                conn.rollback()
                return Wrote(part, 0, skipped=True)
            n = write_batches(conn, o, iterator)
            ledger_commit(conn, o, self.job, part, n)
            if o.fail_first_attempt and ctx is not None and ctx.attemptNumber() == 0:
                raise InjectedCrash(f"injected failure of partition {part} after its commit")
            return Wrote(part, n)
        finally:
            conn.close()

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        """Drops the job's ledger rows: they only guard task retries within the job."""
        self._forget()

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self._forget()

    def _forget(self) -> None:
        conn = self.options.connect()
        try:
            conn.cursor().execute(f"DELETE FROM {quote_table(self.options.ledger)} "
                                  "WHERE query_name = %s", (self.job,))
            conn.commit()
        finally:
            conn.close()


class CumuloDataSource(DataSource):
    """The `cumulo` data source (registered as `pyspark_cumulo.DefaultSource`)."""

    @classmethod
    def name(cls) -> str:
        return "cumulo"

    def schema(self) -> st.StructType:
        o = Options.parse(self.options)
        conn = o.connect()
        try:
            schema = conn.table(o.table).schema
            conn.commit()
        finally:
            conn.close()
        return spark_schema(schema)

    def reader(self, schema: st.StructType) -> CumuloReader:
        o = Options.parse(self.options)
        return (FilteringReader if o.push_filters else CumuloReader)(o, schema)

    def writer(self, schema: st.StructType, overwrite: bool) -> CumuloWriter:
        return CumuloWriter(Options.parse(self.options), schema, overwrite)

    def streamWriter(self, schema: st.StructType, overwrite: bool  # noqa: N802 (Spark's name)
                     ) -> DataSourceStreamWriter:
        return CumuloStreamWriter(Options.parse(self.options), schema, overwrite)
