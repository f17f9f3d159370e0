"""spark: Spark's JDBC source reading and appending 1M rows, in rows per second.

Spark is how most analytics stacks meet a PostgreSQL-compatible database, and
it uses the database in a way nothing else here does: the stock PostgreSQL
JDBC driver (`/usr/share/java/postgresql.jar`, the same jar for both systems),
one connection per partition, range predicates Spark writes itself
(`partitionColumn`/`lowerBound`/`upperBound`/`numPartitions`), cursors fetched
`fetchsize` rows at a time, and on the write side batched INSERTs that the
driver rewrites into multi-row VALUES (`reWriteBatchedInserts=true`).

Steps, per system, the systems taking turns:

1. load `bench_spark(id bigint PRIMARY KEY, g int, x float8, name text)` with
   COPY text (not timed; ingest measures that);
2. read: a partitioned JDBC read of the whole table (4 partitions on `id`),
   aggregated in Spark over every column, so every row and column crosses
   the wire (aggregate and limit push-down are switched off); the answer must
   equal the closed-form count and sums;
3. write: append the same rows, generated and cached in Spark beforehand (so
   generating them is not timed), to an empty `bench_spark_w` through 4
   partitions with `batchsize` BATCH, then check `count(*)`, `sum(id)` and
   `sum(g)` on the server with psycopg.

4. Cumulo only: the same read and append through the `cumulo` data source
   (`format("cumulo")`: 4 primary-key ranges read at one snapshot as Arrow
   batches; the Arrow writer into the direct API), reported against
   PostgreSQL's JDBC figures of steps 2 and 3.

One local SparkSession (`local[4]`: one task per partition) serves both
systems; its start-up is not timed, and a small warm-up read on each system
loads the JDBC classes before anything is timed. Figures: rows/s for read and
write. Options: --scale (millions of rows, default 1) or --rows.
"""

from __future__ import annotations

import os
import shutil
import time
from contextlib import contextmanager
from typing import Any

from ..core import BenchError, Figure, RunContext
from ..progress import Progress
from ..systems import System
from .ingest import chunks

NAME = "spark"
DESCRIPTION = "Spark JDBC: partitioned read and batched append of 1M rows (rows/s)"
JAR = os.environ.get("CUMULO_BENCH_JDBC_JAR", "/usr/share/java/postgresql.jar")
TABLE = "bench_spark"
WRITE_TABLE = "bench_spark_w"
COLUMNS = "(id bigint PRIMARY KEY, g integer NOT NULL, x double precision NOT NULL, name text NOT NULL)"
PARTITIONS = 4
WARMUP = f"(SELECT * FROM {TABLE} WHERE id <= 1000) AS warmup"
FETCHSIZE = 10_000
BATCH = 10_000
LOAD_BATCH = 100_000
GROUPS = 100
# Every column takes part, so Spark cannot prune any of them from the SELECT it sends.
AGGREGATES = ("count(*) AS n", "sum(id) AS s", "sum(g) AS sg", "sum(x) AS sx",
              "sum(length(name)) AS sl")


def rows_for(ctx: RunContext) -> int:
    """Returns how many rows to read and write."""
    return ctx.options.rows or max(1, int((ctx.options.scale or 1) * 1_000_000))


def row_text(i: int) -> str:
    """Returns row i as a COPY text line: id, id % 100, id / 2, 'n<id>'."""
    return f"{i}\t{i % GROUPS}\t{i * 0.5}\tn{i}\n"


def name_length_sum(rows: int) -> int:
    """Returns sum(length('n' || id)) over ids 1..rows, in closed form by digit count."""
    total, low, digits = 0, 1, 1
    while low <= rows:
        high = min(rows, low * 10 - 1)
        total += (high - low + 1) * (digits + 1)
        low, digits = low * 10, digits + 1
    return total


def expected(rows: int) -> tuple[int, int, int, float, int]:
    """Returns (count, sum(id), sum(g), sum(x), sum(length(name))) for ids 1..rows."""
    s = rows * (rows + 1) // 2
    full, rest = divmod(rows, GROUPS)
    sum_g = full * (GROUPS * (GROUPS - 1) // 2) + rest * (rest + 1) // 2
    return rows, s, sum_g, s * 0.5, name_length_sum(rows)


def check(got: tuple, want: tuple, what: str) -> None:
    """Raises BenchError unless the aggregates match (floats to a relative 1e-9)."""
    n, s, sg, sx, sl = got
    ok = (
        n == want[0] and s == want[1] and sg == want[2] and sl == want[4]
        and sx is not None and abs(float(sx) - want[3]) <= 1e-9 * max(1.0, abs(want[3]))
    )
    if not ok:
        raise BenchError(f"{what}: got (count, sum id, sum g, sum x, sum len) = {got}, want {want}")


def jdbc_url(system: System) -> str:
    """Returns the JDBC URL of a system, with batched-insert rewriting on."""
    return (
        f"jdbc:postgresql://{system.host}:{system.port}/{system.dbname}"
        f"?user={system.user}&reWriteBatchedInserts=true"
    )


def read_options(system: System, rows: int, table: str = TABLE) -> dict[str, str]:
    """Returns the DataFrameReader options of the partitioned read."""
    return {
        "url": jdbc_url(system),
        "dbtable": table,
        "driver": "org.postgresql.Driver",
        "partitionColumn": "id",
        "lowerBound": "1",
        "upperBound": str(rows),
        "numPartitions": str(PARTITIONS),
        "fetchsize": str(FETCHSIZE),
        "pushDownAggregate": "false",
        "pushDownLimit": "false",
    }


def write_options(system: System) -> dict[str, str]:
    """Returns the DataFrameWriter options of the append."""
    return {
        "url": jdbc_url(system),
        "dbtable": WRITE_TABLE,
        "driver": "org.postgresql.Driver",
        "batchsize": str(BATCH),
        "numPartitions": str(PARTITIONS),
    }


def missing() -> str | None:
    """Returns why Spark cannot run here, or None when it can."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install pyspark)"
    if not os.path.exists(JAR):
        return f"no JDBC driver at {JAR} (apt-get install libpostgresql-jdbc-java)"
    if not shutil.which("java"):
        return "no java on PATH"
    return None


@contextmanager
def spark_session():
    """Yields a local SparkSession with the JDBC jar and the `cumulo` source; stops it."""
    from cumulo.pipeline.session import spark_session as cumulo_session

    session = cumulo_session(f"local[{PARTITIONS}]", app="cumulo-bench", conf={
        "spark.jars": JAR, "spark.driver.extraClassPath": JAR,
        "spark.sql.shuffle.partitions": str(PARTITIONS), "spark.driver.memory": "2g"})
    try:
        yield session
    finally:
        session.stop()


def run(ctx: RunContext) -> list[Figure]:
    """Loads the table on each system, then times the read and the write, systems in turn."""
    rows = rows_for(ctx)
    want = expected(rows)
    if why := missing():
        for s in ctx.systems:
            ctx.errors[(s.name, "read")] = ctx.errors[(s.name, "write")] = why
        reads = writes = {s.name: None for s in ctx.systems}
        return _figures(ctx, rows, reads, writes, (reads, writes))
    loaded = {s.name: ctx.attempt(s, "read", _load, ctx, s, rows) for s in ctx.systems}
    up = [s for s in ctx.systems if loaded[s.name] is not None]
    reads: dict[str, float | None] = {s.name: None for s in ctx.systems}
    writes: dict[str, float | None] = {s.name: None for s in ctx.systems}
    source: tuple[dict[str, float | None], dict[str, float | None]] = (
        {s.name: None for s in ctx.systems}, {s.name: None for s in ctx.systems})
    with spark_session() as spark:
        data = _generated(spark, rows)
        for s in up:  # warm-up: JDBC classes, the first connection, the planner's first look
            if ctx.attempt(s, "read", _read, spark, s, rows, None, WARMUP) is None:
                loaded[s.name] = None
        for s in [s for s in up if loaded[s.name] is not None]:
            seconds = ctx.attempt(s, "read", _read, spark, s, rows, want)
            reads[s.name] = None if seconds is None else rows / seconds
            ctx.commands.append(f"{s.name}: spark.read.jdbc {read_options(s, rows)} .agg(...)")
        for s in up:
            seconds = ctx.attempt(s, "write", _write, spark, s, data, want)
            writes[s.name] = None if seconds is None else rows / seconds
            ctx.commands.append(f"{s.name}: df.write.mode('append').jdbc {write_options(s)}")
        for s in [s for s in up if s.name == "cumulo"]:  # the `cumulo` source, vs PG's JDBC
            ctx.attempt(s, "source read", _source_read, spark, s, 1000, None)  # warm-up
            seconds = ctx.attempt(s, "source read", _source_read, spark, s, rows, want)
            source[0]["cumulo"] = None if seconds is None else rows / seconds
            # warm-up: the writer's planning and commit workers start here, as the JDBC
            # writer's classes were loaded by the JDBC reads before its timed append
            ctx.attempt(s, "source write", _source_write, spark, s, data.limit(1000), None)
            seconds = ctx.attempt(s, "source write", _source_write, spark, s, data, want)
            source[1]["cumulo"] = None if seconds is None else rows / seconds
            ctx.commands.append("cumulo: spark.read.format('cumulo') numPartitions 4 .agg(...); "
                                "df.write.format('cumulo').mode('append')")
        data.unpersist()
    source[0]["postgres"], source[1]["postgres"] = reads.get("postgres"), writes.get("postgres")
    return _figures(ctx, rows, reads, writes, source)


def _figures(ctx: RunContext, rows: int, reads: dict, writes: dict,
             source: tuple[dict, dict]) -> list[Figure]:
    note = f"local[{PARTITIONS}] SparkSession, {os.path.basename(os.path.realpath(JAR))}"
    return [
        ctx.figure(NAME, f"cumulo source read vs PostgreSQL JDBC, {PARTITIONS} partitions, "
                         f"{rows:,} rows", "rows/s", "higher", source[0],
                   {"cumulo": "source read", "postgres": "read"},
                   "Cumulo: format('cumulo'), one snapshot, Arrow batches; PostgreSQL: JDBC"),
        ctx.figure(NAME, f"cumulo source write vs PostgreSQL JDBC append, {rows:,} rows",
                   "rows/s", "higher", source[1],
                   {"cumulo": "source write", "postgres": "write"},
                   "Cumulo: format('cumulo') Arrow writer; PostgreSQL: JDBC batched INSERTs"),
        ctx.figure(NAME, f"JDBC read, {PARTITIONS} partitions, {rows:,} rows", "rows/s",
                   "higher", reads, "read", f"{note}, fetchsize {FETCHSIZE}"),
        ctx.figure(NAME, f"JDBC append, reWriteBatchedInserts, {rows:,} rows", "rows/s",
                   "higher", writes, "write", f"{note}, batchsize {BATCH}"),
    ]


def _load(ctx: RunContext, system: System, rows: int) -> float:
    """Creates and fills the read table with COPY text; returns the seconds it took."""
    start = time.perf_counter()
    with system.connect() as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {TABLE}")
        cur.execute(f"CREATE TABLE {TABLE} {COLUMNS}")
        ctx.commands.append(f"{system.name}: CREATE TABLE {TABLE} {COLUMNS}; COPY x {rows} rows")
        with Progress(f"{system.label:<10} load", rows) as bar:
            for ids in chunks(rows, LOAD_BATCH):
                with cur.copy(f"COPY {TABLE} FROM STDIN") as copy:
                    copy.write("".join([row_text(i) for i in ids]).encode())
                bar.advance(len(ids))
    return time.perf_counter() - start


def _generated(spark: Any, rows: int) -> Any:
    """Returns the rows to append as a cached DataFrame in PARTITIONS partitions."""
    df = spark.range(1, rows + 1, numPartitions=PARTITIONS).selectExpr(
        "id", f"CAST(id % {GROUPS} AS INT) AS g", "id * 0.5D AS x", "concat('n', id) AS name"
    )
    df = df.cache()
    df.count()
    return df


def _read(spark: Any, system: System, rows: int, want: tuple | None, table: str = TABLE) -> float:
    """Reads the table through JDBC, aggregates it in Spark; returns the seconds it took."""
    reader = spark.read.format("jdbc")
    for key, value in read_options(system, rows, table).items():
        reader = reader.option(key, value)
    start = time.perf_counter()
    df = reader.load()
    if df.rdd.getNumPartitions() != PARTITIONS:
        raise BenchError(f"expected {PARTITIONS} partitions, got {df.rdd.getNumPartitions()}")
    got = tuple(df.selectExpr(*AGGREGATES).collect()[0])
    seconds = time.perf_counter() - start
    if want is not None:
        check(got, want, "JDBC read")
    return seconds


def _source_read(spark: Any, system: System, rows: int, want: tuple | None) -> float:
    """Reads the table through the `cumulo` source, aggregates it; returns the seconds it took."""
    start = time.perf_counter()
    df = (spark.read.format("cumulo").option("url", system.dsn).option("table", TABLE)
          .option("numPartitions", str(PARTITIONS)).load())
    got = tuple(df.selectExpr(*AGGREGATES).collect()[0])
    seconds = time.perf_counter() - start
    if want is not None:
        check(got, want, "cumulo source read")
    return seconds


def _source_write(spark: Any, system: System, data: Any, want: tuple | None) -> float:
    """Appends the cached rows through the `cumulo` source; checks them (unless want is None:
    a warm-up); returns seconds."""
    _empty_write_table(system)
    start = time.perf_counter()
    (data.write.format("cumulo").option("url", system.dsn).option("table", WRITE_TABLE)
     .mode("append").save())
    seconds = time.perf_counter() - start
    if want is not None:
        _check_written(system, want, "cumulo source write")
    return seconds


def _write(spark: Any, system: System, data: Any, want: tuple) -> float:
    """Appends the cached rows to an empty table through JDBC; checks them; returns seconds."""
    _empty_write_table(system)
    writer = data.write.format("jdbc").mode("append")
    for key, value in write_options(system).items():
        writer = writer.option(key, value)
    start = time.perf_counter()
    writer.save()
    seconds = time.perf_counter() - start
    _check_written(system, want, "JDBC append")
    return seconds


def _empty_write_table(system: System) -> None:
    """(Re)creates the empty table both write paths append to."""
    with system.connect() as conn:
        conn.execute(f"DROP TABLE IF EXISTS {WRITE_TABLE}")
        conn.execute(f"CREATE TABLE {WRITE_TABLE} {COLUMNS}")


def _check_written(system: System, want: tuple, what: str) -> None:
    """Checks the appended rows' aggregates on the server, then drops the table."""
    with system.connect() as conn:
        got = conn.execute(
            f"SELECT count(*), sum(id), sum(g), sum(x), sum(length(name)) FROM {WRITE_TABLE}"
        ).fetchone()
        conn.execute(f"DROP TABLE {WRITE_TABLE}")
    check(tuple(int(v) if i != 3 and v is not None else v for i, v in enumerate(got)), want, what)
