"""Per-object plan invalidation: a DDL commit drops only the cached plans that could see
what it changed (`catalog.changes`, `plan.deps`, `CatalogStore.keeps`).

On a real engine: whether a plan stayed is whether the session's plan cache hands back
the same analysed statement (simple Query) or a Bind keeps the prepared one."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.catalog import changes
from cumulo.server.sql.plan import deps
from tests.unit.sql_statements.helpers import fails, rows, run

QUERY = "select a from t where id = 1"


@pytest.mark.parametrize("module", [changes, deps], ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


@pytest.fixture
def t(session):
    run(session, "create table t (id int primary key, a int); insert into t values (1, 10), (2, 20)")
    return session


def _kept(session, stmt, prepared, handle):
    """Runs the cached query and the Bind; True when neither was analysed again."""
    rows(session, QUERY)
    session.check_prepared(prepared)
    same = session.lookup_simple(QUERY)[0] is stmt, prepared.handle is handle
    assert same[0] == same[1], same
    return same[0]


def _cached(session):
    assert rows(session, QUERY) == [(10,)]
    prepared = session.prepare("select * from t where id = $1", [23])
    session.check_prepared(prepared)
    return session.lookup_simple(QUERY)[0], prepared, prepared.handle


def test_unrelated_view_ddl_keeps_plans_related_ddl_drops_them(t):
    cached = _cached(t)
    for sql in ("create view unrelated as select 1 as x", "create or replace view unrelated as "
                "select 2 as x", "drop view unrelated", "create table other (x int primary key)",
                "create sequence sq", "create schema s2", "comment on table other is 'c'",
                "create function f() returns int language sql as 'select 1'"):
        run(t, sql)
        assert _kept(t, *cached), sql
    for sql in ("create index t_a on t (a)", "drop index t_a", "grant select on t to public",
                "alter table other add column y int", "create or replace function f() returns "
                "int language sql as 'select 2'"):
        run(t, sql)
        assert not _kept(t, *cached), sql
        cached = _cached(t)


def test_a_shadowing_table_replans(t):
    cached = _cached(t)
    run(t, "create schema s2; set search_path = s2, public")
    cached = _cached(t)
    run(t, "create table s2.t (id int, a int); insert into s2.t values (1, 99)")
    assert rows(t, QUERY) == [(99,)]
    assert not _kept(t, *cached)
    run(t, "create temp table t (id int, a int); insert into t values (1, 77)")  # pg_temp first
    assert rows(t, QUERY) == [(77,)]


def test_a_new_overload_replans(t):
    run(t, "create function f(numeric) returns text language sql as $$ select 'numeric' $$")
    assert rows(t, "select f(1)") == [("numeric",)]
    run(t, "create function f(int) returns text language sql as $$ select 'int' $$")
    assert rows(t, "select f(1)") == [("int",)]


def test_plans_through_views_and_functions_see_their_changes(t):
    run(t, "create view tv as select id, a from t; create view tw as select a from tv where id = 1; "
           "create function fa() returns int language sql stable as 'select a from tv where id = 2'")
    assert rows(t, "select a from tw") == [(10,)]
    assert rows(t, "select fa()") == [(20,)]
    run(t, "create or replace view tv as select id, a + 1 as a from t")
    assert rows(t, "select a from tw") == [(11,)]
    assert rows(t, "select fa()") == [(21,)]
    run(t, "drop view tv cascade")
    fails(t, "select a from tw", "42P01")


def test_drop_and_create_of_a_same_name_table_replans(t):
    assert rows(t, QUERY) == [(10,)]
    run(t, "drop table t; create table t (id int primary key, a text); insert into t values (1, 'x')")
    assert rows(t, QUERY) == [("x",)]
    run(t, "alter table t add column b int default 5")
    assert rows(t, "select * from t") == [(1, "x", 5)]


def test_plans_reading_the_catalog_see_every_change(t):
    sql = "select count(*) from pg_class where relname like 'zz%'"
    assert rows(t, sql) == [(0,)]
    run(t, "create view zz1 as select 1")
    assert rows(t, sql) == [(1,)]
    assert rows(t, "select to_regclass('zz2') is null") == [(True,)]
    run(t, "create view zz2 as select 1")
    assert rows(t, "select to_regclass('zz2') is null") == [(False,)]
    assert rows(t, "select current_schema()") == [("public",)]
    run(t, "create schema cumulo")  # NB: "$user" comes first in search_path
    assert rows(t, "select current_schema()") == [("cumulo",)]


def test_analyze_replans_what_reads_the_analysed_tables_only(t):
    """ANALYZE's new statistics can change the plans of the tables it read (join order,
    join algorithm), nobody else's: a bump names those tables."""
    run(t, "create table other (x int primary key); insert into other values (1)")
    cached = _cached(t)
    for sql in ("analyze other", "begin; analyze other; commit"):
        run(t, sql)
        assert _kept(t, *cached), sql
    for sql in ("analyze t", "analyze", "begin; analyze t; commit"):
        run(t, sql)
        assert not _kept(t, *cached), sql
        cached = _cached(t)
