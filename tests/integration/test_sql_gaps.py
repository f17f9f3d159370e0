"""SQL a PostgreSQL user expects (issue 3's gaps), run on Cumulo and on PostgreSQL 15 and compared.

Each script is a list of statements sent one by one over an autocommit
psycopg connection. For every statement both servers must agree on the
command tag, the result column names and type OIDs and the rows, or on the
SQLSTATE and primary message of the error. Every query that returns several
rows has an ORDER BY that makes the order total, so rows compare as lists.
Each script runs in a database of its own on both servers.

Covered: GROUP BY ROLLUP / CUBE / GROUPING SETS with GROUPING(); named
function arguments (`=>`, `:=`); multi-dimensional arrays; CREATE INDEX
... INCLUDE and expression indexes; cursors (SCROLL, FETCH directions, MOVE,
WITH HOLD, pg_cursors); unnest of several arrays, ROWS FROM, WITH ORDINALITY
and date_part's result type.
"""

from __future__ import annotations

import asyncio
import subprocess

import asyncpg
import psycopg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes, fresh_database

SCRIPTS: dict[str, str] = {}

SCRIPTS["grouping_sets"] = """
create table g (a text, b text, n int);
insert into g values ('x', 'p', 1), ('x', 'q', 2), ('y', 'p', 3), ('y', null, 4);
select a, b, sum(n) from g group by rollup (a, b) order by a, b, 3;
select a, b, sum(n), grouping(a, b) from g group by cube (a, b)
  order by a nulls first, b nulls first, 4;
select a, b, count(*) from g group by grouping sets ((a), (b), ()) order by 1, 2, 3;
select a, sum(n) from g group by rollup (a) having sum(n) > 3 order by 1;
select a, b, sum(n) from g group by a, rollup (b) order by 1, 2, 3;
select a, b, grouping(a), grouping(b, a), count(*) from g
  group by grouping sets (a, rollup(b)) order by 1, 2, 3, 4;
select count(*) from g group by ();
select count(*) from g where false group by rollup (a);
select count(*) from g where false group by cube (a, b);
select a, b, count(*) from g group by rollup ((a, b)) order by 1, 2;
select a as x, count(*) from g group by cube (x) order by 1;
select a, count(*) from g group by rollup (1) order by 1;
select a, grouping(a) from g group by a order by 1;
select a, grouping(b) from g group by a;
select a, b, sum(n) filter (where n > 1), string_agg(b, ',' order by b) from g
  group by cube (a, b) order by 1, 2, 3;
select coalesce(a, 'all'), sum(n) from g group by rollup (a) order by grouping(a), 1;
select a, count(*) from g group by grouping sets ((a), (a)) order by 1;
select a, b, avg(n)::numeric(10, 2) from g group by grouping sets ((a, b), a) order by 1, 2, 3;
select * from (select a, sum(n) s from g group by rollup (a)) q where a is null;
select a, rank() over (order by sum(n) desc) from g group by rollup (a) order by 2, 1;
"""

# NB: years and months are left out: Cumulo's interval is a timedelta (a month is 30 days).
SCRIPTS["named_arguments"] = """
select make_interval(secs => 1.5);
select make_interval(days => 2, hours => 3);
select make_interval(hours := 3, days := 2);
select make_interval(0, 0, 1, days => 2);
select make_interval(0, 0, 0, 1);
select make_interval(0, 0, 1);
select make_interval();
select make_interval(foo => 1);
select make_date(year => 2020, 2, 3);
select make_interval(mins => 90)::text;
select make_date(year => 2020, month => 2, day => 3);
select make_date(2020, day => 3, month => 2);
select make_date(2020, 2);
select make_timestamp(2020, 1, 2, 3, 4, 5.5);
select make_timestamp(year => 2020, month => 1, mday => 2, hour => 3, min => 4, sec => 5.5);
select make_timestamptz(2020, 1, 2, 3, 4, 5.5, timezone => 'UTC');
select make_interval(secs => $$2.5$$);
select make_interval(days => 1, days => 2);
select make_interval(1, years => 2);
select make_interval(weeks => 1, 2);
select make_time(1, 2, 3.5), make_time(1, 2, 60), make_time(1, 2, 3.1234567);
select make_time(25, 0, 0);
select make_time(1, 2, -1);
select make_time(sec => 1, min => 2, hour => 3);
"""

SCRIPTS["multidim_arrays"] = """
select '{{1,2},{3,4}}'::int[];
select '{{1,2},{3}}'::int[];
select '{{a,"b c"},{NULL,d}}'::text[];
select (ARRAY[[1,2],[3,4]])[2][1];
select (ARRAY[[1,2],[3,4]])[2];
select (ARRAY[[1,2],[3,4]])[3][1];
select (ARRAY[1,2,3])[2], (ARRAY[1,2,3])[1][1];
select (ARRAY[1,2,3,4])[2:3], (ARRAY[1,2,3,4])[:2], (ARRAY[1,2,3,4])[3:], (ARRAY[1,2,3,4])[5:6];
select (ARRAY[[1,2,3],[4,5,6]])[1:2][2:3], (ARRAY[[1,2,3],[4,5,6]])[2][2:3], (ARRAY[[1,2,3],[4,5,6]])[2:2];
select array_dims(ARRAY[[1,2],[3,4]]), array_ndims(ARRAY[[1,2],[3,4]]), array_length(ARRAY[[1,2,3],[3,4,5]], 2), cardinality(ARRAY[[1,2],[3,4]]);
select array_dims('{}'::int[]), array_ndims('{}'::int[]), array_length('{}'::int[], 1), cardinality('{}'::int[]);
select array_upper(ARRAY[[1,2,3],[3,4,5]], 2), array_lower(ARRAY[[1,2,3],[3,4,5]], 1);
select unnest(ARRAY[[1,2],[3,4]]);
select ARRAY[ARRAY[1,2], ARRAY[3,4]];
select ARRAY[[1,2],[3]];
create table ma (id int primary key, m int[], t text[]);
insert into ma values (1, '{{1,2},{3,4}}', '{{a,b},{c,d}}'), (2, ARRAY[[5,6,7]], null), (3, '{1,2}', '{x}');
select * from ma order by id;
select id, m[1][2], array_dims(m), t[2][1] from ma order by id;
select array_to_string(ARRAY[[1,2],[3,4]], ',');
select ARRAY[[1,2],[3,4]] = '{{1,2},{3,4}}'::int[];
select array_cat(ARRAY[[1,2]], ARRAY[[3,4]]);
select array_agg(m) from ma where id = 3;
select generate_subscripts(ARRAY[[1,2],[3,4]], 2);
select array[array[1,2], null];
select array[null::int[], null];
select array['{}'::int[], '{}'];
select array_agg(x) from (values ('{1,2}'::int[]), ('{3}')) v(x);
select array_agg(x) from (values ('{1,2}'::int[]), (null)) v(x);
select array_agg(x) from (values ('{{1,2}}'::int[]), ('{{3,4}}')) v(x);
"""

SCRIPTS["index_include_and_expressions"] = """
create table ix (id int primary key, name text, v int, w int);
create index ix_inc on ix (v) include (name);
create index on ix (v, w) include (name, id);
select indexdef from pg_indexes where tablename = 'ix' order by indexname;
select pg_get_indexdef('ix_inc'::regclass), pg_get_indexdef('ix_inc'::regclass, 1, true), pg_get_indexdef('ix_inc'::regclass, 2, true);
select indnatts, indnkeyatts, indkey, indexprs is null from pg_index where indexrelid = 'ix_inc'::regclass;
select attname, attnum, atttypid from pg_attribute where attrelid = 'ix_inc'::regclass order by attnum;
select relnatts from pg_class where relname = 'ix_inc';
create index ix_expr on ix (lower(name));
create unique index ix_uexpr on ix (upper(name));
create index on ix ((v + w), lower(name) desc, id);
create index on ix (abs(v));
create index on ix (nosuch(v));
create index on ix (lower(nosuch));
select indexname, indexdef from pg_indexes where tablename = 'ix' order by indexname;
select pg_get_indexdef('ix_v_w_name_id_idx'::regclass, 3, true);
select pg_get_indexdef(indexrelid, 1, true), pg_get_indexdef(indexrelid, 2, true), pg_get_indexdef(indexrelid, 2, false) from pg_index where indrelid = 'ix'::regclass and indkey[0] = 0 order by 1;
select indnatts, indnkeyatts, indkey from pg_index where indrelid = 'ix'::regclass order by indexrelid;
select c.relname, a.attname, a.attnum, a.atttypid from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_index i on i.indexrelid = c.oid where i.indrelid = 'ix'::regclass order by 1, 3;
insert into ix values (1, 'a', 1, 2), (2, 'b', 2, 3);
insert into ix values (3, 'A', 1, 1);
insert into ix values (3, 'c', 1, 1), (4, 'C', 1, 1);
update ix set name = 'B' where id = 1;
update ix set name = 'Z' where id = 1;
select * from ix where lower(name) = 'z' order by id;
select * from ix where upper(name) = 'B' order by id;
delete from ix where id = 1;
insert into ix values (5, 'z', 0, 0);
select * from ix order by id;
create unique index on ix (lower(name));
insert into ix values (6, 'B', 0, 0);
create unique index ix_dupl on ix ((v % 2));
alter table ix drop column w;
select indexname from pg_indexes where tablename = 'ix' order by indexname;
drop index ix_expr;
select indexname from pg_indexes where tablename = 'ix' order by indexname;
select pg_get_indexdef(indexrelid, 0, true) from pg_index where indrelid = 'ix'::regclass
  order by 1;
"""

SCRIPTS["expression_index_lookups"] = """
create table ex (id int primary key, name text, v int);
insert into ex select g, 'N' || g, g % 7 from generate_series(1, 2000) g;
create index ex_lower on ex (lower(name));
create index ex_sum on ex ((v + id));
analyze ex;
select * from ex where lower(name) = 'n42';
select * from ex where lower(name) = 'N42';
select * from ex where v + id = 44 and v > 0 order by id;
select * from ex where 'n7' = lower(name);
prepare q(text) as select id from ex where lower(name) = $1;
execute q('n9');
update ex set name = 'Q9' where id = 9;
execute q('n9');
execute q('q9');
"""

SCRIPTS["cursors"] = """
create table cu (id int primary key, v text);
insert into cu select g, 'v' || g from generate_series(1, 10) g;
begin;
declare c scroll cursor for select * from cu order by id;
fetch 2 from c;
fetch next from c;
fetch c;
fetch prior from c;
fetch first from c;
fetch last from c;
fetch absolute 3 from c;
fetch absolute -2 from c;
fetch relative 2 from c;
fetch relative -3 from c;
fetch backward 2 from c;
fetch forward 3 from c;
fetch all from c;
fetch backward all from c;
fetch 0 from c;
move 3 in c;
fetch 1 from c;
move backward 2 in c;
move absolute 5 in c;
fetch c;
move last in c;
move forward all in c;
fetch backward 1 from c;
fetch absolute 100 from c;
fetch prior from c;
select name, statement, is_holdable, is_binary, is_scrollable from pg_cursors order by name;
close c;
fetch c;
rollback;
begin;
declare nc cursor for select * from cu order by id;
fetch 2 from nc;
fetch backward 1 from nc;
rollback;
begin;
declare nc2 no scroll cursor for select * from cu order by id;
fetch 2 from nc2;
fetch prior from nc2;
rollback;
begin;
declare h cursor with hold for select * from cu where id <= 4 order by id;
fetch 1 from h;
commit;
fetch 1 from h;
select name, is_holdable from pg_cursors;
fetch all from h;
close h;
declare x cursor for select 1;
begin;
declare b binary cursor for select 1;
declare c1 cursor for select id from cu order by id;
declare c1 cursor for select id from cu;
rollback;
begin;
declare h2 scroll cursor with hold for select id from cu order by id;
commit;
fetch last from h2;
fetch backward 2 from h2;
move absolute 0 in h2;
fetch next from h2;
close all;
select count(*) from pg_cursors;
begin;
declare s scroll cursor for select id from cu order by id;
fetch 3 from s;
fetch 0 from s;
fetch relative 0 from s;
fetch backward 0 from s;
fetch forward 0 from s;
move forward 100 in s;
fetch backward 0 from s;
fetch prior from s;
move backward all in s;
fetch next from s;
move relative 4 in s;
fetch relative -1 from s;
move absolute -1 in s;
fetch next from s;
fetch next from s;
fetch prior from s;
declare ns no scroll cursor for select id from cu order by id;
fetch 2 from ns;
fetch absolute 5 from ns;
fetch relative 1 from ns;
fetch forward all from ns;
fetch absolute 1 from ns;
commit;
begin;
declare ns no scroll cursor for select id from cu order by id;
move last in ns;
fetch first from ns;
rollback;
"""

SCRIPTS["rows_from_unnest_date_part"] = """
select date_part('year', date '2020-05-01'), pg_typeof(date_part('year', timestamp '2020-05-01'));
select extract(year from date '2020-05-01'), pg_typeof(extract(year from date '2020-05-01'));
select date_part('epoch', timestamp '2020-05-01 10:00:00.5'), date_part('second', time '10:11:12.25'), date_part('day', interval '3 days 4 hours');
select date_part('dow', timestamptz '2020-05-01 10:00+00'), date_part('month', date '2020-12-31');
select date_part('year', d) from (values (date '2001-02-03'), (null)) v(d) order by 1;
select date_part('quarter', now()) between 1 and 4;
select * from unnest(array[1,2], array['a','b','c']);
select * from unnest(array[1,2], array['a','b','c']) with ordinality;
select * from unnest(array[1,2], array['a','b','c']) with ordinality as t(x, y, n);
select * from unnest(array[1,2]) with ordinality as t(x, n);
select * from rows from (unnest(array[1,2]), generate_series(1,3));
select * from rows from (unnest(array[1,2]), generate_series(1,3)) with ordinality as r(a, b, o);
select * from rows from (generate_series(1,2), unnest(array['x','y','z'], array[true]));
select t.* from unnest(array[10,20]) with ordinality t;
create table uo (id int primary key, a int[]);
insert into uo values (1, '{5,6}'), (2, '{7}');
select id, x, n from uo, unnest(a) with ordinality as u(x, n) order by id, n;
select id, x, y from uo cross join lateral unnest(a, array['p','q']) as u(x, y) order by id, x nulls last, y;
select * from unnest(array[1,2], array[3]);
select * from generate_series(1,2) a, generate_series(3,4) a2 order by 1, 2;
select * from (select 1 as x, 2 as x) q;
select * from rows from (generate_series(1, 3), generate_series(10, 11)) as g order by 1;
"""

# From the findings board (tz): an ORDER BY name shared by two different output columns.
SCRIPTS["order_by_ambiguous_output_name"] = """
create table t (id int, ts timestamptz, a int);
insert into t values (1, '2020-01-01', 2), (2, '2019-01-01', 1);
select id, ts, ts::timestamp from t order by ts;
select id, a, a from t order by a;
select id as a, a from t order by a;
select a, a + 0 as a from t order by a;
select id, id from t order by id desc;
select * from t t1, t t2 where t1.id = t2.id order by id;
"""

SCRIPTS["on_conflict_expression_index"] = """
create table oc (id int primary key, email text, n int default 0);
create unique index oc_email on oc (lower(email));
insert into oc values (1, 'A@x', 0);
insert into oc values (2, 'a@X', 0) on conflict do nothing;
insert into oc values (3, 'a@X', 0) on conflict (lower(email)) do nothing;
insert into oc values (4, 'a@X', 0) on conflict (lower(email)) do update set n = oc.n + 1 returning *;
insert into oc values (5, 'b@x', 0), (6, 'B@X', 0) on conflict (lower(email)) do update set n = oc.n + 1;
insert into oc values (7, 'c@x', 0) on conflict (upper(email)) do nothing;
insert into oc values (1, 'z@x', 0) on conflict (id) do update set email = excluded.email returning *;
insert into oc values (8, 'Z@X', 0);
select * from oc order by id;
"""


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"gaps_{name}", SCRIPTS[name], types=True)


def _array_round_trips(dsn: str) -> list:
    """Nested Python lists through psycopg (text and binary) and asyncpg (binary)."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("create table rt (id int primary key, a int[], t text[], f float8[])")
        c.execute("insert into rt values (%s, %s, %s, %s)",
                  (1, [[1, 2], [3, 4]], [["a", None], ["b c", "d"]], [[1.5], [2.5]]))
        c.execute("insert into rt values (%b, %b, %b, %b)", (2, [[5, 6, 7]], [["x"]], [[[1.0]]]))
        for binary in (False, True):
            cur = c.cursor(binary=binary)
            out.append(cur.execute("select * from rt order by id").fetchall())
            out.append(cur.execute("select a[2][1], array_dims(a), %s::int[] from rt order by id",
                                   ([[9, 8]],)).fetchall())

    async def native() -> list:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("insert into rt values ($1, $2, $3, $4)", 3, [[1, 2], [3, 4]],
                               [["q", None]], [[0.5, 1.5]])
            rows = await conn.fetch("select * from rt order by id")
            return [tuple(r) for r in rows] + [await conn.fetchval("select $1::int[]",
                                                                   [[1, 2], [3, 4]])]
        finally:
            await conn.close()

    out.append(asyncio.run(native()))
    return out


def test_array_client_round_trips(servers):
    pg, cu = servers
    fresh_database((pg.dsn(), cu.dsn()), "gaps_array_rt")
    expected = _array_round_trips(pg.dsn(db="gaps_array_rt"))
    assert expected[0][0][1] == [[1, 2], [3, 4]]
    assert _array_round_trips(cu.dsn(dbname="gaps_array_rt")) == expected


PSQL = "/usr/lib/postgresql/15/bin/psql"


def _describe(dsn: str) -> str:
    """psql's `\\d` of a table with covering and expression indexes."""
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("create table dx (id int primary key, name text, v int)")
        c.execute("create index dx_inc on dx (v) include (name)")
        c.execute("create unique index dx_lower on dx (lower(name))")
        c.execute("create index dx_sum on dx ((v + id) desc)")
    out = subprocess.run([PSQL, dsn, "-X", "-c", "\\d dx", "-c", "\\d dx_lower"],
                         capture_output=True, text=True, timeout=60)
    return out.stdout + out.stderr


def test_psql_describe_shows_include_and_expressions(servers):
    pg, cu = servers
    fresh_database((pg.dsn(), cu.dsn()), "gaps_describe")
    expected = _describe(pg.dsn(db="gaps_describe"))
    assert 'INCLUDE (name)' in expected and "lower(name)" in expected
    assert _describe(cu.dsn(dbname="gaps_describe")) == expected


def test_expression_index_serves_equality(cumulo_server):
    """`WHERE lower(name) = ...` reads the index on lower(name): the plan says so."""
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("drop table if exists gx")
        c.execute("create table gx (id int primary key, name text, v int)")
        c.execute("insert into gx select g, 'N' || g, g % 7 from generate_series(1, 500) g")
        c.execute("create index gx_lower on gx (lower(name))")
        plan = [r[0] for r in c.execute("explain select * from gx where lower(name) = %s",
                                        ["n42"]).fetchall()]
        assert any("Index Scan using gx_lower on gx" in ln for ln in plan), plan
        assert c.execute("select id from gx where lower(name) = %s", ["n42"]).fetchall() == [(42,)]
        plan = [r[0] for r in c.execute("explain select * from gx where upper(name) = 'N42'")]
        assert not any("Index Scan" in ln for ln in plan), plan
        c.execute("drop table gx")
