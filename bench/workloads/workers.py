"""workers: can several query-engine processes use the second core? (issue 12, item 2)

One Python process runs one statement at a time (the GIL), so `cumulo serve`
uses about one of this machine's two cores while PostgreSQL's eight backends use
both. This workload measures whether several query-engine processes raise pgbench
TPC-B and select-only (`-M prepared`, `--clients`, `--threads`) over one process,
next to PostgreSQL 15 in the same run:

- `postgres` and `cumulo`: the run's own systems (one `cumulo serve`);
- `shared-N` (N = 1, 2): N query engines sharing storage and transactions, which is
  what a `cumulo serve --workers N` must be. The prototype is cluster mode on one
  machine, `cumulo cluster up --nodes 1 --engines N`: one KiVi node, one logger, one
  conflict manager and a MasterMind, each its own process, reached over loopback TCP
  by the engines (its ZooKeeper is off the statement path). The clients are split
  evenly over the engines, one pgbench per engine started together, tps summed. That
  is the best case of N engines behind one port: SO_REUSEPORT hashes each connection
  to a listener and may split eight connections 5/3, never better than 4/4;
- `workers-N`: the real thing, `cumulo serve --cluster ZK --workers N` (`cluster.workers`)
  on a cluster of one KiVi node, logger, conflict manager and MasterMind started with
  `cumulo cluster up --nodes 1 --engines 0`: N engines behind ONE port (SO_REUSEPORT),
  one pgbench with every client, the kernel spreading the connections;
- `unshared-N`: N independent `cumulo serve` processes, each loaded with its own copy
  of the tables, the clients split over them. Not a database (a write on one is never
  seen by another): it is the ceiling of any design that shares storage, since sharing
  only adds work. If even this does not beat one process, no `--workers` design can.

Every timed run also reports the CPU of every process of the system (all engines and
roles, or all of PostgreSQL's backends) per transaction, sampled by a thread from the
second second of the run until one second before its end, with the transactions
pgbench reported over that window, and the load average (other users of the machine
move every figure; PostgreSQL in the same run is the yardstick).

Options: --scale (default 10), --seconds, --repeat, --clients, --threads; the
environment variable CUMULO_BENCH_WORKERS picks configurations (default
"shared-1,shared-2,unshared-2").
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace

from cumulo.server.cluster.launcher import State
from cumulo.server.kivi.api import Get
from cumulo.server.kivi.remote import RemoteNode

from ..core import BenchError, Figure, RunContext
from ..pgbench_tool import parse_summary, pgbench
from ..server_cost import cpu_of, listening_pid, tree
from ..systems import System, cumulo_embedded
from . import cluster
from .pgbench import BALANCES

NAME = "workers"
DESCRIPTION = "pgbench on N query-engine processes (shared storage, or unshared copies) vs one"
DEFAULT_SCALE = 10
CONFIGS = ("shared-1", "shared-2", "unshared-2")
TESTS: tuple[tuple[str, list[str]], ...] = (("TPC-B", []), ("select-only", ["-S", "-n"]))


def configs() -> list[str]:
    """The configurations to run: CUMULO_BENCH_WORKERS="shared-2,unshared-2", or the default.

    >>> os.environ["CUMULO_BENCH_WORKERS"] = "shared-2, unshared-3"; configs()
    ['shared-2', 'unshared-3']
    >>> del os.environ["CUMULO_BENCH_WORKERS"]; configs()
    ['shared-1', 'shared-2', 'unshared-2']
    """
    spec = os.environ.get("CUMULO_BENCH_WORKERS", "").strip()
    names = [c.strip() for c in spec.split(",") if c.strip()] if spec else list(CONFIGS)
    for name in names:
        kind, _, n = name.partition("-")
        if kind not in ("shared", "unshared", "workers") or not n.isdigit() or int(n) < 1:
            raise ValueError(f"CUMULO_BENCH_WORKERS: {name!r} is not shared-N, workers-N "
                             "or unshared-N")
    return names


def shares(clients: int, parts: int) -> list[int]:
    """Clients per engine when `clients` are split evenly over `parts` engines.

    >>> shares(8, 2), shares(8, 3), shares(1, 2)
    ([4, 4], [3, 3, 2], [1, 0])
    """
    return [clients // parts + (i < clients % parts) for i in range(parts)]


@dataclass
class Group:
    """What a configuration serves through: its entry points and the processes it runs."""

    name: str
    entries: list[System]
    pids: dict[int, str] = field(default_factory=dict)  # root pid -> kind; trees are counted

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds (user + system) so far of every process of the group, by kind."""
        seen: set[int] = set()
        out: dict[str, float] = {}
        for root, kind in self.pids.items():
            for pid in tree(root):
                if pid not in seen:
                    seen.add(pid)
                    out[kind] = out.get(kind, 0.0) + sample_one(pid)
        return out


def sample_one(pid: int) -> float:
    """CPU seconds of one process (with its reaped children), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def listeners(entries: Sequence[System], kind: str = "server") -> dict[int, str]:
    """The pids listening on each entry's port, as `kind`."""
    out = {}
    for e in entries:
        pid = listening_pid(e.port)
        if pid is None:
            raise BenchError(f"nothing listens on port {e.port}")
        out[pid] = kind
    return out


class Window:
    """Progress lines of concurrent pgbench runs, stamped, to count a window's transactions."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, float]] = []  # (monotonic time, tps of the last second)
        self.lock = threading.Lock()

    def progress(self, interval_tps: float, interval_s: float = 1.0) -> None:
        with self.lock:
            self.lines.append((time.monotonic(), interval_tps * interval_s))

    def transactions(self, start: float, end: float) -> float:
        """Transactions of the seconds that ended after `start` and by `end` (+0.5 s slack)."""
        return sum(n for t, n in self.lines if start + 0.5 < t <= end + 0.5)


@dataclass
class Run:
    tps: float
    cpu_us_per_tx: float | None
    failed: int
    load: float  # the 1-minute load average at the end of the run
    by_kind: dict[str, float]  # CPU us per tx of each kind of process (engine, kivi, ...)


def timed(ctx: RunContext, group: Group, test: str, flags: list[str]) -> Run:
    """One timed pgbench per entry at once (clients split), CPU sampled over the middle."""
    opts = ctx.options
    seconds = max(4, round(opts.seconds))
    split = [c for c in shares(opts.clients, len(group.entries)) if c]
    window = Window()
    cpu: list[tuple[float, dict[str, float]]] = []

    def sampler(start: float) -> None:
        for at in (start + 2.0, start + seconds - 1.0):
            time.sleep(max(0.0, at - time.monotonic()))
            cpu.append((time.monotonic(), group.cpu_seconds()))

    def one(i: int) -> str:
        args = [*flags, "-M", "prepared", "-c", str(split[i]),
                "-j", str(max(1, min(opts.threads, split[i])))]
        return pgbench(ctx, group.entries[i], args, f"{test} {group.name}#{i}",
                       seconds=seconds, meter=window)  # type: ignore[arg-type]

    start = time.monotonic()
    thread = threading.Thread(target=sampler, args=(start,), daemon=True)
    thread.start()
    with ThreadPoolExecutor(len(split)) as pool:
        outs = list(pool.map(one, range(len(split))))
    thread.join(seconds + 5)
    parts = [parse_summary(o) for o in outs]
    per_tx, by_kind = None, {}
    if len(cpu) == 2:
        n = window.transactions(cpu[0][0], cpu[1][0])
        if n > 0:
            (_, a), (_, b) = cpu
            by_kind = {k: (b[k] - a.get(k, 0.0)) / n * 1e6 for k in b}
            per_tx = sum(by_kind.values())
    return Run(sum(p.tps for p in parts), per_tx, sum(p.failed for p in parts),
               os.getloadavg()[0], by_kind)


def check_balances(entry: System) -> None:
    """TPC-B's invariant: the account, teller and branch balances sum alike."""
    with entry.connect() as conn:
        sums = conn.execute(BALANCES).fetchone()
    if sums is None or len({int(v or 0) for v in sums}) != 1:
        raise BenchError(f"balances disagree after TPC-B: accounts, tellers, branches = {sums}")


@contextmanager
def unshared(ctx: RunContext, n: int, scale: int) -> Iterator[Group]:
    """N independent `cumulo serve` processes, each loaded with the pgbench tables."""
    with ExitStack() as stack:
        entries = [replace(stack.enter_context(cumulo_embedded(keep=False)),
                           name=f"unshared-{n}", label=f"unshared-{n}#{i}") for i in range(n)]
        with ThreadPoolExecutor(n) as pool:
            list(pool.map(lambda e: cluster.load(ctx, e, scale), entries))
        yield Group(f"unshared-{n}", entries, listeners(entries))


@contextmanager
def shared(ctx: RunContext, n: int, scale: int) -> Iterator[Group]:
    """`cumulo cluster up --nodes 1 --engines N`, loaded through engine 0."""
    with cluster.cluster_up(ctx, 1, n) as entries:
        d = os.path.join(ctx.workdir, cluster.key(1, n))
        state = cluster_pids(d)
        cluster.load(ctx, entries[0], scale)
        yield Group(f"shared-{n}", entries, state)


@contextmanager
def workers(ctx: RunContext, n: int, scale: int) -> Iterator[Group]:
    """`cumulo serve --cluster ZK --workers N` on a one-node cluster: N engines, one port."""
    d = os.path.join(ctx.workdir, cluster.key(1, 0))
    shutil.rmtree(d, ignore_errors=True)  # NB: a fresh cluster, not the last config's data
    with cluster.cluster_up(ctx, 1, 0):
        state = State.load(d)
        if state is None:
            raise BenchError(f"no cluster.json in {d}")
        port = cluster.consecutive_ports(1)
        serve_dir = os.path.join(d, f"serve-{n}")
        os.makedirs(serve_dir, exist_ok=True)
        log_path = os.path.join(serve_dir, "serve.log")
        args = ["serve", "--cluster", state.zk, "--workers", str(n), "--port", str(port),
                "--data-dir", serve_dir]
        ctx.commands.append("cumulo " + " ".join(args))
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "cumulo.server.cli", *args],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 180
            while not ready_in(log_path):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"cumulo serve --workers {n} did not start: "
                                     + " | ".join(open(log_path).read().splitlines()[-4:]))
                time.sleep(0.2)
            entry = System(f"workers-{n}", f"--workers {n}", "127.0.0.1", port,
                           log_path=log_path)
            cluster.load(ctx, entry, scale)
            pids = cluster_pids(d)
            pids[proc.pid] = "engine"  # NB: its worker children are in its tree
            yield Group(f"workers-{n}", [entry], pids)
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def ready_in(log_path: str) -> bool:
    with open(log_path, errors="replace") as f:
        return "ready to accept connections" in f.read()


def cluster_pids(data_dir: str) -> dict[int, str]:
    """Every process `cluster up` started, by kind (ZooKeeper too: it is part of the system)."""
    state = State.load(data_dir)
    if state is None:
        raise BenchError(f"no cluster.json in {data_dir}")
    return {p.pid: p.kind for p in state.procs}


# A child that echoes whatever it reads, for the floor of a loopback round trip.
ECHO = """import socket, sys
srv = socket.create_server(("127.0.0.1", 0)); print("LISTENING 127.0.0.1", srv.getsockname()[1],
flush=True); c, _ = srv.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while (b := c.recv(65536)): c.sendall(b)
"""


Connect = Callable[[str, int], tuple[Callable[[], object], Callable[[], object]]]


def round_trip(argv: list[str], call_for: Connect, n: int = 3000) -> tuple[float, float]:
    """(client, server) CPU microseconds of one round trip to a child started with argv.

    The child prints `LISTENING host port`; `call_for(host, port)` connects and returns
    (a function doing one round trip, a closer). CPU, not wall time: on a loaded machine
    the wall time is mostly waiting for a core.
    """
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        _, host, port = child.stdout.readline().split()
        call, close = call_for(host, int(port))
        try:
            for _ in range(300):
                call()
            c0, s0 = time.process_time(), cpu_of(child.pid)
            for _ in range(n):
                call()
            c1, s1 = time.process_time(), cpu_of(child.pid)
        finally:
            close()
    finally:
        child.terminate()
        child.wait(10)
    return (c1 - c0) / n * 1e6, (s1 - s0) / n * 1e6


def transport_costs() -> dict[str, tuple[float, float]]:
    """What crossing a process costs: a bare TCP echo of 100 bytes (the floor) against a
    KiVi point read through `kivi.remote` (what a shared engine pays per read) to a real
    `cumulo kivi` role process."""

    def bare(host: str, port: int) -> tuple[Callable[[], object], Callable[[], object]]:
        sock = socket.create_connection((host, port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        msg = b"x" * 100

        def call() -> bytes:
            sock.sendall(msg)
            return sock.recv(65536)

        return call, sock.close

    def kivi(host: str, port: int) -> tuple[Callable[[], object], Callable[[], object]]:
        node, get = RemoteNode(host, port), Get(1, 1 << 40, [b"key1"])
        return (lambda: node.handle(get)), node.close

    return {
        "bare TCP round trip": round_trip([sys.executable, "-c", ECHO], bare),
        "kivi.remote Get round trip": round_trip(
            [sys.executable, "-m", "cumulo.server.cluster.role", "kivi", "--stdin-watch"], kivi),
    }


def median_run(runs: list[Run]) -> Run:
    costs = [r.cpu_us_per_tx for r in runs if r.cpu_us_per_tx is not None]
    kinds = {k for r in runs for k in r.by_kind}
    return Run(statistics.median(r.tps for r in runs),
               statistics.median(costs) if costs else None,
               sum(r.failed for r in runs), max(r.load for r in runs),
               {k: statistics.median(r.by_kind.get(k, 0.0) for r in runs) for k in kinds})


def measure(ctx: RunContext, group: Group, pg: Group | None, results: Results) -> None:
    """The timed tests on one group, `--repeat` rounds, each right after a PostgreSQL run.

    Why pairs: other users of the machine change every figure within minutes, so each
    configuration's ratio is to the PostgreSQL run next to it (`results[test]["postgres
    @<name>"]`), not to one measured earlier.
    """
    for test, flags in TESTS:
        runs, pg_runs = [], []
        for _ in range(max(1, ctx.options.repeat)):
            if pg is not None and pg is not group:
                pg_runs.append(timed(ctx, pg, test, flags))
            runs.append(timed(ctx, group, test, flags))
        if test == "TPC-B":
            check_balances(group.entries[0])
        results[test][group.name] = r = median_run(runs)
        if pg_runs:
            results[test][f"postgres@{group.name}"] = median_run(pg_runs)
        print(f"[bench] {group.name} {test}: {r.tps:.0f} tps, "
              f"{r.cpu_us_per_tx or 0:.0f} us CPU/tx, load {r.load:.1f}", file=sys.stderr)


Results = dict[str, dict[str, Run]]  # test -> configuration (or postgres@configuration) -> run


def notes(results: Results) -> list[str]:
    """Per configuration and test: tps, CPU per transaction by kind of process, and ratios
    to the PostgreSQL run paired with it and to one `cumulo serve`."""
    out = []
    for test, by in results.items():
        for name, r in by.items():
            if name.startswith("postgres@"):
                continue
            cost = f", {r.cpu_us_per_tx:.0f} us CPU/tx" if r.cpu_us_per_tx else ""
            if len(r.by_kind) > 1:
                cost += " (" + ", ".join(f"{k} {v:.0f}" for k, v in sorted(
                    r.by_kind.items(), key=lambda kv: -kv[1])) + ")"
            parts = []
            if (p := by.get(f"postgres@{name}")) is not None and p.tps:
                parts.append(f"{r.tps / p.tps:.2f}x PostgreSQL ({p.tps:.0f} tps, "
                             f"{p.cpu_us_per_tx or 0:.0f} us CPU/tx, same minute)")
            if name != "cumulo" and (c := by.get("cumulo")) is not None and c.tps:
                parts.append(f"{r.tps / c.tps:.2f}x one process")
            out.append(f"{test} {name}: {r.tps:.0f} tps{cost}, load {r.load:.1f}"
                       + (" = " + ", ".join(parts) if parts else ""))
    return out


def run(ctx: RunContext) -> list[Figure]:
    """Loads PostgreSQL and one `cumulo serve`, then measures each configuration in turn."""
    scale = max(1, int(ctx.options.scale or DEFAULT_SCALE))
    results: Results = {t: {} for t, _ in TESTS}
    loaded = [s for s in ctx.systems
              if ctx.attempt(s, "load", cluster.load, ctx, s, scale) is not None]
    pg = next((Group(s.name, [s], listeners([s])) for s in loaded if s.name == "postgres"),
              None)
    for system in loaded:
        if system.name != "postgres":
            ctx.attempt(system, "run", lambda s=system: measure(
                ctx, Group(s.name, [s], listeners([s])), pg, results))
    if pg is not None and not any(s.name != "postgres" for s in loaded):
        ctx.attempt(pg.entries[0], "run", measure, ctx, pg, pg, results)
    for name in configs():
        kind, _, n = name.partition("-")
        placeholder = System(name, name, "127.0.0.1", 0)

        def one(kind: str = kind, n: int = int(n)) -> None:
            start = {"shared": shared, "workers": workers, "unshared": unshared}[kind]
            with start(ctx, n, scale) as group:
                measure(ctx, group, pg, results)

        ctx.attempt(placeholder, "run", one)
    ctx.notes.extend(notes(results))
    transport = ctx.attempt(System("transport", "transport", "127.0.0.1", 0), "transport",
                            transport_costs)
    for what, (client, server) in (transport or {}).items():
        ctx.notes.append(f"{what}: {client:.1f} us CPU in the client, {server:.1f} us in the "
                         "server")
    for by in results.values():  # PostgreSQL's column: the median of its paired runs
        paired = [r for n, r in by.items() if n.startswith("postgres@")]
        if paired and "postgres" not in by:
            by["postgres"] = median_run(paired)
    # NB: the paired PostgreSQL runs are in the notes; the figures have one column per system
    names = [n for n in dict.fromkeys(n for by in results.values() for n in by)
             if not n.startswith("postgres@")]
    figures = []
    for test, _ in TESTS:
        label = f"{test} -s {scale} -c {ctx.options.clients}"
        by = results[test]
        figures.append(ctx.figure(NAME, f"{label} tps", "tx/s", "higher",
                                  {n: by[n].tps if n in by else None for n in names}, "run"))
        figures.append(ctx.figure(NAME, f"{label} CPU per tx (every process)", "us", "lower",
                                  {n: by[n].cpu_us_per_tx if n in by else None for n in names},
                                  "run"))
    return figures
