"""Every client logs in with SCRAM-SHA-256 against `cumulo serve --auth scram`.

The server first runs with trust to create a role with a password (stored as
a SCRAM verifier, PostgreSQL 15's default password_encryption), then restarts
requiring SCRAM on the same data directory. Each client must complete the
SASL exchange (libpq sends `n=,` as the user name inside SCRAM: the startup
user is what counts), and a wrong password must fail with 28P01.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess

import asyncpg
import pg8000.native
import psycopg
import psycopg2
import pytest

from tests.server_process import CumuloServer

USER, PASSWORD, DB = "scram_user", "s3cret pw", "cl_scram"


def _kw(server, password: str) -> dict:
    return {"host": server.host, "port": server.port, "user": USER, "dbname": DB,
            "password": password}


@pytest.fixture(scope="module")
def server():
    srv = CumuloServer().start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute(f"create role {USER} login password '{PASSWORD}'")
            c.execute(f"create database {DB}")
            verifier = c.execute("select rolpassword from pg_authid where rolname = %s",
                                 (USER,)).fetchone()[0]
            assert verifier.startswith("SCRAM-SHA-256$4096:")
        srv.stop()
        srv.extra_args = ["--auth", "scram"]
        srv.start()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(srv.data_dir, ignore_errors=True)


def test_psycopg3(server):
    with psycopg.connect(**_kw(server, PASSWORD)) as c:
        assert c.execute("select current_user, current_database()").fetchone() == (USER, DB)
    with pytest.raises(psycopg.OperationalError) as e:
        psycopg.connect(**_kw(server, "wrong"))
    assert 'password authentication failed for user "scram_user"' in str(e.value)


def test_psycopg2(server):
    with psycopg2.connect(**_kw(server, PASSWORD)) as c, c.cursor() as cur:
        cur.execute("select current_user")
        assert cur.fetchone() == (USER,)
    c.close()
    with pytest.raises(psycopg2.OperationalError) as e:
        psycopg2.connect(**_kw(server, "wrong"))
    assert 'password authentication failed for user "scram_user"' in str(e.value)


def test_pg8000(server):
    c = pg8000.native.Connection(USER, host=server.host, port=server.port, database=DB,
                                 password=PASSWORD)
    assert c.run("select current_user") == [[USER]]
    c.close()
    with pytest.raises(pg8000.native.DatabaseError) as e:
        pg8000.native.Connection(USER, host=server.host, port=server.port, database=DB,
                                 password="wrong")
    assert e.value.args[0]["C"] == "28P01"


def test_asyncpg(server):
    async def main():
        c = await asyncpg.connect(host=server.host, port=server.port, user=USER, database=DB,
                                  password=PASSWORD)
        try:
            assert await c.fetchval("select current_user") == USER
        finally:
            await c.close()
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(host=server.host, port=server.port, user=USER, database=DB,
                                  password="wrong")
    asyncio.run(main())


def test_psql(server):
    def run(password: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PGPASSWORD": password}
        return subprocess.run(
            ["/usr/lib/postgresql/15/bin/psql", "-X", "-w", "-h", server.host, "-p",
             str(server.port), "-U", USER, "-d", DB, "-Atc", "select current_user"],
            capture_output=True, text=True, env=env, timeout=30)

    ok = run(PASSWORD)
    assert (ok.returncode, ok.stdout) == (0, f"{USER}\n"), ok.stderr
    bad = run("wrong")
    assert bad.returncode == 2
    assert 'password authentication failed for user "scram_user"' in bad.stderr


def test_pgbench(server, tmp_path):
    """pgbench 15 (libpq) logs in with SCRAM for each of its clients and runs a script."""
    script = tmp_path / "who.sql"
    script.write_text("select current_user;\n")

    def run(password: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PGPASSWORD": password}
        return subprocess.run(
            ["/usr/lib/postgresql/15/bin/pgbench", "-n", "-h", server.host, "-p",
             str(server.port), "-U", USER, "-c", "2", "-t", "5", "-f", str(script), DB],
            capture_output=True, text=True, env=env, timeout=60)

    ok = run(PASSWORD)
    assert ok.returncode == 0, ok.stderr
    assert "number of transactions actually processed: 10/10" in ok.stdout
    assert "number of failed transactions: 0" in ok.stdout
    bad = run("wrong")
    assert bad.returncode != 0
    assert 'password authentication failed for user "scram_user"' in bad.stderr
