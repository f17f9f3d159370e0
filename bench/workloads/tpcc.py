"""tpcc: our own TPC-C (bench/tpcc/), the standard mix with keying and think times off.

Both systems load the same generated data (`--scale` warehouses, default 1,
full per-warehouse cardinalities), then run `--clients` terminal processes
(default 8) for `--seconds` each, systems in turn. Every transaction runs at
REPEATABLE READ and retries on 40001/40P01, on both systems alike. After the
run the consistency conditions 1-4 of clause 3.3.2 must hold: a fast but
inconsistent run is an error in the table, not a figure.

The figure is tpmC (New-Order commits per minute); transactions per second of
every type and the retry count go in the note. This is not an audited TPC-C
result: no think times, no keying times, and a scaled-down run length.
"""

from __future__ import annotations

import time

from ..core import BenchError, Figure, RunContext
from ..progress import Progress
from ..systems import System
from ..tpcc import data, driver
from ..tpcc.txns import consistency

NAME = "tpcc"
DESCRIPTION = "TPC-C, standard mix, N terminal processes, 40001 retries (tpmC)"


def scale_of(ctx: RunContext) -> data.Scale:
    """Returns the data scale: --scale warehouses (default 1) at full cardinality; 0 is tiny."""
    if ctx.options.scale is not None and ctx.options.scale < 1:
        return data.Scale.tiny()  # a smoke run: seconds per system
    return data.Scale(warehouses=max(1, int(ctx.options.scale or 1)))


def generate(ctx: RunContext, scale: data.Scale) -> None:
    """Generates the data once into the run's work dir, before (and outside) any timed load."""
    if data.generated(scale, ctx.workdir):
        return
    with Progress("generate  ", data.approx_rows(scale)) as bar:
        data.generate(scale, ctx.workdir, progress=bar.advance)


def load(ctx: RunContext, system: System, scale: data.Scale) -> float:
    """Creates and loads the TPC-C and CH-benCHmark tables; returns the seconds it took.

    COPY text from the pre-generated files, 20k rows per COPY, then ANALYZE;
    every table's count(*) is checked against the rows sent (not timed apart).
    """
    generate(ctx, scale)
    total = data.approx_rows(scale)
    start = time.perf_counter()
    with system.connect() as conn, Progress(f"{system.label:<10} load", total) as bar:
        counts = data.load(conn, scale, progress=bar.advance, cache_dir=ctx.workdir)
        conn.execute("ANALYZE")
    ctx.commands.append(
        f"{system.name}: TPC-C load (COPY), {scale.warehouses} warehouse(s), rows per table "
        + ", ".join(f"{t} {n:,}" for t, n in counts.items())
    )
    return time.perf_counter() - start


def describe(r: driver.RunResult) -> str:
    """Returns a run's transactions per second, retries and given-up transactions, for notes."""
    gave_up = sum(r.counts.failures.values())
    return (
        f"{r.tps:.0f} tx/s, {r.counts.retries} retries of 40001/40P01, {gave_up} given up after"
        f" {driver.MAX_TRIES} tries, {r.counts.rollbacks} New-Order rollbacks (1 % by design)"
    )


def timed_run(
    ctx: RunContext, system: System, scale: data.Scale, queries=None, timeout: float = 0.0
) -> driver.RunResult:
    """Runs the terminals (and optional analytic stream); checks consistency afterwards."""
    result = driver.run(
        system.dsn, scale, ctx.options.clients, ctx.options.seconds, queries, timeout
    )
    if result.errors:
        raise BenchError(result.errors[0].splitlines()[0])
    with system.connect() as conn:
        bad = consistency(conn)
    if bad:
        raise BenchError("inconsistent after the run: " + "; ".join(bad))
    return result


def run(ctx: RunContext) -> list[Figure]:
    """Loads every system, then runs the mix on each in turn."""
    scale = scale_of(ctx)
    loads = {s.name: ctx.attempt(s, "load", load, ctx, s, scale) for s in ctx.systems}
    results = {
        s.name: ctx.attempt(s, "run", timed_run, ctx, s, scale) if loads[s.name] is not None else None
        for s in ctx.systems
    }
    ctx.commands.append(
        f"TPC-C mix, {ctx.options.clients} terminals, {ctx.options.seconds:g} s per system"
    )
    note = "; ".join(f"{name}: {describe(r)}" for name, r in results.items() if r)
    steps = {s.name: "load" if loads[s.name] is None else "run" for s in ctx.systems}
    return [
        ctx.figure(NAME, f"load, {scale.warehouses} warehouse(s)", "s", "lower", loads, "load"),
        ctx.figure(
            NAME, "tpmC", "tpmC", "higher",
            {n: (r.tpmc if r else None) for n, r in results.items()}, steps, note,
        ),
    ]
