"""A throwaway PostgreSQL 15 for tests that need the real thing as an oracle.

`PG15.start()` starts a copy of a template cluster on a free port. The
template is made once per process: `initdb` as user `postgres` into a temp
dir, a `pg_hba.conf` that exercises every password method (trust, cleartext,
md5, SCRAM-SHA-256), TLS on with a self-signed certificate, a `cumulo`
superuser with a password plus a `cumulo` database. `stop()` shuts a server
down and removes every file.

The server is tuned for speed, not durability (fsync off, small buffers), so
starting one (a copy and `pg_ctl start`) costs a few tenths of a second.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tests import reaper

BIN = "/usr/lib/postgresql/15/bin"
PASSWORD = "cumulo-pw"

# Roles created by the fixture, one per password method: (role, hba method, encoding).
AUTH_ROLES = (
    ("md5user", "md5", "md5"),
    ("scramuser", "scram-sha-256", "scram-sha-256"),
    ("clearuser", "password", "scram-sha-256"),
)

_HBA = """\
local all all trust
host all cumulo 127.0.0.1/32 scram-sha-256
host all md5user 127.0.0.1/32 md5
host all scramuser 127.0.0.1/32 scram-sha-256
host all clearuser 127.0.0.1/32 password
host all all 127.0.0.1/32 trust
"""


def free_port() -> int:
    """Returns a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def available() -> bool:
    """Tells whether PostgreSQL 15 binaries are installed here."""
    return os.path.exists(os.path.join(BIN, "initdb"))


def _as_postgres(*cmd: str) -> subprocess.CompletedProcess:
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *cmd], capture_output=True, text=True, check=False)


def _own_dir() -> str:
    """A new temp dir (the reaper's `cumulo-pg15-` prefix) with a socket dir, owned by postgres."""
    root = tempfile.mkdtemp(prefix="cumulo-pg15-", dir=reaper.fast_tempdir())
    os.makedirs(os.path.join(root, "sock"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(os.path.join(root, "sock"), "postgres")
    return root


_TEMPLATE: list[PG15] = []  # NB: at most one, made by the first start() of the process


def _template_data_dir() -> str:
    """The data dir of a stopped, fully set-up cluster that every PG15 of this process copies.

    initdb costs 1-3 s and the suite starts a PG15 for each of about a hundred modules;
    copying one initdb'd and configured data dir costs a tenth of that. It is removed when
    the process exits (or, if it is killed, by the next run's reaper).
    """
    if not _TEMPLATE:
        template = PG15()
        template._init()
        _TEMPLATE.append(template)
        # NB: no server runs in it; the record lets the reaper remove it after a killed run
        record = reaper.register("pg15-template", 0, template.root)
        atexit.register(_remove_template, template.root, record)
    return _TEMPLATE[0].data_dir


def _remove_template(root: str, record: str) -> None:
    shutil.rmtree(root, ignore_errors=True)
    reaper.unregister(record)


@dataclass
class PG15:
    """One PostgreSQL 15 server on 127.0.0.1, owned by the test run that started it."""

    port: int = field(default_factory=free_port)
    root: str = ""
    pid_file: str = ""  # NB: tests/reaper.py stops the server if its test run is killed
    postmaster: tuple[int, int | None] = (0, None)  # its pid and start time (reaper.start_time)

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def data_dir(self) -> str:
        return os.path.join(self.root, "data")

    @property
    def socket_dir(self) -> str:
        return os.path.join(self.root, "sock")

    def dsn(self, user: str = "cumulo", password: str | None = PASSWORD, db: str = "cumulo") -> str:
        """Returns a postgresql:// URL for `user` on this server."""
        auth = user if password is None else f"{user}:{password}"
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{db}"

    def start(self) -> PG15:
        """Copies the run's template cluster, then starts it; raises RuntimeError on failure."""
        template = _template_data_dir()
        self.root = _own_dir()
        self._check(_as_postgres("cp", "-a", template, self.data_dir))
        self._launch()
        return self

    def _init(self) -> None:
        """Makes the template: initdb, pg_hba, certificate, roles and the `cumulo` database."""
        self.root = _own_dir()
        self._check(_as_postgres(f"{BIN}/initdb", "-D", self.data_dir, "-U", "postgres",
                                 "--auth=trust", "-E", "UTF8", "--locale=C", "-N"))
        with open(os.path.join(self.data_dir, "pg_hba.conf"), "w") as f:
            f.write(_HBA)
        self._make_cert()
        self._launch()
        roles = "".join(
            f"SET password_encryption = '{enc}'; CREATE ROLE {r} LOGIN PASSWORD '{PASSWORD}';"
            for r, _, enc in AUTH_ROLES
        )
        self.psql(
            "SET password_encryption = 'scram-sha-256';"
            f"CREATE ROLE cumulo SUPERUSER LOGIN PASSWORD '{PASSWORD}';" + roles
        )
        self.psql("CREATE DATABASE cumulo OWNER cumulo")
        self.psql("GRANT ALL ON SCHEMA public TO PUBLIC", db="cumulo")
        # NB: a clean shutdown, so that a copy starts without crash recovery
        self._check(_as_postgres(f"{BIN}/pg_ctl", "-D", self.data_dir, "-m", "fast", "stop", "-w"))
        reaper.unregister(self.pid_file)

    def _launch(self) -> None:
        opts = (f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c shared_buffers=16MB -c max_connections=40 -c ssl=on "
                "-c ssl_cert_file=server.crt -c ssl_key_file=server.key")
        self._check(_as_postgres(f"{BIN}/pg_ctl", "-D", self.data_dir, "-o", opts,
                                 "-l", os.path.join(self.root, "log"), "start", "-w"))
        with open(os.path.join(self.data_dir, "postmaster.pid")) as f:
            pid = int(f.readline())
        self.postmaster = pid, reaper.start_time(pid)
        self.pid_file = reaper.register("pg15", pid, self.data_dir)

    def psql(self, sql: str, db: str = "postgres") -> str:
        """Runs `sql` through psql over the Unix socket as postgres and returns its output."""
        res = _as_postgres(f"{BIN}/psql", "-h", self.socket_dir, "-p", str(self.port), "-U",
                           "postgres", "-d", db, "-v", "ON_ERROR_STOP=1", "-Atc", sql)
        self._check(res)
        return res.stdout

    def stop(self) -> None:
        """Stops the server immediately and removes its files.

        SIGQUIT is what `pg_ctl -m immediate` sends the postmaster; sent from here, it saves
        the two processes (runuser, pg_ctl) and pg_ctl's polling: 0.01 s instead of 0.2 s.
        """
        pid, started = self.postmaster
        if pid and reaper.start_time(pid) == started:
            os.kill(pid, signal.SIGQUIT)
            deadline = time.monotonic() + 30
            while reaper.start_time(pid) == started and time.monotonic() < deadline:
                time.sleep(0.01)  # NB: not our child (pg_ctl started it): gone, not waited for
        elif self.root and os.path.exists(self.data_dir):  # NB: a start that failed half way
            _as_postgres(f"{BIN}/pg_ctl", "-D", self.data_dir, "-m", "immediate", "stop", "-w")
        if self.root:
            shutil.rmtree(self.root, ignore_errors=True)
        reaper.unregister(self.pid_file)

    def _make_cert(self) -> None:
        crt = os.path.join(self.data_dir, "server.crt")
        key = os.path.join(self.data_dir, "server.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=localhost", "-keyout", key, "-out", crt],
                       capture_output=True, check=True)
        os.chmod(key, 0o600)
        if os.geteuid() == 0:
            shutil.chown(crt, "postgres")
            shutil.chown(key, "postgres")

    def _check(self, res: subprocess.CompletedProcess) -> None:
        if res.returncode != 0:
            log = ""
            try:
                log = open(os.path.join(self.root, "log")).read()
            except OSError:
                pass
            self.stop()
            raise RuntimeError(f"PostgreSQL 15 setup failed: {res.stderr}\n{log}")


def wait_port(host: str, port: int, timeout: float = 10.0) -> bool:
    """Waits until something accepts TCP connections on host:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), 0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def same_schema(pg: PG15, cumulo: Any, dbname: str, setup: Iterable[str]) -> tuple[str, str]:
    """Runs `setup` on PG 15's own database and on a new `dbname` on the Cumulo server.

    Differential modules start from identical data this way; returns the two DSNs
    (PostgreSQL's, Cumulo's). The Cumulo database is dropped first, so a rerun against
    the session's shared server starts clean.
    """
    import psycopg

    with psycopg.connect(cumulo.dsn(), autocommit=True) as c:
        c.execute(f"drop database if exists {dbname}")
        c.execute(f"create database {dbname}")
    dsns = pg.dsn(), cumulo.dsn(dbname=dbname)
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for stmt in setup:
                conn.execute(stmt)
    return dsns
