"""The same byte-level scripts against PostgreSQL 15 and against our state machine.

Each script is a list of frontend messages whose SQL both the real server and
the canned engine understand; the replies are compared as `wire.summarize`
lines. This proves the expected shapes in `test_protocol.py` (PortalSuspended
without CommandComplete, skip-until-Sync, ReadyForQuery status, message order)
are PostgreSQL's own and not our misunderstanding.
"""

from __future__ import annotations

import socket
import struct

import pytest

from cumulo.server.pgwire.protocol import Connection
from tests import pg15
from tests.unit.pgwire import wire as W
from tests.unit.pgwire.fake_engine import FakeEngine

pytestmark = pytest.mark.timeout(60)

SERIES = "select generate_series(1, 5) n"

SCRIPTS = {
    "simple select": [W.query("select 1")],
    "empty query": [W.query("")],
    "several statements, error stops the rest": [
        W.query("select 1; select * from missing; select 1")],
    "error in a block gives E, then 25P02": [
        W.query("begin; select * from missing"), W.query("select 1"), W.query("rollback")],
    "syntax error": [W.query("fail")],
    "notice before the tag": [W.query("drop table if exists x")],
    "parameter status after set, before ready": [W.query("set timezone = 'Europe/Madrid'")],
    "parameter status comes at ready, after later statements": [
        W.query("set timezone = 'Europe/Madrid'; select 1")],
    "parameter status in the extended protocol": [
        W.parse("set timezone = 'Asia/Kolkata'"), W.bind(), W.execute(), W.parse("select 1"),
        W.bind(), W.execute(), W.SYNC],
    "extended with inferred and declared types": [
        W.parse("select $1::int4, $2::text"), W.bind((b"7", b"x")), W.describe("P"), W.execute(),
        W.SYNC],
    "describe statement": [
        W.parse("select $1::int8, $2::text", "s1", (0, 25)), W.describe("S", "s1"), W.SYNC],
    "bad parameter: skip until sync": [
        W.parse("select $1::int4"), W.bind((b"abc",)), W.execute(), W.describe("P"), W.SYNC,
        W.query("select 1")],
    "portal suspended, then gone after sync": [
        W.parse(SERIES), W.bind(portal="C_1"), W.describe("P", "C_1"), W.execute("C_1", 2),
        W.SYNC, W.execute("C_1", 2), W.SYNC],
    "portal resumes in a transaction": [
        W.query("begin"), W.parse(SERIES), W.bind(portal="c"), W.execute("c", 2),
        W.execute("c", 3), W.execute("c", 1), W.SYNC, W.query("commit")],
    "last chunk of a portal counts only its own rows": [
        W.query("begin"), W.parse(SERIES), W.bind(portal="c"), W.execute("c", 2),
        W.execute("c", 2), W.execute("c", 2), W.SYNC, W.query("commit")],
    "binary results": [
        W.parse("select $1::int4, $2::text"),
        W.bind((struct.pack("!i", -5), b"y"), pfmts=(1, 0), rfmts=(1,)), W.describe("P"),
        W.execute(), W.SYNC],
    "unnamed statement survives sync": [
        W.parse("select $1::int4"), W.FLUSH, W.SYNC, W.describe("S"), W.FLUSH, W.SYNC,
        W.bind((b"3",)), W.FLUSH, W.execute(), W.FLUSH, W.SYNC],
    "named statement: duplicate, close, missing": [
        W.parse("select 1", "P_0"), W.SYNC, W.parse("select 1", "P_0"), W.SYNC,
        W.close("S", "P_0"), W.SYNC, W.bind(stmt="P_0"), W.SYNC],
    "wrong parameter count": [W.parse("select $1::int4"), W.bind(()), W.SYNC],
    "no data for begin": [W.parse("begin"), W.bind(), W.describe("P"), W.execute(), W.SYNC,
                          W.query("rollback")],
    "empty extended statement": [W.parse(""), W.bind(), W.execute(), W.SYNC],
    "missing portal": [W.execute("nope"), W.SYNC],
    "MOVE on a Bind portal (asyncpg's Cursor.forward)": [
        W.query("begin"), W.parse(SERIES), W.bind(portal="c"), W.execute("c", 1), W.SYNC,
        W.query('MOVE FORWARD 2 "c"'), W.execute("c", 1), W.SYNC, W.query("move all in c"),
        W.query("commit")],
}


def _sync_count(msgs: list[bytes]) -> int:
    return sum(1 for m in msgs if m[:1] in (b"S", b"Q"))


class PGClient:
    """A raw socket to PostgreSQL that reads replies up to the n-th ReadyForQuery."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(W.startup("postgres", "postgres"))
        self._read_ready(1)

    def _read_ready(self, n: int) -> bytes:
        data = b""
        while True:
            chunk = self.sock.recv(65536)
            assert chunk, "PostgreSQL closed the connection"
            data += chunk
            if sum(1 for kind, _ in _safe_messages(data) if kind == "Z") >= n:
                return data

    def run(self, msgs: list[bytes]) -> list[str]:
        self.sock.sendall(b"".join(msgs))
        return W.summarize(self._read_ready(_sync_count(msgs)))


def _safe_messages(data: bytes) -> list[tuple[str, bytes]]:
    out, pos = [], 0
    while pos + 5 <= len(data):
        (n,) = struct.unpack_from("!i", data, pos + 1)
        if pos + 1 + n > len(data):
            break
        out.append((chr(data[pos]), data[pos + 5 : pos + 1 + n]))
        pos += 1 + n
    return out


@pytest.fixture(scope="module")
def postgres():
    if not pg15.available():
        pytest.fail("PostgreSQL 15 binaries are required for the oracle tests")
    server = pg15.PG15().start()
    yield server
    server.stop()


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_script_matches_postgresql(postgres, name):
    msgs = SCRIPTS[name]
    client = PGClient(postgres.port)
    try:
        want = client.run(msgs)
    finally:
        client.sock.close()
    conn = Connection(FakeEngine())
    conn.feed(W.startup())
    got = W.summarize(conn.feed(b"".join(msgs)))
    assert got == want
