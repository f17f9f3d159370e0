"""View options, temporary views, RETURNING * of FROM items, MERGE into views, and
constraint triggers' FROM tables, diffed with PostgreSQL 15.

Each script runs statement by statement on PostgreSQL 15 and on Cumulo through
psycopg in a fresh database; every statement's status, column names and type
OIDs (built-in ones), rows, SQLSTATE, message, DETAIL, HINT and NOTICEs must match. psql's
`\\d+` of views with options must match byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import psycopg
import pytest

from tests.integration.stmtdiff import assert_same, fresh_databases, outcomes, statements

_COMPARED = {"types": True, "detail": True, "notices": True}

SCRIPTS = {
    # UPDATE ... FROM / DELETE ... USING ... RETURNING *: the target's columns, then every
    # FROM item's (tables, subqueries, VALUES, functions, CTEs, joins); whole rows of them; rows
    # a BEFORE trigger skips (was XX000).
    "returning_from_items": """
create table rf_t (id int primary key, v int);
insert into rf_t values (1, 10), (2, 20), (3, 30);
create table rf_u (k int, w text);
insert into rf_u values (1, 'a'), (3, 'c');
update rf_t set v = v + s.d from (values (1, 5), (2, 6)) s(k, d) where rf_t.id = s.k returning *;
update rf_t set v = 0 from rf_u where rf_t.id = rf_u.k returning *;
update rf_t set v = 1 from rf_u, (select 1 as z) q where rf_t.id = rf_u.k returning *;
update rf_t set v = 2 from rf_u join (select 1 as z) q on true where rf_t.id = rf_u.k returning *, q, rf_u.*;
update rf_t set v = 3 from generate_series(1, 2) g where rf_t.id = g returning *;
with c as (select 1 as cc) update rf_t set v = 4 from c where rf_t.id = c.cc returning *;
update rf_t x set v = 5 from rf_u y where x.id = y.k returning *, y, x;
update rf_t set v = 6 from rf_u where rf_t.id = rf_u.k returning k;
update rf_t set v = 7 from rf_u where rf_t.id = rf_u.k returning id;
delete from rf_t using rf_u, (values (3)) z(n) where rf_t.id = rf_u.k and z.n = rf_u.k returning *;
delete from rf_t using rf_u where rf_t.id = rf_u.k returning rf_t.*, rf_u.w;
delete from rf_t using generate_series(2, 2) returning *;
create table rf_s (id int primary key, v int);
insert into rf_s values (1, 10), (2, 20), (3, 30);
create function rf_skip2() returns trigger language plpgsql as $$ begin if old.id = 2 then return null; end if; new.v = new.v + 1000; return new; end $$;
create trigger rf_sk before update on rf_s for each row execute function rf_skip2();
insert into rf_u values (2, 'b');
update rf_s set v = 0 from rf_u where rf_s.id = rf_u.k returning *
""",
    # CREATE VIEW ... WITH (options), ALTER VIEW | TABLE ... SET / RESET: checked and kept in
    # reloptions as written; 22023 for unknown names, bad booleans, bad check_option values.
    "view_options": """
create table vo_b (a int, x int);
create view vo_1 with (security_barrier) as select * from vo_b;
create view vo_2 with (security_barrier = true, check_option = local) as select * from vo_b where a > 0;
create view vo_3 with (security_invoker) as select * from vo_b;
create view vo_4 with (foo = 1) as select * from vo_b;
create view vo_5 with (security_barrier = 'maybe') as select * from vo_b;
create view vo_6 with (check_option) as select * from vo_b;
create view vo_7 with (check_option = foo) as select * from vo_b;
create view vo_8 with (security_barrier = on, security_invoker = 'Yes') as select * from vo_b;
create view vo_9 with (security_barrier = 1, security_invoker = of) as select * from vo_b;
create view vo_10 with (security_barrier, security_barrier = false) as select * from vo_b;
create view vo_11 with (check_option = 'LOCAL') as select * from vo_b;
create view vo_12 with (check_option = local) as select * from vo_b with check option;
create view vo_13 with (security_barrier = o) as select * from vo_b;
create view vo_14 with (toast.foo = 1) as select * from vo_b;
create view vo_15 with ("Security_Barrier" = true) as select * from vo_b;
create view vo_16 with (security_barrier = TRUE) as select * from vo_b;
create view vo_17 with (security_barrier = 1.0) as select * from vo_b;
create view vo_18 with (check_option = cascaded) as select count(*) from vo_b;
create view vo_19 (p, q) with (security_barrier = false) as select * from vo_b;
select relname, reloptions from pg_class where relname like 'vo%' order by 1;
insert into vo_11 values (-1, 0);
alter view vo_8 set (check_option = local, security_barrier = false);
alter view vo_8 set (security_barrier = xx);
alter view vo_8 set (zz);
alter view vo_8 set (security_invoker);
select reloptions from pg_class where relname = 'vo_8';
alter view vo_8 reset (security_invoker, zz);
select reloptions from pg_class where relname = 'vo_8';
alter table vo_8 set (security_barrier = true);
alter table vo_b set (security_barrier = true);
alter view vo_b set (security_barrier = true);
alter view vo_18 set (check_option = local);
select reloptions from pg_class where relname = 'vo_8';
create or replace view vo_8 as select * from vo_b;
select reloptions from pg_class where relname = 'vo_8';
select table_name, check_option from information_schema.views where table_name like 'vo%' order by 1
""",
    # A table's storage parameters: PostgreSQL 15's names, bounds and messages (were all
    # accepted, booleans stored as `autovacuum_enabled=`).
    "table_options": """
create table to_1 (a int) with (security_barrier = true);
create table to_2 (a int) with (fillfactor = 50, foo = 1);
create table to_3 (a int) with (fillfactor = 50);
create table to_4 (a int) with (fillfactor = 5);
create table to_5 (a int) with (fillfactor = 'x');
create table to_6 (a int) with (autovacuum_vacuum_scale_factor = 200);
create table to_7 (a int) with (autovacuum_vacuum_scale_factor = 0.5, vacuum_index_cleanup = auto, autovacuum_enabled = false, toast.autovacuum_enabled = false);
create table to_8 (a int) with (vacuum_index_cleanup = maybe);
create table to_9 (a int) with (foo.bar = 1);
create table to_10 (a int) with (toast.fillfactor = 50);
create table to_11 (a int) with (fillfactor = 50, fillfactor = 60);
create table to_12 (a int) with (fillfactor = 50.4, log_autovacuum_min_duration = -1, parallel_workers = '3');
create table to_13 with (fillfactor = 70) as select 1 as a;
create table to_14 with (fillfactor = 7) as select 1 as a;
alter table to_3 set (fillfactor = 60, autovacuum_enabled = false);
alter table to_3 set (bogus = 1);
alter table to_3 set (autovacuum_freeze_max_age = 10);
alter table to_3 set (user_catalog_table = true, fillfactor = 70);
alter table to_3 reset (fillfactor);
select relname, reloptions from pg_class where relname like 'to%' order by 1
""",
    # A view that reads a temporary relation is temporary, with PostgreSQL's NOTICE.
    "temp_views": """
create table tv_b (a int);
create temp table tv_tt (a int);
create view public.tv_v as select * from tv_tt;
create view tv_v as select * from tv_tt;
create view tv_v2 as select * from tv_v;
create view tv_v3 as with tv_tt as (select 1) select * from tv_tt;
create view tv_v5 as select * from tv_b where exists (select 1 from tv_tt);
create temp view tv_v4 as select * from tv_tt;
create view tv_v6 as select * from tv_b;
select relname, relpersistence, n.nspname like 'pg_temp%' from pg_class c join pg_namespace n on n.oid = relnamespace where relname like 'tv_v%' order by 1, 2
""",
    # security_invoker: the view's relations are checked as the current user (also under a
    # definer view); writes through an updatable view need the write on its base relation.
    "security_invoker": """
drop role if exists hv_r1;
drop role if exists hv_r2;
create role hv_r1;
create role hv_r2;
create table sec_t (a int);
insert into sec_t values (1);
create view sec_def as select a from sec_t;
create view sec_inv with (security_invoker) as select a from sec_t;
grant select, insert, update, delete on sec_def, sec_inv to hv_r1;
set role hv_r1;
select * from sec_def;
select * from sec_inv;
insert into sec_inv values (2);
insert into sec_def values (2);
select * from (select * from sec_inv) s;
reset role;
grant select on sec_t to hv_r1;
set role hv_r1;
select * from sec_inv order by 1;
insert into sec_inv values (2);
reset role;
alter view sec_inv set (security_invoker = false);
set role hv_r1;
insert into sec_inv values (4);
reset role;
alter view sec_def set (security_invoker = 'on');
revoke select on sec_t from hv_r1;
create view sec_nest as select * from sec_def;
grant select on sec_nest to hv_r1;
set role hv_r1;
select * from sec_def;
select * from sec_nest;
reset role;
create table sec_b (a int);
grant select on sec_b to hv_r2;
create view sec_o as select a from sec_b;
alter view sec_o owner to hv_r2;
grant select, insert, update, delete on sec_o to hv_r1;
set role hv_r1;
insert into sec_o values (1);
update sec_o set a = 2;
reset role;
grant insert on sec_b to hv_r2;
set role hv_r1;
insert into sec_o values (1);
delete from sec_o;
reset role;
select * from sec_t order by 1;
drop view sec_o, sec_nest, sec_def, sec_inv;
drop table sec_t, sec_b;
drop role hv_r1;
drop role hv_r2
""",
    # MERGE into a view (automatically updatable or not) or a sequence: PostgreSQL 15's 0A000.
    "merge_targets": """
create table mg_b (a int, x int);
create view mg_v as select * from mg_b;
create view mg_w as select a, count(*) from mg_b group by a;
create sequence mg_s;
merge into mg_v using mg_b on mg_v.a = mg_b.a when matched then update set x = 1;
merge into mg_w t using mg_b on t.a = mg_b.a when matched then delete;
merge into mg_s using mg_b on true when matched then delete;
merge into mg_nosuch using mg_b on true when matched then delete
""",
    # ALTER VIEW | TABLE v SET SCHEMA s: the view moves, and the views that read it follow.
    "view_set_schema": """
drop role if exists hv_ss;
create schema vs_s2;
create table vs_b (a int);
insert into vs_b values (1);
create view vs_v1 as select * from vs_b;
alter view vs_v1 set schema public;
create temp view vs_tv as select 1;
alter view vs_tv set schema vs_s2;
alter view vs_v1 set schema pg_temp;
create view vs_dep as select vs_v1.a, x.a as xa from vs_v1, vs_v1 x;
alter view vs_v1 set schema vs_s2;
select * from vs_dep;
select * from vs_s2.vs_v1;
select table_schema, table_name from information_schema.views where table_name like 'vs%' and table_schema not like 'pg_temp%' order by 1, 2;
alter table vs_s2.vs_v1 set schema public;
alter view vs_v1 set schema vs_s2;
create view vs_v2 as select 1 as x;
create view vs_s2.vs_v2 as select 2 as x;
alter view vs_v2 set schema vs_s2;
alter view vs_v2 set schema nosuch;
alter view if exists vs_nov set schema vs_s2;
alter view vs_b set schema vs_s2;
create role hv_ss;
grant usage on schema vs_s2 to hv_ss;
create view vs_vr as select 1 as one;
alter view vs_vr owner to hv_ss;
set role hv_ss;
alter view vs_vr set schema vs_s2;
reset role;
drop view vs_vr;
drop role hv_ss
""",
    # CREATE RECURSIVE VIEW v (cols) AS q: PostgreSQL's WITH RECURSIVE rewrite.
    "recursive_views": """
create recursive view rv_1 (n) as select 1 union all select n + 1 from rv_1 where n < 3;
select * from rv_1;
create or replace recursive view rv_2 (n, m) as select 1, 'a'::text union all select n + 1, m || 'a' from rv_2 where n < 3;
select * from rv_2;
create recursive view rv_3 as select 1;
select column_name, data_type from information_schema.columns where table_name = 'rv_2' order by ordinal_position;
drop view rv_1, rv_2
""",
    # CREATE CONSTRAINT TRIGGER ... FROM other: the trigger goes with the other table.
    "constraint_trigger_from": """
create table ctf_1 (a int);
create table ctf_2 (a int);
create function ctf_f() returns trigger language plpgsql as $$ begin raise notice 'fired'; return null; end $$;
create constraint trigger ctf_t after insert on ctf_1 from ctf_2 for each row execute function ctf_f();
select tgname, tgconstrrelid::regclass from pg_trigger where tgname = 'ctf_t';
select classid::regclass, refclassid::regclass, deptype from pg_depend where classid in ('pg_trigger'::regclass, 'pg_constraint'::regclass) and objid in (select oid from pg_trigger where tgname = 'ctf_t' union select oid from pg_constraint where conname = 'ctf_t') order by 1, 2, 3;
insert into ctf_1 values (1);
drop table ctf_2;
select tgname from pg_trigger where tgname = 'ctf_t';
select conname from pg_constraint where conname = 'ctf_t';
insert into ctf_1 values (2)
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    pg_dsn, cu_dsn = fresh_databases(*servers, f"vopt_{name}")
    expected = outcomes(pg_dsn, statements(SCRIPTS[name]), **_COMPARED)
    got = outcomes(cu_dsn, statements(SCRIPTS[name]), **_COMPARED)
    assert_same(expected, got)


def _psql() -> str:
    for path in ("/usr/lib/postgresql/15/bin/psql", shutil.which("psql")):
        if path and os.path.exists(path):
            return path
    pytest.fail("psql is missing: tests/run.sh installs it")


PSQL_SETUP = [
    "create table b (a int, x int)",
    "create view v1 with (security_barrier) as select * from b",
    "create view v2 with (security_barrier = on, check_option = local) as "
    "select * from b where a > 0",
    "create view v3 with (security_invoker) as select a from b",
    "create view v4 as select a from b where a > 1 with cascaded check option",
    "alter view v1 set (security_invoker = false)",
]


def test_psql_describe_view_options_as_pg15(servers):
    outs = []
    for dsn in fresh_databases(*servers, "vopt_psql"):
        with psycopg.connect(dsn, autocommit=True) as c:
            for sql in PSQL_SETUP:
                c.execute(sql)
        args = [_psql(), dsn, "-X"] + [a for cmd in ("\\d+ v1", "\\d+ v2", "\\d+ v3", "\\d+ v4")
                                       for a in ("-c", cmd)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PAGER": ""})
        outs.append(r.stdout + r.stderr)
    assert "Options: security_barrier=true, security_invoker=false" in outs[0]
    assert outs[1] == outs[0]
