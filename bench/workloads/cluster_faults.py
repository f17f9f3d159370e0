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
"""

from __future__ import annotations

import json
import os
import random
import signal
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
