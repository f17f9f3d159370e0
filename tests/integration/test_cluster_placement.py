"""Placement in cluster mode (issue 14, items 2 and 3): the region map in ZooKeeper, live
splits and moves, through `cumulo cluster up --nodes 3`.

A bank workload runs from psycopg and pg8000 sessions while a region of the accounts
table is split by hand, then moved by hand to another node, while the ledger table
grows past the split threshold and the MasterMind splits (and balances) it by itself.
Throughout, every snapshot a reader takes must show the constant total; no client may
see the internal routing errors (`WrongRegion`, `RegionMoving`); at the end every
acknowledged transfer is in the ledger exactly once and every balance is the sum of
the ledger. A second query engine, which runs the checker and no transfer, then reads the
same through the map it followed. Then the cluster is stopped and started again: the
moved and split regions come back from their nodes' files, with every row.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading

import pytest

from tests.integration.cluster_helpers import wait_for
from tests.integration.test_cluster_launcher import cluster_dir, cumulo  # noqa: F401 (fixture)
from tests.server_process import engine_port

ACCOUNTS = 60
START = 100
PAD = "x" * 200  # ledger rows of ~250 bytes: the ledger passes the split threshold quickly
SPLIT_BYTES = 40_000
ROUTING_WORDS = ("is moving", "does not hold")  # kivi.routing's errors: must never leak


def _engine_port() -> int:
    return engine_port(2)


def _up(d: str, port: int, *extra: str) -> None:
    r = cumulo("cluster", "up", "--nodes", "3", "--data-dir", d, "--port", str(port),
               "--region-split-bytes", str(SPLIT_BYTES), "--placement-interval", "1", *extra)
    assert r.returncode == 0, r.stderr + r.stdout


def _regions(conn, table: str) -> list[tuple]:
    """(region_id, start_key, end_key, node, epoch, rows) of a table, in key order."""
    return conn.execute("SELECT region_id, start_key, end_key, node, epoch, rows "
                        "FROM cumulo_regions WHERE table_name = %s", (table,)).fetchall()


class Bank:
    """Transfer workers (psycopg and pg8000) and a checker (pg8000), all in threads."""

    def __init__(self, port: int, failover: bool = False, checker_port: int | None = None
                 ) -> None:
        self.port = port
        self.checker_port = port if checker_port is None else checker_port
        # While a dead node's regions recover, statements may fail with retryable errors
        # (never with a wrong answer); a split or a move must not show any.
        self.failover = failover
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.acked: list[tuple[int, int, int, int]] = []  # (tid, src, dst, amount)
        self.unknown: list[int] = []  # tids whose commit outcome the client did not learn
        self.retries = 0
        self.checks = 0
        self.failures: list[str] = []
        self._ids = iter(range(1, 10**9))
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._guard, args=(self._psycopg_worker, i))
                        for i in range(2)]
        self.threads.append(threading.Thread(target=self._guard, args=(self._pg8000_worker, 2)))
        self.threads.append(threading.Thread(target=self._guard, args=(self._checker, 3)))

    def start(self) -> Bank:
        for t in self.threads:
            t.start()
        return self

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(60)

    def _guard(self, fn, seed: int) -> None:
        try:
            fn(random.Random(seed))
        except BaseException as e:  # noqa: BLE001 - reported by the test
            self.failures.append(f"{fn.__name__}: {type(e).__name__}: {e}")

    def _transfer(self, rng: random.Random) -> tuple[int, int, int, int]:
        a, b = rng.sample(range(1, ACCOUNTS + 1), 2)
        with self._lock:
            tid = next(self._ids)
        return tid, a, b, rng.randint(1, 20)

    def _retryable(self, sqlstate: str | None, message: str) -> bool:
        if any(w in message for w in ROUTING_WORDS) and not self.failover:
            self.failures.append(f"a routing error reached the client: {message}")
        if sqlstate in ("40001", "40P01") or (self.failover and sqlstate == "57P01"):
            self.retries += 1
            self.errors.append(f"{sqlstate} {message}")
            return True
        return False

    def _psycopg_worker(self, rng: random.Random) -> None:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=cumulo dbname=cumulo") as c:
            while not self.stop.is_set():
                tid, a, b, amount = self._transfer(rng)
                try:
                    with c.transaction():
                        for acc, delta in sorted([(a, -amount), (b, amount)]):
                            c.execute("UPDATE acc SET b = b + %s WHERE id = %s", (delta, acc))
                        c.execute("INSERT INTO ledger VALUES (%s, %s, %s, %s, %s)",
                                  (tid, a, b, amount, PAD))
                except psycopg.Error as e:
                    state = e.sqlstate
                    if state == "40003":  # the commit's outcome is unknown
                        self.unknown.append(tid)
                    elif not self._retryable(state, str(e)):
                        raise
                    continue
                self.acked.append((tid, a, b, amount))

    def _pg8000_worker(self, rng: random.Random) -> None:
        import pg8000.native

        c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=self.port,
                                     database="cumulo")
        try:
            while not self.stop.is_set():
                tid, a, b, amount = self._transfer(rng)
                try:
                    c.run("BEGIN")
                    for acc, delta in sorted([(a, -amount), (b, amount)]):
                        c.run("UPDATE acc SET b = b + :d WHERE id = :i", d=delta, i=acc)
                    c.run("INSERT INTO ledger VALUES (:t, :a, :b, :m, :p)", t=tid, a=a, b=b,
                          m=amount, p=PAD)
                    c.run("COMMIT")
                except pg8000.native.DatabaseError as e:
                    fields = e.args[0] if e.args and isinstance(e.args[0], dict) else {}
                    c.run("ROLLBACK")
                    if fields.get("C") == "40003":
                        self.unknown.append(tid)
                    elif not self._retryable(fields.get("C"), str(fields.get("M"))):
                        raise
                    continue
                self.acked.append((tid, a, b, amount))
        finally:
            c.close()

    def _checker(self, rng: random.Random) -> None:
        """Every snapshot shows the constant total (a scan, and point reads in one txn)."""
        import pg8000.native

        c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=self.checker_port,
                                     database="cumulo")
        try:
            while not self.stop.is_set():
                try:
                    c.run("BEGIN ISOLATION LEVEL REPEATABLE READ")
                    total = c.run("SELECT sum(b), count(*) FROM acc")
                    ids = sorted(rng.sample(range(1, ACCOUNTS + 1), ACCOUNTS))
                    by_key = c.run("SELECT sum(b) FROM acc WHERE id = ANY(:ids)", ids=ids)
                    ranged = c.run("SELECT sum(b) FROM acc WHERE id BETWEEN 1 AND :n",
                                   n=ACCOUNTS)
                    c.run("COMMIT")
                except pg8000.native.DatabaseError as e:
                    fields = e.args[0] if e.args and isinstance(e.args[0], dict) else {}
                    c.run("ROLLBACK")
                    if not self._retryable(fields.get("C"), str(fields.get("M"))):
                        raise
                    continue
                assert total == [[ACCOUNTS * START, ACCOUNTS]], total
                assert by_key == ranged == [[ACCOUNTS * START]], (by_key, ranged)
                self.checks += 1
        finally:
            c.close()


def audit(conn, bank: Bank) -> None:
    """Every acknowledged transfer is in the ledger once; every balance is the ledger's sum."""
    ledger = {r[0]: tuple(r) for r in conn.execute(
        "SELECT id, src, dst, amount FROM ledger").fetchall()}
    acked = {t[0]: t for t in bank.acked}
    assert set(acked) <= set(ledger), "acknowledged transfers are missing"
    assert set(ledger) - set(acked) <= set(bank.unknown), "unacknowledged rows"
    assert all(ledger[t] == acked[t] for t in acked)
    expect = {i: START for i in range(1, ACCOUNTS + 1)}
    for _tid, a, b, amount in ledger.values():
        expect[a] -= amount
        expect[b] += amount
    assert dict(conn.execute("SELECT id, b FROM acc").fetchall()) == expect
    count = conn.execute("SELECT count(*) FROM ledger").fetchone()[0]
    assert count == len(ledger)  # no row twice


def _setup_bank(c) -> None:
    c.execute("CREATE TABLE acc (id int PRIMARY KEY, b int NOT NULL)")
    c.execute("INSERT INTO acc SELECT g, %s FROM generate_series(1, %s) g", (START, ACCOUNTS))
    c.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, src int, dst int, amount int, "
              "pad text)")


def test_bank_workload_through_splits_and_moves(cluster_dir):  # noqa: F811 (the fixture)
    import pg8000.native
    import psycopg

    d, port = cluster_dir, _engine_port()
    _up(d, port, "--engines", "2")
    dsn = f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo"
    with psycopg.connect(dsn, autocommit=True) as c:
        # Three new tables start on the least-loaded nodes: one each.
        for t in ("p1", "p2", "p3"):
            c.execute(f"CREATE TABLE {t} (id int PRIMARY KEY)")
        firsts = [_regions(c, t) for t in ("p1", "p2", "p3")]
        assert all(len(r) == 1 and r[0][1] is None and r[0][2] is None for r in firsts), firsts
        assert len({r[0][3] for r in firsts}) == 3, firsts

        _setup_bank(c)
        # The transfers run on engine 0, the checker on engine 1 (snapshots from the MasterMind)
        bank = Bank(port, checker_port=port + 1).start()
        try:
            wait_for(lambda: len(bank.acked) >= 20 and bank.checks >= 3, "transfers to run")
            # A split by hand, while transfers run: the accounts' region is cut at 31.
            (whole,) = _regions(c, "acc")
            upper_id = c.execute("SELECT cumulo_split('acc', %s)", (ACCOUNTS // 2 + 1,)).fetchone()[0]
            lower, upper = _regions(c, "acc")
            assert (lower[1], lower[2], upper[0], upper[1], upper[2]) == (
                None, str(ACCOUNTS // 2 + 1), upper_id, str(ACCOUNTS // 2 + 1), None), (lower, upper)
            if lower[4] == upper[4] == whole[4] + 1:  # (not moved by the balancer since)
                assert lower[3] == upper[3] == whole[3]  # a split moves no data
            with pytest.raises(psycopg.errors.InvalidParameterValue):
                c.execute("SELECT cumulo_split('acc', %s)", (ACCOUNTS // 2 + 1,))
            seen = len(bank.acked)
            wait_for(lambda: len(bank.acked) >= seen + 20, "transfers after the split")

            # A move by hand, while transfers run: the upper half goes to another node.
            target = sorted({"kivi-0", "kivi-1", "kivi-2"} - {upper[3]})[0]
            epoch = c.execute("SELECT cumulo_move(%s, %s)", (upper_id, target)).fetchone()[0]
            assert epoch >= 2
            (now,) = [r for r in _regions(c, "acc") if r[0] == upper_id]
            assert now[3] == target or now[4] > epoch, (now, target, epoch)
            with pytest.raises(psycopg.errors.InvalidParameterValue):
                c.execute("SELECT cumulo_move(%s, 'no-such-node')", (upper_id,))
            # It was copied while it served, frozen only to catch up the log's tail.
            with open(os.path.join(d, "logs", "mastermind.log")) as f:
                assert "copied while serving" in f.read()
            seen = len(bank.acked)
            wait_for(lambda: len(bank.acked) >= seen + 20, "transfers after the move")

            # The ledger grows past the threshold: the MasterMind splits it by itself (and
            # moves regions to keep the nodes balanced), still under the workload.
            wait_for(lambda: len(_regions(c, "ledger")) >= 2, "the ledger to be split")
            seen = len(bank.acked)
            wait_for(lambda: len(bank.acked) >= seen + 20, "transfers after the automatic split")
        finally:
            bank.finish()
        assert bank.failures == [], bank.failures
        assert bank.checks >= 5

        audit(c, bank)
        ledger_rows = c.execute("SELECT count(*) FROM ledger").fetchone()[0]
        regions = {t: _regions(c, t) for t in ("acc", "ledger")}
        assert sum(r[5] for r in regions["acc"]) == ACCOUNTS, regions
    # pg8000 sees the same, through the other query engine, whose map was not told.
    p = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port + 1, database="cumulo")
    try:
        assert p.run("SELECT sum(b), count(*) FROM acc") == [[ACCOUNTS * START, ACCOUNTS]]
        assert p.run("SELECT count(*) FROM ledger") == [[ledger_rows]]
    finally:
        p.close()

    # Down and up: the split and moved regions come back from their nodes' files.
    r = cumulo("cluster", "down", "--data-dir", d)
    assert r.returncode == 0, r.stdout + r.stderr
    _up(d, port, "--engines", "2")
    with psycopg.connect(dsn, autocommit=True) as c:
        audit(c, bank)
        assert [r[:3] for r in _regions(c, "acc")] == [r[:3] for r in regions["acc"]]
        c.execute("UPDATE acc SET b = b + 1 WHERE id = %s", (ACCOUNTS,))
        assert c.execute("SELECT sum(b) FROM acc").fetchone()[0] == ACCOUNTS * START + 1


def test_a_killed_node_s_regions_recover_under_the_bank_workload(cluster_dir):  # noqa: F811
    """SIGKILL the node that holds the accounts: its regions reopen on live nodes from its
    checkpoint and the loggers' records; meanwhile statements wait or fail retryably, no
    snapshot shows a wrong total, and no acknowledged transfer is lost."""
    import psycopg

    d, port = cluster_dir, _engine_port()
    _up(d, port, "--zk-session-timeout", "2")
    dsn = f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo"
    with open(os.path.join(d, "cluster.json")) as f:
        pids = {p["name"]: p["pid"] for p in json.load(f)["procs"]}
    with psycopg.connect(dsn, autocommit=True) as c:
        _setup_bank(c)
        (acc,) = _regions(c, "acc")
        victim = acc[3]
        bank = Bank(port, failover=True).start()
        try:
            wait_for(lambda: len(bank.acked) >= 20 and bank.checks >= 3, "transfers to run")
            os.kill(pids[victim], signal.SIGKILL)
            wait_for(lambda: all(r[3] != victim for t in ("acc", "ledger") for r in _regions(c, t)),
                  "the accounts to be reopened elsewhere")
            seen = len(bank.acked)
            wait_for(lambda: len(bank.acked) >= seen + 20 and bank.checks >= 6,
                  "transfers after the recovery")
        finally:
            bank.finish()
        assert bank.failures == [], bank.failures
        audit(c, bank)
        nodes = {r[3] for r in c.execute("SELECT region_id, start_key, end_key, node, epoch, "
                                         "rows FROM cumulo_regions").fetchall()}
        assert victim not in nodes
    # Down and up: the killed node comes back and drops the copies it gave away.
    r = cumulo("cluster", "down", "--data-dir", d)
    assert r.returncode == 0, r.stdout + r.stderr
    _up(d, port, "--zk-session-timeout", "2")
    with psycopg.connect(dsn, autocommit=True) as c:
        audit(c, bank)
