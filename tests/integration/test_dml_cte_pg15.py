"""Data-modifying statements in WITH (issue 16), diffed with PostgreSQL 15.

`WITH d AS (DELETE … RETURNING *) INSERT INTO archive SELECT * FROM d` and its
relatives: INSERT/UPDATE/DELETE queries in a top-level WITH, read through their
RETURNING rows, several in one statement, one never read (it still runs), and
the errors PostgreSQL gives for the forms it refuses. The script runs statement
by statement on both servers through psycopg (status, rows, SQLSTATE, message);
the parameterised forms run through asyncpg and psycopg's extended protocol.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

from tests.integration.test_statements_pg15 import assert_same_outcomes

SCRIPT = """
create table t (a int primary key, b text);
create table arch (a int, b text);
with w as (insert into t values (1, 'x'), (2, 'y'), (3, 'z') returning *) select * from w order by a;
with d as (delete from t where a = 1 returning *) insert into arch select * from d;
select * from arch;
with u as (update t set b = b || '!' returning a, b) select count(*) from u;
with u as (update t set b = 'q' returning a) select * from t order by a;
select * from t order by a;
with x as (insert into t values (5, 'five')) select 1;
select * from t order by a;
with a as (insert into t values (7, 'a') returning a), b as (insert into t values (8, 'b') returning a) select * from a, b;
with d as (delete from t where a > 6 returning a) delete from arch where a in (select a from d);
with d as (delete from t where a = 5 returning a) update arch set b = 'u' where a in (select a from d);
with x as (insert into t values (2, 'dup') returning a) select * from x;
with x as (insert into t values (9, 'a') returning a), y as (insert into t values (9, 'b') returning a) select * from x, y;
with d as (delete from t where a = 2 returning *) select (select count(*) from d), (select count(*) from t);
select count(*) from t;
with w(x, y) as (insert into t values (10, 'ten') returning a, a * 2) select x, y from w;
with s as (select 11 as v), i as (insert into t select v, 'eleven' from s returning a) select * from i;
with i as (insert into t values (12, 'c') returning a), j as (insert into t select a + 100, 'd' from i returning a) select * from i, j;
with recursive i as (insert into t values (13, 'e') returning a), r(n) as (select 1 union all select n + 1 from r where n < 3) select * from i, r order by n;
with i as (insert into t values (14, 'f') returning a) select * from i union all select a from t where a = 14;
with d as (delete from t where a > 100 returning a, b) select * from d, arch where false;
with x as materialized (insert into t values (15, 'g') returning a) select * from x;
select a, b from t order by a;
with x as (insert into t values (30, 'a')) select * from x;
insert into arch with d as (delete from t returning *) select * from d;
with a as (with b as (insert into t values (31, 'c') returning *) select * from b) select * from a;
with recursive r as (insert into t select a + 100, b from r returning *) select * from r;
select * from t where a = (with y as (delete from t returning 1) select 1);
with i as (insert into t values (32, 'a') returning a) select * from nosuch;
with i as (insert into nosuch values (1) returning a) select * from i;
with i as (insert into t values (33, 'a') returning nosuch) select * from i;
declare c cursor for with x as (insert into t values (40, 'a') returning a) select * from x;
begin;
declare c cursor for with x as (insert into t values (40, 'a') returning a) select * from x;
rollback;
create view vw as with x as (insert into t values (41, 'a') returning a) select * from x;
create view vw as select * from (with x as (insert into t values (41, 'a') returning a) select * from x) s;
begin read only;
with i as (insert into t values (34, 'a') returning a) select * from i;
rollback;
create table p (id serial primary key, name text);
create table c (id serial primary key, pid int references p, v text);
with np as (insert into p (name) values ('x') returning id) insert into c (pid, v) select id, 'child' from np;
select p.name, c.v from p join c on c.pid = p.id;
create table ty (id int primary key, a int[], ts timestamptz, n numeric(10,2), vc varchar(5), j jsonb);
with i as (insert into ty values (1, '{{1,2},{3,4}}', '2020-01-01 10:00+02', 1.5, 'ab', '{"k": [1]}') returning *) select * from i;
with i as (insert into ty (id, a) values (2, '{5}') returning a, n, vc) select a[1], n, vc, pg_typeof(n) from i;
with u as (update ty set n = n + 1 where id = 1 returning id, n) update ty set vc = 'k' from u where ty.id = u.id + 1;
select id, a, n, vc from ty order by id;
create table ct as with x as (delete from ty where id = 2 returning id, vc) select * from x;
select * from ct;
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'ct'::regclass and attnum > 0 order by attnum;
create temp table ct2 (p, q) as with x as (insert into ty (id, vc) values (40, 'w') returning id, vc) select * from x;
select * from ct2;
create table ct3 as with x as (update ty set n = 1 where id > 2 returning id) select id, count(*) over () from x;
select * from ct3 order by 1;
create table ct as with x as (insert into ty (id) values (41) returning id) select * from x;
select count(*) from ty where id = 41;
create table rt (a int primary key, b text, c int[]);
insert into rt values (1, 'x', '{1,2}') returning 'lit', 1, 'x'::text, a::text, b || 'y', rt.a, c[1], (a), -a, upper(b), null, true, cast(a as bigint);
with w as (update rt set b = 'z' returning 'lit', b, rt.*) select * from w;
create type mood as enum ('sad', 'ok', 'happy');
create type pair as (x int, y text);
create table ty2 (id serial primary key, m mood, c pair, r int4range, j jsonb, b bytea, u uuid, i interval, ok bool, ts timestamptz[], t2 text[]);
with w as (insert into ty2 (m, c, r, j, b, u, i, ok, ts, t2) values ('ok', row(1, 'a'), '[1,5)', '{"a": 1}', '\\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day', true, '{"2020-01-01 00:00+00"}', '{a,"b c",NULL}'), (null, null, null, null, null, null, null, null, null, null) returning *) select * from w order by id;
with w as (insert into ty2 (m) values ('happy') returning m, c) select m, pg_typeof(m), (c).x, m > 'ok' from w;
with w as (insert into ty2 (m) values ('sad') returning id, m) insert into ty2 (m, r) select m, int4range(id, id + 1) from w returning m, r;
with w as (insert into ty2 (id, m) values (100, 'ok') on conflict (id) do update set m = 'happy' returning id, m) select * from w;
with w as (insert into ty2 (id, m) values (100, 'ok') on conflict (id) do update set m = 'happy' returning id, m) select * from w;
with w as (insert into ty2 (id, m) values (100, 'ok') on conflict do nothing returning id) select count(*) from w;
"""


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


def test_same_outcomes_as_pg15(servers):
    assert_same_outcomes(*servers, "dml_cte", SCRIPT)


async def _asyncpg(dsn: str) -> list:
    """Parameters (extended protocol, binary) in the parts and in the statement that reads them."""
    conn = await asyncpg.connect(dsn)
    out: list = []
    try:
        await conn.execute("drop table if exists pt; drop table if exists pa")
        await conn.execute("create table pt (a int primary key, b text, n numeric)")
        await conn.execute("create table pa (a int, b text, n numeric)")
        q = "with w as (insert into pt values ($1, $2, $3) returning a, b) select a, b from w"
        stmt = await conn.prepare(q)
        out.append([(a.name, a.type.name) for a in stmt.get_attributes()])
        out.append([t.name for t in stmt.get_parameters()])
        for i in range(3):
            out.append(await stmt.fetch(i, f"v{i}", i / 2))
        out.append(await conn.fetch(
            "with w as (insert into pt values (10, 'p', 1) returning a) select a + $1 from w", 5))
        out.append(await conn.execute(
            "with d as (delete from pt where a < $1 returning *) insert into pa select * from d", 2))
        out.append(await conn.fetch("select * from pa order by a"))
        out.append(await conn.fetch(
            "with u as (update pt set n = n * $1 where a = $2 returning a, n), "
            "i as (insert into pa select a, $3, n from u returning *) "
            "select (select count(*) from pt where n = $1 * 1.0), i.* from i", 3, 2, "moved"))
        try:
            await conn.fetch("with w as (insert into pt values ($1, 'dup', 0) returning a) "
                             "select * from w", 2)
        except asyncpg.PostgresError as e:
            out.append((e.sqlstate, e.args[0]))
        out.append(await conn.fetch("select a, b, n from pt order by a"))
    finally:
        await conn.close()
    return out


def _psycopg(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists ps")
        c.execute("create table ps (id serial primary key, v text)")
        out = [c.execute("with w as (insert into ps (v) values (%s), (%s) returning id, v) "
                         "select v, id from w order by id", ["a", "b"], prepare=True).fetchall()]
        cur = c.cursor(binary=True)
        out.append(cur.execute("with d as (delete from ps where v = %s returning id) "
                               "select count(*) from d", ["a"], prepare=True).fetchall())
        out.append(cur.statusmessage)
        out.append(c.execute("select v from ps").fetchall())
    return out


def test_parameters_through_asyncpg_and_psycopg_as_pg15(servers):
    pg, cu = servers
    expected = asyncio.run(_asyncpg(pg.dsn()))
    assert asyncio.run(_asyncpg(cu.dsn())) == expected
    assert expected[0] == [("a", "int4"), ("b", "text")]
    assert expected[-2][0] == "23505"
    assert _psycopg(cu.dsn()) == _psycopg(pg.dsn())
