"""Stored procedures (issue 16): CREATE PROCEDURE, CALL and transaction control, vs PG 15.

Each statement runs on PostgreSQL 15 and on Cumulo: status, result columns, rows,
SQLSTATE, message, DETAIL, HINT, CONTEXT and NOTICEs must be the same. Covered:
IN / INOUT / OUT / VARIADIC parameters with defaults and named notation, the row
CALL answers, overloads, nested CALLs, COMMIT / ROLLBACK [AND CHAIN] in CALL and DO
outside a transaction block (2D000 inside one, in a multi-statement Query message,
in a function or under an EXCEPTION block), DROP / ALTER / COMMENT ON / GRANT, the
catalog (pg_proc, information_schema.routines, pg_get_functiondef, psql's \\df and
\\sf), PostgreSQL's errors for SELECT of a procedure and CALL of a function, and
`CREATE SCHEMA ... AUTHORIZATION` with schema elements. The clients: psycopg (also
its default non-autocommit mode), asyncpg, pg8000 and pgJDBC's CallableStatement.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess

import psycopg
import pytest

from tests.clients import pgjdbc
from tests.integration.stmtdiff import assert_same, fresh_databases

SETUP = [
    "create table pt (a int)",
    "create procedure p1(a int, inout b int, out c text, d int default 5) language plpgsql as "
    "$$ begin b := a + b + d; c := 'x' || a; raise notice 'hi %', a; end $$",
    "create procedure p8(inout int, out text) language sql as $$ select 1, 'a' $$",
    "create procedure ins(n int) language plpgsql as $$ begin for i in 1..n loop "
    "insert into pt values (i); if i % 2 = 0 then commit; else rollback; end if; end loop; end $$",
    "create procedure inner2() language plpgsql as $$ begin insert into pt values (100); "
    "commit; end $$",
]

STATEMENTS = [
    *SETUP,
    "call p1(1, 2, null)",
    "call p1(1, 2, null, d => 10)",
    "call p1(b => 3, a => 1, c => null)",
    "call p1(1)",
    "call p1(a => 1, a => 2)",
    "select p1(1, 2)",
    "select p1(1, 2, null)",
    "call p8(5, null)",
    "create function f1(int) returns int language sql as 'select $1'",
    "call f1(1)",
    "call nosuch(1)",
    "create procedure p3() language sql begin atomic select 1; end",
    "call p3()",
    "create procedure p6(out x int) language plpgsql as $$ begin x := 1; end $$",
    "call p6(null)",
    "call p6()",
    "create procedure p7(variadic a int[]) language plpgsql as $$ begin raise notice '%', a; end $$",
    "call p7(1, 2, 3)",
    "create procedure ov(a int) language plpgsql as $$ begin raise notice 'int %', a; end $$",
    "create procedure ov(a text) language plpgsql as $$ begin raise notice 'text %', a; end $$",
    "call ov(1)",
    "call ov('x'::text)",
    "call ov(1.5)",
    "call ov('x')",
    "call ov(null)",
    "create procedure ov2(a int) language plpgsql as $$ begin raise notice 'int %', a; end $$",
    "create procedure ov2(a bigint) language plpgsql as $$ begin raise notice 'int8 %', a; end $$",
    "call ov2(1)",
    "call ov2(2::smallint)",
    "call ov2('3')",
    "create procedure ret2() language plpgsql as $$ begin return 1; end $$",
    "create procedure p1(a int, inout b int, out c text, d int default 5) language sql as "
    "$$ select 1, 'a' $$",
    "create or replace function p1(a int, inout b int, out c text, d int default 5) "
    "language sql as $$ select 1, 'a' $$",
    "select proname, prokind, prorettype::regtype, proargmodes, proallargtypes, proargnames, "
    "proargtypes::text, pronargdefaults from pg_proc where proname in ('p1', 'p3', 'p6', 'p7', "
    "'p8') order by 1",
    "select pg_get_functiondef('p1'::regproc), pg_get_functiondef('p3'::regproc)",
    "create function f4(a int, out b int) returns setof record language sql as 'select 1'",
    "create function f5(a int, b text default 'x', variadic c int[] default '{}') returns int "
    "language sql as 'select 1'",
    "create function f6(in a int, out b int, inout c text) language sql as 'select 1, ''x'''",
    "create function f7(int) returns table(x int, y text) language sql as 'select 1, ''a'''",
    "select proname, pronargs, pronargdefaults, prorettype::regtype, proretset, "
    "proargtypes::text, proallargtypes, proargmodes, proargnames from pg_proc "
    "where proname in ('f5', 'f6', 'f7') order by 1",
    "create function fa(a int) returns int language sql begin atomic select a + 1; end",
    "select fa(1), pg_get_functiondef('fa'::regproc)",
    "create function fr(a int) returns int language sql return a * 2",
    "create function fr2(a int) returns int return a * 3",
    "select fr(4), fr2(4), pg_get_functiondef('fr'::regproc)",
    "select pg_get_function_arguments('p8'::regproc), pg_get_function_result('p8'::regproc)",
    "select routine_name, routine_type, data_type, routine_body, external_language "
    "from information_schema.routines where routine_schema = 'public' order by 1, 2",
    "create procedure ppar(a int, inout b text default 'x', out c numeric) language sql as "
    "$$ select 'a', 1.0 $$",
    "create procedure ppar(a int, out c numeric, inout b text default 'x') language sql as "
    "$$ select 1.0, 'a' $$",
    "call ppar(1, null)",
    "create function ftab(a int) returns table (x int, y text[]) language sql as "
    "$$ select 1, '{}'::text[] $$",
    "select regexp_replace(specific_name, '_[0-9]+$', '') as name, ordinal_position, "
    "parameter_mode, is_result, parameter_name, data_type, udt_name, dtd_identifier, "
    "parameter_default from information_schema.parameters where specific_schema = 'public' "
    "and specific_name ~ '^(ppar|ftab|p1|p8)_' order by 1, 2",
    # transaction control
    "call ins(6)",
    "select * from pt order by 1",
    "do $$ begin insert into pt values (10); rollback; insert into pt values (11); "
    "commit and chain; insert into pt values (12); end $$",
    "select * from pt order by 1",
    "begin",
    "call ins(2)",
    "rollback",
    "begin",
    "do $$ begin commit; end $$",
    "rollback",
    "create procedure p4() language plpgsql as $$ begin begin commit; exception when others "
    "then raise notice '%', sqlerrm; end; end $$",
    "call p4()",
    "do $$ begin execute 'commit'; end $$",
    "do $$ begin savepoint a; end $$",
    "create procedure sqlc() language sql as $$ commit $$",
    "call sqlc()",
    "create procedure outer2() language plpgsql as $$ begin call inner2(); "
    "insert into pt values (101); rollback; end $$",
    "call outer2()",
    "select * from pt order by 1",
    "create function fcall() returns int language plpgsql as $$ begin call inner2(); "
    "return 1; end $$",
    "select fcall()",
    "create procedure outer3(inout x int) language plpgsql as $$ begin "
    "call p1(x, x, null); x := x * 100; end $$",
    "call outer3(1)",
    "create procedure outer4(inout x int, inout y text) language plpgsql as $$ begin "
    "call p1(x, x, y); end $$",
    "call outer4(2, null)",
    "create procedure iso() language plpgsql as $$ begin commit; set transaction isolation level "
    "repeatable read; raise notice '%', current_setting('transaction_isolation'); commit and "
    "chain; raise notice '%', current_setting('transaction_isolation'); commit; "
    "raise notice '%', current_setting('transaction_isolation'); end $$",
    "call iso()",
    # utility statements in PL/pgSQL run as written (migrations' DO blocks)
    "do $$ begin create type mood as enum ('a', 'b'); exception when duplicate_object then "
    "null; end $$",
    "do $$ begin create type mood as enum ('a', 'b'); exception when duplicate_object then "
    "raise notice 'dup'; end $$",
    "do $$ begin create sequence sq1; comment on sequence sq1 is 'x'; end $$",
    "do $$ begin set local work_mem = '8MB'; raise notice '%', current_setting('work_mem'); "
    "end $$",
    "do $$ begin set search_path = public; reset work_mem; end $$",
    "do $$ begin select 1; end $$",
    "do $$ begin show work_mem; end $$",
    "create procedure pd(out a int) language sql as $$ select 1 where false $$",
    "call pd(null)",
    "create procedure pc(inout a int, inout b text) language sql as $$ select a + 1, b || 'x' $$",
    "call pc(1, b => 'z')",
    # DDL around procedures
    "alter procedure p7(int[]) rename to p7b",
    "call p7b(4)",
    "create schema hps",
    "alter procedure p7b set schema hps",
    "call hps.p7b(5)",
    "create function hps.fq(a int) returns int language plpgsql as $$ begin "
    "raise notice 'fq %', a; return a; end $$",
    "select hps.fq(1)",
    "alter procedure hps.p7b(int[]) set schema public",
    "alter procedure nosuch rename to x",
    "comment on procedure p8(int, text) is 'p8 doc'",
    "comment on procedure p6 is 'p6 doc'",
    "select obj_description('p8'::regproc, 'pg_proc'), obj_description('p6'::regproc, 'pg_proc')",
    "grant execute on procedure p6() to public",
    "revoke execute on procedure p6 from public",
    "select proacl is not null from pg_proc where proname = 'p6'",
    "create role hp_g16",
    "create procedure gp(a int) language sql as $$ select 1 $$",
    "create function gf(a int) returns int language sql as $$ select 1 $$",
    "revoke execute on all procedures in schema public from public",
    "grant execute on all routines in schema public to hp_g16",
    "grant execute on routine gp to public",
    "revoke all on procedure gp from hp_g16",
    "select proname, proacl from pg_proc where proname in ('gp', 'gf') order by 1",
    "grant execute on procedure gf(int) to hp_g16",
    "drop owned by hp_g16",
    "drop role hp_g16",
    "create role hp_o17",
    "create procedure op(a int) language sql as $$ select 1 $$",
    "create procedure op(a text) language sql as $$ select 1 $$",
    "alter procedure op owner to hp_o17",
    "alter procedure op(text) owner to hp_o17",
    "alter routine op(int) owner to hp_o17",
    "alter function op(int) owner to hp_o17",
    "alter procedure nosuch(int) owner to hp_o17",
    "select proname, pg_get_userbyid(proowner), proargtypes::text from pg_proc "
    "where proname = 'op' order by 3",
    "drop procedure op(int)",
    "drop procedure op(text)",
    "drop role hp_o17",
    "drop procedure p9",
    "drop procedure if exists p9",
    "drop procedure if exists p9(int)",
    "drop function p8",
    "drop procedure f1",
    "drop procedure p8(int, text)",
    "drop procedure p1(int, int, int)",
    "drop routine p6, p7b",
    "drop procedure ov",
    # SECURITY DEFINER (current_user the owner, its privileges inside) and SET clauses
    # (proconfig, set for the call): either makes a procedure atomic; ALTER ... SET / RESET
    "create role hsd_owner",
    "create role hsd_user",
    "create table hsd_t (a int)",
    "insert into hsd_t values (7)",
    "alter table hsd_t owner to hsd_owner",
    "create function hsd_peek() returns int language sql security definer as "
    "$$ select a from hsd_t $$",
    "create function hsd_peek2() returns int language sql as $$ select a from hsd_t $$",
    "create function hsd_who() returns text language plpgsql security definer as "
    "$$ begin return current_user || '/' || session_user; end $$",
    "alter function hsd_peek() owner to hsd_owner",
    "alter function hsd_who() owner to hsd_owner",
    "create procedure hsd_p() language plpgsql security definer as "
    "$$ begin insert into hsd_t values (8); commit; end $$",
    "call hsd_p()",
    "create procedure hsd_cfg() language plpgsql set work_mem = '1MB' set search_path = "
    "pg_catalog, 'a b' as $$ begin raise notice '% %', current_setting('work_mem'), "
    "current_setting('search_path'); end $$",
    "call hsd_cfg()",
    "select current_setting('work_mem'), current_setting('search_path')",
    "alter procedure hsd_cfg() set work_mem = '2MB' reset search_path",
    "call hsd_cfg()",
    "alter procedure hsd_cfg reset all",
    "create function hsd_bad() returns int language sql set work_mem = 'abc' as 'select 1'",
    "create function hsd_bad() returns int language sql set nosuch = 1 as 'select 1'",
    "create function hsd_bad() returns int language sql security definer security invoker "
    "as 'select 1'",
    "create function hsd_ok() returns int language sql set my.x = 'q' set work_mem = default "
    "as 'select 1'",
    "alter function hsd_ok() set work_mem = 'abc'",
    "alter function hsd_peek2() security definer",
    "alter function hsd_peek2() external security invoker set timezone from current",
    "select proname, prosecdef, proconfig from pg_proc where proname like 'hsd%' order by 1",
    "select pg_get_functiondef('hsd_who'::regproc)",
    "set role hsd_user",
    "select hsd_peek()",
    "select hsd_who(), current_user",
    "alter function hsd_who() security invoker",
    "reset role",
    "drop function hsd_peek, hsd_peek2, hsd_who, hsd_ok",
    "drop procedure hsd_p, hsd_cfg",
    "drop table hsd_t",
    "drop role hsd_owner",
    "drop role hsd_user",
    # CREATE SCHEMA ... AUTHORIZATION and schema elements
    "create role hp_owner",
    "create schema hpa authorization hp_owner",
    "select nspname, pg_get_userbyid(nspowner) from pg_namespace where nspname = 'hpa'",
    "create schema authorization hp_owner",
    "select nspname, pg_get_userbyid(nspowner) from pg_namespace where nspname = 'hp_owner'",
    "create schema if not exists hpa authorization hp_owner",
    "create schema hpb create table t1 (a int primary key) create view v1 as select a from t1 "
    "create sequence q1",
    "insert into hpb.t1 values (1), (2)",
    "select * from hpb.v1 order by 1",
    "select relname, relkind from pg_class where relnamespace = 'hpb'::regnamespace "
    "order by 1",
    "create schema hpc create table hpb.t2 (a int)",
    "create schema hpq create table t (a int) create index ti on t (a) grant select on t to "
    "public create sequence s1",
    "select relname, relkind from pg_class where relnamespace = 'hpq'::regnamespace order by 1",
    "select has_table_privilege('public', 'hpq.t', 'select')",
    "create schema authorization current_user",
    "select nspname, pg_get_userbyid(nspowner) from pg_namespace where nspname = current_user",
    "create schema hpq3 authorization nosuchrole",
    "create schema if not exists hpq4 create table t (a int)",
    "create schema hpq5 create view v as with x as (select 1 as a) select a from x "
    "create table t1 (a int primary key) create table t2 (b int references t1)",
    "select * from hpq5.v",
    "drop schema hpq cascade",
    "drop schema cumulo",
    "drop schema hpq5 cascade",
    "drop schema hpa, hpb, hp_owner cascade",
    "drop role hp_owner",
]


def outcomes(dsn: str, statements: list[str]) -> list[tuple]:
    """Each statement's outcome through psycopg in autocommit mode."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        notes: list[tuple] = []
        c.add_notice_handler(lambda d: notes.append((d.severity, d.message_primary, d.context)))
        for sql in statements:
            notes.clear()
            try:
                cur = c.execute(sql)
                cols = [(d.name, d.type_code) for d in cur.description or ()]
                rows = cur.fetchall() if cur.description else None
                out.append((sql, cur.statusmessage, cols, rows, list(notes)))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, "ERROR", e.sqlstate, d.message_primary, d.message_detail,
                            d.message_hint, d.context, list(notes)))
    return out


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return fresh_databases(pg15, cumulo_server, "procs")


def test_procedures_same_as_pg15(servers):
    expected = outcomes(servers[0], STATEMENTS)
    assert sum(1 for r in expected if r[1] == "CALL") >= 15
    got = outcomes(servers[1], STATEMENTS)
    assert_same(expected, got)


CLIENT_SETUP = [
    "create table if not exists ct (a int)",
    "create or replace procedure cp(a int, inout b int, out c text) language plpgsql as "
    "$$ begin b := a * b; c := 'n' || a; end $$",
    "create or replace procedure cc(v int) language plpgsql as "
    "$$ begin insert into ct values (v); commit; insert into ct values (v + 1); rollback; end $$",
]


def _setup(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in CLIENT_SETUP:
            c.execute(sql)
        c.execute("truncate ct")


def _psycopg(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        cur = c.execute("CALL cp(%s, %s, NULL)", (6, 7))
        out.append(([d.name for d in cur.description], cur.fetchall()))
        c.execute("CALL cc(%s)", (1,))
        out.append(c.execute("select a from ct order by a").fetchall())
        try:
            c.execute("CALL cc(5); select 1")  # NB: one Query message: an implicit block
        except psycopg.Error as e:
            out.append((e.sqlstate, e.diag.message_primary))
    with psycopg.connect(dsn, autocommit=True) as c:  # NB: a prepared CALL sees a new body
        c.execute("create or replace procedure rp(inout a int) language plpgsql as "
                  "$$ begin a := a + 1; end $$")
        for i in range(6):
            out.append(c.execute("CALL rp(%s)", (i,), prepare=True).fetchall())
            if i == 3:
                c.execute("create or replace procedure rp(inout a int) language plpgsql as "
                          "$$ begin a := a * 100; end $$")
    with psycopg.connect(dsn) as c:  # NB: psycopg's default: BEGIN before the first statement
        try:
            c.execute("CALL cc(%s)", (3,))
        except psycopg.Error as e:
            out.append((e.sqlstate, e.diag.message_primary, e.diag.context))
    return out


def _asyncpg(dsn: str) -> list:
    asyncpg = pytest.importorskip("asyncpg")

    async def go() -> list:
        conn = await asyncpg.connect(dsn)
        try:
            row = await conn.fetchrow("CALL cp($1, $2, NULL)", 3, 4)
            await conn.execute("CALL cc($1)", 20)
            got = await conn.fetch("select a from ct where a >= 20 order by a")
            stmt = await conn.prepare("CALL cp($1, $2, $3)")
            types = [t.name for t in stmt.get_parameters()]
            return [dict(row), [r["a"] for r in got], types,
                    [(a.name, a.type.name) for a in stmt.get_attributes()]]
        finally:
            await conn.close()

    return asyncio.run(go())


def _pg8000(server) -> list:
    pg8000 = pytest.importorskip("pg8000.native")
    kw = server
    conn = pg8000.Connection(**kw)
    try:
        rows = conn.run("CALL cp(:a, :b, NULL)", a=2, b=5)
        cols = [c["name"] for c in conn.columns]
        conn.run("CALL cc(30)")
        return [rows, cols, conn.run("select a from ct where a >= 30 order by a")]
    finally:
        conn.close()


def test_clients_same_as_pg15(servers, pg15, cumulo_server):
    for dsn in servers:
        _setup(dsn)
    expected, got = _psycopg(servers[0]), _psycopg(servers[1])
    assert expected[0] == (["b", "c"], [(42, "n6")])
    assert got == expected
    assert _asyncpg(servers[1]) == _asyncpg(servers[0])
    from tests.pg15 import PASSWORD

    pg_kw = {"host": pg15.host, "port": pg15.port, "user": "cumulo", "password": PASSWORD,
             "database": "procs"}
    cu_kw = {"host": cumulo_server.host, "port": cumulo_server.port, "user": "cumulo",
             "database": "procs"}
    assert _pg8000(cu_kw) == _pg8000(pg_kw)


def _jdbc(java, url: str) -> list:
    conn = java.sql.DriverManager.getConnection(url)
    out: list = []
    try:
        types = java.sql.Types
        cs = conn.prepareCall("{call cp(?, ?, ?)}")
        cs.setInt(1, 3)
        cs.setInt(2, 9)
        cs.setNull(3, types.VARCHAR)
        cs.registerOutParameter(2, types.INTEGER)
        cs.registerOutParameter(3, types.VARCHAR)
        cs.execute()
        out.append((int(cs.getInt(2)), str(cs.getString(3))))
        cs = conn.prepareCall("call cc(?)")
        cs.setInt(1, 40)
        cs.execute()
        rs = conn.createStatement().executeQuery("select a from ct where a >= 40 order by a")
        while rs.next():
            out.append(int(rs.getInt(1)))
        md = conn.getMetaData()  # NB: the specific names end in the OID: left out
        for rs in (md.getProcedures(None, "public", "c%"),
                   md.getProcedureColumns(None, "public", "cp", None),
                   md.getFunctionColumns(None, "public", "cp", None)):
            n = rs.getMetaData().getColumnCount()
            while rs.next():
                out.append(tuple(re.sub(r"_\d+$", "", str(rs.getString(i)))
                                 for i in range(1, n + 1)))
        conn.setAutoCommit(False)
        try:
            cs = conn.prepareCall("call cc(?)")
            cs.setInt(1, 50)
            cs.execute()
        except java.sql.SQLException as e:
            out.append(str(e.getSQLState()))
        conn.rollback()
    finally:
        conn.close()
    return out


def test_jdbc_callable_statement_same_as_pg15(servers, pg15, cumulo_server):
    java = pgjdbc.start().JPackage("java")
    from tests.pg15 import PASSWORD

    for dsn in servers:
        _setup(dsn)
    opts = "escapeSyntaxCallMode=callIfNoReturn"
    pg = _jdbc(java, f"jdbc:postgresql://{pg15.host}:{pg15.port}/procs?user=cumulo"
                     f"&password={PASSWORD}&{opts}")
    cu = _jdbc(java, f"jdbc:postgresql://{cumulo_server.host}:{cumulo_server.port}/procs"
                     f"?user=cumulo&{opts}")
    assert pg[0] == (27, "n3")
    assert cu == pg


PSQL_SETUP = [
    "create procedure sp1(a int, inout b int, out c text, d int default 5) language plpgsql "
    "as $$ begin b := a; end $$",
    "create procedure sp2() language sql begin atomic select 1; end",
    "create function sf1(a int) returns int language sql as 'select a'",
    "comment on procedure sp1 is 'one'",
    "create procedure sp3() language sql security definer set work_mem = '1MB' "
    "set search_path = public, 'a b' as 'select 1'",
]


def _psql() -> str:
    for path in ("/usr/lib/postgresql/15/bin/psql", shutil.which("psql")):
        if path and os.path.exists(path):
            return path
    pytest.fail("psql is missing: tests/run.sh installs it")


def test_psql_df_and_sf_of_procedures_as_pg15(servers):
    outs = []
    for dsn in servers:
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("create table spt (a int)")
            for sql in PSQL_SETUP:
                c.execute(sql)
        args = [_psql(), dsn, "-X"] + [a for cmd in ("\\df public.sp*", "\\df sf1", "\\sf sp1",
                                                      "\\sf sp2", "\\dfp public.*",
                                                      "\\df+ public.sp1", "\\df+ sp3",
                                                      "\\sf sp3") for a in ("-c", cmd)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PAGER": ""})
        outs.append(r.stdout + r.stderr)
    assert "| proc" in outs[0] and "BEGIN ATOMIC" in outs[0]
    assert outs[1] == outs[0]
