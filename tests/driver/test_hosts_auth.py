"""Multi-host failover and load balancing, TLS, and password methods, sync and asyncio.

Each target kind gets a second server of the same kind (for load balancing)
and a secured server: PostgreSQL 15 from `tests/pg15.py` already has TLS
with a self-signed certificate and one role per password method; for Cumulo
a `cumulo serve --auth md5 --ssl-cert ...` is started after creating a
SCRAM role and an md5 role in its data directory (an md5 request falls back
to SCRAM for a role stored with a SCRAM verifier, as in PostgreSQL).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import ssl
import subprocess
import tempfile
from dataclasses import dataclass

import pytest

import cumulo.driver as drv
from cumulo.driver import aio, failover
from tests.pg15 import PASSWORD, PG15, free_port
from tests.server_process import CumuloServer


@dataclass
class Secured:
    """A server with TLS and password authentication."""

    kind: str
    host: str
    port: int
    rootcert: str
    users: dict[str, str]  # password method -> role name (password PASSWORD)

    def dsn(self, method: str, password: str | None = PASSWORD, **query: object) -> str:
        auth = self.users[method] + ("" if password is None else f":{password}")
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        return f"cumulo://{auth}@{self.host}:{self.port}/cumulo?{qs}"


def _make_cert(directory: str) -> tuple[str, str]:
    crt, key = os.path.join(directory, "server.crt"), os.path.join(directory, "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-keyout", key, "-out", crt],
                   capture_output=True, check=True)
    return crt, key


@pytest.fixture(scope="module")
def cumulo_secured():
    server = CumuloServer()
    certs = tempfile.mkdtemp(prefix="cumulo-drv-tls-")
    try:
        server.start(timeout=20)
        md5 = "md5" + hashlib.md5(f"{PASSWORD}drv_md5".encode()).hexdigest()
        c = drv.connect(f"cumulo://cumulo@127.0.0.1:{server.port}/cumulo", autocommit=True)
        c.cursor().execute(f"create role drv_scram login password '{PASSWORD}'; "
                           f"create role drv_md5 login password '{md5}'")
        c.close()
        server.stop()
        crt, key = _make_cert(certs)
        server.extra_args = ["--auth", "md5", "--ssl-cert", crt, "--ssl-key", key]
        server.start(timeout=20)
        yield Secured("cumulo", server.host, server.port, crt,
                      {"scram": "drv_scram", "md5": "drv_md5"})
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(certs, ignore_errors=True)


@pytest.fixture(scope="module", params=["pg15", "cumulo"])
def secured(request) -> Secured:
    if request.param == "pg15":
        pg = request.getfixturevalue("pg")
        return Secured("pg15", pg.host, pg.port, os.path.join(pg.data_dir, "server.crt"),
                       {"scram": "scramuser", "md5": "md5user", "password": "clearuser"})
    return request.getfixturevalue("cumulo_secured")


@pytest.fixture(scope="module")
def second(target):
    """Another server of the target's kind, for load balancing."""
    if target.kind == "pg15":
        server = PG15().start()
        yield server.host, server.port
        server.stop()
    else:
        server = CumuloServer().start(timeout=20)
        yield server.host, server.port
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


def _is_tls(conn: drv.Connection) -> bool:
    return isinstance(conn._sock, ssl.SSLSocket)


# ---------------------------------------------------------------- TLS and passwords


def test_tls_modes(secured):
    c = drv.connect(secured.dsn("scram", sslmode="require"))
    assert _is_tls(c)
    cur = c.cursor()
    cur.execute("select current_user")
    assert cur.fetchone() == (secured.users["scram"],)
    c.close()
    c = drv.connect(secured.dsn("scram", sslmode="disable"))
    assert not _is_tls(c)
    c.close()
    c = drv.connect(secured.dsn("scram", sslmode="verify-full", sslrootcert=secured.rootcert)
                    .replace("127.0.0.1", "localhost"))
    assert _is_tls(c)
    c.close()
    with pytest.raises(drv.OperationalError) as ei:  # the certificate names localhost
        drv.connect(secured.dsn("scram", sslmode="verify-full", sslrootcert=secured.rootcert))
    assert "certificate" in str(ei.value)


def test_tls_large_pipeline(secured):
    # Over 1 MB of pipelined Binds through TLS: the non-blocking send path, where either
    # direction may have to wait for the other.
    c = drv.connect(secured.dsn("scram", sslmode="require"), autocommit=True)
    try:
        assert _is_tls(c)
        cur = c.cursor()
        cur.execute("create temp table drv_tls_t (id int, pad text)")
        cur.executemany("insert into drv_tls_t values (%s, %s)",
                        [(i, "t" * 1000) for i in range(1000)])
        assert cur.rowcount == 1000
        cur.execute("select count(*), sum(length(pad)) from drv_tls_t")
        assert cur.fetchone() == (1000, 1_000_000)
    finally:
        c.close()


def test_tls_required_but_not_offered(cumulo_target):
    # The shared Cumulo target runs without a certificate (PostgreSQL 15's has one).
    dsn = f"cumulo://cumulo@{cumulo_target.host}:{cumulo_target.port}/cumulo"
    with pytest.raises(drv.OperationalError) as ei:
        drv.connect(dsn + "?sslmode=require")
    assert "does not support TLS" in str(ei.value)
    c = drv.connect(dsn + "?sslmode=prefer")  # falls back to plain TCP
    assert not _is_tls(c)
    c.close()


def test_password_methods(secured):
    for method in secured.users:
        c = drv.connect(secured.dsn(method, sslmode="require"))
        cur = c.cursor()
        cur.execute("select current_user")
        assert cur.fetchone() == (secured.users[method],), method
        c.close()
        c = drv.connect(secured.dsn(method, sslmode="disable"))
        c.close()
    with pytest.raises(drv.OperationalError) as ei:
        drv.connect(secured.dsn("scram", password="wrong"))
    assert ei.value.sqlstate == "28P01"
    with pytest.raises(drv.OperationalError) as ei:
        drv.connect(secured.dsn("md5", password="wrong"))
    assert ei.value.sqlstate == "28P01"
    with pytest.raises(drv.OperationalError, match="password"):
        drv.connect(secured.dsn("scram", password=None))


def test_aio_tls_and_passwords(secured):
    async def main():
        for method in secured.users:
            conn = await aio.connect(secured.dsn(method, sslmode="require"))
            assert conn._writer.get_extra_info("ssl_object") is not None
            assert await conn.fetchval("select current_user") == secured.users[method]
            await conn.close()
        with pytest.raises(drv.OperationalError) as ei:
            await aio.connect(secured.dsn("scram", password="wrong", sslmode="require"))
        assert ei.value.sqlstate == "28P01"

    asyncio.run(main())


def test_cumulo_require_password():
    """`cumulo serve --require-password` (SCRAM only), sync and asyncio, with TLS."""
    server = CumuloServer()
    certs = tempfile.mkdtemp(prefix="cumulo-drv-tls-")
    try:
        server.start(timeout=20)
        c = drv.connect(f"cumulo://cumulo@127.0.0.1:{server.port}/cumulo", autocommit=True)
        c.cursor().execute(f"alter role cumulo password '{PASSWORD}'")
        c.close()
        server.stop()
        crt, key = _make_cert(certs)
        server.extra_args = ["--require-password", "--ssl-cert", crt, "--ssl-key", key]
        server.start(timeout=20)
        url = f"cumulo://cumulo:{PASSWORD}@127.0.0.1:{server.port}/cumulo?sslmode=require"
        c = drv.connect(url)
        assert _is_tls(c)
        cur = c.cursor()
        cur.execute("select current_user")
        assert cur.fetchone() == ("cumulo",)
        c.close()
        with pytest.raises(drv.OperationalError) as ei:
            drv.connect(url.replace(PASSWORD, "nope"))
        assert ei.value.sqlstate == "28P01"
        with pytest.raises(drv.OperationalError, match="password"):
            drv.connect(url.replace(f":{PASSWORD}", ""))

        async def main():
            conn = await aio.connect(url)
            assert await conn.fetchval("select 1") == 1
            await conn.close()

        asyncio.run(main())
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(certs, ignore_errors=True)


# ---------------------------------------------------------------- failover


def test_try_next_host_rules():
    assert failover.try_next_host(ConnectionRefusedError())
    assert failover.try_next_host(drv.OperationalError("x", {"C": "57P03"}))  # starting up
    assert failover.try_next_host(drv.OperationalError("x", {"C": "53300"}))  # too many
    assert not failover.try_next_host(drv.OperationalError("x", {"C": "28P01"}))  # password
    assert not failover.try_next_host(drv.ProgrammingError("x", {"C": "3D000"}))  # no database
    assert failover.least_loaded([3, None, 1, 1]) == 2
    assert failover.least_loaded([None, None]) == 0


def _down() -> str:
    return f"127.0.0.1:{free_port()}"


def test_failover_to_second_host(target):
    url = target.dsn().replace(f"@{target.host}:{target.port}",
                               f"@{_down()},{target.host}:{target.port}")
    c = drv.connect(url)
    assert c.port == target.port
    c.close()
    with pytest.raises(drv.OperationalError) as ei:
        drv.connect(target.dsn().replace(f"{target.host}:{target.port}",
                                         f"{_down()},{_down()}"))
    assert "could not connect to any host" in str(ei.value)
    # A missing database is not retried elsewhere: every host would say the same.
    hosts = f"{target.host}:{target.port},{_down()}"
    with pytest.raises(drv.DatabaseError) as ei:
        drv.connect(host=hosts, user=target.user, password=target.password,
                    dbname="no_such_db_here")
    assert ei.value.sqlstate == "3D000"


def test_failover_past_a_hung_server(target):
    # A host that accepts TCP connections but never answers counts as down after
    # connect_timeout, and the next host is tried (sync and asyncio).
    import socket

    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)
        url = target.dsn(connect_timeout="0.5").replace(
            f"@{target.host}:{target.port}",
            f"@127.0.0.1:{hung.getsockname()[1]},{target.host}:{target.port}")
        c = drv.connect(url)
        assert c.port == target.port
        c.close()

        async def main():
            conn = await aio.connect(url)
            assert conn.port == target.port and await conn.fetchval("select 1") == 1
            await conn.close()
            with pytest.raises(drv.OperationalError, match="timeout"):
                await aio.connect(url.replace(f",{target.host}:{target.port}", ""))

        asyncio.run(main())
        with pytest.raises(drv.OperationalError):
            drv.connect(url.replace(f",{target.host}:{target.port}", ""))


def test_aio_failover(target):
    async def main():
        url = target.dsn().replace(f"@{target.host}:{target.port}",
                                   f"@{_down()},{target.host}:{target.port}")
        conn = await aio.connect(url)
        assert conn.port == target.port and await conn.fetchval("select 1") == 1
        await conn.close()
        with pytest.raises(drv.OperationalError):
            await aio.connect(target.dsn().replace(f"{target.host}:{target.port}", _down()))

    asyncio.run(main())


# ---------------------------------------------------------------- load balancing


def test_load_balance_picks_least_loaded(target, second):
    a = (target.host, target.port)
    url = target.dsn(load_balance="true").replace(
        f"@{target.host}:{target.port}", f"@{a[0]}:{a[1]},{second[0]}:{second[1]}")
    busy = [drv.connect(target.dsn()) for _ in range(3)]  # load on the first host
    try:
        c = drv.connect(url)
        assert c.port == second[1]
        # Now load the second host more: the next connection goes to the first.
        busy += [drv.connect(host=second[0], port=second[1], user=target.user,
                             password=target.password, dbname="cumulo") for _ in range(6)]
        c2 = drv.connect(url)
        assert c2.port == target.port
        c.close()
        c2.close()
        # A host that is down is skipped.
        down = url.replace(f"{a[0]}:{a[1]},", f"{_down()},")
        c = drv.connect(down)
        assert c.port == second[1]
        c.close()
    finally:
        for b in busy:
            b.close()


def test_aio_load_balance(target, second):
    async def main():
        url = target.dsn(load_balance="true").replace(
            f"@{target.host}:{target.port}",
            f"@{target.host}:{target.port},{second[0]}:{second[1]},{_down()}")
        busy = [await aio.connect(target.dsn()) for _ in range(3)]
        try:
            conn = await aio.connect(url)
            assert conn.port == second[1] and await conn.fetchval("select 1") == 1
            await conn.close()
        finally:
            for b in busy:
                await b.close()

    asyncio.run(main())
