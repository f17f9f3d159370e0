"""Binder and catalog fidelity (issue 16's leftovers) diffed with PostgreSQL 15.

Each script runs statement by statement on PostgreSQL 15 and on Cumulo through
psycopg (`test_statements_pg15`'s runner, with result type OIDs): status, rows,
SQLSTATE and message must match.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import asyncpg
import psycopg
import pytest

from cumulo.server.sql import paramlists
from tests.integration.stmtdiff import assert_same_outcomes

SCRIPTS = {
    # GIN, GiST, SP-GiST, BRIN and hash index only the types they have a default operator
    # class for; any other key type is 42704 (domains named as written, varchar as text).
    "default_operator_classes": """
create table t (a int[], b int, c jsonb, d tsvector, e int4range, f inet, g point, h text, i varchar(5), j cidr, k daterange, l bool, m int4multirange, n tsquery, o box, p uuid);
create index on t using gin (b);
create index on t using gin (a);
create index on t using gin (c);
create index on t using gin (d);
create index on t using gin ((b + 1));
create index on t using gin ((array[b]));
create index on t using gist (e);
create index on t using gist (k);
create index on t using gist (m);
create index on t using gist (n);
create index on t using gist (o);
create index on t using gist (f);
create index on t using gist (g);
create index on t using gist (b);
create index on t using gist (h);
create index on t using gin (h);
create index on t using gin (i);
create index on t using spgist (f);
create index on t using spgist (j);
create index on t using spgist (i);
create index on t using spgist (b);
create index on t using brin (b, h, i, p);
create index on t using brin (l);
create index on t using brin (c);
create index on t using hash (l);
create index on t using hash (a);
create index on t using hash (g);
create index on t using hash (e);
create type mood as enum ('a', 'b');
create table u (x mood);
create index on u using hash (x);
create index on u using gin (x);
create domain dint as int;
create table w (x dint, y dint[]);
create index on w using gin (x);
create index on w using gin (y);
create index on w using brin (x);
select count(*) from pg_indexes where tablename in ('t', 'u', 'w');
""",
    # A stored generation expression, an index expression or predicate must be immutable
    # (42P17), counting the casts the binder inserts: timestamp::text follows DateStyle.
    "immutable_expressions": """
create table g0 (a int, b int generated always as (a * 2) stored);
create table g1 (a int, b int generated always as (random()::int) stored);
create table g6 (a int generated always as (b) stored, b int generated always as (1) stored);
create table g7 (a int, b int generated always as (a) stored, c int generated always as (b) stored);
create table g8 (a int, b int generated always as ((select 1)) stored);
create table g9 (a int, b int generated always as (sum(a)) stored);
create table g10 (a text, b text generated always as (upper(a)) stored);
create table g11 (a date, b text generated always as (to_char(a, 'YYYY')) stored);
create table g12 (a timestamptz, b text generated always as (to_char(a, 'YYYY')) stored);
create table g13 (a int, b text generated always as (a::text) stored);
create table g14 (a numeric, b text generated always as (a::text || 'x') stored);
create table g15 (a date, b text generated always as (a::text) stored);
create table g16 (a timestamp, b date generated always as (a::date) stored);
create table g17 (a int[], b text generated always as (a::text) stored);
create table g18 (a jsonb, b text generated always as (a->>'x') stored);
create table g19 (a timestamp, b timestamptz generated always as (a::timestamptz) stored);
create table g21 (a timestamp, b double precision generated always as (extract(epoch from a)) stored);
create table g22 (a timestamptz, b double precision generated always as (extract(year from a)) stored);
create table g23 (a interval, b text generated always as (a::text) stored);
create table g24 (a time, b text generated always as (a::text) stored);
create table g25 (a text, b text generated always as (current_user) stored);
create table g26 (a text, b date generated always as (current_date) stored);
create table g27 (a int, b int generated always as (a) stored);
create table ix (a timestamp, b text, c timestamptz, d int);
create index on ix ((a::text));
create index on ix ((b::timestamp));
create index on ix ((c::date));
create index on ix ((d::text));
create index on ix (lower(b));
create index on ix (d) where a > now();
create index on ix (d) where b::date > '2020-01-01';
create index on ix ((to_char(c, 'YYYY')));
alter table ix add column e text generated always as (a::text) stored;
alter table ix add column e text generated always as (d::text) stored;
""",
    # An immutable function of constants is evaluated when the statement is planned, so
    # its error shows under an always-false filter too; not what follows a constant false
    # in AND (true in OR) or a CASE arm whose condition is constant false, and never a
    # stable or volatile function.
    "constant_folding": """
create table t (a int, j jsonb);
insert into t values (1, '[1,2]');
select jsonb_array_length('{}') from t where false;
select jsonb_array_length('[1,2,3]') from t;
select 1 from t where false and sqrt(-1) > 0;
select 1 from t where false and ln(0) > 0;
select 1 from t where false and jsonb_array_length(j) > 0;
select case when a > 5 then jsonb_array_length('{}') else 0 end from t;
select coalesce(a, jsonb_array_length('1')) from t;
select upper('abc'), lower('ABC'), length('abcd'), repeat('x', 3), md5('a');
select to_char(1.5, '9.9') from t where false;
select regexp_replace('abc', 'b', 'x'), split_part('a,b', ',', 2);
select generate_series(1, 2);
select now() = now(), random() < 2;
select 1 from t where false and chr(0) = 'a';
select 1 from t where false and repeat('x', -1) = '';
select 1 from t where false and '{"a":1}'::jsonb -> 'a' = '1';
select 1 from t where false and int4range(3, 1) is null;
select 1 from t where false and make_date(2020, 13, 1) is null;
select 1 from t where false and substr('abc', 1, -1) = '';
select 1 from t where false and date_trunc('foo', '2020-01-01'::timestamp) is null;
select 1 from t where false and to_timestamp(1e20) is null;
select 1 from t where false and 'x'::int > 0;
select 1 from t where false and array_fill(1, array[-1]) is null;
select 1 from t where false and width_bucket(1, 1, 1, 1) > 0;
select 1 from t where false and factorial(-1) > 0;
prepare q(int) as select jsonb_array_length(j) from t where $1 > 5;
execute q(1);
select case when false then jsonb_array_length('{}') else 1 end;
select case when true then 1 else jsonb_array_length('{}') end;
select case when a = 1 then 1 when true then 2 else jsonb_array_length('{}') end from t;
select 1 from t where true or jsonb_array_length('{}') > 0;
select 1 from t where a > 0 or jsonb_array_length('{}') > 0;
select json_array_length('1') from t where false;
select array_length(array[1,2], 1) from t where false;
select upper(lower('AbC')) || 'x', abs(-3), round(2.567, 2) from t;
select 1 from t where a = abs(-1) and j = '[1,2]';
""",
    # The bit-string operators (the fuzzer's new types found them missing): same-length
    # operands for & | # (22026), shifts keep the length, results are bit.
    "bit_string_operators": """
select B'1001' << -2, B'1001' >> 1, B'1001' << 5, (B'101'::varbit & B'110')::text, ~B'10'::varbit;
select B'10' & B'1';
select B'10' | B'1';
select B'10' # B'1';
select B'1010' & '1100', B'1010' | B'0101', B'1010' # B'0110', ~B'1010';
select 5 & B'101';
select 5 & 3, 5 | 3, 5 # 3, ~5, 1 << 3, 8 >> 1;
select B'' & B'';
select 5::bit(4), (-1)::bit(3), 300::bit(4), 5::int8::bit(4), B'0101'::int, B'1'::int8, (B'1' || repeat('0', 40)::varbit)::bit(41)::int8;
select repeat('1', 40)::bit(40)::int;
select 5::bit;
select (-1)::bit(40), 7::bit(70)::text;
select repeat('1', 32)::bit(32)::int, B'1'::int;
select B'101'::varbit::int;
select 5::bit(4)::varbit, 5::varbit;
create table bt (bs bit(4), vb varbit(8));
insert into bt values (B'1010', B'101'), (null, B''), (B'0001', null);
select bs & B'1100', bs | bs, bs # B'1111', ~bs, bs << 1, bs >> 2, vb << 1, ~vb from bt;
select vb & B'101' from bt;
""",
    # System column names: 42701 for a table's own column (CREATE TABLE, ADD COLUMN, CREATE
    # TABLE AS, RENAME), not for a view's; pg_attribute lists a table's system columns at
    # negative attnums. `RENAME a TO b` without COLUMN renames the column (it renamed the table).
    "system_column_names": """
create table sc (a int);
create table sc1 (xmin int);
create table sc1 (b int, ctid text);
alter table sc add column xmin int;
alter table sc add column cmax int;
alter table sc rename a to ctid;
alter table sc rename a to tableoid;
create table sc2 (tableoid int);
create table sc3 as select 1 as xmax;
create view sv as select 1 as xmin;
select attname, attnum, atttypid::regtype, attnotnull, attlen from pg_attribute where attrelid = 'sc'::regclass order by attnum;
select attname, attnum from pg_attribute where attrelid = 'sv'::regclass order by attnum;
select count(*) from pg_attribute where attrelid = 'sc'::regclass and attnum > 0;
select a, tableoid::regclass from sc;
alter table sc rename a to b;
alter table sc rename column b to a;
select a from sc;
""",
}

# Number input past float4/float8's range (overflow and underflow) and float conversions:
# PostgreSQL's 22003 message, and the literal's position (psql's LINE 1 caret).
NUMBER_INPUT = [
    "select '1e39'::float4",
    "select 1, '1e39'::real",
    "select '1e400'::float8",
    "select '1e-50'::float4",
    "select '1e-400'::float8",
    "select 'abc'::float4",
    "select '99999999999'::int",
    "select '99999'::int2",
    "select '1e5'::int",
    "select 'x'::numeric",
    "select cast('1e39' as float4)",
    "select float4 '1e39'",
    "select '-1e39'::float4",
    "select 'nan'::float4::text, 'inf'::float4, '-Infinity'::float8",
    "select '3.4e38'::float4, '1.5e-45'::float4",
    "select '1e39'::float8::float4",
    "select 1e39::float4",
    "select '1e-50'::float8::float4",
    "select '1e-310'::float8, '1e-40'::float4",
    "select 0.1::float8::float4, 1.5::numeric::float4, 'nan'::numeric::float8::text, 'nan'::numeric::float4::text",
    "select '1e-400'::numeric::float8",
    "select 1e-50::float4",
    "select 1e400::float8",
    "select '0.0e10'::float8, '-0'::float4, '0e-500'::float8",
    "select 0.1::float8::float4 = 0.1::float4",
]

# Parameters typed by their uses, prepared with no declared types (asyncpg's way): a `$1`
# left untyped in the select list and typed otherwise elsewhere is PostgreSQL's 42P08.
PARAMETER_TYPES = [
    "select $1, $1::int",
    "select $1::int, $1",
    "select $1 || 'a', $1 + 1",
    "select $1 + 1, $1 || 'a'",
    "select $1::text, $1::int",
    "select $1 = 1, $1 = 'a'",
    "select $1 = 1, $1 = 2.5",
    "select $1 + 1, $1 + 2.5",
    "select $1::int, $1::bigint",
    "select $1, $1",
    "select length($1), $1 + 1",
    "select $1 + 1, length($1)",
    "select $1::int + $1",
    "select coalesce($1, 1), $1::text",
    "select $1::varchar, $1::text",
    "select $1::int4, $1 + 1",
    "select upper($1), $1::int",
    "select $1, $1 + 1",
    "select $1, $1",
    "select $1, upper($1)",
    "select $1 union select 1",
    "select 1 union select $1",
    "select $1::int union select $1",
    "select * from (values ($1), ($1::int)) v",
    "select $1::text = $1",
    "select coalesce($1, $1::int)",
    "select greatest($1, 1, $1::int)",
    "select $1 in (1, 2), $1::text",
    "select array[$1, $1::int]",
]


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"binder_{name}", SCRIPTS[name], types=True)


def _positioned(dsn: str) -> list[tuple]:
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in NUMBER_INPUT:
            try:
                out.append(("ok", conn.execute(sql).fetchall()))
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary, e.diag.statement_position))
    return out


def test_number_input_errors_and_positions_as_pg15(servers):
    pg, cu = servers
    expected = _positioned(pg.dsn())
    assert sum(e[0] == "22003" for e in expected) >= 10
    assert _positioned(cu.dsn()) == expected


async def _prepared(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    out: list[tuple] = []
    try:
        for sql in PARAMETER_TYPES:
            try:
                st = await conn.prepare(sql)
                out.append(("ok", [t.name for t in st.get_parameters()],
                            [a.type.name for a in st.get_attributes()]))
            except asyncpg.PostgresError as e:
                out.append((e.sqlstate, e.args[0], getattr(e, "position", None)))
    finally:
        await conn.close()
    return out


def test_parameter_types_deduced_as_pg15(servers):
    pg, cu = servers
    expected = asyncio.run(_prepared(pg.dsn()))
    assert sum(e[0] == "42P08" for e in expected) >= 2
    assert asyncio.run(_prepared(cu.dsn())) == expected


def _params(first: int, n: int) -> str:
    return ", ".join(f"${i}" for i in range(first, first + n))


LONG = 100  # past sql.paramlists.MIN_ITEMS: the list reaches the binder uncut by sqlglot
PARAM_LISTS = [  # (query, parameter values): each list is cut (sql.paramlists) on Cumulo
    (f"select id from p where id in ({_params(1, LONG)}) order by id",
     [i * 3 for i in range(LONG)]),
    (f"select id from p where b not in ({_params(1, LONG)}) order by id",
     [i * 20 for i in range(LONG)]),
    (f"select id from p where v in ({_params(1, LONG)}) order by id",
     [f"v{i}" for i in range(LONG)]),
    (f"select id from p where b in ({_params(1, LONG)}) order by id",  # a NULL in the list
     [None] + [i * 10 for i in range(LONG - 1)]),
    (f"select id from p where b not in ({_params(1, LONG)}) order by id",
     [None] + [i * 10 for i in range(LONG - 1)]),
    (f"select id, b in ({_params(1, LONG)}) from p order by id", [i * 10 for i in range(LONG)]),
    (f"select id from p where id + 1 in ({_params(2, LONG)}) and b > $1 order by id",
     [100] + list(range(LONG))),
    (f"select id from p where n in ({_params(1, LONG)}) order by id",
     [Decimal(i) / 4 for i in range(LONG)]),
    (f"select id from p where id in ({_params(1, LONG)}) or id = $1 order by id",  # not cut
     list(range(LONG))),
    (f"select count(*) from p where id in ({_params(1, LONG)}) and nosuch = 1",
     list(range(LONG))),
]


async def _param_lists(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    out: list[tuple] = []
    try:
        await conn.execute("drop table if exists p; create table p (id int primary key, "
                           "b bigint, v text, n numeric); insert into p select g, g * 10, "
                           "'v' || g, g / 4.0 from generate_series(1, 300) g; "
                           "insert into p values (1000, null, null, null)")
        for sql, values in PARAM_LISTS:
            try:
                st = await conn.prepare(sql)
                out.append(("ok", [t.name for t in st.get_parameters()],
                            [tuple(r) for r in await st.fetch(*values)]))
            except asyncpg.PostgresError as e:
                out.append((e.sqlstate, e.args[0]))
    finally:
        await conn.close()
    return out


def test_long_parameter_in_lists_as_pg15(servers):
    pg, cu = servers
    assert paramlists.split(PARAM_LISTS[0][0]) is not None
    expected = asyncio.run(_param_lists(pg.dsn()))
    assert [bool(e[0] == "ok" and e[2]) for e in expected] == [True] * 4 + [False] + [True] * 4 + [False]
    assert asyncio.run(_param_lists(cu.dsn())) == expected
