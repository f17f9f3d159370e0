"""cluster: pgbench TPC-B and select-only against `cumulo cluster up`, next to embedded and PG 15.

Issue 14's benchmark: the same stock pgbench (`-M prepared`) runs against
PostgreSQL 15, embedded Cumulo (the run's own systems) and clusters started with
`cumulo cluster up --nodes N --engines E` for N in 1, 2, 3 KiVi nodes and E in 1,
2 query engines, one after the other, in the same run. Each cluster gets its own
data dir and ZooKeeper, is loaded with `pgbench -i -s S` through engine 0, and
then `pgbench_accounts` is cut into N regions dealt over the nodes with
`cumulo_split` / `cumulo_move` (when the engine has them; otherwise the run
notes that the table stayed where the placement put it). With two engines the
clients are split between them: one pgbench process per engine, started
together, their tps summed. After TPC-B the balances must agree, as in
`pgbench`. Then two scans of the whole accounts table are timed on every system
(`QUERIES`: a filter no row passes, which the nodes evaluate in parallel, and a
filtered GROUP BY, which each node aggregates on its columnar copy). On the
multi-node one-engine clusters, a region of the accounts moves to another node
while four threads do point reads, then the node holding it is SIGKILLed
(`cluster_faults`): the worst 100 ms against the rate before, the move's
duration, the time until the region has a new owner and reads run at half rate
again, and any failed read. The cluster is stopped with `cumulo cluster down`
before the next.

On this 2-core machine every role of a cluster shares the same two cores, so
these figures show the cost of the distribution (RPCs, the MasterMind), not a
scale-out; the scale-out is `cluster-sim`. The notes give each cluster's ratio
to PostgreSQL, to embedded Cumulo, and to the one-node one-engine cluster.

Last, the recovery of every role kind (`cluster_faults.recovery`): a supervised
cluster (2 nodes, 2 engines, 2 MasterMinds, ZooKeeper session 2 s) whose KiVi node,
logger, conflict manager, MasterMind leader and query engine are SIGKILLed in turn
while clients increment a counter; per role, the time from the kill to the first
commit begun after it, and the longest stall of commits (no PostgreSQL equivalent).
The run fails that step if the counter is below the acknowledged increments.

Options: --scale (default 1), --seconds (per run), --clients, --threads; the
environment variable CUMULO_BENCH_CLUSTERS picks configurations, e.g. "1x1,3x2"
(nodes x engines; default all six); CUMULO_BENCH_RECOVERY=0 skips the recovery.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from cumulo.server.cluster.ports import port_run

from ..core import BenchError, Figure, RunContext
from ..pgbench_tool import PgbenchResult, alternate, parse_summary, pgbench, tps_and_latency
from ..systems import System
from .cluster_faults import KINDS, kill_recovery, move_dip, recovery
from .pgbench import BALANCES, ROWS_PER_SCALE

NAME = "cluster"
DESCRIPTION = "pgbench TPC-B and select-only on `cumulo cluster up` (1-3 nodes, 1-2 engines)"
CONFIGS = [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2)]
TESTS = (("TPC-B", []), ("select-only", ["-S"]))
RECOVERY = "cluster-recovery"  # the supervised cluster whose roles are killed in turn
# Scans over the whole accounts table (after the pgbench runs): one that the nodes filter
# in parallel and return nothing from, one whose filtered GROUP BY the nodes aggregate.
QUERIES = {
    "full scan, filter keeps no row": "SELECT aid FROM pgbench_accounts WHERE abalance > 1000000000",
    "filtered GROUP BY": "SELECT bid, count(*), sum(abalance) FROM pgbench_accounts "
                         "WHERE abalance >= -1000000000 GROUP BY bid",
}


def configs() -> list[tuple[int, int]]:
    """The (nodes, engines) to run: CUMULO_BENCH_CLUSTERS="1x1,3x2", or all six.

    >>> os.environ["CUMULO_BENCH_CLUSTERS"] = "1x1, 3x2"; configs()
    [(1, 1), (3, 2)]
    >>> del os.environ["CUMULO_BENCH_CLUSTERS"]; len(configs())
    6
    """
    spec = os.environ.get("CUMULO_BENCH_CLUSTERS", "").strip()
    if not spec:
        return list(CONFIGS)
    return [(int(n), int(e)) for n, e in (c.strip().split("x") for c in spec.split(","))]


def key(nodes: int, engines: int) -> str:
    """The system name of a cluster configuration in the figures."""
    return f"cluster-{nodes}n{engines}e"


def cumulo(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cumulo.server.cli", *args],
                          capture_output=True, text=True, timeout=timeout)


def consecutive_ports(n: int) -> int:
    """A port p such that p .. p+n-1 are all free now (the engines take p, p+1, ...)."""
    try:
        return port_run(n)
    except RuntimeError as e:
        raise BenchError(str(e)) from None


@contextmanager
def cluster_up(ctx: RunContext, nodes: int, engines: int) -> Iterator[list[System]]:
    """Starts a cluster under the run's work dir; yields one System per query engine."""
    d = os.path.join(ctx.workdir, key(nodes, engines))
    port = consecutive_ports(engines + 1)  # the engines' ports, then ZooKeeper's
    args = ["cluster", "up", "--nodes", str(nodes), "--engines", str(engines),
            "--data-dir", d, "--port", str(port), "--zk-port", str(port + engines)]
    ctx.commands.append("cumulo " + " ".join(args))
    try:
        r = cumulo(*args)
        if r.returncode != 0:
            raise BenchError("cluster up failed: " + " | ".join(
                (r.stderr or r.stdout).strip().splitlines()[-4:]))
        name = key(nodes, engines)
        yield [System(name, f"Cluster {nodes}n/{engines}e", "127.0.0.1", port + i,
                      log_path=os.path.join(d, "logs", f"engine-{i}.log"))
               for i in range(engines)]
    finally:
        cumulo("cluster", "down", "--data-dir", d, "--timeout", "10")


def load(ctx: RunContext, system: System, scale: int) -> float:
    """`pgbench -i` (retried without VACUUM if that fails, as `pgbench` does); its seconds."""
    start = time.monotonic()
    try:
        pgbench(ctx, system, ["-i", "-s", str(scale)], "load", rows=scale * ROWS_PER_SCALE)
    except BenchError:
        start = time.monotonic()
        pgbench(ctx, system, ["-i", "-I", "dtgp", "-s", str(scale)], "load -I dtgp",
                rows=scale * ROWS_PER_SCALE)
    return time.monotonic() - start


def spread(system: System, nodes: int, accounts: int) -> str:
    """Cuts pgbench_accounts into `nodes` regions, one per node; says how it went."""
    if nodes < 2:
        return "one node"
    try:
        with system.connect() as conn:
            for i in range(1, nodes):
                conn.execute("SELECT cumulo_split('pgbench_accounts', %s)",
                             (i * accounts // nodes + 1,))
            regions = conn.execute(
                "SELECT region_id, node FROM cumulo_regions WHERE table_name = "
                "'pgbench_accounts' ORDER BY start_key NULLS FIRST").fetchall()
            names = sorted({n for (n,) in conn.execute("SELECT node FROM cumulo_regions")}
                           | {f"kivi-{i}" for i in range(nodes)})
            for i, (region, node) in enumerate(regions):
                if node != names[i % len(names)]:
                    conn.execute("SELECT cumulo_move(%s, %s)", (region, names[i % len(names)]))
            placed = conn.execute(
                "SELECT node, count(*) FROM cumulo_regions WHERE table_name = "
                "'pgbench_accounts' GROUP BY node ORDER BY node").fetchall()
        return "accounts regions per node: " + ", ".join(f"{n} {c}" for n, c in placed)
    except Exception as exc:  # noqa: BLE001 - a cluster without placement SQL still runs
        return f"pgbench_accounts not spread ({type(exc).__name__}: {str(exc).strip()[:120]})"


def check_balances(system: System) -> bool:
    """TPC-B's invariant (see `pgbench`); True, or raises."""
    with system.connect() as conn:
        sums = conn.execute(BALANCES).fetchone()
    if sums is None or len({int(v or 0) for v in sums}) != 1:
        raise BenchError(f"balances disagree after TPC-B: accounts, tellers, branches = {sums}")
    return True


def time_queries(system: System) -> dict[str, float]:
    """Milliseconds of each of QUERIES: the median of 3 runs after one warm-up."""
    out = {}
    with system.connect() as conn:
        for name, sql in QUERIES.items():
            conn.execute(sql).fetchall()
            times = []
            for _ in range(3):
                start = time.monotonic()
                conn.execute(sql).fetchall()
                times.append(time.monotonic() - start)
            out[name] = 1000 * sorted(times)[1]
    return out


def together(ctx: RunContext, engines: list[System], test: str, flags: list[str]
             ) -> PgbenchResult:
    """One timed pgbench per engine at once, the clients split between them; tps summed."""
    opts = ctx.options
    share = [opts.clients // len(engines) + (i < opts.clients % len(engines))
             for i in range(len(engines))]

    def one(i: int) -> PgbenchResult:
        args = [*flags, "-M", "prepared", "-c", str(share[i]),
                "-j", str(max(1, min(opts.threads, share[i])))]
        return parse_summary(pgbench(ctx, engines[i], args, f"{test} engine-{i}",
                                     seconds=opts.seconds))

    with ThreadPoolExecutor(len(engines)) as pool:
        parts = list(pool.map(one, range(len(engines))))
    done = sum(p.transactions or 0 for p in parts)
    lat = [p.latency_ms * (p.transactions or 0) for p in parts if p.latency_ms is not None]
    return PgbenchResult(tps=sum(p.tps for p in parts),
                         latency_ms=sum(lat) / done if done and lat else None,
                         transactions=done, failed=sum(p.failed for p in parts))


def run_cluster(ctx: RunContext, nodes: int, engines: int, scale: int,
                results: dict[str, dict[str, PgbenchResult | None]],
                loads: dict[str, float | None],
                queries: dict[str, dict[str, float] | None],
                moves: dict[str, dict[str, float]], kills: dict[str, dict[str, float]]) -> None:
    """Brings one configuration up, loads, spreads, runs both tests, brings it down."""
    name = key(nodes, engines)
    with cluster_up(ctx, nodes, engines) as systems:
        loads[name] = load(ctx, systems[0], scale)
        ctx.notes.append(f"{name}: {spread(systems[0], nodes, scale * ROWS_PER_SCALE)}")
        for test, flags in TESTS:
            results[test][name] = ctx.attempt(systems[0], test, together, ctx, systems, test,
                                              flags)
            if test == "TPC-B" and results[test][name] is not None and \
                    ctx.attempt(systems[0], test, check_balances, systems[0]) is None:
                results[test][name] = None
        queries[name] = ctx.attempt(systems[0], "queries", time_queries, systems[0])
        if nodes > 1 and engines == 1:
            dip = ctx.attempt(systems[0], "move", move_dip, systems[0], scale * ROWS_PER_SCALE,
                              max(3.0, ctx.options.seconds))
            if dip is not None:
                moves[name] = dip
                ctx.notes.append(f"{name}: a region move under point reads: {dip['reads/s']:.0f}"
                                 f" reads/s before, worst 100 ms at {100 * dip['worst']:.0f}%, "
                                 f"move {dip['move ms']:.0f} ms, {dip['errors']:.0f} failed reads")
            d = os.path.join(ctx.workdir, name)
            kill = ctx.attempt(systems[0], "kill", kill_recovery, systems[0], d,
                               scale * ROWS_PER_SCALE, max(3.0, ctx.options.seconds))
            if kill is not None:
                kills[name] = kill
                ctx.notes.append(f"{name}: SIGKILL of a KiVi node under point reads: region "
                                 f"reassigned after {kill['reassigned s']:.1f} s, reads at half "
                                 f"rate again after {kill['reads back s']:.1f} s, "
                                 f"{kill['errors']:.0f} failed reads")


def ratios(results: dict[str, dict[str, PgbenchResult | None]]) -> list[str]:
    """One note per cluster and test: x PostgreSQL, x embedded, x the 1-node 1-engine cluster."""
    out = []
    for test, by in results.items():
        tps = {n: r.tps for n, r in by.items() if r is not None}
        for name in sorted(n for n in tps if n.startswith("cluster-")):
            parts = [f"{tps[name] / tps[b]:.3f}x {label}" for b, label in
                     (("postgres", "PostgreSQL"), ("cumulo", "embedded"),
                      (key(1, 1), "1n/1e")) if tps.get(b) and b != name]
            out.append(f"{name} {test}: {tps[name]:.0f} tps = " + ", ".join(parts))
    return out


def run(ctx: RunContext) -> list[Figure]:
    """PostgreSQL and embedded Cumulo first (the run's systems), then each cluster in turn."""
    scale = max(1, int(ctx.options.scale or 1))
    results: dict[str, dict[str, PgbenchResult | None]] = {t: {} for t, _ in TESTS}
    loads: dict[str, float | None] = {}
    for system in ctx.systems:
        loads[system.name] = ctx.attempt(system, "load", load, ctx, system, scale)
    loaded = [s for s in ctx.systems if loads[s.name] is not None]
    queries: dict[str, dict[str, float] | None] = {s.name: None for s in ctx.systems}
    moves: dict[str, dict[str, float]] = {}
    kills: dict[str, dict[str, float]] = {}
    common = ["-M", "prepared", "-c", str(ctx.options.clients), "-j", str(ctx.options.threads)]
    for test, flags in TESTS:
        results[test].update(dict.fromkeys((s.name for s in ctx.systems), None))
        results[test].update(alternate(ctx, loaded, test, flags + common))
        for system in loaded:
            if test == "TPC-B" and results[test][system.name] is not None and \
                    ctx.attempt(system, test, check_balances, system) is None:
                results[test][system.name] = None
    for system in loaded:
        queries[system.name] = ctx.attempt(system, "queries", time_queries, system)
    for nodes, engines in configs():
        name = key(nodes, engines)
        placeholder = System(name, name, "127.0.0.1", 0)
        loads.setdefault(name, None)
        for test, _ in TESTS:
            results[test].setdefault(name, None)
        queries.setdefault(name, None)
        ctx.attempt(placeholder, "load", run_cluster, ctx, nodes, engines, scale, results, loads,
                    queries, moves, kills)
    recovered = None
    if os.environ.get("CUMULO_BENCH_RECOVERY", "1") != "0":
        rec = System(RECOVERY, "supervised cluster 2n/2e", "127.0.0.1", 0)
        got = ctx.attempt(rec, "recovery", recovery)
        if got is not None:
            recovered, counter = got
            ctx.notes.append(
                f"{RECOVERY} (cumulo cluster up --nodes 2 --engines 2 --masterminds 2 "
                f"--supervise, ZooKeeper session 2 s): {recovered['all']['commits']:.0f} "
                f"commits acknowledged, counter {counter}; longest stall of commits after "
                "each SIGKILL: " + ", ".join(f"{k} {recovered[k]['longest stall s']:.2f} s"
                                             for k in KINDS)
                + "; errors seen by clients (retried): "
                + (", ".join(f"{k[7:]} x{v:.0f}" for k, v in recovered["all"].items()
                             if k != "commits") or "none"))
    ctx.notes.extend(ratios(results))
    steps = {n: "load" for n in loads}
    figures = [ctx.figure(NAME, f"load (pgbench -i -s {scale})", "s", "lower", loads, steps)]
    for test, _ in TESTS:
        label = f"{test} -s {scale} -c {ctx.options.clients}"
        # a system that never loaded shows the load's error in the timed figures too
        failed = {n: test if loads.get(n) is not None else "load" for n in results[test]}
        figures += tps_and_latency(ctx, NAME, label, "tx/s", test, results[test], failed)[:2]
    for q in QUERIES:
        ms = {n: (v[q] if v is not None else None) for n, v in queries.items()}
        steps = {n: "queries" if loads.get(n) is not None else "load" for n in queries}
        figures.append(ctx.figure(NAME, f"{q} (pgbench_accounts, -s {scale})", "ms", "lower",
                                  ms, steps))
    for metric, field, unit, better in (("region move: worst 100 ms of point reads", "worst",
                                         "x before", "higher"),
                                        ("region move: duration", "move ms", "ms", "lower")):
        if moves:
            figures.append(ctx.figure(NAME, metric, unit, better,
                                      {n: m[field] for n, m in moves.items()}, "move"))
    for metric, field in (("KiVi node SIGKILL: region reassigned after", "reassigned s"),
                          ("KiVi node SIGKILL: point reads at half rate after", "reads back s")):
        if kills:
            figures.append(ctx.figure(NAME, metric, "s", "lower",
                                      {n: k[field] for n, k in kills.items()}, "kill"))
    if os.environ.get("CUMULO_BENCH_RECOVERY", "1") != "0":
        for kind in KINDS:
            figures.append(ctx.figure(
                NAME, f"SIGKILL of the {kind}: first commit begun after it", "s", "lower",
                {RECOVERY: recovered[kind]["first commit s"] if recovered else None},
                "recovery"))
    return figures
