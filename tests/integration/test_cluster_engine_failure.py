"""A query engine killed with SIGKILL does not hold the cluster back (issue 14, item 5).

`cumulo cluster up --engines 2 --zk-session-timeout 2`, reached with psycopg and pg8000.
Engine 1 runs inserts, holds a row lock in an open transaction and a REPEATABLE READ
snapshot; then it is paused (so that its batch of timestamps stays unused) and killed.
Once its ZooKeeper session expires, the MasterMind clears what it left
(`cluster.reaper`), and:

- engine 0's commits, which waited for the shared snapshot, are acknowledged, and its
  clients see no error;
- engine 0's update that waited for engine 1's row lock goes through, on the row as it
  was before engine 1's uncommitted change;
- engine 1's clients lost their connection, and reconnect to engine 0;
- every insert engine 1 acknowledged is there;
- the global GC low water is no longer held back by engine 1's snapshot.

The time from the SIGKILL to engine 0's blocked update returning is printed (the
recovery time); it is not asserted.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pg8000.dbapi
import psycopg

from cumulo.server.cluster.mastermind import LowWater
from cumulo.server.kivi.remote import RemoteNode
from tests.integration.cluster_helpers import wait_for
from tests.integration.test_cluster_launcher import cluster_dir, cumulo  # noqa: F401
from tests.server_process import engine_port

ACCOUNTS = 10


def _conn(port: int, autocommit: bool = True) -> psycopg.Connection:
    return psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo",
                           autocommit=autocommit)


class Inserter(threading.Thread):
    """Inserts ledger rows from one engine; records the acknowledged ids and the errors."""

    def __init__(self, port: int, engine: int, driver: str) -> None:
        super().__init__(daemon=True)
        self.port, self.engine, self.driver = port, engine, driver
        self.acked: list[int] = []
        self.errors: list[str] = []
        self.unknown: int | None = None  # the id in flight when the connection broke
        self.stop = threading.Event()

    def run(self) -> None:
        i = self.engine * 1_000_000
        if self.driver == "pg8000":
            c = pg8000.dbapi.connect(user="cumulo", database="cumulo", host="127.0.0.1",
                                     port=self.port)
            c.autocommit = True
        else:
            c = _conn(self.port)
        try:
            while not self.stop.is_set():
                i += 1
                try:
                    c.cursor().execute("INSERT INTO ledger VALUES (%s, %s)", (i, self.engine))
                except Exception as e:  # noqa: BLE001 - recorded, judged by the test
                    self.unknown = i
                    self.errors.append(f"{type(e).__name__}: {e}")
                    return
                self.acked.append(i)
        finally:
            try:
                c.close()
            except Exception:  # noqa: BLE001 - the engine is gone
                pass


def _global_low_water(mm: RemoteNode) -> int:
    """The MasterMind's global low water (asked as an LTM id no engine has, with a huge
    low water of its own, so that it changes nothing)."""
    return int(mm.handle(LowWater(30_000, 1 << 60)).lw)


def test_a_killed_query_engine_does_not_hold_the_cluster_back(cluster_dir):  # noqa: F811
    d = cluster_dir
    port = engine_port(2)
    r = cumulo("cluster", "up", "--nodes", "2", "--engines", "2", "--data-dir", d, "--port",
               str(port), "--zk-session-timeout", "2", "--placement-interval", "0")
    assert r.returncode == 0, r.stderr + r.stdout
    e0, e1 = port, port + 1
    with open(os.path.join(d, "cluster.json")) as f:
        procs = {p["name"]: p for p in json.load(f)["procs"]}
    mm = RemoteNode(procs["mastermind"]["host"], procs["mastermind"]["port"])
    with _conn(e0) as a:
        a.execute("CREATE TABLE acc (id int PRIMARY KEY, b int NOT NULL)")
        a.execute("INSERT INTO acc SELECT g, 100 FROM generate_series(1, %s) g", (ACCOUNTS,))
        a.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, engine int NOT NULL)")

    # Engine 1: an open transaction holding account 1's row lock, an old snapshot, inserts.
    holder = _conn(e1, autocommit=False)
    holder.execute("UPDATE acc SET b = b - 50 WHERE id = 1")
    old = _conn(e1, autocommit=False)
    old.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    assert old.execute("SELECT sum(b) FROM acc").fetchone() == (ACCOUNTS * 100,)
    dead = Inserter(e1, 1, "pg8000")
    live = Inserter(e0, 0, "psycopg")
    dead.start()
    live.start()
    try:
        wait_for(lambda: len(dead.acked) >= 20 and len(live.acked) >= 20, "inserts on both engines")
        # The old snapshot holds GC back (engines report every second).
        wait_for(lambda: _global_low_water(mm) < 1 << 59, "the engines' low water reports")
        held = _global_low_water(mm)

        os.kill(procs["engine-1"]["pid"], signal.SIGSTOP)  # NB: its batch stays unused
        waiter_result: list[object] = []

        def wait_for_lock() -> None:
            try:
                with _conn(e0) as c:
                    c.execute("UPDATE acc SET b = b + 7 WHERE id = 1")
                    waiter_result.append(time.monotonic())
            except Exception as e:  # noqa: BLE001 - judged below
                waiter_result.append(e)

        waiter = threading.Thread(target=wait_for_lock, daemon=True)
        waiter.start()
        time.sleep(0.5)
        assert waiter_result == [], "the update did not wait for engine 1's row lock"
        killed = time.monotonic()
        os.kill(procs["engine-1"]["pid"], signal.SIGKILL)

        waiter.join(90)
        assert len(waiter_result) == 1 and isinstance(waiter_result[0], float), waiter_result
        recovered = waiter_result[0] - killed
        seen = len(live.acked)
        wait_for(lambda: len(live.acked) >= seen + 20, "engine 0's inserts after the kill")
        # Engine 1's clients lost their connection; they reconnect to engine 0.
        wait_for(lambda: not dead.is_alive(), "engine 1's client to notice")
        assert dead.errors, "engine 1's client saw no error"
        for c in (holder, old):
            try:
                c.execute("SELECT 1")
                raise AssertionError("a dead engine's connection still answered")
            except psycopg.OperationalError:
                pass
        wait_for(lambda: _global_low_water(mm) > held, "GC no longer held back by engine 1")
    finally:
        live.stop.set()
        live.join(60)
        mm.close()
        for c in (holder, old):
            c.close()
    assert live.errors == [], live.errors
    with _conn(e0) as c:  # a client of the dead engine, reconnected to the live one
        assert c.execute("SELECT b FROM acc WHERE id = 1").fetchone() == (107,)
        assert c.execute("SELECT sum(b) FROM acc").fetchone() == (ACCOUNTS * 100 + 7,)
        rows = {i for (i,) in c.execute("SELECT id FROM ledger WHERE engine = 1")}
        assert set(dead.acked) <= rows, sorted(set(dead.acked) - rows)[:10]
        assert rows - set(dead.acked) <= {dead.unknown}, "a commit nobody asked for"
        rows0 = {i for (i,) in c.execute("SELECT id FROM ledger WHERE engine = 0")}
        assert rows0 == set(live.acked)
    log = open(os.path.join(d, "logs", "mastermind.log")).read()
    assert "is dead:" in log, log[-2000:]
    print(f"engine SIGKILL -> blocked update on engine 0 done: {recovered:.2f} s "
          f"(ZooKeeper session timeout 2 s); reaper: "
          f"{[line for line in log.splitlines() if 'is dead:' in line][-1]}")
