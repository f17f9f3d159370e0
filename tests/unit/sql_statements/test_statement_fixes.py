"""Statement-layer behaviours that clients depend on: prepared utilities, ANALYZE, settings, DDL text."""

from __future__ import annotations

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.sql.optimizer import stats
from cumulo.server.sql.settings import _normalise

from .helpers import fails, rows, run


def test_utility_statements_prepare_through_the_extended_protocol(session):
    for sql in ("show application_name", "set application_name = 'x'", "reset all",
                "show timezone", "SET SESSION search_path='public'"):
        prepared = session.prepare(sql, [])
        assert prepared.param_oids == []
        session.execute(prepared, [])
        session.sync()


def test_prepared_query_whose_row_shape_changed_is_refused(session):
    run(session, "create table ps (a int)")
    prepared = session.prepare("select * from ps", [])
    assert [c.name for c in prepared.columns] == ["a"]
    run(session, "alter table ps add column b text")
    with pytest.raises(SQLError) as info:
        session.execute(prepared, [])
    assert info.value.sqlstate == "0A000"
    assert info.value.message == "cached plan must not change result type"
    session.sync()


def test_analyze_collects_statistics(session):
    run(session, "create table an (a int primary key, b int)")
    run(session, "insert into an select g, g % 10 from generate_series(1, 500) g")
    table = next(t for t in session.catalog().tables if t.name == "an")
    stats.STATS.pop(table.oid, None)
    assert run(session, "analyze an") == [("ANALYZE", None)]
    ts = stats.STATS[table.oid]  # by table OID: the statistics outlive TRUNCATE's new space
    assert ts.rows == 500
    assert ts.columns[1].ndistinct == 10
    fails(session, "analyze nosuch", "42P01")
    fails(session, "vacuum nosuch", "42P01")


@pytest.mark.parametrize(("name", "value", "shown"), [
    ("statement_timeout", "1000", "1s"), ("statement_timeout", "1500", "1500ms"),
    ("statement_timeout", "90s", "90s"), ("lock_timeout", "60000", "1min"),
    ("statement_timeout", "0", "0"), ("work_mem", "65536", "64MB"), ("work_mem", "1000kB", "1000kB"),
    ("datestyle", "german", "German, DMY"), ("datestyle", "sql", "SQL, MDY"),
])
def test_settings_print_as_postgresql_does(name, value, shown):
    assert _normalise(name, value) == shown


def test_read_only_parameters_are_55p02(session):
    fails(session, "set server_version = '1'", "55P02")
    assert rows(session, "show default_table_access_method") == [("heap",)]


def test_check_constraints_carry_their_columns(session):
    run(session, "create table cc (lo int, hi int, mid int, check (lo < hi))")
    run(session, "alter table cc add constraint mid_pos check (mid > 0)")
    got = rows(session, "select conname, conkey from pg_constraint "
                        "where conrelid = 'cc'::regclass order by conname")
    assert got == [("cc_check", [1, 2]), ("mid_pos", [3])]


def test_rename_column_rewrites_checks_and_views(session):
    run(session, "create table rc (a int check (a > 0))")
    run(session, "create view rv as select a from rc")
    run(session, "alter table rc rename column a to b")
    fails(session, "insert into rc values (0)", "23514")
    run(session, "insert into rc values (1)")
    assert rows(session, "select * from rv") == [(1,)]
    fails(session, "drop table rc", "2BP01")
    run(session, "drop table rc cascade")
    fails(session, "select * from rv", "42P01")


def test_read_only_transactions_name_the_command(session):
    run(session, "create table ro (a int)")
    run(session, "begin read only")
    err = fails(session, "insert into ro values (1)", "25006")
    assert err.message == "cannot execute INSERT in a read-only transaction"
    run(session, "rollback")
    assert run(session, "start transaction") == [("START TRANSACTION", None)]
    run(session, "rollback")


def test_listen_notify_delivers_at_commit(engine):
    a = engine.open_session("cumulo", "cumulo", {})
    b = engine.open_session("cumulo", "cumulo", {})
    assert run(a, "listen chan") == [("LISTEN", None)]
    run(b, "notify chan, 'hello'")
    assert a.take_notifications() == [(b.backend_pid, "chan", "hello")]
    assert a.take_notifications() == []
    run(b, "begin; notify chan, 'x'; notify chan, 'x'; notify other")
    assert a.take_notifications() == []  # NB: only at COMMIT, duplicates once
    run(b, "commit")
    assert a.take_notifications() == [(b.backend_pid, "chan", "x")]
    run(b, "begin; notify chan, 'lost'; rollback")
    run(a, "notify chan")  # a session hears itself
    assert a.take_notifications() == [(a.backend_pid, "chan", "")]
    run(a, "unlisten *")
    run(b, "notify chan, 'after'")
    assert a.take_notifications() == []
    a.close()
    b.close()


@pytest.mark.parametrize(("sql", "position"), [
    ("select 1; selec 2", 11),
    ("select 1 as a; select * from no_such_table", 30),
    ("  select 1;\n select * from no_such", 28),
    ("/* c */ select * from no_such", 23),
    ("select 1; /* c */ select * from no_such", 33),
])
def test_error_positions_count_from_the_start_of_the_message(session, sql, position):
    """Positions as PostgreSQL 15 reports them (checked against a real one)."""
    with pytest.raises(SQLError) as info:
        run(session, sql)
    assert info.value.position == position
