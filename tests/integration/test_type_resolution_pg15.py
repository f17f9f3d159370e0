"""Type resolution as PostgreSQL 15's parser does it (issue 16): set operations, `(x).*`,
result column names. Differential: the bytes each server sends (type OIDs, typmods, text
and binary values, or SQLSTATE and message) through libpq (`typediff`), then what pg8000
users see, and the RowDescription's column names and origins.

Set operations follow select_common_type: an untyped literal in a SELECT operand takes the
other side's type (`t UNION SELECT '(3,4)'` reads a `t`), two categories are 42804, the
kept type moves only to one it converts to implicitly (`varchar UNION text` is varchar,
`int UNION oid` oid, `float4 UNION int` float4), and a failed conversion is 42846.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

SETUP = """
create table trt (a int, b int)
insert into trt values (1, 2)
create table trs (x varchar(5), y char(3), z numeric(5,2))
insert into trs values ('a', 'b', 1.5)
create type trc as (x int, y text)
""".strip().splitlines()
DROPS = ["drop table if exists trt, trs", "drop type if exists trc"]

SETOPS = """
select t from trt t union select '(3,4)' order by 1
select '(3,4)' union select t from trt t order by 1
select t from trt t union all select null order by 1
select t from trt t union select 'a'::text
select t from trt t union values (null)
select 1 union select 'a'::text
select true union select 1
select 1 intersect select 'a'::text
select 1 union all select 'x'
select 1 except select 'a'
select 'a' union select 'b' union select 3
select 1 union (select '2' union select '3')
select * from (select '2') s union select 1
select 1 union values ('2')
select '1' union select 2 order by 1
select '1'::unknown union select 2 order by 1
select 1 union select null::unknown order by 1
(select '5') union select 1 order by 1
select 'a'::varchar union select 'b'::text order by 1
select 'b'::text union select 'a'::varchar order by 1
select 'x'::char(3) union select 'y'::varchar(5) order by 1
select 'x'::varchar(3) union select 'y'::varchar(5) order by 1
select 'x'::varchar(3) union select 'y'::varchar(3) order by 1
select 1::oid union select 2 order by 1
select 2 union select 1::oid order by 1
select 1::int8 union select 1::oid
select '1'::text union select 1::oid
select 1.5::float4 union select 2 order by 1
select 1.5 union select 1::float4 order by 1
select 1::int2 union select 1::int8 union select 1.5 order by 1
select '2020-01-01'::date union select '2020-01-01 10:00'::timestamp order by 1
select '2020-01-01'::date union select '10:00'::time
select '1 day'::interval union select '10:00'::time
select 'a'::name union select 'b'::varchar order by 1
select array[1] union select '{2}' order by 1
select array[1] union select array[2.5] order by 1
select '{1}'::int[] union select '{a}'::text[]
select '{}'::json union select '{}'::jsonb
select x from trs union select 'b' order by 1
select x from trs union select x from trs
select y from trs union select 'zz' order by 1
select z from trs union select 1 order by 1
select x, y, z from trs union all select null, null, null order by 1
select '1' as a, 2 as b union select 3, '4' order by 1
select * from (select 1 as a union select '2') q order by 1
select t.* from trt t union select '3', '4' order by 1
values (1), (2.5), ('3') order by 1
values (true), (1)
values (1), ('a')
values ('a'::varchar), ('b'::text)
values ('a'::varchar(3)), ('b'::varchar(3))
select case when true then 1 else 'a'::text end
select case when true then 1 else true end
select coalesce(1, true)
select coalesce(1, 'a'::text)
select coalesce('a'::varchar, 'b'::text), coalesce(1::oid, 2), coalesce(1.5::float4, 2), case when true then 1.5::float4 else 2 end
select array[1, true]
select array[1::float4, 2], array[1, 2.5], array[1, '2']
select greatest(1, true)
select least(1, 'a'::text)
select coalesce('2020-01-01'::date, '10:00'::time)
""".strip().splitlines()

FIELDS = """
select (t).* from trt t
select (t).a, (t).b, (t.*).a from trt t
select ((t)).* from trt t
select (t).*, 5 as z from trt t where (t).a = 1 order by (t).b
select (x).*, (x).a from (select t as x from trt t) s
select (row(1, 2)).*, (row(1, 'a'::text)).f2
select (x).*, (x).f1 from (select row(1, 2) as x) s
select (row(1, 'a')::trc).*, (row(1, 'a')::trc).y
select count(*) from (select (t).* from trt t) s
select (t).c from trt t
select (x).c from (select t as x from trt t) s
select (row(1, 2)).c
select (x).c from (select row(1, 2) as x) s
select (row(1, 'a')::trc).z
select (1).x
select (a).* from trt
select '(3,4)'::trt, pg_typeof('(3,4)'::trt)::text, ('(3,4)'::trt).b, cast('(7,8)' as trt)
select ('(3,4)'::trt).*, row(5, 6)::trt, (row(5, 6)::trt).a
select * from trt t where t = '(1,2)'::trt
select '(3)'::trt
select '3,4'::trt
select '(x,4)'::trt
select 1::trt
""".strip().splitlines()

NAMES = """
select pg_typeof(1)::text, pg_typeof(a)::text, pg_typeof(b) from trt
select now()::date, cast(now() as date), now()::timestamp(0), current_timestamp::date, now() limit 0
select a::text, (a)::int8, (a::text)::int, cast(a as text), 'x'::text::varchar, '1'::int from trt
select (a + 1)::text, cast(a + 1 as text), (select a from trt)::text, a::text || 'x' from trt
select case when a = 1 then 1 end, case a when 1 then 'y' else 'n' end, (case when true then 1 end)::text, case when a > 1 then 0 else a end, (case when a > 1 then 0 else a end)::text from trt
select coalesce(a, 0), nullif(a, 1), greatest(a, 2), least(a, 0), nullif(1, 2)::text from trt
select a + 1, -a, a * 2, 1 = 1, 1, 'a', null, true, 1.5, true::text, (1 is distinct from 2)::text from trt
select count(*), sum(a), max(b), avg(a), array_agg(a), bool_and(true) from trt
select upper(x), trim(x), trim(leading from x), trim(trailing 'a' from x), substring(x from 1 for 1), position('a' in x) from trs
select current_date, current_timestamp, localtimestamp, current_user, session_user, user, current_schema limit 0
select array[1, 2], array(select 1), (array[1, 2])[1], row(1, 2), exists(select 1), (select 1)
select a is null, not true, a between 0 and 2, a in (1, 2), x like 'x', x ~ 'x' from trs, trt
select interval '1 day', date '2020-01-01', timestamp '2020-01-01', text 'x', array[1]::text[], (array[a])[1]::text from trt
select to_json(a), row_to_json(t), to_char(1, '9'), abs(-1)::int, round(1.5)::int from trt t
select t, count(*) from trt t group by t
select tableoid, t.tableoid::regclass from trt t limit 0
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_set_operations_and_fields_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), [*SETUP, *SETOPS, *FIELDS], binary,
                        drops=DROPS)


def _described(dsn: str, statements: list[str]) -> list:
    """Each statement's RowDescription as libpq reads it: (name, type, table?, column)."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for s in DROPS + SETUP:
            c.execute(s)
        for s in statements:
            res = c.pgconn.exec_(s.encode())
            out.append([(res.fname(i), res.ftype(i) if res.ftype(i) < 16384 else "user",
                         res.ftable(i) != 0, res.ftablecol(i)) for i in range(res.nfields)])
    return out


def test_names_and_origins_match_pg15(pg15, cumulo_server):
    """Column names, types and origins (system columns are -1 ... -6, `GROUP BY t` names t's
    table) of set operations, `(x).*` and PostgreSQL's FigureColname sample, then pg8000's
    view of the set operations and fields."""
    queries = [q for q in SETOPS + FIELDS if "order by 1" in q or q.startswith("select (")] + NAMES
    want = _described(pg15.dsn(), queries)
    assert want[0] == [(b"t", "user", False, 0)]
    assert _described(cumulo_server.dsn(), queries) == want
    system = ["select ctid, t.ctid, xmin, cmax, tableoid from trt t limit 0"]
    assert _described(cumulo_server.dsn(), system) == _described(pg15.dsn(), system)
    script = DROPS + SETUP + SETOPS[:12] + FIELDS
    assert pg8000_outcomes(cumulo_server.port, None, script) == \
        pg8000_outcomes(pg15.port, PASSWORD, script)


FUNCTIONS = """
create table trf (a int, b text)
insert into trf values (1, 'x'), (2, 'y')
create function trf1() returns setof trf language sql as $$ select * from trf order by a $$
create function trf2(n int) returns table(x int, y text) language sql as $$ select a, b from trf where a >= n order by a $$
create function trf3(in n int, out x int, out y text) language sql as $$ select a, b from trf where a = n $$
create function trf4() returns setof int language sql as $$ select a from trf order by a $$
create function trf5(out s int, out c bigint) returns setof record language sql as $$ select sum(a)::int, count(*) from trf $$
create function trf6() returns trf language sql as $$ select * from trf order by a limit 1 $$
create function trf7(out x int) returns text language sql as $$ select 1 $$
select * from trf1()
select trf1(), (trf1()).b
select t.a, t.b from trf1() t
select * from trf1() as q(p, r)
select * from trf2(1)
select trf2(2), (trf2(1)).x
select x from trf2(1) where y = 'y'
select * from trf2(1) join trf on trf.a = trf2.x order by 1
select * from trf2(null)
select * from trf3(1)
select trf3(2), (trf3(2)).y
select * from trf4()
select trf4(), trf4() + 1
select count(*) from trf4()
select * from trf5()
select * from trf6()
select trf6(), (trf6()).b
create function trf8(out z int) language sql as $$ select 5 $$
create function trf9() returns table(q int) language sql as $$ select a from trf order by a $$
select * from trf8()
select * from trf8() w
select trf8, trf8 + 1 from trf8()
select w from trf9() w
select * from trf9() w where w = 2
select t, pg_typeof(t)::text, (t).b from trf1() t
select t from trf6() t
select q from trf1() as q(p, r)
select t from trf1() with ordinality t
select g from generate_series(1, 2) g(a)
select g, pg_typeof(g) from unnest(array['a']) g(x)
select w.q from trf9() w
select proname::text, proretset, prorettype::regtype::text from pg_proc where proname::text like 'trf_' order by 1
drop function trf3(int)
drop function trf1, trf2, trf4, trf5, trf6, trf8, trf9
drop table trf
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_sql_functions_returning_rows_match_pg15(binary, pg15, cumulo_server):
    """LANGUAGE sql functions RETURNS SETOF t / SETOF int / TABLE (...) / OUT parameters /
    a table's row type, called in FROM and in the select list; a FROM function's whole row
    (t's row type, or the value itself for a scalar result; a single OUT or TABLE column
    keeps its name); then pg8000's view."""
    drops = ["drop function if exists trf1, trf2, trf3, trf4, trf5, trf6, trf7, trf8, trf9",
             "drop table if exists trf"]
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), FUNCTIONS, binary, drops=drops)
    if not binary:
        script = drops + FUNCTIONS
        assert pg8000_outcomes(cumulo_server.port, None, script) == \
            pg8000_outcomes(pg15.port, PASSWORD, script)


PARAMETERS = ["select $1", "select $1 union select 1", "select 1 union select $1",
              "select $1, $2 union all select 'a'::varchar, 2.5", "select $1::int union select '2'",
              "select $1 union select 'a'::text union select 1", "select $2::int",
              "select $1::int, $3::text", "select $2::int from (select $1::text) s",
              "select $1 is null", "select pg_typeof($1)", "select format('%s', $1)",
              "select concat($1, 'a')", "select jsonb_build_object('a', $1)", "select length($1)",
              "select $1 || 'x'", "select coalesce($1, $2)", "select $1 = 1", "select $1 like 'x'",
              "select case when a = 1 then $1 else 'x' end from trt", "select max($1)",
              "select nullif($1, 'a')", "select array[$1, 1]", "select $1::text is null",
              "select a from trt where a in ($1, $2) limit $3", "select not $1", "select abs($1)",
              "select $1 + $2", "select -$1", "select $1 ^ $2", "select sum($1)", "select avg($1)",
              "select stddev($1)", "select $1 % $2 + 1", "select count($1)",
              "select count(*), count($1::int)"]


def test_set_operation_parameters_match_pg15(pg15, cumulo_server):
    """A bare untyped `$n` in a set operation's SELECT takes the column's type (Describe of
    the prepared statement lists it), as an untyped literal does; a parameter the statement
    never mentions, or only where nothing types it (`$1 IS NULL`, `format('%s', $1)`), and
    Parse left untyped is 42P18; the usual inferences are unchanged."""
    def described(dsn: str) -> list:
        out: list = []
        with psycopg.connect(dsn, autocommit=True) as c:
            for sql in DROPS + SETUP:
                c.execute(sql)
            for i, sql in enumerate(PARAMETERS):
                res = c.pgconn.prepare(f"trp{i}".encode(), sql.encode())
                if res.status == psycopg.pq.ExecStatus.COMMAND_OK:
                    res = c.pgconn.describe_prepared(f"trp{i}".encode())
                    out.append([res.param_type(k) for k in range(res.nparams)])
                else:
                    out.append(res.error_field(psycopg.pq.DiagnosticField.SQLSTATE))
        return out

    want = described(pg15.dsn())
    assert want[1] == [23] and want[6] == b"42P18"
    assert described(cumulo_server.dsn()) == want
