"""Raw-socket scripts against `cumulo serve` and PostgreSQL 15: the replies must be the same.

Each script is sent after a normal startup, followed by Terminate; the replies up
to the server closing the connection are compared, as `wire.summarize` lines,
with what a real PostgreSQL 15 answers to the same bytes.

Most scripts are malformed messages. A malformed message ends the statement
(ERROR 08P01, then skip until Sync) or the connection (FATAL 08P01, or a silent
hang-up when the framing itself is broken), never the server: after every
script a fresh psycopg connection must still get an answer.
"""

from __future__ import annotations

import socket
import struct

import psycopg
import pytest

from tests import pg15
from tests.unit.pgwire import wire as W

pytestmark = pytest.mark.timeout(120)

I16, I32 = struct.Struct("!h").pack, struct.Struct("!i").pack

SCRIPTS: dict[str, list[bytes]] = {
    "unknown message type": [W.msg(b"y"), W.query("select 1")],
    "length below four": [b"Q" + I32(2) + b"select 1\0"],
    "length beyond the 1 GB limit": [b"Q" + I32(0x7FFFFFF0) + b"select 1\0"],
    "query without its terminator": [W.msg(b"Q", b"select 1"), W.query("select 2")],
    "query with bytes after the terminator": [W.msg(b"Q", b"select 1\0junk"), W.query("select 2")],
    "query typing -2147483648 as int4": [
        W.query("select pg_typeof(-2147483648), pg_typeof(1 -2147483648)"),
        W.query("select 9")],
    "query with a parameter nothing binds": [W.query("select 1 + $1"), W.query("select 7")],
    "query text an unnamed statement prepared first": [
        W.parse("select $1::int4"), W.SYNC, W.query("select $1::int4"), W.query("select 8")],
    "bind supplies too many parameters": [
        W.parse("select $1::int4"), W.bind((b"1", b"2")), W.execute(), W.SYNC,
        W.query("select 3")],
    "bind supplies too few parameters": [
        W.parse("select $1::int4, $2::text"), W.bind((b"1",)), W.execute(), W.SYNC,
        W.query("select 3")],
    "bind truncated inside a value": [
        W.parse("select $1::text"),
        W.msg(b"B", W.cs("") + W.cs("") + I16(0) + I16(1) + I32(10) + b"ab"), W.execute(),
        W.SYNC, W.query("select 4")],
    "bind with a negative value length": [
        W.parse("select $1::text"),
        W.msg(b"B", W.cs("") + W.cs("") + I16(0) + I16(1) + I32(-7) + I16(0)), W.execute(),
        W.SYNC, W.query("select 4")],
    "bind with an unknown format code": [
        W.parse("select $1::int4"), W.bind((b"1",), pfmts=(7,)), W.execute(), W.SYNC,
        W.query("select 5")],
    "bind with more parameter formats than parameters": [
        W.parse("select $1::int4"), W.bind((b"1",), pfmts=(0, 0, 0)), W.execute(), W.SYNC,
        W.query("select 5")],
    "binary parameter of the wrong size": [
        W.parse("select $1::int4"), W.bind((b"\x00\x01",), pfmts=(1,)), W.execute(), W.SYNC,
        W.query("select 5")],
    "parse announcing more parameter types than it carries": [
        W.msg(b"P", W.cs("") + W.cs("select 1") + I16(5)), W.SYNC, W.query("select 6")],
    "parse with a negative parameter count": [
        W.msg(b"P", W.cs("") + W.cs("select 1") + I16(-1)), W.SYNC, W.query("select 6")],
    "execute missing its row limit": [
        W.parse("select 1"), W.bind(), W.msg(b"E", W.cs("")), W.SYNC, W.query("select 7")],
    "describe of an unknown kind": [W.msg(b"D", b"Z" + W.cs("")), W.SYNC, W.query("select 8")],
    "close of an unknown kind": [W.msg(b"C", b"Z" + W.cs("")), W.SYNC, W.query("select 8")],
    "copy data outside copy is ignored": [W.copy_data(b"1\t2\n"), W.COPY_DONE,
                                          W.query("select 9")],
    "password message after startup": [W.password("secret"), W.query("select 10")],
    "startup message again": [W.startup("cumulo"), W.query("select 11")],
}

# FunctionCall ('F'), as libpq's lo_* and pgJDBC's Fastpath send it: by pg_proc OID, arguments
# in text or binary, NULLs, errors (then ReadyForQuery, like a simple query), in a failed block.
_LO = (W.query("begin"), W.function_call(715, (b"90000",)),  # lo_create('90000')
       W.function_call(952, (I32(90000), I32(0x60000)), (1,), 1),  # lo_open(90000, RW) binary
       W.function_call(955, (I32(0), b"abc\0def"), (1, 1), 1))  # lowrite(0, bytes)
SCRIPTS.update({
    "function calls of the large-object functions": [
        *_LO, W.function_call(956, (b"1", b"0", b"0")),  # lo_lseek(0, 0, SEEK_SET), text
        W.function_call(954, (b"0", b"100")), W.function_call(954, (I32(0), I32(5)), (1,), 1),
        W.function_call(958, (b"0",), (), 1), W.function_call(953, (b"0",)),
        W.query("rollback")],
    "function call of an ordinary function": [W.function_call(1397, (b"-5",))],  # abs(int4)
    "function call with a NULL argument of a strict function": [W.function_call(871, (None,))],
    "function call of an unknown function OID": [W.function_call(4000000000, ()),
                                                  W.query("select 1")],
    "function call with too few arguments": [W.function_call(952, (b"1",)), W.query("select 2")],
    "function call with a bad format code": [W.function_call(871, (b"x",), (7,)),
                                             W.query("select 3")],
    "function call of an invalid descriptor": [W.function_call(954, (b"7", b"1"))],
    "function call in a failed block": [
        W.query("begin"), W.query("select 1/0"), W.function_call(871, (b"x",)),
        W.query("rollback")],
    "function call truncated inside an argument": [
        W.msg(b"F", I32(871) + I16(0) + I16(1) + I32(10) + b"ab"), W.query("select 4")],
})

# Well-formed flows whose exact replies are easy to get wrong.
SCRIPTS.update({
    "a named statement re-planned after DDL must keep its result type": [
        W.query("drop table if exists wire_rp; create table wire_rp (v date); "
                "insert into wire_rp values ('2024-01-02')"),
        W.parse("select v from wire_rp", "s1"), W.SYNC,
        W.bind(stmt="s1"), W.execute(), W.SYNC,
        W.query("drop table wire_rp; create table wire_rp (v timestamp); "
                "insert into wire_rp values ('2024-01-02 03:04:05')"),
        W.bind(stmt="s1"), W.execute(), W.SYNC,
        W.query("drop table wire_rp; create table wire_rp (v date); "
                "insert into wire_rp values ('2024-01-03')"),
        W.bind(stmt="s1"), W.execute(), W.SYNC,
        W.query("drop table wire_rp")],
    "portal suspended across syncs in a transaction": [
        W.query("begin"), W.parse("select generate_series(1, 5) n"), W.bind(portal="c"),
        W.execute("c", 2), W.SYNC, W.execute("c", 2), W.SYNC, W.execute("c", 0), W.SYNC,
        W.query("commit")],
    "error inside a pipeline skips to sync and rolls back the implicit transaction": [
        W.query("drop table if exists wire_pipe; create table wire_pipe (id int primary key)"),
        W.parse("insert into wire_pipe values ($1)", "ins"), W.SYNC,
        W.bind((b"1",), stmt="ins"), W.execute(), W.bind((b"1",), stmt="ins"), W.execute(),
        W.bind((b"2",), stmt="ins"), W.execute(), W.SYNC,
        W.query("select count(*) from wire_pipe; drop table wire_pipe")],
    "flush sends what is ready without ending the transaction": [
        W.parse("select 1"), W.bind(), W.execute(), W.FLUSH, W.SYNC],
    # NB: PostgreSQL refuses Parse, Bind and a Describe with a row shape in a failed block
    # (25P02), not the Execute: only a syntax error comes first, and only COMMIT, ROLLBACK
    # and ROLLBACK TO (and the empty statement, for Parse) get through
    "parse, bind and describe in a failed block get 25P02": [
        W.parse("select $1::int4", "fb1"), W.SYNC, W.query("begin"), W.parse("select 1"),
        W.bind(portal="fbp"), W.SYNC, W.query("select * from missing_wire_t"),
        W.parse("select 1"), W.bind(), W.execute(), W.SYNC,
        W.parse("select * from missing_wire_u"), W.SYNC, W.parse("selec 1"), W.SYNC,
        W.parse(""), W.bind(), W.execute(), W.SYNC, W.parse("commit", "fbc"), W.SYNC,
        W.parse("rollback to savepoint x"), W.SYNC, W.parse("savepoint y"), W.SYNC,
        W.describe("S", "fb1"), W.SYNC, W.describe("P", "fbp"), W.SYNC,
        W.bind((b"1",), stmt="fb1"), W.execute(), W.SYNC,
        W.bind((b"1", b"2"), stmt="fb1"), W.execute(), W.SYNC,
        W.parse("rollback"), W.bind(), W.execute(), W.SYNC,
        W.bind((b"2",), stmt="fb1"), W.describe("P"), W.execute(), W.SYNC],
    # NB: the parameter count is unsigned on the wire: up to 65535 (pg8000's own suite)
    "describe a statement of 40000 parameters": [
        W.parse("select $1::int4 + $40000::int4", "many", (23,) * 40000), W.describe("S", "many"),
        W.SYNC],
})


def _frames(data: bytes) -> bytes:
    """Cuts off a partial message at the end (the server closed mid-write)."""
    pos = 0
    while pos + 5 <= len(data):
        (n,) = struct.unpack_from("!i", data, pos + 1)
        if pos + 1 + n > len(data):
            break
        pos += 1 + n
    return data[:pos]


def _read_until_ready(sock: socket.socket) -> bytes:
    data = b""
    while not any(kind == "Z" for kind, _ in W.messages(_frames(data))):
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection during startup"
        data += chunk
    return data


def exchange(port: int, user: str, msgs: list[bytes]) -> list[str]:
    """Starts up, sends msgs and Terminate, and summarises the replies until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(W.startup(user, user))
        _read_until_ready(sock)
        try:
            sock.sendall(b"".join(msgs) + W.TERMINATE)
        except OSError:
            pass  # the server may close before it has read everything (a FATAL error)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    return W.summarize(_frames(data))


def raw(port: int, payload: bytes) -> list[str]:
    """Sends bytes on a fresh connection (no startup) and summarises the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(payload)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    return W.summarize(_frames(data)) if len(data) != 1 else [f"ssl {data.decode()}"]


@pytest.fixture(scope="module")
def postgres():
    if not pg15.available():
        pytest.fail("PostgreSQL 15 binaries are required for the oracle tests")
    server = pg15.PG15().start()
    yield server
    server.stop()


def assert_still_serving(server) -> None:
    with psycopg.connect(server.dsn(), autocommit=True, connect_timeout=10) as conn:
        assert conn.execute("select 'alive'").fetchone() == ("alive",)


XFAIL: dict[str, str] = {}  # name -> reason, for scripts that fail because of another layer


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=XFAIL[n])) if n in XFAIL else n
    for n in SCRIPTS])
def test_script_matches_postgresql(postgres, cumulo_server, name):
    want = exchange(postgres.port, "postgres", SCRIPTS[name])
    got = exchange(cumulo_server.port, "cumulo", SCRIPTS[name])
    assert got == want
    assert_still_serving(cumulo_server)


PRE_STARTUP = {
    "http request": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    "tiny startup length": I32(4) + b"\0\0\0\0",
    "protocol 2.0": I32(9) + I32(2 << 16) + b"\0",
    "protocol 4.0": I32(9) + I32(4 << 16) + b"\0",
    "startup without a user": I32(9) + I32(3 << 16) + b"\0",
    "cancel request of the wrong length": I32(20) + I32(80877102) + b"\0" * 12,
    "cancel request for no backend": W.cancel_request(1234, 5678),
}


@pytest.mark.parametrize("name", list(PRE_STARTUP))
def test_malformed_startup_matches_postgresql(postgres, cumulo_server, name):
    want = raw(postgres.port, PRE_STARTUP[name])
    got = raw(cumulo_server.port, PRE_STARTUP[name])
    assert got == want
    assert_still_serving(cumulo_server)


def test_connection_dropped_mid_message(cumulo_server):
    for partial in (W.query("select 1")[:7], W.parse("select 1")[:3], b"Q"):
        with socket.create_connection(("127.0.0.1", cumulo_server.port), timeout=20) as sock:
            sock.sendall(W.startup("cumulo", "cumulo"))
            _read_until_ready(sock)
            sock.sendall(partial)
    assert_still_serving(cumulo_server)


def test_random_garbage_does_not_take_the_server_down(cumulo_server):
    import random

    rng = random.Random(20261123)
    for _ in range(30):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        kind = rng.choice(b"QPBDECSHXdcfpy")
        body = W.msg(bytes([kind]), junk)
        with socket.create_connection(("127.0.0.1", cumulo_server.port), timeout=20) as sock:
            sock.sendall(W.startup("cumulo", "cumulo"))
            _read_until_ready(sock)
            sock.sendall(body + W.SYNC + W.query("select 1") + W.TERMINATE)
            sock.settimeout(20)
            try:
                while sock.recv(65536):
                    pass
            except ConnectionResetError:
                pass
    assert_still_serving(cumulo_server)
