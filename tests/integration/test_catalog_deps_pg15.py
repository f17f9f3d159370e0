"""pg_cast, pg_depend / pg_rewrite and the system columns, diffed with PostgreSQL 15 (issue 16).

- pg_cast lists PostgreSQL's own rows (OIDs, functions, contexts, methods) for the
  casts Cumulo performs, and psql's `\\dC` prints each of them as PostgreSQL does;
- pg_depend holds PostgreSQL's rows (by name) for a schema with keys, a foreign key,
  an index, a CHECK, views on views, an enum and a domain column, an owned sequence,
  serial and identity columns: what pg_dump sorts by (tests/clients/test_pg_dump.py
  dumps and restores views defined in reverse name order);
- xmin, xmax, cmin, cmax, ctid and tableoid are hidden columns with PostgreSQL's types,
  a ctid read finds its row again (UPDATE / DELETE ... WHERE ctid = ...), and xmin works
  as an optimistic-concurrency version stamp across two sessions.
"""

from __future__ import annotations

import os
import subprocess

import psycopg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes

PSQL = "/usr/lib/postgresql/15/bin/psql"

SCHEMA = """
create type mood as enum ('a', 'b');
create domain posint as int check (value > 0);
create table t (id int primary key, a int, b text, m mood, p posint);
create table r (id int primary key, t_id int references t(id));
create index t_a on t (a);
create view zz as select id, a from t;
create view yy as select id from zz;
create view xx as select y.id from yy y join r on r.id = y.id;
create sequence s1 owned by t.a;
create table ser (id serial, g int generated always as identity);
alter table t add constraint a_pos check (a > 0) not valid;
create table u (x int, constraint u_x unique (x) deferrable initially deferred);
create table q2 (k int primary key deferrable, j int unique deferrable initially deferred);
"""

DEPEND = """
select classid::regclass::text,
       case when classid = 'pg_class'::regclass then objid::regclass::text
            when classid = 'pg_constraint'::regclass
              then (select conname from pg_constraint where oid = objid)
            when classid = 'pg_rewrite'::regclass
              then (select rulename || ' on ' || ev_class::regclass from pg_rewrite where oid = objid)
            when classid = 'pg_type'::regclass then objid::regtype::text
            when classid = 'pg_attrdef'::regclass
              then (select adrelid::regclass || '.' || adnum from pg_attrdef where oid = objid)
       end as obj, objsubid, refclassid::regclass::text,
       case when refclassid = 'pg_class'::regclass then refobjid::regclass::text
            when refclassid = 'pg_type'::regclass then refobjid::regtype::text
            when refclassid = 'pg_constraint'::regclass
              then (select conname from pg_constraint where oid = refobjid)
            when refclassid = 'pg_namespace'::regclass then refobjid::regnamespace::text
       end as ref, refobjsubid, deptype
from pg_depend
where objid >= 16384 and classid <> 'pg_trigger'::regclass
  and not (classid = 'pg_class'::regclass and objid::regclass::text like 'pg_toast%')
order by 1, 2, 3, 4, 5, 6, 7
"""

SCRIPT = SCHEMA + DEPEND + """;
select conname, condeferrable, condeferred, convalidated, pg_get_constraintdef(oid)
  from pg_constraint where conrelid in ('t'::regclass, 'u'::regclass, 'q2'::regclass) order by 1;
select indexrelid::regclass, indimmediate from pg_index where indrelid = 'u'::regclass;
create table nn (a int, b int, c int, constraint nn_a unique nulls not distinct (a));
alter table nn add constraint nn_b unique nulls not distinct (b) deferrable;
create unique index nn_c on nn (c) include (a) nulls not distinct where c > 0;
select conname, pg_get_constraintdef(oid) from pg_constraint where conrelid = 'nn'::regclass
  order by 1;
select indexrelid::regclass, pg_get_indexdef(indexrelid) from pg_index
  where indrelid = 'nn'::regclass order by 1;
select ev_class::regclass, rulename, ev_type, ev_enabled, is_instead from pg_rewrite
  where ev_class in ('xx'::regclass, 'yy'::regclass) order by 1;
insert into t values (1, 2, 'x', 'a', 3), (2, 3, 'y', 'b', 4);
select xmin::text::bigint > 2, xmax, cmin, cmax, tableoid::regclass, * from t order by id;
select pg_typeof(xmin), pg_typeof(xmax), pg_typeof(cmin), pg_typeof(cmax), pg_typeof(tableoid),
  pg_typeof(ctid) from t limit 1;
select ctid = ctid, ctid::text ~ '^[(][0-9]+,[0-9]+[)]$' from t order by id;
select '(0,1)'::tid, '( 3, +4)'::tid;
select '( 3 , 4 )'::tid;
create temp table keep as select ctid as c, id from t;
update t set b = 'z' where ctid = (select c from keep where id = 1);
delete from t where ctid in (select ctid from t where id = 2);
select id, b from t order by id;
select count(*) from t t1 join t t2 on t1.ctid = t2.ctid;
select * from t where xmin = xmin and t.xmin::text <> '0' order by id;
select t.xmin = s.xmin from t join t s on s.id = t.id order by t.id;
select xmin from zz;
select x.xmin from (select * from t) x;
insert into u values (7) returning xmin::text <> '0', xmax, cmin, tableoid::regclass, pg_typeof(xmax);
update u set x = 8 returning xmin::text <> '0', xmax, pg_typeof(xmin), tableoid::regclass;
delete from u returning tableoid::regclass, x;
select '1.5'::jsonb::int, '2'::jsonb::float8, 'true'::jsonb::bool, int4range(1, 3)::int4multirange;
select '"a"'::jsonb::int;
select 'null'::jsonb::numeric;
create table bad (xmin int);
alter table u add column cmax int;
"""


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


def test_depend_constraints_and_system_columns_as_pg15(servers):
    assert_same_outcomes(*servers, "catdeps", SCRIPT)


def _casts(dsn: str) -> list[tuple]:
    with psycopg.connect(dsn) as c:
        return c.execute("select c.oid::int, castsource::int, casttarget::int, castfunc::int,"
                         " castcontext, castmethod, p.proname from pg_cast c"
                         " left join pg_proc p on p.oid = castfunc order by 1").fetchall()


def _dC(server, dsn: str) -> list[str]:
    done = subprocess.run([PSQL, dsn, "-X", "-A", "-c", "\\dC"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PAGER": ""})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[1:-1]  # NB: the header, then the rows; no "(n rows)"


def test_pg_cast_is_postgres_rows_and_dC_prints_them(servers):
    pg, cu = servers
    ours, theirs = _casts(cu.dsn()), _casts(pg.dsn())
    assert len(ours) >= 180 and set(ours) <= set(theirs)
    assert (10001, 20, 23, 480, "a", "f", "int4") in ours  # bigint -> integer in assignment
    rows = _dC(cu, cu.dsn())
    assert len(rows) >= 150 and set(rows) <= set(_dC(pg, pg.dsn()))


def test_xmin_is_an_optimistic_concurrency_stamp(servers):
    for server in servers:
        with psycopg.connect(server.dsn(), autocommit=True) as a, \
                psycopg.connect(server.dsn(), autocommit=True) as b:
            a.execute("drop table if exists occ")
            a.execute("create table occ (id int primary key, bal int)")
            a.execute("insert into occ values (1, 10)")
            seen, = a.execute("select xmin from occ where id = 1").fetchone()
            b.execute("update occ set bal = 11 where id = 1")  # a concurrent writer
            stale = a.execute("update occ set bal = 99 where id = 1 and xmin = %s::xid", [seen])
            assert stale.rowcount == 0
            now, = a.execute("select xmin from occ where id = 1").fetchone()
            assert now != seen
            new, = a.execute("update occ set bal = 12 where id = 1 and xmin = %s returning xmin",
                             [now]).fetchone()  # EF Core reads the new stamp so
            assert a.execute("select xmin from occ where id = 1").fetchone() == (new,) != (now,)


def _regclass_after_ddl(dsn: str) -> list[tuple]:
    """A prepared statement's `'t'::regclass` (resolved once per catalog, not per row) follows
    a DROP and CREATE of `t` and a search_path that finds another `t` first."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop schema if exists rc2 cascade; drop table if exists rct;"
                  " create schema rc2; create table rct (a int); create table rc2.rct (a int)")
        same = ("select 'rct'::regclass::oid = (select oid from pg_class where relname = 'rct'"
                " and relnamespace = 'public'::regnamespace), 'rct'::regclass::text,"
                " count(*) filter (where classoid = 'pg_class'::regclass) from pg_description")
        for step in ("drop table rct; create table rct (b int)", "set search_path = rc2, public",
                     "reset search_path"):
            out.append(c.execute(same, prepare=True).fetchone())
            c.execute(step)
        out.append(c.execute(same, prepare=True).fetchone())
    return out


def test_regclass_constants_follow_ddl_and_search_path(servers):
    pg, cu = servers
    assert _regclass_after_ddl(cu.dsn()) == _regclass_after_ddl(pg.dsn())
