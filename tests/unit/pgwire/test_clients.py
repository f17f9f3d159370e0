"""Real drivers (psycopg 3, asyncpg, pg8000) against `serve()` backed by the canned engine."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
import time
import uuid
from decimal import Decimal

import pytest

from cumulo.server.pgwire.server import serve
from tests.unit.pgwire.fake_engine import TYPED, FakeEngine

pytestmark = pytest.mark.timeout(60)


class Running:
    """A pgwire server on its own event loop thread."""

    def __init__(self, auth: str, ssl_context=None, frontend: str = "threads") -> None:
        self.engine = FakeEngine()
        self.frontend = frontend
        self.ssl_context = ssl_context
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(auth,), daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    def _run(self, auth: str) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self.server = await serve(self.engine, "127.0.0.1", 0, auth=auth,
                                      ssl_context=self.ssl_context, frontend=self.frontend)
            self.port = self.server.port
            self.ready.set()

        self.loop.run_until_complete(main())
        self.loop.run_forever()

    def stop(self) -> None:
        fut = asyncio.run_coroutine_threadsafe(self.server.close(), self.loop)
        fut.result(15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


FRONTENDS = ["threads", "loop"]


@pytest.fixture(scope="module", params=FRONTENDS)
def trust(request):
    srv = Running("trust", frontend=request.param)
    yield srv
    srv.stop()


@pytest.fixture(scope="module", params=FRONTENDS)
def scram(request):
    srv = Running("scram", frontend=request.param)
    yield srv
    srv.stop()


@pytest.fixture(scope="module", params=FRONTENDS)
def md5(request):
    srv = Running("md5", frontend=request.param)
    yield srv
    srv.stop()


def dsn(srv: Running, user: str = "trust", password: str | None = None) -> str:
    pw = f" password={password}" if password else ""
    return f"host=127.0.0.1 port={srv.port} user={user} dbname=db{pw} sslmode=prefer"


EXPECTED = {name: value for name, _, value in TYPED}


def test_psycopg_text_and_binary(trust):
    import psycopg

    with psycopg.connect(dsn(trust), autocommit=True) as conn:
        assert conn.info.parameter_status("server_version") == "15.0 (Cumulo)"
        for binary in (False, True):
            cur = conn.cursor(binary=binary)
            row = cur.execute("select typed").fetchone()
            got = dict(zip([d.name for d in cur.description], row, strict=True))
            for name, want in EXPECTED.items():
                if name == "j":
                    assert got[name] == {"a": [1, 2]}
                elif name == "f4":
                    assert got[name] == pytest.approx(want)
                else:
                    assert got[name] == want, (binary, name)
        # typed parameters: psycopg sends int/float/bool binary, str as text
        row = conn.execute("select %s::int4, %s::text", (42, "x y")).fetchone()
        assert row == (42, "x y")


def test_psycopg_errors_and_transaction_status(trust):
    import psycopg

    with psycopg.connect(dsn(trust)) as conn:
        with pytest.raises(psycopg.errors.SyntaxError) as ei:
            conn.execute("fail")
        assert ei.value.sqlstate == "42601" and ei.value.diag.statement_position == "1"
        assert conn.info.transaction_status.name == "INERROR"
        conn.rollback()
        with pytest.raises(psycopg.errors.UndefinedTable):
            conn.execute("missing")


def test_psycopg_pipeline_executemany(trust):
    import psycopg

    with psycopg.connect(dsn(trust), autocommit=True) as conn:
        cur = conn.cursor()
        cur.executemany("select %s::int4, %s::text", [(i, str(i)) for i in range(5)],
                        returning=True)
        got = []
        while True:
            got.append(cur.fetchone())
            if not cur.nextset():
                break
        assert got == [(i, str(i)) for i in range(5)]


def test_psycopg_copy(trust):
    import psycopg

    with psycopg.connect(dsn(trust), autocommit=True) as conn:
        cur = conn.cursor()
        with cur.copy("copy t from stdin") as copy:
            copy.write(b"1\ta\n2\tb\n")
        assert cur.rowcount == 1  # the fake counts CopyData messages: psycopg sent one
        assert trust.engine.sessions[-1].copied == [b"1\ta\n2\tb\n"]
        out = b""
        with conn.cursor().copy("copy t to stdout") as copy:
            for chunk in copy:
                out += bytes(chunk)
        assert out == b"1\ta\n2\tb\n"


def test_psycopg_cancel(trust):
    import psycopg

    with psycopg.connect(dsn(trust), autocommit=True) as conn:
        # NB: cancel_safe, not cancel: PQcancel blocks holding the GIL, and this server
        # runs in the same process, so it could never accept the cancel connection.
        timer = threading.Timer(0.3, conn.cancel_safe)
        timer.start()
        start = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("sleep 20")
        assert time.monotonic() - start < 10
        assert conn.execute("select 1").fetchone() == (1,)


def test_psycopg_scram_and_wrong_password(scram):
    import psycopg

    with psycopg.connect(dsn(scram, "scramuser", "pw")) as conn:
        assert conn.execute("select 1").fetchone() == (1,)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(dsn(scram, "scramuser", "wrong"))


def test_psycopg_md5(md5):
    import psycopg

    with psycopg.connect(dsn(md5, "md5user", "pw")) as conn:
        assert conn.execute("select 1").fetchone() == (1,)
    with pytest.raises(psycopg.OperationalError, match="28P01|password authentication failed"):
        psycopg.connect(dsn(md5, "md5user", "bad"))


def test_unknown_role(trust):
    import psycopg

    with pytest.raises(psycopg.OperationalError, match='role "ghost" does not exist'):
        psycopg.connect(dsn(trust, "ghost"))


def _asyncpg(coro_fn):
    return asyncio.run(coro_fn())


def test_asyncpg_binary_everything(scram):
    import asyncpg

    async def main():
        conn = await asyncpg.connect(host="127.0.0.1", port=scram.port, user="scramuser",
                                     password="pw", database="db", ssl=False)
        try:
            row = await conn.fetchrow("select scalars")  # arrays would need catalog introspection
            for name, want in EXPECTED.items():
                if name in ("ai", "at"):
                    continue
                got = row[name]
                if name == "f4":
                    assert got == pytest.approx(want)
                else:
                    assert got == want, name
            stmt = await conn.prepare("select $1::int4, $2::text")
            assert await stmt.fetchrow(5, "z") == (5, "z")
            assert [tuple(r) for r in await conn.fetch("select series 3")] == [(1,), (2,), (3,)]
            # fetchrow is Execute(max_rows=1): DataRow + PortalSuspended, and the next query works
            assert tuple(await conn.fetchrow("select series 3")) == (1,)
            assert await conn.fetchval("select series 2") == 1
            async with conn.transaction():
                cur = await conn.cursor("select series 5")
                assert [r[0] for r in await cur.fetch(2)] == [1, 2]
                assert [r[0] for r in await cur.fetch(3)] == [3, 4, 5]
            start = time.monotonic()
            with pytest.raises(asyncio.TimeoutError):  # asyncpg sends a CancelRequest
                await conn.execute("sleep 20", timeout=0.3)
            assert await conn.fetchval("select 1") == 1  # only once the sleep was cancelled
            assert time.monotonic() - start < 10
        finally:
            await conn.close()
        with pytest.raises(asyncpg.exceptions.InvalidPasswordError):
            await asyncpg.connect(host="127.0.0.1", port=scram.port, user="scramuser",
                                  password="nope", database="db", ssl=False)

    _asyncpg(main)


def test_asyncpg_typed_params_binary(trust):
    import asyncpg

    async def main():
        conn = await asyncpg.connect(host="127.0.0.1", port=trust.port, user="trust",
                                     database="db", ssl=False)
        try:
            v = await conn.fetchrow("select $1::numeric, $2::date, $3::timestamptz, $4::uuid, "
                                    "$5::interval, $6::bytea, $7::jsonb",
                                    Decimal("-12.3400"), dt.date(2020, 1, 1),
                                    dt.datetime(2020, 1, 1, 1, tzinfo=dt.UTC),
                                    uuid.UUID(int=5), dt.timedelta(days=-1, hours=2),
                                    b"\x00\x01", '{"k": 1}')
            assert tuple(v) == (Decimal("-12.3400"), dt.date(2020, 1, 1),
                                dt.datetime(2020, 1, 1, 1, tzinfo=dt.UTC), uuid.UUID(int=5),
                                dt.timedelta(days=-1, hours=2), b"\x00\x01", '{"k": 1}')
        finally:
            await conn.close()

    _asyncpg(main)


def test_pg8000(md5):
    import pg8000.dbapi
    import pg8000.native

    conn = pg8000.native.Connection("md5user", host="127.0.0.1", port=md5.port,
                                    database="db", password="pw")
    try:
        assert conn.run("select $1::int4, $2::text".replace("$1", ":a").replace("$2", ":b"),
                        a=7, b="q") == [[7, "q"]]
        rows = conn.run("select typed")
        got = dict(zip([c["name"] for c in conn.columns], rows[0], strict=True))
        assert got["n"] == Decimal("-1234.5600") and got["ts"] == EXPECTED["ts"]
        assert got["ai"] == [1, None, 3] and got["by"] == b"\x00\xff"
        with pytest.raises(pg8000.native.DatabaseError) as ei:
            conn.run("fail")
        assert ei.value.args[0]["C"] == "42601"
    finally:
        conn.close()
    with pytest.raises(pg8000.native.DatabaseError) as ei:
        pg8000.native.Connection("md5user", host="127.0.0.1", port=md5.port, database="db",
                                 password="bad")
    assert ei.value.args[0]["C"] == "28P01"


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_graceful_shutdown_terminates_sessions(frontend):
    import psycopg

    srv = Running("trust", frontend=frontend)
    conn = psycopg.connect(dsn(srv), autocommit=True)
    assert conn.execute("select 1").fetchone() == (1,)
    srv.stop()
    with pytest.raises(psycopg.OperationalError):
        conn.execute("select 1")
    assert srv.engine.sessions[0].closed == 1
    conn.close()


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("statement", ["sleep 30", "stuck 6"])
def test_shutdown_terminates_running_statements_with_57p01(statement, frontend):
    """A cancellable statement is cancelled; one that ignores cancel is cut off after the grace
    period. Either way the client sees FATAL 57P01 and close() returns."""
    import psycopg

    srv = Running("trust", frontend=frontend)
    conn = psycopg.connect(dsn(srv), autocommit=True)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            conn.execute(statement)
        except psycopg.Error as e:
            outcome.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.3)
    srv.stop()
    worker.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], psycopg.errors.AdminShutdown), outcome
    assert outcome[0].diag.severity_nonlocalized == "FATAL"
    conn.close()


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_tls_upgrade_after_ssl_request(tmp_path, frontend):
    import shutil
    import ssl
    import subprocess

    import psycopg

    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make a test certificate")
    key, cert = tmp_path / "k.pem", tmp_path / "c.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=localhost"], check=True,
                   capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = Running("scram", ctx, frontend=frontend)
    try:
        with psycopg.connect(dsn(srv, "scramuser", "pw").replace("prefer", "require")) as conn:
            assert conn.pgconn.ssl_in_use
            assert conn.execute("select series 3").fetchall() == [(1,), (2,), (3,)]
        idle = psycopg.connect(dsn(srv, "scramuser", "pw").replace("prefer", "require"),
                               autocommit=True)
        busy = psycopg.connect(dsn(srv, "scramuser", "pw").replace("prefer", "require"),
                               autocommit=True)
        outcome: list[BaseException] = []

        def run() -> None:
            try:
                busy.execute("sleep 30")
            except psycopg.Error as e:
                outcome.append(e)

        worker = threading.Thread(target=run)
        worker.start()
        time.sleep(0.3)
    finally:
        srv.stop()
    worker.join(10)
    # the FATAL goes out encrypted on both, whether the session was idle or running
    assert len(outcome) == 1 and isinstance(outcome[0], psycopg.errors.AdminShutdown), outcome
    with pytest.raises(psycopg.errors.AdminShutdown):
        idle.execute("select 1")
    idle.close()
    busy.close()


def test_slow_statement_does_not_block_other_connections(trust):
    import psycopg

    slow = psycopg.connect(dsn(trust), autocommit=True)
    fast = psycopg.connect(dsn(trust), autocommit=True)
    try:
        errors: list[Exception] = []

        def run_slow() -> None:
            try:
                slow.execute("sleep 3")
            except psycopg.errors.QueryCanceled as e:
                errors.append(e)

        worker = threading.Thread(target=run_slow)
        worker.start()
        time.sleep(0.2)
        start = time.monotonic()
        for _ in range(20):
            assert fast.execute("select 1").fetchone() == (1,)
        assert time.monotonic() - start < 1.5
        slow.cancel_safe()
        worker.join(10)
        assert len(errors) == 1  # the slow one was still running, and got cancelled
    finally:
        slow.close()
        fast.close()


def test_large_result_streams(trust):
    import psycopg

    with psycopg.connect(dsn(trust), autocommit=True) as conn:
        rows = conn.execute("select series 200000").fetchall()
        assert len(rows) == 200000 and rows[-1] == (200000,)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_silent_client_is_dropped_after_the_authentication_timeout(monkeypatch, frontend):
    import socket

    import psycopg

    import cumulo.server.pgwire.loop as loop_front
    import cumulo.server.pgwire.server as front

    monkeypatch.setattr(front, "AUTH_TIMEOUT", 0.3)
    monkeypatch.setattr(loop_front, "AUTH_TIMEOUT", 0.3)
    srv = Running("trust", frontend=frontend)
    try:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as silent:
            assert silent.recv(1) == b""  # closed by the server, not by our 10 s timeout
        with psycopg.connect(dsn(srv), autocommit=True) as conn:
            time.sleep(0.6)  # an authenticated session may idle past the timeout
            assert conn.execute("select 1").fetchone() == (1,)
    finally:
        srv.stop()


def test_cancel_while_parsing_counts_and_cancel_while_idle_does_not(trust):
    """PostgreSQL drops a cancel that arrives between commands, and honours one that arrives
    while the command is still being parsed or planned."""
    import psycopg

    with psycopg.connect(dsn(trust), autocommit=True) as conn:
        conn.cancel_safe()  # idle: a no-op
        time.sleep(0.2)
        assert conn.execute("sleep 0.3").fetchone() == (True,)
        timer = threading.Timer(0.2, conn.cancel_safe)  # lands during the 1 s of "parsing"
        timer.start()
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("sleep 30 after 1")
        timer.join()
        assert conn.execute("select 1").fetchone() == (1,)
