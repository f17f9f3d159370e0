"""`cumulo serve --cluster ZK --workers 2`: two query-engine processes behind one port.

A real cluster (`cumulo cluster up --nodes 1 --engines 0`: ZooKeeper, MasterMind, a KiVi
node, a conflict manager, a logger) and one `cumulo serve --workers 2`, whose two engine
processes listen on the same port (SO_REUSEPORT). Which process a connection lands on is
the kernel's choice, so the test opens connections until it holds one on each (a session
lists only its own engine's sessions in pg_stat_activity), with psycopg, asyncpg and
cumulo.driver, and checks what PostgreSQL 15's sessions of one server would see:
each other's committed writes, a table created on the other engine, and a duplicate
primary key inserted from the other engine (23505 once the first insert committed; a
concurrent one waits, then 23505, or 40001 where cluster mode cannot wait), and a
cancel of either session, whichever engine its CancelRequest connection lands on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import asyncpg
import psycopg
import pytest

import cumulo.driver
from cumulo.server.cluster.launcher import State, alive
from cumulo.server.sql.settings import socket_directories
from cumulo.server.txn.logger import is_part, read_segment
from tests.integration.test_cluster_launcher import cluster_tempdir
from tests.integration.test_cluster_launcher import cumulo as run_cumulo
from tests.integration.test_ops_startup import one_line_error, serve
from tests.server_process import engine_port

READY = "ready to accept connections"
# Small redo parts and Apply pieces: a COPY of a few thousand rows is split as a
# million rows' are by default (`proxies.RemoteLogGroup`, `remote.apply_parts`)
SPLIT_ENV = {"CUMULO_LOG_PART_BYTES": "8192", "CUMULO_APPLY_PART_ROWS": "700"}


@dataclass
class Group:
    """The `cumulo serve --workers 2` under test: its port, parent, worker pids, data dir."""

    port: int
    parent: subprocess.Popen[bytes]
    workers: list[int]
    data_dir: str


@pytest.fixture(scope="module")
def group() -> Iterator[Group]:
    workers: list[int] = []
    with cluster_tempdir() as d:
        r = run_cumulo("cluster", "up", "--nodes", "1", "--engines", "0", "--data-dir", d)
        assert r.returncode == 0, r.stderr + r.stdout
        state = State.load(d)
        assert state is not None
        port, serve_dir = engine_port(1), os.path.join(d, "serve")
        os.makedirs(serve_dir)
        log_path = os.path.join(serve_dir, "serve.log")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cumulo.server.cli", "serve", "--cluster", state.zk,
                 "--workers", "2", "--port", str(port), "--data-dir", serve_dir,
                 "--gc-interval", "0"], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                env={**os.environ, **SPLIT_ENV})
        try:
            deadline = time.monotonic() + 90
            while READY not in open(log_path).read():
                assert proc.poll() is None and time.monotonic() < deadline, \
                    open(log_path).read()[-3000:]
                time.sleep(0.1)
            workers = child_pids(proc.pid)
            assert len(workers) == 1, workers  # the parent started one more engine
            yield Group(port, proc, workers, serve_dir)
        finally:
            proc.send_signal(signal.SIGINT)  # NB: fast shutdown; the parent stops its worker
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        assert proc.returncode == 0
        assert not [p for p in workers if alive(p)], "the worker outlived its parent"


def _parts_in(log_dir: str) -> int:
    """How many parts of split redo records the logger's files hold."""
    return sum(is_part(p) for name in os.listdir(log_dir) if name.endswith(".log")
               for p in read_segment(os.path.join(log_dir, name)))


def child_pids(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


def one_on_each(connect: Callable[[], Any], pid: Callable[[Any], int],
                pids: Callable[[Any], set[int]], close: Callable[[Any], None]) -> list[Any]:
    """Two connections on different engine processes (the kernel picks; retries until so)."""
    first = connect()
    for _ in range(40):
        other = connect()
        if pid(other) not in pids(first):
            return [first, other]
        close(other)
    raise AssertionError("40 connections all landed on one engine process")


def test_two_engines_on_one_port_share_data_ddl_and_keys(group):
    workers_port = group.port
    dsn = f"host=127.0.0.1 port={workers_port} user=cumulo dbname=cumulo"

    def pg_pids(c: psycopg.Connection) -> set[int]:
        return {p for (p,) in c.execute("SELECT pid FROM pg_stat_activity").fetchall()}

    a, b = one_on_each(lambda: psycopg.connect(dsn, autocommit=True), lambda c: c.info.backend_pid,
                       pg_pids, lambda c: c.close())
    # DDL on one engine is there on the other when it returns
    a.execute("CREATE TABLE w (k int PRIMARY KEY, v text)")
    b.execute("INSERT INTO w VALUES (1, 'from b')")
    assert a.execute("SELECT v FROM w WHERE k = 1").fetchone() == ("from b",)
    b.execute("ALTER TABLE w ADD COLUMN n int DEFAULT 7")
    assert a.execute("SELECT k, v, n FROM w").fetchall() == [(1, "from b", 7)]
    # a key committed on one engine: the other's insert of it fails as in PostgreSQL
    with pytest.raises(psycopg.errors.UniqueViolation):
        a.execute("INSERT INTO w VALUES (1, 'again')")
    # ... and one still uncommitted: the other waits for it, then 23505 (or 40001)
    a.execute("BEGIN")
    a.execute("INSERT INTO w VALUES (2, 'a, open')")
    outcome: list[str] = []

    def insert_on_b() -> None:
        try:
            b.execute("INSERT INTO w VALUES (2, 'b')")
            outcome.append("inserted")
        except psycopg.Error as e:
            outcome.append(e.sqlstate or "?")

    t = threading.Thread(target=insert_on_b)
    t.start()
    t.join(0.5)  # NB: b waits for a's transaction (or has already failed with 40001)
    a.execute("COMMIT")
    t.join(30)
    assert outcome and outcome[0] in ("23505", "40001"), outcome
    assert b.execute("SELECT v FROM w WHERE k = 2").fetchone() == ("a, open",)
    # a large COPY committed on one engine (its redo record in parts, its Apply in
    # pieces) is all there on the other
    log_dir = os.path.join(os.path.dirname(group.data_dir), "logger-0")
    parts = _parts_in(log_dir)
    a.execute("CREATE TABLE big (k int PRIMARY KEY, v text)")
    with a.cursor().copy("COPY big FROM STDIN") as cp:
        for k in range(4000):
            cp.write_row((k, f"psycopg row {k:06d}"))
    assert b.execute("SELECT count(*), count(DISTINCT v), max(k) FROM big").fetchone() == (
        4000, 4000, 3999)
    assert _parts_in(log_dir) > parts + 4, "the COPY's redo record was not split"
    # a CancelRequest is a new connection, which may land on the other engine: it is
    # passed on there (cluster.workers.CancelRelay). One cancel per sleep, sent once the
    # sleep runs (an observer on the session's engine sees it active): without the relay,
    # four of them all land on the right engine once in 16 runs
    observers = {}
    for _ in range(40):
        c = psycopg.connect(dsn, autocommit=True)
        home = next((s for s in (a, b) if c.info.backend_pid in pg_pids(s)), None)
        if home is None or id(home) in observers:
            c.close()
        else:
            observers[id(home)] = c
        if len(observers) == 2:
            break
    assert len(observers) == 2, "40 connections all landed on one engine process"
    for session in (a, b, a, b):
        ended: list[str] = []

        def sleep(c: psycopg.Connection = session, out: list[str] = ended) -> None:
            try:
                c.execute("SELECT pg_sleep(30)")
                out.append("slept")
            except psycopg.Error as e:
                out.append(e.sqlstate or "?")

        t = threading.Thread(target=sleep)
        t.start()
        watch, deadline = observers[id(session)], time.monotonic() + 20
        while watch.execute("SELECT state FROM pg_stat_activity WHERE pid = %s",
                            (session.info.backend_pid,)).fetchone() != ("active",):
            assert time.monotonic() < deadline, "the sleep never showed as active"
            time.sleep(0.05)
        session.cancel()
        t.join(10)
        assert ended == ["57014"], ended
    for c in observers.values():
        c.close()

    async def with_asyncpg() -> None:
        url = f"postgresql://cumulo@127.0.0.1:{workers_port}/cumulo"

        async def pids(c: asyncpg.Connection) -> set[int]:
            return {r["pid"] for r in await c.fetch("SELECT pid FROM pg_stat_activity")}

        first = await asyncpg.connect(url)
        for _ in range(40):
            other = await asyncpg.connect(url)
            if other.get_server_pid() not in await pids(first):
                break
            await other.close()
        else:
            raise AssertionError("40 asyncpg connections all landed on one engine process")
        await first.execute("INSERT INTO w (k, v) VALUES (3, 'asyncpg')")
        assert await other.fetchval("SELECT v FROM w WHERE k = $1", 3) == "asyncpg"
        with pytest.raises(asyncpg.UniqueViolationError):
            await other.execute("INSERT INTO w (k, v) VALUES ($1, $2)", 3, "dup")
        await first.copy_records_to_table(
            "big", records=[(k, f"asyncpg row {k:06d}") for k in range(4000, 8000)],
            columns=["k", "v"])
        assert await other.fetchval("SELECT count(DISTINCT v) FROM big WHERE k >= 4000") == 4000
        await first.close()
        await other.close()

    asyncio.run(with_asyncpg())

    def ours() -> cumulo.driver.Connection:
        return cumulo.driver.connect(f"postgresql://cumulo@127.0.0.1:{workers_port}/cumulo")

    def our_pids(c: cumulo.driver.Connection) -> set[int]:
        cur = c.cursor()
        cur.execute("SELECT pid FROM pg_stat_activity")
        return {p for (p,) in cur.fetchall()}

    def our_pid(c: cumulo.driver.Connection) -> int:
        cur = c.cursor()
        cur.execute("SELECT pg_backend_pid()")
        return int(cur.fetchone()[0])

    x, y = one_on_each(ours, our_pid, our_pids, lambda c: c.close())
    cx = x.cursor()
    cx.execute("INSERT INTO w (k, v) VALUES (%s, %s)", (4, "driver"))
    x.commit()
    cy = y.cursor()
    cy.execute("SELECT k, v FROM w ORDER BY k")
    assert cy.fetchall() == [(1, "from b"), (2, "a, open"), (3, "asyncpg"), (4, "driver")]
    y.rollback()
    with pytest.raises(cumulo.driver.IntegrityError) as err:
        cy.execute("INSERT INTO w (k, v) VALUES (%s, %s)", (4, "dup"))
    assert err.value.sqlstate == "23505"
    for c in (x, y, a, b):
        c.close()

    # SIGHUP to the parent: both engines reload the parent's cumulo.conf
    with open(os.path.join(group.data_dir, "cumulo.conf"), "a") as conf:
        conf.write("work_mem = '7MB'\n")
    group.parent.send_signal(signal.SIGHUP)
    # NB: a backend pid is (process pid % 1000) * 1000 + n (sql.engine)
    engines = {group.parent.pid % 1000, *(w % 1000 for w in group.workers)}
    seen: set[int] = set()
    deadline = time.monotonic() + 20
    while seen != engines:  # NB: a connection on each engine that shows the new value
        assert time.monotonic() < deadline, f"reloaded: {seen} of {engines}"
        with psycopg.connect(dsn, autocommit=True) as c:
            if c.execute("SHOW work_mem").fetchone() == ("7MB",):
                seen.add(c.info.backend_pid // 1000)


def test_workers_without_a_cluster_is_one_line(tmp_path):
    """Embedded mode keeps storage and transactions in its process: no second engine can
    share them, so `--workers` without `--cluster` is refused at start-up, in one line."""
    line = one_line_error(serve("--workers", "2", "--port", "0", "--data-dir", str(tmp_path)))
    assert "--workers needs --cluster" in line and "FATAL" in line, line


def test_the_unix_socket_is_the_first_engines(group):
    """A socket file has one owner: the first engine listens on the Unix-domain socket (in
    unix_socket_directories' default here), the engines it started on TCP only."""
    directory = socket_directories()
    if not os.access(directory, os.W_OK):
        pytest.skip(f"{directory} is not writable here: the server listens on TCP only")
    path = os.path.join(directory, f".s.PGSQL.{group.port}")
    with open(path + ".lock") as f:
        assert int(f.readline()) == group.parent.pid
    for _ in range(8):  # NB: a backend pid is (process pid % 1000) * 1000 + n (sql.engine)
        with psycopg.connect(host=directory, port=group.port, user="cumulo",
                             dbname="cumulo") as c:
            assert c.info.backend_pid // 1000 == group.parent.pid % 1000
