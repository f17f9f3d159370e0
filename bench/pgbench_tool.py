"""Runs PostgreSQL 15's own pgbench and reads its figures.

pgbench is the load generator for the `pgbench` and `floor` workloads because
it is C, multi-threaded and the same binary for every system: the client's
cost is identical on both sides, so the ratio is the servers'. We run it with
`-P 1` and turn its per-second progress lines (stderr) into our progress bar;
its final summary (stdout) gives tps and latency. For `pgbench -i` the
"N of M tuples done" lines drive the bar instead.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from .core import BenchError, Figure, RunContext
from .progress import Progress
from .server_cost import Cost, CostMeter, listening_pid
from .systems import System, pg_bin

_SUMMARY = {
    "tps": re.compile(r"^tps = ([\d.]+)", re.M),
    "latency_ms": re.compile(r"^latency average = ([\d.]+) ms", re.M),
    "latency_stddev_ms": re.compile(r"^latency stddev = ([\d.]+) ms", re.M),
    "transactions": re.compile(r"^number of transactions actually processed: (\d+)", re.M),
    "failed": re.compile(r"^number of failed transactions: (\d+)", re.M),
    "connection_ms": re.compile(r"^initial connection time = ([\d.]+) ms", re.M),
}
_RUN_PROGRESS = re.compile(r"^progress: ([\d.]+) s, ([\d.]+) tps, lat ([\d.]+) ms")
_INIT_PROGRESS = re.compile(r"^(\d+) of (\d+) tuples")
GRACE = 120.0  # seconds a timed run may overrun before it counts as hung


@dataclass
class PgbenchResult:
    """pgbench's final summary."""

    tps: float
    latency_ms: float | None = None
    latency_stddev_ms: float | None = None
    transactions: int | None = None
    failed: int = 0
    connection_ms: float | None = None
    cost: Cost | None = None  # the server's CPU and context switches per transaction


def parse_summary(text: str) -> PgbenchResult:
    """Parses the summary pgbench prints on stdout; raises BenchError when tps is missing."""
    found: dict[str, float] = {}
    for key, pattern in _SUMMARY.items():
        m = pattern.search(text)
        if m:
            found[key] = float(m.group(1))
    if "tps" not in found:
        raise BenchError(f"no tps in pgbench output:\n{text[-2000:]}")
    return PgbenchResult(
        tps=found["tps"],
        latency_ms=found.get("latency_ms"),
        latency_stddev_ms=found.get("latency_stddev_ms"),
        transactions=int(found["transactions"]) if "transactions" in found else None,
        failed=int(found.get("failed", 0)),
        connection_ms=found.get("connection_ms"),
    )


def pgbench(
    ctx: RunContext,
    system: System,
    args: Sequence[str],
    label: str,
    seconds: float | None = None,
    rows: int | None = None,
    timeout: float | None = None,
    meter: CostMeter | None = None,
) -> str:
    """Runs pgbench against a system with a progress bar; returns stdout, raises on failure.

    Give `seconds` for a timed run (`-T`, progress from `-P 1`), or `rows` for `-i`.
    A timed run is killed if it overruns by GRACE seconds (a hung server must not
    hang the harness); `timeout` sets another limit.
    """
    cmd = [pg_bin("pgbench"), *system.libpq_args(), *args]
    if seconds is not None:
        cmd += ["-T", str(max(1, round(seconds))), "-P", "1"]
    cmd.append(system.dbname)
    ctx.commands.append(" ".join(cmd))
    env = dict(os.environ, PGAPPNAME="cumulo-bench", PGCONNECT_TIMEOUT="30")
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    out: list[str] = []
    stdout_pipe = proc.stdout
    reader = threading.Thread(target=lambda: out.append(stdout_pipe.read()), daemon=True)
    reader.start()
    if timeout is None and seconds is not None:
        timeout = seconds + GRACE
    watchdog = threading.Timer(timeout, proc.kill) if timeout else None
    if watchdog:
        watchdog.daemon = True
        watchdog.start()
    errors: list[str] = []
    total, unit = (seconds, "s") if seconds is not None else (rows or 1, "rows")
    try:
        with Progress(f"{system.label:<10} {label}", total, unit) as bar:
            for line in proc.stderr:
                if m := _RUN_PROGRESS.match(line):
                    bar.update(float(m.group(1)), f"{float(m.group(2)):.0f} tps")
                    if meter is not None:
                        meter.progress(float(m.group(2)))
                elif m := _INIT_PROGRESS.match(line):
                    bar.update(int(m.group(1)))
                else:
                    errors.append(line)
        rc = proc.wait()
    finally:
        if watchdog:
            watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(5)
        proc.stdout.close()
        proc.stderr.close()
    stdout = "".join(out)
    if rc == -9 and timeout:
        raise BenchError(f"pgbench killed after {timeout:.0f}s: the server stopped answering")
    if rc != 0:
        detail = "".join(errors[-15:]).strip()
        raise BenchError(f"pgbench exited with {rc}: {detail}")
    return stdout


def alternate(
    ctx: RunContext, systems: Sequence[System], step: str, args: Sequence[str]
) -> dict[str, PgbenchResult | None]:
    """Runs a timed pgbench test `--repeat` rounds, the systems taking turns; merges by median.

    A system that fails once is not run again; its result is None and the error is recorded.
    """
    runs: dict[str, list[PgbenchResult]] = {s.name: [] for s in systems}
    live = list(systems)
    for _ in range(max(1, ctx.options.repeat)):
        for system in list(live):
            result = ctx.attempt(system, step, _timed, ctx, system, step, args)
            if result is None:
                live.remove(system)
                runs[system.name] = []
            else:
                runs[system.name].append(result)
    return {name: _median(results) for name, results in runs.items()}


def _timed(ctx: RunContext, system: System, step: str, args: Sequence[str]) -> PgbenchResult:
    """Runs one timed pgbench test and parses its summary, with the server's cost per tx."""
    meter = CostMeter(listening_pid(system.port))
    result = parse_summary(pgbench(ctx, system, args, step, seconds=ctx.options.seconds,
                                   meter=meter))
    result.cost = meter.result()
    return result


def _median(results: list[PgbenchResult]) -> PgbenchResult | None:
    """Returns the median tps and latency of several runs (failures summed)."""
    if not results:
        return None
    latencies = [r.latency_ms for r in results if r.latency_ms is not None]
    costs = [r.cost for r in results if r.cost is not None]
    return PgbenchResult(
        cost=Cost(statistics.median(c.cpu_us_per_tx for c in costs),
                  statistics.median(c.switches_per_tx for c in costs)) if costs else None,
        tps=statistics.median(r.tps for r in results),
        latency_ms=statistics.median(latencies) if latencies else None,
        transactions=sum(r.transactions or 0 for r in results),
        failed=sum(r.failed for r in results),
    )


def tps_and_latency(
    ctx: RunContext,
    workload: str,
    label: str,
    unit: str,
    step: str,
    results: dict[str, PgbenchResult | None],
    steps: dict[str, str] | None = None,
) -> list[Figure]:
    """Returns the tps and latency figures of one pgbench test."""
    rounds = max(1, ctx.options.repeat)
    if rounds > 1:
        label += f" (median of {rounds})"
    failed = {n: r.failed for n, r in results.items() if r is not None and r.failed}
    note = "; ".join(f"{n}: {k} failed transactions" for n, k in failed.items())
    tps = {n: (r.tps if r else None) for n, r in results.items()}
    latency = {n: (r.latency_ms if r else None) for n, r in results.items()}
    steps = steps or {n: step for n in results}
    figures = [
        ctx.figure(workload, f"{label} tps", unit, "higher", tps, steps, note),
        ctx.figure(workload, f"{label} latency", "ms", "lower", latency, steps, note),
    ]
    if any(r is not None and r.cost is not None for r in results.values()):
        cpu = {n: (r.cost.cpu_us_per_tx if r and r.cost else None) for n, r in results.items()}
        sw = {n: (r.cost.switches_per_tx if r and r.cost else None) for n, r in results.items()}
        figures += [
            ctx.figure(workload, f"{label} server CPU per tx", "us", "lower", cpu, steps, note),
            ctx.figure(workload, f"{label} server context switches per tx", "n", "lower", sw,
                       steps, note),
        ]
    return figures
