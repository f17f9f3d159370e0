"""pg_prepared_statements against a throwaway PostgreSQL 15 (issue 16, item 8).

The view lists both kinds of prepared statement: SQL PREPARE (statement = the
full PREPARE text, from_sql true) and the extended protocol's named Parse
(statement = Parse's query, from_sql false), with parameter types and the
generic/custom plan counters PostgreSQL's plan cache keeps. Unnamed Parse
statements are not listed; DEALLOCATE and Close remove their rows.
Checked through psycopg (SQL PREPARE, and prepare=True for a named Parse)
and asyncpg (its named statements).
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg

VIEW = ("select name, statement, from_sql, parameter_types::text[], generic_plans, custom_plans,"
        " prepare_time is not null and prepare_time <= now() + interval '1 minute'"
        " from pg_prepared_statements order by name")


def _psycopg_rows(dsn: str) -> list[list[tuple]]:
    seen = []
    with psycopg.connect(dsn, autocommit=True) as c:
        seen.append(c.execute(VIEW).fetchall())
        c.execute("PREPARE p1(int, text) AS SELECT $1, $2")
        c.execute("prepare p0 as select 1")
        c.execute("EXECUTE p0")
        c.execute("EXECUTE p0")
        c.execute("EXECUTE p1(1, 'a')")
        seen.append(c.execute(VIEW).fetchall())
        c.execute("select %s::int + 1", (1,), prepare=True)  # a named Parse (_pg3_0)
        c.execute("select %s::int + 1", (2,), prepare=True)
        seen.append(c.execute(VIEW).fetchall())
        c.execute("DEALLOCATE p1")
        seen.append(c.execute(VIEW).fetchall())
        c.execute("PREPARE dup AS SELECT 1")
        try:
            c.execute("PREPARE _pg3_0 AS SELECT 1")  # a Parse statement's name is taken too
        except psycopg.Error as e:
            seen.append([(e.sqlstate, e.diag.message_primary)])
        c.execute("DEALLOCATE ALL")  # drops the Parse statements as well
        seen.append(c.execute(VIEW).fetchall())
        c.execute("select %s::int + 1", (3,), prepare=True)  # psycopg prepares it again
        seen.append(c.execute(VIEW).fetchall())
        again = [r[0] for r in seen[-1] if not r[2]]
        assert len(again) == 1
        c.execute(f"DEALLOCATE {again[0]}")
        seen.append(c.execute(VIEW).fetchall())
        c.execute("select %s::int + 2", (4,), prepare=True)
        c.execute("DISCARD ALL")
        seen.append(c.execute(VIEW).fetchall())
    return seen


def test_psycopg_sql_and_protocol_statements_match_pg15(pg15, cumulo_server):
    want = _psycopg_rows(pg15.dsn())
    got = _psycopg_rows(cumulo_server.dsn())
    assert got == want
    assert [r[0] for r in want[2]] == ["_pg3_0", "p0", "p1"]  # the test exercises both kinds


async def _asyncpg_rows(dsn: str) -> list[list[tuple]]:
    conn = await asyncpg.connect(dsn)
    try:
        seen = []
        st = await conn.prepare("select $1::int8 * 2")
        for i in range(7):  # five custom plans, then the generic one
            await st.fetchval(i)
        await conn.prepare("select 42")
        rows = await conn.fetch(VIEW)
        seen.append([(r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows
                     if r[0].startswith("__asyncpg")])
        return seen
    finally:
        await conn.close()


def test_asyncpg_named_statements_match_pg15(pg15, cumulo_server):
    want = asyncio.run(_asyncpg_rows(pg15.dsn()))
    got = asyncio.run(_asyncpg_rows(cumulo_server.dsn()))
    assert got == want
    assert ("select $1::int8 * 2", False, ["bigint"], 2, 5, True) in want[0]


def _psycopg_failed_block(dsn: str) -> list[tuple]:
    seen: list[tuple] = []
    with psycopg.connect(dsn) as c:
        try:
            c.execute("select * from missing_fb")
        except psycopg.Error as e:
            seen.append(("first", e.sqlstate))
        for q, args in (("select %s::int", (1,)), ("select * from missing_fb2 where a = %s", (1,))):
            try:  # NB: psycopg sends Parse, Bind, Describe, Execute, Sync: PG fails the Parse
                c.execute(q, args)
            except psycopg.Error as e:
                seen.append((q, e.sqlstate, e.diag.message_primary))
        c.rollback()
        seen.append(c.execute("select %s::int + 1", (1,)).fetchone())
    return seen


async def _asyncpg_failed_block(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    seen: list[tuple] = []
    try:
        st = await conn.prepare("select $1::int * 3")
        tr = conn.transaction()
        await tr.start()
        try:
            await conn.execute("select * from missing_fb")
        except asyncpg.PostgresError as e:
            seen.append(("first", e.sqlstate))
        for step in ("prepare", "bind", "fetch"):
            try:  # its prepare is Parse, Describe, Sync: PG fails it at the Parse
                if step == "prepare":
                    await conn.prepare("select $1::int * 2")
                elif step == "bind":
                    await st.fetchval(1)
                else:
                    await conn.fetchval("select $1::text", "x")
            except asyncpg.PostgresError as e:
                seen.append((step, e.sqlstate, type(e).__name__))
        await tr.rollback()
        seen.append(("after", await st.fetchval(2)))
        return seen
    finally:
        await conn.close()


def test_a_failed_block_refuses_new_statements_at_parse_as_pg15(pg15, cumulo_server):
    want = _psycopg_failed_block(pg15.dsn())
    assert want[1][1] == want[2][1] == "25P02"  # NB: not 42P01: the text is never analysed
    assert _psycopg_failed_block(cumulo_server.dsn()) == want
    want = asyncio.run(_asyncpg_failed_block(pg15.dsn()))
    assert [s[1] for s in want[1:4]] == ["25P02"] * 3
    assert asyncio.run(_asyncpg_failed_block(cumulo_server.dsn())) == want
