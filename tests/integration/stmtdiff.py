"""Statement-by-statement differential runs against PostgreSQL 15, through psycopg.

A module that compares a script's behaviour with PostgreSQL's runs it on both servers with
`outcomes` and compares the lists; what goes into one outcome (rows, column names or type
OIDs, the SQLSTATE and message, DETAIL and HINT, the NOTICEs raised) is chosen per module,
so that each compares what it is about without tripping over what it is not.
`assert_same_outcomes` does the whole round in a fresh database on each server.

>>> statements("create table t (a int);\\ninsert into t values (1);\\n")
['create table t (a int)', 'insert into t values (1)']
>>> statements("create function f() returns int language sql as 'select 1; select 2';\\n")
["create function f() returns int language sql as 'select 1; select 2'"]
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import asyncpg
import psycopg

# NB: user-made types' OIDs (16384 and up) differ between two servers by construction
FIRST_USER_OID = 16384


def statements(script: str) -> list[str]:
    """The statements of a script, each ended by `;` at the end of a line (a `;` inside
    a line, as in a function body, does not split)."""
    return [s.strip() for s in script.split(";\n") if s.strip().rstrip(";")]


def outcomes(dsn: str, script: Iterable[str], *, names: bool = False, types: bool = False,
             detail: bool = False, notices: bool = False) -> list[tuple]:
    """One comparable outcome per statement, run in autocommit on one connection.

    A statement gives (sql, status, rows) or (sql, "ERROR", sqlstate, message); with
    `names` (or `types`) a result's column names (with their type OIDs) come before its
    rows; with `detail` an error (and a notice) carries its DETAIL and HINT; with
    `notices` each outcome ends with what the statement raised below ERROR.
    """
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        said: list[tuple] = []
        if notices:
            conn.add_notice_handler(lambda d: said.append(
                (d.severity, d.message_primary) + ((d.message_detail,) if detail else ())))
        for sql in script:
            said.clear()
            one: tuple
            try:
                cur = conn.execute(sql.rstrip(";"))
                one = (sql, cur.statusmessage)
                if cur.description is not None and (names or types):
                    one += ([(d.name, d.type_code if d.type_code < FIRST_USER_OID else "user")
                             if types else d.name for d in cur.description],)
                one += (cur.fetchall() if cur.description is not None else None,)
            except psycopg.Error as e:
                one = (sql, "ERROR", e.sqlstate, e.diag.message_primary)
                if detail:
                    one += (e.diag.message_detail, e.diag.message_hint)
            out.append(one + ((list(said),) if notices else ()))
    return out


def rows_outcomes(dsn: str, script: Iterable[str], setup: Iterable[str] = (),
                  detail: bool = False) -> list[tuple]:
    """Per query of `script`, through psycopg in autocommit after the `setup` statements:
    (sql, rows) or (sql, sqlstate, message), with `detail` also the DETAIL. The same shape
    as `asyncpg_rows_outcomes`, so a module can check both clients alike."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in setup:
            conn.execute(sql)
        for sql in script:
            try:
                out.append((sql, conn.execute(sql).fetchall()))
            except psycopg.Error as e:
                out.append((sql, e.sqlstate, e.diag.message_primary)
                           + ((e.diag.message_detail,) if detail else ()))
    return out


async def asyncpg_rows_outcomes(dsn: str, script: Iterable[str],
                                detail: bool = False) -> list[tuple]:
    """`rows_outcomes` through asyncpg (rows as tuples)."""
    conn = await asyncpg.connect(dsn)
    out: list[tuple] = []
    try:
        for sql in script:
            try:
                out.append((sql, [tuple(r) for r in await conn.fetch(sql)]))
            except asyncpg.PostgresError as e:
                out.append((sql, e.sqlstate, e.message) + ((e.detail,) if detail else ()))
    finally:
        await conn.close()
    return out


def fresh_database(dsns: Iterable[str], name: str) -> None:
    """Drops and creates database `name` on each server."""
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")


def fresh_databases(pg15, cumulo_server, name: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Database `name`, new on both servers; their DSNs, PostgreSQL's first."""
    fresh_database((pg15.dsn(), cumulo_server.dsn()), name)
    return pg15.dsn(db=name), cumulo_server.dsn(dbname=name)


def assert_same(expected: list[tuple], got: list[tuple]) -> None:
    """Every statement's outcome on Cumulo is PostgreSQL's; the message lists each that is not."""
    diffs = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not diffs, "\n".join(f"{e[0]}\n  pg15:   {e[1:]}\n  cumulo: {g[1:]}"
                                for e, g in diffs)


def assert_same_outcomes(pg, cu, db: str, script: str, types: bool = False,  # type: ignore[no-untyped-def]
                         **what: bool) -> None:
    """Runs `script` in a fresh database `db` on PG 15 and on Cumulo; every outcome must
    match. Column names are compared unless `names=False`; `what` as in `outcomes`."""
    what.setdefault("names", True)
    pg_dsn, cu_dsn = fresh_databases(pg, cu, db)
    script_ = statements(script)
    assert_same(outcomes(pg_dsn, script_, types=types, **what),
                outcomes(cu_dsn, script_, types=types, **what))


def wait_until_active(dsn: str, like: str, seconds: float = 10.0) -> None:
    """Polls pg_stat_activity until a statement whose text is LIKE `like` is running (one
    that a test started on another connection, to block on a row lock), or `seconds` pass;
    a two-session test then goes on, its own assertions telling what happened."""
    with psycopg.connect(dsn, autocommit=True) as w:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not w.execute(
                "select count(*) from pg_stat_activity where state = 'active'"
                " and query like %s", (like,)).fetchone()[0]:
            pass
