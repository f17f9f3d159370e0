"""Catalog fidelity diffed with PostgreSQL 15: what psql and ORMs read back.

- a CREATE FUNCTION's signature: pg_get_function_result / _arguments /
  _identity_arguments (modes, names, defaults, VARIADIC, RETURNS TABLE / SETOF,
  trigger), and psql's `\\df`, `\\df+` and `\\sf` output byte for byte;
- CREATE FUNCTION over a shell type (42P13 for SQL, 0A000 for PL/pgSQL);
- `COLLATE` inside expressions: unknown collations 42704, types without a
  collation 42804, two different explicit collations 42P21;
- `RETURNING t` (the target's whole row) is typed as the row type t, text and binary;
- a quoted name assigned to a reg* column is looked up (`'pg_class'` into regclass);
- DROP ROLE of a role that owns types, tables, sequences, functions and views
  or holds privileges: 2BP01 with PostgreSQL's DETAIL, in its order.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import uuid

import asyncpg
import psycopg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes

SCRIPTS = {
    "function_signatures": """
create function f1(a int, b text default 'x', variadic c int[] default '{}') returns int language sql as 'select 1';
create function f2(in a int, out b int, inout c text) language sql as 'select 1, ''x''';
create function f3(int) returns table(x int, y text) language sql as 'select 1, ''a''';
create function f4() returns setof int language sql as 'select 1';
create function f5() returns trigger language plpgsql as 'begin return new; end';
create function f6(a int, n numeric default 1.5, d date default null, k bool default true) returns int language sql immutable strict as 'select a';
create function f7(out only_one int) language sql as 'select 1';
select proname, pg_get_function_result(oid), pg_get_function_arguments(oid), pg_get_function_identity_arguments(oid) from pg_proc where proname ~ '^f[0-9]$' order by 1;
select pg_get_function_result('f4'::regproc), 'f5'::regproc, 'f3'::regproc::oid = (select oid from pg_proc where proname = 'f3');
select pg_get_functiondef('f6'::regproc);
select pg_get_function_result('abs(int)'::regprocedure), pg_get_function_arguments('abs(int)'::regprocedure);
create type sh;
create function g1(sh) returns int language sql as 'select 1';
create function g2(a sh) returns int language sql as 'select 1';
create function g3() returns sh language sql as 'select 1';
create function g4(a sh) returns int language plpgsql as 'begin return 1; end';
create function g5() returns sh language plpgsql as 'begin return 1; end';
""",
    "collate_clause": """
create table tc (t text, v varchar(5), i int);
insert into tc values ('b', 'x', 1), ('a', 'y', 2);
select 'a' collate "nope";
select 'a' collate C;
select 'a' collate s.x;
select 1 collate "C";
select 1.5 collate "C";
select i collate "C" from tc;
select * from tc where t collate "nope" = 'x';
select 'a' collate "C" = 'b' collate "POSIX";
select 'a' collate "C" = 'b' collate "nope";
select 'a' collate "C" < 'b', 'a' collate "C" = 'a' collate "C";
select 'a' collate pg_catalog."C", 'b' collate "default", 'c'::varchar collate "POSIX";
select array['a'] collate "C", null collate "C";
select t collate "C", v collate "POSIX" from tc order by t collate "POSIX";
create collation mine (locale = 'C');
select 'a' collate mine, 'b' collate public.mine;
""",
    "reg_assignment": """
create table rg (c regclass, t regtype, cs regclass[], p regproc, n regnamespace);
insert into rg(c, t, cs, p, n) values ('pg_class', 'int4', '{pg_class,rg}', 'now', 'public');
insert into rg(c, t) values ('rg', 'text'), ('pg_proc', 'int8');
insert into rg(c) values ('nosuch');
insert into rg(t) values ('nosuch');
insert into rg(cs) values ('{pg_type,nosuch}');
select c, t, cs, p, n, c::oid > 0 from rg order by c::oid;
update rg set c = 'rg' where t = 'int8'::regtype;
update rg set t = 'nosuch';
select c::text, t::text from rg order by 1, 2;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"catfid_{name}", SCRIPTS[name])


def _psql() -> str:
    for path in ("/usr/lib/postgresql/15/bin/psql", shutil.which("psql")):
        if path and os.path.exists(path):
            return path
    pytest.fail("psql is missing: tests/run.sh installs it")


PSQL_SETUP = [
    "create function f1(a int, b text default 'x', variadic c int[] default '{}') "
    "returns int language sql as 'select 1'",
    "create function f2(in a int, out b int, inout c text) language sql as 'select 1, ''x'''",
    "create function f3(int) returns table(x int, y text) language sql as 'select 1, ''a'''",
    "create function f5() returns trigger language plpgsql as 'begin return new; end'",
    "create function f6(a int) returns setof int language plpgsql stable as "
    "'begin return next a; end'",
    "create schema s",
    "create function s.f8(a int) returns void language sql immutable strict as ''",
]
PSQL_COMMANDS = ["\\df", "\\df+ f6", "\\sf f1", "\\sf f2", "\\sf f3", "\\sf f5", "\\sf+ f6",
                 "\\sf s.f8", "\\df s.*"]


def test_psql_df_and_sf_as_pg15(servers):
    outs = []
    for server, dsn in ((servers[0], servers[0].dsn()), (servers[1], servers[1].dsn())):
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("DROP DATABASE IF EXISTS catfid_psql")
            c.execute("CREATE DATABASE catfid_psql")
        db = server.dsn(db="catfid_psql") if server is servers[0] else \
            server.dsn(dbname="catfid_psql")
        with psycopg.connect(db, autocommit=True) as c:
            for sql in PSQL_SETUP:
                c.execute(sql)
        args = [_psql(), db, "-X"] + [a for cmd in PSQL_COMMANDS for a in ("-c", cmd)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PAGER": ""})
        outs.append(r.stdout + r.stderr)
    assert "TABLE(x integer, y text)" in outs[0] and "DEFAULT 'x'::text" in outs[0]
    assert "CREATE OR REPLACE FUNCTION s.f8(a integer)" in outs[0]
    assert outs[1] == outs[0]


def _owned_statements(role: str) -> list[str]:
    """REASSIGN OWNED and DROP OWNED clear the role for DROP ROLE."""
    return [f"create role {role}", "create schema s7", f"grant create, usage on schema s7 to {role}",
            f"set role {role}", "create type s7.tt as (a int)", "create table s7.t7 (a int)",
            "create sequence s7.q7", "create function s7.fn7(a int) returns int language sql "
            "as 'select a'", "create view s7.v7 as select a from s7.t7", "reset role",
            "create table other7 (a int)", f"grant select on other7 to {role}",
            f"reassign owned by {role} to current_user",
            f"select count(*) from pg_class where relname in ('t7', 'q7', 'v7') "
            f"and relowner = '{role}'::regrole", f"drop role {role}", f"set role {role}",
            "create table s7.mine (a int)", "reset role", "drop owned by nosuch",
            f"drop owned by {role}",
            "select relname from pg_class where relname in ('t7', 'q7', 'v7', 'mine') order by 1",
            f"drop role {role}"]


def _role_outcomes(db_dsn: str, statements: list[str]) -> list:
    out: list = []
    with psycopg.connect(db_dsn, autocommit=True) as c:
        for sql in statements:
            try:
                cur = c.execute(sql)
                out.append((sql, cur.statusmessage, cur.fetchall() if cur.description else None))
            except psycopg.Error as e:
                out.append((sql, e.sqlstate, e.diag.message_primary, e.diag.message_detail))
    return out


def _drop_role_outcomes(dsn: str, db_dsn: str, role: str) -> list:
    out: list = []
    with psycopg.connect(db_dsn, autocommit=True) as c:
        for sql in [f"create role {role}", "create schema s3",
                    f"grant create, usage on schema s3 to {role}", f"set role {role}",
                    "create type s3.tt as (a int)", "create type s3.en as enum ('a')",
                    "create table s3.t3 (a int)", "create sequence s3.q3",
                    "create function s3.fn3(a int, b text) returns int language sql as "
                    "'select a'",
                    "create view s3.v3 as select 1 as x", "create domain s3.dd as int",
                    "reset role", "create table other (a int)",
                    f"grant select on other to {role}", f"drop role {role}",
                    "set search_path = s3, public", f"drop role {role}",
                    "drop function s3.fn3(int, text)", "drop type s3.tt, s3.en",
                    "drop domain s3.dd", "drop schema s3 cascade", f"drop role {role}",
                    f"revoke select on other from {role}", f"drop role {role}"]:
            try:
                out.append((sql, c.execute(sql).statusmessage))
            except psycopg.Error as e:
                out.append((sql, e.sqlstate, e.diag.message_primary, e.diag.message_detail))
    return out


def test_drop_role_names_what_it_owns_as_pg15(servers):
    pg, cu = servers
    role = f"own_{uuid.uuid4().hex[:8]}"
    got = []
    for dsn, db_dsn in ((pg.dsn(), pg.dsn(db="catfid_roles")),
                        (cu.dsn(), cu.dsn(dbname="catfid_roles"))):
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("DROP DATABASE IF EXISTS catfid_roles")
            c.execute("CREATE DATABASE catfid_roles")
        got.append(_drop_role_outcomes(dsn, db_dsn, role)
                   + _role_outcomes(db_dsn, _owned_statements(role + "x")))
    expected = got[0]
    assert ("drop owned by " + role + "x", "DROP OWNED", None) in expected
    assert any("owner of type s3.tt" in str(r) for r in expected)
    assert expected[-1] == (f"drop role {role}x", "DROP ROLE", None)
    diffs = [(e, g) for e, g in zip(expected, got[1], strict=True) if e != g]
    assert not diffs, "\n".join(f"{e}\n  cumulo: {g}" for e, g in diffs)


RETURNING = ["insert into rt values (1, 'x') returning rt", "update rt set a = 2 returning rt",
             "insert into rt as z values (3, 'y') returning z, z.a",
             "delete from rt where a = 2 returning rt, rt.*"]


def _returning_psycopg(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists rt")
        c.execute("create table rt (a int, b text)")
        rowtype = c.execute("select 'rt'::regtype::oid").fetchone()[0]
        for sql in RETURNING:
            cur = c.execute(sql)
            out.append(([(d.name, d.type_code == rowtype) for d in cur.description],
                        cur.fetchall()))
    return out


async def _returning_asyncpg(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("drop table if exists rt; create table rt (a int, b text)")
        return [[tuple(tuple(v) if isinstance(v, asyncpg.Record) else v for v in r)
                 for r in await conn.fetch(sql)] for sql in RETURNING]
    finally:
        await conn.close()


def test_returning_whole_row_is_the_row_type_as_pg15(servers):
    pg, cu = servers
    expected = _returning_psycopg(pg.dsn())
    assert expected[0] == ([("rt", True)], [("(1,x)",)])
    assert _returning_psycopg(cu.dsn()) == expected
    expected = asyncio.run(_returning_asyncpg(pg.dsn()))
    assert expected[0] == [((1, "x"),)]  # NB: binary: asyncpg decodes the composite type
    assert asyncio.run(_returning_asyncpg(cu.dsn())) == expected
