"""aggregation: `SELECT g, count(*), sum(x) FROM t GROUP BY g`, the analytical half of HTAP.

One scan, one hash aggregate into 100 groups, 100 rows back: the figure is
almost pure scan-and-aggregate speed per row, which is what a columnar or
vectorised path in Cumulo has to win. Seconds per query are the median of 3
timed runs after 1 warm-up (which also sets PostgreSQL's hint bits, so no
run pays for the load's first touch); the timed runs alternate between the
systems. PostgreSQL runs as installed, parallel workers included.

Every answer is checked against closed-form sums (x is the row id, so each
group's count and sum are arithmetic series): a fast wrong answer is an
error in the table, not a figure.

Sizes: by default the issue's two, 1M and then 10M rows. The 10M table is the
1M one plus 9M more rows (loaded after the 1M figures), so each load figure
is the COPY of that size's new rows. --scale (millions of rows) or --rows
runs one size instead.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from ..core import BenchError, Figure, RunContext, median
from ..progress import Progress
from ..systems import System
from .ingest import chunks

NAME = "aggregation"
DESCRIPTION = "SELECT g, count(*), sum(x) ... GROUP BY g over 1M (or 10M) rows, 100 groups"
TABLE = "bench_agg"
DDL = f"CREATE TABLE {TABLE} (id bigint PRIMARY KEY, g integer NOT NULL, x bigint NOT NULL)"
QUERY = f"SELECT g, count(*), sum(x) FROM {TABLE} GROUP BY g"
GROUPS = 100
BATCH = 100_000
WARMUPS, RUNS = 1, 3


def expected(rows: int) -> dict[int, tuple[int, int]]:
    """Returns {g: (count, sum(x))} for ids 1..rows with g = id % 100 and x = id."""
    out = {}
    for g in range(GROUPS):
        first = g or GROUPS
        n = 0 if first > rows else (rows - first) // GROUPS + 1
        if n:
            out[g] = (n, n * first + GROUPS * n * (n - 1) // 2)
    return out


SIZES = (1_000_000, 10_000_000)


def sizes(options: Any) -> tuple[int, ...]:
    """Returns the table sizes to measure: --rows or --scale, else 1M and 10M."""
    if options.rows:
        return (options.rows,)
    if options.scale:
        return (max(1, int(options.scale * 1_000_000)),)
    return SIZES


def run(ctx: RunContext) -> list[Figure]:
    """Measures each size in turn, growing one table (see the module doc)."""
    figures: list[Figure] = []
    loaded = 0
    failed: set[str] = set()
    for rows in sizes(ctx.options):
        figures += _run_size(ctx, loaded, rows, failed)
        loaded = rows
    return figures


def _run_size(ctx: RunContext, loaded: int, rows: int, failed: set[str]) -> list[Figure]:
    """Loads rows loaded+1..rows on each system, then times the query, alternating systems."""
    want = expected(rows)
    load_s = {
        s.name: None if s.name in failed else ctx.attempt(s, "load", _load, ctx, s, loaded, rows)
        for s in ctx.systems
    }
    failed.update(s.name for s in ctx.systems if load_s[s.name] is None)
    up = [s for s in ctx.systems if load_s[s.name] is not None]
    conns: dict[str, psycopg.Connection | None] = {}
    times: dict[str, list[float]] = {s.name: [] for s in up}
    try:
        for s in up:
            conns[s.name] = ctx.attempt(s, "query", s.connect)
        live = [s for s in up if conns.get(s.name) is not None]
        for i in range(WARMUPS + RUNS):
            for s in list(live):
                seconds = ctx.attempt(s, "query", _query, conns[s.name], want)  # not None: live
                if seconds is None:
                    live.remove(s)  # one failure is enough: do not time a broken system twice
                elif i >= WARMUPS:
                    times[s.name].append(seconds)
        ctx.commands.append(f"{QUERY}  -- {WARMUPS} warm-up + {RUNS} timed runs per system")
    finally:
        for conn in conns.values():
            if conn is not None:
                conn.close()
    per_query = {
        s.name: median(times[s.name]) if len(times.get(s.name, [])) == RUNS else None
        for s in ctx.systems
    }
    steps = {s.name: "load" if load_s[s.name] is None else "query" for s in ctx.systems}
    what = f"{rows:,} rows" if not loaded else f"rows {loaded + 1:,}..{rows:,}"
    return [
        ctx.figure(NAME, f"load (COPY text), {what}", "s", "lower", load_s, "load"),
        ctx.figure(
            NAME, f"GROUP BY g, {rows:,} rows (median of {RUNS})", "s", "lower", per_query, steps
        ),
    ]


def _load(ctx: RunContext, system: System, loaded: int, rows: int) -> float:
    """Creates the table (when empty) and COPYs rows loaded+1..rows; returns the seconds."""
    spent = 0.0
    with system.connect() as conn, conn.cursor() as cur:
        if not loaded:
            cur.execute(f"DROP TABLE IF EXISTS {TABLE}")
            cur.execute(DDL)
        ctx.commands.append(
            f"{system.name}: {DDL}; COPY {TABLE} FROM STDIN x rows {loaded + 1}..{rows}"
        )
        with Progress(f"{system.label:<10} load {rows:,}", rows - loaded) as bar:
            for ids in chunks(rows, BATCH):
                if ids.stop <= loaded + 1:
                    continue
                ids = range(max(ids.start, loaded + 1), ids.stop)
                data = "".join([f"{i}\t{i % GROUPS}\t{i}\n" for i in ids]).encode()
                start = time.perf_counter()
                with cur.copy(f"COPY {TABLE} (id, g, x) FROM STDIN") as copy:
                    copy.write(data)
                spent += time.perf_counter() - start
                bar.advance(len(ids))
    return spent


def _query(conn: psycopg.Connection, want: dict[int, tuple[int, int]]) -> float:
    """Runs the query once, checks the answer, and returns its wall-clock seconds."""
    start = time.perf_counter()
    got = conn.execute(QUERY).fetchall()
    seconds = time.perf_counter() - start
    answer = {int(g): (int(n), int(s)) for g, n, s in got}
    if answer != want:
        wrong = sorted(g for g in set(want) | set(answer) if answer.get(g) != want.get(g))
        raise BenchError(
            f"wrong answer for {len(wrong)} of {len(want)} groups (first: g={wrong[0]}"
            f" got {answer.get(wrong[0])}, want {want.get(wrong[0])})"
        )
    return seconds
