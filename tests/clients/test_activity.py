"""pg_stat_activity, pg_cancel_backend and pg_terminate_backend seen from another session.

Two psycopg connections per check: a victim that runs or idles, and a monitor
that watches it in pg_stat_activity and cancels or terminates it. Every check
runs against a throwaway PostgreSQL 15 and against `cumulo serve`, so the
states, the columns that must be set and the victim's SQLSTATEs (57014 for a
cancel, 57P01 FATAL for a terminate) are the oracle's.
"""

from __future__ import annotations

import select
import threading
import time

import psycopg
import pytest

APP = "activity-test"


@pytest.fixture(scope="module", params=["pg15", "cumulo"])
def dsn(request, client_db):
    if request.param == "cumulo":
        return request.getfixturevalue("cumulo_server").dsn(dbname=client_db)
    pg = request.getfixturevalue("pg15")
    pg.psql(f"drop database if exists {client_db}")
    pg.psql(f"create database {client_db} owner cumulo")
    return pg.dsn(db=client_db)


def _activity(monitor, pid: int) -> dict | None:
    cur = monitor.execute(
        "select pid, state, query, query_start is not null as has_query_start,"
        " backend_start is not null as has_backend_start, xact_start is not null as in_xact,"
        " wait_event_type, usename, datname, application_name, host(client_addr) as addr,"
        " backend_type from pg_stat_activity where pid = %s", (pid,))
    row = cur.fetchone()
    return None if row is None else dict(zip([d.name for d in cur.description], row, strict=True))


def _wait_for(monitor, pid: int, state: str, **want) -> dict:
    """Polls until the session shows `state` and the `want` columns (PostgreSQL reports a
    session's wait a moment after its state: a safety deadline, not a timing assertion)."""
    deadline = time.monotonic() + 30
    while True:
        got = _activity(monitor, pid)
        if got is not None and got["state"] == state and all(
                got[k] == v for k, v in want.items()) or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def _run(victim, sql: str, outcome: dict) -> threading.Thread:
    def go():
        try:
            victim.execute(sql)
            outcome["state"] = "ok"
        except psycopg.Error as e:
            outcome["state"] = e.sqlstate
    t = threading.Thread(target=go)
    t.start()
    return t


def test_running_statement_is_active_and_cancellable(dsn):
    with psycopg.connect(dsn, autocommit=True, application_name=APP) as victim, \
            psycopg.connect(dsn, autocommit=True) as monitor:
        pid = victim.info.backend_pid
        outcome: dict = {}
        t = _run(victim, "select pg_sleep(60)", outcome)
        try:
            got = _wait_for(monitor, pid, "active")
            assert got is not None and got["state"] == "active", got
            assert got["query"] == "select pg_sleep(60)"
            assert got["has_query_start"] and got["has_backend_start"] and got["in_xact"]
            assert (got["usename"], got["datname"], got["application_name"], got["addr"],
                    got["backend_type"]) == ("cumulo", dsn.rsplit("/", 1)[1], APP, "127.0.0.1",
                                             "client backend")
            me = _activity(monitor, monitor.info.backend_pid)
            assert me["state"] == "active" and "pg_stat_activity" in me["query"]
            assert monitor.execute("select pg_cancel_backend(%s)", (pid,)).fetchone()[0] is True
        finally:
            t.join()
        assert outcome["state"] == "57014"
        assert victim.execute("select 'usable'").fetchone()[0] == "usable"
        got = _wait_for(monitor, pid, "idle", wait_event_type="Client")
        assert (got["state"], got["query"], got["wait_event_type"], got["in_xact"]) == (
            "idle", "select 'usable'", "Client", False)


def test_idle_in_transaction(dsn):
    with psycopg.connect(dsn, application_name=APP) as victim, \
            psycopg.connect(dsn, autocommit=True) as monitor:
        victim.execute("select 1")  # psycopg opened a transaction block: BEGIN, then this
        got = _activity(monitor, victim.info.backend_pid)
        assert (got["state"], got["query"], got["in_xact"]) == (
            "idle in transaction", "select 1", True)
        with pytest.raises(psycopg.errors.DivisionByZero):
            victim.execute("select 1/0")
        got = _activity(monitor, victim.info.backend_pid)
        assert (got["state"], got["query"]) == ("idle in transaction (aborted)", "select 1/0")
        victim.rollback()


def test_terminate_idle_session(dsn):
    with psycopg.connect(dsn, autocommit=True) as victim, \
            psycopg.connect(dsn, autocommit=True) as monitor:
        pid = victim.info.backend_pid
        assert monitor.execute("select pg_terminate_backend(%s)", (pid,)).fetchone()[0] is True
        # The server tells the idle client at once (FATAL, then EOF), not at its next query.
        readable, _, _ = select.select([victim.fileno()], [], [], 30)
        assert readable
        with pytest.raises(psycopg.OperationalError) as e:
            victim.execute("select 1")
        assert e.value.sqlstate == "57P01"
        assert victim.closed or victim.broken
        deadline = time.monotonic() + 30
        while _activity(monitor, pid) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _activity(monitor, pid) is None
        warnings = []
        monitor.add_notice_handler(lambda d: warnings.append((d.severity, d.message_primary)))
        assert monitor.execute("select pg_terminate_backend(%s)", (pid,)).fetchone()[0] is False
        assert warnings == [("WARNING", f"PID {pid} is not a PostgreSQL backend process")]


def test_terminate_running_statement(dsn):
    with psycopg.connect(dsn, autocommit=True) as victim, \
            psycopg.connect(dsn, autocommit=True) as monitor:
        pid = victim.info.backend_pid
        outcome: dict = {}
        t = _run(victim, "select pg_sleep(60)", outcome)
        try:
            assert _wait_for(monitor, pid, "active")["state"] == "active"
            assert monitor.execute("select pg_terminate_backend(%s)", (pid,)).fetchone()[0]
        finally:
            t.join()
        assert outcome["state"] == "57P01"
        assert victim.closed or victim.broken


def _local_port(conn) -> int:
    """The client side's TCP port of a psycopg connection (what the server sees as client_port)."""
    import os
    import socket

    sock = socket.socket(fileno=os.dup(conn.pgconn.socket))
    try:
        return sock.getsockname()[1]
    finally:
        sock.close()


def _waits(monitor, pid: int, want: tuple) -> tuple:
    """Polls (state, wait_event_type, wait_event, has backend_xid, has backend_xmin) of `pid`
    until it equals `want` (a safety deadline, not a timing assertion); returns the last."""
    deadline = time.monotonic() + 30
    while True:
        got = monitor.execute(
            "select state, wait_event_type, wait_event, backend_xid is not null,"
            " backend_xmin is not null from pg_stat_activity where pid = %s", (pid,)).fetchone()
        if got == want or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def test_client_port_wait_events_and_xids(dsn):
    """client_port, wait events (a row lock, pg_sleep) and whether backend_xid / backend_xmin
    are set, through the states a session goes through, as PostgreSQL 15 shows them."""
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn) as b, \
            psycopg.connect(dsn, autocommit=True) as monitor:
        a.execute("drop table if exists act_w")
        a.execute("create table act_w (id int primary key, v int)")
        a.execute("insert into act_w values (1, 0)")
        pa, pb = a.info.backend_pid, b.info.backend_pid
        port = monitor.execute("select client_port from pg_stat_activity where pid = %s",
                               (pa,)).fetchone()[0]
        assert port == _local_port(a)
        idle = ("idle", "Client", "ClientRead", False, False)
        assert _waits(monitor, pa, idle) == idle
        me = monitor.execute("select state, wait_event_type, wait_event, backend_xid is not null,"
                             " backend_xmin is not null from pg_stat_activity"
                             " where pid = pg_backend_pid()").fetchone()
        assert me == ("active", None, None, False, True)
        b.execute("select 1")
        want = ("idle in transaction", "Client", "ClientRead", False, False)
        assert _waits(monitor, pb, want) == want
        b.execute("update act_w set v = 1 where id = 1")
        want = ("idle in transaction", "Client", "ClientRead", True, False)
        assert _waits(monitor, pb, want) == want
        outcome: dict = {}
        t = _run(a, "update act_w set v = 2 where id = 1", outcome)
        try:
            want = ("active", "Lock", "transactionid", True, True)
            assert _waits(monitor, pa, want) == want
        finally:
            b.commit()
            t.join()
        assert outcome["state"] == "ok"
        t = _run(a, "select pg_sleep(60)", outcome)
        try:
            want = ("active", "Timeout", "PgSleep", False, True)
            assert _waits(monitor, pa, want) == want
        finally:
            monitor.execute("select pg_cancel_backend(%s)", (pa,))
            t.join()
        b.execute("set transaction isolation level repeatable read")
        b.execute("select * from act_w")
        want = ("idle in transaction", "Client", "ClientRead", False, True)
        assert _waits(monitor, pb, want) == want
        b.rollback()
