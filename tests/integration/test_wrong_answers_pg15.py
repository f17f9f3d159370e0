"""Wrong answers clients' test suites met (issue 16), diffed with PostgreSQL 15.

Each script runs statement by statement on PostgreSQL 15 and on Cumulo (the runner of
`test_statements_pg15`): status, rows, SQLSTATE and message must match. The cases that
were wrong answers are also fetched through asyncpg (binary format, its own codecs), so
a second client sees PostgreSQL's values too.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes

SCRIPTS = {
    # MIN/MAX over an enum column follow the declared order, not the labels' text order,
    # whether grouped or not, and with a pushed filter under them.
    "enum_min_max": """
create type wa_mood as enum ('sad', 'ok', 'happy');
create table wa_e (id int primary key, g int, m wa_mood);
insert into wa_e values (1, 1, 'happy'), (2, 1, 'sad'), (3, 2, 'ok'), (4, 2, 'happy'), (5, 2, null);
select min(m), max(m) from wa_e;
select g, min(m), max(m), count(m) from wa_e group by g order by g;
select min(m), max(m) from wa_e where id > 1;
select max(m)::text from wa_e where g = 2;
select min(distinct m), max(distinct m), count(distinct m) from wa_e;
select id, min(m) over (), max(m) over (partition by g) from wa_e order by id;
select id, min(m) over (order by id), max(m) over (partition by g order by id) from wa_e order by id;
select id, min(m) over (order by id rows between 1 preceding and 1 following),
       max(m) over (order by id rows between 1 preceding and current row) from wa_e order by id;
""",
    # char(n) compares ignoring trailing blanks: = and IN, pushed into KiVi or not, as a
    # primary key (point gets) or not, find the blank-padded rows.
    "bpchar_compare": """
create table wa_c (id int primary key, c char(3), v varchar(3));
insert into wa_c values (1, 'a', 'a'), (2, 'b  ', 'b  '), (3, 'ab', 'ab'), (4, null, null);
select id from wa_c where c = 'a' order by id;
select id from wa_c where c in ('a', 'b') order by id;
select id from wa_c where c = 'b  ' order by id;
select id from wa_c where c in ('ab ', 'zz') order by id;
select id from wa_c where c <> 'a' order by id;
select id from wa_c where c not in ('a', 'b') order by id;
select id from wa_c where v in ('a', 'b') order by id;
select id, c from wa_c where c in ('a', 'b') and id < 3 order by id;
select count(*) from wa_c where c in ('a', 'b');
create table wa_k (k char(4) primary key, n int);
insert into wa_k values ('x', 1), ('yy  ', 2), ('zzz', 3);
select n from wa_k where k = 'x' order by n;
select n from wa_k where k in ('x', 'yy') order by n;
select n from wa_k where k in ('x ', 'zzz   ') order by n;
""",
    # IN is `=` per item: no implicit cast from integer to a string type (42883, PG's text).
    "in_list_operators": """
create table wa_v (id int primary key, v varchar(10), t text, c char(2), n numeric, d date);
insert into wa_v values (1, '1', '1', '1', 1, '2020-01-01');
select id from wa_v where v in (1, 2);
select id from wa_v where v = 1;
select id from wa_v where t in (1, 2);
select id from wa_v where c in (1);
select id from wa_v where t not in (1, 2);
select id from wa_v where v in ('1', '2');
select id from wa_v where n in (1, 2.5, '3');
select id from wa_v where id in (1.0, 2);
select id from wa_v where d in ('2020-01-01', current_date);
select id from wa_v where d in (1);
select id from wa_v where v in (t, 'x');
select id from wa_v where (id, v) in ((1, '1'), (2, '2'));
""",
    # A quoted array element type in CREATE TABLE; typed literals of PostgreSQL's own types.
    "parser_gaps": """
create table wa_n (b "oid"[], c "int4"[], d "text"[]);
insert into wa_n values ('{1,2}', '{3}', '{x}');
select b, c, d from wa_n;
select point '(1,2)', box '(1,1),(0,0)', inet '1.2.3.4', cidr '10.0.0.0/8';
select point '(1,2)'::text, inet '10.0.0.1/8' >> inet '10.1.2.3', 'a point ''(1,2)''';
select circle '<(0,0),1>', lseg '[(0,0),(1,1)]';
""",
    # NaN is one value to PostgreSQL (NaN = NaN): one group, matching join keys, on the row
    # path, with the aggregate pushed into KiVi, and on the columnar path; -0 = 0.
    "nan_keys": """
create table wa_f (id int primary key, f float8, n numeric);
insert into wa_f values (1, 0.0, 0), (2, -0.0, 0), (3, 'NaN', 'NaN'), (4, 'NaN', 'NaN'),
  (5, 1.5, 1.5), (6, null, null), (7, 'Infinity', 7), (8, 'NaN', 'NaN');
set cumulo.columnar = off;
select f::text, count(*) from wa_f group by f order by f;
select f::text, id % 2, count(*) from wa_f group by f, 2 order by f, 2;
select n::text, count(*) from wa_f group by n order by n;
select count(distinct f), count(distinct n) from wa_f;
select a.id, count(*) from wa_f a, wa_f b where a.f = b.f group by a.id order by 1;
select a.id, b.id from wa_f a join wa_f b on a.n = b.n and a.f = b.f where a.id < b.id order by 1, 2;
select f::text, count(*) from (select f from wa_f union all select 'NaN') s group by f order by f;
set cumulo.columnar = on;
select f::text, count(*) from wa_f group by f order by f;
select a.id, count(*) from wa_f a, wa_f b where a.f = b.f group by a.id order by 1;
reset cumulo.columnar;
""",
    # Records and arrays with NULL items sort item by item, a NULL item above every value
    # (PostgreSQL's record_cmp/array_cmp); Python's `<` on None was an internal error.
    "record_order": """
select r from (values ((1,2)),((null::int,3)),((1,null::int)),(null),((1,1))) v(r) order by 1;
select r from (values ((1,2)),((null::int,3)),((1,null::int)),(null),((1,1))) v(r) order by r desc;
select r from (values ((1,2)),((null::int,3)),((1,null::int)),((1,1))) v(r) order by r limit 2;
select distinct r from (values ((1,2)),((null::int,3)),((null::int,3))) v(r) order by r;
select r, count(*) from (values ((1,2)),((null::int,3)),((null::int,3))) v(r) group by r order by r;
select distinct on (r) r from (values ((1,2)),((null::int,3)),((1,null::int)),((1,null::int))) v(r) order by r;
select array_agg(r order by r) from (values ((1,2)),((null::int,3)),((1,null::int))) v(r);
select r, row_number() over (order by r) from (values ((1,'NaN'::float8)),((1,2::float8)),((1,null::float8))) v(r) order by 1;
select row(x, y) from (values (1,null),(1,2),(null,0)) v(x,y) order by 1;
select r from (values (row(1,row(null::int,1))),(row(1,row(2,1)))) v(r) order by 1;
select a from (values (array[1,null]),(array[1,2]),(array[null,1]::int[]),(array[1])) v(a) order by 1;
select a from (values (array[1,null]),(array[1,2]),(array[null,1]::int[]),(array[1])) v(a) order by 1 desc nulls last;
""",
    # <, >, min, max, GREATEST/LEAST on arrays and records with NULL items compare item by
    # item (array_cmp/record_cmp: a NULL item above every value); row constructors keep the
    # SQL standard's NULL answer. Python's `<` on None was an internal error.
    "array_record_compare": """
create table wa_ar (id int primary key, g int, a int[]);
insert into wa_ar values (1, 1, '{1,NULL}'), (2, 1, '{1,2}'), (3, 2, '{NULL,0}'), (4, 2, '{3}'),
  (5, 3, '{1}'), (6, 4, null), (7, 5, '{2}'), (8, 6, '{2,NULL}'), (9, 7, '{NULL}');
select array[1,null] < array[1,2], array[1,null] > array[1,2], array[null,1]::int[] = array[null,1]::int[];
select id from wa_ar where a > array[1,1] order by id;
select id from wa_ar where a <= array[2] order by id;
select max(a), min(a) from wa_ar;
select g, max(a), min(a) from wa_ar group by g order by g;
select id, max(a) over (order by id), min(a) over (),
       max(a) over (order by id rows between 1 preceding and current row) from wa_ar order by id;
select greatest(array[1,null], array[1,2]), least(array[1,null], array[1,2]);
select r < r2, r >= r2, r2 > r from (values ((1,null::int), (1,2))) v(r, r2);
select (1,null::int) < (1,2), (1,null::int) < (2,2), row(1,null::int) <= row(1,2);
""",
    # json_agg puts ", \n " between records and arrays (not before a NULL), ", " between
    # scalars and json values; jsonb_agg prints as jsonb does.
    "json_agg_layout": """
create table wa_j (id int primary key, g int, t text, a int[], j json);
insert into wa_j values (1, 1, 'a', '{1,2}', '{"k":1}'), (2, 1, null, null, '[2]'), (3, 2, 'c', '{3}', null);
select json_agg(id order by id), json_agg(t order by id), json_agg(j order by id) from wa_j;
select json_agg(a order by id), jsonb_agg(a order by id), json_agg(a) filter (where a is not null) from wa_j;
select json_agg(w order by id), jsonb_agg(w order by id) from wa_j w;
select g, json_agg(w order by id) from wa_j w group by g order by g;
select json_agg(row(id, t) order by id), json_agg(distinct (g, 1)) from wa_j;
select json_agg(v) from (values (1,'x'),(2,null)) v(a,b);
select id, json_agg(w) over (order by id), jsonb_agg(w) over () from wa_j w order by id;
select id, json_agg(a) over (order by id rows between 1 preceding and current row),
       array_agg(a) over (order by id) from wa_j where a is not null order by id;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"wa_{name}", SCRIPTS[name])


ASYNCPG_QUERIES = (
    "select min(m)::text, max(m)::text from wa_e",
    "select g, min(m)::text, max(m)::text from wa_e group by g order by g",
    "select min(m)::text from wa_e where m <> 'sad'",
)


def test_enum_min_max_through_asyncpg(servers):
    """The same table, read through asyncpg's binary protocol, gives PostgreSQL's rows."""
    pg, cu = servers
    assert_same_outcomes(pg, cu, "wa_async_enum", SCRIPTS["enum_min_max"])
    exp = asyncio.run(_fetch(pg.dsn(db="wa_async_enum")))
    got = asyncio.run(_fetch(cu.dsn(dbname="wa_async_enum")))
    assert got == exp
    assert exp == [[("sad", "happy")], [(1, "sad", "happy"), (2, "ok", "happy")], [("ok",)]]


async def _fetch(dsn: str, queries: tuple[str, ...] = ASYNCPG_QUERIES) -> list[list[tuple]]:
    conn = await asyncpg.connect(dsn)
    try:
        return [[tuple(r) for r in await conn.fetch(q)] for q in queries]
    finally:
        await conn.close()


BPCHAR_QUERIES = (
    "select id, c from wa_c where c in ('a', 'b') order by id",
    "select n, k from wa_k where k in ('x', 'yy') order by n",
)


def test_bpchar_in_through_asyncpg(servers):
    """char(n) IN, through asyncpg's binary protocol: PostgreSQL's rows, padded values."""
    pg, cu = servers
    assert_same_outcomes(pg, cu, "wa_async_bpchar", SCRIPTS["bpchar_compare"])
    exp = asyncio.run(_fetch(pg.dsn(db="wa_async_bpchar"), BPCHAR_QUERIES))
    got = asyncio.run(_fetch(cu.dsn(dbname="wa_async_bpchar"), BPCHAR_QUERIES))
    assert got == exp
    assert exp == [[(1, "a  "), (2, "b  ")], [(1, "x   "), (2, "yy  ")]]


async def _error_and_literals(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("drop table if exists wa_va")
        await conn.execute("create table wa_va (id int primary key, v varchar(10), c char(3))")
        await conn.execute("insert into wa_va values (1, '1', 'a'), (2, '2', 'b')")
        out: list = []
        for q in ("select id from wa_va where v in (1, 2)", "select id from wa_va where v not in (1)"):
            try:
                await conn.fetch(q)
                out.append("no error")
            except asyncpg.PostgresError as e:
                out.append((e.sqlstate, e.message, e.hint))
        out.append([tuple(r) for r in await conn.fetch(
            "select id, c from wa_va where c = any($1::bpchar[]) or c in ('b') order by id", ["x"])])
        out.append(tuple(await conn.fetchrow(
            "select inet '1.2.3.4', cidr '10.0.0.0/8', point '(1,2)'::text, box '(1,1),(0,0)'::text")))
        await conn.execute("drop table wa_va")
        return out
    finally:
        await conn.close()


def test_in_list_errors_and_typed_literals_through_asyncpg(servers):
    """asyncpg (extended protocol, binary results) sees PostgreSQL's SQLSTATEs, messages and values."""
    pg, cu = servers
    exp = asyncio.run(_error_and_literals(pg.dsn()))
    got = asyncio.run(_error_and_literals(cu.dsn()))
    assert got == exp
    hint = ("No operator matches the given name and argument types. "
            "You might need to add explicit type casts.")
    assert exp[0] == ("42883", "operator does not exist: character varying = integer", hint)
    assert exp[1] == ("42883", "operator does not exist: character varying <> integer", hint)


JSON_AGG_QUERIES = (
    "select json_agg(w order by id) from wa_j w",
    "select json_agg(a order by id), json_agg(t order by id) from wa_j",
)


def test_json_agg_layout_through_asyncpg(servers):
    """asyncpg hands json over as text: PostgreSQL's json_agg spacing arrives byte for byte."""
    pg, cu = servers
    assert_same_outcomes(pg, cu, "wa_async_json", SCRIPTS["json_agg_layout"])
    exp = asyncio.run(_fetch(pg.dsn(db="wa_async_json"), JSON_AGG_QUERIES))
    got = asyncio.run(_fetch(cu.dsn(dbname="wa_async_json"), JSON_AGG_QUERIES))
    assert got == exp
    assert exp[1] == [('[[1,2], null, \n [3]]', '["a", null, "c"]')]


RECORD_QUERIES = (
    "select r from (values ((1,2)),((null::int,3)),((1,null::int)),(null)) v(r) order by r desc",
    "select max(a), min(a) from (values (array[1,null]),(array[1,2])) v(a)",
)


def test_record_and_array_order_through_asyncpg(servers):
    """asyncpg decodes the binary records and arrays with NULL items in PostgreSQL's order."""
    pg, cu = servers
    exp = asyncio.run(_fetch(pg.dsn(), RECORD_QUERIES))
    got = asyncio.run(_fetch(cu.dsn(), RECORD_QUERIES))
    assert got == exp
    assert exp == [[(None,), ((None, 3),), ((1, None),), ((1, 2),)], [([1, None], [1, 2])]]
