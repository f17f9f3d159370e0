"""What a client observes over a Unix-domain socket, against PostgreSQL 15.

Both servers listen on a socket directory of their own and on TCP with TLS. Over the
socket a session has no client address (inet_client_addr(), inet_client_port(),
inet_server_addr(), inet_server_port() NULL; pg_stat_activity's client_addr NULL and
client_port -1), and an SSLRequest is answered `N` although the server has a
certificate; over TCP the same request is answered `S` (so the test can tell them apart).
The client authentication file's `local` lines are the socket's: a `reject` there refuses
the role over the socket with the same SQLSTATE and message, and not over TCP.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time

import asyncpg
import psycopg
import pytest

from tests.pg15 import PASSWORD
from tests.server_process import CumuloServer

QUERY = ("select inet_client_addr()::text, inet_client_port(), inet_server_addr()::text, "
         "inet_server_port(), client_addr::text, client_port, client_hostname "
         "from pg_stat_activity where pid = pg_backend_pid()")
SSL_REQUEST = struct.pack("!ii", 8, 80877103)
REJECT = "local all unixrej reject\n"
CUMULO_HBA = REJECT + "local all all trust\nhost all all all trust\n"


@pytest.fixture(scope="module")
def cumulo_tls():
    directory = tempfile.mkdtemp(prefix="cumulo-sock-")
    server = CumuloServer()
    os.makedirs(server.data_dir, exist_ok=True)
    crt, key = (os.path.join(server.data_dir, n) for n in ("server.crt", "server.key"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-keyout", key, "-out", crt],
                   capture_output=True, check=True)
    server.extra_args = ["--ssl-cert", crt, "--ssl-key", key,
                         "-c", f"unix_socket_directories={directory}"]
    with open(os.path.join(server.data_dir, "cumulo_hba.conf"), "w") as f:
        f.write(CUMULO_HBA)
    server.start()
    try:
        yield server, directory
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


def _ssl_answer(sock: socket.socket) -> bytes:
    with sock:
        sock.settimeout(60)
        sock.sendall(SSL_REQUEST)
        return sock.recv(1)


def _unix(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    return sock


def test_session_over_the_socket_has_no_address(cumulo_tls, pg15):
    server, directory = cumulo_tls
    rows = []
    for host, port in ((pg15.socket_dir, pg15.port), (directory, server.port)):
        with psycopg.connect(host=host, port=port, user="cumulo", dbname="cumulo",
                             autocommit=True) as conn:
            rows.append(conn.execute(QUERY).fetchone())
    assert rows[0] == (None, None, None, None, None, -1, None)
    assert rows[1] == rows[0]


def test_ssl_request_refused_over_the_socket_accepted_over_tcp(cumulo_tls, pg15):
    server, directory = cumulo_tls
    answers = {}
    for name, sock_dir, port in (("pg", pg15.socket_dir, pg15.port),
                                 ("cumulo", directory, server.port)):
        answers[name] = (
            _ssl_answer(_unix(os.path.join(sock_dir, f".s.PGSQL.{port}"))),
            _ssl_answer(socket.create_connection(("127.0.0.1", port), 60)),
        )
    assert answers["pg"] == (b"N", b"S")
    assert answers["cumulo"] == answers["pg"]


def _login(host: str, port: int, user: str, password: str | None = None) -> tuple[str, str]:
    """('ok', '') or the refusal's (SQLSTATE, message), through asyncpg."""

    async def attempt() -> tuple[str, str]:
        try:
            conn = await asyncpg.connect(host=host, port=port, user=user, database="cumulo",
                                         password=password, ssl=False)
        except asyncpg.PostgresError as e:
            return e.sqlstate, str(e)
        await conn.close()
        return "ok", ""

    return asyncio.run(attempt())


def test_local_hba_lines_are_the_sockets(cumulo_tls, pg15):
    server, directory = cumulo_tls
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute(f"create role unixrej login password '{PASSWORD}'")
    pg15.psql(f"create role unixrej login password '{PASSWORD}'")
    hba = os.path.join(pg15.data_dir, "pg_hba.conf")
    with open(hba) as f:
        rules = f.read()
    with open(hba, "w") as f:
        f.write(REJECT + rules)
    pg15.psql("select pg_reload_conf()")
    deadline = time.monotonic() + 60  # NB: the postmaster rereads the file on its SIGHUP
    while _login(pg15.socket_dir, pg15.port, "unixrej")[0] == "ok":
        assert time.monotonic() < deadline, "PostgreSQL did not reload pg_hba.conf"
        time.sleep(0.1)
    pg = _login(pg15.socket_dir, pg15.port, "unixrej")
    assert pg == ("28000", 'pg_hba.conf rejects connection for host "[local]", user "unixrej", '
                  'database "cumulo", no encryption')
    assert _login(directory, server.port, "unixrej") == pg
    assert _login("127.0.0.1", pg15.port, "unixrej", PASSWORD) == ("ok", "")
    assert _login("127.0.0.1", server.port, "unixrej", PASSWORD) == ("ok", "")
