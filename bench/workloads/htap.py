"""htap: pgbench TPC-B alone, then beside an analytic loop: how much OLTP survives analytics.

Issue 11's "OLTP is not starved" figures, on pgbench's own tables so every
system runs the same stock OLTP client (C, `-M prepared`):

1. `pgbench -i -s N` (default scale 10: 1M accounts), then every analytic
   query once, untimed (Cumulo builds its columnar copies there; the time of
   that first round is reported apart, since a first build is a one-off);
2. TPC-B alone for `--seconds`, with pgbench's per-transaction log (`-l`);
3. TPC-B again for `--seconds`, while one more connection loops over the
   analytic queries below (GROUP BY over `pgbench_accounts`, a join with
   `pgbench_branches`, a GROUP BY over the growing `pgbench_history`, a top-N).

Figures per system: tps alone and mixed, the share of tps kept, analytic
queries per second in the mixed window, and the OLTP latency p99 and maximum
alone and mixed, read from the transaction logs (the maximum is the longest
stall a client saw: a GIL held by a long analytic step, or a lock held across
one, shows up there first). The systems take turns (PostgreSQL alone, Cumulo
alone, PostgreSQL mixed, Cumulo mixed), so a slow minute on the shared machine
hurts both. After the runs, TPC-B's invariant (accounts, tellers and branches
moved by the same total) must hold, else the system's figures are an error.
The notes give the machine's load average (1 min) at the start and end of
each timed run: on a shared machine the figures mean little without it.

With `--repeat N`, steps 2 and 3 run N rounds (the systems still taking
turns in each); every figure is then the median over the rounds, the share
kept being each round's mixed tps over that round's alone tps.

Options: --scale (pgbench scale, default 10), --seconds (each run, default 30),
--repeat, --clients, --threads.
"""

from __future__ import annotations

import glob
import os
import statistics
import threading
import time
from dataclasses import dataclass, field

from ..core import BenchError, Figure, RunContext
from ..pgbench_tool import parse_summary, pgbench
from ..systems import System
from .pgbench import BALANCES, ROWS_PER_SCALE

NAME = "htap"
DESCRIPTION = "pgbench TPC-B alone, then beside a looping analytic stream: OLTP kept, analytic q/s"
DEFAULT_SCALE = 10
QUERIES = (
    "SELECT bid, count(*), sum(abalance), min(abalance), max(abalance)"
    " FROM pgbench_accounts GROUP BY bid ORDER BY bid",
    "SELECT b.bid, count(*), sum(a.abalance) FROM pgbench_accounts a"
    " JOIN pgbench_branches b ON a.bid = b.bid WHERE a.abalance <> 0 GROUP BY b.bid ORDER BY b.bid",
    "SELECT tid, count(*), sum(delta) FROM pgbench_history GROUP BY tid ORDER BY tid",
    "SELECT aid, abalance FROM pgbench_accounts WHERE abalance > 0"
    " ORDER BY abalance DESC, aid LIMIT 10",
)


@dataclass
class Latencies:
    """OLTP transaction latencies of one run (ms), from pgbench's `-l` logs."""

    count: int = 0
    p99: float | None = None
    max: float | None = None


@dataclass
class Analytics:
    """What the analytic loop did in the mixed window."""

    done: int = 0
    seconds: float = 0.0
    longest: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds else 0.0


def read_latencies(paths: list[str]) -> Latencies:
    """p99 and max of the latency column (µs, the 3rd) of pgbench per-transaction logs.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "log.1")
    >>> _ = open(p, "w").write("".join(f"0 {i} {1000 * (i + 1)} 0 1 2\\n" for i in range(100)))
    >>> read_latencies([p])
    Latencies(count=100, p99=99.0, max=100.0)
    """
    lat: list[int] = []
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[2].isdigit():
                    lat.append(int(parts[2]))
    if not lat:
        return Latencies()
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99) - 1)]
    return Latencies(len(lat), p99 / 1000.0, lat[-1] / 1000.0)


def _analytic_loop(system: System, stop: threading.Event, out: Analytics) -> None:
    """Runs QUERIES in turn on one connection until `stop`; counts the completed ones."""
    with system.connect() as conn:
        start = time.monotonic()
        i = 0
        while not stop.is_set():
            t = time.monotonic()
            try:
                conn.execute(QUERIES[i % len(QUERIES)]).fetchall()
            except Exception as exc:  # an analytic failure is reported, the OLTP run goes on
                out.errors.append(f"{type(exc).__name__}: {exc}"[:200])
                if len(out.errors) > 3:
                    break
            else:
                if not stop.is_set():
                    out.done += 1
                    out.longest = max(out.longest, time.monotonic() - t)
            i += 1
        out.seconds = time.monotonic() - start


Run = tuple[float, Latencies, Analytics | None, tuple[float, float]]


def _run(ctx: RunContext, system: System, label: str, mixed: bool) -> Run:
    """One timed TPC-B run (with the analytic loop when `mixed`): tps, latencies, analytics,
    and the load average (1 min) at its start and end."""
    load0 = os.getloadavg()[0]
    prefix = os.path.join(ctx.workdir, f"htap-{system.name}-{label}")
    for old in glob.glob(prefix + ".*"):
        os.remove(old)
    args = ["-M", "prepared", "-c", str(ctx.options.clients), "-j", str(ctx.options.threads),
            "-l", f"--log-prefix={prefix}"]
    stop = threading.Event()
    analytics = Analytics() if mixed else None
    loop = None
    if analytics is not None:
        loop = threading.Thread(target=_analytic_loop, args=(system, stop, analytics), daemon=True)
        loop.start()
    try:
        text = pgbench(ctx, system, args, f"TPC-B {label}", seconds=ctx.options.seconds)
    finally:
        stop.set()
        if loop is not None:
            loop.join(600)
    result = parse_summary(text)
    if analytics is not None and analytics.errors:
        raise BenchError(f"analytic loop failed: {analytics.errors[0]}")
    return (result.tps, read_latencies(sorted(glob.glob(prefix + ".*"))), analytics,
            (load0, os.getloadavg()[0]))


def merge_runs(runs: list[Run]) -> Run:
    """Rounds of one system and label as one: medians of tps, p99 and longest transaction;
    the analytic counts summed; the load average at the first start and the last end.

    >>> a = (100.0, Latencies(10, 5.0, 50.0), None, (1.0, 2.0))
    >>> b = (300.0, Latencies(30, 7.0, 90.0), None, (3.0, 4.0))
    >>> c = (200.0, Latencies(20, 6.0, 70.0), None, (5.0, 6.0))
    >>> merge_runs([a, b, c])
    (200.0, Latencies(count=60, p99=6.0, max=70.0), None, (1.0, 6.0))
    """
    def med(xs: list[float | None]) -> float | None:
        vs = [x for x in xs if x is not None]
        return statistics.median(vs) if vs else None

    analytics = [r[2] for r in runs if r[2] is not None]
    merged = None
    if analytics:
        merged = Analytics(sum(a.done for a in analytics), sum(a.seconds for a in analytics),
                           max(a.longest for a in analytics),
                           [e for a in analytics for e in a.errors])
    lat = Latencies(sum(r[1].count for r in runs), med([r[1].p99 for r in runs]),
                    med([r[1].max for r in runs]))
    return (statistics.median(r[0] for r in runs), lat, merged, (runs[0][3][0], runs[-1][3][1]))


def _load(ctx: RunContext, system: System, scale: int) -> float:
    """pgbench -i, then one untimed round of the analytic queries; returns that round's time."""
    pgbench(ctx, system, ["-i", "-s", str(scale)], "load", rows=scale * ROWS_PER_SCALE)
    with system.connect() as conn:
        start = time.monotonic()
        for q in QUERIES:
            conn.execute(q).fetchall()
        return time.monotonic() - start


def _check_balances(system: System) -> bool:
    with system.connect() as conn:
        sums = conn.execute(BALANCES).fetchone()
    if sums is None or len({int(v or 0) for v in sums}) != 1:
        raise BenchError(f"balances disagree after TPC-B: accounts, tellers, branches = {sums}")
    return True


def run(ctx: RunContext) -> list[Figure]:
    scale = max(1, int(ctx.options.scale or DEFAULT_SCALE))
    first = {s.name: ctx.attempt(s, "load", _load, ctx, s, scale) for s in ctx.systems}
    up = [s for s in ctx.systems if first[s.name] is not None]
    rounds: dict[tuple[str, str], list[Run]] = {}
    kept_rounds: dict[str, list[float]] = {s.name: [] for s in up}
    for _ in range(max(1, ctx.options.repeat)):
        for label, mixed in (("alone", False), ("mixed", True)):
            for s in list(up):
                r = ctx.attempt(s, label, _run, ctx, s, label, mixed)
                if r is None:  # failed once: not run again, no figures
                    up.remove(s)
                    continue
                rounds.setdefault((s.name, label), []).append(r)
                if mixed and rounds[(s.name, "alone")][-1][0]:
                    kept_rounds[s.name].append(100.0 * r[0] / rounds[(s.name, "alone")][-1][0])
    runs: dict[tuple[str, str], Run | None] = {
        (s.name, label): merge_runs(rounds[(s.name, label)])
        for s in up for label in ("alone", "mixed")}
    for s in up:
        if ctx.attempt(s, "check", _check_balances, s) is None:
            for label in ("alone", "mixed"):
                runs[(s.name, label)] = None
    names = [s.name for s in ctx.systems]

    def val(label: str, pick) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for n in names:
            r = runs.get((n, label))
            out[n] = None if r is None else pick(r)
        return out

    tps_alone = val("alone", lambda r: r[0])
    tps_mixed = val("mixed", lambda r: r[0])
    kept = {n: (statistics.median(kept_rounds[n]) if kept_rounds.get(n)
                and runs.get((n, "mixed")) is not None else None) for n in names}
    head = f"TPC-B -s {scale} -c {ctx.options.clients}, {ctx.options.seconds:g} s"
    if ctx.options.repeat > 1:
        head += f", median of {ctx.options.repeat} rounds"
    notes = []
    for n in names:
        r = runs.get((n, "mixed"))
        if r is not None and r[2] is not None:
            a = r[2]
            notes.append(f"{n}: {a.done} analytic queries in {a.seconds:.1f} s, "
                         f"longest {a.longest:.2f} s")
    loads = []
    for (n, label), r in runs.items():
        if r is not None:
            loads.append(f"{n} {label} {r[3][0]:.1f}-{r[3][1]:.1f}")
    note = "; ".join(notes)
    load_note = "load average (1 min) at start-end of each run: " + ", ".join(loads)
    ctx.commands += list(QUERIES)
    return [
        ctx.figure(NAME, f"first round of the {len(QUERIES)} analytic queries (builds)", "s",
                   "lower", first, "load"),
        ctx.figure(NAME, f"{head} alone tps", "tx/s", "higher", tps_alone, "alone", load_note),
        ctx.figure(NAME, f"{head} beside the analytic loop tps", "tx/s", "higher", tps_mixed,
                   "mixed", load_note),
        ctx.figure(NAME, "OLTP kept under analytics", "%", "higher", kept, "mixed", note),
        ctx.figure(NAME, "analytic queries/s beside TPC-B", "q/s", "higher",
                   val("mixed", lambda r: r[2].rate if r[2] else None), "mixed", note),
        ctx.figure(NAME, "OLTP latency p99 alone", "ms", "lower",
                   val("alone", lambda r: r[1].p99), "alone"),
        ctx.figure(NAME, "OLTP latency p99 beside analytics", "ms", "lower",
                   val("mixed", lambda r: r[1].p99), "mixed"),
        ctx.figure(NAME, "OLTP longest transaction alone", "ms", "lower",
                   val("alone", lambda r: r[1].max), "alone"),
        ctx.figure(NAME, "OLTP longest transaction beside analytics (longest stall)", "ms",
                   "lower", val("mixed", lambda r: r[1].max), "mixed"),
    ]
