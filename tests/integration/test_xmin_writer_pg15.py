"""xmin names the transaction that wrote a row version, as in PostgreSQL 15 (issue 16).

The ids differ between two servers, so each scenario runs on both and reports what an
application can see: whether xmin changed, whether it equals `txid_current() % 2^32` in
the writer, whether an optimistic `UPDATE ... WHERE xmin = $seen` still matches. The
answers must be PostgreSQL's. Through psycopg (two sessions) and asyncpg.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

from tests.integration.stmtdiff import fresh_databases

_OWN = "xmin::text::bigint = txid_current() % 4294967296"


def _psycopg_story(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute("create table occ (id int primary key, v text)")
        a.execute("insert into occ values (1, 'a'), (2, 'a')")
        x0 = a.execute("select xmin from occ where id = 1").fetchone()[0]
        out.append(a.execute("select count(distinct xmin::text) from occ").fetchone())
        # an UPDATE to the same values is a new version: the stamp changes
        b.execute("update occ set v = v where id = 1")
        x1 = a.execute("select xmin from occ where id = 1").fetchone()[0]
        out.append(x1 != x0)
        out.append(a.execute("update occ set v = 'z' where id = 1 and xmin = %s", [x0]).rowcount)
        # a -> b -> a (ABA) is still a change
        b.execute("update occ set v = 'b' where id = 1")
        b.execute("update occ set v = 'a' where id = 1")
        x2 = a.execute("select xmin from occ where id = 1").fetchone()[0]
        out.append((x2 != x1, x2 != x0))
        # inside the writer: txid_current() % 2^32; the same value after COMMIT, elsewhere
        with a.transaction():
            ret = a.execute(f"update occ set v = 'c' where id = 1 returning xmin, {_OWN}"
                            ).fetchone()
            out.append(ret[1])
            out.append(a.execute(f"select id, {_OWN} from occ order by id").fetchall())
            out.append(b.execute("select xmin from occ where id = 1").fetchone()[0] == x2)
        out.append(b.execute("select xmin from occ where id = 1").fetchone()[0] == ret[0])
        out.append(b.execute("update occ set v = 'd' where id = 1 and xmin = %s returning "
                             "xmin <> %s", [ret[0], ret[0]]).fetchall())
        # DELETE ... RETURNING xmin gives the deleted version's
        x3 = a.execute("select xmin from occ where id = 2").fetchone()[0]
        out.append(a.execute("delete from occ where id = 2 returning xmin = %s", [x3]).fetchall())
        # a REPEATABLE READ snapshot keeps the xmin it saw; its write then fails
        a.execute("begin isolation level repeatable read")
        seen = a.execute("select xmin from occ where id = 1").fetchone()[0]
        b.execute("update occ set v = v where id = 1")
        out.append(a.execute("select xmin = %s from occ where id = 1", [seen]).fetchone())
        try:
            a.execute("update occ set v = 'e' where id = 1")
            out.append("updated")
        except psycopg.Error as e:
            out.append(e.sqlstate)
        a.execute("rollback")
        # one transaction's rows share its xmin
        with a.transaction():
            a.execute("insert into occ values (3, 'x'), (4, 'y')")
            a.execute("insert into occ values (5, 'x')")
        out.append(a.execute("select count(distinct xmin::text) from occ where id >= 3"
                             ).fetchone())
    return out


async def _asyncpg_story(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("create table ver (id int primary key, n int)")
        await conn.execute("insert into ver values (1, 0)")
        seen = await conn.fetchval("select xmin from ver where id = 1")
        stmt = await conn.prepare("update ver set n = n where id = $1 and xmin = $2 "
                                  "returning xmin")
        first = await stmt.fetch(1, seen)
        again = await stmt.fetch(1, seen)
        new = first[0][0]
        return [len(first), new != seen, len(again),
                await conn.fetchval("select xmin = $1 from ver", new)]
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def dsns(cumulo_server, pg15):
    return fresh_databases(pg15, cumulo_server, "xmin_writer")


def test_xmin_through_psycopg_matches_pg15(dsns):
    pg, cu = dsns
    expected = _psycopg_story(pg)
    assert expected[1] is True  # the oracle changes xmin on a same-value UPDATE
    assert _psycopg_story(cu) == expected


def test_xmin_through_asyncpg_matches_pg15(dsns):
    pg, cu = dsns
    assert asyncio.run(_asyncpg_story(cu)) == asyncio.run(_asyncpg_story(pg)) == [1, True, 0, True]
