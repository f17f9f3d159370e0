"""Issue 16's single differences, against PostgreSQL 15 (H-FIDEL5): RETURNING ctid, the
partitions' copies of their parent's foreign keys in pg_constraint (SQLAlchemy's and
psql's view of a partition), EXPLAIN EXECUTE and EXPLAIN of a statement with bound
parameters (PostgreSQL's custom plan, the values as constants).

Scripts run statement by statement on a fresh database of each server through psycopg
(`stmtdiff`); the rest through SQLAlchemy, psql and psycopg's server-side parameters.
"""

from __future__ import annotations

import os
import subprocess
from decimal import Decimal

import psycopg
import pytest
import sqlalchemy as sa

from tests.integration.stmtdiff import assert_same_outcomes, fresh_databases
from tests.pg15 import BIN as PG_BIN

PARTITION_FKS = """
create table pp (id int primary key);
create table pq (a int, b int, primary key (a, b));
create table pc (id int, p int references pp on delete cascade, q int, r int, s int,
  foreign key (r, s) references pq deferrable initially deferred) partition by range (id);
create table pc1 partition of pc for values from (0) to (10);
create table pc2 partition of pc for values from (10) to (20) partition by range (id);
create table pc2a partition of pc2 for values from (10) to (15);
create table pc3 (id int, p int, q int, r int, s int, constraint pc_p_fkey check (q > 0));
alter table pc attach partition pc3 for values from (20) to (30);
create table pc4 (id int, p int, q int, r int, s int);
alter table pc4 drop column q;
alter table pc4 add column q int;
alter table pc attach partition pc4 for values from (30) to (40);
"""

PARTITION_FK_QUERIES = """
select conname, conrelid::regclass, confrelid::regclass, conparentid <> 0 as has_parent,
  conislocal, coninhcount, connoinherit, pg_get_constraintdef(oid), conkey, confkey,
  confupdtype, confdeltype, confmatchtype, condeferrable, condeferred, convalidated,
  conindid::regclass, connamespace::regnamespace
from pg_constraint where contype = 'f' order by conrelid::regclass::text, conname;
select c.conname, c.conrelid::regclass, p.conname, p.conrelid::regclass from pg_constraint c
  join pg_constraint p on c.conparentid = p.oid where c.contype = 'f' order by 2, 1;
select count(*) = count(distinct oid) from pg_constraint;
select constraint_name, table_name, constraint_type, is_deferrable, initially_deferred
  from information_schema.table_constraints where table_name like 'pc%'
  and constraint_type = 'FOREIGN KEY' order by 2, 1;
select constraint_name, unique_constraint_name, update_rule, delete_rule
  from information_schema.referential_constraints order by 1, 2;
select table_name, constraint_name, column_name, ordinal_position, position_in_unique_constraint
  from information_schema.key_column_usage where table_name like 'pc%' order by 1, 2, 4;
alter table pc detach partition pc1;
select conname, conrelid::regclass, conparentid <> 0, conislocal, coninhcount
  from pg_constraint where contype = 'f' order by conrelid::regclass::text, conname;
insert into pc4 (id, p) values (31, 1);
alter table pc4 drop constraint pc_p_fkey;
alter table pc drop constraint pc_p_fkey;
select conname, conrelid::regclass from pg_constraint where contype = 'f'
  order by conrelid::regclass::text, conname;
"""

SCRIPTS = {
    # INSERT and DELETE ... RETURNING ctid of a table without a primary key give the
    # row's (block,offset) as SELECT shows it: (0,1), (0,2) ... in a fresh table.
    "returning_ctid": """
create table h (id int, v text);
insert into h values (1, 'a'), (2, 'b') returning ctid, id;
insert into h values (3, 'c') returning ctid, tableoid = 'h'::regclass;
select ctid, * from h order by id;
delete from h where id = 2 returning ctid, v;
delete from h where ctid = '(0,3)' returning *, ctid;
select ctid, * from h order by id;
create table hp (id int, v text) partition by list (id);
create table hp1 partition of hp for values in (1, 2);
create table hp2 partition of hp for values in (3);
insert into hp values (1, 'a'), (3, 'b'), (2, 'c') returning ctid, tableoid::regclass, id;
delete from hp where id = 2 returning ctid, tableoid::regclass;
create table k (id int primary key, v text);
insert into k values (1, 'a') returning ctid is not null, ctid = '(0,0)';
with w as (insert into k values (2, 'b') returning ctid) select count(*) from w;
create table hu (id int, v text);
create unique index hu_id on hu (id);
insert into hu values (1, 'a'), (2, 'b') on conflict (id) do nothing returning ctid, id;
insert into hu values (3, 'c') on conflict (id) do nothing returning ctid;
insert into hu values (1, 'z') on conflict (id) do nothing returning ctid;
select ctid, * from hu order by id;
""",
    "partition_fks": PARTITION_FKS + PARTITION_FK_QUERIES,
    # a FK referencing a partitioned table has a copy per partition of it (on the
    # referencing table, named afresh), in pg_constraint and information_schema; DETACH of
    # a partition whose rows are still referenced fails naming that copy (it went through)
    "referenced_partitions": """
create table pr (id int primary key) partition by range (id);
create table pr1 partition of pr for values from (0) to (10);
create table pr2 partition of pr for values from (10) to (20) partition by range (id);
create table pr2a partition of pr2 for values from (10) to (15);
create table rf (r int references pr);
create table pc (id int, r int references pr) partition by range (id);
create table pc1 partition of pc for values from (0) to (10);
select conname, conrelid::regclass, confrelid::regclass, (select conname || '@' ||
  conrelid::regclass::text from pg_constraint p where p.oid = c.conparentid) parent,
  conislocal, coninhcount, connoinherit, conkey, confkey, conindid::regclass,
  pg_get_constraintdef(oid)
  from pg_constraint c where contype = 'f'
  order by conrelid::regclass::text, confrelid::regclass::text, conname;
select constraint_name, table_name from information_schema.table_constraints
  where constraint_type = 'FOREIGN KEY' order by 2, 1;
select constraint_name, unique_constraint_name from information_schema.referential_constraints
  order by 1, 2;
select table_name, column_name, constraint_name from information_schema.constraint_column_usage
  where constraint_name like '%fkey%' order by 1, 2, 3;
insert into pr values (1), (11);
insert into rf values (11), (null);
insert into pc values (1, 1);
alter table pr detach partition pr2;
alter table pr2 detach partition pr2a;
alter table pr detach partition pr1;
delete from rf;
alter table pr detach partition pr2;
select conname, confrelid::regclass from pg_constraint where conrelid = 'rf'::regclass
  order by 1;
delete from pc;
alter table pr detach partition pr1;
select conname, conrelid::regclass, confrelid::regclass from pg_constraint where contype = 'f'
  order by 1, 2;
""",
    # a foreign key failing at a partition names the copy checked there, as PostgreSQL's
    # per-partition triggers do (message and constraint field)
    "fk_copy_errors": """
create table pp (id int primary key);
create table pc (id int, p int references pp) partition by range (id);
create table pc1 partition of pc for values from (0) to (10);
create table pc2 (id int, p int, constraint pc_p_fkey check (p > 0));
alter table pc attach partition pc2 for values from (10) to (20);
insert into pc values (1, 5);
insert into pc values (11, 5);
insert into pc1 values (2, 5);
create table pr (id int primary key) partition by range (id);
create table pr1 partition of pr for values from (0) to (10);
create table rf (r int references pr on delete restrict);
insert into pr values (1);
insert into rf values (1);
delete from pr where id = 1;
update pr set id = 2 where id = 1;
delete from pr1 where id = 1;
insert into rf values (7);
""",
    # the target named by its table name where an alias hides it: PostgreSQL's message
    # and hint (it was "missing FROM-clause entry")
    "target_alias": """
create table k (id int primary key, v text);
insert into k values (1, 'a');
insert into k as x values (1, 'b') on conflict (id) do update set v = k.v;
insert into k as x values (1, 'b') on conflict (id) do update set v = x.v || excluded.v
  returning v;
insert into k as x values (1, 'b') on conflict (id) do update set v = 'c' where k.v = 'a';
insert into k as x values (2, 'b') returning k.id;
update k as x set v = k.v;
delete from k as x where k.id = 1;
""",
    # EXPLAIN EXECUTE shows the custom plan, the values as constants, for the first five
    # executions and then the generic one ($1), as PostgreSQL's plan cache; EXPLAIN
    # EXECUTE counts as an execution; plan_cache_mode chooses either.
    "explain_execute": """
create table e (id int primary key, v int, t text);
insert into e select g, g, 'x' || g from generate_series(1, 100) g;
prepare q(int) as select v from e where id = $1;
explain (costs off) execute q(5);
explain (costs off) execute q(6);
execute q(7);
explain (costs off) execute q(8);
explain (costs off) execute q(9);
explain (costs off) execute q(10);
explain (costs off) execute q(11);
select generic_plans, custom_plans from pg_prepared_statements where name = 'q';
prepare q2(int, text) as select id from e where v > $1 and t <> $2;
explain (costs off) execute q2(90, 'x1');
explain (costs off) execute nosuch(1);
explain (costs off) execute q2(1);
prepare q3(int) as update e set v = v + 1 where id = $1;
explain (costs off) execute q3(3);
select v from e where id = 3;
prepare q4 as select v from e where id = 1;
explain (costs off) execute q4;
set plan_cache_mode = force_generic_plan;
prepare q5(int) as select v from e where id = $1;
explain (costs off) execute q5(1);
set plan_cache_mode = force_custom_plan;
explain (costs off) execute q(12);
create table eb (id int primary key, b bool, c bool);
explain (costs off) select * from eb where b = true;
explain (costs off) select * from eb where b = false;
explain (costs off) select * from eb where true <> b;
explain (costs off) select * from eb where b = c;
explain (costs off) select * from eb where (b = true) and (c = false);
prepare pb(bool) as select * from eb where b = $1;
explain (costs off) execute pb(false);
""",
    # EXPLAIN ANALYZE of INSERT / UPDATE / DELETE: PostgreSQL's ModifyTable figures (rows=0
    # but RETURNING's), the plan under it with its own, INSERT ... VALUES over Result or
    # Values Scan (was no figures, a 'Rows affected' line, no Result)
    "explain_dml": """
create table d (id int, v int);
insert into d select g, g from generate_series(1, 20) g;
explain (costs off) insert into d values (1, 1);
explain (costs off) insert into d values (1, 1), (2, 2);
explain (analyze, costs off, timing off, summary off) insert into d values (21, 1);
explain (analyze, costs off, timing off, summary off) insert into d values (22, 1), (23, 2);
explain (analyze, costs off, timing off, summary off) update d set v = v + 1;
create table d1 (id int, v int);
insert into d1 values (5, 5);
explain (analyze, costs off, timing off, summary off) delete from d1 where id = 5 returning v;
insert into d1 values (5, 5);
prepare du(int) as update d1 set v = 0 where id = $1;
explain (analyze, costs off, timing off, summary off) execute du(5);
select v from d1 where id = 5;
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(cumulo_server, pg15, name):
    assert_same_outcomes(pg15, cumulo_server, f"fidel5_{name}", SCRIPTS[name], types=True,
                         detail=True, notices=True)


def _ctid_round_trip(dsn: str) -> list:
    """RETURNING ctid names the version a later `WHERE ctid = ...` finds (the editor's
    idiom): after INSERT, and after UPDATE (the new version's), with and without a key."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for ddl in ("create table rh (id int, v text)",
                    "create table rk (id int primary key, v text)"):
            c.execute(ddl)
        for t in ("rh", "rk"):
            tid = c.execute(f"insert into {t} values (1, 'a'), (2, 'b') returning ctid"
                            ).fetchall()[1][0]
            out.append(c.execute(f"select id, v from {t} where ctid = %s", [tid]).fetchall())
            tid = c.execute(f"update {t} set v = 'z' where id = 2 returning ctid").fetchone()[0]
            out.append(c.execute(f"select id, v from {t} where ctid = %s", [tid]).fetchall())
            out.append(c.execute(f"select count(*) from {t} where ctid = %s", [tid]).fetchone())
            tid = c.execute(f"update {t} set id = 3 where id = 2 returning ctid").fetchone()[0]
            out.append(c.execute(f"select id, v from {t} where ctid = %s", [tid]).fetchall())
            got = c.execute(f"delete from {t} where ctid = %s returning id", [tid]).fetchall()
            out.append(got)
    return out


def test_returning_ctid_finds_the_version_as_pg15(cumulo_server, pg15):
    pg, cu = fresh_databases(pg15, cumulo_server, "fidel5_ctid")
    expected = _ctid_round_trip(pg)
    assert expected[0] == [(2, "b")] and expected[1] == [(2, "z")]
    assert _ctid_round_trip(cu) == expected


def _setup(dsn: str, script: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute(script)


def test_sqlalchemy_reflects_partition_foreign_keys_as_pg15(cumulo_server, pg15):
    """`inspect(engine).get_foreign_keys(partition)` lists the copies of the parent's keys."""
    got = []
    for dsn in fresh_databases(pg15, cumulo_server, "fidel5_sa"):
        _setup(dsn, PARTITION_FKS)
        eng = sa.create_engine(dsn.replace("postgresql://", "postgresql+psycopg://"))
        try:
            insp = sa.inspect(eng)
            got.append({t: sorted(insp.get_foreign_keys(t), key=lambda f: f["name"])
                        for t in ("pc", "pc1", "pc2", "pc2a", "pc3", "pc4")})
        finally:
            eng.dispose()
    assert got[0]["pc1"] and got[0]["pc2a"][0]["referred_table"] == "pp"
    assert got[1] == got[0]


def test_psql_describes_partition_foreign_keys_as_pg15(cumulo_server, pg15):
    outs = []
    for dsn in fresh_databases(pg15, cumulo_server, "fidel5_psql"):
        _setup(dsn, PARTITION_FKS)
        r = subprocess.run([f"{PG_BIN}/psql", dsn, "-X", "-c", "\\d pc1", "-c", "\\d pc2a",
                            "-c", "\\d pc3", "-c", "\\d pp"], capture_output=True, text=True,
                           timeout=60, env={**os.environ, "PAGER": ""})
        outs.append(r.stdout + r.stderr)
    assert 'TABLE "pc" CONSTRAINT "pc_p_fkey"' in outs[0]
    assert outs[1] == outs[0]


EXPLAIN_BOUND = [
    ("explain (costs off) select v from e where id = %s", [5]),
    ("explain (costs off) select id from e where t = %s", ["x5"]),
    ("explain (costs off) select id from e where v > %s", [70000]),
    ("explain (costs off) select id from e where v::numeric > %s", [Decimal("1.5")]),
    ("explain (costs off) select id from e where v = any(%s) order by id", [[1, 2]]),
    ("explain (costs off) update e set v = %s where id = %s", [1, 2]),
    ("explain (costs off) select id from e where v in (%s, %s)", [1, 2]),
    ("explain (costs off) select id from e where v = %s::int", [3]),
    ("explain (costs off) select id from e where t like %s", ["x%"]),
    ("explain (costs off) select id from e where v + %s > 3", [1]),
    ("explain (costs off, format json) select v from e where id = %s", [7]),
]


def _explain_bound(dsn: str) -> list:
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("create table e (id int primary key, v int, t text)")
        for sql, args in EXPLAIN_BOUND:
            try:
                out.append(c.execute(sql, args).fetchall())
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary))
    return out


def test_explain_with_bound_parameters_shows_custom_plan_as_pg15(cumulo_server, pg15):
    """psycopg sends the values as parameters of the extended protocol: PostgreSQL plans
    EXPLAIN's statement for them, printing them as constants."""
    pg, cu = fresh_databases(pg15, cumulo_server, "fidel5_bound")
    expected = _explain_bound(pg)
    assert "(id = '5'::smallint)" in str(expected[0])  # NB: psycopg's int2
    assert _explain_bound(cu) == expected
