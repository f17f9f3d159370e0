"""`Connection.feed`'s lane (a prepared round trip straight to `_bind_run`) is taken only while
nothing rules it out, and that is remembered between feeds (`Connection._lane`): each test
opens the lane with a prepared round trip, then makes one of the things that rule it out
happen (an error before Sync, a client_encoding to convert, COPY FROM STDIN), and checks the
next prepared round trip in a new feed gets the reply the message-by-message path gives.
The engine is the real SQL engine over an in-memory transaction manager."""

from __future__ import annotations

import struct

import pytest

from cumulo.server.pgwire.protocol import Connection
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded
from tests.unit.pgwire import wire as W

INT4 = 23
ONE = struct.pack("!i", 1)


@pytest.fixture
def conn():
    engine = SQLEngine(open_embedded(None, gc_interval=None))
    c = Connection(engine)
    assert W.summarize(c.feed(W.startup("cumulo", "cumulo")))[-1] == "Z I"
    run(c, W.query("CREATE TABLE acc (aid int PRIMARY KEY, note text);"
                   "INSERT INTO acc VALUES (1, 'café')"))
    assert run(c, W.parse("SELECT note FROM acc WHERE aid = $1", "s1", (INT4,)),
               W.SYNC) == ["1", "Z I"]
    assert lane(c) == ["2", "T note:25:0", "D café", "C SELECT 1", "Z I"]
    yield c
    c.close()
    engine.close()


def run(conn: Connection, *msgs: bytes) -> list[str]:
    return W.summarize(conn.feed(b"".join(msgs)))


def lane(conn: Connection, stmt: str = "s1") -> list[str]:
    """One prepared round trip in one feed, as pgbench -M prepared sends it (s1: aid 1)."""
    params = (ONE,) if stmt == "s1" else ()
    return run(conn, W.bind(params, stmt=stmt, pfmts=(1,) * len(params)), W.describe(),
               W.execute(), W.SYNC)


def test_an_error_before_sync_skips_the_next_round_trip_until_its_sync(conn):
    out = conn.feed(W.bind((b"\0\0\0\1\1",), stmt="s1", pfmts=(1,)) + W.execute())
    assert W.error_fields(out)["C"] == "22P03"
    assert lane(conn) == ["Z I"]  # as PostgreSQL: Bind..Execute discarded, Sync answered
    assert lane(conn) == ["2", "T note:25:0", "D café", "C SELECT 1", "Z I"]


def test_a_client_encoding_set_by_a_round_trip_converts_the_next_ones(conn):
    assert run(conn, W.parse("SET client_encoding TO 'LATIN1'", "enc"), W.SYNC) == ["1", "Z I"]
    assert run(conn, W.parse("SELECT aid, note FROM acc WHERE note = $1", "by_note"),
               W.SYNC) == ["1", "Z I"]
    out = lane(conn, "enc")
    assert out[-1] == "Z I" and "C SET" in out
    # NB: a Latin-1 parameter in, a Latin-1 row out
    raw = conn.feed(W.bind((b"caf\xe9",), stmt="by_note") + W.describe() + W.execute() + W.SYNC)
    rows = [payload for kind, payload in W.messages(raw) if kind == "D"]
    assert len(rows) == 1 and rows[0].endswith(b"caf\xe9")


def test_copy_from_stdin_begun_by_a_round_trip_refuses_the_next_bind(conn):
    assert run(conn, W.parse("COPY acc FROM STDIN", "cp"), W.SYNC) == ["1", "Z I"]
    assert lane(conn, "cp") == ["2", "n", "G 0 2"]  # the Sync waits for the COPY's end
    out = conn.feed(W.bind((ONE,), stmt="s1", pfmts=(1,)) + W.describe() + W.execute() + W.SYNC)
    assert W.summarize(out) == ["E ERROR 08P01 unexpected message type 0x42 during COPY from stdin",
                                "Z I"]  # the Bind did not run
    assert W.error_fields(out)["C"] == "08P01"
