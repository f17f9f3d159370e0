"""Triggers and set-returning PL/pgSQL (issue 16), against PostgreSQL 15.

Each statement runs on PostgreSQL 15 and on Cumulo through psycopg: status, rows,
SQLSTATE, message and the NOTICEs a trigger raises must be the same. It covers
`RETURNS SETOF` / `RETURNS TABLE` with RETURN NEXT, RETURN QUERY [EXECUTE]; CREATE
[OR REPLACE] / DROP TRIGGER and their errors; BEFORE ROW triggers that change or skip
rows; AFTER ROW audit triggers; statement triggers; WHEN, UPDATE OF, TG_* and
TG_ARGV; ENABLE / DISABLE; pg_trigger, pg_get_triggerdef and information_schema.
The other write paths (COPY FROM, prepared and ON CONFLICT inserts, cascading
foreign keys, asyncpg's executemany) and psql's `\\d` are compared too.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import shutil
import subprocess

import asyncpg
import psycopg
import pyarrow as pa
import pytest

import cumulo.driver as cd
from tests.integration.stmtdiff import assert_same, fresh_databases
from tests.integration.test_plpgsql_functions_pg15 import run  # status, rows, NOTICEs per statement

STATEMENTS = [
    'create table t (id int primary key, a text)',
    "insert into t values (1, 'x'), (2, 'y'), (3, 'z')",
    'create function nums(n int) returns setof int language plpgsql as $$ begin for i in 1..n loop return next i * 10; end loop; return; end $$',
    'select * from nums(3)',
    'select nums(2)',
    "create function tab(lim int) returns table (k int, v text) language plpgsql as $$ begin return query select id, a from t where id <= lim order by id; k := 99; v := 'extra'; return next; end $$",
    'select * from tab(2)',
    'select k, v from tab(5) where k > 1',
    'create function rows_of() returns setof t language plpgsql as $$ declare r record; begin for r in select * from t order by id loop return next r; end loop; end $$',
    'select * from rows_of()',
    "create function dyn(tbl text) returns setof text language plpgsql as $$ begin return query execute format('select a from %I where id > $1 order by id', tbl) using 1; end $$",
    "select * from dyn('t')",
    "select dyn('t')",
    'create function bad() returns int language plpgsql as $$ begin return next 1; end $$',
    "create function outs(out a int, out b text) returns setof record language plpgsql as $$ begin a := 1; b := 'one'; return next; a := 2; b := 'two'; return next; end $$",
    'select * from outs()',
    'create function empty_set() returns setof int language plpgsql as $$ begin return; end $$',
    'select * from empty_set()',
    'select count(*) from nums(100)',
    'create function bad2() returns setof int language plpgsql as $$ begin if true then return 1; end if; end $$',
    'create function bad3() returns int language plpgsql as $$ begin begin return query select 1; end; end $$',
    'create table t (id int primary key, a text, n int default 0, updated_at timestamptz)',
    'create table audit (op text, tbl text, old_id int, new_id int, info text)',
    "create function trg() returns trigger language plpgsql as $$ begin NEW.a := upper(NEW.a); raise notice '% % % % % % %', TG_OP, TG_NAME, TG_WHEN, TG_LEVEL, TG_TABLE_NAME, TG_TABLE_SCHEMA, TG_NARGS; return NEW; end $$",
    "create trigger t_bi before insert or update of a on t for each row when (new.id > 0) execute function trg('x', 2)",
    'create function aud() returns trigger language plpgsql as $$ begin insert into audit values (TG_OP, TG_TABLE_NAME, OLD.id, NEW.id, TG_ARGV[0]); return NULL; end $$',
    "create trigger t_aud after insert or update or delete on t for each row execute function aud('argzero')",
    "create function stmt() returns trigger language plpgsql as $$ begin raise notice 'stmt % % %', TG_WHEN, TG_OP, TG_LEVEL; return NULL; end $$",
    'create trigger t_s1 before insert or delete on t for each statement execute procedure stmt()',
    'create trigger t_s2 after update on t execute procedure stmt()',
    'select tgname, tgtype, tgenabled, tgnargs, tgargs, tgattr, tgqual is not null, pg_get_triggerdef(oid), pg_get_triggerdef(oid, true) from pg_trigger order by 1',
    'select * from information_schema.triggers order by trigger_name, event_manipulation',
    "select relhastriggers from pg_class where relname = 't'",
    "insert into t values (1, 'abc'), (-1, 'neg')",
    "insert into t values (2, 'def') returning *",
    'select * from t order by id',
    "update t set a = 'zz' where id = 1",
    'update t set n = 5 where id = 2',
    'update t set n = 6 where id = 99',
    'delete from t where id = -1',
    'select * from t order by id',
    'select * from audit',
    "create function skip() returns trigger language plpgsql as $$ begin if NEW.id = 13 then return null; end if; if TG_OP = 'DELETE' then return OLD; end if; return NEW; end $$",
    'create trigger a_skip before insert or update on t for each row execute function skip()',
    "insert into t values (13, 'unlucky'), (14, 'ok')",
    'update t set id = 13 where id = 14',
    'select * from t order by id',
    "create function stamp() returns trigger language plpgsql as $$ begin NEW.updated_at := '2020-01-01 00:00:00+00'; NEW.n := NEW.n + 1; return NEW; end $$",
    'create trigger z_stamp before update on t for each row execute function stamp()',
    "update t set a = 'q' where id = 2 returning id, a, n, updated_at",
    "create function boom() returns trigger language plpgsql as $$ begin if NEW.a = 'BAD' then raise exception 'bad row %', NEW.id using errcode = '22023'; end if; return NEW; end $$",
    'create trigger b_boom before insert on t for each row execute function boom()',
    "insert into t values (20, 'bad')",
    'select count(*) from t',
    'create trigger t_bi before insert on t for each row execute function trg()',
    'create trigger t_x before insert on nosuch for each row execute function trg()',
    'create trigger t_y before insert on t for each row execute function nosuch()',
    "create function notrg() returns int language sql as 'select 1'",
    'create trigger t_y before insert on t for each row execute function notrg()',
    'drop trigger t_zz on t',
    'drop trigger if exists t_zz on t',
    'drop trigger if exists t_zz on nosuch',
    'drop function trg()',
    'select trg()',
    'create trigger t_w before insert on t for each statement when (new.id > 0) execute function trg()',
    'create trigger t_w before truncate on t for each row execute function trg()',
    'create trigger t_w instead of insert on t for each row execute function trg()',
    'create function targ(int) returns trigger language plpgsql as $$ begin return null; end $$',
    'alter table t disable trigger t_aud',
    "insert into t values (30, 'x')",
    'select count(*) from audit',
    'select tgname, tgenabled from pg_trigger order by 1',
    'alter table t enable trigger all',
    'alter table t disable trigger nosuch',
    'drop trigger t_bi on t',
    "create or replace trigger t_aud after delete on t for each row execute function aud('again')",
    'delete from t where id = 30',
    "select * from audit where op = 'DELETE'",
    'drop function aud() cascade',
    'select count(*) from pg_trigger',
    # recursion (54001), INSERT ... ON CONFLICT's triggers
    'create table rr (id int primary key)',
    'create function rec() returns trigger language plpgsql as $$ begin insert into rr values (NEW.id + 1); return NEW; end $$',
    'create trigger rec after insert on rr for each row execute function rec()',
    'insert into rr values (1)',
    'select count(*) from rr',
    'create table oc (id int primary key, v text, n int default 0)',
    "create function ocb() returns trigger language plpgsql as $$ begin raise notice '% % %', TG_OP, NEW.id, NEW.v; NEW.v := NEW.v || '+'; return NEW; end $$",
    'create trigger ocb before insert or update on oc for each row execute function ocb()',
    "insert into oc values (1, 'a')",
    "insert into oc values (1, 'b') on conflict (id) do update set v = excluded.v, n = oc.n + 1",
    "insert into oc values (1, 'c') on conflict (id) do nothing",
    'select * from oc',
    "create function ocs() returns trigger language plpgsql as $$ begin raise notice 'stmt % %', TG_WHEN, TG_OP; return null; end $$",
    'create trigger ocs before insert or update on oc for each statement execute function ocs()',
    "insert into oc values (1, 'd') on conflict (id) do update set v = excluded.v",
    "select tgname from pg_trigger t join pg_class c on c.oid = tgrelid where relname = 'oc' order by 1",
    # TRUNCATE statement triggers
    'create table tr (id int)',
    'insert into tr values (1), (2)',
    "create function trf() returns trigger language plpgsql as $$ begin raise notice '% % % rows %', TG_WHEN, TG_OP, TG_LEVEL, (select count(*) from tr); return null; end $$",
    'create trigger trb before truncate on tr execute function trf()',
    'create trigger tra after truncate on tr for each statement execute function trf()',
    "select pg_get_triggerdef(oid) from pg_trigger where tgname = 'trb'",
    "select event_manipulation, action_timing from information_schema.triggers where trigger_name = 'tra'",
    'truncate tr',
    'select count(*) from tr',
    # ALTER TRIGGER ... RENAME, DROP TABLE takes its triggers
    'create table rn (id int)',
    "create function rnf() returns trigger language plpgsql as $$ begin raise notice 'fired %', TG_NAME; return NEW; end $$",
    'create trigger rn1 before insert on rn for each row execute function rnf()',
    'create trigger rn2 before insert on rn for each row execute function rnf()',
    'alter trigger rn1 on rn rename to rn3',
    'alter trigger rn2 on rn rename to rn3',
    'alter trigger nosuch on rn rename to x',
    'insert into rn values (1)',
    'select tgname from pg_trigger order by 1',
    'drop table rn',
    'select count(*) from pg_trigger',
    'create table rn (id int)',
    'create trigger rn1 before insert on rn for each row execute function rnf()',
    'insert into rn values (2)',
    # UPDATE OF fires on the SET list, not on changed values
    'create table uo (id int primary key, a text, b text)',
    "insert into uo values (1, 'x', 'y')",
    "create function uof() returns trigger language plpgsql as $$ begin raise notice '% % %', TG_NAME, TG_WHEN, NEW.a; return NEW; end $$",
    'create trigger uo_b before update on uo for each row execute function uof()',
    'create trigger uo_a after update of a on uo for each row execute function uof()',
    'update uo set a = a',
    "update uo set b = 'z'",
    "update uo set a = 'w', b = 'v'",
    # a BEFORE trigger sees its statement's earlier rows; AFTER ones see them all
    'create table sq (id int primary key, grp text, n int)',
    'create function sqn() returns trigger language plpgsql as $$ begin NEW.n := (select coalesce(max(n), 0) + 1 from sq where grp = NEW.grp); return NEW; end $$',
    'create trigger sqn before insert on sq for each row execute function sqn()',
    "insert into sq values (1, 'a'), (2, 'a'), (3, 'b'), (4, 'a')",
    'select * from sq order by id',
    'create table sl (id int primary key, v int)',
    "create function slc() returns trigger language plpgsql as $$ begin raise notice '% % sees %', TG_WHEN, coalesce(NEW.id, OLD.id), (select count(*) from sl); return coalesce(NEW, OLD); end $$",
    'create trigger slb before insert or delete on sl for each row execute function slc()',
    'create trigger sla after insert or delete on sl for each row execute function slc()',
    'insert into sl values (1, 1), (2, 2), (3, 3)',
    'delete from sl where id < 3',
    "create function slu() returns trigger language plpgsql as $$ begin raise notice 'upd % sees sum %', NEW.id, (select sum(v) from sl); return NEW; end $$",
    'create trigger slu before update on sl for each row execute function slu()',
    'insert into sl values (4, 4), (5, 5)',
    'update sl set v = v * 10',
    # errors: unknown fields, no RETURN, bad values, WHEN's references, views
    'create table e (id int primary key, a text)',
    'create function e1() returns trigger language plpgsql as $$ begin NEW.nosuch := 1; return NEW; end $$',
    'create trigger e1 before insert on e for each row execute function e1()',
    "insert into e values (1, 'x')",
    'drop trigger e1 on e',
    'create function e2() returns trigger language plpgsql as $$ begin perform 1; end $$',
    'create trigger e2 before insert on e for each row execute function e2()',
    "insert into e values (1, 'x')",
    'drop trigger e2 on e',
    "create function e3() returns trigger language plpgsql as $$ begin NEW.id := 'abc'; return NEW; end $$",
    'create trigger e3 before insert on e for each row execute function e3()',
    "insert into e values (1, 'x')",
    'drop trigger e3 on e',
    "create function e4() returns trigger language plpgsql as $$ begin raise notice '%', NEW.nosuch; return NEW; end $$",
    'create trigger e4 before insert on e for each row execute function e4()',
    "insert into e values (1, 'x')",
    'drop trigger e4 on e',
    "create function e5() returns trigger language plpgsql as $$ begin raise notice 'argv % %', TG_ARGV[5], TG_ARGV[1]; return NEW; end $$",
    "create trigger e5 before insert on e for each row execute function e5(a, 'b c', 3.5)",
    "insert into e values (1, 'x')",
    "select tgargs from pg_trigger where tgname = 'e5'",
    'create trigger e6 before insert on e for each row when (OLD.id > 0) execute function e5()',
    'create trigger e6 after delete on e for each row when (NEW.id > 0) execute function e5()',
    'create trigger e6 before update on e for each row when (NEW.a <> OLD.a) execute function e5()',
    "update e set a = 'y'",
    "update e set a = 'y'",
    'create trigger e7 before update of nosuch on e for each row execute function e5()',
    'create view ev as select * from e',
    'create trigger e8 before insert on ev for each row execute function e5()',
    'create trigger e8 before insert on ev execute function e5()',
    # a data-modifying WITH fires the table's triggers
    'create table ct (id int primary key, a text)',
    'create table ctlog (what text)',
    "create function ctf() returns trigger language plpgsql as $$ begin insert into ctlog values (TG_LEVEL || ' ' || TG_OP); NEW.a := upper(NEW.a); return NEW; end $$",
    'create trigger ctr before insert on ct for each row execute function ctf()',
    'create trigger cts after insert on ct execute function ctf()',
    "with w as (insert into ct values (1, 'x'), (2, 'y') returning *) select * from w order by id",
    'select what, count(*) from ctlog group by 1 order by 1',
    # NEW / OLD as row values, ROW(NEW.*), statement triggers seeing the table
    'create table r (id int primary key, a text, n int, changed_at int default 0)',
    "create function rtrg() returns trigger language plpgsql as $$ begin if NEW is distinct from OLD then NEW.changed_at := OLD.changed_at + 1; end if; raise notice 'distinct %', NEW is distinct from OLD; return NEW; end $$",
    'create trigger rtrg before update on r for each row execute function rtrg()',
    "insert into r values (1, 'a', 1), (2, 'b', 2)",
    "update r set a = 'a' where id = 1",
    "update r set a = 'z' where id = 2",
    'select * from r order by id',
    "create function rback() returns trigger language plpgsql as $$ begin raise notice 'op % %', TG_OP, coalesce(NEW, OLD); return coalesce(NEW, OLD); end $$",
    'create trigger rback before insert or delete on r for each row execute function rback()',
    "insert into r values (3, 'c', 3)",
    'delete from r where id = 1',
    'select * from r order by id',
    "create function rstar() returns trigger language plpgsql as $$ begin raise notice 'row %', row(NEW.*); if (OLD.*) is distinct from (NEW.*) then raise notice 'changed'; end if; return NEW; end $$",
    'create trigger rstar after update on r for each row execute function rstar()',
    'update r set n = 30 where id = 3',
    "create function cnt() returns trigger language plpgsql as $$ declare k int; begin select count(*) into k from r; raise notice 'count % at % %', k, TG_WHEN, TG_OP; return null; end $$",
    'create trigger cnt_a after insert on r for each statement execute function cnt()',
    'create trigger cnt_b before insert on r for each statement execute function cnt()',
    "insert into r values (4, 'd', 4), (5, 'e', 5)",
    'insert into r select id + 10, a, n from r where id < 3',
    'update r set n = n + 1 where false',
]

PATHS = """
create table parent (id int primary key);
create table child (id int primary key, pid int references parent on delete cascade, v text);
create table log (what text, id int, v text);
create function note() returns trigger language plpgsql as $$
begin
  insert into log values (TG_OP || ' ' || TG_WHEN, coalesce(NEW.id, OLD.id), coalesce(NEW.v, OLD.v));
  if TG_WHEN = 'BEFORE' and TG_OP <> 'DELETE' then
    NEW.v := coalesce(NEW.v, 'filled');
    return NEW;
  end if;
  if TG_OP = 'DELETE' then
    return OLD;
  end if;
  return NEW;
  end $$;
create trigger child_b before insert or update or delete on child for each row execute function note();
create trigger child_a after insert or update or delete on child for each row execute function note();
insert into parent values (1), (2)
"""


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return fresh_databases(pg15, cumulo_server, "triggers_pg15")


def test_triggers_and_set_returning_functions_as_pg15(servers):
    expected = run(servers[0], STATEMENTS)
    assert sum(1 for r in expected if r[1] == "CREATE TRIGGER") >= 8
    assert any(r[3] for r in expected if len(r) == 4)  # NB: the triggers' NOTICEs are compared
    got = run(servers[1], STATEMENTS)
    assert_same(expected, got)


def _paths(dsn: str) -> list:
    """Rows reach `child` by every write path; the log and the table are the outcome."""
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in re.split(r";\n(?=\S)", PATHS.strip()):  # NB: not inside a body
            c.execute(sql)
        c.execute("insert into child values (%s, %s, %s)", (1, 1, None), prepare=True)
        c.execute("insert into child values (%s, %s, %s)", (2, 1, "two"), prepare=True)
        with c.cursor().copy("copy child from stdin") as cp:
            cp.write("3\t2\t\\N\n4\t2\tfour\n")
        c.execute("update child set v = v || '!' where id = 4")
        c.execute("insert into child values (5, 2, 'y') on conflict do nothing")
        c.execute("update child set v = 'u' where id = 1")
        c.execute("delete from parent where id = 2")  # NB: cascades to 3, 4 and 5
        log = c.execute("select what, id, v from log").fetchall()
        rows = c.execute("select * from child order by id").fetchall()
    return [sorted(log, key=repr), rows]


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        await c.executemany("insert into child values ($1, 1, $2)", [(10, None), (11, "b")])
        got = [await c.fetch("select id, v from child where id >= 10 order by id")]
        await c.execute("create function deny() returns trigger language plpgsql as $$ begin "
                        "raise exception 'no %', NEW.id using errcode = 'check_violation'; end $$")
        await c.execute("create trigger deny before insert on child for each row "
                        "execute function deny()")
        try:
            await c.execute("insert into child values (12, 1, 'c')")
        except asyncpg.PostgresError as e:
            got.append((e.sqlstate, str(e)))
        got.append(await c.fetchval("select count(*) from child where id = 12"))
        return got
    finally:
        await c.close()


def test_every_write_path_fires_row_triggers(servers):
    pg, cu = servers
    expected = _paths(pg)
    assert len(expected[0]) >= 20
    assert _paths(cu) == expected
    expected = asyncio.run(_asyncpg(pg))
    assert expected[1][0] == "23514"
    assert asyncio.run(_asyncpg(cu)) == expected


def _psql() -> str:
    for path in ("/usr/lib/postgresql/15/bin/psql", shutil.which("psql")):
        if path and os.path.exists(path):
            return path
    pytest.fail("psql is missing: tests/run.sh installs it")


PSQL_SETUP = [
    "create table pt (id int primary key, a text)",
    "create function ptf() returns trigger language plpgsql as $$ begin return NEW; end $$",
    "create trigger pt_a before insert on pt for each row execute function ptf()",
    "create trigger pt_b after update of a on pt for each row "
    "when (old.a is distinct from new.a) execute function ptf('x')",
    "create trigger pt_c after delete on pt execute function ptf()",
    "alter table pt disable trigger pt_c",
]


def test_psql_describe_lists_triggers_as_pg15(servers):
    outs = []
    for dsn in servers:
        with psycopg.connect(dsn, autocommit=True) as c:
            for sql in PSQL_SETUP:
                c.execute(sql)
        r = subprocess.run([_psql(), dsn, "-X", "-c", "\\d pt"], capture_output=True,
                           text=True, timeout=60, env={**os.environ, "PAGER": ""})
        outs.append(r.stdout)
    assert "Triggers:" in outs[0] and "pt_b AFTER UPDATE OF a ON pt" in outs[0]
    assert "Disabled user triggers:" in outs[0]
    assert outs[1] == outs[0]


def test_copy_through_the_row_path_counts_as_pg15(servers):
    outs = []
    for dsn in servers:
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("create table cp (id int, v text)")
            c.execute("create function cpskip() returns trigger language plpgsql as $$ begin "
                      "if NEW.id % 2 = 0 then return null; end if; return NEW; end $$")
            c.execute("create trigger cpskip before insert on cp for each row "
                      "execute function cpskip()")
            c.execute("create function cpstmt() returns trigger language plpgsql as $$ begin "
                      "raise notice '% % %', TG_WHEN, TG_OP, (select count(*) from cp); "
                      "return null; end $$")
            c.execute("create trigger cpstmt before insert on cp execute function cpstmt()")
            c.execute("create trigger cpstmt2 after insert on cp execute function cpstmt()")
            notes: list[str] = []
            c.add_notice_handler(lambda d, notes=notes: notes.append(d.message_primary))
            buf = io.StringIO("".join(f"{i}\tv{i}\n" for i in range(10)))
            with c.cursor().copy("copy cp from stdin") as cp:
                cp.write(buf.getvalue())
            outs.append((c.execute("select count(*), sum(id) from cp").fetchall(), notes))
    assert outs[0] == ([(5, 25)], ["BEFORE INSERT 0", "AFTER INSERT 5"])
    assert outs[1] == outs[0]


def test_direct_table_api_fires_row_triggers(cumulo_server):
    """Cumulo's Arrow table API (no PostgreSQL counterpart) writes through the same row
    path as INSERT and UPDATE when the table has triggers: the BEFORE trigger changes the
    rows and the AFTER trigger logs them, for insert and upsert alike."""
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as sql:
        sql.execute("drop table if exists dt_t, dt_log")
        sql.execute("create table dt_t (k int primary key, v text)")
        sql.execute("create table dt_log (op text, k int)")
        sql.execute("create or replace function dt_b() returns trigger language plpgsql as "
                    "$$ begin NEW.v := upper(NEW.v); return NEW; end $$")
        sql.execute("create or replace function dt_a() returns trigger language plpgsql as "
                    "$$ begin insert into dt_log values (TG_OP, NEW.k); return null; end $$")
        sql.execute("create trigger dt_b before insert or update on dt_t for each row "
                    "execute function dt_b()")
        sql.execute("create trigger dt_a after insert or update on dt_t for each row "
                    "execute function dt_a()")
        c = cd.connect(cumulo_server.dsn())
        c.autocommit = True
        try:
            t = c.table("dt_t")
            t.insert(pa.table({"k": [1, 2], "v": ["a", "b"]}))
            t.upsert(pa.table({"k": [2, 3], "v": ["c", "d"]}))
        finally:
            c.close()
        assert sql.execute("select * from dt_t order by k").fetchall() == [
            (1, "A"), (2, "C"), (3, "D")]
        assert sorted(sql.execute("select * from dt_log").fetchall()) == [
            ("INSERT", 1), ("INSERT", 2), ("INSERT", 3), ("UPDATE", 2)]


CONTEXT = [
    "create table cx (id int primary key, a text)",
    "create table cx2 (id int primary key)",
    "create function cxb() returns trigger language plpgsql as $$\nbegin\n  if NEW.id = 1 then\n"
    "    raise exception 'bad %', NEW.id;\n  end if;\n  insert into cx2 values (NEW.id);\n"
    "  NEW.a := 1/(NEW.id - 2);\n  return NEW;\nend $$",
    "create trigger cxb before insert on cx for each row execute function cxb()",
    "insert into cx values (1, 'x')",
    "insert into cx2 values (3)",
    "insert into cx values (3, 'x')",
    "insert into cx values (2, 'x')",
    "create function cxf(n int) returns int language plpgsql as $$ begin return 10 / n; end $$",
    "select cxf(0)",
    "do $$ begin raise exception 'in do'; end $$",
    "create function cxg() returns setof int language plpgsql as $$ begin "
    "return query select 1/0; end $$",
    "select * from cxg()",
]


def _contexts(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in CONTEXT:
            try:
                c.execute(sql)
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary, e.diag.context))
    return out


def test_errors_carry_plpgsql_context_as_pg15(servers):
    """An error in a trigger or function names where it happened (CONTEXT), as PostgreSQL:
    the statement's SQL, the function with its argument types, the line and the kind."""
    expected = _contexts(servers[0])
    assert len(expected) == 6 and "line 4 at RAISE" in expected[0][2]
    assert _contexts(servers[1]) == expected
