"""The roles that coordinate, killed (issue 14, item 5): a conflict manager, the MasterMind
and a query engine, in turn, on one cluster started once for the module:
`cumulo cluster up --nodes 1 --engines 2 --masterminds 2 --supervise --zk-session-timeout 2`.

**A conflict manager** killed with SIGKILL: no lost update, clear errors, and the
cluster writes again once the manager is back (`cluster.cmfailover`). The lost-update
check runs throughout: `UPDATE counter SET n = n + 1` from psycopg clients on engine 0
and pg8000 clients on engine 1, at READ COMMITTED. An open transaction on engine 1
holds a row lock when the manager dies. The supervisor starts the manager again; each
engine dooms the transactions that were active (their locks died) and follows the new
address; the MasterMind then resets the manager at the watermark. During all this a
client may see 40001 (the manager unreachable, or a doomed transaction), 57P03 (the
manager not reset yet) or 40003 (an outcome it cannot know); it retries. At the end
the counter equals the acknowledged increments (plus at most those with an unknown
outcome), and the open transaction's COMMIT failed with 40001.

**The MasterMind** fails over, with epoch fencing
(`test_the_mastermind_fails_over_and_a_deposed_one_is_fenced`, `cluster.leader`):

1. the leader is killed with SIGKILL: the standby wins the election in ZooKeeper,
   closes the old term (fences the loggers at the old timestamp bound, applies again
   what was logged) and the engines follow it; the supervisor restarts the dead one,
   which stands by. A transaction on engine 0 was waiting for a row lock of one on
   engine 1 when the leader died (its wait-for edge died with it): once engine 1's
   transaction waits back, one of them gets 40P01, because the engines re-report their
   waiters to the new leader (`cluster.manager`), not a lock timeout;
2. the new leader is paused (SIGSTOP) past its session timeout: the restarted one
   takes over (term 3); once resumed (SIGCONT), the deposed leader steps down and
   refuses timestamps, snapshots and placement changes (57P03), its term's fence
   no longer lets it write the region map, and the KiVi node refuses a command
   carrying its term (`routing.Fenced`, 57P03); `cluster status` names the leader;
3. a batch of timestamps whose reply is lost is handed again to the retry, not leaked
   (`_lost_batch_reply`).

The same lost-update check runs throughout, with the same rule for errors, and each
engine draws `nextval` of two sequences (CACHE 1 and 10) throughout: the MasterMind hands
out their blocks, and no value comes out twice across the three leaders. The time
from each fault to the first increment acknowledged after it is printed, not asserted.

**A logger down during a takeover** (`test_a_logger_down_during_a_takeover_keeps_its_commits`):
a commit logged but never applied (its engine died) stays in the files of the only
logger, paused past its session when the leader is killed; the new leader reads those
files, so the commit is there.

**A query engine** killed with SIGKILL does not hold the cluster back
(`test_a_killed_query_engine_does_not_hold_the_cluster_back`, `cluster.reaper`),
reached with psycopg and pg8000 (last: the supervisor then starts engine 1 again, as a
new LTM). Engine 1 runs inserts, holds a row lock in an open transaction and a REPEATABLE READ
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

import collections
import json
import os
import signal
import socket
import struct
import threading
import time

import pg8000.dbapi
import psycopg
import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from cumulo.server.cluster import regionstore as rs
from cumulo.server.cluster import zk as zk_mod
from cumulo.server.cluster.leaderclient import EPOCH, LEADER, Led
from cumulo.server.cluster.mastermind import LowWater, PollSnapshot
from cumulo.server.cluster.placer import SplitAt
from cumulo.server.cluster.services import LogRead, LogRecord
from cumulo.server.kivi.api import DropRegion, Write
from cumulo.server.kivi.remote import RemoteNode
from cumulo.server.kivi.routing import Fenced, RegionSizes, StaleEpoch
from cumulo.server.kivi.wire import packb
from cumulo.server.txn.codec import pack_record, unpack_record
from cumulo.server.txn.sequencer import RequestBatch
from cumulo.server.txn.snapshot import Discarded
from tests.integration.cluster_helpers import cluster_procs, stop_workers, wait_for
from tests.integration.test_cluster_launcher import cluster_tempdir, cumulo
from tests.server_process import engine_port

RETRYABLE = ("40001", "57P03", "40P01")


class Increments(threading.Thread):
    def __init__(self, port: int, driver: str, table: str = "counter") -> None:
        super().__init__(daemon=True)
        self.port, self.driver, self.table = port, driver, table
        self.acked = 0
        self.acked_at: list[float] = []
        self.unknown = 0
        self.retried: dict[str, int] = {}
        self.errors: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        if self.driver == "pg8000":
            c = pg8000.dbapi.connect(user="cumulo", database="cumulo", host="127.0.0.1",
                                     port=self.port)
            c.autocommit = True
            code = lambda e: (e.args[0].get("C") if e.args and isinstance(e.args[0], dict)  # noqa: E731
                              else None)
        else:
            c = psycopg.connect(f"host=127.0.0.1 port={self.port} user=cumulo dbname=cumulo",
                                autocommit=True)
            code = lambda e: getattr(e, "sqlstate", None)  # noqa: E731
        try:
            while not self.stop.is_set():
                try:
                    c.cursor().execute(f"UPDATE {self.table} SET n = n + 1 WHERE id = 1")
                except Exception as e:  # noqa: BLE001 - classified below
                    state = code(e)
                    if state == "40003":
                        self.unknown += 1
                    elif state in RETRYABLE:
                        self.retried[state] = self.retried.get(state, 0) + 1
                        time.sleep(0.05)
                    else:
                        self.errors.append(f"{state} {type(e).__name__}: {e}")
                        return
                    continue
                self.acked += 1
                self.acked_at.append(time.monotonic())
        finally:
            c.close()


class Draws(threading.Thread):
    """`nextval` of two sequences (CACHE 1: a MasterMind round trip each; CACHE 10: blocks)
    in a loop; retryable errors are retried, any other ends the thread."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.values: tuple[list[int], list[int]] = ([], [])
        self.errors: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=cumulo dbname=cumulo",
                             autocommit=True) as c:
            while not self.stop.is_set():
                try:
                    a, b = c.execute("SELECT nextval('mm_s1'), nextval('mm_s10')").fetchone()
                except psycopg.Error as e:
                    if e.sqlstate in RETRYABLE:
                        time.sleep(0.05)
                        continue
                    self.errors.append(f"{e.sqlstate} {e}")
                    return
                self.values[0].append(a)
                self.values[1].append(b)


def _no_value_twice(draws: list[Draws]) -> int:
    """Every value was handed out once, in increasing order per engine; returns how many."""
    assert [d.errors for d in draws] == [[]] * len(draws)
    for i in (0, 1):
        every = [v for d in draws for v in d.values[i]]
        assert len(every) == len(set(every)), sorted(every)
        for d in draws:
            assert d.values[i] == sorted(d.values[i])
    return sum(len(d.values[0]) for d in draws)


def _tally(workers: list[Increments], port: int) -> tuple[int, int, dict[str, int]]:
    """(acknowledged, unknown outcome, retries by SQLSTATE) once no increment was lost or invented.

    The counter holds every acknowledged increment, plus at most those whose commit the
    client could not confirm (40003); no client saw an error outside the retryable ones.
    """
    assert [w.errors for w in workers] == [[]] * len(workers)
    acked = sum(w.acked for w in workers)
    unknown = sum(w.unknown for w in workers)
    with psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo") as c:
        (n,) = c.execute(f"SELECT n FROM {workers[0].table} WHERE id = 1").fetchone()
    assert acked <= n <= acked + unknown, (n, acked, unknown)
    retried: collections.Counter[str] = collections.Counter()
    for w in workers:
        retried.update(w.retried)
    return acked, unknown, dict(retried)


@pytest.fixture(scope="module")
def supervised():
    """One supervised cluster for the module (1 node, 2 engines, 2 MasterMinds): (dir, port)."""
    with cluster_tempdir() as d:
        port = engine_port(2)
        r = cumulo("cluster", "up", "--nodes", "1", "--engines", "2", "--masterminds", "2",
                   "--data-dir", d, "--port", str(port), "--zk-session-timeout", "2",
                   "--placement-interval", "0", "--supervise")
        assert r.returncode == 0, r.stderr + r.stdout
        yield d, port


def _zk_of(d: str) -> KazooClient:
    """A started ZooKeeper client of the cluster whose launcher state is in `d`."""
    with open(os.path.join(d, "cluster.json")) as f:
        zk = KazooClient(hosts=json.load(f)["zk"])
    zk.start(timeout=30)
    return zk


def test_a_killed_conflict_manager_loses_no_update(supervised):
    d, port = supervised
    e0, e1 = port, port + 1
    with psycopg.connect(f"host=127.0.0.1 port={e0} user=cumulo dbname=cumulo",
                         autocommit=True) as c:
        c.execute("CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)")
        c.execute("INSERT INTO counter VALUES (1, 0), (2, 0)")
    holder = psycopg.connect(f"host=127.0.0.1 port={e1} user=cumulo dbname=cumulo")
    holder.execute("UPDATE counter SET n = n + 100 WHERE id = 2")
    workers = [Increments(e0, "psycopg"), Increments(e0, "psycopg"), Increments(e1, "pg8000"),
               Increments(e1, "pg8000")]
    for w in workers:
        w.start()
    try:
        wait_for(lambda: all(w.acked >= 10 for w in workers), "increments from every client")
        cm = cluster_procs(d)["conflicts-0"]
        killed = time.monotonic()
        os.kill(cm["pid"], signal.SIGKILL)
        wait_for(lambda: cluster_procs(d)["conflicts-0"]["pid"] != cm["pid"], "the manager's restart")
        wait_for(lambda: all((w.acked_at and w.acked_at[-1] > killed + 0.5) or w.errors
                             for w in workers), "increments through the restarted manager")
        assert [w.errors for w in workers] == [[]] * len(workers)
        back = min(min(t for t in w.acked_at if t > killed + 0.5) for w in workers) - killed
        seen = [w.acked for w in workers]
        wait_for(lambda: all(w.acked >= n + 10 for w, n in zip(workers, seen, strict=True)),
                 "more increments")
        with pytest.raises(psycopg.errors.SerializationFailure):
            holder.execute("COMMIT")
    finally:
        stop_workers(workers)
        holder.close()
    acked, unknown, retried = _tally(workers, e1)
    with psycopg.connect(f"host=127.0.0.1 port={e1} user=cumulo dbname=cumulo") as c:
        assert c.execute("SELECT n FROM counter WHERE id = 2").fetchone() == (0,)
    log = _log(d, "mastermind") + _log(d, "mastermind-1")  # NB: whichever leads
    assert "reset at watermark" in log, log[-3000:]
    print(f"conflict manager SIGKILL -> first increment through its new incarnation: "
          f"{back:.2f} s (session timeout 2 s); {acked} increments acknowledged, "
          f"{unknown} unknown, retries by SQLSTATE: {retried}")


def _log(d: str, name: str) -> str:
    with open(os.path.join(d, "logs", f"{name}.log")) as f:
        return f.read()


def _leader(zk: KazooClient) -> dict:
    data, _stat = zk.get(LEADER)
    return json.loads(data)


def _epoch(zk: KazooClient) -> int:
    """The epoch of the leader znode (0: none leads now)."""
    try:
        return _leader(zk)["epoch"]
    except NoNodeError:
        return 0


class LockStep(threading.Thread):
    """One UPDATE in an open transaction (lock_timeout 30 s), run in a thread: its SQLSTATE
    (None: it went through) once it returns; rolled back on an error."""

    def __init__(self, conn: psycopg.Connection, row: int) -> None:
        super().__init__(daemon=True)
        self.conn, self.row = conn, row
        self.sqlstate: str | None = "running"

    def run(self) -> None:
        try:
            self.conn.execute("UPDATE dl SET n = n + 1 WHERE id = %s", (self.row,))
            self.sqlstate = None
        except psycopg.Error as e:
            self.sqlstate = e.sqlstate
            self.conn.rollback()


def _locker(port: int, row: int) -> psycopg.Connection:
    c = psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo")
    c.execute("SET lock_timeout = '30s'")
    c.execute("UPDATE dl SET n = n + 1 WHERE id = %s", (row,))
    return c


def _lost_batch_reply(leader: dict) -> None:
    """A batch of timestamps whose reply is lost (the connection breaks after the request
    went out) is not leaked: the retry, with the same `Led.rid`, gets that batch again.
    Here the test is the LTM (an id no engine uses): once it gives its batch back, the
    shared snapshot passes it. A second batch, handed to the lost call, would hold the
    snapshot (and every engine's commits) back for good."""
    req = Led(leader["epoch"], RequestBatch(zk_mod.MAX_LTMS - 1, 5), rid=4242)
    body = packb(req)
    with socket.create_connection((leader["host"], leader["port"])) as s:
        s.sendall(struct.pack(">I", len(body)) + body)  # and hang up before the reply
    mm = RemoteNode(leader["host"], leader["port"], timeout=10)
    try:
        (batch,) = mm.handle(req)
        mm.handle(Led(leader["epoch"], Discarded(tuple(range(batch.first, batch.last + 1)))))
        wait_for(lambda: mm.handle(Led(leader["epoch"], PollSnapshot(0, 0.0))).snapshot
                 >= batch.last, "the snapshot to pass the batch given back", 20)
    finally:
        mm.close()


def _first_ack_after(workers: list[Increments], t: float) -> float:
    return min(x for w in workers for x in w.acked_at if x > t) - t


def test_the_mastermind_fails_over_and_a_deposed_one_is_fenced(supervised):
    d, port = supervised
    e0, e1 = port, port + 1
    zk = _zk_of(d)
    with psycopg.connect(f"host=127.0.0.1 port={e0} user=cumulo dbname=cumulo",
                         autocommit=True) as c:
        c.execute("CREATE TABLE mm_counter (id int PRIMARY KEY, n int NOT NULL)")
        c.execute("INSERT INTO mm_counter VALUES (1, 0)")
        c.execute("CREATE TABLE dl (id int PRIMARY KEY, n int NOT NULL)")
        c.execute("INSERT INTO dl VALUES (1, 0), (2, 0)")
        c.execute("CREATE SEQUENCE mm_s1")
        c.execute("CREATE SEQUENCE mm_s10 CACHE 10")
    # A deadlock that closes across the failover: a (engine 0) holds row 1 and waits for
    # row 2, which b (engine 1) holds; once the new leader leads, b asks for row 1.
    a, b = _locker(e0, 1), _locker(e1, 2)
    a_waits, b_waits = LockStep(a, 2), LockStep(b, 1)
    workers = [Increments(e0, "psycopg", "mm_counter"), Increments(e0, "psycopg", "mm_counter"),
               Increments(e1, "pg8000", "mm_counter")]
    draws = [Draws(e0), Draws(e1)]  # sequences from the MasterMind, never a value twice
    for w in [*workers, *draws]:
        w.start()

    def progress(after: float, what: str) -> None:
        wait_for(lambda: all((w.acked_at and w.acked_at[-1] > after) or w.errors
                             for w in workers), what)
        assert [w.errors for w in workers] == [[]] * len(workers)

    try:
        wait_for(lambda: all(w.acked >= 10 for w in workers), "increments from every client")
        wait_for(lambda: all(len(x.values[0]) >= 10 or x.errors for x in draws), "nextvals")
        procs = cluster_procs(d)
        first = _leader(zk)
        leader = next(n for n, p in procs.items() if p["kind"] == "mastermind"
                      and p["port"] == first["port"])
        standby = next(n for n, p in procs.items() if p["kind"] == "mastermind" and n != leader)

        a_waits.start()
        time.sleep(0.5)  # NB: its wait-for edge reaches the leader that is about to die
        assert a_waits.sqlstate == "running"

        # 1. SIGKILL of the leader: the standby takes over, the engines follow it.
        killed = time.monotonic()
        os.kill(procs[leader]["pid"], signal.SIGKILL)
        progress(killed + 0.2, "increments through the new leader")
        kill_back = _first_ack_after(workers, killed + 0.2) + 0.2
        second = _leader(zk)
        assert second["epoch"] == first["epoch"] + 1 and second["port"] == procs[standby]["port"]
        # The new leader rebuilt the wait-for graph from the engines: the cycle b closes
        # now is a deadlock (40P01 for one of them), not a 30 s lock timeout (55P03).
        b_waits.start()
        for t in (a_waits, b_waits):
            t.join(60)
        assert sorted([a_waits.sqlstate, b_waits.sqlstate], key=str) == ["40P01", None], (
            a_waits.sqlstate, b_waits.sqlstate)
        a.commit()
        b.commit()
        with psycopg.connect(f"host=127.0.0.1 port={e0} user=cumulo dbname=cumulo") as c:
            assert c.execute("SELECT sum(n) FROM dl").fetchone() == (2,)  # the victim undone
        assert "leading the cluster as MasterMind, term" in _log(d, standby)
        wait_for(lambda: cluster_procs(d)[leader]["pid"] != procs[leader]["pid"],
                 "the supervisor to restart the killed MasterMind")
        wait_for(lambda: "LISTENING" in _log(d, leader).rsplit("restarted by", 1)[-1],
                 "the restarted MasterMind to listen")

        # 2. SIGSTOP of the new leader past its session timeout: the restarted one leads.
        paused = cluster_procs(d)[standby]
        old_fence = (EPOCH, zk.exists(EPOCH).version)
        stopped = time.monotonic()
        os.kill(paused["pid"], signal.SIGSTOP)
        try:
            wait_for(lambda: _epoch(zk) == second["epoch"] + 1,  # NB: the znode may vanish meanwhile
                     "the restarted MasterMind to take over")
            progress(time.monotonic(), "increments through the third leader")
            pause_back = _first_ack_after(workers, stopped)
        finally:
            os.kill(paused["pid"], signal.SIGCONT)
        wait_for(lambda: "no longer leads" in _log(d, standby), "the deposed leader to step down")
        old = RemoteNode(paused["host"], paused["port"], timeout=10)
        try:
            for msg in (Led(second["epoch"], RequestBatch(30_000, 10)), RequestBatch(30_000, 10),
                        PollSnapshot(0, 0.0), SplitAt(1, b"x")):
                with pytest.raises(Exception) as e:
                    old.handle(msg)
                assert getattr(e.value, "sqlstate", None) == "57P03", e.value
        finally:
            old.close()
        # Its term's fence: a region map write it might still have in flight fails.
        got = rs.read_all(zk)
        space, regions = next(iter(got.items()))
        version = rs.read_space(zk, space)[1]
        assert rs.commit(zk, {space: (version, regions)}, fence=old_fence) is None
        # And the KiVi node refuses a placement command of its term (`routing.Fenced`): a
        # drop of the counter's region it might still send changes nothing.
        with psycopg.connect(f"host=127.0.0.1 port={e0} user=cumulo dbname=cumulo") as c:
            (rid,), = c.execute("SELECT region_id FROM cumulo_regions "
                                "WHERE table_name = 'mm_counter'").fetchall()
        space, r = next((s, x) for s, regs in rs.read_all(zk).items() for x in regs
                        if x.id == rid)
        kivi = cluster_procs(d)[r.owner]
        node = RemoteNode(kivi["host"], kivi["port"], timeout=10)
        try:
            with pytest.raises(StaleEpoch) as e:
                node.handle(Fenced(second["epoch"], DropRegion(space, r.lo)))
            assert e.value.sqlstate == "57P03" and f"term {second['epoch'] + 1}" in str(e.value)
            assert any(s == space and lo == r.lo for s, lo, *_ in
                       node.handle(Fenced(second["epoch"] + 1, RegionSizes())))
        finally:
            node.close()
        st = cumulo("cluster", "status", "--data-dir", d)
        rows = {line.split()[0]: line for line in st.stdout.splitlines() if line.strip()}
        assert "ok (leader)" in rows[leader] and "ok (standby)" in rows[standby], st.stdout
        seen = [w.acked for w in workers]
        wait_for(lambda: all(w.acked >= n + 5 or w.errors for w, n in zip(workers, seen,
                                                                         strict=True)),
                 "more increments after the deposed leader resumed")
        _lost_batch_reply(_leader(zk))
        drawn = [len(x.values[0]) for x in draws]
        wait_for(lambda: all(len(x.values[0]) >= n + 5 or x.errors for x, n in
                             zip(draws, drawn, strict=True)), "nextvals from the third leader")
    finally:
        stop_workers([*workers, *draws])
        zk.stop()
        a.close()
        b.close()
    nextvals = _no_value_twice(draws)
    acked, unknown, retried = _tally(workers, e1)
    print(f"MasterMind SIGKILL -> first increment acknowledged: {kill_back:.2f} s; SIGSTOP -> "
          f"{pause_back:.2f} s (session timeout 2 s); {acked} increments acknowledged, "
          f"{unknown} unknown, retries by SQLSTATE: {retried}; {nextvals} nextval pairs "
          "from both engines, none twice")


def test_a_logger_down_during_a_takeover_keeps_its_commits(supervised):
    """A commit logged (to the only logger) whose engine died before applying it, while
    that logger is paused past its session and the MasterMind leader is killed: the new
    leader reads the down logger's files (`leader.close_old_term`), so the commit is there
    once it leads. The test plays the dying engine: it takes a timestamp of the leader as
    an LTM no engine uses and logs a copy of a real commit's record, with a new value,
    at that timestamp; then nothing applies it but recovery. (Without reading the files,
    the new leader's snapshot starts above that timestamp and the row reads 987654.)"""
    d, port = supervised
    zk = _zk_of(d)
    with psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo",
                         autocommit=True) as c:
        c.execute("CREATE TABLE orphan (id int PRIMARY KEY, n int NOT NULL)")
        c.execute("INSERT INTO orphan VALUES (1, 987654)")
    procs = cluster_procs(d)
    wait_for(lambda: _epoch(zk), "a MasterMind to lead")
    lg, leader = procs["logger-0"], _leader(zk)
    logger = RemoteNode(lg["host"], lg["port"], timeout=10)
    mm = RemoteNode(leader["host"], leader["port"], timeout=10)
    try:
        insert = next(p for p in logger.handle(LogRead(0)).payloads
                      if any(w.row and 987654 in w.row for w in unpack_record(p)[1]))
        (batch,) = mm.handle(Led(leader["epoch"], RequestBatch(zk_mod.MAX_LTMS - 2, 1), rid=99))
        writes = [Write(w.space, w.key, tuple(42 if v == 987654 else v for v in w.row))
                  for w in unpack_record(insert)[1] if w.row and 987654 in w.row]
        logger.handle(LogRecord(batch.first, pack_record(batch.first, writes),
                                zk_mod.MAX_LTMS - 2))
    finally:
        logger.close()
        mm.close()
    os.kill(lg["pid"], signal.SIGSTOP)
    try:
        wait_for(lambda: not zk.exists(f"{zk_mod.ROOT}/logger/logger-0"),
                 "the paused logger's session to expire")
        victim = next(p for p in procs.values() if p["kind"] == "mastermind"
                      and p["port"] == leader["port"])
        os.kill(victim["pid"], signal.SIGKILL)
        wait_for(lambda: _epoch(zk) == leader["epoch"] + 1, "the standby to take over")
    finally:
        os.kill(lg["pid"], signal.SIGKILL)  # NB: the supervisor starts a fresh incarnation
    log = _log(d, next(n for n, p in procs.items() if p["kind"] == "mastermind"
                       and p["port"] == _leader(zk)["port"]))
    assert "logger logger-0 is down: read" in log, log[-3000:]
    wait_for(lambda: cluster_procs(d)["logger-0"]["pid"] != lg["pid"]
             and zk.exists(f"{zk_mod.ROOT}/logger/logger-0"), "the logger's restart")
    zk.stop()
    with psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo",
                         autocommit=True) as c:
        assert c.execute("SELECT n FROM orphan").fetchall() == [(42,)]
        c.execute("UPDATE orphan SET n = n + 1")  # and the cluster commits again
        assert c.execute("SELECT n FROM orphan").fetchall() == [(43,)]


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


def test_a_killed_query_engine_does_not_hold_the_cluster_back(supervised):
    d, port = supervised
    e0, e1 = port, port + 1
    procs = cluster_procs(d)
    zk = _zk_of(d)
    try:
        wait_for(lambda: zk.exists(LEADER), "a MasterMind to lead")
        leader = _leader(zk)
    finally:
        zk.stop()
    mm = RemoteNode(leader["host"], leader["port"])
    # NB: a leader that just took over gives no GC mark (0) until the engines reported
    wait_for(lambda: _global_low_water(mm) > 0, "the leader's first low water")
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
    log = _log(d, "mastermind") + _log(d, "mastermind-1")  # NB: whichever leads
    assert "is dead:" in log, log[-2000:]
    print(f"engine SIGKILL -> blocked update on engine 0 done: {recovered:.2f} s "
          f"(ZooKeeper session timeout 2 s); reaper: "
          f"{[line for line in log.splitlines() if 'is dead:' in line][-1]}")
