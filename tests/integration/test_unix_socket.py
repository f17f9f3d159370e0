"""`cumulo serve` on Unix-domain sockets (unix_socket_directories), through real clients.

Each front end (the event loop and `--frontend threads`) runs as a real server process
with a socket directory of its own; psql (by -h DIR and by PGHOST), psycopg
(`host=DIR`), asyncpg, pg8000 (`unix_sock`) and SQLAlchemy (`?host=DIR`) connect over
the socket and must find a session without a client address. Then the socket's life:
created with its lock file and mode, replaced after a kill -9, refused to a second
server on the same directory and port, removed at shutdown, and `--auth` and
cumulo_hba.conf's `local` lines applied to it. test_unix_socket_pg15.py compares what
a client can observe with PostgreSQL 15's.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time

import asyncpg
import pg8000.dbapi
import psycopg
import pytest
import sqlalchemy as sa

import cumulo.driver
import cumulo.driver.aio
from cumulo.server.sql.settings import socket_directories
from tests.server_process import CumuloServer

PSQL = "/usr/lib/postgresql/15/bin/psql"
# what a session sees of its own connection: no client address over a Unix socket
WHO = ("select inet_client_addr()::text, inet_client_port(), client_addr::text, client_port "
       "from pg_stat_activity where pid = pg_backend_pid()")
UNIX_ROW = (None, None, None, -1)


def socket_dir() -> str:
    """A fresh directory for a server's socket (short: sun_path holds 107 bytes)."""
    return tempfile.mkdtemp(prefix="cumulo-sock-")


def sock_path(directory: str, port: int) -> str:
    return os.path.join(directory, f".s.PGSQL.{port}")


def start(directory: str, *args: str, port: int | None = None) -> CumuloServer:
    server = CumuloServer(extra_args=["-c", f"unix_socket_directories={directory}", *args])
    if port is not None:
        server.port = port
    return server.start()


@pytest.fixture(scope="module", params=["loop", "threads"])
def unix_server(request):
    directory = socket_dir()
    server = start(directory, "--frontend", request.param, "-c", "log_connections=on",
                   "-c", "log_disconnections=on")
    try:
        yield server, directory
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


def _psql(port: int, sql: str, *args: str, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess:
    return subprocess.run([PSQL, "-X", "-p", str(port), "-U", "cumulo", "-d", "cumulo", *args,
                           "-Atc", sql], capture_output=True, text=True, timeout=120,
                          env=env)


def test_psql_by_directory_and_by_pghost(unix_server):
    server, directory = unix_server
    res = _psql(server.port, WHO, "-F", ",", "-h", directory)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ",,,-1"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["PGHOST"] = directory
    res = _psql(server.port, "select 40 + 2", env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "42"


def test_psycopg_host_directory(unix_server):
    server, directory = unix_server
    with psycopg.connect(host=directory, port=server.port, user="cumulo", dbname="cumulo",
                         autocommit=True) as conn:
        assert conn.info.host == directory
        assert conn.execute(WHO).fetchone() == UNIX_ROW
        conn.execute("create table if not exists unix_t (k int primary key, v text)")
        conn.execute("insert into unix_t values (1, 'over a socket') on conflict do nothing")
        assert conn.execute("select v from unix_t where k = 1").fetchone() == ("over a socket",)
    with psycopg.connect(server.dsn(), autocommit=True) as tcp:  # the same server over TCP
        addr, _port, client_addr, client_port = tcp.execute(WHO).fetchone()
        assert addr == client_addr == "127.0.0.1/32" and client_port > 0
        assert tcp.execute("select v from unix_t where k = 1").fetchone() == ("over a socket",)


def test_asyncpg_host_directory(unix_server):
    server, directory = unix_server

    async def run() -> tuple:
        conn = await asyncpg.connect(host=directory, port=server.port, user="cumulo",
                                     database="cumulo")
        try:
            row = await conn.fetchrow(WHO)
            return tuple(row)
        finally:
            await conn.close()

    assert asyncio.run(run()) == UNIX_ROW


def _who_dbapi(conn) -> tuple:
    """The WHO row through a DB-API connection, which it closes."""
    try:
        cur = conn.cursor()
        cur.execute(WHO)
        return tuple(cur.fetchone())
    finally:
        conn.close()


def _who_sqlalchemy(url: str) -> tuple:
    """The WHO row through a SQLAlchemy engine on url, which it disposes of."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return tuple(conn.execute(sa.text(WHO)).one())
    finally:
        engine.dispose()


def test_pg8000_unix_sock(unix_server):
    server, directory = unix_server
    assert _who_dbapi(pg8000.dbapi.connect(user="cumulo", database="cumulo",
                                           unix_sock=sock_path(directory, server.port))) \
        == UNIX_ROW


def test_sqlalchemy_url_host_query(unix_server):
    server, directory = unix_server
    assert _who_sqlalchemy(
        f"postgresql+psycopg://cumulo@/cumulo?host={directory}&port={server.port}") == UNIX_ROW


def test_cumulo_driver_sync_aio_and_dialect(unix_server):
    """Our own driver takes a socket directory as libpq does (a host starting with /)."""
    server, directory = unix_server
    assert _who_dbapi(cumulo.driver.connect(host=directory, port=server.port, user="cumulo",
                                            database="cumulo")) == UNIX_ROW

    async def run() -> tuple:
        aconn = await cumulo.driver.aio.connect(
            f"cumulo://cumulo@/cumulo?host={directory}&port={server.port}")
        try:
            # a cancelled call sends its CancelRequest over the socket too (then the
            # connection is still usable: the server ended the statement)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(aconn.fetch("select pg_sleep(60)"), 2)
            assert await aconn.fetchval("select 1") == 1
            return tuple(await aconn.fetchrow(WHO))
        finally:
            await aconn.close()

    assert asyncio.run(run()) == UNIX_ROW
    assert _who_sqlalchemy(f"cumulo://cumulo@/cumulo?host={directory}&port={server.port}") \
        == UNIX_ROW


def test_cumulo_driver_cancel_over_the_socket(unix_server):
    server, directory = unix_server
    conn = cumulo.driver.connect(host=directory, port=server.port, user="cumulo",
                                 database="cumulo", autocommit=True)
    outcome: list[BaseException | None] = []

    def sleep() -> None:
        try:
            conn.cursor().execute("select pg_sleep(60)")
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001 - the outcome is the test's
            outcome.append(e)

    worker = threading.Thread(target=sleep, daemon=True)
    worker.start()
    try:
        with psycopg.connect(host=directory, port=server.port, user="cumulo",
                             dbname="cumulo", autocommit=True) as watcher:
            deadline = time.monotonic() + 120  # NB: until the statement runs
            running = 0
            while not running and time.monotonic() < deadline:
                running = watcher.execute(
                    "select count(*) from pg_stat_activity where query like 'select pg_sleep%'"
                    " and state = 'active'").fetchone()[0]
                watcher.execute("select pg_sleep(0.05)")
        assert running, "the statement to cancel never started"
        conn.cancel()
        worker.join(60)
        assert not worker.is_alive()
        assert isinstance(outcome[0], cumulo.driver.Error) and \
            outcome[0].sqlstate == "57014", outcome
    finally:
        conn.close()


def test_cancel_over_the_socket(unix_server):
    """psycopg sends its CancelRequest to the host it connected to: here the socket."""
    server, directory = unix_server
    with psycopg.connect(host=directory, port=server.port, user="cumulo", dbname="cumulo",
                         autocommit=True) as conn:
        outcome: list[BaseException | None] = []

        def sleep() -> None:
            try:
                conn.execute("select pg_sleep(60)")
                outcome.append(None)
            except BaseException as e:  # noqa: BLE001 - the outcome is the test's
                outcome.append(e)

        worker = threading.Thread(target=sleep, daemon=True)
        worker.start()
        with psycopg.connect(host=directory, port=server.port, user="cumulo",
                             dbname="cumulo", autocommit=True) as watcher:
            deadline = time.monotonic() + 120  # NB: until the statement runs (a loaded
            running = 0  # machine may take a while to start it), not a timing assumption
            while not running and time.monotonic() < deadline:
                running = watcher.execute(
                    "select count(*) from pg_stat_activity where query like 'select pg_sleep%'"
                    " and state = 'active'").fetchone()[0]
                watcher.execute("select pg_sleep(0.05)")
        assert running, "the statement to cancel never started"
        conn.cancel()
        worker.join(60)
        assert not worker.is_alive()
        assert isinstance(outcome[0], psycopg.errors.QueryCanceled), outcome
        assert conn.execute("select 1").fetchone() == (1,)


def test_log_lines_name_the_client_local(unix_server):
    """log_connections and log_disconnections say host=[local], as PostgreSQL's."""
    server, directory = unix_server
    psycopg.connect(host=directory, port=server.port, user="cumulo", dbname="cumulo",
                    application_name="unixlog").close()

    def ended() -> bool:
        return "database=cumulo host=[local]" in server.log()

    deadline = time.monotonic() + 60
    while not ended() and time.monotonic() < deadline:  # NB: the server logs the hang-up
        time.sleep(0.05)  # once it has seen it, a moment after close() returns
    assert ended()
    assert "connection received: host=[local]" in server.log()


def test_socket_file_mode_and_lock_file(unix_server):
    server, directory = unix_server
    path = sock_path(directory, server.port)
    assert stat.S_ISSOCK(os.stat(path).st_mode)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o777
    with open(path + ".lock") as f:
        lines = f.read().splitlines()
    assert lines[0] == str(server.proc.pid)
    assert lines[1] == os.path.abspath(server.data_dir)
    assert lines[3:5] == [str(server.port), directory]
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        assert conn.execute("show unix_socket_directories").fetchone() == (directory,)
        assert conn.execute("show unix_socket_permissions").fetchone() == ("0777",)
        with pytest.raises(psycopg.errors.CantChangeRuntimeParam):
            conn.execute("set unix_socket_directories = '/tmp'")


def test_socket_life_stale_taken_over_second_refused_removed_at_shutdown():
    directory = socket_dir()
    server = start(directory, "-c", "unix_socket_permissions=0770")
    path = sock_path(directory, server.port)
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o770
        # a second server for the same directory and port (TCP on another address) is refused
        second = CumuloServer(extra_args=["--host", "127.0.0.2", "-c",
                                          f"unix_socket_directories={directory}"])
        second.port = server.port
        with pytest.raises(RuntimeError) as refused:
            second.start()
        assert "exited with 1" in str(refused.value)
        assert f'lock file "{path}.lock" already exists' in second.log()
        assert "redo" not in second.log()  # refused before recovery, as a busy port is
        shutil.rmtree(second.data_dir, ignore_errors=True)
        assert os.path.exists(path)  # still the first server's
        with psycopg.connect(host=directory, port=server.port, user="cumulo",
                             dbname="cumulo") as conn:
            assert conn.execute("select 1").fetchone() == (1,)
        # a killed server leaves its files behind; the next start replaces them
        server.stop(signal.SIGKILL)
        assert os.path.exists(path) and os.path.exists(path + ".lock")
        server.start()
        with open(path + ".lock") as f:
            assert f.readline().strip() == str(server.proc.pid)
        with psycopg.connect(host=directory, port=server.port, user="cumulo",
                             dbname="cumulo") as conn:
            assert conn.execute("select 2").fetchone() == (2,)
        # a clean shutdown removes both
        assert server.stop() == 0
        assert not os.path.exists(path) and not os.path.exists(path + ".lock")
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


def test_auth_and_local_hba_lines_apply_to_the_socket():
    directory = socket_dir()
    server = CumuloServer(extra_args=["-c", f"unix_socket_directories={directory}"])
    try:
        server.start()
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            conn.execute("create role sockuser login password 'sockpw'")
        # --auth: a password is asked for over the socket as over TCP
        server.extra_args += ["--auth", "scram"]
        server.restart()
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(host=directory, port=server.port, user="sockuser",
                            dbname="cumulo", password="wrong").close()
        with psycopg.connect(host=directory, port=server.port, user="sockuser",
                             dbname="cumulo", password="sockpw") as conn:
            assert conn.execute("select current_user").fetchone() == ("sockuser",)
        # cumulo_hba.conf: `local` lines are for the socket, `host` lines for TCP
        with open(os.path.join(server.data_dir, "cumulo_hba.conf"), "w") as f:
            f.write("local all all reject\nhost all all all trust\n")
        server.restart()
        with pytest.raises(psycopg.OperationalError,
                           match=r'pg_hba.conf rejects connection for host "\[local\]"'):
            psycopg.connect(host=directory, port=server.port, user="sockuser",
                            dbname="cumulo").close()
        with psycopg.connect(server.dsn(user="sockuser")) as conn:
            assert conn.execute("select 1").fetchone() == (1,)
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


def test_empty_setting_listens_on_tcp_only():
    directory = socket_dir()
    server = CumuloServer(extra_args=["-c", "unix_socket_directories="])
    try:
        server.start()
        assert "Unix socket" not in server.log()
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            assert conn.execute("show unix_socket_directories").fetchone() == ("",)
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


def test_a_directory_that_cannot_hold_the_socket_stops_the_start():
    """As PostgreSQL 15: `could not create lock file` is FATAL for a configured directory."""
    missing = os.path.join(socket_dir(), "missing")
    server = CumuloServer(extra_args=["-c", f"unix_socket_directories={missing}"])
    try:
        with pytest.raises(RuntimeError, match="exited with 1"):
            server.start()
        assert f'could not create lock file "{missing}/.s.PGSQL.{server.port}.lock": ' \
            "No such file or directory" in server.log()
    finally:
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(os.path.dirname(missing), ignore_errors=True)


def test_default_directory_is_where_psql_looks():
    """No setting: the server listens where this platform's libpq looks, so `psql -p PORT`
    with no host finds it (Debian: /var/run/postgresql, as its PostgreSQL 15 does)."""
    default = socket_directories()
    server = CumuloServer()
    try:
        server.start()
        with psycopg.connect(server.dsn(), autocommit=True) as conn:
            assert conn.execute("show unix_socket_directories").fetchone() == (default,)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        res = _psql(server.port, "select 'found'", env=env)
        if os.access(default, os.W_OK):
            assert res.returncode == 0, res.stderr + server.log()
            assert res.stdout.strip() == "found"
            assert os.path.exists(sock_path(default, server.port))
        else:  # another user's directory: TCP only, and the log says why
            assert "listening on TCP only" in server.log()
        assert server.stop() == 0
        assert not os.path.exists(sock_path(default, server.port))
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


def test_abstract_namespace_socket_through_psql():
    """`@name`: Linux's abstract namespace, as PostgreSQL 15 and libpq take it: no file."""
    name = f"@cumulo-test-{os.getpid()}"
    server = CumuloServer(extra_args=["-c", f"unix_socket_directories={name}"])
    try:
        server.start()
        assert f'listening on Unix socket "{name}/.s.PGSQL.{server.port}"' in server.log()
        res = _psql(server.port, "select inet_client_addr() is null", "-h", name)
        assert res.returncode == 0, res.stderr
        assert res.stdout.strip() == "t"
        assert server.stop() == 0
        res = _psql(server.port, "select 1", "-h", name)
        assert res.returncode != 0  # gone with its server
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
