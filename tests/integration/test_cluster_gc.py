"""Garbage collection in cluster mode (issue 14): below the low water of *every* LTM.

Two LTMs (`ClusterTxnManager`) share real KiVi node, conflict manager and MasterMind
processes. LTM B holds a REPEATABLE READ snapshot open while LTM A updates the row it
read many times and collects: B must still read its old value (A's own low water is
above it; the MasterMind's global one is not), and once B commits, A's next collection
drops the old versions on the storage node. The same end to end: `cumulo cluster up
--engines 2 --gc-interval 0.2`, reached with psycopg, and the versions counted on the
KiVi node itself.
"""

from __future__ import annotations

import time

import psycopg

from cumulo.server.cluster.launcher import State
from cumulo.server.cluster.manager import ClusterTxnManager
from cumulo.server.cluster.mastermind import GlobalLowWater, LowWater, MasterMindService
from cumulo.server.kivi.api import ExportRegion, NodeStatus
from cumulo.server.kivi.remote import RemoteNode
from tests.integration.test_cluster_launcher import cluster_dir, cumulo  # noqa: F401
from tests.integration.test_cluster_rpc import BUCKETS, cluster  # noqa: F401
from tests.server_process import engine_port
from tests.unit.txn import golden_runner


def test_mastermind_answers_the_minimum_over_live_ltms():
    mm = MasterMindService(expire_after=30.0)
    assert mm.handle(LowWater(0, 100)) == GlobalLowWater(100)
    assert mm.handle(LowWater(1, 40)) == GlobalLowWater(40)
    assert mm.handle(LowWater(0, 120)) == GlobalLowWater(40)  # LTM 1 still holds it back
    assert mm.handle(LowWater(1, 150)) == GlobalLowWater(120)
    assert mm.global_low_water(2, 500, now=10**9) == 500  # the others went silent: dropped
    assert sorted(mm.low_waters) == [2]


def _chain_length(cluster, key: bytes) -> int:  # noqa: F811
    """Versions of key held by the storage nodes (every region of the space, each node)."""
    found = 0
    for h, p in cluster.kivi:
        node = RemoteNode(h, p)
        try:
            for space, lo, _hi, _n in node.handle(NodeStatus()).regions:
                if space == golden_runner.SPACE:
                    region = node.handle(ExportRegion(space, lo))
                    if key in region.keys:
                        found += len(region.chains[region.keys.index(key)])
        finally:
            node.close()
    assert found, f"{key!r} is on no node"
    return found


def test_gc_keeps_what_another_ltms_snapshot_reads(cluster):  # noqa: F811
    mm_role = cluster.spawn("mastermind")
    mm = mm_role.address()
    space = golden_runner.SPACE

    def ltm(i: int) -> ClusterTxnManager:
        return cluster.ltm(i, mm, gc_interval=None)

    cluster.manager().close()  # empties space 1 (split over both nodes) and resets managers
    a, b = ltm(0), ltm(1)
    try:
        t = a.begin()
        t.put(space, [(b"ka", ("ka", 0))])
        t.commit()
        reader = b.begin(isolation="repeatable read")
        assert reader.get(space, [b"ka"]) == [("ka", 0)]
        last = 0
        for i in range(1, 21):
            t = a.begin()
            t.put(space, [(b"ka", ("ka", i))])
            last = t.commit()
        own = a.ltm.low_water()
        used = a.collect()
        assert used < own, (used, own)  # B's snapshot held it back
        assert reader.get(space, [b"ka"]) == [("ka", 0)]  # the old version is still there
        assert _chain_length(cluster, b"ka") == 21
        reader.commit()
        used = b.collect() and a.collect()  # B reports its new low water, then A collects
        assert used >= last, (used, last)
        assert _chain_length(cluster, b"ka") == 1  # only the newest version is left
        t = b.begin(isolation="repeatable read")
        assert t.get(space, [b"ka"]) == [("ka", 20)]
        t.commit()
    finally:
        b.close()
        a.close()
        mm_role.stop()


def _space_versions(node: RemoteNode) -> dict[int, int]:
    """Versions held per space (every key's chain, every region of the node)."""
    out: dict[int, int] = {}
    for space, lo, _hi, _n in node.handle(NodeStatus()).regions:
        region = node.handle(ExportRegion(space, lo))
        out[space] = out.get(space, 0) + sum(len(c) for c in region.chains)
    return out


def _until(what: str, check, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


def test_engines_gc_around_another_engines_repeatable_read(cluster_dir):  # noqa: F811
    for _attempt in range(3):  # NB: a role's (ephemeral) port may be port + 1: start again
        port = engine_port(2)
        r = cumulo("cluster", "up", "--nodes", "1", "--engines", "2", "--data-dir",
                   cluster_dir, "--port", str(port), "--gc-interval", "0.2")
        if "Address already in use" not in r.stderr:
            break
        cumulo("cluster", "down", "--data-dir", cluster_dir, "--timeout", "5")
    assert r.returncode == 0, r.stderr + r.stdout
    state = State.load(cluster_dir)
    assert state is not None
    (kivi,) = [p for p in state.procs if p.kind == "kivi"]
    node = RemoteNode(kivi.host, kivi.port)
    url = "host=127.0.0.1 user=cumulo dbname=cumulo port="
    try:
        with psycopg.connect(url + str(port), autocommit=True) as a, \
                psycopg.connect(url + str(port + 1)) as b:
            def versions(spaces: set[int]) -> int:
                return sum(n for sp, n in _space_versions(node).items() if sp in spaces)

            before = set(_space_versions(node))
            a.execute("CREATE TABLE x (id int PRIMARY KEY, v int)")
            a.execute("INSERT INTO x VALUES (1, 0)")
            sx = set(_space_versions(node)) - before  # the table's spaces (rows, index)
            x0 = versions(sx)
            a.execute("CREATE TABLE y (id int PRIMARY KEY, v int)")
            a.execute("INSERT INTO y VALUES (1, 0)")
            sy = set(_space_versions(node)) - before - sx
            y0 = versions(sy)
            assert sx and sy and x0 and y0
            for i in range(10):
                a.execute("UPDATE y SET v = %s", (i + 1,))
            b.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            assert b.execute("SELECT v FROM x").fetchone() == (0,)  # b's snapshot: x = 0
            for i in range(20):
                a.execute("UPDATE x SET v = %s", (i + 1,))
            x1 = versions(sx)
            assert x1 >= x0 + 20  # b's snapshot holds every one of them
            # GC runs: y's versions (all below b's snapshot) collapse to the newest...
            _until("y's old versions to be collected", lambda: versions(sy) == y0)
            # ...but none of x's (b's snapshot reads the oldest), and b still reads it.
            assert versions(sx) == x1
            assert b.execute("SELECT v FROM x").fetchone() == (0,)
            b.commit()
            _until("x's old versions to be collected", lambda: versions(sx) == x0)
            assert b.execute("SELECT v FROM x").fetchone() == (20,)
            b.commit()
    finally:
        node.close()
