"""A table's writer is shared by every session on the same catalog, but its checks run in
the writing session, against PostgreSQL 15.

A view's WITH CHECK OPTION subquery, a CHECK calling a function that reads a table, and
a domain's CHECK calling one ran in the transaction of the session that first built the
writer: once that session had closed, another session's INSERT failed with an internal
error (XX000, "'NoneType' object has no attribute 'scan'"), and while it was open the
check read that session's snapshot, not the writer's.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg

from tests.integration.stmtdiff import fresh_databases

_SETUP = [
    "create table lim (n int)",
    "insert into lim values (10)",
    "create function max_n() returns int language sql stable as 'select n from lim'",
    "create table t (x int)",
    "create view v as select * from t where x < (select n from lim) with check option",
    "create table c (x int check (x < max_n()))",
    "create domain small as int check (value < max_n())",
    "create table d (x small)",
]

_FIRST = ["insert into v values (1)", "insert into c values (1)", "insert into d values (1)"]

# The second session: each statement alone, its outcome compared; the last ones see a
# limit only this session's open transaction has changed.
_SECOND = [
    "insert into v values (2)",
    "insert into v values (20)",
    "insert into c values (3)",
    "insert into c values (30)",
    "insert into d values (4)",
    "insert into d values (40)",
]
_IN_BLOCK = [
    "update lim set n = 100",
    "insert into v values (50)",
    "insert into c values (60)",
    "insert into d values (70)",
]


def _first_session(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in _SETUP + _FIRST:
            conn.execute(sql)


def _second_session(dsn: str) -> list[tuple]:
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in _SECOND:
            try:
                conn.execute(sql)
                out.append((sql, "ok"))
            except psycopg.Error as e:
                out.append((sql, e.sqlstate, e.diag.message_primary))
        with conn.transaction(force_rollback=True):
            for sql in _IN_BLOCK:
                conn.execute(sql)
                out.append((sql, "ok"))
    return out


async def _third_session(dsn: str) -> list[tuple]:
    """asyncpg, while a psycopg session that built the writers is still open and idle in a
    transaction that changed the limit (its change must not reach this session's checks)."""
    out: list[tuple] = []
    conn = await asyncpg.connect(dsn)
    try:
        for sql in ("insert into v values (5)", "insert into v values (55)",
                    "insert into c values (6)", "insert into c values (66)",
                    "insert into d values (7)", "insert into d values (77)"):
            try:
                await conn.execute(sql)
                out.append((sql, "ok"))
            except asyncpg.PostgresError as e:
                out.append((sql, e.sqlstate, e.message))
    finally:
        await conn.close()
    return out


def test_checks_run_in_the_writing_session_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "writer_session")
    results = {}
    for name, dsn in (("pg15", pg), ("cumulo", cu)):
        _first_session(dsn)
        second = _second_session(dsn)
        with psycopg.connect(dsn) as other:
            other.execute("insert into v values (3)")  # the writers, built in this session
            other.execute("update lim set n = 1000")  # uncommitted while the third runs
            third = asyncio.run(_third_session(dsn))
            other.rollback()
        results[name] = (second, third)
    assert results["cumulo"] == results["pg15"]
    second, third = results["pg15"]
    assert ("insert into v values (20)", "44000",
            'new row violates check option for view "v"') in second
    assert third[1][1] == "44000" and third[3][1] == "23514" and third[5][1] == "23514"
