"""tpch: TPC-H's 22 queries on Cumulo, PostgreSQL 15 and DuckDB, answers checked.

Steps, at scale factor `--scale` (default 0.1; 1 for SF 1; 0.01 for a smoke run):
1. Data: DuckDB's tpch extension (the `duckdb-extension-tpch` wheel, loaded
   from its file: no download) generates the eight tables once as CSV files
   (`bench.tpch.data`).
2. Load: every system gets the same files by COPY, with primary keys, then
   ANALYZE; the seconds it took are a figure. DuckDB generates its own copy
   in memory (the same generator, so the same rows) and is the near-limit
   reference: a vectorized, multi-threaded column store in process.
3. Answers: each query runs once per system (the warm-up) and its rows are
   compared with TPC-H's reference answer shipped in the extension (at SF
   0.01, 0.1 and 1; at other scales with PostgreSQL's rows, or DuckDB's where
   PostgreSQL did not finish under the cap: Q17 and Q20 at SF 0.3). A wrong answer is
   an error in that system's column, never a latency.
4. Latency: the median of RUNS runs (1 run when the warm-up took longer than
   SLOW seconds); the geometric mean over the queries every system answered
   is the headline figure. Every statement runs under `statement_timeout` =
   TIMEOUT seconds (`CUMULO_BENCH_TPCH_TIMEOUT`, default 120) on the servers.

`CUMULO_BENCH_TPCH_QUERIES=Q8,Q19` runs only those queries (while working on them; the
geometric mean then covers only them). `CUMULO_BENCH_TPCH_DATA=DIR` keeps the generated CSV
files in DIR for later runs (SF 1 takes a minute to generate), instead of the run's temp dir.

Beside the wall-clock figures (the headline), the servers' CPU seconds (their whole
process tree, from /proc) for the load and for each query's median run are figures too,
and so is each server's peak resident memory (VmHWM; PostgreSQL: the largest process):
on a shared machine wall time also measures the neighbours.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from typing import Any

import psycopg

from ..core import BenchError, Figure, RunContext
from ..server_cost import cpu_of, listening_pid, tree
from ..systems import System
from ..tpch import answers as A
from ..tpch import data

NAME = "tpch"
DESCRIPTION = "TPC-H 22 queries (SF --scale, default 0.1) vs PostgreSQL and DuckDB, answers checked"
RUNS = 3
SLOW = 5.0
TIMEOUT = float(os.environ.get("CUMULO_BENCH_TPCH_TIMEOUT", "120"))
DUCKDB = "duckdb"


def scale_of(ctx: RunContext) -> float:
    """Returns the scale factor: --scale, default 0.1."""
    return ctx.options.scale if ctx.options.scale else 0.1


def load(ctx: RunContext, system: System, directory: str, cpu: dict[str, float]) -> float:
    """Creates, COPYs and ANALYZEs the eight tables on one system; returns the seconds (and
    notes the server's CPU seconds in `cpu`)."""
    clock = server_clock(system)
    start, cpu0 = time.perf_counter(), clock()
    with system.connect() as conn:
        counts = data.load(conn, directory)
    took = time.perf_counter() - start
    cpu[system.name] = clock() - cpu0
    ctx.commands.append(f"{system.name}: TPC-H load (COPY csv + ANALYZE) "
                        + ", ".join(f"{t} {n:,}" for t, n in counts.items()))
    return took


def server_clock(system: System) -> Any:
    """A function giving the CPU seconds so far of the server's process tree (nan when the
    server is not ours to see: a --cumulo-url one): every live thread's in nanoseconds
    (`cpu_of`; ticks of 10 ms hid most queries), plus, in ticks, what threads that ended
    used (a load's connection thread: its process keeps the count) and what the root
    reaped from ended children (PostgreSQL's parallel workers)."""
    pid = listening_pid(system.port)
    if pid is None:
        return lambda: math.nan

    def clock() -> float:
        total = 0.0
        for p in tree(pid):
            try:
                live = sum(_ticks(f"/proc/{p}/task/{t}/stat")[0] for t in os.listdir(f"/proc/{p}/task"))
                total += cpu_of(p) + (_ticks(f"/proc/{p}/stat")[0] - live) / _TICK
            except OSError:
                continue  # NB: ended meanwhile; the root reaps its time below
        return total + _ticks(f"/proc/{pid}/stat")[1] / _TICK
    return clock


_TICK = os.sysconf("SC_CLK_TCK")


def _ticks(stat: str) -> tuple[int, int]:
    """(utime + stime, cutime + cstime) of a /proc stat file, in clock ticks."""
    with open(stat) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def peak_rss(system: System) -> float | None:
    """The largest VmHWM (GB) among the server's processes (Cumulo: its one process)."""
    pid = listening_pid(system.port)
    peak = 0
    for p in tree(pid) if pid is not None else []:
        try:
            with open(f"/proc/{p}/status") as f:
                peak = max([peak] + [int(ln.split()[1]) for ln in f if ln.startswith("VmHWM")])
        except (OSError, ValueError):
            continue
    return peak / 2**20 if peak else None


def _run(conn: Any, sql: str) -> list[tuple]:
    try:
        return conn.execute(sql).fetchall()
    except psycopg.errors.QueryCanceled as exc:
        raise BenchError(f"over the {TIMEOUT:g} s cap (statement_timeout, 57014)") from exc


def _timed(fn: Any, *args: Any) -> tuple[list[tuple], float]:
    start = time.perf_counter()
    rows = fn(*args)
    return rows, time.perf_counter() - start


def _median(fn: Any, sql: str, first: float, clock: Any, cpu: dict[str, float]) -> float:
    """The median wall time of the runs; the median of the server CPU goes to cpu[sql]."""
    times, used = [], []
    for _ in range(1 if first > SLOW else RUNS):
        start, cpu0 = time.perf_counter(), clock()
        fn(sql)
        times.append(time.perf_counter() - start)
        used.append(clock() - cpu0)
    cpu[sql] = statistics.median(used)
    return statistics.median(times)


class _Duck:
    """DuckDB in process with the same data (its own dbgen), shaped like a System for figures."""

    name = DUCKDB
    label = "DuckDB"

    def __init__(self, sf: float) -> None:
        self.conn = data.duck()
        start = time.perf_counter()
        self.conn.execute(f"CALL dbgen(sf={sf})")
        self.load_seconds = time.perf_counter() - start

    def query(self, sql: str) -> list[tuple]:
        return self.conn.execute(sql).fetchall()

    def log_tail(self, lines: int = 10) -> str:
        return ""


def run(ctx: RunContext) -> list[Figure]:
    """Generates, loads, checks answers, then times the 22 queries on every system."""
    sf = scale_of(ctx)
    directory = data.generate(os.environ.get("CUMULO_BENCH_TPCH_DATA") or ctx.workdir, sf)
    queries = chosen(data.queries(), os.environ.get("CUMULO_BENCH_TPCH_QUERIES", ""))
    reference = data.answers(sf)
    ctx.commands.append(f"TPC-H SF {sf:g}: data, queries and reference answers from DuckDB's tpch"
                        " extension" + ("" if reference else " (no reference answers at this"
                                        " scale: checked against PostgreSQL's rows)"))
    load_cpu: dict[str, float] = {}
    loads = {s.name: ctx.attempt(s, "load", load, ctx, s, directory, load_cpu)
             for s in ctx.systems}
    up = [s for s in ctx.systems if loads[s.name] is not None]
    duck: _Duck | None = None
    try:
        duck = _Duck(sf)
    except data.Unavailable as exc:
        ctx.errors[(DUCKDB, "load")] = str(exc)

    got: dict[str, dict[str, tuple[list[tuple], float] | None]] = {}
    runners: dict[str, Any] = {}
    clocks: dict[str, Any] = {s.name: server_clock(s) for s in up}
    clocks[DUCKDB] = time.process_time  # NB: in process, so the bench's own CPU
    query_cpu: dict[str, dict[str, float]] = {}
    conns = []
    try:
        for s in up:
            conn = s.connect()
            conns.append(conn)
            conn.execute(f"SET statement_timeout = {int(TIMEOUT * 1000)}")
            runners[s.name] = (s, lambda sql, c=conn: _run(c, sql))
        if duck is not None:
            runners[DUCKDB] = (duck, duck.query)
        for name, (system, fn) in runners.items():
            got[name] = {}
            for q, sql in queries:
                got[name][q] = res = ctx.attempt(system, q, _timed, fn, sql)
                if res:
                    print(f"[bench] {system.label}: {q} answered in {res[1]:.3g} s", file=sys.stderr)
        if not reference:  # PostgreSQL's rows; DuckDB's where PostgreSQL gave none (its cap)
            for name in ("postgres", DUCKDB):
                for q, res in got.get(name, {}).items():
                    if res and q not in reference:
                        reference[q] = [tuple(_text(v) for v in r) for r in res[0]]
        latency: dict[str, dict[str, float | None]] = {}
        for name, (system, fn) in runners.items():
            latency[name] = {}
            query_cpu[name] = {}
            for q, sql in queries:
                res = got[name].get(q)
                if res is None:
                    latency[name][q] = None
                    continue
                want = reference.get(q)
                wrong = A.mismatch(res[0], want) if want is not None else "no reference answer"
                if wrong:
                    ctx.errors[(name, q)] = f"wrong answer: {wrong}"
                    latency[name][q] = None
                    continue
                latency[name][q] = ctx.attempt(system, q, _median, fn, sql, res[1],
                                               clocks[name], query_cpu[name])
                if sql in query_cpu[name]:
                    query_cpu[name][q] = query_cpu[name].pop(sql)
                    print(f"[bench] {system.label}: {q} {latency[name][q]:.3g} s,"
                          f" {query_cpu[name][q]:.3g} s CPU", file=sys.stderr)
    finally:
        for conn in conns:
            conn.close()
        if duck is not None:
            duck.conn.close()
    ctx.commands.append(f"TPC-H Q1-Q22: answer check (the warm-up), then median of {RUNS} runs"
                        f" (1 run above {SLOW:g} s); statement_timeout {TIMEOUT:g} s on the servers")

    names = [s.name for s in ctx.systems] + [DUCKDB]
    load_values: dict[str, float | None] = {s.name: loads[s.name] for s in ctx.systems}
    load_values[DUCKDB] = duck.load_seconds if duck else None
    figures = [ctx.figure(NAME, f"load SF {sf:g} (COPY + ANALYZE; DuckDB: dbgen)", "s", "lower",
                          load_values, "load")]
    figures.append(ctx.figure(NAME, f"load SF {sf:g}, server CPU", "s", "lower",
                              {s.name: load_cpu.get(s.name) for s in ctx.systems}, "load"))
    figures.append(ctx.figure(NAME, f"peak server RSS SF {sf:g} (VmHWM)", "GB", "lower",
                              {s.name: peak_rss(s) for s in ctx.systems}, "load"))
    for q, _ in queries:
        values = {n: latency.get(n, {}).get(q) for n in names}
        figures.append(ctx.figure(NAME, f"{q} SF {sf:g}", "s", "lower", values, q))
        figures.append(ctx.figure(NAME, f"{q} SF {sf:g}, server CPU (DuckDB: in process)", "s",
                                  "lower", {n: query_cpu.get(n, {}).get(q) for n in names}, q))
    present = [n for n in names if n in latency]
    common = [q for q, _ in queries if present and all(latency[n].get(q) for n in present)]
    geo: dict[str, float | None] = {}
    for n in names:
        lat = latency.get(n, {})
        ok = [lat[q] for q in common if lat.get(q)]
        geo[n] = math.exp(sum(map(math.log, ok)) / len(ok)) if ok else None
        if geo[n] is None:
            ctx.errors.setdefault((n, "geomean"), "no query answered correctly on every system")
    cpu_geo: dict[str, float | None] = {}
    for n in names:
        used = [query_cpu.get(n, {}).get(q) for q in common]
        ok = [u for u in used if u and u > 0]
        cpu_geo[n] = math.exp(sum(map(math.log, ok)) / len(ok)) if ok and len(ok) == len(used) else None
    left_out = [q for q, _ in queries if q not in common]
    figures.append(ctx.figure(
        NAME, f"geometric mean SF {sf:g}, {len(common)} of {len(queries)} queries", "s", "lower",
        geo, "geomean", "left out (not answered correctly everywhere): " + ", ".join(left_out)
        if left_out else ""))
    figures.append(ctx.figure(NAME, f"geometric mean SF {sf:g}, server CPU", "s", "lower",
                              cpu_geo, "geomean"))
    return figures


def chosen(queries: list[tuple[str, Any]], names: str) -> list[tuple[str, Any]]:
    """The queries named in a comma-separated list (all of them for an empty one).

    >>> chosen([("Q1", "a"), ("Q2", "b"), ("Q3", "c")], "q3, Q1")
    [('Q1', 'a'), ('Q3', 'c')]
    """
    want = {n.strip().upper() for n in names.split(",") if n.strip()}
    return [(q, sql) for q, sql in queries if not want or q.upper() in want]


def _text(v: Any) -> str:
    """A PostgreSQL value as the reference answers print it (for checking against PG's rows)."""
    if v is None:
        return "NULL"
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)
