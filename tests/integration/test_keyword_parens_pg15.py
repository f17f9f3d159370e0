"""current_date, current_user, session_user, current_role, current_catalog and user are
keywords, not functions: followed by "(" they are 42601 at the "(" in PostgreSQL 15
(Cumulo answered current_date(1), and gave 42883 or a syntax error at the end for the
others). Quoted, the name is an ordinary call ("session_user"() is pg_catalog's function).
Compared through psycopg, asyncpg and psql.
"""

from __future__ import annotations

import asyncio
import subprocess

import asyncpg
import psycopg

_KEYWORDS = ["select current_date(1)", "select current_user(1)", "select session_user(1)",
             "select current_role(1)", "select current_catalog(1)", "select user(1)",
             "select current_date()", "select 1 where user() is null",
             'select "session_user"()', "select current_schema(1)",
             "select current_user = session_user, current_role = user",
             "select current_date = current_date", "select localtime(1) is not null"]


def _keywords_psycopg(dsn: str) -> list[tuple]:
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in _KEYWORDS:
            try:
                out.append((sql, conn.execute(sql).fetchall()))
            except psycopg.Error as e:
                out.append((sql, e.sqlstate, e.diag.message_primary, e.diag.statement_position))
    return out


async def _keywords_asyncpg(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    out = []
    try:
        for sql in _KEYWORDS:
            try:
                out.append((sql, [tuple(r) for r in await conn.fetch(sql)]))
            except asyncpg.PostgresError as e:
                out.append((sql, e.sqlstate, e.message, e.position))
    finally:
        await conn.close()
    return out


def test_keyword_functions_refuse_parentheses_as_pg15(pg15, cumulo_server):
    expected = _keywords_psycopg(pg15.dsn())
    assert expected[0] == (_KEYWORDS[0], "42601", 'syntax error at or near "("', "20")
    assert _keywords_psycopg(cumulo_server.dsn()) == expected
    assert asyncio.run(_keywords_asyncpg(cumulo_server.dsn())) == \
        asyncio.run(_keywords_asyncpg(pg15.dsn()))


def test_psql_shows_keyword_error_as_pg15(pg15, cumulo_server):
    def run(dsn: str) -> str:
        res = subprocess.run(["psql", "-X", "-d", dsn, "-c", "select session_user(1)"],
                             capture_output=True, text=True, timeout=60)
        return res.stderr

    expected = run(pg15.dsn())
    assert 'syntax error at or near "("' in expected
    assert run(cumulo_server.dsn()) == expected
