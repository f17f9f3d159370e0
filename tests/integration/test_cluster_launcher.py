"""`cumulo cluster up|status|down` (issue 14, item 1): a real ZooKeeper and real role processes.

The cluster is started the way a user starts it, with the `cumulo` command, and reached
with psql, psycopg and SQLAlchemy. It must show up in `ps` as one process per role, be
listed healthy by `cluster status`, survive `down` + `up` on the same data dir, and leave
no process behind after `down`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import pytest

from tests import reaper
from tests.server_process import free_port

ZK_JAR = "/usr/share/java/zookeeper.jar"
NODES = 3


def cumulo(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cumulo.server.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


def processes_under(d: str) -> list[str]:
    """Command lines of running processes that mention `d` (our cluster's data dir)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if d in cmd:
            out.append(cmd)
    return out


@contextlib.contextmanager
def cluster_tempdir() -> Iterator[str]:
    """A data dir for one `cumulo cluster up`; the cluster is stopped and the dir removed
    after (module-scoped fixtures that share one cluster use it too)."""
    if not (shutil.which("java") and os.path.exists(ZK_JAR)):
        pytest.fail("ZooKeeper is not installed: tests/run.sh installs it (apt-get install zookeeper)")
    d = tempfile.mkdtemp(prefix="cumulo-cluster-up-")
    pid_file = reaper.register("cluster", 0, d)  # NB: a killed run's cluster is stopped later
    try:
        yield d
    finally:
        cumulo("cluster", "down", "--data-dir", d, "--timeout", "5")
        reaper.unregister(pid_file)
        for cmd in processes_under(d):  # must not happen; the test has already failed then
            print("left behind:", cmd)
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def cluster_dir():
    with cluster_tempdir() as d:
        yield d


def _up(d: str, port: int) -> str:
    r = cumulo("cluster", "up", "--nodes", str(NODES), "--data-dir", d, "--port", str(port))
    assert r.returncode == 0, r.stderr + r.stdout
    return r.stdout


def _psql(port: int, *args: str) -> str:
    r = subprocess.run(["psql", "-X", "-A", "-t", "-h", "127.0.0.1", "-p", str(port), "-U", "cumulo",
                        "cumulo", "-v", "ON_ERROR_STOP=1", *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_cluster_up_serves_clients_status_and_down(cluster_dir):
    import psycopg
    import sqlalchemy as sa

    d, port = cluster_dir, free_port()
    out = _up(d, port)
    for name in ["zookeeper", "mastermind", "conflicts-0", "logger-0", "engine-0",
                 *(f"kivi-{i}" for i in range(NODES))]:
        assert f"\n{name} " in out, out
    # One process per role, each recognisable by its command line.
    cmds = processes_under(d)
    for i in range(NODES):
        assert any("cumulo kivi --zk" in c and f"--data-dir {d}/kivi-{i}" in c for c in cmds), cmds
    for role in ("mastermind", "conflicts", "logger"):
        assert any(f"cumulo {role} --zk" in c for c in cmds), cmds
    assert any("cumulo serve --cluster" in c and f"--port {port}" in c for c in cmds), cmds
    assert any("ZooKeeperServerMain" in c for c in cmds), cmds

    # psql creates and writes; psycopg and SQLAlchemy write and read through the same engine.
    _psql(port, "-c", "CREATE TABLE acc (id int PRIMARY KEY, owner text, b int NOT NULL)",
          "-c", "INSERT INTO acc SELECT g, 'o' || g, 100 FROM generate_series(1, 300) g")
    with psycopg.connect(f"host=127.0.0.1 port={port} user=cumulo dbname=cumulo") as conn:
        with conn.transaction():
            conn.execute("UPDATE acc SET b = b - 7 WHERE id = %s", (1,))
            conn.execute("UPDATE acc SET b = b + 7 WHERE id = %s", (2,))
        assert conn.execute("SELECT sum(b), count(*) FROM acc").fetchone() == (30000, 300)
    engine = sa.create_engine(f"postgresql+psycopg://cumulo@127.0.0.1:{port}/cumulo")
    try:
        md = sa.MetaData()
        note = sa.Table("note", md, sa.Column("id", sa.Integer, primary_key=True),
                        sa.Column("body", sa.Text, nullable=False))
        md.create_all(engine)
        with engine.begin() as c:
            c.execute(note.insert(), [{"id": i, "body": f"n{i}"} for i in range(1, 21)])
        with engine.connect() as c:
            assert c.execute(sa.select(sa.func.count()).select_from(note)).scalar() == 20
            assert c.execute(sa.text("SELECT b FROM acc WHERE id = 2")).scalar() == 107
    finally:
        engine.dispose()
    assert _psql(port, "-c", "SELECT count(*) FROM note").strip() == "20"

    # status: every role, with its pid, healthy; the KiVi nodes hold the regions.
    r = cumulo("cluster", "status", "--data-dir", d)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines()[2:]}
    assert set(rows) == {"zookeeper", "mastermind", "conflicts-0", "logger-0", "engine-0",
                         *(f"kivi-{i}" for i in range(NODES))}, r.stdout
    for row in rows.values():
        assert row[1].isdigit() and row[3] == "ok", r.stdout
    assert sum(int(rows[f"kivi-{i}"][4]) for i in range(NODES)) >= 2, r.stdout  # acc, note

    # A role killed with SIGKILL shows as down in status (exit code 3), the others still ok.
    with open(os.path.join(d, "cluster.json")) as f:
        pids = {p["name"]: p["pid"] for p in json.load(f)["procs"]}
    os.kill(pids["kivi-2"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(f"{d}/kivi-2 " in c for c in processes_under(d)) and time.monotonic() < deadline:
        time.sleep(0.05)
    r = cumulo("cluster", "status", "--data-dir", d)
    rows = {line.split()[0]: line for line in r.stdout.splitlines()[2:]}
    assert r.returncode == 3 and "down (no process)" in rows["kivi-2"], r.stdout
    assert " ok " in rows["kivi-0"] and " ok " in rows["engine-0"], r.stdout

    # down stops the rest; up on the same data dir has every committed row back (the killed
    # node's name is free again: its stale registration is gone).
    r = cumulo("cluster", "down", "--data-dir", d)
    assert r.returncode == 0 and "killed" not in r.stdout, r.stdout + r.stderr
    assert processes_under(d) == []
    _up(d, port)
    assert _psql(port, "-c", "SELECT sum(b), count(*) FROM acc").strip() == "30000|300"
    assert _psql(port, "-c", "SELECT body FROM note WHERE id = 20").strip() == "n20"
    r = cumulo("cluster", "status", "--data-dir", d)
    assert r.returncode == 0, r.stdout + r.stderr
    # A second `up` on a running cluster's directory is refused.
    r = cumulo("cluster", "up", "--nodes", "1", "--data-dir", d, "--port", str(free_port()))
    assert r.returncode == 1 and "already runs" in r.stderr, r.stdout + r.stderr
    r = cumulo("cluster", "down", "--data-dir", d)
    assert r.returncode == 0 and "killed" not in r.stdout, r.stdout + r.stderr
    assert processes_under(d) == []
    # Nothing to stop any more: status and down say so.
    assert cumulo("cluster", "status", "--data-dir", d).returncode == 1
    assert cumulo("cluster", "down", "--data-dir", d).returncode == 1


def test_cluster_up_that_fails_says_why_and_leaves_nothing_running(cluster_dir):
    """The query engine's port is taken: `up` exits 1 with the engine's reason, stops the rest."""
    import socket

    d = cluster_dir
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = cumulo("cluster", "up", "--nodes", "1", "--data-dir", d, "--port", str(port),
                   "--no-cold-rows")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "engine-0 exited" in r.stderr and "could not listen" in r.stderr, r.stderr
    assert processes_under(d) == []
    # the opt-out reached the KiVi node (which keeps cold rows by default)
    assert "cold rows off" in open(os.path.join(d, "logs", "kivi-0.log")).read()
