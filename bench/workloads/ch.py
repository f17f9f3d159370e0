"""ch: CH-benCHmark, the HTAP figure: the 22 analytic queries on live TPC-C data.

Steps, on the TPC-C data of `tpcc` (`--scale` warehouses, default 1):
1. Answers: every query runs on both systems over identical data and the rows
   must match (numbers compared to 6 significant digits, row order ignored
   where the query does not fully order it). A query whose answer differs is
   an error in Cumulo's column, never a latency. An error is an answer too:
   on small data PostgreSQL fails Q8 with 22012, and Cumulo must do the same.
2. Latency alone: the answer run doubles as the warm-up, then the median of 3
   runs (1 run when a query takes longer than SLOW seconds); the geometric mean
   over the queries every system answered is the headline figure, the others
   are named in its note.
   Every statement runs under `statement_timeout` = TIMEOUT seconds
   (`CUMULO_BENCH_CH_TIMEOUT`, default 60) on both systems (`CUMULO_BENCH_CH_QUERIES=Q16,Q17`
   runs only those queries): a query that
   does not finish in time is an error in the table ("over the ... cap"), not a
   hang and not a hidden gap.
3. OLTP under analytics: the TPC-C mix runs `--seconds` alone, then again with
   one process looping over the queries that system answered within the cap
   (a statement cancelled by the timeout in the stream is counted and skipped);
   tpmC with / tpmC alone is how much OLTP throughput each system keeps under
   an analytic stream.
4. Freshness: during the mixed run, a client commits a marker row (to a small
   table of its own) and a second client polls it by primary key until its
   snapshot shows it; the delay (p50, max of 20) is how stale the analytics are.
"""

from __future__ import annotations

import math
import os
import re
import statistics
import sys
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path

import psycopg

from ..core import BenchError, Figure, RunContext
from ..systems import System
from . import tpcc
from .tpch import chosen

NAME = "ch"
DESCRIPTION = "CH-benCHmark: 22 queries alone and beside TPC-C, answers checked, freshness"
QUERIES = Path(__file__).resolve().parents[3] / "shared" / "suites" / "ch" / "queries.sql"
RUNS = 3
TIMEOUT = float(os.environ.get("CUMULO_BENCH_CH_TIMEOUT", "60"))  # seconds per statement
SLOW = 5.0  # a query slower than this alone is timed once, not 3 times
FRESH = "bench_fresh"  # the freshness probe's own table: marker rows by primary key


def queries() -> list[tuple[str, list[str]]]:
    """Returns [(Qn, statements)] from the suite; Q15 is CREATE VIEW, SELECT, DROP VIEW."""
    out: list[tuple[str, list[str]]] = []
    for block in re.split(r"^-- (Q\d+)\s*$", QUERIES.read_text(), flags=re.M)[1:]:
        if re.fullmatch(r"Q\d+", block):
            out.append((block, []))
        else:
            body = "\n".join(ln for ln in block.splitlines() if not ln.startswith("--"))
            out[-1][1].extend(s.strip() for s in body.split(";") if s.strip())
    return out


def _norm(value):
    if isinstance(value, float | Decimal):
        f = float(value)
        return f if f == 0 or not math.isfinite(f) else float(f"{f:.6g}")
    if isinstance(value, str):
        return value.rstrip()
    return value


def answer(conn, statements: list[str]) -> list[tuple]:
    """Runs a query's statements; returns the rows of the one that returns rows, normalised.

    A query that fails returns [("error", SQLSTATE)]: on small data PostgreSQL
    itself fails Q8 with 22012 (a year whose order lines all have amount 0), and
    the same error on both systems is the same answer.
    """
    rows: list[tuple] = []
    for sql in statements:
        try:
            cur = conn.execute(sql)
        except psycopg.errors.DataError as exc:
            return [("error", exc.sqlstate)]
        except psycopg.errors.QueryCanceled as exc:
            if sql is not statements[-1] and statements[-1].upper().startswith("DROP VIEW"):
                conn.execute(statements[-1])  # Q15: drop its view, or the next run cannot create it
            raise BenchError(f"over the {TIMEOUT:g} s cap (statement_timeout, 57014)") from exc
        if cur.description:
            rows = [tuple(_norm(v) for v in r) for r in cur.fetchall()]
    return rows


def same(a: list[tuple], b: list[tuple]) -> bool:
    """Returns whether two answers match, in order or else as multisets."""
    return a == b or sorted(map(repr, a)) == sorted(map(repr, b))


def limit(conn) -> None:
    """Sets the per-statement cap on a connection (the same on every system)."""
    conn.execute(f"SET statement_timeout = {int(TIMEOUT * 1000)}")


def _latencies(conn, statements: list[str], first: float) -> float:
    """Returns the median of RUNS timed runs (the answer run, `first` s, was the warm-up)."""
    times = []
    for _ in range(1 if first > SLOW else RUNS):
        start = time.perf_counter()
        answer(conn, statements)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _timed_answer(conn, statements: list[str]) -> tuple[list[tuple], float]:
    start = time.perf_counter()
    rows = answer(conn, statements)
    return rows, time.perf_counter() - start


def _freshness(system: System, stop: threading.Event, samples: list[float]) -> None:
    """Commits marker rows and measures how long until another session sees each one.

    The markers go to a small table of their own, and the reader polls by primary
    key: each poll is a point read on both systems, so the figure is the delay until
    a commit is visible to other sessions (the analytic queries take the same kind
    of snapshot), not the time of a scan over `history`, which grows with the run
    and made up most of the figure when the probe polled `history` itself.
    """
    with system.connect() as writer, system.connect() as reader:
        writer.execute(f"CREATE TABLE IF NOT EXISTS {FRESH} (id bigint PRIMARY KEY, marker text)")
        (last,) = writer.execute(f"SELECT coalesce(max(id), 0) FROM {FRESH}").fetchone()
        while not stop.is_set() and len(samples) < 20:
            last += 1
            writer.execute(f"INSERT INTO {FRESH} VALUES (%s, %s)", (last, uuid.uuid4().hex))
            committed = time.perf_counter()
            while reader.execute(f"SELECT count(*) FROM {FRESH} WHERE id = %s", (last,)).fetchone()[0] == 0:
                if time.perf_counter() - committed > 30:
                    raise BenchError("a committed row stayed invisible for 30 s")
            samples.append(time.perf_counter() - committed)
            stop.wait(0.2)


def run(ctx: RunContext) -> list[Figure]:
    """Loads, checks answers against PostgreSQL, times the queries, then the mixed runs."""
    scale = tpcc.scale_of(ctx)
    qs = chosen(queries(), os.environ.get("CUMULO_BENCH_CH_QUERIES", ""))
    loads = {s.name: ctx.attempt(s, "load", tpcc.load, ctx, s, scale) for s in ctx.systems}
    up = [s for s in ctx.systems if loads[s.name] is not None]
    answers: dict[str, dict[str, tuple[list[tuple], float] | None]] = {}
    latency: dict[str, dict[str, float | None]] = {}
    for s in up:
        with s.connect() as conn:
            limit(conn)
            answers[s.name] = {}
            for q, st in qs:
                answers[s.name][q] = got = ctx.attempt(s, q, _timed_answer, conn, st)
                if got:
                    print(f"[bench] {s.label}: {q} answered in {got[1]:.3g} s", file=sys.stderr)
    reference = {q: a[0] for q, a in answers.get("postgres", {}).items() if a}
    failed: dict[str, str] = {}  # queries whose answer (PostgreSQL's too) is an SQLSTATE
    for s in up:
        with s.connect() as conn:
            limit(conn)
            latency[s.name] = {}
            for q, st in qs:
                timed, want = answers[s.name].get(q), reference.get(q)
                got, first = timed if timed else (None, 0.0)
                if got is None:
                    latency[s.name][q] = None
                elif s.name != "postgres" and "postgres" in answers and want is None:
                    ctx.errors[(s.name, q)] = "not timed: PostgreSQL gave no answer to check it against"
                    latency[s.name][q] = None
                elif s.name != "postgres" and want is not None and not same(got, want):
                    ctx.errors[(s.name, q)] = f"answer differs from PostgreSQL's ({len(got)} vs {len(want)} rows)"
                    latency[s.name][q] = None
                else:
                    if len(got) == 1 and got[0][:1] == ("error",):
                        # PostgreSQL's answer too (Q8 divides by a sum that is 0 on small data):
                        # the error comes after every join and the aggregate, so it is timed.
                        failed[q] = got[0][1]
                    latency[s.name][q] = ctx.attempt(s, q, _latencies, conn, st, first)
    ctx.commands.append(
        f"CH-benCHmark Q1-Q22 alone: answer check (the warm-up), then median of {RUNS} runs"
        f" (1 run above {SLOW:g} s); statement_timeout {TIMEOUT:g} s on every system"
    )

    figures = []
    for q, _ in qs:
        values = {s.name: latency.get(s.name, {}).get(q) for s in ctx.systems}
        note = f"answer: error {failed[q]} on every system, as on PostgreSQL" if q in failed else ""
        figures.append(ctx.figure(NAME, f"{q} alone", "s", "lower", values, q, note))
    # The geometric mean covers the queries every system answered (the same set for all).
    common = [q for q, _ in qs if all(latency.get(s.name, {}).get(q) for s in up)]
    geo: dict[str, float | None] = {}
    for s in ctx.systems:
        lat = latency.get(s.name, {})
        ok = [lat[q] for q in common if lat.get(q)]
        geo[s.name] = math.exp(sum(map(math.log, ok)) / len(ok)) if ok else None
        if lat and geo[s.name] is None:
            ctx.errors[(s.name, "geomean")] = "no query ran on every system"
    figures.append(ctx.figure(
        NAME, f"geometric mean of {len(common)} of {len(qs)} queries", "s", "lower", geo, "geomean",
        "; ".join(filter(None, [
            "" if len(common) == len(qs) else "left out: " + ", ".join(q for q, _ in qs if q not in common),
            "" if not failed else "timed to the same error on every system (PostgreSQL's answer on"
            " this data): " + ", ".join(f"{q} ({code})" for q, code in failed.items()),
        ])),
    ))

    # In the stream, Q15's view is created or replaced and dropped if it exists, so a
    # stream cut off by the deadline (or an error) never blocks the next run.
    stream = {
        q: [sql.replace("CREATE view", "CREATE OR REPLACE VIEW", 1)
            .replace("DROP VIEW", "DROP VIEW IF EXISTS", 1) for sql in st]
        for q, st in qs
    }
    notes = []
    alone, mixed, kept, fresh50, fresh_max = {}, {}, {}, {}, {}
    for s in ctx.systems:
        alone[s.name] = mixed[s.name] = kept[s.name] = fresh50[s.name] = fresh_max[s.name] = None
    for s in up:
        r1 = ctx.attempt(s, "oltp", tpcc.timed_run, ctx, s, scale)
        # The stream runs the queries this system answered within the cap (the rest would only
        # be cancelled again), under the same statement_timeout.
        mine = [q for q, _ in qs if answers[s.name].get(q)]
        samples: list[float] = []
        stop = threading.Event()
        probe = threading.Thread(target=ctx.attempt, args=(s, "fresh", _freshness, s, stop, samples))
        probe.start()
        try:
            r2 = ctx.attempt(
                s, "htap", tpcc.timed_run, ctx, s, scale, [stream[q] for q in mine], TIMEOUT
            )
        finally:
            stop.set()
            probe.join()
        alone[s.name] = r1.tpmc if r1 else None
        mixed[s.name] = r2.tpmc if r2 else None
        if r1 and r2 and r1.tpmc:
            kept[s.name] = r2.tpmc / r1.tpmc
        if samples:
            fresh50[s.name] = statistics.median(samples)
            fresh_max[s.name] = max(samples)
        for label, r in (("alone", r1), ("with analytics", r2)):
            if r:
                notes.append(f"{s.name} {label}: {tpcc.describe(r)}")
        if r2:
            done = sum(len(v) for v in r2.query_times.values())
            skipped = [q for q, _ in qs if q not in mine]
            left = f" (not {', '.join(skipped)}: no answer within the cap)" if skipped else ""
            notes.append(
                f"{s.name} analytic stream: {done} queries run{left}, {r2.cancelled} cancelled at"
                f" the {TIMEOUT:g} s cap, {r2.data_errors} failed on the live data (22xxx)"
            )
    ctx.commands.append(
        f"TPC-C {ctx.options.clients} terminals, {ctx.options.seconds:g} s alone, then with 1 analytic stream"
    )
    ctx.notes += [f"ch: {n}" for n in notes]
    figures += [
        ctx.figure(NAME, "tpmC alone", "tpmC", "higher", alone, "oltp"),
        ctx.figure(NAME, "tpmC with the analytic stream", "tpmC", "higher", mixed, "htap"),
        ctx.figure(NAME, "OLTP kept under analytics", "x", "higher", kept, "htap"),
        ctx.figure(NAME, "freshness p50 (commit to visible)", "s", "lower", fresh50, "fresh"),
        ctx.figure(NAME, "freshness max of 20", "s", "lower", fresh_max, "fresh"),
    ]
    return figures
