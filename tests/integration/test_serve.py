"""`cumulo serve` as a user runs it: start, connect with psql and psycopg, stop, restart, crash."""

from __future__ import annotations

import signal
import subprocess

import psycopg
import pytest

PSQL = "psql"


def psql(server, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs psql against the server, as a user would type it."""
    cmd = [PSQL, "-X", "-h", "127.0.0.1", "-p", str(server.port), "-U", "cumulo", "cumulo", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=check)


def test_psql_connects_out_of_the_box(cumulo_server):
    out = psql(cumulo_server, "-At", "-c", "select 1 + 1")
    assert out.stdout.strip() == "2"


def test_psql_runs_several_statements_in_one_c(cumulo_server):
    out = psql(
        cumulo_server,
        "-At",
        "-c",
        "create table serve_multi (id int primary key, v text); "
        "insert into serve_multi values (1, 'a'), (2, 'b'); "
        "select count(*) from serve_multi",
    )
    assert out.stdout.splitlines() == ["CREATE TABLE", "INSERT 0 2", "2"]


def test_restart_recovers_committed_data(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        conn.execute("create table keep (id int primary key, v text)")
        conn.execute("insert into keep select g, 'v' || g from generate_series(1, 500) g")
        with conn.transaction():
            conn.execute("update keep set v = 'changed' where id <= 10")
    fresh_server.restart()
    with psycopg.connect(fresh_server.dsn()) as conn:
        rows = conn.execute("select count(*), count(*) filter (where v = 'changed') from keep")
        assert rows.fetchone() == (500, 10)


def test_acknowledged_commit_survives_kill_9(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        conn.execute("create table crash (id int primary key, v int)")
        for i in range(50):
            conn.execute("insert into crash values (%s, %s)", (i, i * i))
        conn.execute("update crash set v = -1 where id = 7")
    fresh_server.stop(signal.SIGKILL)
    fresh_server.start()
    with psycopg.connect(fresh_server.dsn()) as conn:
        assert conn.execute("select count(*), sum(v) from crash").fetchone() == (
            50,
            sum(i * i for i in range(50)) - 49 - 1,
        )


def test_uncommitted_work_is_lost_on_crash(fresh_server):
    conn = psycopg.connect(fresh_server.dsn(), autocommit=True)
    conn.execute("create table half (id int primary key)")
    conn.execute("begin")
    conn.execute("insert into half values (1)")
    fresh_server.stop(signal.SIGKILL)
    with pytest.raises(psycopg.OperationalError):
        conn.execute("commit")
    fresh_server.start()
    with psycopg.connect(fresh_server.dsn()) as conn2:
        assert conn2.execute("select count(*) from half").fetchone() == (0,)


def test_bad_query_ends_the_statement_not_the_session(cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as conn:
        with pytest.raises(psycopg.errors.SyntaxError):
            conn.execute("selec 1")
        with pytest.raises(psycopg.errors.UndefinedTable):
            conn.execute("select * from no_such_table")
        assert conn.execute("select 42").fetchone() == (42,)
