"""pgbench: TPC-B (sort of) and select-only, the OLTP figures everyone quotes.

The load is stock `pgbench -i -s N` (steps dtgvp: COPY, VACUUM ANALYZE,
primary keys) on both systems; the runs are stock too, with `-M prepared`
(Parse once, then Bind/Execute: the path a server's plan cache must make
fast), 8 clients on 2 threads, and no `-n`, so pgbench vacuums the small tables
and truncates the history before each run as it does for every user. Runs
alternate between the systems: PostgreSQL TPC-B, Cumulo TPC-B, PostgreSQL
select-only, Cumulo select-only, so a slow minute on the shared machine
hurts both rather than one.

Options: --scale (pgbench scale factor, default 10: 1M accounts),
--seconds (per run, default 30), --clients, --threads.
"""

from __future__ import annotations

import time

from ..core import Figure, RunContext
from ..pgbench_tool import PgbenchResult, parse_summary, pgbench
from ..systems import System

NAME = "pgbench"
DESCRIPTION = "pgbench TPC-B and select-only (-M prepared), tps and latency"
DEFAULT_SCALE = 10
ROWS_PER_SCALE = 100_000


def run(ctx: RunContext) -> list[Figure]:
    """Loads pgbench's tables on every system, then alternates timed runs."""
    opts = ctx.options
    scale = max(1, int(opts.scale or DEFAULT_SCALE))
    load_seconds: dict[str, float | None] = {}
    for system in ctx.systems:
        load_seconds[system.name] = ctx.attempt(system, "load", lambda s=system: _load(ctx, s, scale))
    loaded = [s for s in ctx.systems if load_seconds[s.name] is not None]
    figures = [
        ctx.figure(NAME, f"load (pgbench -i -s {scale})", "s", "lower", load_seconds, "load")
    ]
    common = ["-M", "prepared", "-c", str(opts.clients), "-j", str(opts.threads)]
    for test, flags in (("TPC-B", []), ("select-only", ["-S"])):
        results: dict[str, PgbenchResult | None] = {s.name: None for s in ctx.systems}
        for system in loaded:
            results[system.name] = ctx.attempt(
                system, test, lambda s=system, t=test, f=flags: _timed(ctx, s, t, f + common)
            )
        figures += _figures(ctx, test, scale, results)
    return figures


def _load(ctx: RunContext, system: System, scale: int) -> float:
    """Runs `pgbench -i` and returns how long it took."""
    start = time.monotonic()
    pgbench(ctx, system, ["-i", "-s", str(scale)], "load", rows=scale * ROWS_PER_SCALE)
    return time.monotonic() - start


def _timed(ctx: RunContext, system: System, test: str, args: list[str]) -> PgbenchResult:
    """Runs one timed pgbench test and parses its summary."""
    return parse_summary(pgbench(ctx, system, args, test, seconds=ctx.options.seconds))


def _figures(
    ctx: RunContext, test: str, scale: int, results: dict[str, PgbenchResult | None]
) -> list[Figure]:
    """Turns one test's results into a tps and a latency figure."""
    failed = {n: r.failed for n, r in results.items() if r is not None and r.failed}
    note = "; ".join(f"{n}: {k} failed transactions" for n, k in failed.items())
    label = f"{test} -s {scale} -c {ctx.options.clients}"
    tps = {n: (r.tps if r else None) for n, r in results.items()}
    latency = {n: (r.latency_ms if r else None) for n, r in results.items()}
    steps = {n: test if ctx.errors.get((n, test)) else "load" for n in results}
    return [
        ctx.figure(NAME, f"{label} tps", "tx/s", "higher", tps, steps, note),
        ctx.figure(NAME, f"{label} latency", "ms", "lower", latency, steps, note),
    ]
