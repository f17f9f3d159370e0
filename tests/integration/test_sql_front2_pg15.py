"""More SQL-front fixes diffed with PostgreSQL 15: whole-row references, views over `*`,
pg_default_acl, E'\\u0000'.

`SELECT t FROM t`, `t::text`, `row_to_json(t)`, `to_jsonb(t)`, `count(t)` and
`t IS [NOT] NULL` run statement by statement on PostgreSQL 15 and on Cumulo
through psycopg (the runner of `test_statements_pg15`): status, rows, SQLSTATE
and message must match. pg8000 then reads the same JSON text, so a second client
sees PostgreSQL's key order and number, boolean, NULL and timestamp formatting.

A whole row is sent as `record` here where PostgreSQL names the table's row
type, so the scripts compare it as text (`t::text`); the text is the same.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pg8000.native
import psycopg
import pyarrow as pa
import pytest

from tests.integration.stmtdiff import assert_same_outcomes

# psql's \\ddp query (PostgreSQL 15's describe.c, listDefaultACLs).
DDP = """SELECT pg_catalog.pg_get_userbyid(d.defaclrole) AS "Owner",
  n.nspname AS "Schema",
  CASE d.defaclobjtype WHEN 'r' THEN 'table' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'function'
    WHEN 'T' THEN 'type' WHEN 'n' THEN 'schema' END AS "Type",
  pg_catalog.array_to_string(d.defaclacl, E'\\n') AS "Access privileges"
FROM pg_catalog.pg_default_acl d
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = d.defaclnamespace
ORDER BY 1, 2, 3"""

SCRIPTS = {
    "whole_row": """
create table t (a int, b text, c bool, d numeric(6,2), e timestamp, f float8, g jsonb, h int[],
  i timestamptz, j date, k text);
insert into t values (1, 'x"y', true, 1.50, '2024-01-02 03:04:05.5', 1.5, '{"k": 1}', '{1,2}',
  '2024-01-02 03:04:05+00', '2024-02-29', 'a,b (c)'),
  (null, null, null, null, null, null, null, null, null, null, null),
  (2, '', false, -0.01, '1999-12-31 23:59:59', 1e20, '[1, "s", null]', '{}', null, null, ' ');
set timezone = 'UTC';
select t::text from t order by a;
select t.a, t::text from t order by 1;
select row_to_json(t) from t order by a;
select row_to_json(t)::text from t order by a;
select to_jsonb(t) from t order by a;
select to_json(t)::text from t order by a;
select count(t), count(*) from t;
select count(*) from t where t is not null;
select count(*) from t where t is null;
select a from t where not (t is null) order by 1;
select x::text from t x order by a;
select row_to_json(x) from (select 1 as a, 'q' as b, null::int as c) x;
select row_to_json(s)::text from (select a, b from t) s order by a;
select row_to_json(v)::text from (values (1, 'a'), (2, 'b')) v(n, s) order by 1;
select row_to_json((1, 'x'))::text;
select to_jsonb(row(1, null))::text;
select (1, null::int) is null, (null::int, null::int) is null, (1, null::int) is not null;
select a, (select count(*) from t u where u.a = t.a and t is not null) from t order by 1;
select u.a, (select row_to_json(t)::text from t where t.a = u.a) from t u order by 1;
select row_to_json(t)::text from t join (select 1 as a) q using (a);
select row_to_json(t) from t group by a;
select json_agg(t order by a) from t;
select jsonb_agg(t order by a)::text from t;
select json_build_object('r', t)::text from t order by a;
select jsonb_build_array(t, 1)::text from t order by a;
select a, json_agg(u) from t, (select 7 as k) u group by a order by a;
select nosuch from t;
""",
    # CREATE VIEW expands `*` at creation: later columns stay out, at every level of the query.
    "view_star": """
create table vt (a int, "B x" int);
create table vu (a int, q text);
insert into vt values (1, 2);
insert into vu values (1, 'q');
create view vv as select * from vt;
create view vw as select x.*, 9 as z from vt x;
create view vj as select * from vt join vu using (a);
create view vs as select * from (select * from vt) s where a > 0;
create view vc as with c as (select * from vt) select * from c;
create view vn as select t.a, vt.* from vt t, vt;
alter table vt add column c int;
alter table vu add column r int;
select * from vv;
select * from vw;
select * from vj;
select * from vs;
select * from vc;
select * from vn;
select pg_get_viewdef('vv'::regclass);
select pg_get_viewdef('vw'::regclass);
select attname from pg_attribute where attrelid = 'vj'::regclass order by attnum;
select column_name from information_schema.columns where table_name = 'vw'
  order by ordinal_position;
alter table vt drop column c;
alter table vt rename column a to aa;
select * from vv;
select a from vw;
create or replace view vv as select * from vt;
select * from vv;
""",
    # pg_default_acl shows ALTER DEFAULT PRIVILEGES' entries; the query is psql's \\ddp.
    "default_acl": """
create role dalice;
create role dbob;
create schema ds;
select count(*) from pg_default_acl;
alter default privileges grant select on tables to dalice;
alter default privileges in schema ds grant insert, update on tables to dbob;
alter default privileges for role dalice grant select on tables to public;
alter default privileges for role dalice revoke delete on tables from dalice;
""" + DDP + """;
select defaclrole::regrole, defaclnamespace::regnamespace, defaclobjtype, defaclacl
  from pg_default_acl order by 1::text, 2::text;
alter default privileges for role dalice revoke all on tables from public;
alter default privileges for role dalice revoke all on tables from dalice;
select defaclacl from pg_default_acl where defaclrole = 'dalice'::regrole;
alter default privileges revoke select on tables from dalice;
alter default privileges in schema ds revoke insert, update on tables from dbob;
alter default privileges for role dalice grant all on tables to dalice;
select count(*) from pg_default_acl;
drop role dbob;
""",
    # E'\\u0000' is the lexer's 42601; E'\\0' and E'\\x00' reach the encoding check (22021).
    "unicode_nul": r"""
select E'ab\u0000';
select 1, e'x\\u0000', E'y''\U00000000z';
select E'\x00';
select E'\0';
select 'a\u0000';
select E'a\\u0000';
select E'\u0041\u00e9';
""",
    # numeric(p, negative s) on the columnar path (`cumulo.columnar = on`), NULL runs included.
    "columnar_negative_scale": """
create table nn (id int primary key, g int, v numeric(5,-2), w numeric(3,-1));
insert into nn select i, i % 3, null, null from generate_series(1, 3000) i;
insert into nn select i, i % 3, i * 12.34, i % 900 from generate_series(3001, 6000) i;
set cumulo.columnar = on;
select g, sum(v), min(v), max(w), count(v), avg(v) from nn group by g order by g;
select sum(v), sum(w), min(v) from nn where v > 50000;
select g, sum(coalesce(v, 150)), max(coalesce(w, 1.5)) from nn where id < 3000
  group by g order by g;
select sum(v * 2), max(v + w), min(coalesce(v, 2.5) + 1) from nn;
select v, w from nn where id in (1, 3001, 5999) order by id;
select count(*) from nn where v is null;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"front2_{name}", SCRIPTS[name])


def _pg8000_json(port: int, password: str | None) -> list:
    """row_to_json / to_jsonb text of every row through pg8000 (its own wire code)."""
    conn = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port,
                                    database="front2_whole_row", password=password)
    try:
        conn.run("set timezone = 'UTC'")
        return conn.run("select row_to_json(t)::text, to_jsonb(t)::text, t::text, "
                        "t is null, t is not null from t order by a")
    finally:
        conn.close()


def test_pg8000_reads_row_json_as_pg15(servers):
    from tests.pg15 import PASSWORD

    pg, cu = servers
    assert_same_outcomes(pg, cu, "front2_whole_row", SCRIPTS["whole_row"])
    expected = _pg8000_json(pg.port, PASSWORD)
    assert len(expected) == 3 and expected[0][0].startswith('{"a":1,"b":"x\\"y"')
    assert _pg8000_json(cu.port, None) == expected


def _pg8000_ddp(port: int, password: str | None) -> list:
    conn = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port,
                                    database="front2_default_acl", password=password)
    try:
        conn.run("alter default privileges in schema ds grant select on tables to public")
        return conn.run(DDP)
    finally:
        conn.close()


def test_pg8000_reads_default_acl_as_pg15(servers):
    from tests.pg15 import PASSWORD

    pg, cu = servers
    assert_same_outcomes(pg, cu, "front2_default_acl", SCRIPTS["default_acl"])
    expected = _pg8000_ddp(pg.port, PASSWORD)
    assert expected == [["cumulo", "ds", "table", "=r/cumulo"]]
    assert _pg8000_ddp(cu.port, None) == expected


async def _asyncpg_nul(dsn: str) -> list:
    """The escape-string errors through asyncpg, with their position (the P field)."""
    conn = await asyncpg.connect(dsn)
    out: list = []
    try:
        for sql in (r"select E'ab\u0000'", r"select 1, E'y''\U00000000z'", r"select E'\0'",
                    r"select $1::text, E'\u0000'"):
            try:
                out.append(await conn.fetchval(sql))
            except asyncpg.PostgresError as e:
                out.append((e.sqlstate, e.args[0] if e.args else "", getattr(e, "position", None)))
    finally:
        await conn.close()
    return out


def test_asyncpg_sees_unicode_nul_as_pg15(servers):
    pg, cu = servers
    expected = asyncio.run(_asyncpg_nul(pg.dsn()))
    assert expected[0][0] == "42601" and expected[2][0] == "22021"
    assert asyncio.run(_asyncpg_nul(cu.dsn())) == expected


def test_direct_arrow_schema_of_negative_scale(servers):
    """The direct API's Arrow type for numeric(5,-2) holds its 7-digit integers (was (38,18))."""
    pg, cu = servers
    assert_same_outcomes(pg, cu, "front2_columnar_negative_scale",
                         SCRIPTS["columnar_negative_scale"])
    with psycopg.connect(cu.dsn(dbname="front2_columnar_negative_scale"), autocommit=True) as c:
        raw = c.execute("select cumulo_describe('nn')").fetchone()[0]
        schema = pa.ipc.read_schema(pa.py_buffer(raw))
        got = [pa.ipc.open_stream(bytes(b)).read_all()
               for (b,) in c.execute("select cumulo_scan('nn', null)")]
    assert schema.field("v").type == pa.decimal128(7, 0)
    assert schema.field("w").type == pa.decimal128(4, 0)
    with psycopg.connect(pg.dsn(db="front2_columnar_negative_scale"), autocommit=True) as c:
        expected = c.execute("select id, v, w from nn order by id").fetchall()
    table = pa.concat_tables(got)
    rows = sorted(zip(table.column("id").to_pylist(), table.column("v").to_pylist(),
                      table.column("w").to_pylist(), strict=True))
    assert rows == expected
