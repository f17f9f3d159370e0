"""Session and portal details a client's own test suite checks, against PostgreSQL 15 (issue 16).

- A named (server-side) cursor over an empty query sends `DECLARE "c" CURSOR FOR `:
  PostgreSQL answers 42601 "syntax error at end of input", not 0A000.
- Close('P', name) of a DECLAREd cursor closes it (libpq's PQclosePortal): portals and SQL
  cursors share one namespace, so a Describe of it fails afterwards.
- READ UNCOMMITTED runs as READ COMMITTED but `transaction_isolation` reports what was set.
- psql in KOI8R (the other encodings through libpq are in test_client_encoding_pg15).
- CopyFail: 57014 with PostgreSQL's CONTEXT, the line being read (lines still buffered and
  a partial one count; a csv header too; binary counts tuples).

Each check runs on both servers through psycopg and a second client (asyncpg or psql), and
compares what the client sees.
"""

from __future__ import annotations

import asyncio
import os
import subprocess

import asyncpg
import psycopg
import pytest
from psycopg import pq


def _error(fn) -> tuple:  # type: ignore[no-untyped-def]
    try:
        fn()
    except psycopg.Error as e:
        return (e.sqlstate, e.diag.message_primary, e.diag.statement_position)
    return ("no error",)


def _empty_named_cursor(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn) as c:
        cur = c.cursor("c")
        out.append(_error(lambda: cur.execute("")))
        c.rollback()
        out.append(_error(lambda: c.execute("declare d cursor for")))
    return out


async def _asyncpg_empty_declare(dsn: str) -> tuple:
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            await conn.execute('declare "c" cursor for ')
    except asyncpg.PostgresError as e:
        return (e.sqlstate, str(e), e.position)
    finally:
        await conn.close()
    return ("no error",)


def test_named_cursor_of_an_empty_query_is_a_syntax_error(pg15, cumulo_server):
    want = _empty_named_cursor(pg15.dsn())
    assert want[0][0] == "42601"
    assert _empty_named_cursor(cumulo_server.dsn()) == want
    want = asyncio.run(_asyncpg_empty_declare(pg15.dsn()))
    assert asyncio.run(_asyncpg_empty_declare(cumulo_server.dsn())) == want


def _close_declared(dsn: str) -> list:
    pgc = pq.PGconn.connect(dsn.encode())
    try:
        pgc.exec_(b"begin; declare cur cursor for select * from generate_series(1, 3) foo")
        before = pgc.describe_portal(b"cur")
        closed = pgc.close_portal(b"cur")
        after = pgc.describe_portal(b"cur")
        fetch = pgc.exec_(b"fetch 1 from cur")
        return [before.status, before.fname(0), closed.status, after.status,
                after.error_field(pq.DiagnosticField.SQLSTATE), fetch.status]
    finally:
        pgc.finish()


@pytest.mark.skipif(pq.version() < 170000, reason="PQclosePortal needs libpq 17")
def test_close_portal_closes_a_declared_cursor(pg15, cumulo_server):
    want = _close_declared(pg15.dsn())
    assert want[3] == pq.ExecStatus.FATAL_ERROR
    assert _close_declared(cumulo_server.dsn()) == want


def _isolation_psycopg(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn) as c:
        c.isolation_level = psycopg.IsolationLevel.READ_UNCOMMITTED
        out.append(c.execute("select current_setting('transaction_isolation')").fetchone())
        out.append(c.execute("show transaction_isolation").fetchone())
        c.rollback()
        c.autocommit = True
        c.execute("begin isolation level read uncommitted")
        out.append(c.execute("select current_setting('transaction_isolation')").fetchone())
        c.execute("commit")
    return out


async def _isolation_asyncpg(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction(isolation="read_uncommitted"):
            return [await conn.fetchval("select current_setting('transaction_isolation')")]
    finally:
        await conn.close()


def test_read_uncommitted_is_reported_as_set(pg15, cumulo_server):
    want = _isolation_psycopg(pg15.dsn())
    assert want[0] == ("read uncommitted",)
    assert _isolation_psycopg(cumulo_server.dsn()) == want
    want = asyncio.run(_isolation_asyncpg(pg15.dsn()))
    assert asyncio.run(_isolation_asyncpg(cumulo_server.dsn())) == want


def _psql_koi8(dsn: str) -> tuple[bytes, bytes]:
    env = dict(os.environ, PGCLIENTENCODING="KOI8R")
    res = subprocess.run([b"psql", dsn.encode(), b"-X", b"-A", b"-t", b"-c",
                          "select 'привет', chr(1046)".encode("koi8_r"),
                          b"-c", b"select 'klingon'::text, chr(8364)"],
                         capture_output=True, env=env, timeout=30)
    return res.stdout, res.stderr


def test_psql_in_koi8r(pg15, cumulo_server):
    want = _psql_koi8(pg15.dsn())
    assert "привет".encode("koi8_r") in want[0]
    assert _psql_koi8(cumulo_server.dsn()) == want


COPY_FAILS = [(b"", "text"), (b"1\tx\n2\ty\n", "text"), (b"1\tx\n2\ty", "text"),
              (b"a,b\n1,x\n", "csv, header true"), (b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8, "binary")]


def _copy_fails(dsn: str) -> list:
    pgc = pq.PGconn.connect(dsn.encode())
    out = []
    try:
        pgc.exec_(b"create temp table ci (a int, b text)")
        for data, fmt in COPY_FAILS:
            pgc.exec_(f"copy ci from stdin (format {fmt})".encode())
            if data:
                pgc.put_copy_data(data)
            pgc.put_copy_end(b"boom")
            res = pgc.get_result()
            out.append([res.error_field(f) for f in (pq.DiagnosticField.SQLSTATE,
                        pq.DiagnosticField.MESSAGE_PRIMARY, pq.DiagnosticField.CONTEXT)])
            while pgc.get_result() is not None:
                pass
    finally:
        pgc.finish()
    return out


def test_copy_fail_names_the_line(pg15, cumulo_server):
    want = _copy_fails(pg15.dsn())
    assert want[1] == [b"57014", b"COPY from stdin failed: boom", b"COPY ci, line 3"]
    assert _copy_fails(cumulo_server.dsn()) == want
