"""Wrong answers and internal errors clients' test suites met (issue 16), diffed with PG 15.

Each script runs statement by statement on PostgreSQL 15 and on Cumulo (the runner of
`test_statements_pg15`): status, rows, SQLSTATE and message must match.
"""

from __future__ import annotations

import pytest

from tests.integration.stmtdiff import assert_same_outcomes

SCRIPTS = {
    # A partial unique index holds only over the rows its predicate covers.
    "partial_unique": """
create table pu (id int primary key, a int, active bool);
create unique index pu_a on pu (a) where active;
insert into pu values (1, 1, false), (2, 1, false), (3, 1, true);
insert into pu values (4, 1, true);
insert into pu values (5, 1, false);
update pu set active = true where id = 1;
update pu set active = false where id = 3;
update pu set active = true where id = 1;
select * from pu order by id;
create table pu2 (id int, a int, active bool);
insert into pu2 values (1, 1, true), (2, 1, false), (3, 1, false);
create unique index pu2_a on pu2 (a) where active;
insert into pu2 values (4, 1, true);
insert into pu2 values (5, 1, false), (6, 2, true), (7, 2, true);
create unique index pu2_b on pu2 (a) where not active;
select count(*) from pu2;
""",
    # Set-returning calls inside select-list expressions (were XX000).
    "srf_in_expressions": """
select generate_series(1, 2)::int4;
select generate_series(1, 3)::int4 + 1 as x, 'a' || generate_series(1, 2)::text as y;
select x.a, generate_series(1, x.a) * 10 from (values (1), (2)) x(a) order by 1, 2;
select abs(generate_series(-2, 2)), generate_series(1, 3);
""",
    # 42601 where PostgreSQL cannot parse; the niladic USER; unknown-typed arguments.
    "syntax_and_names": """
wat;
wat foo;
begin;
declare c cursor for insert into nothing values (1);
rollback;
begin;
declare c cursor for update nothing set a = 1;
rollback;
select user = current_user, current_role = current_user;
select abs(NULL);
select pg_typeof(abs(NULL));
select round(NULL), lower(NULL), upper(NULL);
set role nosuchrole;
set session authorization nosuchrole;
""",
    # Index expressions and predicates must be IMMUTABLE; renaming indexes and sequences.
    "index_and_sequence_ddl": """
create table ix (id int primary key, a int);
create index ix_v on ix ((random() + a));
create index ix_n on ix ((now()));
create index ix_p on ix (a) where a > random();
create index ix_ok on ix ((abs(a)));
create index ix_i on ix (a);
alter index ix_i rename to ix_j;
alter index ix_j rename to ix_ok;
alter index if exists nosuch rename to x;
alter index nosuch rename to x;
alter index ix_pkey rename to ix_pk2;
select conname from pg_constraint where conrelid = 'ix'::regclass;
select relname from pg_class where relname like 'ix%' order by 1;
create sequence sq1;
alter sequence sq1 rename to sq2;
select nextval('sq2');
alter sequence if exists nosuch rename to x;
create table ser (id serial primary key, v int);
alter sequence ser_id_seq rename to ser_seq2;
insert into ser (v) values (1) returning id;
""",
    # DEFERRABLE INITIALLY DEFERRED foreign keys are checked at COMMIT; SET CONSTRAINTS.
    "deferred_foreign_keys": """
create table dp (id int primary key);
create table dc (id int primary key, p int references dp (id) deferrable initially deferred);
select conname, condeferrable, condeferred from pg_constraint
  where conrelid = 'dc'::regclass and contype = 'f';
begin;
insert into dc values (1, 10);
insert into dp values (10);
commit;
select * from dc;
begin;
insert into dc values (2, 20);
commit;
select count(*) from dc;
insert into dc values (3, 30);
begin;
delete from dp where id = 10;
insert into dp values (10);
commit;
begin;
delete from dp where id = 10;
commit;
begin;
delete from dc where id = 1;
delete from dp where id = 10;
rollback;
begin;
insert into dc values (6, 60);
delete from dc where id = 6;
commit;
begin;
set constraints all immediate;
insert into dc values (4, 40);
rollback;
begin;
insert into dc values (5, 50);
set constraints dc_p_fkey immediate;
rollback;
begin;
set constraints nosuch deferred;
rollback;
create table dd (id int primary key, p int references dp (id));
begin;
set constraints dd_p_fkey deferred;
rollback;
begin;
set constraints all deferred;
insert into dd values (1, 99);
rollback;
alter table dd add constraint dd2 foreign key (p) references dp (id) deferrable;
select conname, condeferrable, condeferred from pg_constraint where conname = 'dd2';
alter table dd drop constraint dd_p_fkey;
begin;
insert into dd values (2, 98);
rollback;
begin;
set constraints dd2 deferred;
insert into dd values (3, 97);
insert into dp values (97);
commit;
select * from dd;
""",
    # UNIQUE ... NULLS [NOT] DISTINCT (PostgreSQL 15): NULLs collide when NOT DISTINCT.
    "nulls_not_distinct": """
create table nd(a int, b int);
create unique index nd_a on nd(a) nulls not distinct;
insert into nd values (null, 1);
insert into nd values (null, 2);
create unique index nd_b on nd(b) nulls distinct;
insert into nd values (1, null), (2, null);
select indexrelid::regclass::text, indnullsnotdistinct from pg_index where indrelid = 'nd'::regclass order by 1;
create table nd2(a int, b int unique nulls not distinct, unique nulls not distinct (a));
insert into nd2 values (null, null);
insert into nd2 values (null, 1);
insert into nd2 values (1, null);
create table nd3(a int);
alter table nd3 add constraint nd3_u unique nulls not distinct (a);
insert into nd3 values (null), (null);
insert into nd3 values (null);
select count(*) from nd3;
update nd2 set a = 5 where a is null;
insert into nd2 values (null, 2);
create unique index nd3_x on nd3 (a) nulls not distinct;
""",
    # Primary-key and identity changes Django's migrations emit.
    "pk_and_identity_changes": """
create table m1 (id integer generated by default as identity primary key, name varchar(10));
insert into m1 (name) values ('a'), ('b');
alter table m1 alter column id type bigint;
insert into m1 (name) values ('c') returning id;
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'm1'::regclass and attname = 'id';
alter table m1 alter column id drop identity;
insert into m1 (name) values ('d');
alter table m1 alter column id drop identity if exists;
alter table m1 alter column id add generated by default as identity;
insert into m1 (name) values ('e') returning id;
alter table m1 drop constraint m1_pkey;
insert into m1 values (1, 'dup');
select count(*) from m1;
alter table m1 add primary key (id);
delete from m1 where name = 'dup';
alter table m1 add primary key (id);
alter table m1 drop column id;
select * from m1 order by name;
create table m2 (id serial primary key, x int);
alter table m2 alter column id type bigint;
insert into m2 (x) values (1) returning id;
create table m3 (id int primary key, x int);
alter table m3 alter column id add generated always as identity;
insert into m3 (x) values (5) returning id;
alter table m3 alter column id set data type bigint using id::bigint;
select column_name, data_type, is_identity, identity_generation from information_schema.columns where table_name='m3' order by 1;
""",
    "drop_primary_key_and_identity": """
create table k1 (id int primary key, v text);
create index k1_v on k1 (v);
create table k2 (id int primary key, k1 int references k1(id));
insert into k1 values (1, 'a'), (2, 'b');
insert into k2 values (10, 1);
alter table k1 drop constraint k1_pkey;
alter table k1 drop constraint k1_pkey cascade;
insert into k2 values (11, 99);
insert into k1 values (1, 'c');
select id, v from k1 where v = 'c';
select count(*) from k1;
update k1 set v = 'z' where id = 2;
select * from k1 order by id, v;
delete from k1 where v = 'a';
select * from k1 order by id, v;
alter table k1 add primary key (id);
delete from k1 where v = 'c';
alter table k1 add primary key (id);
select * from k1;
alter table k2 alter column id type bigint using id::bigint;
select * from k2 order by id;
alter table k2 alter column id type text;
insert into k2 values ('x', null);
select * from k2 order by id;
alter table k2 drop column id;
select * from k2 order by k1;
create table k3 (id bigint generated always as identity primary key, a int);
insert into k3 (a) values (1);
alter table k3 alter column id drop identity;
insert into k3 (a) values (2);
insert into k3 values (5, 3);
select * from k3 order by id;
select count(*) from pg_sequences where sequencename like 'k3%';
alter table k3 alter column id add generated always as identity (start with 100 increment by 5);
insert into k3 (a) values (4) returning id;
insert into k3 (a) values (5) returning id;
alter table k3 alter column id add generated by default as identity;
alter table k3 alter column a add generated always as identity;
alter table k3 alter column a drop identity;
alter table k3 alter column nosuch drop identity;
alter sequence k3_id_seq as bigint;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"fix_{name}", SCRIPTS[name])
