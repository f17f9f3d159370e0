"""What clients see while a cluster changes under them: a region move, a KiVi node killed.

Used by the `cluster` workload (issue 14's benchmark asks for the throughput dip of
a region move and the time to detect and recover a killed KiVi node). Both
measurements run `PointReads`, a few threads of primary-key reads over the whole
pgbench_accounts table counted per 100 ms, and disturb the cluster in the middle:

- `move_dip`: `cumulo_move` of the accounts' first region to another node; gives the
  rate before, the worst 100 ms from the move on (as a fraction of it), the move's
  duration and the reads that failed;
- `kill_recovery`: SIGKILL of the KiVi node holding the accounts' first region (its
  pid from the cluster's `cluster.json`); gives the time until `cumulo_regions` names
  another owner (ZooKeeper session expiry plus the MasterMind's reassignment), the time
  until reads run at half their earlier rate again, and the reads that failed (a
  statement may fail with a retryable error during recovery, never with a wrong answer).

And the recovery time of every role (`role_recovery`, also run alone:
`python -m bench.workloads.cluster_faults [--session-timeout 2]`, which starts its own
`cumulo cluster up --nodes 2 --engines 2 --masterminds 2 --supervise`): `Commits`
clients increment a counter through the engines (libpq multi-host, so a client whose
engine dies reconnects to the other); each role in turn — the KiVi node holding the
counter, the logger, the conflict manager, the MasterMind leader, the engine the
clients use — is killed with SIGKILL, and the time from the kill to the first commit
*begun after it* being acknowledged is printed, with the longest stall of commits
after the kill. Before the next kill the supervisor has restarted the victim and
commits flow again.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ..systems import System

ACCOUNT = "SELECT abalance FROM pgbench_accounts WHERE aid = %s"
FIRST_REGION = ("SELECT region_id, node FROM cumulo_regions WHERE table_name = "
                "'pgbench_accounts' ORDER BY region_id LIMIT 1")


class PointReads:
    """`clients` threads reading random accounts until `stop`; completions stamped."""

    def __init__(self, system: System, accounts: int, clients: int = 4) -> None:
        self.system, self.accounts = system, accounts
        self.start = time.monotonic()
        self.stamps: list[list[float]] = [[] for _ in range(clients)]
        self.errors = [0] * clients
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read, args=(i,), daemon=True)
                         for i in range(clients)]
        for t in self._threads:
            t.start()

    def now(self) -> float:
        return time.monotonic() - self.start

    def _read(self, i: int) -> None:
        import psycopg

        rng = random.Random(i)
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.system.dsn, autocommit=True, connect_timeout=10) as c:
                    c.execute("SET statement_timeout = 30000")  # a read never hangs the run
                    while not self._stop.is_set():
                        try:
                            c.execute(ACCOUNT, (rng.randint(1, self.accounts),)).fetchone()
                            self.stamps[i].append(self.now())
                        except psycopg.DatabaseError:  # 40001, 57014, ...: counted, go on
                            self.errors[i] += 1
            except psycopg.OperationalError:  # the connection was lost: a new one
                self.errors[i] += 1
                time.sleep(0.1)

    def completed(self, t0: float, t1: float) -> int:
        """Reads that completed between t0 and t1 (seconds since the start)."""
        return sum(1 for ts in self.stamps for x in ts[-5000:] if t0 <= x < t1)

    def buckets(self) -> list[int]:
        """Completions per 100 ms since the start."""
        out = [0] * (int(self.now() * 10) + 1)
        for ts in self.stamps:
            for x in list(ts):
                out[int(x * 10)] += 1
        return out

    def stop(self) -> list[int]:
        """Stops the readers; returns completions per 100 ms since the start."""
        self._stop.set()
        deadline = time.monotonic() + 40
        for t in self._threads:
            t.join(max(0.1, deadline - time.monotonic()))
        return self.buckets()


def _rate_before(buckets: list[int], at: float) -> float:
    """Reads/s before `at` seconds: the median 100 ms bucket (skipping the first 0.2 s)."""
    before = sorted(buckets[2:int(at * 10)]) or [0]
    return 10.0 * before[len(before) // 2]


def move_dip(system: System, accounts: int, seconds: float) -> dict[str, float]:
    """Point reads while the accounts' first region moves to the next node (module doc)."""
    reads = PointReads(system, accounts)
    time.sleep(seconds / 3)
    with system.connect() as conn:
        region, node = conn.execute(FIRST_REGION).fetchone()
        nodes = sorted({n for (n,) in conn.execute("SELECT DISTINCT node FROM cumulo_regions")}
                       | {"kivi-0", "kivi-1"})
        to = nodes[(nodes.index(node) + 1) % len(nodes)] if node in nodes else nodes[0]
        began = reads.now()
        conn.execute("SELECT cumulo_move(%s, %s)", (region, to))
        took = reads.now() - began
    time.sleep(max(0.5, seconds / 3))
    buckets = reads.stop()
    base = _rate_before(buckets, began)
    after = buckets[int(began * 10):int((began + took) * 10) + 3]
    return {"reads/s": base, "worst": 10.0 * min(after) / base if base else 0.0,
            "move ms": 1000 * took, "errors": float(sum(reads.errors))}


def kill_recovery(system: System, cluster_dir: str, accounts: int, seconds: float,
                  limit: float = 90.0) -> dict[str, float]:
    """SIGKILLs the node of the accounts' first region under point reads (module doc)."""
    with open(os.path.join(cluster_dir, "cluster.json")) as f:
        pids = {p["name"]: p["pid"] for p in json.load(f)["procs"]}
    reads = PointReads(system, accounts)
    time.sleep(seconds / 3)
    with system.connect() as conn:
        region, node = conn.execute(FIRST_REGION).fetchone()
    killed = reads.now()
    os.kill(pids[node], signal.SIGKILL)
    reassigned = None
    while reads.now() - killed < limit and reassigned is None:
        time.sleep(0.2)
        try:
            with system.connect() as conn:
                row = conn.execute("SELECT node FROM cumulo_regions WHERE region_id = %s",
                                   (region,)).fetchone()
            if row is not None and row[0] != node:
                reassigned = reads.now() - killed
        except Exception:  # noqa: BLE001 - the engine may refuse while the map changes
            pass
    base = _rate_before(reads.buckets(), killed)
    while reads.now() - killed < limit:  # until reads run at half their earlier rate again
        time.sleep(0.25)
        now = reads.now()
        if reads.completed(now - 0.5, now) * 2 >= base / 2:
            break
    time.sleep(0.5)
    buckets = reads.stop()
    base = _rate_before(buckets, killed)
    start = int(killed * 10) + 1
    back = next((i for i in range(start, len(buckets)) if buckets[i] * 10 >= base / 2), None)
    return {"reads/s": base,
            "reassigned s": reassigned if reassigned is not None else float("nan"),
            "reads back s": (back / 10 - killed) if back is not None else float("nan"),
            "errors": float(sum(reads.errors))}


class Commits:
    """`clients` threads incrementing `counter` through `dsn` (autocommit), reconnecting
    after an error; each acknowledged commit is kept as (began, acknowledged)."""

    def __init__(self, dsn: str, clients: int = 3) -> None:
        self.dsn = dsn
        self.done: list[list[tuple[float, float]]] = [[] for _ in range(clients)]
        self.errors: dict[str, int] = {}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                         for i in range(clients)]
        for t in self._threads:
            t.start()

    def _run(self, i: int) -> None:
        import psycopg

        conn = None
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)
                began = time.monotonic()
                conn.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
                self.done[i].append((began, time.monotonic()))
            except psycopg.Error as e:  # counted by SQLSTATE; a lost connection is redone
                key = e.sqlstate or type(e).__name__
                self.errors[key] = self.errors.get(key, 0) + 1
                if conn is not None and conn.closed:
                    conn = None
                time.sleep(0.05)
        if conn is not None:
            conn.close()

    def first_after(self, t: float) -> float | None:
        """Seconds from t to the acknowledgement of the first commit begun after t."""
        acks = [end for d in self.done for began, end in d[-20000:] if began > t]
        return min(acks) - t if acks else None

    def longest_stall(self, t: float) -> float:
        """The longest time without any acknowledgement, from t to now."""
        acks = sorted([t] + [end for d in self.done for _b, end in d[-20000:] if end > t]
                      + [time.monotonic()])
        return max(b - a for a, b in zip(acks, acks[1:], strict=False))

    def acked(self) -> int:
        return sum(len(d) for d in self.done)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(40)


def _procs(cluster_dir: str) -> dict[str, dict]:
    with open(os.path.join(cluster_dir, "cluster.json")) as f:
        return {p["name"]: p for p in json.load(f)["procs"]}


def _victim(kind: str, cluster_dir: str, dsn: str) -> str:
    """The process of that role whose death matters to the counter's commits."""
    import psycopg

    procs = _procs(cluster_dir)
    if kind == "kivi":
        with psycopg.connect(dsn, autocommit=True) as c:
            (node,) = c.execute("SELECT node FROM cumulo_regions WHERE table_name = 'counter' "
                                "LIMIT 1").fetchone()
        return str(node)
    if kind == "mastermind":
        from kazoo.client import KazooClient

        from cumulo.server.cluster.leaderclient import LEADER

        with open(os.path.join(cluster_dir, "cluster.json")) as f:
            zk = KazooClient(hosts=json.load(f)["zk"])
        zk.start(timeout=10)
        try:
            port = json.loads(zk.get(LEADER)[0])["port"]
        finally:
            zk.stop()
        return next(n for n, p in procs.items() if p["kind"] == "mastermind" and p["port"] == port)
    if kind == "engine":
        with psycopg.connect(dsn, autocommit=True) as c:  # NB: the engine a new client gets
            port = c.info.port
        return next(n for n, p in procs.items() if p["kind"] == "engine" and p["port"] == port)
    return f"{kind}-0"


def role_recovery(cluster_dir: str, dsn: str, kinds: tuple[str, ...], limit: float = 60.0
                  ) -> dict[str, dict[str, float]]:
    """Kills each role kind in turn under `Commits` (module doc); per kind, the seconds
    to the first commit begun after the kill and the longest stall."""
    commits = Commits(dsn)
    out: dict[str, dict[str, float]] = {}
    try:
        deadline = time.monotonic() + limit
        while commits.acked() < 20 and time.monotonic() < deadline:
            time.sleep(0.1)
        for kind in kinds:
            name = _victim(kind, cluster_dir, dsn)
            pid = _procs(cluster_dir)[name]["pid"]
            killed = time.monotonic()
            os.kill(pid, signal.SIGKILL)
            first = None
            while first is None and time.monotonic() - killed < limit:
                time.sleep(0.1)
                first = commits.first_after(killed)
            # NB: whole again before the next kill: the victim restarted, commits flowing
            while time.monotonic() - killed < limit and _procs(cluster_dir)[name]["pid"] == pid:
                time.sleep(0.2)
            time.sleep(2.0)
            out[kind] = {"first commit s": first if first is not None else float("nan"),
                         "longest stall s": commits.longest_stall(killed)}
    finally:
        commits.stop()
    out["all"] = {"commits": float(commits.acked()),
                  **{f"errors {k}": float(v) for k, v in sorted(commits.errors.items())}}
    return out


KINDS = ("kivi", "logger", "conflicts", "mastermind", "engine")


def recovery(session_timeout: float = 2.0, kinds: tuple[str, ...] = KINDS, port: int = 0
             ) -> tuple[dict[str, dict[str, float]], int]:
    """Starts a supervised cluster (module doc), kills each role kind once under `Commits`;
    returns `role_recovery`'s figures and the counter's final value (which must be at
    least the acknowledged commits)."""
    from cumulo.server.cluster.ports import port_run

    port = port or port_run(2)
    d = tempfile.mkdtemp(prefix="cumulo-faults-")
    cli = [sys.executable, "-m", "cumulo.server.cli"]
    try:
        r = subprocess.run([*cli, "cluster", "up", "--nodes", "2", "--engines", "2",
                            "--masterminds", "2", "--supervise", "--data-dir", d, "--port",
                            str(port), "--zk-session-timeout", str(session_timeout),
                            "--placement-interval", "0.5"], capture_output=True, text=True,
                           timeout=300)
        if r.returncode:
            raise RuntimeError("cluster up failed: " + " | ".join(
                (r.stderr or r.stdout).strip().splitlines()[-4:]))
        dsn = (f"host=127.0.0.1,127.0.0.1 port={port},{port + 1} user=cumulo dbname=cumulo")
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)")
            c.execute("INSERT INTO counter VALUES (1, 0)")
        got = role_recovery(d, dsn, kinds)
        with psycopg.connect(dsn, autocommit=True) as c:
            (n,) = c.execute("SELECT n FROM counter WHERE id = 1").fetchone()
        if n < got["all"]["commits"]:
            raise RuntimeError(f"lost commits: counter {n} < {got['all']['commits']:.0f} "
                               "acknowledged")
        return got, n
    finally:
        subprocess.run([*cli, "cluster", "down", "--data-dir", d, "--timeout", "10"],
                       capture_output=True)
        shutil.rmtree(d, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Starts a supervised cluster, kills each role kind once, prints the recovery times."""
    p = argparse.ArgumentParser(prog="python -m bench.workloads.cluster_faults",
                                description="time from SIGKILL of each role to a commit")
    p.add_argument("--session-timeout", type=float, default=2.0)
    p.add_argument("--roles", default=",".join(KINDS))
    p.add_argument("--port", type=int, default=0, help="first engine's port (default: free)")
    args = p.parse_args(argv)
    try:
        got, n = recovery(args.session_timeout, tuple(args.roles.split(",")), args.port)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    print(f"ZooKeeper session timeout {args.session_timeout} s; load "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'SIGKILL of':<12}{'first commit after (s)':>24}{'longest stall (s)':>20}")
    for kind, v in got.items():
        if kind != "all":
            print(f"{kind:<12}{v['first commit s']:>24.2f}{v['longest stall s']:>20.2f}")
    print(f"commits acknowledged {got['all']['commits']:.0f}, counter {n}; errors: "
          + ", ".join(f"{k[7:]}={v:.0f}" for k, v in got["all"].items() if k != "commits"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
