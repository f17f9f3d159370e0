"""Differential query tests: each query's column names and rows on Cumulo equal PostgreSQL 15's.

One PostgreSQL 15 and the session's `cumulo serve` get the same small tables;
every query below then runs on both and must give the same result (column
names and rows as psycopg decodes them, in order: each query fixes its order
or returns one row), or the same SQLSTATE when PostgreSQL raises an error.
The queries cover the compiler's own surface: aggregates (streaming and
materialised), window frames, DISTINCT ON, set operations, subqueries,
char(n) semantics, numeric scales, json/array/bitwise operators, casts and
their text forms, and the special forms sqlglot rewrites (date_trunc,
extract, LIKE ... ESCAPE, SIMILAR TO, to_char, AT TIME ZONE).
"""

from __future__ import annotations

import psycopg
import pytest

from tests import pg15 as pg15_mod

SETUP = [
    "create table e1 (id int primary key, dept text, sal numeric(10,2), hired date, tags text[], "
    "ok boolean)",
    "insert into e1 values (1,'a',100.50,'2020-01-01','{x,y}',true),"
    "(2,'a',200,'2021-02-03','{y}',false),(3,'b',300.25,'2019-05-06',null,null),"
    "(4,null,50,'2022-07-08','{}',true),(5,'a',200,'2021-02-03','{y}',false)",
    "create table s1 (id int primary key, x int, f float8, n numeric(6,2), t text, j jsonb)",
    "insert into s1 values (1, 1, 1.5, 1.25, 'a', '{\"k\":1}'), (2, 2, 2.5, 2.50, 'b', '[1]'), "
    "(3, 3, 4.0, 3.75, null, null), (4, 7, 0.5, 10.00, 'd\"q', '\"s\"')",
    "create table c1 (k int primary key, n char(10), v varchar(10))",
    "insert into c1 values (1, 'Germany', 'Germany'), (2, 'France ', 'x'), (3, null, null)",
    "create table dq (id int primary key, dept int, name text, sal int)",
    "insert into dq values (1, 1, 'ann', 10), (2, 1, 'bob', 30), (3, 2, 'cy', 20), "
    "(4, null, 'dee', 5), (5, 2, 'eve', 20)",
    "create table dqw (col1 int primary key, col2 int, d date, n numeric)",
    "insert into dqw select g, g * 5, date '2020-01-01' + (g / 2), g / 3.0 "
    "from generate_series(1, 12) g",
    # NaN in float8 and numeric columns: PostgreSQL's NaN equals itself and sorts above
    # every number, also when the comparison could be pushed into a KiVi scan
    "create table nanf (id int primary key, x float8, y float8, n numeric, m numeric)",
    "insert into nanf values (1, 'NaN', 'NaN', 'NaN', 'NaN'), (2, 1, 2, 1, 2), (3, 3, 3, 3, 3), "
    "(4, null, 1, null, 1)",
    "create table ft (id int primary key, x int, y int)",
    "insert into ft values (1,1,2),(2,2,3),(3,3,4),(4,4,5),(5,4,6)",
    "create table tz1 (id int primary key, t timetz)",
    "insert into tz1 values (1, '01:02:03.500000+00:00'::timetz), (2, '10:00+05:30')",
]

QUERIES = [
    "select id from nanf where x <> x order by id",
    "select id from nanf where x = x order by id",
    "select id from nanf where x > 1 order by id",
    "select id from nanf where x in (1, 'NaN') order by id",
    "select id from nanf where x = y or n = m order by id",
    "select id from nanf where n = m order by id",
    "select id from nanf where n > 1 order by id",
    "select id from nanf where x >= 'Infinity' and not (x < 2) order by id",
    # aggregates
    "select dept, count(*), sum(sal), avg(sal), min(hired), max(hired), string_agg(id::text, ',' "
    "order by id), array_agg(id order by id desc) from e1 group by dept order by dept nulls first",
    "select count(distinct dept), count(dept), count(*) filter (where ok) from e1",
    "select bool_and(ok), bool_or(ok), every(ok) from e1",
    "select json_agg(x order by id), jsonb_agg(t order by id), json_agg(j order by id), "
    "jsonb_agg(j order by id), json_agg(n order by id) from s1",
    "select stddev(x), variance(x), stddev_samp(f), stddev_pop(x), var_pop(n), stddev(n) from s1",
    "select x % 2 as p, count(*), sum(f), avg(n), max(t) from s1 group by 1 order by 1",
    "select count(*), sum(g), avg(g) from generate_series(1, 20000) g",
    "select g % 3, count(*), sum(g), min(g), max(g) from generate_series(1, 20000) g group by 1 "
    "order by 1",
    "select sum(x) from s1 where x > 100",
    "select array[id % 2], count(*) from e1 group by 1 order by 2",
    # windows
    "select id, rank() over (partition by dept order by sal desc), row_number() over (order by "
    "id), lag(sal) over (order by id), lead(sal, 2, 0) over (order by id), sum(sal) over (order "
    "by id rows between 1 preceding and current row) from e1 order by id",
    "select id, sum(sal) over (order by sal), count(*) over (order by sal rows unbounded "
    "preceding), avg(sal) over (order by sal range between current row and unbounded following),"
    " max(id) over (order by sal rows between 1 following and 2 following), min(sal) over "
    "(partition by dept order by id rows between 2 preceding and 1 preceding) from e1 order by id",
    "select id, first_value(id) over w, last_value(id) over w, nth_value(id, 2) over w from e1 "
    "window w as (order by sal rows between 1 preceding and 1 following) order by id",
    "select id, sum(sal) over (partition by dept), avg(sal) over (), count(*) over (order by "
    "hired) from e1 order by id",
    "select dense_rank() over (order by dept), dept from e1 order by 1, 2",
    "select id, ntile(2) over (order by id), percent_rank() over (order by id), cume_dist() over "
    "(order by id) from e1 order by id",
    "select col1, max(col2) over (order by col1 rows between 5 following and 20 following) "
    "from dqw order by col1",
    "select col1, sum(col1) over (order by col1 range between 1 preceding and 1 following) "
    "from dqw order by col1",
    "select col1, sum(col1) over (order by col1 desc range between 1 preceding and 2 following) "
    "from dqw order by col1",
    "select col1, count(*) over (order by d range between interval '1 day' preceding and "
    "current row) from dqw order by col1",
    "select col1, sum(col1) over (order by n range between 0.5 preceding and 0.5 following) "
    "from dqw order by col1",
    "select col1, sum(col1) over (order by col1 range between -1 preceding and 1 following) "
    "from dqw order by col1",
    "select max(col1) over (partition by n order by n range between current row and 1 following)"
    " from dqw where col1 < 10",
    "select col1, max(col1) over (partition by col1 % 4 order by col1) from dqw",
    # DISTINCT ON, set operations, subqueries
    "select distinct on (dept) dept, name from dq order by dept nulls first, sal desc",
    "select distinct on (dept) dept, id from e1 order by dept, id desc",
    "select id from e1 intersect select id from e1 where id > 2 order by 1",
    "select id from e1 except all select 2 order by 1",
    "select id from e1 where exists (select 1 from e1 e2 where e2.dept = e1.dept and e2.id <> "
    "e1.id) order by 1",
    "select id, (select max(id) from e1 e2 where e2.dept = e1.dept) from e1 order by 1",
    "select id from e1 where sal > all (select sal from e1 where dept = 'a') order by 1",
    "select a.id, b.id from e1 a full join e1 b on a.id = b.id + 3 order by 1 nulls first, "
    "2 nulls first",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 5) select sum(n) "
    "from r",
    "select x, y from generate_series(1,3) x, generate_series(1,3) y where x < y order by 1, 2",
    "select generate_series(1, 3), generate_series(1, 2)",
    "select id, x, y from ft order by x fetch first 2 rows with ties",
    "select id, x, y from ft order by x offset 2 rows fetch first 2 rows with ties",
    "select id, x, y from ft order by x desc fetch first 1 rows with ties",
    "select id from ft fetch first 2 rows with ties",
    # char(n)
    "select k, n = 'Germany', n::text, length(n), n like 'Ger%', n || '|', v = 'Germany' from c1 "
    "order by k",
    "select k from c1 where n = 'Germany'",
    "select k from c1 where n = 'France'",
    "select a.k, b.k from c1 a join c1 b on a.n = b.v order by 1",
    "select 'ab'::char(3) like 'ab', 'ab'::char(3) like 'ab_', 'ab'::char(3) || 'x', "
    "length('ab'::char(3)), 'ab'::char(3) = 'ab '::text, 'ab'::char(5)::varchar = 'ab'",
    "select 'abc'::varchar(2), 'abc'::char(2), ''::\"char\" = '', 'ab'::\"char\"",
    # numeric scales
    "select 1.0/3, 2011.0/2011, 10::numeric/3, 123456789.123/7, 0.001/7, 7/0.001, 5::numeric/2",
    "select 2.0 ^ 10, 1.5 ^ 2, 10.0 ^ -2, 100.0 ^ 0.5, 7.5 ^ 1.5, 0.5 ^ 20",
    "select cast(30000000000000000000000000000000000000 as numeric(38, 0)), "
    "cast(3e37 as numeric(38,0)) / cast(1e37 as numeric(38,0))",
    "select 319438950232418390.273596::numeric * 87673.594069654243",
    "select div(7.5, 2), div(9, 4), 7 / 2, 7 % 2",
    # operators
    "select 5 & 3, 5 | 3, 5 # 3, ~5, 1 << 4, 16 >> 2, 7::int8 & 3",
    "select '{\"a\":1,\"b\":[1,2]}'::json -> 'b', '{\"a\":1}'::jsonb ->> 'a', "
    "'{\"a\":{\"c\":3}}'::jsonb #> '{a,c}', '[1,2,3]'::jsonb @> '[2]'",
    "select '{\"a\":{\"c\":[1,\"x\"]}}'::jsonb #>> '{a,c,1}', '{\"a\":null}'::jsonb ->> 'a', "
    "'[1,2]'::json -> 1, '{\"a\":1}'::jsonb ? 'a', '{\"a\":1}'::jsonb <@ '{\"a\":1,\"b\":2}'",
    "select array[1,2,3] @> array[2], array[1,2] <@ array[1], array[1,2] && array[2,5]",
    "select id from e1 where tags @> array['y'] order by id",
    # special forms and casts
    "select date_trunc('day', timestamp '2020-01-02 03:04:05'), date_trunc('month', "
    "date '2020-01-05')",
    "select extract(epoch from timestamp '2020-01-02 03:04:05'), extract(year from "
    "date '2020-03-04')",
    "select 'abc' not like 'a!%' escape '!', 'a%c' like 'a!%c' escape '!', 'abc' similar to 'a%',"
    " 'abc' not similar to '(a|b)%', initcap('hi there')",
    "select to_char(date '2020-03-04', 'YYYY-MM'), to_char(timestamp '2020-03-04 05:06:07', "
    "'YYYY-MM-DD HH24:MI:SS'), to_date('2020-01-02', 'YYYY-MM-DD')",
    "select timestamp '2020-01-01 10:00' at time zone 'UTC'",
    "select '2020-01-01 10:00:00.123'::timestamp::text, '10:00:00.5'::time::text, "
    "array[true,false]::text, '1 2'::int2vector::text",
    "select '2020-01-01 10:00:00.123456'::timestamp(3), '10:00:00.5'::time(0)",
    "select id, t, t::text from tz1 order by id",
    "select pg_typeof(1::int2 + 1::int2), pg_typeof(1.5), pg_typeof('a'), pg_typeof(array[1])",
    "select 'pg_class'::regclass::oid = 1259, ('pg_class'::regclass)::int",
    "select tableoid::regclass, relname from pg_class where relname = 'pg_class'",
    # errors
    "select nosuch from e1",
    "select 1 / 0",
    "select 'abc'::int",
    "select 9223372036854775807::int8 + 1",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    pg_dsn, cu_dsn = pg15_mod.same_schema(pg15, cumulo_server, "qpg15", SETUP)
    with psycopg.connect(pg_dsn, autocommit=True) as p, \
            psycopg.connect(cu_dsn, autocommit=True) as c:
        yield p, c


def outcome(conn: psycopg.Connection, sql: str) -> tuple:
    try:
        cur = conn.execute(sql)
        return [d.name for d in cur.description], cur.fetchall()
    except psycopg.Error as e:
        return "error", e.sqlstate, str(e).split("\n")[0]


@pytest.mark.parametrize("sql", QUERIES, ids=[q[:70] for q in QUERIES])
def test_same_as_pg15(conns, sql):
    pg, cu = conns
    assert outcome(cu, sql) == outcome(pg, sql)


PARAM_QUERIES = [
    ("select col1, max(col2) over (order by col1 rows between %s::integer following and "
     "%s::integer following) from dqw order by col1", (2, 5)),
    ("select col1, sum(col1) over (order by col1 rows between %s preceding and current row) "
     "from dqw order by col1", (3,)),
    ("select col1, sum(col1) over (order by col1 rows between %s preceding and current row) "
     "from dqw order by col1", (-1,)),
    ("select k from c1 where n = %s order by k", ("Germany",)),
    ("select %s::jsonb ->> %s, %s::jsonb #>> %s", ('{"a": 1}', "a", '{"b": {"c": 2}}', "{b,c}")),
]


@pytest.mark.parametrize("sql,params", PARAM_QUERIES, ids=[q[0][:60] for q in PARAM_QUERIES])
def test_same_as_pg15_with_parameters(conns, sql, params):
    pg, cu = conns

    def outcome_p(conn):
        try:
            cur = conn.execute(sql, params)
            return [d.name for d in cur.description], cur.fetchall()
        except psycopg.Error as e:
            return "error", e.sqlstate, str(e).split("\n")[0]

    assert outcome_p(cu) == outcome_p(pg)
