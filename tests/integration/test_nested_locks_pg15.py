"""FOR UPDATE inside a WITH query, a FROM or WHERE subquery, INSERT … SELECT (issue 16).

PostgreSQL locks the rows such a CTE or subquery reads: a second session's
`FOR UPDATE NOWAIT` on them gets 55P03. Cumulo does not apply a locking clause
there, so it refuses the statement with 0A000 rather than run it with no lock.
The locking forms Cumulo applies keep working: the top-level clause, and an
UPDATE's `WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)`. Checked through
psycopg (two sessions on PostgreSQL) and asyncpg.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

NESTED = [
    "with c as (select * from nl_q where id = 1 for update) select * from c",
    "select * from (select * from nl_q where id = 1 for update) s",
    "select * from nl_q join (select id from nl_q where id = 1 for key share) s using (id)",
    "with c as (select id from nl_q where id = 1 for no key update)"
    " update nl_q set v = v + 1 where id in (select id from c)",
    "select * from nl_q where id in (select id from nl_q where id = 1 for update)",
    "insert into nl_t select * from nl_q where id = 1 for share",
]


def _setup(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists nl_q")
        c.execute("drop table if exists nl_t")
        c.execute("create table nl_t (id int, v int)")
        c.execute("create table nl_q (id int primary key, v int)")
        c.execute("insert into nl_q values (1, 1), (2, 2)")


@pytest.mark.parametrize("sql", NESTED)
def test_pg15_locks_nested_cumulo_refuses(sql, pg15, cumulo_server):
    _setup(pg15.dsn())
    with psycopg.connect(pg15.dsn()) as a, psycopg.connect(pg15.dsn()) as b:
        a.execute(sql)  # PostgreSQL locks row 1 inside the CTE / subquery
        with pytest.raises(psycopg.errors.LockNotAvailable):
            b.execute("select * from nl_q where id = 1 for update nowait")
    _setup(cumulo_server.dsn())
    with psycopg.connect(cumulo_server.dsn()) as a:
        with pytest.raises(psycopg.errors.FeatureNotSupported) as info:
            a.execute(sql)
        assert "is not supported" in str(info.value)


def test_applied_locks_still_work(cumulo_server):
    _setup(cumulo_server.dsn())
    with psycopg.connect(cumulo_server.dsn()) as a, psycopg.connect(cumulo_server.dsn()) as b:
        assert a.execute("select id from nl_q where id = 1 for update").fetchall() == [(1,)]
        with pytest.raises(psycopg.errors.LockNotAvailable):
            b.execute("select * from nl_q where id = 1 for update nowait")
        b.rollback()
        b.execute("update nl_q set v = 5 where id = (select id from nl_q order by id limit 1"
                  " for update skip locked)")
        assert b.execute("select id from nl_q where v = 5").fetchall() == [(2,)]


async def _asyncpg_error(dsn: str) -> str:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.fetch(NESTED[0])
        return "ok"
    except asyncpg.PostgresError as e:
        return e.sqlstate
    finally:
        await conn.close()


def test_asyncpg_gets_0a000(cumulo_server):
    _setup(cumulo_server.dsn())
    assert asyncio.run(_asyncpg_error(cumulo_server.dsn())) == "0A000"
