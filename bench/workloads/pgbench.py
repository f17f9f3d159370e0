"""pgbench: TPC-B (sort of) and select-only, the OLTP figures everyone quotes.

The load is stock `pgbench -i -s N` (steps dtgvp: COPY, VACUUM ANALYZE,
primary keys) on both systems; the runs are stock too, with `-M prepared`
(Parse once, then Bind/Execute: the path a server's plan cache must make
fast), 8 clients on 2 threads, and no `-n`, so pgbench vacuums the small tables
and truncates the history before each run as it does for every user. Runs
alternate between the systems: PostgreSQL TPC-B, Cumulo TPC-B, PostgreSQL
select-only, Cumulo select-only, so a slow minute on the shared machine
hurts both rather than one. After TPC-B every system must pass the
benchmark's own invariant: accounts, tellers and branches moved by the same
total (failed transactions roll back whole); otherwise its figures are an error.

Options: --scale (pgbench scale factor, default 10: 1M accounts),
--seconds (per run, default 30), --repeat (rounds; medians), --clients, --threads,
--transport: pgbench reaches both systems over loopback TCP (the default), over their
Unix-domain sockets (`unix`: a round trip costs less kernel time there, on both), or
`both`: each test over TCP, then over the sockets, alternating as above, reported as
separate figures ("... over Unix socket"). The load and the balance check use TCP.
"""

from __future__ import annotations

import time

from ..core import BenchError, Figure, RunContext
from ..pgbench_tool import alternate, pgbench, tps_and_latency
from ..systems import System

NAME = "pgbench"
DESCRIPTION = "pgbench TPC-B and select-only (-M prepared), tps and latency"
DEFAULT_SCALE = 10
ROWS_PER_SCALE = 100_000
UNIX = " over Unix socket"
TRANSPORTS = {"tcp": ("",), "unix": (UNIX,), "both": ("", UNIX)}  # label suffixes, in order
BALANCES = (
    "SELECT (SELECT sum(abalance) FROM pgbench_accounts),"
    " (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(bbalance) FROM pgbench_branches)"
)


def run(ctx: RunContext) -> list[Figure]:
    """Loads pgbench's tables on every system, then alternates timed runs."""
    opts = ctx.options
    scale = max(1, int(opts.scale or DEFAULT_SCALE))
    load_seconds: dict[str, float | None] = {}
    for system in ctx.systems:
        load_seconds[system.name] = ctx.attempt(system, "load", _load, ctx, system, scale)
    loaded = [s for s in ctx.systems if load_seconds[s.name] is not None]
    figures = [
        ctx.figure(NAME, f"load (pgbench -i -s {scale})", "s", "lower", load_seconds, "load")
    ]
    common = ["-M", "prepared", "-c", str(opts.clients), "-j", str(opts.threads)]
    for test, flags in (("TPC-B", []), ("select-only", ["-S"])):
        for suffix in TRANSPORTS[opts.transport]:
            step = test + suffix
            runners = loaded
            if suffix:
                found = [(s, ctx.attempt(s, step, s.over_unix)) for s in loaded]
                runners = [unix for _s, unix in found if unix is not None]
            results = dict.fromkeys((s.name for s in ctx.systems), None)
            results.update(alternate(ctx, runners, step, flags + common))
            if test == "TPC-B":
                for system in loaded:
                    if (
                        results[system.name] is not None
                        and ctx.attempt(system, step, _check_balances, system) is None
                    ):
                        results[system.name] = None  # a fast inconsistent database is no figure
            # a system that never loaded shows the load's error in the timed figures too
            steps = {s.name: step if s in loaded else "load" for s in ctx.systems}
            label = f"{test} -s {scale} -c {opts.clients}{suffix}"
            figures += tps_and_latency(ctx, NAME, label, "tx/s", step, results, steps)
    return figures


def _check_balances(system: System) -> bool:
    """Checks TPC-B's invariant: accounts, tellers and branches moved by the same total."""
    with system.connect() as conn:
        sums = conn.execute(BALANCES).fetchone()
    if sums is None or len({int(v or 0) for v in sums}) != 1:
        raise BenchError(f"balances disagree after TPC-B: accounts, tellers, branches = {sums}")
    return True


def _load(ctx: RunContext, system: System, scale: int) -> float:
    """Runs `pgbench -i` and returns how long it took.

    NB: if the stock load fails (a young Cumulo may reject VACUUM), it is
    retried without the vacuum step (`-I dtgp`) and the run says so: the
    timed runs tolerate a failing VACUUM (pgbench ignores it), the load does not.
    """
    rows = scale * ROWS_PER_SCALE
    start = time.monotonic()
    try:
        pgbench(ctx, system, ["-i", "-s", str(scale)], "load", rows=rows)
    except BenchError as exc:
        ctx.notes.append(
            f"{system.name}: stock `pgbench -i` failed ({str(exc)[:200]}); "
            "loaded with -I dtgp (no vacuum) instead"
        )
        start = time.monotonic()
        pgbench(ctx, system, ["-i", "-I", "dtgp", "-s", str(scale)], "load -I dtgp", rows=rows)
    return time.monotonic() - start
