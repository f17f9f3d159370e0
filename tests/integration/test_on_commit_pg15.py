"""CREATE TEMP TABLE ... ON COMMIT DROP / DELETE ROWS / PRESERVE ROWS against PostgreSQL 15.

DROP drops the table as its transaction commits (at once in autocommit), DELETE
ROWS empties it at every commit of the session, PRESERVE ROWS is the default,
a rolled-back CREATE leaves nothing to act on, and the clause on a table that
is not temporary is 42P16. Compared statement by statement (`typediff`), then
through asyncpg's and pg8000's own transactions.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pg8000.native

from tests.integration.typediff import assert_same_as_pg15
from tests.pg15 import PASSWORD

STATEMENTS = """
begin
create temp table oc1 (a int) on commit drop
insert into oc1 values (1)
select * from oc1
commit
select * from oc1
begin
create temp table oc2 (a int) on commit delete rows
insert into oc2 values (1), (2)
select count(*) from oc2
commit
select count(*) from oc2
insert into oc2 values (2)
select count(*) from oc2
begin
insert into oc2 values (3)
select count(*) from oc2
rollback
begin
insert into oc2 values (4)
commit
select count(*) from oc2
create table oc3 (a int) on commit drop
create table oc3 (a int) on commit delete rows
create temp table oc4 (a int) on commit preserve rows
insert into oc4 values (1)
select count(*) from oc4
create temp table oc5 (a int) on commit drop
select * from oc5
begin
create temp table oc6 on commit drop as select 1 as x
select * from oc6
commit
select * from oc6
begin
create temp table oc7 (a int) on commit drop
rollback
select * from oc7
begin
create temp table oc8 (a int primary key) on commit delete rows
insert into oc8 values (1)
commit
insert into oc8 values (1)
select count(*) from oc8
drop table oc2, oc4, oc8
""".strip().splitlines()


def test_on_commit_matches_pg15(pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS)


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        async with c.transaction():
            await c.execute("create temp table aoc (a int) on commit delete rows")
            await c.execute("insert into aoc values (1)")
            inside = await c.fetchval("select count(*) from aoc")
        after = await c.fetchval("select count(*) from aoc")
        async with c.transaction():
            await c.execute("create temp table aod (a int) on commit drop")
        gone = await c.fetchval("select count(*) from pg_class where relname = 'aod'")
        await c.execute("drop table aoc")
        return [inside, after, gone]
    finally:
        await c.close()


def _pg8000(port: int, password: str | None) -> list:
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                 password=password)
    try:
        c.run("begin transaction")
        c.run("create temp table poc (a int) on commit drop")
        c.run("insert into poc values (1)")
        inside = c.run("select count(*) from poc")
        c.run("commit")
        return [inside, c.run("select count(*) from pg_class where relname = 'poc'")]
    finally:
        c.close()


def test_clients_transactions_run_the_actions(pg15, cumulo_server):
    want = asyncio.run(_asyncpg(pg15.dsn()))
    assert want == [1, 0, 0]
    assert asyncio.run(_asyncpg(cumulo_server.dsn())) == want
    assert _pg8000(cumulo_server.port, None) == _pg8000(pg15.port, PASSWORD)
