"""Session and protocol behaviour of both front ends, checked against PostgreSQL 15.

- `pg_terminate_backend(pg_backend_pid())` ends the session with FATAL 57P01;
- idle_in_transaction_session_timeout ends an idle transaction with FATAL 25P03;
- a zero-column SELECT fetched through a named cursor has its RowDescription;
- extended-protocol replies are held until Sync or Flush (pipelining clients rely on it).
"""

from __future__ import annotations

import socket
import time

import psycopg
import pytest

from tests.server_process import on_frontend
from tests.unit.pgwire import wire

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module", params=["threads", "loop"])
def cumulo(request, cumulo_server):
    with on_frontend(request.param, cumulo_server) as server:
        yield server


def _dsns(cumulo, pg15) -> dict[str, str]:
    return {"cumulo": cumulo.dsn(), "pg15": pg15.dsn()}


def test_terminating_ones_own_backend_ends_the_session_with_57p01(cumulo, pg15):
    for name, dsn in _dsns(cumulo, pg15).items():
        conn = psycopg.connect(dsn, autocommit=True)
        with pytest.raises(psycopg.errors.AdminShutdown) as ei:
            conn.execute("select pg_terminate_backend(pg_backend_pid())").fetchall()
        assert ei.value.diag.severity_nonlocalized == "FATAL", name
        assert "terminating connection due to administrator command" in str(ei.value), name
        assert conn.closed or conn.broken, name
        conn.close()


def test_idle_in_transaction_session_timeout_ends_the_session(cumulo, pg15):
    for name, dsn in _dsns(cumulo, pg15).items():
        conn = psycopg.connect(dsn)
        conn.execute("set idle_in_transaction_session_timeout = '300ms'")
        conn.execute("select 1")  # inside the transaction psycopg opened
        time.sleep(1.0)
        with pytest.raises(psycopg.Error) as ei:
            conn.execute("select 2")
        assert "idle-in-transaction timeout" in str(ei.value), (name, str(ei.value))
        conn.close()
        # outside a transaction block the setting does not end an idle session
        conn = psycopg.connect(dsn, autocommit=True)
        conn.execute("set idle_in_transaction_session_timeout = '300ms'")
        time.sleep(0.8)
        assert conn.execute("select 3").fetchone() == (3,), name
        conn.close()


def test_zero_column_select_through_a_named_cursor(cumulo, pg15):
    got = {}
    for name, dsn in _dsns(cumulo, pg15).items():
        with psycopg.connect(dsn) as conn, conn.cursor("zero") as cur:
            cur.execute("select from generate_series(1, 3)")
            rows = cur.fetchall()
            got[name] = (rows, [d.name for d in cur.description or []])
    assert got["cumulo"] == got["pg15"] == ([(), (), ()], [])


def _raw(host: str, port: int, user: str, db: str) -> socket.socket:
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(wire.startup(user, db))
    buf = b""
    while not buf.endswith(wire.msg(b"Z", b"I")):
        chunk = s.recv(65536)
        assert chunk, "closed during startup"
        buf += chunk
    return s


def _quiet(s: socket.socket, wait: float = 0.5) -> bytes:
    s.settimeout(wait)
    try:
        return s.recv(65536)
    except TimeoutError:
        return b""
    finally:
        s.settimeout(10)


def test_extended_replies_wait_for_sync_or_flush(cumulo, pg15):
    seen = {}
    pg_host = pg15.host if hasattr(pg15, "host") else "127.0.0.1"
    for name, (host, port, user) in {
        "cumulo": (cumulo.host, cumulo.port, "cumulo"),
        "pg15": (pg_host, pg15.port, "postgres"),
    }.items():
        s = _raw(host, port, user, "cumulo" if name == "cumulo" else "postgres")
        try:
            s.sendall(wire.parse("select 1") + wire.bind() + wire.execute())
            early = _quiet(s)
            s.sendall(wire.FLUSH)
            time.sleep(0.3)
            flushed = _quiet(s)
            s.sendall(wire.SYNC)
            time.sleep(0.3)
            synced = _quiet(s)
        finally:
            s.close()
        seen[name] = (wire.summarize(early), wire.summarize(flushed), wire.summarize(synced))
    assert seen["cumulo"] == seen["pg15"], seen
    assert seen["cumulo"][0] == []
