"""Background checkpoints in cluster mode (issue 14 item 6): the query engine checkpoints the
KiVi node processes and trims the logger processes, so a restart of everything replays only
what followed the last checkpoint, and nothing acknowledged is lost."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time

import psycopg

from tests.integration.test_cluster_rpc import Role, zookeeper  # noqa: F401 (a fixture)
from tests.integration.test_ops_checkpoint import REDO, checkpoint_after_now
from tests.server_process import CumuloServer


def test_cluster_checkpoints_trim_loggers_and_bound_replay(zookeeper):  # noqa: F811
    hosts, _client = zookeeper
    d = tempfile.mkdtemp(prefix="cumulo-ops-cluster-")
    zk_args = ("--zk", hosts, "--zk-session-timeout", "10")  # NB: no expiry under load

    def kivi(i: int) -> Role:
        return Role("kivi", "--name", f"ck-n{i}", "--data-dir", os.path.join(d, f"n{i}"),
                    *zk_args)

    roles = [kivi(0), kivi(1)]
    roles += [Role("cm", "--index", str(i), "--managers", "2", "--buckets", "256", *zk_args)
              for i in range(2)]
    roles += [Role("logger", "--name", f"ck-L{i}", "--data-dir", os.path.join(d, f"L{i}"),
                   *zk_args) for i in range(2)]
    server = CumuloServer(extra_args=["--cluster", hosts, "-c", "checkpoint_timeout=1s"])

    def segments() -> set[str]:
        out = set()
        for i in range(2):
            for root, _dirs, files in os.walk(os.path.join(d, f"L{i}")):
                out |= {os.path.join(root, f) for f in files if f.endswith(".log")}
        return out

    try:
        for r in roles:
            r.address()
        server.start()
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            first = segments()
            conn.execute("create table acc (id int primary key, b int not null)")
            conn.execute("insert into acc select g, 100 from generate_series(1, 200) g")
            for i in range(200):
                conn.execute("update acc set b = b + 1 where id = %s", (i + 1,))
            markers = checkpoint_after_now(server, conn)
            tail = 5
            for i in range(tail):
                conn.execute("update acc set b = b - 100 where id = %s", (i + 1,))
        assert first and not first & segments()  # the loggers dropped what the nodes hold
        for i in range(2):  # the nodes' checkpoints are on their disks
            assert os.path.exists(os.path.join(d, f"n{i}", "kivi", "CHECKPOINT"))
        # the query engine crashes, the nodes restart empty and reload their checkpoints
        server.stop(signal.SIGKILL)
        for i in range(2):  # NB: stopped, not killed: their znodes go at once (a killed
            roles[i].stop()  # role's stays for a session timeout); their memory goes anyway
        for i in range(2):
            deadline = time.monotonic() + 30
            while _client.exists(f"/cumulo/roles/kivi/ck-n{i}"):
                assert time.monotonic() < deadline, "the killed node stayed registered"
                time.sleep(0.1)
            roles[i] = kivi(i)
            roles[i].address()
        server.start()
        replayed = [int(n) for n in REDO.findall(server.log())]
        assert replayed and replayed[-1] <= tail + markers < 200, (replayed, server.log())
        with psycopg.connect(server.dsn()) as conn:
            assert conn.execute("select sum(b), count(*) from acc").fetchone() == (
                200 * 100 + 200 - tail * 100, 200)
            assert conn.execute("select count(*) from marks").fetchone() == (markers - 1,)
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(server.data_dir, ignore_errors=True)
        for r in roles:
            r.stop()
        shutil.rmtree(d, ignore_errors=True)
