"""MERGE (PostgreSQL 15) diffed with PostgreSQL 15: actions, errors, triggers, privileges,
parameters through the extended protocol (psycopg, asyncpg) and a write-write conflict."""

from __future__ import annotations

import asyncio
import re
import threading

import asyncpg
import psycopg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes, wait_until_active

SCRIPTS = {
    "actions": """
create table t (id int primary key, v text, n int default 7);
create table s (id int, v text);
insert into t values (1,'a'),(2,'b'),(4,'d');
insert into s values (2,'B'),(3,'C'),(4,null),(5,'E');
merge into t using s on t.id = s.id when matched and s.v is null then delete when matched then update set v = s.v when not matched and s.id > 4 then insert (id, v) values (s.id, default) when not matched then insert values (s.id, s.v);
select * from t order by id;
merge into t as x using (values (1, 'z'), (9, 'y')) as q(a, b) on x.id = q.a when matched then update set v = q.b || x.v, n = default when not matched then do nothing;
merge into t using (select 1 as id, 'q' as v) s on t.id = s.id when matched and t.v = 'zz' then delete when matched and s.v = 'q' then update set v = t.v || s.v when matched then delete;
select * from t order by id;
merge into t using t s on t.id = s.id when matched then do nothing;
merge into t using (values (1),(1)) s(id) on t.id = s.id when matched then delete;
merge into t using (values (10),(10)) s(id) on t.id = s.id when not matched then insert (id) values (s.id);
select count(*) from t;
create table g (id int generated always as identity, v text check (v <> 'bad'), w int generated always as (length(v)) stored);
merge into g using (values ('abc'), ('de')) s(v) on false when not matched then insert (v) values (s.v);
merge into g using (values ('abc')) s(v) on false when not matched then insert default values;
merge into g using (values ('bad')) s(v) on false when not matched then insert (v) values (s.v);
merge into g using (values (1)) s(v) on g.id = s.v when matched then update set w = 3;
select * from g order by id
""",
    "errors": """
create table t (id int primary key, v text);
create table tv (a int);
create view vv as select * from tv;
merge into t using t s on t.id = s.id when matched then insert values (1,'a');
merge into t using t s on t.id = s.id when not matched then update set v = 'x';
merge into t using t s on t.id = s.id when matched then do nothing returning *;
merge into t using (values (1)) s(id) on t.id = s.id when matched then update set nope = 1;
merge into t using (values (1)) s(id) on t.id = s.nope when matched then delete;
merge into t using (values (11)) s(id) on t.id = s.id when not matched then insert (id, v) values (s.id, 'x', 3);
merge into vv using tv on true when matched then delete;
merge into nosuch using tv on true when matched then delete;
create role merge_r1;
grant select on t to merge_r1;
set role merge_r1;
merge into t using tv on t.id = tv.a when matched then delete;
reset role;
drop role merge_r1;
merge into t using (values (7)) s(id) on t.id = s.id when not matched and t.id > 0 then insert values (s.id);
merge into t using (select 2 as id) s on t.id = s.id when matched then update set v = 'z' when matched then update set v = 'zz';
merge into t using (values (1)) t(id) on t.id = t.id when matched then delete;
create table s (id int, v text);
insert into s values (1,'x'),(2,'y');
create role merge_r2;
grant select on s to merge_r2;
grant insert on t to merge_r2;
set role merge_r2;
merge into t using s on t.id = s.id when not matched then insert values (s.id, s.v);
reset role;
grant select on t to merge_r2;
set role merge_r2;
merge into t using s on t.id = s.id when not matched then insert values (s.id, s.v);
merge into t using s on t.id = s.id when matched then update set v = s.v;
merge into t using s on t.id = s.id when matched then delete;
reset role;
grant update on t to merge_r2;
revoke select on s from merge_r2;
set role merge_r2;
merge into t using s on t.id = s.id when matched then update set v = s.v;
reset role;
revoke all on t from merge_r2;
revoke all on s from merge_r2;
drop role merge_r2;
select * from t order by id
""",
    "forms": """
create table t (id int primary key, v text, n int);
create table log (m text);
create function trg() returns trigger language plpgsql as $$ begin insert into log values (tg_when || ' ' || tg_op || ' ' || tg_level); return null; end $$;
create trigger a before insert or update or delete on t for each statement execute function trg();
insert into t values (1,'a',1),(2,'b',2),(3,'c',3);
delete from log;
merge into t using (values (1),(2),(3)) s(id) on t.id = s.id when matched and t.id = 1 then update set v = 'x' when matched and t.id = 2 then update set (n, v) = (9, s.id::text) when matched then delete;
select m, count(*) from log group by m order by m;
with w as (select 8 as id) merge into t using w on t.id = w.id when not matched then insert values (w.id);
merge into public.t as "T" using (values (9)) "S"(id) on "T".id = "S".id when not matched then insert values ("S".id);
do $$ declare n int; begin merge into t using (values (9), (10)) s(id) on t.id = s.id when matched then update set v = 'p' when not matched then insert values (s.id); get diagnostics n = row_count; insert into log values (n::text); end $$;
select * from log where m !~ 'STATEMENT';
select * from t order by id
""",
    "routines": """
create table t (id int primary key, v text);
create schema o;
create table o.src (id int, v text);
insert into o.src values (1, 'a'), (2, 'b');
merge into public.t using o.src on t.id = src.id when not matched then insert values (src.id, src.v);
do $$ declare k int := 3; w text := 'kk'; begin merge into t using (values (k)) s(id) on t.id = s.id when not matched then insert values (s.id, w); merge into t using (values (1)) s(id) on t.id = s.id when matched then update set v = w || k; end $$;
create function mf(a int) returns int language plpgsql as $$ begin merge into t using (values (a)) s(id) on t.id = s.id when matched then delete; return a; end $$;
select mf(2);
prepare p1(int, text) as merge into t using (values ($1, $2)) s(id, v) on t.id = s.id when matched then update set v = s.v when not matched then insert values (s.id, s.v);
execute p1(7, 'seven');
execute p1(7, 'SEVEN');
alter table t add column z int default 5;
execute p1(8, 'eight');
select * from t order by id;
create table pt (id int, v text);
insert into pt values (1, 'a'), (11, 'b');
merge into pt using (values (1, 'x'), (11, 'y'), (5, 'z'), (15, 'w')) s(id, v) on pt.id = s.id when matched and s.id = 1 then update set id = 12 when matched then update set v = s.v when not matched then insert values (s.id, s.v);
select * from pt order by id;
create table p (id int primary key);
create table c (id int primary key, pid int references p on delete cascade);
insert into p values (1), (2);
insert into c values (10, 1), (20, 2);
merge into p using (values (1)) s(id) on p.id = s.id when matched then delete;
select * from c;
merge into c using (values (30, 9)) s(id, pid) on c.id = s.id when not matched then insert values (s.id, s.pid)
""",
    # OVERRIDING SYSTEM VALUE (INSERT and MERGE's INSERT), and INSERT ... SELECT into a
    # GENERATED ALWAYS identity column without it: 428C9 as PostgreSQL 15
    "identity": """
create table g (id int generated always as identity, v text);
insert into g overriding system value values (5, 'x');
insert into g (v) values ('y');
insert into g values (6, 'z');
merge into g using (values (11, 'a')) s(id, v) on g.id = s.id when not matched then insert overriding system value values (s.id, s.v);
merge into g using (values (12, 'a')) s(id, v) on g.id = s.id when not matched then insert values (s.id, s.v);
merge into g using (values (13, 'a'), (14, 'b')) s(id, v) on g.id = s.id when not matched and s.id = 13 then insert (id, v) overriding system value values (s.id, s.v) when not matched then insert (id, v) values (s.id, s.v);
merge into g using (values (13, 'a'), (14, 'b')) s(id, v) on g.id = s.id when not matched and s.id = 13 then insert (id, v) overriding system value values (s.id, s.v) when not matched then insert (id, v) overriding system value values (s.id + 1, s.v);
select * from g order by id
insert into g (id, v) select 12, 'a';
insert into g (id, v) overriding system value select 12, 'a';
create table gd (id int generated by default as identity, v text);
insert into gd (id, v) select 12, 'a'
""",
    "inserts": """
create table t (id int primary key, v varchar(3), n numeric(5,1), d int default 4);
create table log (m text);
create function trg() returns trigger language plpgsql as $$ begin insert into log values (tg_when || ' ' || tg_op || ' ' || tg_level); return null; end $$;
create trigger a before insert or update or delete on t for each statement execute function trg();
merge into t using (values (1, 'ab'), (2, 'cd'), (3, 'ef')) s(id, v) on t.id = s.id when not matched and s.id = 1 then insert values (s.id, s.v, 1.26) when not matched and s.id = 2 then insert values (s.id, 'x', 2) when not matched then insert (id, v, n) values (s.id, 9, 3);
select m, count(*) from log group by m order by m;
select * from t order by id;
merge into t using (values (5, 'abcd')) s(id, v) on t.id = s.id when not matched and s.id = 1 then insert values (s.id, s.v) when not matched then insert values (s.id, s.v);
merge into t using (values (6, 'ab')) s(id, v) on t.id = s.id when not matched and s.id = 1 then insert values (s.id, s.v) when not matched then insert values (s.id, true);
merge into t using (values (7, 'ab')) s(id, v) on t.id = s.id when not matched and s.id = 1 then insert (id) values (s.id) when not matched then insert ("id") values (s.id * 10);
select * from t order by id
""",
    "triggers": """
create table t (id int primary key, v text, p int references t(id));
create table log (m text);
create function trg() returns trigger language plpgsql as $$ begin insert into log values (tg_when || ' ' || tg_op || ' ' || tg_level); if tg_level = 'ROW' and tg_op <> 'DELETE' then return new; elsif tg_level = 'ROW' then return old; end if; return null; end $$;
create trigger a before insert or update or delete on t for each statement execute function trg();
create trigger b after insert or update or delete on t for each statement execute function trg();
create trigger c before insert or update or delete on t for each row execute function trg();
insert into t values (1,'a'),(2,'b');
delete from log;
merge into t using (values (1),(3)) s(id) on t.id = s.id when matched then update set v = 'x' when not matched then insert values (s.id, 'y');
select m, count(*) from log group by m order by m;
delete from log;
merge into t using (values (1)) s(id) on t.id = s.id when matched then delete;
select m, count(*) from log group by m order by m;
merge into t using (values (5)) s(id) on t.id = s.id when not matched then insert values (s.id, 'ok', 99);
select * from t order by id
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_merge_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"merge_{name}", SCRIPTS[name])


_PARAM_MERGE = ("merge into mp using (values ($1::int, $2::text)) s(id, v) on mp.id = s.id"
                " when matched and $3 then update set v = s.v"
                " when not matched then insert values (s.id, s.v)")


def _psycopg_params(dsn: str) -> list:
    sql = re.sub(r"\$\d", "%s", _PARAM_MERGE)  # NB: $1, $2, $3 in order
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists mp")
        c.execute("create table mp (id int primary key, v text)")
        out = [c.execute(sql, (1, "a", True), prepare=True).statusmessage,
               c.execute(sql, (1, "b", True), prepare=True).statusmessage,
               c.execute(sql, (1, "c", False), prepare=True).statusmessage]
        out.append(c.execute("select * from mp order by id").fetchall())
        return out


async def _asyncpg_params(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("drop table if exists mp; create table mp (id int primary key, v text)")
        out = [await conn.execute(_PARAM_MERGE, 2, "x", True),
               await conn.execute(_PARAM_MERGE, 2, "y", True)]
        out.append([tuple(r) for r in await conn.fetch("select * from mp order by id")])
        return out
    finally:
        await conn.close()


def test_merge_parameters_as_pg15(servers):
    pg, cu = servers
    expected = _psycopg_params(pg.dsn())
    assert expected[:3] == ["MERGE 1", "MERGE 1", "MERGE 0"]
    assert _psycopg_params(cu.dsn()) == expected
    expected = asyncio.run(_asyncpg_params(pg.dsn()))
    assert asyncio.run(_asyncpg_params(cu.dsn())) == expected


def _conflict(dsn: str) -> str | None:
    """A MERGE that updates a row a concurrent transaction updated and committed after the
    MERGE's snapshot, at REPEATABLE READ: 40001."""
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute("drop table if exists mc")
        a.execute("create table mc (id int primary key, v int)")
        a.execute("insert into mc values (1, 0)")
        a.execute("begin isolation level repeatable read")
        a.execute("select * from mc")
        b.execute("update mc set v = 1 where id = 1")
        try:
            a.execute("merge into mc using (values (1)) s(id) on mc.id = s.id"
                      " when matched then update set v = mc.v + 10")
            return None
        except psycopg.Error as e:
            return e.sqlstate
        finally:
            a.execute("rollback")


def test_merge_write_conflict_as_pg15(servers):
    pg, cu = servers
    assert _conflict(pg.dsn()) == "40001"
    assert _conflict(cu.dsn()) == "40001"


def _read_committed(dsn: str) -> tuple:
    """READ COMMITTED: a MERGE that waits on a row another transaction updates, then
    commits, updates the row's newest version (PostgreSQL's EvalPlanQual), not nothing."""
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute("drop table if exists mrc")
        a.execute("create table mrc (id int primary key, v int)")
        a.execute("insert into mrc values (1, 0)")
        a.execute("begin")
        a.execute("update mrc set v = 1 where id = 1")
        out: list = []
        sql = ("merge into mrc using (values (1)) s(id) on mrc.id = s.id"
               " when matched then update set v = mrc.v + 10")
        th = threading.Thread(target=lambda: out.append(b.execute(sql).statusmessage))
        th.start()
        wait_until_active(dsn, "merge into mrc%")
        a.execute("commit")
        th.join(30)
        return out[0], a.execute("select * from mrc").fetchall()


def test_merge_read_committed_updates_newest_version_as_pg15(servers):
    pg, cu = servers
    expected = _read_committed(pg.dsn())
    assert expected == ("MERGE 1", [(1, 11)])
    assert _read_committed(cu.dsn()) == expected
