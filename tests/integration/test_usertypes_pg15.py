"""User types and their catalog rows, diffed with PostgreSQL 15 (issue 16, the audit's rows).

Each script runs statement by statement on PostgreSQL 15 and on Cumulo through
psycopg; for every statement the status, rows, SQLSTATE, message, DETAIL and HINT
must match, and so must the NOTICEs it sent (DROP TYPE ... CASCADE reports what it
took along: `drop cascades to column c of table t`). The scripts cover shell types,
DROP TYPE with and without CASCADE over columns, views, functions, domains and
composite attributes, ALTER TYPE's attribute actions, RENAME / SET SCHEMA / OWNER
TO, json(b)_populate_recordset and json(b)_to_record(set), reg* arrays and CREATE
COLLATION. asyncpg (which introspects a composite through pg_type/pg_attribute)
and psycopg's CompositeInfo then read an altered composite type on both servers.

The last part checks type input and output details psycopg's own type tests check:
- a schema-qualified user type (`'s.r'::regtype`) is that schema's type, not the one of the
  same name on the search path, and prints schema-qualified outside it;
- a composite type of no columns reads `()` as its one value;
- timetz input takes `Z` and zone offsets with seconds (timetz_in's syntax, as time's);
- box[] separates its elements with `;` (pg_type.typdelim), in input and output;
- a minus folds into an integer literal, which is then typed by its value (`- -2147483648`
  is bigint), as PostgreSQL's grammar does;
- array input text casts to an array of a table's row type (`'{"(1)"}'::t[]`), typed `t[]`;
- a bound parameter of an enum type is checked against the type's labels (22P02), in the
  text and the binary format, before any cast (`$1::text`) could pass a bad label on;
- under a client_encoding other than UTF8, binary text and enum parameters, results and
  COPY TO fields are converted as textrecv and textsend convert them.

Statements compare raw bytes in both formats (typediff); pg8000 and asyncpg check what
their users see.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import asyncpg
import psycopg
import pytest
from psycopg.types.composite import CompositeInfo, register_composite

from tests.integration.stmtdiff import assert_same, fresh_database, outcomes, statements
from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

SCRIPTS = {
    "shell_types": """
create type sh;
create type sh;
select typname, typtype, typisdefined, typinput::text, typoutput::text, typreceive::text,
  typlen, typbyval, typcategory, typalign, typstorage, typarray, typelem, typrelid
  from pg_type where typname = 'sh';
create table tsh (a sh);
select null::sh;
select 'sh'::regtype;
create type sh as enum ('a', 'b');
select typtype, typisdefined, 'b'::sh from pg_type where typname = 'sh';
create type sh2;
create type sh2 as (a int);
drop type sh2;
create type "Sh3";
drop type "Sh3";
drop type sh;
""",
    "drop_type_dependents": """
create type mood as enum ('a', 'b');
create table t1 (id int, m mood, ms mood[]);
create view v1 as select m from t1;
create view v2 as select * from v1;
create domain dm as mood;
create table t2 (d dm);
create type cc as (x mood, y int);
create function fm(mood) returns int language sql as 'select 1';
drop type mood;
drop type mood restrict;
drop type mood, cc;
drop type mood cascade;
select attname from pg_attribute where attrelid = 't1'::regclass and attnum > 0
  and not attisdropped order by attnum;
select count(*) from pg_type where typname in ('mood', 'dm', '_mood');
select count(*) from pg_class where relname in ('v1', 'v2');
select count(*) from pg_proc where proname = 'fm';
select attname from pg_attribute where attrelid = 't2'::regclass and attnum > 0
  and not attisdropped;
select y from (select row(1)::cc) s(r), lateral (select (r).y) q(y);
create schema s3;
create type s3.e as enum ('x');
create table t3 (a s3.e);
drop type s3.e;
drop type if exists nosuch, s3.e cascade;
create type comp as (a int, b text);
create table tc (id int, c comp);
insert into tc values (1, row(1, 'x'));
create view vc as select c from tc;
create function fc(comp) returns int language sql as 'select 1';
drop type comp;
drop type comp cascade;
select * from tc;
""",
    "alter_type": """
create type comp2 as (a int, b text);
alter type comp2 add attribute c numeric(5,2);
alter type comp2 drop attribute a;
alter type comp2 alter attribute b type varchar(10);
alter type comp2 rename attribute b to bb;
select attname, format_type(atttypid, atttypmod) from pg_attribute
  where attrelid = 'comp2'::regclass and attnum > 0 and not attisdropped order by attnum;
select row('x', 1.5)::comp2;
alter type comp2 add attribute if not exists c int;
alter type comp2 drop attribute if exists zz;
alter type comp2 drop attribute zz;
alter type comp2 add attribute bb int;
alter type comp2 rename attribute c to bb;
alter type comp2 rename attribute zz to q;
alter type comp2 add attribute me comp2;
alter type comp2 add attribute d int, drop attribute c, alter attribute d set data type bigint;
select attname, format_type(atttypid, atttypmod) from pg_attribute
  where attrelid = 'comp2'::regclass and attnum > 0 and not attisdropped order by attnum;
create table uses (x comp2);
alter type comp2 alter attribute d type int;
alter type comp2 rename to comp3;
create schema s1;
alter type comp3 set schema s1;
select typnamespace::regnamespace from pg_type where typname = 'comp3';
alter type s1.comp3 owner to cumulo;
create role ut16_owner;
alter type s1.comp3 owner to ut16_owner;
alter type s1.comp3 owner to nosuch;
select typowner::regrole from pg_type where typname = 'comp3';
alter type s1.comp3 set schema public;
create type s1.comp3 as (z int);
alter type comp3 set schema s1;
alter type nosuch add attribute x int;
create type en as enum ('a', 'c');
alter type en add attribute x int;
alter type en add value 'b' before 'c';
alter type en add value 'd' after 'c';
alter type en rename value 'a' to 'aa';
alter type en rename value 'zz' to 'q';
select enum_range(null::en);
alter type en set schema s1;
select 'aa'::s1.en, '{aa,d}'::s1.en[];
alter type s1.en rename to en2;
select 'b'::s1.en2;
alter type s1.en2 owner to current_user;
create type c5 as (x int);
alter type c5 add value 'x';
drop type comp3, s1.comp3 cascade;
drop role ut16_owner;
""",
    "json_records": """
create extension hstore;
create type c2 as (a int, b text);
select json_populate_record(row(1, 2), '{"f1": 5}'), jsonb_populate_record(row(1, 'x'), '{"f2": "y"}');
select populate_record(row(1, 2), 'f1=>5'::hstore), row(1, 2) #= 'f2=>7'::hstore;
select * from json_populate_record(row(1, 2), '{"f1": 5}') as x(a int, b int);
select * from populate_record(row(1, 2), 'f1=>5'::hstore);
select * from json_populate_record(row(1, 2), '{"f1": 5}');
select json_populate_record(null::record, '{"f1": 5}');
select populate_record(null::record, 'f1=>5'::hstore);
select json_populate_record(1, '{"f1": 5}');
select populate_record(1, 'f1=>5'::hstore);
select json_populate_recordset(null::c2, '[{"a": 5}, {"b": "q"}]');
select json_populate_recordset(row(1, 2), '[{"f1": 5}]');
select * from json_populate_recordset(null::c2, '[{"a": 5}, {"b": "q"}]');
select * from jsonb_populate_recordset(row(1, 'z')::c2, '[{"a": 5}, {"b": "q"}]');
select * from json_populate_recordset(null::c2, '{"a": 5}');
select * from jsonb_populate_recordset(null::c2, '5');
select * from json_populate_recordset(null::c2, '[1]');
select * from json_populate_recordset(null::c2, null);
select * from json_populate_recordset(null::c2, '[{"a": 1}]', true);
select * from jsonb_populate_recordset(null::record, '[]');
select json_to_record('{"a": 1}');
select * from json_to_record('{"a": 1}');
select * from json_to_record('{"a": 1, "b": [1, 2], "c": {"x": 1}}') as x(a int, b int[], c jsonb, d text);
select * from jsonb_to_record('{"a": "2020-01-01", "b": true, "c": "{1,2}"}') as x(a date, b bool, c int[]);
select * from jsonb_to_recordset('[{"a": "1"}, {"a": null}]') as x(a int);
select * from jsonb_to_recordset('[{"a": "q"}]') as x(a int);
select * from json_to_recordset('{"a": 1}') as x(a int);
select * from jsonb_to_recordset('{"a": 1}') as x(a int);
select * from json_to_recordset('[{"a": 1}, null]') as x(a int);
select * from json_to_record('[1]') as x(a int);
select * from json_to_recordset('[{"a": 1}]') as x(a int, a int);
select x.a + 1 from jsonb_to_record('{"a": 1}') x(a int);
create table tj (id int, j jsonb);
insert into tj values (1, '[{"a": 1, "b": "x"}, {"a": 2}]'), (2, '[]'), (3, null), (4, '[{"b": "q"}]');
select t.id, x.* from tj t, jsonb_to_recordset(t.j) as x(a int, b text) order by 1, 2;
select t.id, x.* from tj t cross join lateral jsonb_to_recordset(t.j) x(a int) order by 1, 2;
select t.id, x.* from tj t cross join lateral jsonb_populate_recordset(null::c2, t.j) x order by 1, 2;
select id, jsonb_populate_recordset(null::c2, j) from tj order by 1;
select json_populate_recordset(null::c2, '[{"a": 1}]') is not null,
  jsonb_populate_record(null::c2, '{"a": 1, "b": "x"}') is not null;
create table tcn (id int, c c2);
insert into tcn values (1, row(null, null)), (2, row(1, null)), (3, row(1, 'x')), (4, null);
select id, c is null, c is not null, not (c is null), not (c is not null) from tcn order by id;
select id from tcn where c is not null order by id;
prepare p1(jsonb) as select * from jsonb_to_recordset($1) as x(a int, b text);
execute p1('[{"a": 7}]');
""",
    "reg_arrays": """
select '{pg_class}'::regclass[];
select '{pg_class,pg_type}'::regclass[], '{int4,text}'::regtype[], '{now}'::regproc[],
  '{public}'::regnamespace[], '{cumulo}'::regrole[], '{english}'::regconfig[];
select '{"lower(text)"}'::regprocedure[];
select array['pg_class'::regclass, 'pg_type'], array['int4'::regtype];
select array[1259]::regclass[], array[1259, 23]::oid[]::regclass[];
select '{pg_class}'::regclass[]::oid[], '{pg_class}'::regclass[]::text;
select '{1259,NULL}'::regclass[], '{{int4},{text}}'::regtype[];
select pg_typeof('{pg_class}'::regclass[]), ('{pg_class,pg_type}'::regclass[])[2];
select array_agg(t::regtype order by t) from (values (23::oid), (25)) v(t);
select '{nosuch}'::regclass[];
create table t (a int);
create type ct as (x int);
select '{t,ct}'::regclass[], '{t,ct,ct[]}'::regtype[], 'ct'::regclass::text;
""",
    "collations": """
create collation c1 from "C";
create collation c3 (locale = 'C.UTF-8');
create collation c4 (locale = 'en_US.utf8');
create collation c5 (lc_collate = 'C', lc_ctype = 'C');
create collation if not exists c1 from "C";
create collation c1 from "C";
create collation c6 (provider = libc, locale = 'POSIX', deterministic = false);
create collation c8 (provider = xx, locale = 'C');
create collation c9 (foo = 'C');
create collation c10 (deterministic = true);
create collation c11 from nope;
create collation c12 from "default";
create collation c13 (locale = 'C', lc_collate = 'C');
select collname, collnamespace::regnamespace, collprovider, collisdeterministic, collencoding,
  collcollate, collctype, colliculocale from pg_collation where collname like 'c_' order by 1;
create table tc (a text collate c1, b text collate "c3", c int, d varchar(3) collate c5);
create table tc2 (a int collate c1);
insert into tc values ('b', 'B', 1, 'x'), ('a', 'A', 2, 'y'), ('B', 'b', 3, 'z');
select a, b from tc order by a collate c1;
select a from tc order by b, a;
select attname, (select collname from pg_collation where oid = attcollation)
  from pg_attribute where attrelid = 'tc'::regclass and attnum > 0 order by attnum;
select column_name, collation_schema, collation_name from information_schema.columns
  where table_name = 'tc' order by ordinal_position;
alter table tc alter column c type text collate c1;
drop collation c1;
drop collation c3, c1;
drop collation c3 cascade;
select attname from pg_attribute where attrelid = 'tc'::regclass and attnum > 0
  and not attisdropped order by attnum;
drop collation c5, c1 cascade;
drop collation if exists c5;
drop collation "C";
create schema sc;
create collation sc.cx from "POSIX";
select collname, collnamespace::regnamespace from pg_collation where collname = 'cx';
drop collation sc.cx;
""",
    "drop_schema_members": """
create schema s;
create schema o;
create table s.tb (a int);
create type s.mood as enum ('a', 'b');
create table o.t (id int, m s.mood);
create type s.comp as (x int, y text);
create type o.pair as (p s.comp, q int);
create domain s.dom as int check (value > 0);
create function s.f(integer) returns integer language sql as 'select $1';
create function s.g() returns trigger language plpgsql as 'begin return new; end';
create function s.h(s.mood) returns int language sql as 'select 1';
create function o.h(s.mood) returns int language sql as 'select 2';
create collation s.c (locale = 'C');
create table o.w (t text collate s.c, k int);
create table o.u (id int);
create trigger tr before insert on o.u for each row execute function s.g();
drop type s.mood;
drop schema s;
drop schema s restrict;
drop schema s cascade;
select count(*) from pg_type where typname in ('mood', 'comp', 'dom', '_mood');
select count(*) from pg_proc where proname in ('f', 'g', 'h');
select count(*) from pg_collation where collname = 'c';
select count(*) from pg_trigger where tgname = 'tr';
select attname from pg_attribute where attrelid = 'o.t'::regclass and attnum > 0
  and not attisdropped order by attnum;
select attname from pg_attribute where attrelid = 'o.w'::regclass and attnum > 0
  and not attisdropped order by attnum;
insert into o.u values (1);
create schema s;
create type s.mood as enum ('x');
create domain s.dom as text;
create collation s.c (locale = 'C');
create function s.f(integer) returns integer language sql as 'select $1 + 1';
select s.f(1), 'x'::s.mood, 'y'::s.dom;
set search_path = s, public;
drop schema s;
drop schema s cascade;
drop schema if exists s cascade;
""",
    "prepare_and_numeric_range": """
prepare p1 as select 1/0;
execute p1;
prepare p2 as select jsonb_array_length('{}') where false;
execute p2;
prepare p4 as select 1 where 1/0 = 1 and false;
prepare p5 as select 'x'::int;
prepare p6 as select 2147483647::int + 1;
execute p6;
select '1e1000000'::numeric;
select '1e131071'::numeric > 0, '9e131071'::numeric > 0, '1e-16383'::numeric > 0;
select '1e131072'::numeric > 0;
select '1e-1000000'::numeric;
select '1e-16384'::numeric;
select 1e1000000;
select 1, 1e131072;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_user_types_like_pg15(servers, name):
    pg, cu = servers
    db = f"ut_{name}"
    fresh_database((pg.dsn(), cu.dsn()), db)
    expected = outcomes(pg.dsn(db=db), statements(SCRIPTS[name]), names=True, detail=True,
                        notices=True)
    got = outcomes(cu.dsn(dbname=db), statements(SCRIPTS[name]), names=True, detail=True,
                   notices=True)
    assert_same(expected, got)


_PARAMETER_QUERIES = [
    "select $1 where $1 = 1",
    "select $1 is null, $1::int",
    "select row($1, $1::int)",
    "select $1 from (select 1) s where $1 = 1",
    "select $1 order by $1 = 1",
    "select $1::int, $1",
    "select 1 where $1 = 1 and $1 is null",
    "select coalesce($1, 1), $1",
    "select $1 from generate_series(1, 2) g where g = $1",
]


async def _parameter_types(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    out: list = []
    try:
        for q in _PARAMETER_QUERIES:
            try:
                st = await conn.prepare(q)
                out.append([t.name for t in st.get_parameters()])
            except asyncpg.PostgresError as e:
                out.append((e.sqlstate, e.message, e.position))
    finally:
        await conn.close()
    return out


def test_parameter_types_deduced_like_pg15(servers):
    """42P08 where a parameter's first mention leaves it untyped or text and a later one
    types it otherwise, with PostgreSQL's message and position (asyncpg prepares untyped)."""
    pg, cu = servers
    want = asyncio.run(_parameter_types(pg.dsn()))
    assert want[0] == ("42P08", "inconsistent types deduced for parameter $1", "8")
    assert asyncio.run(_parameter_types(cu.dsn())) == want


_CLIENT_SETUP = [
    "create type pt as (a int, b text)",
    "alter type pt add attribute c numeric(5,2), drop attribute a",
    "alter type pt rename attribute b to bb",
    "create type lvl as enum ('lo', 'hi')",
    "alter type lvl add value 'mid' before 'hi'",
]


async def _asyncpg_reads(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        for sql in _CLIENT_SETUP:
            await conn.execute(sql)
        rec = await conn.fetchval("select row('x', 1.5)::pt")  # introspects pt's fields
        levels = await conn.fetchval("select array['mid', 'hi']::lvl[]")
        arr = await conn.fetchval("select array[row('y', 2)::pt]")
        return [dict(rec), list(levels), [dict(r) for r in arr]]
    finally:
        await conn.close()


def _psycopg_reads(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in _CLIENT_SETUP:
            conn.execute(sql)
        info = CompositeInfo.fetch(conn, "pt")
        assert info is not None
        register_composite(info, conn)
        row = conn.execute("select row('x', 1.5)::pt").fetchone()
        assert row is not None
        return [list(info.field_names), [str(t) for t in info.field_types], tuple(row[0])]


def test_altered_types_through_clients(servers):
    pg, cu = servers
    for dsn in (pg.dsn(), cu.dsn()):
        fresh_database([dsn], "ut_clients")
        fresh_database([dsn], "ut_clients2")
    want = asyncio.run(_asyncpg_reads(pg.dsn(db="ut_clients")))
    got = asyncio.run(_asyncpg_reads(cu.dsn(dbname="ut_clients")))
    assert got == want
    assert want[0] == {"bb": "x", "c": Decimal("1.50")}
    want = _psycopg_reads(pg.dsn(db="ut_clients2"))
    got = _psycopg_reads(cu.dsn(dbname="ut_clients2"))
    assert got[0] == want[0] == ["bb", "c"]
    assert got == want


# -- type I/O details psycopg's own type tests check ----------------------------------------

IO_STATEMENTS = """
create schema tiof_s
create type tiof_r as range (subtype = text, collation = "C")
create type tiof_s.tiof_r as range (subtype = float8)
create type tiof_c as (foo text, bar int8)
create type tiof_s.tiof_c as (foo text, qux bool)
select 'tiof_s.tiof_r'::regtype::text, 'tiof_r'::regtype::text, 'tiof_s.tiof_c'::regtype::text
select rngsubtype::regtype::text from pg_range where rngtypid = 'tiof_s.tiof_r'::regtype
select attname from pg_attribute a join pg_type t on t.typrelid = a.attrelid where t.oid = 'tiof_s.tiof_c'::regtype and attnum > 0 order by attnum
select '[1.5,2]'::tiof_s.tiof_r::text, '[a,b]'::tiof_r::text
select 'nosuch_schema.tiof_r'::regtype
create type tiof_e as ()
select '()'::tiof_e::text, '(,)'::tiof_c::text
select '()'::tiof_c::text
select '()'::tiof_e
select '10:20:30.000040Z'::timetz, '10:20:30+01:02:03'::timetz, '01:02Z'::timetz
select '{(2,2),(1,1);(5,6),(3,4)}'::box[]
select ('{(2,2),(1,1);(5,6),(3,4)}'::box[])::text, array_to_string('{(2,2),(1,1);(5,6),(3,4)}'::box[], '|')
select array['(1,2),(3,4)'::box, '(5,6),(7,8)'::box]
select '{"(1,2),(3,4)"}'::box[]
select -9223372036854775808, - -9223372036854775808, -(-2147483648), - -2147483647, -(-(5))
select pg_typeof(- -9223372036854775808), pg_typeof(- -2147483648), pg_typeof(-(-(5)))
select -(2147483647 + 1)
create table tiof_t (data text, n int)
select '(foo,1)'::tiof_t
""".strip().splitlines()

# arrays of a table's row type: their binary form embeds the element's OID, a user OID
IO_TEXT_ONLY = """
select '{"(foo,1)","(,)"}'::tiof_t[], array['(foo,2)'::tiof_t], ('{"(bar,3)"}'::tiof_t[])[1]
select '{"(foo,1)"}'::tiof_t[]::text, 'x'::tiof_t[]
select pg_typeof('{"(foo,1)"}'::tiof_t[])
""".strip().splitlines()

IO_DROPS = ["drop schema if exists tiof_s cascade", "drop table if exists tiof_t",
         "drop type if exists tiof_r, tiof_c, tiof_e, tiof_mood cascade"]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_type_io_matches_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's outcome, byte for byte."""
    todo = IO_STATEMENTS if binary else IO_STATEMENTS + IO_TEXT_ONLY
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), todo, binary, drops=IO_DROPS)


def _enum_params(dsn: str, port: int, password: str | None) -> list:
    """A bad label sent for an enum-typed parameter, through psycopg (text and binary),
    asyncpg (binary) and pg8000, then a good one."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in IO_DROPS:
            c.execute(sql)
        c.execute("create type tiof_mood as enum ('sad', 'ok')")
        oid = c.execute("select 'tiof_mood'::regtype::oid").fetchone()[0]
        for fmt in (0, 1):
            res = c.pgconn.exec_params(b"select $1::text", [b"happy"], [oid], [fmt])
            out.append((res.error_field(psycopg.pq.DiagnosticField.SQLSTATE),
                        res.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY)))
            res = c.pgconn.exec_params(b"select $1::text", [b"ok"], [oid], [fmt])
            out.append(res.get_value(0, 0))
        c.execute("begin")  # a label renamed and rolled back is the type's label again
        c.execute("alter type tiof_mood rename value 'ok' to 'fine'")
        c.execute("rollback")
        for label in (b"ok", b"fine"):
            res = c.pgconn.exec_params(b"select $1::text", [label], [oid], [0])
            out.append(res.get_value(0, 0) if res.ntuples else
                       res.error_field(psycopg.pq.DiagnosticField.SQLSTATE))

    async def via_asyncpg() -> list:
        conn = await asyncpg.connect(dsn)
        try:
            got: list = [await conn.fetchval("select $1::tiof_mood::text", "ok")]
            try:
                await conn.fetchval("select $1::tiof_mood::text", "happy")
            except asyncpg.PostgresError as e:
                got.append((e.sqlstate, e.args[0]))
            return got
        finally:
            await conn.close()

    out.append(asyncio.run(via_asyncpg()))
    out.append(pg8000_outcomes(port, password, ["select 'happy'::tiof_mood",
                                                "select array['ok', 'sad']::tiof_mood[]::text"]))
    return out


def test_enum_parameters_are_checked_like_pg15(pg15, cumulo_server):
    want = _enum_params(pg15.dsn(), pg15.port, PASSWORD)
    assert want[0] == (b"22P02", b'invalid input value for enum tiof_mood: "happy"')
    assert _enum_params(cumulo_server.dsn(), cumulo_server.port, None) == want


def _latin9_binary(dsn: str) -> list:
    """Binary-format text and enum parameters, results and COPY TO fields under client_encoding
    LATIN9 (then LATIN1): their bytes are the client encoding's, converted as text-format ones
    are (textrecv, textsend), and a character LATIN1 lacks fails as in text (22P05)."""
    out: list = []
    eur = "\u20ac"
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in IO_DROPS:
            c.execute(sql)
        c.execute("create type tiof_mood as enum ('x\u00e0', 'foo,bar')")
        c.execute("set client_encoding to latin9")
        oid = c.execute("select 'tiof_mood'::regtype::oid").fetchone()[0]
        pg = c.pgconn
        for sql, typ in ((b"select ascii($1), $1 || '!'", 25), (b"select $1::text", oid)):
            value = (eur if typ == 25 else "x\u00e0").encode("iso8859-15")
            res = pg.exec_params(sql, [value], [typ], [1], result_format=1)
            out.append([res.get_value(0, i) for i in range(res.nfields)])
        with c.cursor().copy("copy (select chr(8364), 7, ('x' || chr(224))::tiof_mood) to stdout "
                             "(format binary)") as copy:
            copy.set_types(["text", "int4", "text"])
            out.append(list(copy.rows()))
        out.append(c.execute("select %b::text, %b", [eur, eur], binary=True).fetchone())
        c.execute("set client_encoding to latin1")
        try:
            with c.cursor().copy("copy (select chr(8364)) to stdout (format binary)") as copy:
                out.append(list(copy.rows()))
        except psycopg.Error as e:
            out.append(e.sqlstate)
    return out


def test_binary_text_parameters_in_client_encoding_like_pg15(pg15, cumulo_server):
    want = _latin9_binary(pg15.dsn())
    assert want[3] == ("\u20ac", "\u20ac") and want[-1] == "22P05"
    assert _latin9_binary(cumulo_server.dsn()) == want
