"""pipeline: the direct ingest API against PostgreSQL's binary COPY, and streaming tick ingest.

1. **Direct upsert, 1M narrow rows.** Cumulo: `conn.table(T).upsert(arrow)`
   (`cumulo.driver`'s direct API: Arrow IPC batches of 131,072 rows, one
   prepared `cumulo_write` call each, upsert by primary key) plus COMMIT.
   PostgreSQL: `COPY T FROM STDIN (FORMAT binary)` of the same rows plus
   COMMIT. Both payloads are built before the clock starts, so only the
   transfer and the server's work are timed; the server's CPU seconds over
   the same interval (its process tree, from /proc) are a second figure. The table is
   `(id bigint PRIMARY KEY, a integer, b double precision)`, empty at the
   start; the row count is checked afterwards.
2. **Streaming ingest** (Cumulo only; needs pyspark): `cumulo pipeline
   tickdata`'s ingest query over a spool of Avro tick files, `availableNow`,
   into `tickdata` through the exactly-once `cumulo` sink; ticks per second
   and the produced-to-visible latency p50/p99 of its batches. A warm-up
   query ingests 24 files first (3 micro-batches of two partitions: the Python
   workers are started, the JIT has seen the path). The backlog figure is
   wall time from the timed query's start; "sustained" counts only the
   micro-batches after the query's first one (Spark's own trigger durations),
   and the CPU per tick (Spark's driver, JVM and Python workers; the server)
   is what the load of a shared machine moves least.

Options: --scale (millions of rows, default 1) or --rows.
"""

from __future__ import annotations

import os
import time

import numpy as np

from ..core import Figure, RunContext
from ..server_cost import listening_pid, sample
from ..systems import System

NAME = "pipeline"
DESCRIPTION = "direct API upsert vs COPY binary (1M narrow rows); streaming tick ingest"
TABLE = "bench_direct"
COLUMNS = "(id bigint PRIMARY KEY, a integer, b double precision)"
WARM_FILES = 24  # spool files ingested before the timed backlog, eight per micro-batch
_ROW = np.dtype([("n", ">i2"), ("l1", ">i4"), ("id", ">i8"), ("l2", ">i4"), ("a", ">i4"),
                 ("l3", ">i4"), ("b", ">f8")])


def rows_for(ctx: RunContext) -> int:
    """Returns how many rows to load."""
    return ctx.options.rows or max(1, int((ctx.options.scale or 1) * 1_000_000))


def columns(rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows, as columns: id 1..rows, a = id % 1000, b = id / 4."""
    ids = np.arange(1, rows + 1, dtype=np.int64)
    return ids, (ids % 1000).astype(np.int32), ids / 4.0


def copy_binary(rows: int) -> bytes:
    """The rows as one PostgreSQL binary COPY payload (header, tuples, trailer)."""
    ids, a, b = columns(rows)
    arr = np.empty(rows, dtype=_ROW)
    arr["n"], arr["l1"], arr["l2"], arr["l3"] = 3, 8, 4, 8
    arr["id"], arr["a"], arr["b"] = ids, a, b
    return b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8 + arr.tobytes() + b"\xff\xff"


def _reset(system: System) -> None:
    with system.connect() as conn:
        conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
        conn.execute(f"CREATE TABLE {TABLE} {COLUMNS}")


def _count(system: System, rows: int) -> None:
    with system.connect() as conn:
        got = conn.execute(f"SELECT count(*), sum(a) FROM {TABLE}").fetchone()
    ids, a, _ = columns(rows)
    if got != (rows, int(a.sum())):
        raise RuntimeError(f"{system.name}: loaded {got}, want {(rows, int(a.sum()))}")


def _server_cpu(system: System) -> float | None:
    """The CPU seconds the server's process tree has used so far (None if not ours to see)."""
    pid = listening_pid(system.port)
    return None if pid is None else sample(pid).cpu_s


def direct_upsert(system: System, rows: int) -> tuple[float, float | None]:
    """Cumulo: the direct API's upsert of the rows, committed; returns seconds, server CPU s."""
    import pyarrow as pa

    import cumulo.driver as cd

    _reset(system)
    ids, a, b = columns(rows)
    data = pa.table({"id": ids, "a": a, "b": b})
    conn = cd.connect(system.dsn)
    try:
        cpu = _server_cpu(system)
        start = time.perf_counter()
        conn.table(TABLE).upsert(data)
        conn.commit()
        seconds = time.perf_counter() - start
        after = _server_cpu(system)
    finally:
        conn.close()
    _count(system, rows)
    return seconds, None if cpu is None or after is None else after - cpu


def copy_in(system: System, rows: int) -> tuple[float, float | None]:
    """PostgreSQL: COPY ... FROM STDIN (FORMAT binary), committed; returns seconds, server CPU s."""
    _reset(system)
    payload = copy_binary(rows)
    with system.connect(autocommit=False) as conn:
        cpu = _server_cpu(system)
        start = time.perf_counter()
        with conn.cursor() as cur, cur.copy(f"COPY {TABLE} FROM STDIN (FORMAT binary)") as copy:
            for off in range(0, len(payload), 1 << 20):
                copy.write(payload[off:off + (1 << 20)])
        conn.commit()
        seconds = time.perf_counter() - start
        after = _server_cpu(system)
    _count(system, rows)
    return seconds, None if cpu is None or after is None else after - cpu


def sustained(progress: list[dict]) -> float | None:
    """Ticks/s over the micro-batches after a query's first one (None with fewer than two).

    >>> sustained([{"numInputRows": 9, "durationMs": {"triggerExecution": 9000}},
    ...            {"numInputRows": 500, "durationMs": {"triggerExecution": 250}}])
    2000.0
    """
    later = [p for p in progress[1:] if p["numInputRows"]]
    ms = sum(p["durationMs"]["triggerExecution"] for p in later)
    return sum(p["numInputRows"] for p in later) * 1000.0 / ms if later and ms else None


def streaming(ctx: RunContext, system: System, backlog: int, rate: float, seconds: float
              ) -> tuple[float | None, ...]:
    """Cumulo: ticks/s through the ingest query on a backlog (wall and sustained), CPU per tick
    (Spark, server); then the p50/p99 latency at `rate`."""
    import tempfile

    from cumulo.pipeline.session import spark_session
    from cumulo.pipeline.tickdata import cli, producer
    from cumulo.pipeline.tickdata.spool import AvroSpoolSource

    url = system.dsn
    with system.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS tickdata")
        conn.execute(cli.LEDGER_DDL.format(cli.LEDGER))
        conn.execute(f"DELETE FROM {cli.LEDGER} WHERE query_name = %s", (cli.QUERY,))
    work = tempfile.mkdtemp(prefix="cumulo-bench-ticks-", dir=ctx.workdir)
    spool, ckpt = os.path.join(work, "spool"), os.path.join(work, "checkpoint")
    warm = WARM_FILES * producer.PER_FILE
    producer.produce(spool, warm, 8, 1)
    spark = spark_session("local[2]", app="cumulo-bench-pipeline")
    spark.dataSource.register(AvroSpoolSource)
    try:
        # warm-up: micro-batches of two partitions, so the Python workers that two parallel
        # read-and-write tasks use are started, and the JIT has seen the batch path a few
        # times, as in a query that has been running for a while
        cli.start_ingest(spark, url, spool, ckpt, 8, once=True).awaitTermination()
        producer.produce(spool, warm + backlog, 8, 1)
        server = listening_pid(system.port)
        cpu0, srv0 = sample(os.getpid()), sample(server) if server else None
        start = time.perf_counter()
        q = cli.start_ingest(spark, url, spool, ckpt, 50, once=True)
        q.awaitTermination()
        rate_backlog = backlog / (time.perf_counter() - start)
        spark_us = (sample(os.getpid()).cpu_s - cpu0.cpu_s) * 1e6 / backlog
        server_us = None if srv0 is None else (sample(server).cpu_s - srv0.cpu_s) * 1e6 / backlog
        rate_sustained = sustained(q.recentProgress)
        prod = cli.Producer(spool, rate, 0, 8, 1)
        q = cli.start_ingest(spark, url, spool, ckpt, 50, once=False)
        conn = cli.open_ledger(url)
        prod.start()
        counted, latencies = len(producer.spool_files(spool)), []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(0.05)
            visible, now = cli.visible_ticks(conn), time.time()
            while (counted + 1) * producer.PER_FILE <= visible and counted in prod.written:
                latencies.append(now - prod.written[counted])
                counted += 1
        prod.stop.set()
        q.stop()
        conn.close()
    finally:
        spark.stop()
    if not latencies:
        raise RuntimeError("no produced tick became visible during the live run")
    return (rate_backlog, cli.percentile(latencies, 0.5), cli.percentile(latencies, 0.99),
            rate_sustained, spark_us, server_us)


def run(ctx: RunContext) -> list[Figure]:
    """Times the direct upsert (Cumulo) and the binary COPY (PostgreSQL) of the same rows."""
    rows = rows_for(ctx)
    values: dict[str, float | None] = {}
    cpu: dict[str, float | None] = {}
    for s in ctx.systems:
        fn = direct_upsert if s.name == "cumulo" else copy_in
        got = ctx.attempt(s, "direct", fn, s, rows)
        values[s.name], cpu[s.name] = (None, None) if got is None else got
        what = "conn.table().upsert(arrow)" if s.name == "cumulo" else "COPY (FORMAT binary)"
        ctx.commands.append(f"{s.name}: {what} of {rows} rows into {TABLE} {COLUMNS}")
    figures = [ctx.figure(NAME, f"bulk load {rows:,} narrow rows (Cumulo: direct upsert; "
                                "PostgreSQL: COPY binary)", "s", "lower", values, "direct",
                          "Arrow batches of 131,072 rows vs one binary COPY; commit included"),
               ctx.figure(NAME, f"bulk load {rows:,} narrow rows: server CPU", "s", "lower", cpu,
                          "direct", "the server's process tree (/proc) over the timed interval")]
    backlog, rate = max(10_000, rows // 10), 1000.0
    live_s = min(20.0, float(ctx.options.seconds or 20))
    stream: list[dict[str, float | None]] = [{} for _ in range(6)]
    for s in ctx.systems:
        got = None
        if s.name == "cumulo":
            got = ctx.attempt(s, "stream", streaming, ctx, s, backlog, rate, live_s)
            ctx.commands.append(f"cumulo: tickdata ingest of a {backlog}-tick backlog, then "
                                f"{rate:.0f} ticks/s for {live_s:.0f} s")
        else:
            ctx.errors[(s.name, "stream")] = "n/a: the streaming sink is Cumulo's"
        for i in range(6):
            stream[i][s.name] = None if got is None else got[i]
    note = "local[2] Spark, Avro spool, 50 files (25,000 ticks) per trigger, exactly-once sink"
    figures += [
        ctx.figure(NAME, f"streaming ingest of a {backlog:,}-tick backlog", "ticks/s", "higher",
                   stream[0], "stream", note),
        ctx.figure(NAME, f"tick produced -> visible in SQL at {rate:.0f} ticks/s, p50", "s",
                   "lower", stream[1], "stream", "1 s processing-time trigger; " + note),
        ctx.figure(NAME, f"tick produced -> visible in SQL at {rate:.0f} ticks/s, p99", "s",
                   "lower", stream[2], "stream", "1 s processing-time trigger; " + note),
        ctx.figure(NAME, "streaming ingest sustained (micro-batches after the query's first)",
                   "ticks/s", "higher", stream[3], "stream", note),
        ctx.figure(NAME, "streaming ingest CPU per tick: Spark (driver, JVM, Python workers)",
                   "us", "lower", stream[4], "stream", note),
        ctx.figure(NAME, "streaming ingest CPU per tick: the database server", "us", "lower",
                   stream[5], "stream", note),
    ]
    return figures
