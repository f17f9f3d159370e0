"""The RPC path (issue 2): the MVCC golden scripts with every component in its own process.

Two KiVi nodes (space 1 split across them), two conflict managers (the buckets shared
between them) and two loggers each run as `python -m cumulo.server.cluster.role` and
are reached over TCP; the LTM (`cluster.manager.ClusterTxnManager`) is the same code as
in embedded mode. The scripts and their expected outputs are exactly those of
`tests/unit/txn/golden/`: the deployment must not change a single answer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from cumulo.server.cluster.manager import ClusterTxnManager, bucket_shares
from cumulo.server.cluster.proxies import RemoteConflictManager, RemoteLogGroup
from cumulo.server.errors import SerializationFailure, SQLError
from cumulo.server.kivi.api import DropSpace
from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.remote import RemoteNode
from cumulo.server.txn.sequencer import RequestBatch
from cumulo.server.txn.snapshot import Discarded
from tests.unit.txn import golden_runner
from tests.unit.txn.test_golden import SCRIPTS

BUCKETS = 64


class Role:
    """One role process; its address is read from the `LISTENING host port` line."""

    def __init__(self, role: str, *args: str) -> None:
        self.err = tempfile.TemporaryFile()  # NB: not a pipe, which a chatty role could fill
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cumulo.server.cluster.role", role, "--stdin-watch", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True,
        )  # NB: --stdin-watch: the role exits with us even if we are SIGKILLed

    def address(self) -> tuple[str, int]:
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("LISTENING "):
            self.proc.kill()
            self.proc.wait()
            self.err.seek(0)
            raise RuntimeError(f"role did not start: {line!r} {self.err.read().decode()}")
        _, host, port = line.split()
        return host, int(port)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.err):
            if f is not None and not f.closed:
                f.close()


class Cluster:
    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="cumulo-cluster-")
        self.roles: list[Role] = []
        kivi = [self.spawn("kivi", "--name", f"n{i}") for i in range(2)]
        cms = [self.spawn("cm", "--index", str(i), "--managers", "2", "--buckets", str(BUCKETS))
               for i in range(2)]
        loggers = [self.spawn("logger", "--name", f"L{i}", "--data-dir", self.logdir(f"L{i}"))
                   for i in range(2)]
        self.kivi = [r.address() for r in kivi]  # NB: all started before any is awaited
        self.cms = [r.address() for r in cms]
        self.loggers = [r.address() for r in loggers]

    def spawn(self, role: str, *args: str) -> Role:
        r = Role(role, *args)
        self.roles.append(r)
        return r

    def logdir(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def manager(self, loggers: list[tuple[str, int]] | None = None,
                recover: bool = False) -> ClusterTxnManager:
        """A fresh LTM over the cluster: space 1 emptied and split over both nodes."""
        nodes = {f"n{i}": RemoteNode(h, p) for i, (h, p) in enumerate(self.kivi)}
        if not recover:
            for n in nodes.values():
                n.drop_space(DropSpace(golden_runner.SPACE))
        kivi = KiviClient(nodes)
        cms = [RemoteConflictManager(h, p, owned)
               for (h, p), owned in zip(self.cms, bucket_shares(2, BUCKETS), strict=True)]
        for cm in cms:
            cm.reset()
        log = RemoteLogGroup(loggers or self.loggers)
        tm = ClusterTxnManager(kivi, cms, log, buckets=BUCKETS, recover=recover)
        if not recover:
            # Keys a..b on n0 and c.. on n1, so that scans and commits cross the nodes.
            kivi.split(golden_runner.SPACE, b"c")
            upper = kivi.map.locate(golden_runner.SPACE, b"c")
            kivi.move(upper, "n1")
        return tm

    def ltm(self, ltm_id: int, mastermind: tuple[str, int], **extra: Any) -> ClusterTxnManager:
        """One more LTM over the same nodes and managers, sharing `mastermind` (no log, no
        recovery): several query engines of one cluster."""
        nodes = {f"n{j}": RemoteNode(h, p) for j, (h, p) in enumerate(self.kivi)}
        cms = [RemoteConflictManager(h, p, owned)
               for (h, p), owned in zip(self.cms, bucket_shares(2, BUCKETS), strict=True)]
        return ClusterTxnManager(KiviClient(nodes), cms, None, buckets=BUCKETS, recover=False,
                                 ltm_id=ltm_id, mastermind=mastermind, **extra)

    def close(self) -> None:
        for r in self.roles:
            r.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    yield c
    c.close()


class RpcRunner(golden_runner.Runner):
    """The golden runner, over `ClusterTxnManager` instead of the embedded manager."""

    factory: Any = None  # () -> a fresh ClusterTxnManager

    def __init__(self) -> None:  # NB: the base class's state, with a cluster manager
        self.tm = RpcRunner.factory()
        self.txns = {}
        self.threads = {}
        self.pending = {}
        self.savepoints = {}


@pytest.mark.parametrize("path", SCRIPTS, ids=[os.path.basename(p) for p in SCRIPTS])
def test_golden_over_rpc(cluster, monkeypatch, path):
    monkeypatch.setattr(RpcRunner, "factory", staticmethod(cluster.manager))
    monkeypatch.setattr(golden_runner, "Runner", RpcRunner)
    monkeypatch.delenv("UPDATE_GOLDENFILES", raising=False)
    golden_runner.check(path)


def test_processes_really_serve(cluster):
    """The runs above went through the role processes: their loggers hold records."""
    tm = cluster.manager()
    try:
        txn = tm.begin()
        txn.put(golden_runner.SPACE, [(b"a", ("a", 1)), (b"x", ("x", 2))])
        txn.commit()
        status = [RemoteNode(h, p) for h, p in cluster.loggers]
        from cumulo.server.cluster.services import LogStatus

        records = sum(s.handle(LogStatus()).records for s in status)
        for s in status:
            s.close()
        assert records >= 1
        assert tm.stats["fsyncs"] >= 1
    finally:
        tm.close()
    assert all(r.proc.poll() is None for r in cluster.roles)


def test_recovery_from_remote_loggers(cluster):
    """A new LTM over emptied nodes gets every acknowledged commit back from the loggers."""
    loggers = [cluster.spawn("logger", "--name", f"R{i}", "--data-dir", cluster.logdir(f"R{i}"))
               for i in range(2)]
    addresses = [r.address() for r in loggers]
    tm = cluster.manager(addresses)
    space = golden_runner.SPACE
    expect = {}
    try:
        def writer(t: int) -> None:
            for i in range(15):
                txn = tm.begin(isolation="repeatable read")
                key = f"k{t}-{i}".encode()
                txn.put(space, [(key, (key.decode(), i))])
                txn.commit()
                expect[key] = (key.decode(), i)

        with ThreadPoolExecutor(4) as ex:
            list(ex.map(writer, range(4)))
        lost = tm.begin(isolation="repeatable read")
        lost.put(space, [(b"k0-0", ("lost", 0))])
        winner = tm.begin(isolation="repeatable read")
        winner.get(space, [b"k0-0"])
        lost.commit()
        with pytest.raises(SerializationFailure):
            winner.put(space, [(b"k0-0", ("winner", 0))])
        winner.abort()
        expect[b"k0-0"] = ("lost", 0)
        top = tm.stats["snapshot"]
    finally:
        tm.close()
    for h, p in cluster.kivi:  # the nodes lose everything (no checkpoint was taken)
        n = RemoteNode(h, p)
        n.drop_space(DropSpace(space))
        n.close()
    tm2 = cluster.manager(addresses, recover=True)
    try:
        assert tm2.replayed == 61
        assert tm2.stats["snapshot"] == top
        keys = sorted(expect)
        assert tm2.begin().get(space, keys) == [expect[k] for k in keys]
        nxt = tm2.begin()
        nxt.put(space, [(b"after", ("after", 1))])
        assert nxt.commit() == top + 1
    finally:
        tm2.close()
        for r in loggers:
            r.stop()


# -- ZooKeeper membership (--zk) ----------------------------------------------------------

ZK_JAR = "/usr/share/java/zookeeper.jar"
ZK_CLASSPATH = f"/etc/zookeeper/conf:{ZK_JAR}"


@pytest.fixture(scope="module")
def zookeeper():
    """A throwaway standalone ZooKeeper on a free port (Debian's `zookeeper` package)."""
    java = shutil.which("java")
    if not (java and os.path.exists(ZK_JAR)):
        pytest.skip("ZooKeeper is not installed (apt-get install zookeeper)")
    from cumulo.server.cluster import zk as zk_mod
    from tests.server_process import free_port

    d = tempfile.mkdtemp(prefix="cumulo-zk-")
    port = free_port()
    with open(os.path.join(d, "zoo.cfg"), "w") as f:
        f.write(f"tickTime=250\ndataDir={d}/data\nclientPort={port}\n"
                "admin.enableServer=false\nmaxSessionTimeout=20000\n"
                "4lw.commands.whitelist=ruok,cons\n")
    proc = subprocess.Popen(
        [java, "-Xmx128m", "-cp", ZK_CLASSPATH, f"-Dzookeeper.log.dir={d}",
         "org.apache.zookeeper.server.ZooKeeperServerMain", os.path.join(d, "zoo.cfg")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    hosts = f"127.0.0.1:{port}"
    try:
        client = zk_mod.connect(hosts, timeout=30)
        yield hosts, client
        client.stop()
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(d, ignore_errors=True)


def _wait_for(cond, what: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_leases_use_the_session_timeout_the_server_granted(zookeeper):
    """ZooKeeper clamps a requested session timeout into [2, 20] ticks (here 0.5-20 s, set
    by maxSessionTimeout); a lease must last what was granted (`zk.session_timeout`)."""
    from cumulo.server.cluster import zk as zk_mod

    hosts, _client = zookeeper
    for asked, granted in ((60.0, 20.0), (0.1, 0.5), (3.0, 3.0)):
        c = zk_mod.connect(hosts, session_timeout=asked, timeout=30)
        try:
            assert zk_mod.session_timeout(c, asked) == granted
        finally:
            c.stop()


def test_a_new_mastermind_term_fences_the_old_one(zookeeper, tmp_path):
    """`cluster.leader`: each term bumps the epoch; the old term's writes fail; a bound is
    saved before a batch passes it; loggers refuse the old term's timestamps (40001)."""
    import json as json_mod

    from cumulo.server.cluster import leader
    from cumulo.server.cluster import zk as zk_mod
    from cumulo.server.cluster.leaderclient import STATE
    from cumulo.server.cluster.mastermind import MasterMindService
    from cumulo.server.cluster.services import FenceTs, LoggerService, LogRecord

    hosts, client = zookeeper
    client.ensure_path("/fence-test")  # NB: a chroot: the other tests' cluster is not touched
    zk = zk_mod.connect(hosts + "/fence-test", timeout=30)
    old, _b, _s = leader.begin_term(zk)
    old.save(100, 50)
    mm = MasterMindService()
    mm.reserve = lambda upto: old.reserve(upto, mm.snapshots.snapshot)
    (batch,) = mm.handle(RequestBatch(1, 500))
    assert json_mod.loads(zk.get(STATE)[0])["bound"] >= batch.last
    new, bound, _snap = leader.begin_term(zk)
    assert new.epoch == old.epoch + 1 and bound >= batch.last
    with pytest.raises(SQLError) as e:
        old.save(10 ** 6, 0)
    assert e.value.sqlstate == "57P03"
    new.save(bound + 10, 0)
    lg = LoggerService(str(tmp_path / "log"), "L0")
    try:
        assert lg.handle(FenceTs(bound)) is not None
        with pytest.raises(SQLError) as e:
            lg.handle(LogRecord(batch.last, b"x"))
        assert e.value.sqlstate == "40001"
    finally:
        lg.close()
        zk.stop()


def test_zookeeper_membership_and_discovery(zookeeper, monkeypatch):
    """Roles started with --zk are discovered; the golden scripts pass over them; they leave."""
    from cumulo.server.cluster import zk as zk_mod
    from cumulo.server.cluster.opencluster import open_cluster

    hosts, client = zookeeper
    d = tempfile.mkdtemp(prefix="cumulo-zk-roles-")
    zk_args = ("--zk", hosts, "--zk-session-timeout", "1.5")
    roles = [Role("kivi", "--name", f"n{i}", *zk_args) for i in range(2)]
    roles += [Role("cm", "--index", str(i), "--managers", "2", "--buckets", str(BUCKETS), *zk_args)
              for i in range(2)]
    roles.append(Role("logger", "--name", "L0", "--data-dir", os.path.join(d, "L0"), *zk_args))
    try:
        for r in roles:
            r.address()  # registered before it prints LISTENING
        members = zk_mod.discover(client)
        assert sorted(members.roles["kivi"]) == ["n0", "n1"]
        assert sorted(members.roles["cm"]) == ["cm0", "cm1"]
        assert members.roles["cm"]["cm1"]["index"] == 1
        assert [n for n, _a in members.addresses("logger")] == ["L0"]

        def fresh() -> ClusterTxnManager:
            tm = open_cluster(client, recover=False)
            tm.kivi.drop_space(DropSpace(golden_runner.SPACE))
            for cm in tm.cms:
                cm.reset()
            return tm

        monkeypatch.setattr(RpcRunner, "factory", staticmethod(fresh))
        monkeypatch.setattr(golden_runner, "Runner", RpcRunner)
        monkeypatch.delenv("UPDATE_GOLDENFILES", raising=False)
        for path in SCRIPTS:
            golden_runner.check(path)

        # With a MasterMind registered, each query engine gets an LTM id of its own, and only
        # the first one resets the conflict managers.
        mm = Role("mastermind", "--name", "mm", *zk_args)
        roles.append(mm)
        mm.address()
        first = open_cluster(client, recover=False)
        second = open_cluster(client, recover=False)
        try:
            assert first.mastermind is not None and second.mastermind is not None
            assert first.ltm.ltm_id != second.ltm.ltm_id
            txn = first.begin()
            txn.put(golden_runner.SPACE, [(b"mm", ("mm", 1))])
            cts = txn.commit()
            assert first.begin().get(golden_runner.SPACE, [b"mm"]) == [("mm", 1)]
            (batch,) = second.ltm.sequencer.handle(RequestBatch(9, 1))  # one shared sequence
            assert batch.first > cts
            second.ltm.snapshots.handle(Discarded((batch.first,)))
        finally:
            second.close()
            first.close()

        roles[3].stop()  # a clean stop deregisters at once
        _wait_for(lambda: "cm1" not in zk_mod.discover(client).roles["cm"], "cm1 to leave")
        with pytest.raises(RuntimeError, match="conflict managers missing"):
            open_cluster(client)
        roles[1].proc.kill()  # a crash: the session expires
        _wait_for(lambda: "n1" not in zk_mod.discover(client).roles["kivi"], "n1 to expire")
        assert "n0" in zk_mod.discover(client).roles["kivi"]
    finally:
        for r in roles:
            r.stop()
        shutil.rmtree(d, ignore_errors=True)


def test_two_ltms_share_the_conflict_managers(cluster):
    """Writers of LTM B behind holders of LTM A: distinct tids, woken across LTMs.

    (B never commits: several committing LTMs also need a shared sequencer and snapshot
    server, which cluster mode does not wire yet.)
    """
    import threading

    a = cluster.manager()
    b = ClusterTxnManager(a.kivi, [RemoteConflictManager(h, p, owned) for (h, p), owned in
                                   zip(cluster.cms, bucket_shares(2, BUCKETS), strict=True)],
                          None, buckets=BUCKETS, recover=False, ltm_id=1)
    space = golden_runner.SPACE

    def blocked_write(txn, key: bytes, outcome: list[str]) -> threading.Thread:
        def write() -> None:
            try:
                txn.put(space, [(key, (key.decode(), 2))])
                outcome.append("granted")
            except Exception as e:  # noqa: BLE001 - the outcome is what is checked
                outcome.append(type(e).__name__)

        th = threading.Thread(target=write, daemon=True)
        th.start()
        _wait_for(lambda: b.ltm.is_waiting(txn) or outcome, "B to wait")
        assert not outcome, outcome  # B waits for A's transaction (not granted at once)
        return th

    def finish(th: threading.Thread, txn, outcome: list[str]) -> list[str]:
        th.join(10)
        if th.is_alive():  # never woken: free the thread, then fail
            b.ltm.abort(txn)
            th.join(10)
            outcome.append("never woken")
        return outcome

    try:
        ta = a.begin(isolation="repeatable read")
        tb = b.begin(isolation="repeatable read")
        ta.get(space, [b"k"])
        tb.get(space, [b"k"])
        assert ta.tid != tb.tid
        ta.put(space, [(b"k", ("k", 1))])
        outcome: list[str] = []
        th = blocked_write(tb, b"k", outcome)
        ta.commit()  # the holder commits: B loses (first updater wins)
        assert finish(th, tb, outcome) == ["SerializationFailure"]
        b.ltm.abort(tb)

        ta = a.begin(isolation="repeatable read")
        tb = b.begin(isolation="repeatable read")
        ta.put(space, [(b"j", ("j", 1))])
        outcome = []
        th = blocked_write(tb, b"j", outcome)
        ta.abort()  # the holder aborts: B proceeds
        assert finish(th, tb, outcome) == ["granted"]
        b.ltm.abort(tb)
    finally:
        b.close()
        a.close()


def test_conflict_service_routes_wakeups_and_resets_to_the_high_mark():
    """In process: the service's own logic (the sockets are covered above)."""
    from cumulo.server.cluster.services import ConflictService, From, PollWoken, Reset, WokenFor
    from cumulo.server.txn.conflicts import Acquire, Granted, Release, Wait, Woken

    svc = ConflictService()
    a1, a2, b1 = 1, 2, (1 << 48) | 1  # two txns of LTM 0, one of LTM 1
    key = (1, b"k")
    assert svc.handle(From(0, Acquire(a1, 5, (key,)))) == [Granted(a1)]
    assert svc.handle(From(0, Acquire(a2, 5, (key,)))) == [Wait(a2, a1, key)]
    assert svc.handle(From(1, Acquire(b1, 5, (key,)))) == [Wait(b1, a1, key)]
    out = svc.handle(From(0, Release(a1, (key,), None)))
    assert [tuple(sorted(o.txns)) for o in out if type(o) is Woken] == [(a2,)]  # only LTM 0's
    assert svc.handle(PollWoken(1, 0.0)) == WokenFor((b1,))  # LTM 1's waits in its mailbox
    assert svc.handle(PollWoken(1, 0.0)) == WokenFor(())
    assert svc.handle(PollWoken(0, 0.0)) == WokenFor(())
    svc.handle(Reset(42))
    assert svc.cm.holders == {} and svc.cm.ser.high_mark == 42

    fresh = ConflictService(needs_reset=True)  # a (re)started manager process
    with pytest.raises(SQLError) as e:
        fresh.handle(From(0, Acquire(a1, 5, (key,))))
    assert e.value.sqlstate == "57P03"
    fresh.handle(Reset(7))
    assert fresh.handle(From(0, Acquire(a1, 7, (key,)))) == [Granted(a1)]


def test_restarted_conflict_manager_refuses_writes_until_reset(cluster):
    """A crashed and restarted manager knows nothing: it must not let writers through blindly."""
    old = cluster.roles[2]  # conflict manager 0
    host, port = cluster.cms[0]
    old.proc.kill()
    old.proc.wait()
    new = cluster.spawn("cm", "--index", "0", "--managers", "2", "--buckets", str(BUCKETS),
                        "--port", str(port))
    assert new.address() == (host, port)
    nodes = {f"n{i}": RemoteNode(h, p) for i, (h, p) in enumerate(cluster.kivi)}
    cms = [RemoteConflictManager(h, p, owned)
           for (h, p), owned in zip(cluster.cms, bucket_shares(2, BUCKETS), strict=True)]
    tm = ClusterTxnManager(KiviClient(nodes), cms, None, buckets=BUCKETS, recover=False)
    try:
        keys = [f"r{i}".encode() for i in range(40)]  # some fall in manager 0's buckets
        txn = tm.begin()
        with pytest.raises(SQLError) as e:
            txn.put(golden_runner.SPACE, [(k, (k.decode(), 1)) for k in keys])
        assert e.value.sqlstate == "57P03"
        txn.abort()
    finally:
        tm.close()
    tm = cluster.manager()  # resets the managers, as a starting LTM does
    try:
        txn = tm.begin()
        txn.put(golden_runner.SPACE, [(k, (k.decode(), 1)) for k in keys])
        assert txn.commit() == 1
    finally:
        tm.close()


def test_serve_cluster_mode_end_to_end(zookeeper):
    """`cumulo serve --cluster ZK` over role processes: SQL, write conflicts, crash recovery."""
    import signal
    import threading

    import psycopg

    from tests.server_process import CumuloServer

    hosts, _client = zookeeper
    d = tempfile.mkdtemp(prefix="cumulo-zk-e2e-")
    zk_args = ("--zk", hosts, "--zk-session-timeout", "1.5")

    def kivi(i: int) -> Role:
        return Role("kivi", "--name", f"e2e-n{i}", *zk_args)

    roles = [kivi(0), kivi(1)]
    roles += [Role("cm", "--index", str(i), "--managers", "2", "--buckets", "256", *zk_args)
              for i in range(2)]
    roles += [Role("logger", "--name", f"e2e-L{i}", "--data-dir", os.path.join(d, f"L{i}"),
                   *zk_args) for i in range(2)]
    server = CumuloServer(extra_args=["--cluster", hosts])
    try:
        for r in roles:
            r.address()
        server.start()
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("CREATE TABLE acc (id int PRIMARY KEY, b int NOT NULL)")
            conn.execute("INSERT INTO acc SELECT g, 100 FROM generate_series(1, 50) g")
            conn.execute("UPDATE acc SET b = b - 10 WHERE id = 1")
            conn.execute("UPDATE acc SET b = b + 10 WHERE id = 2")
            assert conn.execute("SELECT sum(b), count(*) FROM acc").fetchone() == (5000, 50)
        # First updater wins across sessions (the conflict managers are remote).
        c1 = psycopg.connect(server.dsn())
        c2 = psycopg.connect(server.dsn())
        try:
            for c in (c1, c2):
                c.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                c.execute("SELECT b FROM acc WHERE id = 3").fetchone()
            c1.execute("UPDATE acc SET b = b + 1 WHERE id = 3")
            outcome: list[str] = []

            def second() -> None:
                try:
                    c2.execute("UPDATE acc SET b = b + 2 WHERE id = 3")
                    outcome.append("updated")
                except psycopg.errors.SerializationFailure:
                    outcome.append("40001")

            th = threading.Thread(target=second)
            th.start()
            c1.commit()
            th.join(30)
            assert outcome == ["40001"]
            c2.rollback()
        finally:
            c1.close()
            c2.close()
        # The query engine crashes and the storage nodes lose their memory (they run without
        # data dirs): the loggers have everything, catalog included.
        server.stop(signal.SIGKILL)
        for i in range(2):
            roles[i].stop()
            roles[i] = kivi(i)
            roles[i].address()
        server.start()
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            assert conn.execute("SELECT sum(b), count(*) FROM acc").fetchone() == (5001, 50)
            assert conn.execute("SELECT b FROM acc WHERE id = 3").fetchone() == (101,)
            conn.execute("INSERT INTO acc VALUES (51, 1)")
            assert conn.execute("SELECT count(*) FROM acc").fetchone() == (51,)
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.data_dir, ignore_errors=True)
        for r in roles:
            r.stop()
        shutil.rmtree(d, ignore_errors=True)


def test_mastermind_service_shares_timestamps_and_the_snapshot():
    """In process: one sequence of timestamps, one gap-free snapshot, long polls."""
    from cumulo.server.cluster.mastermind import MasterMindService, PollSnapshot, SnapshotIs, Start
    from cumulo.server.txn.sequencer import Batch, RequestBatch
    from cumulo.server.txn.snapshot import Advanced, Discarded, Readable

    mm = MasterMindService()
    mm.handle(Start(10))
    assert mm.handle(PollSnapshot(0, 5.0)) == SnapshotIs(10)  # above `known`: at once
    assert mm.handle(RequestBatch(0, 3)) == [Batch(0, 11, 13)]
    assert mm.handle(RequestBatch(1, 2)) == [Batch(1, 14, 15)]
    assert mm.handle(Readable((14,))) == []  # LTM 1 committed 14: 11..13 are LTM 0's
    assert mm.handle(Readable((11,))) == [Advanced(11)]
    assert mm.handle(Discarded((12, 13))) == [Advanced(14)]
    assert mm.handle(PollSnapshot(14, 0.01)) == SnapshotIs(14)  # timed out, unchanged
    mm.handle(Start(5))  # never backwards
    assert mm.handle(RequestBatch(0, 1)) == [Batch(0, 16, 16)]
    # The global wait-for graph: check and add in one step.
    from cumulo.server.cluster.mastermind import WaitDone, WaitEdge

    a, b, c = 1, (1 << 48) | 1, (2 << 48) | 1  # transactions of three LTMs
    assert mm.handle(WaitEdge(a, b)) is False
    assert mm.handle(WaitEdge(b, c)) is False
    assert mm.handle(WaitEdge(c, a)) is True  # closes a -> b -> c -> a: c is the victim
    mm.handle(WaitDone(b))
    assert mm.handle(WaitEdge(c, a)) is False  # b stopped waiting: no cycle any more


def test_two_ltms_commit_through_a_shared_mastermind(cluster):
    """Two LTMs, one MasterMind: the idle one gives its batch back, the other's session sees."""
    import threading

    mm_role = cluster.spawn("mastermind")
    mm = mm_role.address()
    space = golden_runner.SPACE

    def ltm(i: int) -> ClusterTxnManager:
        return cluster.ltm(i, mm)

    cluster.manager().close()  # empties space 1 and resets the managers
    a, b = ltm(0), ltm(1)
    try:
        ta = a.begin(session="sa")
        ta.put(space, [(b"ka", ("ka", 1))])
        ca = ta.commit()
        tb = b.begin(session="sb")
        tb.put(space, [(b"kb", ("kb", 1))])
        cb = tb.commit()
        assert ca != cb
        seen: list = []
        nxt = b.begin(session="sb")

        def read_b() -> None:  # session consistency: B's next snapshot covers B's commit
            try:
                seen.append(nxt.get(space, [b"ka", b"kb"]))
            except SQLError as e:
                seen.append(e.sqlstate)

        th = threading.Thread(target=read_b, daemon=True)
        th.start()
        th.join(5)
        if th.is_alive():
            b.ltm.cancel(nxt)  # free the thread, then fail
            th.join(5)
        assert seen == [[("ka", 1), ("kb", 1)]], "B's session did not see its own commit"
    finally:
        b.close()
        a.close()
        mm_role.stop()


def test_a_deadlock_through_two_ltms_is_detected(cluster):
    """t1 (LTM A) holds x and waits for y; t2 (LTM B) holds y and waits for x: one gets 40P01."""
    import threading

    from cumulo.server.errors import DeadlockDetected

    mm_role = cluster.spawn("mastermind")
    mm = mm_role.address()
    space = golden_runner.SPACE

    def ltm(i: int) -> ClusterTxnManager:
        return cluster.ltm(i, mm)

    cluster.manager().close()
    a, b = ltm(0), ltm(1)
    try:
        t1, t2 = a.begin(), b.begin()
        t1.put(space, [(b"x", ("x", 1))])
        t2.put(space, [(b"y", ("y", 2))])
        outcome: dict[str, str] = {}

        def write(name: str, txn, key: bytes) -> None:
            try:
                txn.put(space, [(key, (key.decode(), 0))])
                outcome[name] = "granted"
            except DeadlockDetected:
                outcome[name] = "40P01"
                txn.abort()  # the victim rolls back: the other proceeds
            except Exception as e:  # noqa: BLE001 - the outcome is what is checked
                outcome[name] = type(e).__name__

        th1 = threading.Thread(target=write, args=("t1", t1, b"y"), daemon=True)
        th1.start()
        _wait_for(lambda: a.ltm.is_waiting(t1), "t1 to wait")
        th2 = threading.Thread(target=write, args=("t2", t2, b"x"), daemon=True)
        th2.start()
        th2.join(10)
        th1.join(10)
        for t, m in ((t1, a), (t2, b)):
            if m.ltm.is_waiting(t):  # undetected: free the threads, then fail
                m.ltm.abort(t)
        assert sorted(outcome.values()) == ["40P01", "granted"], outcome
    finally:
        b.close()
        a.close()
        mm_role.stop()
