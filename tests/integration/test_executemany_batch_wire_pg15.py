"""Held Executes on the wire: each pipelined Execute's own reply, against PostgreSQL 15.

pgwire holds a run of Executes of one prepared INSERT and answers them after
one bulk write (`server/pgwire/insertbatch.py`). The client must still read,
per Execute, what the row path sends: its CommandComplete, or its error, and
after an error nothing but "pipeline aborted" until Sync. These tests drive
libpq's pipeline mode directly (psycopg's `pq` layer), so every queued command's
result is seen on its own, and mix the INSERTs with other statements, Syncs,
Flush requests and portal Describes in one pipeline. libpq forgives stray
replies, so the same kind of pipelines are also sent as raw bytes, with faults
inside the run (a Bind with a wrong parameter count, a Parse that fails), and
every backend message is compared, on both front ends.
"""

from __future__ import annotations

import socket
from typing import Any

import psycopg
import pytest
from psycopg import pq

from tests.server_process import on_frontend
from tests.unit.pgwire import wire

INSERT = b"INSERT INTO w VALUES ($1, $2)"
TABLE = "CREATE TABLE w (id int PRIMARY KEY, v text CHECK (v <> 'bad'))"


def _row(i: int, v: str | None = None) -> tuple[str, tuple[bytes | None, ...]]:
    return ("ins", (str(i).encode(), (v if v is not None else f"v{i}").encode()))


def _results(pgc: Any, syncs: int) -> list[tuple[Any, ...]]:
    """Reads every result up to the `syncs`-th Sync: (status, tag, sqlstate, message, detail,
    rows) each, and ("sync",) for each Sync."""
    out: list[tuple[Any, ...]] = []
    while True:
        res = pgc.get_result()
        if res is None:
            continue
        status = pq.ExecStatus(res.status).name
        if status == "PIPELINE_SYNC":
            out.append(("sync",))
            if len([r for r in out if r == ("sync",)]) == syncs:
                return out
            continue
        f = res.error_field
        rows = [tuple(res.get_value(r, c) for c in range(res.nfields))
                for r in range(res.ntuples)]
        out.append((status, res.command_status, f(pq.DiagnosticField.SQLSTATE),
                    f(pq.DiagnosticField.MESSAGE_PRIMARY), f(pq.DiagnosticField.MESSAGE_DETAIL),
                    rows))


def _pipeline(dsn: str, steps: list[tuple[str, Any]], tx: bool) -> tuple[list, list]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS w")
        conn.execute(TABLE)
        conn.execute("INSERT INTO w VALUES (1000, 'stored')")
    with psycopg.connect(dsn, autocommit=True) as conn:
        if tx:
            conn.execute("BEGIN")
        pgc = conn.pgconn
        pgc.enter_pipeline_mode()
        pgc.send_prepare(b"ins", INSERT, None)
        syncs = 0
        for kind, arg in steps:
            if kind == "ins":
                pgc.send_query_prepared(b"ins", arg)
            elif kind == "sql":
                pgc.send_query_params(arg, None)
            elif kind == "describe":
                pgc.send_describe_portal(b"")
            elif kind == "flush":
                pgc.send_flush_request()
            elif kind == "sync":
                pgc.pipeline_sync()
                syncs += 1
        pgc.pipeline_sync()
        syncs += 1
        while pgc.flush():
            pass
        got = _results(pgc, syncs)
        pgc.exit_pipeline_mode()
        if tx:
            conn.execute("COMMIT" if conn.info.transaction_status == 2 else "ROLLBACK")
        stored = conn.execute("SELECT * FROM w ORDER BY id").fetchall()
    return got, stored


def _rows(a: int, b: int) -> list[tuple[str, Any]]:
    return [_row(i) for i in range(a, b)]


SCRIPTS: dict[str, list[tuple[str, Any]]] = {
    "one run": _rows(1, 200),
    "duplicate mid run": _rows(1, 120) + [_row(7)] + _rows(120, 200),
    "stored duplicate then more runs": _rows(1, 50) + [_row(1000)] + _rows(50, 80) + [
        ("sync", None)] + _rows(50, 90),
    "check fails, runs split by a select": _rows(1, 60) + [
        ("sql", b"SELECT count(*) FROM w")] + _rows(60, 90) + [_row(90, "bad")] + _rows(91, 99),
    "describe and flush between": [x for i in range(1, 80) for x in (
        [_row(i), ("describe", None)] + ([("flush", None)] if i % 25 == 0 else []))],
    "failure on the first and the last": [_row(1000)] + _rows(1, 40) + [("sync", None)] +
    _rows(40, 70) + [_row(69)],
    "several syncs": [x for k in range(5) for x in _rows(k * 20 + 1, k * 20 + 21) + [
        ("sync", None)]],
    "other statements around": [("sql", b"SELECT 1")] + _rows(1, 30) + [
        ("sql", b"INSERT INTO w VALUES (500, 'x')")] + _rows(30, 60) + [
        ("sql", b"SELECT count(*) FROM w")],
}


@pytest.fixture(scope="module", params=["threads", "loop"])
def cumulo(request, cumulo_server):
    with on_frontend(request.param, cumulo_server) as server:
        yield server


@pytest.fixture(scope="module")
def dsns(cumulo, pg15):
    return cumulo.dsn(), pg15.dsn()


@pytest.mark.parametrize("tx", [False, True], ids=["implicit", "begin"])
@pytest.mark.parametrize("script", list(SCRIPTS))
def test_pipeline_replies_match_postgresql(script, tx, dsns):
    ours, theirs = (_pipeline(dsn, SCRIPTS[script], tx) for dsn in dsns)
    assert len(ours[0]) == len(theirs[0])
    for i, (a, b) in enumerate(zip(ours[0], theirs[0], strict=True)):
        assert a == b, f"result {i}"
    assert ours[1] == theirs[1]


def _bind(i: int, v: str | None = None) -> bytes:
    return wire.bind((str(i).encode(), (v if v is not None else f"v{i}").encode()), stmt="ins")


def _runs(a: int, b: int, describe: bool = False) -> bytes:
    one = wire.describe("P") if describe else b""
    return b"".join(_bind(i) + one + wire.execute() for i in range(a, b))


RAW: dict[str, bytes] = {
    "run, sync": _runs(1, 100) + wire.SYNC,
    "run with describes, a flush inside": _runs(1, 40, True) + wire.FLUSH + _runs(40, 80, True)
    + wire.SYNC,
    "duplicate inside, then more": _runs(1, 50) + _bind(3) + wire.execute() + _runs(50, 90)
    + wire.SYNC + _runs(50, 60) + wire.SYNC,
    "a bad bind inside": _runs(1, 30) + wire.bind((b"1",), stmt="ins") + wire.execute()
    + _runs(30, 40) + wire.SYNC + _runs(30, 40) + wire.SYNC,
    "a failing parse inside": _runs(1, 30) + wire.parse("SELEC nothing") + _runs(30, 40)
    + wire.SYNC,
    "a failing row before a bad bind": _runs(1, 30) + _bind(5) + wire.execute() + _runs(30, 35)
    + wire.bind((b"1",), stmt="ins") + wire.execute() + wire.SYNC,
    "close, select and re-execute inside": _runs(1, 20) + wire.close("P") + _runs(20, 30)
    + wire.execute() + wire.parse("SELECT count(*) FROM w") + wire.bind() + wire.execute()
    + _runs(30, 40) + wire.SYNC,
    "a simple query inside": _runs(1, 20) + wire.query("SELECT count(*) FROM w") + _runs(20, 30)
    + wire.SYNC,
    "begin, failure, rollback": wire.query("BEGIN") + _runs(1, 30) + _bind(90, "bad")
    + wire.execute() + _runs(30, 40) + wire.SYNC + wire.query("ROLLBACK") + _runs(1, 10)
    + wire.SYNC,
}


def _raw(host: str, port: int, user: str, data: bytes) -> tuple[list[str], list]:
    s = socket.create_connection((host, port), timeout=30)
    try:
        s.sendall(wire.startup(user, "cumulo"))
        buf = b""
        while not buf.endswith(wire.msg(b"Z", b"I")):
            chunk = s.recv(65536)
            assert chunk, "closed during startup"
            buf += chunk
        data = wire.parse(INSERT.decode(), "ins") + data
        want = data.count(wire.SYNC) + sum(1 for k, _ in wire.messages(data) if k == "Q")
        s.sendall(data)
        buf = b""
        while sum(1 for k, _ in wire.messages(buf) if k == "Z") < want:
            chunk = s.recv(65536)
            assert chunk, "closed"
            buf += chunk
        return wire.summarize(buf), []
    finally:
        s.close()


@pytest.mark.parametrize("script", list(RAW))
def test_raw_pipeline_messages_match_postgresql(script, cumulo, pg15):
    got = []
    for dsn, host, port, user in ((cumulo.dsn(), cumulo.host, cumulo.port, "cumulo"),
                                  (pg15.dsn(), "127.0.0.1", pg15.port, "postgres")):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS w")
            conn.execute(TABLE)
        messages, _ = _raw(host, port, user, RAW[script])
        with psycopg.connect(dsn, autocommit=True) as conn:
            got.append((messages, conn.execute("SELECT * FROM w ORDER BY id").fetchall()))
    ours, theirs = got
    assert len(ours[0]) == len(theirs[0]), (ours[0], theirs[0])
    for i, (a, b) in enumerate(zip(ours[0], theirs[0], strict=True)):
        assert a == b, f"message {i}"
    assert ours[1] == theirs[1]
