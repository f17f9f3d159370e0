"""cluster-sim: how TPC-B throughput would grow from 1 to 8 (and more) nodes, by simulation.

Why a simulation: this machine has 2 cores, so three KiVi nodes, two engines, a
logger, a conflict manager and a MasterMind on it share the same two cores and
no real scale-out can be seen (issue 14's goal P10: N nodes give >= 0.8 N times one
node's throughput). So the scale-out is modelled instead: a deterministic
discrete-event simulation of closed-loop TPC-B clients over the cluster's roles,
each role a station with its own core and a FIFO queue, and the service times
*measured on this machine* from the real components (`measure`):

    role (stations per N)      work per TPC-B transaction (TxnShape)
    query engine (N)           SQL CPU + the client half of every RPC it makes
    KiVi node (N)              3 reads and the apply of 4 writes, spread by key
    conflict manager (N)       1 acquire per write + 1 release, by key bucket
    logger (N)                 one group commit: an fsync shared by the records queued
    MasterMind (1)             `mm_msgs` round trips (snapshot, readable, ack refresh)

Keys are uniform over the nodes (regions split evenly), so every node, conflict
manager and logger gets 1/N of the work; only the MasterMind is shared, and it
is where the growth stops. Lock waits and aborts are not modelled (TPC-B at
scale >= clients rarely collides) nor the network's wire time (loopback RPCs
are CPU on both ends, which is modelled). Service times are exponential around
the measured means; everything random comes from one seeded `random.Random`,
events are ordered by (time, sequence number): the same inputs give the same
numbers, bit for bit (`bench/tests/test_cluster_sim.py`).

Run: `python -m bench cluster-sim` (in process, a few seconds; no server).

>>> costs = Costs(qe_cpu=1e-3, rpc_client=2e-5, rpc_server=2e-5, kivi_read=5e-6,
...               kivi_apply=5e-6, cm_op=5e-6, fsync=1e-3, log_record=2e-6, mm_op=5e-6)
>>> a = simulate(costs, nodes=2, seconds=0.2, seed=1)
>>> a == simulate(costs, nodes=2, seconds=0.2, seed=1)
True
>>> a.tps > simulate(costs, nodes=1, seconds=0.2, seed=1).tps
True
"""

from __future__ import annotations

import heapq
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core import Figure, RunContext
from ..server_cost import cpu_of

NAME = "cluster-sim"
DESCRIPTION = "simulated TPC-B scale-out over 1..8 nodes, service times measured here"
SYSTEM = "cumulo"
GOAL = 0.8  # P10: N nodes give at least GOAL * N times one node


@dataclass(frozen=True)
class Costs:
    """Mean service times in seconds, per operation (see `measure`)."""

    qe_cpu: float  # SQL work of one TPC-B transaction in a query engine
    rpc_client: float  # client side of one round trip (encode, send, receive, decode)
    rpc_server: float  # server side of one round trip (decode, dispatch, encode)
    kivi_read: float  # one point read in a node
    kivi_apply: float  # applying one write in a node
    cm_op: float  # one conflict-manager message (acquire or release of one key)
    fsync: float  # one group commit's fsync
    log_record: float  # writing one record into a group
    mm_op: float  # one MasterMind message (timestamp, snapshot, ack)


@dataclass(frozen=True)
class TxnShape:
    """What one TPC-B transaction asks of the roles (pgbench's five statements)."""

    reads: int = 3  # accounts, tellers, branches (the SELECT reads the own write)
    writes: int = 4  # three UPDATEs and one INSERT
    # MasterMind round trips (cluster.mastermind, txn.ltm with shared_snapshots): the fresh
    # snapshot at begin, the readable report after the apply, and the refresh that makes
    # the acknowledgement wait for the shared snapshot. Timestamps come in batches: free.
    mm_msgs: int = 3
    # Transactions sharing one MasterMind message (1: today's protocol; more: the what-if
    # of LTMs batching snapshot requests and reports, as they batch timestamps)
    mm_batch: int = 1


@dataclass(frozen=True)
class Result:
    """One simulated configuration: throughput and the busiest station."""

    nodes: int
    clients: int
    tps: float
    latency_ms: float
    bottleneck: str
    utilization: dict[str, float] = field(default_factory=dict, compare=False)


class Station:
    """A role with one core: a FIFO queue, one job at a time."""

    __slots__ = ("name", "role", "busy", "queue", "busy_time")

    def __init__(self, name: str, role: str) -> None:
        self.name, self.role = name, role
        self.busy = False
        self.queue: deque[tuple[float, Callable[[], None]]] = deque()
        self.busy_time = 0.0


class Logger(Station):
    """A group-commit logger: one fsync serves every record queued when it starts."""

    __slots__ = ("fsync",)

    def __init__(self, name: str, fsync: float) -> None:
        super().__init__(name, "logger")
        self.fsync = fsync


class Sim:
    """The event loop: a heap of (time, sequence number, callback), and the stations' queues."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.now = 0.0
        self._events: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0

    def at(self, t: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._events, (t, self._seq, fn))

    def draw(self, mean: float) -> float:
        """An exponential service time around `mean` (0 stays 0)."""
        return self.rng.expovariate(1.0 / mean) if mean > 0 else 0.0

    def use(self, st: Station, mean: float, then: Callable[[], None]) -> None:
        """Queues a job of `mean` seconds at a station; `then` runs when it is done."""
        st.queue.append((mean, then))
        if not st.busy:
            self._start(st)

    def _start(self, st: Station) -> None:
        if isinstance(st, Logger):  # the whole queue is one group: one fsync
            jobs = list(st.queue)
            st.queue.clear()
            d = self.draw(st.fsync) + sum(m for m, _ in jobs)
            thens = [then for _, then in jobs]
        else:
            mean, then = st.queue.popleft()
            d = self.draw(mean)
            thens = [then]
        st.busy = True
        st.busy_time += d

        def done() -> None:
            st.busy = False
            for fn in thens:
                fn()
            if st.queue and not st.busy:
                self._start(st)

        self.at(self.now + d, done)

    def run(self, until: float) -> None:
        while self._events and self._events[0][0] <= until:
            t, _, fn = heapq.heappop(self._events)
            self.now = t
            fn()


class Cluster:
    """N of every role but one MasterMind, and the closed-loop clients driving them."""

    def __init__(self, sim: Sim, costs: Costs, shape: TxnShape, nodes: int) -> None:
        self.sim, self.c, self.shape, self.n = sim, costs, shape, nodes
        self.engines = [Station(f"engine-{i}", "engine") for i in range(nodes)]
        self.kivi = [Station(f"kivi-{i}", "kivi") for i in range(nodes)]
        self.cms = [Station(f"conflicts-{i}", "conflicts") for i in range(nodes)]
        self.loggers = [Logger(f"logger-{i}", costs.fsync) for i in range(nodes)]
        self.mm = Station("mastermind", "mastermind")
        self.done = 0
        self.latency = 0.0
        self.measuring = False

    def stations(self) -> list[Station]:
        return [*self.engines, *self.kivi, *self.cms, *self.loggers, self.mm]

    def steps(self, engine: int) -> list[tuple[Station, float]]:
        """One transaction's jobs in order: (station, mean service time)."""
        c, sh, rng, n = self.c, self.shape, self.sim.rng, self.n
        rpc = c.rpc_server
        writes = [rng.randrange(n) for _ in range(sh.writes)]  # the node owning each key
        cms = [rng.randrange(n) for _ in range(sh.writes)]  # the bucket owner of each key
        touched, released = sorted(set(writes)), sorted(set(cms))
        rpcs = sh.mm_msgs + sh.reads + sh.writes + 1 + len(touched) + len(released)
        mm = (self.mm, (rpc + c.mm_op) / sh.mm_batch)
        out = [mm, (self.engines[engine], c.qe_cpu + rpcs * c.rpc_client)]
        out += [(self.kivi[rng.randrange(n)], rpc + c.kivi_read) for _ in range(sh.reads)]
        out += [(self.cms[b], rpc + c.cm_op) for b in cms]
        out.append((self.loggers[engine], c.log_record))  # an engine's records go to one logger
        out += [(self.kivi[k], rpc + writes.count(k) * c.kivi_apply) for k in touched]
        out += [mm] * max(0, sh.mm_msgs - 2)  # the readable report
        out += [(self.cms[b], rpc + c.cm_op) for b in released]
        out.append(mm)  # the refresh before the acknowledgement
        return out

    def client(self, engine: int) -> None:
        """Starts one closed-loop client: a new transaction as soon as the last one ends."""
        steps = self.steps(engine)
        began = self.sim.now
        i = 0

        def next_step() -> None:
            nonlocal i
            if i == len(steps):
                if self.measuring:
                    self.done += 1
                    self.latency += self.sim.now - began
                self.client(engine)
                return
            st, mean = steps[i]
            i += 1
            self.sim.use(st, mean, next_step)

        next_step()


def simulate(costs: Costs, nodes: int, *, clients_per_node: int = 8, seconds: float = 2.0,
             seed: int = 7, shape: TxnShape = TxnShape()) -> Result:
    """Simulates `seconds` of TPC-B on `nodes` nodes (after a tenth as warm-up)."""
    sim = Sim(seed)
    cl = Cluster(sim, costs, shape, nodes)
    clients = clients_per_node * nodes
    for k in range(clients):
        sim.at(0.0, lambda k=k: cl.client(k % nodes))
    warm = seconds / 10
    sim.run(warm)
    for st in cl.stations():
        st.busy_time = 0.0
    cl.measuring = True
    sim.run(warm + seconds)
    util: dict[str, list[float]] = {}
    for st in cl.stations():
        util.setdefault(st.role, []).append(min(1.0, st.busy_time / seconds))
    mean_util = {r: sum(u) / len(u) for r, u in util.items()}
    bottleneck = max(mean_util, key=lambda r: mean_util[r])
    tps = cl.done / seconds
    lat = 1000 * cl.latency / cl.done if cl.done else float("inf")
    return Result(nodes, clients, tps, lat, bottleneck, mean_util)


def scale_out(costs: Costs, counts: list[int], **kw: object) -> list[Result]:
    """`simulate` for each node count."""
    return [simulate(costs, n, **kw) for n in counts]  # type: ignore[arg-type]


def efficiency(results: list[Result]) -> list[float]:
    """X(N) / (N * X(1)) for each result (the first is the one-node baseline)."""
    base = results[0].tps / results[0].nodes
    return [r.tps / (r.nodes * base) for r in results]


def knee(results: list[Result], goal: float = GOAL, growth: float = 1.05) -> tuple[int | None,
                                                                                  int | None]:
    """(the first N below the goal, the first N where throughput grew less than 5 %)."""
    below = next((r.nodes for r, e in zip(results, efficiency(results), strict=True)
                  if e < goal), None)
    flat = next((b.nodes for a, b in zip(results, results[1:], strict=False)
                 if b.tps < a.tps * growth), None)
    return below, flat


# --- the service times, measured here -------------------------------------------------------


def _per_op(fn: Callable[[], object], n: int, clock: Callable[[], float] = time.perf_counter
            ) -> float:
    """The best of three timings of `n` calls of fn, per call (the least disturbed by others)."""
    best = float("inf")
    for _ in range(3):
        t = clock()
        for _ in range(n):
            fn()
        best = min(best, (clock() - t) / n)
    return best


def _engine_cpu(txns: int) -> float:
    """CPU seconds of one pgbench TPC-B transaction in an in-memory embedded engine.

    It includes the in-process KiVi, conflict-manager and sequencer work (small next to
    the SQL), so it slightly overstates a query engine's share: a conservative figure.
    """
    from cumulo.server.sql.engine import SQLEngine
    from cumulo.server.txn.embedded import open_embedded

    engine = SQLEngine(open_embedded(None, gc_interval=None))
    s = engine.open_session("cumulo", "cumulo", {})
    try:
        for sql in ("create table pgbench_branches (bid int primary key, bbalance int, "
                    "filler char(88))",
                    "create table pgbench_tellers (tid int primary key, bid int, tbalance int, "
                    "filler char(84))",
                    "create table pgbench_accounts (aid int primary key, bid int, abalance int, "
                    "filler char(84))",
                    "create table pgbench_history (tid int, bid int, aid int, delta int, "
                    "mtime timestamp, filler char(22))",
                    "insert into pgbench_branches values (1, 0, '')",
                    "insert into pgbench_tellers select i, 1, 0, '' from generate_series(1, 10) i",
                    "insert into pgbench_accounts select i, 1, 0, '' "
                    "from generate_series(1, 10000) i"):
            list(s.simple_query(sql))
        stmts = [s.prepare(q, []) for q in (
            "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
            "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
            "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
            "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
            "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
            "VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)")]
        rng = random.Random(3)

        def txn() -> None:
            aid, tid, delta = rng.randint(1, 10000), rng.randint(1, 10), rng.randint(-5000, 5000)
            list(s.simple_query("BEGIN"))
            for st, params in zip(stmts, ([delta, aid], [aid], [delta, tid], [delta, 1],
                                          [tid, 1, aid, delta]), strict=True):
                s.execute(st, params)
            list(s.simple_query("END"))

        for _ in range(50):  # warm the plan caches
            txn()
        return _per_op(txn, txns, time.process_time)
    finally:
        s.close()
        engine.close()


def _round_trip(request: object, n: int = 2000) -> tuple[float, float]:
    """(client CPU, server CPU) of one round trip to a KiVi node in its own process.

    CPU time, not wall time: on a shared 2-core machine the wall time of a loopback round
    trip is mostly waiting for a core, which more machines would not have to do. The node
    is a real role process (`cluster.role kivi`); its CPU is read from /proc.
    """
    from cumulo.server.kivi.remote import RemoteNode

    proc = subprocess.Popen([sys.executable, "-m", "cumulo.server.cluster.role", "kivi",
                             "--stdin-watch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        _, host, port = proc.stdout.readline().split()
        remote = RemoteNode(host, int(port))
        try:
            for _ in range(200):  # warm up
                remote.handle(request)
            client = _per_op(lambda: remote.handle(request), n, time.process_time)
            before = cpu_of(proc.pid)
            for _ in range(n):
                remote.handle(request)
            server = (cpu_of(proc.pid) - before) / n
        finally:
            remote.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return client, server


def measure(txns: int = 300) -> Costs:
    """Times the real components on this machine (a few seconds)."""
    from cumulo.server.kivi.api import Apply, Get, Write
    from cumulo.server.kivi.node import KiviNode
    from cumulo.server.txn.conflicts import Acquire, ConflictManager, Release

    node = KiviNode()
    keys = [i.to_bytes(4, "big") for i in range(4000)]
    ts = iter(range(1, 10**9))
    node.apply(Apply(next(ts), [Write(1, k, (1, 2, 3)) for k in keys]))
    apply4 = _per_op(lambda: node.apply(Apply(next(ts), [Write(1, k, (4, 5, 6))
                                                         for k in keys[:4]])), 2000) / 4
    read = _per_op(lambda: node.get(Get(1, 10**9, [keys[7]])), 5000)
    rpc_client, rpc_server = _round_trip(Get(1, 10**9, [keys[7]]))
    cm = ConflictManager()
    tids = iter(range(1, 10**9))

    def cm_pair() -> None:
        t = next(tids)
        cm.handle(Acquire(t, t, ((1, keys[t % 4000]),)))
        cm.handle(Release(t, ((1, keys[t % 4000]),), commit_ts=t))

    cm_op = _per_op(cm_pair, 3000) / 2
    with tempfile.TemporaryDirectory() as d:
        fd = os.open(os.path.join(d, "log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            fsync = _per_op(lambda: (os.write(fd, b"x" * 200), os.fsync(fd)), 50)
            record = _per_op(lambda: os.write(fd, b"x" * 200), 3000)
        finally:
            os.close(fd)
    return Costs(qe_cpu=_engine_cpu(txns), rpc_client=rpc_client, rpc_server=rpc_server,
                 kivi_read=read, kivi_apply=apply4, cm_op=cm_op, fsync=fsync,
                 log_record=record, mm_op=cm_op)


# --- the workload ---------------------------------------------------------------------------

COUNTS = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48]


def report(costs: Costs, results: list[Result]) -> list[str]:
    """The table printed as notes: N, tps, speed-up, efficiency, the busiest role."""
    base = results[0].tps
    lines = [f"{'nodes':>5} {'tx/s':>8} {'x1 node':>8} {'eff':>5} {'lat ms':>7}  busiest role"]
    for r, e in zip(results, efficiency(results), strict=True):
        lines.append(f"{r.nodes:>5} {r.tps:>8.0f} {r.tps / base:>8.2f} {e:>5.2f} "
                     f"{r.latency_ms:>7.1f}  {r.bottleneck} "
                     f"({100 * r.utilization[r.bottleneck]:.0f}% busy)")
    below, flat = knee(results)
    lines.append(f"goal {GOAL} x N x one node: met up to "
                 f"{'every N simulated' if below is None else f'N = {below - 1} (not at {below})'}"
                 f"; throughput stops growing at "
                 f"{'no N simulated' if flat is None else f'N = {flat}'}")
    lines.append("measured costs (µs): " + ", ".join(
        f"{k} {1e6 * v:.1f}" for k, v in vars(costs).items()))
    return lines


def run(ctx: RunContext) -> list[Figure]:
    """Measures the roles' service times here, then simulates 1..48 nodes, as the protocol is
    today and with the MasterMind's messages batched 16 to one."""
    costs = measure()
    figures = []
    for label, shape in (("", TxnShape()), (", MasterMind batched", TxnShape(mm_batch=16))):
        results = scale_out(costs, COUNTS, seconds=1.0, shape=shape)
        ctx.notes.append(f"cluster-sim{label}: {shape}")
        ctx.notes.extend(f"cluster-sim{label}: {line}" for line in report(costs, results))
        for r, e in zip(results, efficiency(results), strict=True):
            if r.nodes in (1, 2, 4, 8, 16, 32):
                figures.append(Figure(NAME, f"TPC-B, {r.nodes} node(s){label} (simulated)",
                                      "tx/s", "higher", {SYSTEM: round(r.tps, 1)},
                                      note=f"{e:.2f} of linear; busiest: {r.bottleneck}"))
    return figures
