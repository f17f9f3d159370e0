"""Binder and DDL fidelity fixes diffed with PostgreSQL 15, DETAIL and HINT included.

Each script runs statement by statement through psycopg on PostgreSQL 15 and on the
session's Cumulo server, in a fresh database of its own: status, column names, rows,
SQLSTATE, message, DETAIL and HINT must match.
"""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.expr import opclasses
from tests.integration.stmtdiff import assert_same, fresh_database, outcomes, statements

SCRIPTS = {
    # `a, b JOIN c USING (id)` is a, (b JOIN c): USING and ON see b only, and a RIGHT/FULL
    # join after a comma pads only its own side; a FROM subquery or VALUES needs an alias.
    "comma_then_join": """
        create table a(id int, x int);
        create table b(id int, y int);
        create table c(id int, z int);
        insert into a values (1, 10), (2, 11);
        insert into b values (1, 20), (3, 21);
        insert into c values (1, 30), (4, 31);
        select * from a, b join c using (id) order by 1, 3;
        select * from a, b natural join c order by 1, 3;
        select * from a, b left join c using (id) order by 1, 3;
        select a.*, b.y, c.z from a, b right join c on b.id = c.id order by 1, 3;
        select a.x, b.y, c.z from a, b full join c on b.id = c.id order by 1, 2, 3;
        select id from a, b join c using (id);
        select * from a, b join c using (x);
        select * from a join b using (id), c order by 1, 4;
        select * from a, b join c on a.id = c.id;
        select * from a aa, b join c on aa.id = c.id;
        select * from a, b join c on x = c.id;
        select * from a, b join c on b.id = c.id order by 1;
        select 1 from a, b join c on b.id = c.id join a a2 on a2.id = b.id;
        update a set x = 3 from b join c on b.id = c.id where a.id = b.id;
        delete from a using b join c on a.id = b.id;
        select * from (select 1);
        select * from (values (1));
        select * from (select 1 union select 2);
        select * from lateral (select 1);
        select * from (values (1)) v, (select 2) as s;
        select * from ((select 1) s join (select 2) u on true);
        select * from ((values (1)) v join (select 2) u on true);
        select * from ((values (1, 2)) v(a, b) join (values (3)) w(c) on true) j;
        select * from (a join b using (id)) order by 1;
    """,
    # xid and cid hash but do not sort; json, xml and the geometric types do neither.
    "opclasses": """
        create table t(a int, j json, p point, x xml);
        insert into t values (1, '{}', '(1,2)', '<a/>');
        select count(distinct xmin) from t;
        select array_agg(distinct cmin) from t;
        select array_agg(xmin order by xmin) from t;
        select count(distinct j) from t;
        select count(distinct p) from t;
        select count(distinct x) from t;
        select count(distinct xmin::text) from t;
        select count(*) from (select distinct xmin from t) s;
        select count(*) from (select xmin from t group by xmin) s;
        select j from t order by 1;
        select distinct j from t;
        select p from t group by p;
        select count(distinct v) from (values ('(1,2),(3,4)'::box)) s(v);
        select 1 from t order by xmin;
    """,
    # a SET (...) after another action was dropped (sqlglot keeps it as an unparsed option)
    "alter_table_trailing_set": """
        create table t(a int);
        alter table t add column b int, set (fillfactor = 70);
        select reloptions from pg_class where relname = 't';
        alter table t alter column a set not null, set (fillfactor = 60, autovacuum_enabled = false);
        select reloptions from pg_class where relname = 't';
        alter table t add column c int, set (bogus = 1);
        alter table t add column d int, set (fillfactor = 5);
        alter table t add column f int, set schema public;
        select attname from pg_attribute where attrelid = 't'::regclass and attnum > 0 order by attnum;
    """,
    # the table moves with its indexes, constraints, row type and owned sequences; views
    # that read it follow; every moving name must be free there
    "alter_table_set_schema": """
        create schema s;
        create schema s2;
        create table p(id int primary key);
        create table t(id serial primary key, pid int references p, v int unique check (v > 0));
        create table u(id int generated always as identity, w int);
        create index t_v on t(v);
        insert into p values (1);
        insert into t(pid, v) values (1, 1);
        create view tv as select * from t;
        create table s.t_v(x int);
        alter table t set schema s;
        drop table s.t_v;
        create sequence s.u_id_seq;
        alter table u set schema s;
        drop sequence s.u_id_seq;
        alter table t set schema s;
        alter table u set schema s;
        select relname, relnamespace::regnamespace from pg_class
            where relname in ('t', 't_pkey', 't_v_key', 't_v', 't_id_seq', 'u', 'u_id_seq', 'tv')
            order by 1;
        select conname, connamespace::regnamespace from pg_constraint
            where conrelid = 's.t'::regclass order by 1;
        select typname, typnamespace::regnamespace from pg_type where typname in ('t', '_t') order by 1;
        select pg_get_viewdef('tv');
        select * from tv;
        insert into s.t(pid, v) values (1, 2) returning *;
        insert into s.t(pid, v) values (2, 3);
        insert into s.u(w) values (1) returning *;
        select pg_get_expr(adbin, adrelid) from pg_attrdef where adrelid = 's.t'::regclass;
        select pg_get_serial_sequence('s.u', 'id');
        select * from t;
        alter table s.t set schema nosuch;
        create table t(id int);
        alter table t set schema s;
        alter table s.t set schema s2;
        select * from tv order by 1;
        alter view s2.t set schema public;
        alter table if exists nosuch set schema s;
        alter table nosuch set schema s;
        create temp table tt(a int);
        alter table tt set schema s;
        create role sqlfix_r;
        set role sqlfix_r;
        alter table t set schema s;
        reset role;
        alter table t owner to sqlfix_r;
        set role sqlfix_r;
        alter table t set schema s;
        reset role;
        drop table t;
        drop role sqlfix_r;
    """,
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    pg, cu = servers
    db = f"sqlfix_{name}"
    fresh_database((pg.dsn(), cu.dsn()), db)
    expected = outcomes(pg.dsn(db=db), statements(SCRIPTS[name]), names=True, detail=True)
    got = outcomes(cu.dsn(dbname=db), statements(SCRIPTS[name]), names=True, detail=True)
    assert any(e[1] == "ERROR" for e in expected)
    assert_same(expected, got)


def test_opclasses_doctest():
    assert doctest.testmod(opclasses).failed == 0
