"""Wrong answers and internal errors clients' test suites met (issue 16), diffed with PG 15.

Each script runs statement by statement on PostgreSQL 15 and on Cumulo (the runner of
`test_statements_pg15`): status, rows, SQLSTATE and message must match.
"""

from __future__ import annotations

import pytest

from tests.integration.test_statements_pg15 import assert_same_outcomes

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
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"fix_{name}", SCRIPTS[name])
