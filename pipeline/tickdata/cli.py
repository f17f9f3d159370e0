"""`cumulo pipeline tickdata`: the research systems' risk scenario, end to end, on a local Spark.

    cumulo pipeline tickdata --url cumulo://cumulo@127.0.0.1:5433/cumulo --ticks 20000 --once

1. The producer writes ticks as Avro files into the spool (`producer.py`).
2. A Structured Streaming query reads the spool (`spool.py`, at most
   `--files-per-trigger` files of 500 ticks per micro-batch) and upserts into
   `tickdata` (primary key `(product, datetime)`, created from the Avro schema
   if missing) through the exactly-once `cumulo` sink.
3. The risk job (`risk.py`) computes VaR/ES 99% per product over the last 250
   log returns and upserts `var_results`.

With `--once`: produce `--ticks` ticks, ingest them all (`availableNow`), run
the risk job once, exit 0. Re-running the same command after a crash (even a
SIGKILL) resumes from the checkpoint: the spool is rewritten only where files
are missing, and the sink's ledger skips batches that committed already.

Without `--once`: the producer writes `--rate` ticks per second (up to
`--ticks` if given), the query runs every second, the risk job every
`--risk-every` seconds, and the latency from a tick's file being written to
its rows being visible in SQL is printed as it goes, until Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import Any

import cumulo.driver as cd

from ..session import spark_session
from ..sparktypes import quote_table
from ..target import LEDGER, LEDGER_DDL
from . import producer
from .risk import run_risk
from .spool import AvroSpoolSource

QUERY = "tickdata-ingest"
TABLE = "tickdata"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cumulo pipeline",
                                description="Spark pipelines on Cumulo")
    sub = p.add_subparsers(dest="pipeline", required=True)
    t = sub.add_parser("tickdata", help="Avro ticks -> streaming ingest -> VaR/ES (see README)")
    t.add_argument("--url", required=True, help="Cumulo URL, e.g. cumulo://cumulo@127.0.0.1:5433/cumulo")
    t.add_argument("--ticks", type=int, default=0,
                   help="ticks to produce (--once: default 20000; otherwise 0 = no limit)")
    t.add_argument("--products", type=int, default=8, help="number of products (default 8)")
    t.add_argument("--once", action="store_true",
                   help="produce, ingest everything, run the risk job once, exit")
    t.add_argument("--seed", type=int, default=42, help="random-walk seed (default 42)")
    t.add_argument("--dir", default="cumulo-tickdata",
                   help="working folder: spool/ and checkpoint/ (default ./cumulo-tickdata)")
    t.add_argument("--files-per-trigger", type=int, default=4,
                   help="Avro files (500 ticks each) per micro-batch (default 4)")
    t.add_argument("--rate", type=float, default=2000.0, help="ticks per second (default 2000)")
    t.add_argument("--risk-every", type=float, default=5.0, help="seconds between risk runs")
    t.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    return p


def say(msg: str) -> None:
    """Progress goes to stderr, one line per step."""
    print(f"[tickdata {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def start_ingest(spark: Any, url: str, spool: str, checkpoint: str, files: int,
                 once: bool) -> Any:
    """Starts the spool -> tickdata streaming query."""
    stream = (spark.readStream.format("cumulo_avro_spool").option("path", spool)
              .option("maxFilesPerTrigger", files).load())
    w = (stream.writeStream.format("cumulo").queryName(QUERY).option("url", url)
         .option("table", TABLE).option("upsert", "true").option("createTable", "true")
         .option("primaryKey", "product,datetime").option("queryName", QUERY)
         .option("checkpointLocation", checkpoint))
    w = w.trigger(availableNow=True) if once else w.trigger(processingTime="1 second")
    return w.start()


def visible_ticks(conn: cd.Connection) -> int:
    """Ticks the ingest query has committed (its ledger rows), as SQL sees them now."""
    cur = conn.cursor()
    cur.execute(f"SELECT coalesce(sum(n_rows), 0) FROM {quote_table(LEDGER)} "
                "WHERE query_name = %s", (QUERY,))
    n = int(cur.fetchone()[0])  # type: ignore[index]
    conn.commit()
    return n


def table_exists(conn: cd.Connection, name: str) -> bool:
    """Whether SQL sees the table now."""
    cur = conn.cursor()
    cur.execute("SELECT to_regclass(%s) IS NOT NULL", (name,))
    found = bool(cur.fetchone()[0])  # type: ignore[index]
    conn.commit()
    return found


def show_risk(rows: list[Any]) -> None:
    say(f"risk: VaR/ES {rows[0].confidence:.0%} over {rows[0].n_obs} returns" if rows else
        "risk: no product has two ticks yet")
    for r in rows:
        say(f"  {r.product:<8} as of {r.as_of:%Y-%m-%d %H:%M:%S}  VaR {r.var:.5f}  ES {r.es:.5f}")


def produce_all(args: argparse.Namespace, spool: str) -> None:
    """--once: writes the whole spool up front (only the files that are missing)."""
    total = args.ticks or 20000
    written = producer.produce(spool, total, args.products, args.seed)
    say(f"producer: {total} ticks of {args.products} products in "
        f"{(total + producer.PER_FILE - 1) // producer.PER_FILE} files ({len(written)} new)")


def run_once(args: argparse.Namespace, spark: Any, spool: str, checkpoint: str) -> int:
    q = start_ingest(spark, args.url, spool, checkpoint, args.files_per_trigger, once=True)
    conn = open_ledger(args.url)
    seen = -1
    while q.isActive:
        n = visible_ticks(conn)
        if n != seen:
            say(f"ingest: {n} ticks committed")
            seen = n
        q.awaitTermination(1.0)
    if q.exception() is not None:
        raise RuntimeError(f"the ingest query failed: {q.exception()}")
    say(f"ingest: done, {visible_ticks(conn)} ticks committed in all")
    conn.close()
    show_risk(run_risk(spark, args.url))
    return 0


def open_ledger(url: str) -> cd.Connection:
    """Connects, making sure the sink's ledger exists (the progress lines read it)."""
    conn = cd.connect(url)
    conn.cursor().execute(LEDGER_DDL.format(quote_table(LEDGER)))
    conn.commit()
    return conn


class Producer(threading.Thread):
    """Writes spool files at a steady rate, remembering when each was written."""

    def __init__(self, spool: str, rate: float, limit: int, products: int, seed: int) -> None:
        super().__init__(daemon=True)
        self.spool, self.rate, self.limit = spool, rate, limit
        self.products, self.seed = products, seed
        self.written: dict[int, float] = {}  # file seq -> wall time it became visible
        self.stop = threading.Event()

    def run(self) -> None:
        per = producer.PER_FILE
        seq = first = len(producer.spool_files(self.spool))
        covered = 0
        walks: producer.Walks = []
        start = time.monotonic()
        while not self.stop.is_set() and (not self.limit or seq * per < self.limit):
            due = start + (seq - first + 1) * per / self.rate
            if self.stop.wait(max(0.0, due - time.monotonic())):
                break
            if (seq + 1) * per > covered:  # extend the walks by a stretch at a time
                covered = (seq + 1) * per + (1 << 16)
                walks = producer.walks_for(covered, self.products, self.seed)
            producer.write_file(self.spool, seq, producer.ticks(
                seq * per, (seq + 1) * per, self.products, self.seed, walks))
            self.written[seq] = time.time()
            seq += 1


def ctrl_c_sets(stop: threading.Event) -> Any:
    """Makes the first Ctrl-C set `stop` (a second one interrupts); returns the old handler.

    pyspark's own SIGINT handler cancels every job and raises KeyboardInterrupt
    wherever the main thread is, typically inside a py4j call, which then
    prints py4j tracebacks; the live loop checks `stop` between steps instead.
    Only the main thread can set a handler: elsewhere this does nothing (None).
    """
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    return signal.signal(signal.SIGINT, handler)


class LatencyWatch(threading.Thread):
    """Times each spool file from written to visible in SQL, polling the sink's ledger.

    A thread of its own, so that a risk run (seconds of Spark) does not delay
    the moment a file is seen and inflate its latency.
    """

    def __init__(self, url: str, prod: Producer, first: int) -> None:
        super().__init__(daemon=True)
        self.url, self.prod, self.counted = url, prod, first
        self.latencies: list[float] = []
        self.visible = 0
        self.stop = threading.Event()

    def run(self) -> None:
        conn = cd.connect(self.url)
        try:
            while not self.stop.wait(0.1):
                self.visible = visible_ticks(conn)
                now = time.time()
                while ((self.counted + 1) * producer.PER_FILE <= self.visible
                       and self.counted in self.prod.written):
                    self.latencies.append(now - self.prod.written[self.counted])
                    self.counted += 1
        finally:
            conn.close()


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def run_live(args: argparse.Namespace, spark: Any, spool: str, checkpoint: str) -> int:
    os.makedirs(spool, exist_ok=True)
    base = len(producer.spool_files(spool))
    if base == 0:  # the stream's schema comes from the first file
        producer.produce(spool, producer.PER_FILE, args.products, args.seed)
        base = 1
    prod = Producer(spool, args.rate, args.ticks, args.products, args.seed)
    q = start_ingest(spark, args.url, spool, checkpoint, args.files_per_trigger, once=False)
    prod.start()
    conn = open_ledger(args.url)
    watch = LatencyWatch(args.url, prod, base)
    watch.start()
    next_risk = time.monotonic() + args.risk_every
    last_report = time.monotonic()
    say(f"producing {args.rate:.0f} ticks/s; Ctrl-C to stop")
    stop = threading.Event()
    previous = ctrl_c_sets(stop)
    waited = False
    try:
        while q.isActive and not stop.is_set():
            time.sleep(0.1)
            if time.monotonic() - last_report >= 5 and watch.latencies:
                recent = watch.latencies[-200:]
                say(f"ingest: {watch.visible} ticks visible; produced-to-visible p50 "
                    f"{percentile(recent, 0.5):.2f} s, p99 {percentile(recent, 0.99):.2f} s")
                last_report = time.monotonic()
            if time.monotonic() >= next_risk and not stop.is_set():
                if table_exists(conn, TABLE):
                    show_risk(run_risk(spark, args.url))
                elif not waited:  # the first micro-batch creates it
                    say(f"risk: waiting for the ingest to create {TABLE}")
                    waited = True
                next_risk = time.monotonic() + args.risk_every
    except KeyboardInterrupt:
        stop.set()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if stop.is_set():
            say("stopping")
        prod.stop.set()
        q.stop()
        watch.stop.set()
        watch.join(10)
        conn.close()
    lat = watch.latencies
    if lat:
        say(f"latency over {len(lat)} files: p50 {percentile(lat, 0.5):.2f} s, "
            f"p99 {percentile(lat, 0.99):.2f} s")
    return 0


def run(args: argparse.Namespace, spark: Any) -> int:
    """Runs the pipeline on a SparkSession (the caller owns it)."""
    spool = os.path.join(args.dir, "spool")
    checkpoint = os.path.abspath(os.path.join(args.dir, "checkpoint"))
    if args.once:
        produce_all(args, spool)
    spark.dataSource.register(AvroSpoolSource)
    if args.once:
        return run_once(args, spark, spool, checkpoint)
    return run_live(args, spark, spool, checkpoint)


def main(argv: list[str]) -> int:
    """Entry point of `cumulo pipeline ...`."""
    args = parser().parse_args(argv)
    say(f"starting Spark ({args.master})")
    spark = spark_session(args.master, app="cumulo-tickdata")
    try:
        return run(args, spark)
    finally:
        spark.stop()
