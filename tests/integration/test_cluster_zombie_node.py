"""A paused ("zombie") KiVi node must not act on regions it lost (issue 14, item 5: fencing).

`cumulo cluster up --nodes 2 --zk-session-timeout 2`. Inserts run (psycopg) while the
node holding the table is stopped with SIGSTOP for longer than its session timeout:
the MasterMind declares it dead and reopens its regions on the other node (epoch + 1).
Then it is resumed with SIGCONT. A query engine whose map were stale would still send
it requests, so the test sends one itself, straight to the zombie, as soon as it
resumes: a scan of the table it held must be refused (`RegionMoving` from the lease
gate, or `WrongRegion` once it has rejoined and dropped the regions given away), never
answered with its stale rows; an apply must not be acknowledged either. The node then
rejoins the cluster as a new incarnation, and every acknowledged insert is there.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import psycopg
import pytest

from cumulo.server.cluster import regionstore
from cumulo.server.cluster import zk as zk_mod
from cumulo.server.errors import SQLError
from cumulo.server.kivi.api import Apply, NodeStatus, Scan, Write
from cumulo.server.kivi.remote import RemoteNode
from tests.integration.cluster_helpers import wait_for
from tests.integration.test_cluster_launcher import cluster_dir, cumulo  # noqa: F401
from tests.server_process import engine_port


def _owners(zk, spaces: set[int]) -> set[str]:
    """The nodes the map in ZooKeeper gives the spaces' regions to (read there: the
    `cumulo_regions` view asks every node for its sizes, and the paused one answers none)."""
    return {r.owner for s in spaces for r in (regionstore.read_space(zk, s) or ([], 0))[0]}


def test_a_paused_node_declared_dead_answers_nothing_after_it_resumes(cluster_dir):  # noqa: F811
    d = cluster_dir
    port = engine_port(1)
    r = cumulo("cluster", "up", "--nodes", "2", "--data-dir", d, "--port", str(port),
               "--zk-session-timeout", "2", "--placement-interval", "0.5")
    assert r.returncode == 0, r.stderr + r.stdout
    with open(os.path.join(d, "cluster.json")) as f:
        state = json.load(f)
    procs = {p["name"]: p for p in state["procs"]}
    zk = zk_mod.connect(state["zk"])
    dsn = f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo"
    acked: list[int] = []
    errors: list[str] = []
    unknown: set[int] = set()  # outcome not known to the client (committed or not)
    stop = threading.Event()

    def insert() -> None:
        with psycopg.connect(dsn, autocommit=True) as c:
            i = 0
            while not stop.is_set():
                i += 1
                try:
                    c.execute("INSERT INTO t VALUES (%s, 'x')", (i,))
                    acked.append(i)
                except (psycopg.errors.SerializationFailure,  # retryable, during failover
                        psycopg.errors.StatementCompletionUnknown) as e:  # 40003: may be in
                    errors.append(str(e))
                    unknown.add(i)

    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("CREATE TABLE t (id int PRIMARY KEY, v text)")
        c.execute("INSERT INTO t VALUES (0, 'first')")
        (victim,) = {n for (n,) in c.execute(
            "SELECT node FROM cumulo_regions WHERE table_name = 't'")}
        zombie = RemoteNode(procs[victim]["host"], procs[victim]["port"], timeout=30)
        status = zombie.handle(NodeStatus())
        spaces = {s for s, _lo, _hi, n in status.regions if n}
        assert spaces and _owners(zk, spaces) == {victim}, status
        writer = threading.Thread(target=insert, daemon=True)
        writer.start()
        try:
            wait_for(lambda: len(acked) >= 20, "inserts")
            os.kill(procs[victim]["pid"], signal.SIGSTOP)
            try:
                wait_for(lambda: victim not in _owners(zk, spaces), "the paused node's regions to move")
                moved = time.monotonic()
                seen = len(acked)
                wait_for(lambda: len(acked) >= seen + 20, "inserts on the new owner")
            finally:
                os.kill(procs[victim]["pid"], signal.SIGCONT)
            # At once, as a query engine with a stale map would: no answer with data.
            for space in spaces:
                with pytest.raises(SQLError) as e:
                    zombie.handle(Scan(space, 1 << 60))
                assert e.value.sqlstate == "40001", e.value
            with pytest.raises(SQLError) as e:
                zombie.handle(Apply(1 << 50, [Write(min(spaces), b"\x00zombie", ("z",))]))
            assert e.value.sqlstate == "40001", e.value
            wait_for(lambda: cumulo("cluster", "status", "--data-dir", d).returncode == 0,
                  "the resumed node to rejoin")
            rejoined = time.monotonic()
            seen = len(acked)
            wait_for(lambda: len(acked) >= seen + 10, "inserts after the node rejoined")
        finally:
            stop.set()
            writer.join(60)
            zombie.close()
            zk.stop()
        rows = {i for (i,) in c.execute("SELECT id FROM t")}
        assert set(acked) <= rows, sorted(set(acked) - rows)[:10]
        assert rows <= set(acked) | unknown | {0}, "a commit nobody asked for"
    log = open(os.path.join(d, "logs", f"{victim}.log")).read()
    assert "session expired" in log, log[-2000:]
    print(f"paused node: regions moved, {rejoined - moved:.1f} s later it had rejoined "
          f"(session timeout 2 s); retryable errors seen by the client: {len(errors)}")
