"""Declarative partitioning against PostgreSQL 15: the same rows in the same partitions, the
same errors, the same catalog, the same pruned Append.

PARTITION BY RANGE / LIST / HASH (PostgreSQL's hash, so a row lands in the partition
it lands in there), sub-partitions, DEFAULT partitions; the bound errors (overlap,
empty range, modulus, strategy), 23514 for a row no partition takes and for a row
written to the wrong partition, 0A000 for a unique key without the partition key;
INSERT, COPY, UPDATE (moving rows between partitions), DELETE, ON CONFLICT through
the parent; ATTACH / DETACH with their checks; indexes copied to partitions;
TRUNCATE and DROP of the parent; pg_class, pg_inherits, pg_partitioned_table,
pg_get_partkeydef, pg_get_expr(relpartbound), pg_get_partition_constraintdef,
pg_partition_tree; EXPLAIN listing only the partitions left after pruning. Then
asyncpg's prepared statements with parameters, and psycopg's COPY into the parent.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg

from tests.integration.stmtdiff import assert_same, fresh_databases, outcomes, statements

SCRIPT = """
create table m (d date not null, v int default 7, primary key (d)) partition by range (d);
create table m_2020 partition of m for values from ('2020-01-01') to ('2021-01-01');
create table m_2021 partition of m for values from ('2021-01-01') to ('2022-01-01');
create table m_bad partition of m for values from ('2020-06-01') to ('2020-07-01');
create table m_empty partition of m for values from ('2025-06-01') to ('2020-07-01');
create table m_in partition of m for values in (1);
create table u (a int, b int, primary key (a)) partition by range (b);
create table l2 (a int, b text) partition by list (a, b);
insert into m values ('2020-03-01', 1), ('2021-05-05', 2), ('2020-12-31', 3);
insert into m values ('2030-03-01', 1);
insert into m_2020 values ('2021-03-01', 1);
insert into m (d) values ('2020-02-01');
select tableoid::regclass, * from m order by d;
update m set v = v * 10 where d > '2020-06-01' returning d, v;
update m set d = d + 365 where v = 1 returning tableoid::regclass, d, v;
select count(*) from only m;
update m_2020 set d = '2021-06-01';
select tableoid::regclass, * from m order by d;
delete from m where v = 30 returning tableoid::regclass, d;
insert into m values ('2020-02-01', 5), ('2021-09-09', 5) on conflict do nothing;
insert into m values ('2020-02-01', 6), ('2021-10-10', 6) on conflict (d) do update set v = excluded.v;
select tableoid::regclass, * from m order by d;
create table m_def partition of m default;
insert into m values ('2035-01-01', 5);
create table m_2035 partition of m for values from ('2035-01-01') to ('2036-01-01');
create table m_def2 partition of m default;
create table m_2036 partition of m for values from ('2036-01-01') to ('2037-01-01');
explain (costs off) select * from m;
explain (costs off) select * from m where d = '2021-02-03';
explain (costs off) select * from m where v = 3;
create table e (d int, v int) partition by range (d);
create table e1 partition of e for values from (0) to (10);
create table e2 partition of e for values from (10) to (20);
create table e3 partition of e for values from (20) to (30);
create table e4 partition of e default;
explain (costs off) select * from e where d >= 12 and d < 30;
explain (costs off) select * from e where d >= 12 and d < 40;
explain (costs off) select * from e where d in (5, 25) or d = 15;
explain (costs off) select * from e where d in (5, 25);
explain (costs off) select * from e where d = -1;
select count(*), sum(v) from m where d >= '2021-01-01';
create table lst (r text, x int) partition by list (r);
create table lst_eu partition of lst for values in ('fr', 'de');
create table lst_us partition of lst for values in ('us', null);
create table lst_x partition of lst for values in ('de', 'it');
create table lst_d partition of lst default;
insert into lst values ('fr', 1), ('us', 2), (null, 3), ('jp', 4), ('de', 5);
select tableoid::regclass, * from lst order by x;
explain (costs off) select * from lst where r is null;
explain (costs off) select * from lst where r = 'jp';
create table h (a bigint, t text) partition by hash (a, t);
create table h0 partition of h for values with (modulus 4, remainder 0);
create table h1 partition of h for values with (modulus 4, remainder 1);
create table h2 partition of h for values with (modulus 2, remainder 1);
create table h3 partition of h for values with (modulus 3, remainder 2);
create table h4 partition of h for values with (modulus 4, remainder 5);
create table h5 partition of h default;
create table h6 partition of h for values with (modulus 4, remainder 2);
insert into h select g::bigint * 1000000007 - 9000000000, repeat('x', g) from generate_series(1, 12) g;
create table h7 partition of h for values with (modulus 4, remainder 3);
insert into h select g::bigint * 1000000007 - 9000000000, repeat('x', g) from generate_series(1, 12) g;
insert into h values (null, null);
select tableoid::regclass, count(*), sum(a) from h group by 1 order by 1;
create table s (region text not null, d int not null, v int) partition by list (region);
create table s_eu partition of s for values in ('eu') partition by range (d);
create table s_eu_1 partition of s_eu for values from (minvalue) to (10);
create table s_eu_2 partition of s_eu for values from (10) to (maxvalue);
create table s_us partition of s for values in ('us');
insert into s values ('eu', 5, 1), ('eu', 15, 2), ('us', 1, 3);
update s set region = 'us' where v = 1;
update s set d = 1 where v = 2;
select tableoid::regclass, * from s order by v;
explain (costs off) select * from s where d >= 10;
alter table s add column w text default 'x';
alter table s rename column v to vv;
alter table s rename column d to dd;
alter table s drop column dd;
alter table s alter column dd type bigint;
alter table s_us add column z int;
alter table s_us drop column vv;
insert into s values ('eu', 3, 9, 'y');
select tableoid::regclass, * from s order by vv;
select pg_get_partkeydef('s_eu'::regclass);
create table x (d date not null, v int default 7);
insert into x values ('2037-05-05', 1);
alter table m attach partition x for values from ('2037-01-01') to ('2037-02-01');
alter table m attach partition x for values from ('2036-06-01') to ('2038-01-01');
alter table m attach partition x for values from ('2037-01-01') to ('2038-01-01');
alter table m attach partition x for values from ('2037-01-01') to ('2038-01-01');
alter table lst attach partition x default;
select tableoid::regclass, * from m where d > '2036-01-01';
alter table m detach partition x;
alter table m detach partition x;
create index on m (v);
create unique index on m (v);
select relname, relkind, relispartition, pg_get_expr(relpartbound, oid) from pg_class where relname ~ '^(m|lst|h|s)(_|$)' order by 1;
select c.relname, i.inhparent::regclass from pg_inherits i join pg_class c on c.oid = i.inhrelid order by 1;
select partrelid::regclass, partstrat, partnatts, partdefid::regclass, partattrs::text from pg_partitioned_table order by 1;
select pg_get_partkeydef('m'::regclass), pg_get_partkeydef('h'::regclass), pg_get_partkeydef('x'::regclass);
select pg_get_partition_constraintdef('m_2020'::regclass), pg_get_partition_constraintdef('lst_us'::regclass);
select relid::regclass::text, parentrelid::regclass::text, isleaf, level from pg_partition_tree('s') order by 4, 1;
select table_name, table_type from information_schema.tables where table_name in ('m', 'm_2020') order by 1;
create table r (id int primary key);
insert into r values (1), (2);
create table fm (d int not null, ref int references r(id), primary key (d)) partition by range (d);
create table fm1 partition of fm for values from (0) to (10);
insert into fm values (1, 1);
insert into fm values (2, 5);
create table c (x int references fm(d));
insert into c values (1);
insert into c values (3);
update c set x = 2;
delete from c;
delete from fm where d = 1;
drop table c, fm, r;
create table k (d int not null, v int) partition by range (d);
create table k1 partition of k for values from (0) to (10);
alter table k add constraint ck check (v > 0);
insert into k values (1, -1);
alter table k add constraint uq unique (d);
alter table k add constraint uq2 unique (v);
insert into k values (1, 1), (1, 2);
alter table k alter column v set not null;
insert into k values (2, null);
create table k2 partition of k for values from (10) to (20);
insert into k values (12, -1);
select conname, conrelid::regclass from pg_constraint where conrelid::regclass::text like 'k%' order by 2, 1;
drop table k;
create table z (d int not null, v int) partition by range (d);
create table z1 partition of z for values from (0) to (10);
alter table only z add constraint z_pkey primary key (d);
alter table only z1 add constraint z1_pkey primary key (d);
alter index z_pkey attach partition z1_pkey;
alter index z1_pkey attach partition z_pkey;
insert into z values (1, 1), (1, 2);
select c.relname, i.inhparent::regclass from pg_inherits i join pg_class c on c.oid = i.inhrelid where c.relname like 'z%' order by 1;
drop table z;
create table tlog (x text);
create function tlog_row() returns trigger language plpgsql as $$ begin insert into tlog values (TG_TABLE_NAME || ' ' || TG_OP); return new; end $$;
create trigger tlog_row before insert or update on s for each row execute function tlog_row();
insert into s values ('eu', 3, 7, 'z');
update s set vv = vv + 1 where vv = 7;
merge into s using (values ('us', 1, 70)) v(r, d, x) on s.vv = v.x when not matched then insert values (v.r, v.d, v.x);
select * from tlog order by 1;
truncate m;
select count(*) from m;
drop table m, lst, h, s, e;
select count(*) from pg_class where relname ~ '^(m|lst|h|s|e)_';
create table pa (a int not null, b text, c int) partition by range (a);
create table pa1 (c int, b text, a int not null);
insert into pa1 values (7, 'q', 3);
create index pa1_b on pa1 (b);
comment on column pa1.b is 'bee';
alter table pa attach partition pa1 for values from (0) to (10);
insert into pa values (1, 'x', 2);
select tableoid::regclass, * from pa order by a;
select a, b, c from pa1 where b = 'x';
select col_description('pa1'::regclass, attnum) from pg_attribute where attrelid = 'pa1'::regclass and attname = 'b';
update pa set c = 9 where a = 3;
select a, b, c from pa order by a;
create table pd (k int, gone text, v text) partition by list (k);
alter table pd drop column gone;
create table pd1 (like pd);
insert into pd1 values (1, 'one');
alter table pd attach partition pd1 for values in (1);
insert into pd values (1, 'uno');
select * from pd1 order by v;
create table pd2 (k int, v text, extra int);
alter table pd attach partition pd2 for values in (2);
create table pd3 (k int);
alter table pd attach partition pd3 for values in (3);
create table pd4 (k bigint, v text);
alter table pd attach partition pd4 for values in (4);
create table pa2 (b text, c int, a int);
alter table pa attach partition pa2 for values from (10) to (20);
create table pa3 (b text, c int, a int not null);
insert into pa3 values ('z', 1, 50);
alter table pa attach partition pa3 for values from (10) to (20);
select a, b, c from pa3;
alter table pd detach partition pd1;
select * from pd1 order by v;
drop table pa, pd, pd1, pd2, pd3, pd4, pa2, pa3;
create table pe (ts timestamp, v int) partition by range (date_trunc('month', ts));
create table pe1 partition of pe for values from ('2020-01-01') to ('2020-02-01');
create table pe2 partition of pe for values from ('2020-02-01') to ('2020-03-01');
insert into pe values ('2020-01-05', 1), ('2020-02-29 23:00', 2);
insert into pe values ('2020-03-01', 3);
select tableoid::regclass, * from pe order by v;
select pg_get_partkeydef('pe'::regclass), pg_get_partition_constraintdef('pe1'::regclass);
select partattrs, partnatts from pg_partitioned_table where partrelid = 'pe'::regclass;
update pe set ts = '2020-02-02' where v = 1;
select tableoid::regclass, * from pe order by v;
explain (costs off) select * from pe where date_trunc('month', ts) < '2020-02-01';
explain (costs off) select * from pe where date_trunc('day', ts) = '2020-02-01';
create table pe3 (ts timestamp, v int);
insert into pe3 values ('2020-05-01', 4);
alter table pe attach partition pe3 for values from ('2020-03-01') to ('2020-04-01');
alter table pe attach partition pe3 for values from ('2020-05-01') to ('2020-06-01');
create table pn (name text, id int) partition by list (lower(name));
create table pn1 partition of pn for values in ('a');
create table pn2 partition of pn for values in ('b');
create table pnd partition of pn default;
insert into pn values ('A', 1), ('B', 2), ('Q', 3);
select tableoid::regclass, * from pn order by id;
insert into pn1 values ('C', 4);
select pg_get_partition_constraintdef('pn1'::regclass);
explain (costs off) select * from pn where lower(name) = 'a';
explain (costs off) select * from pn where lower(name) in ('a', 'b');
explain (costs off) select * from pn where upper(name) = 'a';
alter table pn add primary key (id);
create unique index on pn (id);
alter table pn drop column name;
alter table pn alter column name type varchar;
alter table pn rename column name to nm;
select pg_get_partkeydef('pn'::regclass);
insert into pn values ('b', 5);
select tableoid::regclass, * from pn order by id;
create table px (a int, b int) partition by range ((a + 1), b);
create table px1 partition of px for values from (0, 0) to (10, 10);
insert into px values (1, 2);
insert into px values (20, 2);
select pg_get_partkeydef('px'::regclass);
create table pt (ts timestamp) partition by range (date_trunc('month'::text, ts));
create index on pt (date_trunc('day'::text, ts));
select pg_get_partkeydef('pt'::regclass), pg_get_indexdef(indexrelid) from pg_index where indrelid = 'pt'::regclass;
drop table pt;
create table py (a int) partition by range ((a));
select pg_get_partkeydef('py'::regclass);
create table pz (a int, t timestamptz) partition by range (random());
create table pz (a int, t timestamptz) partition by range ((b + 1));
create table ph (a text) partition by hash (upper(a));
create table ph0 partition of ph for values with (modulus 2, remainder 0);
create table ph1 partition of ph for values with (modulus 2, remainder 1);
insert into ph values ('a'), ('b'), ('c'), ('d');
select tableoid::regclass, * from ph order by a;
drop table pe, pe3, pn, px, py, ph;
create table fr (id int primary key);
insert into fr values (1), (2), (3);
create table fm (a int, b int references fr) partition by range (a);
create table fm1 partition of fm for values from (0) to (10);
create table fm2 partition of fm for values from (10) to (20) partition by list (b);
create table fm2a partition of fm2 default;
insert into fm values (1, 1), (11, 2);
delete from fr where id = 1;
delete from fr where id = 2;
update fr set id = 5 where id = 2;
delete from fr where id = 3;
create table fc (a int, b int references fr on delete cascade on update cascade) partition by range (a);
create table fc1 partition of fc for values from (0) to (10);
create table fc2 partition of fc for values from (10) to (20);
insert into fr values (7), (8);
insert into fc values (1, 7), (12, 7), (2, 8);
update fr set id = 70 where id = 7;
select tableoid::regclass, * from fc order by a;
delete from fr where id = 70;
select tableoid::regclass, * from fc order by a;
create table fn (a int, b int references fr on delete set null) partition by range (a);
create table fn1 partition of fn for values from (0) to (10);
insert into fn values (3, 8);
delete from fr where id = 8;
select * from fn;
drop table fm, fc, fn, fr;
create table dr (id int primary key);
insert into dr values (1);
create table dm (a int, b int references dr, constraint pos check (a >= 0)) partition by range (a);
create table dm1 partition of dm for values from (0) to (10);
alter table dm1 drop constraint dm_b_fkey;
alter table dm1 drop constraint pos;
alter table dm drop constraint pos;
select conname, conrelid::regclass from pg_constraint where contype = 'c' and conrelid <> 0 order by 2;
alter table dm add constraint small check (a < 100);
select conname, conrelid::regclass from pg_constraint where contype = 'c' and conrelid <> 0 order by 2;
alter table dm detach partition dm1;
select conname, conrelid::regclass, contype from pg_constraint where conrelid = 'dm1'::regclass order by 1;
insert into dm1 values (4, 9);
insert into dm1 values (4, 1);
alter table dm1 drop constraint small;
alter table dm1 drop constraint dm_b_fkey;
insert into dm1 values (4, 9);
drop table dm, dm1, dr;
create table sr (d date, v int) partition by range (d);
create table sr1 partition of sr for values from ('2000-01-01') to ('2020-01-01');
create table sr2 partition of sr for values from ('2020-01-01') to ('2100-01-01');
create table sr3 partition of sr for values from ('2100-01-01') to ('2200-01-01');
explain (costs off) select * from sr where d = current_date;
explain (costs off) select * from sr where d < current_date;
explain (costs off) select * from sr where d = now()::date;
insert into sr values (current_date, 1), ('2001-01-01', 2);
select v from sr where d = current_date;
drop table sr;
create table htr (id int primary key);
create table hts (x int);
create table htq (id int references htr);
create table htm (a int, b int references htr) partition by range (a);
create table htm1 partition of htm for values from (0) to (10);
create table htp (id int primary key) partition by range (id);
create table htp1 partition of htp for values from (0) to (10);
create table htz (pid int references htp);
select relname, relhastriggers from pg_class where relname in ('htr','hts','htq','htm','htm1','htp','htp1','htz') order by 1;
create function httf() returns trigger language plpgsql as $$ begin return new; end $$;
create table htg (a int) partition by range (a);
create table htg1 partition of htg for values from (0) to (10);
create table hth (a int) partition by range (a);
create table hth1 partition of hth for values from (0) to (10);
create trigger gt before insert on htg for each row execute function httf();
create trigger ht after insert on hth for each statement execute function httf();
select relname, relhastriggers from pg_class where relname in ('htg','htg1','hth','hth1') order by 1;
drop table htz, htq, htm, htp, htr, hts, htg, hth;
drop function httf();
"""


def test_partitioning_matches_pg15(pg15, cumulo_server):
    """Every statement's outcome (rows, errors with DETAIL) is PostgreSQL 15's."""
    pg_dsn, cu_dsn = fresh_databases(pg15, cumulo_server, "partitions")
    script = statements(SCRIPT)
    assert_same(outcomes(pg_dsn, script, names=True, detail=True),
                outcomes(cu_dsn, script, names=True, detail=True))


SETUP = [
    "drop table if exists ticks",
    "create table ticks (sym text not null, ts int not null, px numeric(10, 2),"
    " primary key (sym, ts)) partition by range (ts)",
    "create table ticks_a partition of ticks for values from (0) to (100)",
    "create table ticks_b partition of ticks for values from (100) to (200)",
]


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        for s in SETUP:
            await c.execute(s)
        await c.executemany("insert into ticks values ($1, $2, $3)",
                            [("x", t, t * 1.5) for t in range(0, 200, 7)])
        one = [tuple(r) for r in await c.fetch(
            "select tableoid::regclass::text, * from ticks where ts = $1", 105)]
        span = await c.fetchval("select sum(px) from ticks where ts >= $1 and ts < $2", 50, 150)
        moved = await c.execute("update ticks set ts = ts + 100 where ts < $1", 14)
        try:
            await c.execute("insert into ticks values ($1, $2, $3)", "x", 500, 1)
            err = "ok"
        except asyncpg.PostgresError as e:
            err = f"{e.sqlstate} {e.message} {e.detail}"
        counts = [tuple(r) for r in await c.fetch(
            "select tableoid::regclass::text, count(*) from ticks group by 1 order by 1")]
        return [one, span, moved, err, counts]
    finally:
        await c.close()


def _copy(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as c:
        for s in SETUP:
            c.execute(s)
        with c.cursor().copy("copy ticks (sym, ts, px) from stdin") as cp:
            for t in range(0, 200, 3):
                cp.write_row(("y", t, t / 4))
        try:
            with c.cursor().copy("copy ticks from stdin") as cp:
                cp.write_row(("y", 250, 1))
            err = "ok"
        except psycopg.Error as e:
            err = f"{e.sqlstate} {e.diag.message_primary}"
        return [err, c.execute("select tableoid::regclass::text, count(*), sum(px) from ticks"
                               " group by 1 order by 1").fetchall()]


def test_asyncpg_parameters_and_copy_match_pg15(pg15, cumulo_server):
    """asyncpg's prepared statements with parameters (pruned by value at execution, moved
    across partitions), and psycopg's COPY into the parent (routed, and 23514 for a row
    outside every partition)."""
    pg_dsn, cu_dsn = fresh_databases(pg15, cumulo_server, "partitions_clients")
    assert asyncio.run(_asyncpg(cu_dsn)) == asyncio.run(_asyncpg(pg_dsn))
    assert _copy(cu_dsn) == _copy(pg_dsn)
