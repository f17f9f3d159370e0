"""ch: CH-benCHmark, the HTAP figure: the 22 analytic queries on live TPC-C data.

Steps, on the TPC-C data of `tpcc` (`--scale` warehouses, default 1):
1. Answers: every query runs on both systems over identical data and the rows
   must match (numbers compared to 6 significant digits, row order ignored
   where the query does not fully order it). A query whose answer differs is
   an error in Cumulo's column, never a latency.
2. Latency alone: each query once to warm up, then the median of 3 runs; the
   geometric mean over the 22 is the headline figure.
3. OLTP under analytics: the TPC-C mix runs `--seconds` alone, then again with
   one process looping over the 22 queries; tpmC with / tpmC alone is how much
   OLTP throughput each system keeps under an analytic stream.
4. Freshness: during the mixed run, a client commits a marker row and a second
   client polls until its snapshot shows it; the delay (p50, max of 20) is how
   stale the analytics are.
"""

from __future__ import annotations

import math
import re
import statistics
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path

import psycopg

from ..core import BenchError, Figure, RunContext
from ..systems import System
from . import tpcc

NAME = "ch"
DESCRIPTION = "CH-benCHmark: 22 queries alone and beside TPC-C, answers checked, freshness"
QUERIES = Path(__file__).resolve().parents[3] / "shared" / "suites" / "ch" / "queries.sql"
RUNS = 3


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
        if cur.description:
            rows = [tuple(_norm(v) for v in r) for r in cur.fetchall()]
    return rows


def same(a: list[tuple], b: list[tuple]) -> bool:
    """Returns whether two answers match, in order or else as multisets."""
    return a == b or sorted(map(repr, a)) == sorted(map(repr, b))


def _latencies(conn, statements: list[str]) -> float:
    answer(conn, statements)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        answer(conn, statements)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _freshness(system: System, stop: threading.Event, samples: list[float]) -> None:
    """Commits marker rows and measures how long until another session sees each one."""
    with system.connect() as writer, system.connect() as reader:
        while not stop.is_set() and len(samples) < 20:
            marker = uuid.uuid4().hex[:24]
            writer.execute(
                "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data)"
                " VALUES (1, 1, 1, 1, 1, 0, %s)",
                (marker,),
            )
            committed = time.perf_counter()
            while reader.execute(
                "SELECT count(*) FROM history WHERE h_w_id = 1 AND h_data = %s", (marker,)
            ).fetchone()[0] == 0:
                if time.perf_counter() - committed > 30:
                    raise BenchError("a committed row stayed invisible for 30 s")
            samples.append(time.perf_counter() - committed)
            stop.wait(0.2)


def run(ctx: RunContext) -> list[Figure]:
    """Loads, checks answers against PostgreSQL, times the queries, then the mixed runs."""
    scale = tpcc.scale_of(ctx)
    qs = queries()
    loads = {s.name: ctx.attempt(s, "load", tpcc.load, ctx, s, scale) for s in ctx.systems}
    up = [s for s in ctx.systems if loads[s.name] is not None]
    answers: dict[str, dict[str, list[tuple] | None]] = {}
    latency: dict[str, dict[str, float | None]] = {}
    for s in up:
        with s.connect() as conn:
            answers[s.name] = {q: ctx.attempt(s, q, answer, conn, st) for q, st in qs}
    reference = answers.get("postgres", {})
    for s in up:
        with s.connect() as conn:
            latency[s.name] = {}
            for q, st in qs:
                got, want = answers[s.name].get(q), reference.get(q)
                if got is None:
                    latency[s.name][q] = None
                elif s.name != "postgres" and want is not None and not same(got, want):
                    ctx.errors[(s.name, q)] = f"answer differs from PostgreSQL's ({len(got)} vs {len(want)} rows)"
                    latency[s.name][q] = None
                elif len(got) == 1 and got[0][:1] == ("error",):
                    ctx.errors[(s.name, q)] = f"fails with {got[0][1]} on this data (as on PostgreSQL)"
                    latency[s.name][q] = None
                else:
                    latency[s.name][q] = ctx.attempt(s, q, _latencies, conn, st)
    ctx.commands.append(f"CH-benCHmark Q1-Q22 alone: 1 warm-up + median of {RUNS}")

    figures = []
    for q, _ in qs:
        values = {s.name: latency.get(s.name, {}).get(q) for s in ctx.systems}
        figures.append(ctx.figure(NAME, f"{q} alone", "s", "lower", values, q))
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
        "" if len(common) == len(qs) else "left out: " + ", ".join(q for q, _ in qs if q not in common),
    ))

    # In the stream, Q15's view is created or replaced and dropped if it exists, so a
    # stream cut off by the deadline (or an error) never blocks the next run.
    stream = [
        [sql.replace("CREATE view", "CREATE OR REPLACE VIEW", 1).replace("DROP VIEW", "DROP VIEW IF EXISTS", 1)
         for sql in st]
        for _, st in qs
    ]
    alone, mixed, kept, fresh50, fresh_max = {}, {}, {}, {}, {}
    for s in ctx.systems:
        alone[s.name] = mixed[s.name] = kept[s.name] = fresh50[s.name] = fresh_max[s.name] = None
    for s in up:
        r1 = ctx.attempt(s, "oltp", tpcc.timed_run, ctx, s, scale)
        samples: list[float] = []
        stop = threading.Event()
        probe = threading.Thread(target=ctx.attempt, args=(s, "fresh", _freshness, s, stop, samples))
        probe.start()
        try:
            r2 = ctx.attempt(s, "htap", tpcc.timed_run, ctx, s, scale, stream)
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
    ctx.commands.append(
        f"TPC-C {ctx.options.clients} terminals, {ctx.options.seconds:g} s alone, then with 1 analytic stream"
    )
    figures += [
        ctx.figure(NAME, "tpmC alone", "tpmC", "higher", alone, "oltp"),
        ctx.figure(NAME, "tpmC with the analytic stream", "tpmC", "higher", mixed, "htap"),
        ctx.figure(NAME, "OLTP kept under analytics", "x", "higher", kept, "htap"),
        ctx.figure(NAME, "freshness p50 (commit to visible)", "s", "lower", fresh50, "fresh"),
        ctx.figure(NAME, "freshness max of 20", "s", "lower", fresh_max, "fresh"),
    ]
    return figures
