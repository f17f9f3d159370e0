"""Sessions: transaction states, savepoints, settings, ParameterStatus and utility statements."""

from __future__ import annotations

import pytest

from cumulo.server.errors import InvalidCatalogName, SQLError
from cumulo.server.sql.settings import system_timezone
from cumulo.server.txn.api import RetryStatement

from .helpers import fails, rows, run


def test_parameter_status_is_pg15(session):
    ps = session.parameter_status()
    assert len(ps) == 13
    assert ps["server_version"].startswith("15.")
    assert ps["client_encoding"] == "UTF8" and ps["DateStyle"] == "ISO, MDY"
    assert ps["integer_datetimes"] == "on" and ps["standard_conforming_strings"] == "on"
    assert ps["session_authorization"] == "cumulo" and ps["is_superuser"] == "on"


def test_empty_query(session):
    res = list(session.simple_query("  "))
    assert len(res) == 1 and res[0].empty


def test_status_transitions(session):
    assert session.transaction_status == "I"
    run(session, "begin")
    assert session.transaction_status == "T"
    fails(session, "select * from nope", "42P01")
    assert session.transaction_status == "E"
    err = fails(session, "select 1", "25P02")
    assert err.message == ("current transaction is aborted, commands ignored until end of "
                           "transaction block")
    assert run(session, "commit") == [("ROLLBACK", None)]
    assert session.transaction_status == "I"


def test_error_in_implicit_txn_rolls_back_whole_message(session):
    run(session, "create table t (a int)")
    fails(session, "insert into t values (1); select * from nope; insert into t values (2)",
          "42P01")
    assert session.transaction_status == "I"
    assert rows(session, "select count(*) from t") == [(0,)]


def test_multi_statement_message_with_commit_in_middle(session):
    run(session, "create table t (a int)")
    out = run(session, "begin; insert into t values (1); commit; insert into t values (2)")
    assert [t for t, _ in out] == ["BEGIN", "INSERT 0 1", "COMMIT", "INSERT 0 1"]
    assert rows(session, "select count(*) from t") == [(2,)]


def test_commit_and_rollback_outside_block_warn(session):
    assert run(session, "commit") == [("COMMIT", None)]
    notes = session.take_notices()
    assert [(n.severity, n.sqlstate, n.message) for n in notes] == [
        ("WARNING", "25P01", "there is no transaction in progress")]
    run(session, "rollback")
    assert session.take_notices()[0].sqlstate == "25P01"
    run(session, "begin; begin")
    assert session.take_notices()[0].message == "there is already a transaction in progress"
    run(session, "rollback")


def test_savepoints(session):
    run(session, "create table t (a int)")
    run(session, "begin; insert into t values (1); savepoint s1; insert into t values (2)")
    fails(session, "insert into t values ('x')", "22P02")
    assert session.transaction_status == "E"
    assert run(session, "rollback to savepoint s1") == [("ROLLBACK", None)]
    assert session.transaction_status == "T"
    run(session, "savepoint s2; insert into t values (3); release s2; commit")
    assert rows(session, "select a from t order by a") == [(1,), (3,)]


def test_savepoint_errors(session):
    fails(session, "savepoint a", "25P01")
    run(session, "begin")
    err = fails(session, "rollback to nope", "3B001")
    assert err.message == 'savepoint "nope" does not exist'
    run(session, "rollback")


def test_isolation_levels(session):
    assert rows(session, "show transaction isolation level") == [("read committed",)]
    out = run(session, "begin isolation level serializable; show transaction_isolation; commit")
    assert out[1][1] == [("serializable",)]
    run(session, "begin; set transaction isolation level repeatable read")
    assert rows(session, "show transaction isolation level") == [("repeatable read",)]
    run(session, "select 1")
    fails(session, "set transaction isolation level serializable", "25001")
    run(session, "rollback")
    run(session, "set session characteristics as transaction isolation level serializable")
    assert rows(session, "show default_transaction_isolation") == [("serializable",)]
    run(session, "begin")
    assert session.txn is None or session.txn.isolation == "serializable"
    run(session, "select 1")
    assert session.txn.isolation == "serializable"
    run(session, "commit")


def test_isolation_from_startup_options(engine):
    s = engine.open_session("cumulo", "cumulo", {
        "options": "-c default_transaction_isolation=repeatable\\ read", "application_name": "x"})
    assert rows(s, "show transaction isolation level") == [("repeatable read",)]
    assert s.parameter_status()["application_name"] == "x"
    s.close()


def test_read_only_transaction(session):
    run(session, "create table t (a int)")
    run(session, "begin read only")
    fails(session, "insert into t values (1)", "25006")
    run(session, "rollback")


def test_set_show_reset(session):
    assert run(session, "set search_path to public, x") == [("SET", None)]
    assert rows(session, "show search_path") == [("public, x",)]
    run(session, "set datestyle = 'ISO, DMY'")
    assert session.take_changed_parameters() == {"DateStyle": "ISO, DMY"}
    assert session.take_changed_parameters() == {}
    run(session, "reset datestyle")
    assert session.take_changed_parameters() == {"DateStyle": "ISO, MDY"}
    fails(session, "show nope", "42704")
    fails(session, "set nope = 1", "42704")
    run(session, "set my.custom = 'v'")
    assert rows(session, "show my.custom") == [("v",)]
    run(session, "set application_name = 'app'; reset all")
    assert rows(session, "show application_name") == [("",)]
    names = [r[0] for r in rows(session, "show all")]
    assert "TimeZone" in names and "server_version" in names


def test_set_local_reverts_at_end(session):
    run(session, "begin; set local statement_timeout = '5s'")
    assert rows(session, "show statement_timeout") == [("5s",)]
    run(session, "commit")
    assert rows(session, "show statement_timeout") == [("0",)]


def test_utility_tags(session, engine):
    run(session, "create table t (a int)")
    out = run(session, "listen x; notify x; unlisten *; vacuum; analyze t; checkpoint; "
              "discard all; close all")
    assert [t for t, _ in out] == ["LISTEN", "NOTIFY", "UNLISTEN", "VACUUM", "ANALYZE",
                                   "CHECKPOINT", "DISCARD ALL", "CLOSE CURSOR ALL"]  # as PG 15
    run(session, "begin")
    err = fails(session, "vacuum", "25001")
    assert err.message == "VACUUM cannot run inside a transaction block"
    run(session, "rollback")


def test_sql_prepare_execute(session):
    run(session, "create table t (a int, b text)")
    run(session, "prepare ins (int, text) as insert into t values ($1, $2)")
    assert run(session, "execute ins(1, 'x')") == [("INSERT 0 1", None)]
    run(session, "prepare q as select b from t where a = $1")
    assert rows(session, "execute q(1)") == [("x",)]
    fails(session, "prepare q as select 1", "42P05")
    run(session, "deallocate q")
    fails(session, "execute q(1)", "26000")
    assert run(session, "deallocate all") == [("DEALLOCATE ALL", None)]


def test_explain(session):
    run(session, "create table t (a int primary key)")
    out = run(session, "explain select * from t where a = 1")
    assert out[0][0] == "EXPLAIN" and out[0][1] and all(isinstance(r[0], str) for r in out[0][1])


def test_extended_protocol_param_inference(session):
    run(session, "create table acc (aid int primary key, abalance int)")
    run(session, "insert into acc values (1, 10), (2, 20)")
    p = session.prepare("UPDATE acc SET abalance = abalance + $1 WHERE aid = $2", [0, 0])
    assert p.param_oids == [23, 23] and p.columns is None
    assert session.execute(p, [5, 1]).tag == "UPDATE 1"
    session.sync()
    q = session.prepare("select abalance from acc where aid = $1", [0])
    assert [c.name for c in q.columns] == ["abalance"] and q.param_oids == [23]
    res = session.execute(q, [1])
    assert res.fetch() == [(15,)] and res.tag == "SELECT 1"
    session.sync()
    ins = session.prepare("insert into acc values ($1, $2)", [0, 0])
    assert ins.param_oids == [23, 23]


def test_extended_protocol_implicit_txn_until_sync(session):
    run(session, "create table t (a int)")
    p = session.prepare("insert into t values ($1)", [0])
    session.execute(p, [1])
    session.execute(p, [2])
    assert session.txn is not None
    session.sync()
    assert session.txn is None
    assert rows(session, "select count(*) from t") == [(2,)]


def test_prepared_statement_replanned_after_ddl(session):
    # NB: a change of the row shape is 0A000 instead, as in PostgreSQL
    # (test_statement_fixes.py::test_prepared_query_whose_row_shape_changed_is_refused)
    run(session, "create table t (a int)")
    p = session.prepare("select * from t where a = 1", [])
    run(session, "insert into t values (1)")
    run(session, "create index t_a on t (a)")
    res = session.execute(p, [])
    assert len(res.columns) == 1
    assert res.fetch() == [(1,)]


def test_read_committed_retries_statement(session, monkeypatch):
    run(session, "create table t (a int)")
    from cumulo.server.sql import statement

    stmt = session.lookup("insert into t values (1)", ())
    calls = []
    real = stmt.run

    def flaky(s, p):
        calls.append(1)
        res = real(s, p)
        if len(calls) == 1:
            raise RetryStatement("concurrent update")
        return res

    stmt.run = flaky
    assert statement  # the module under test
    assert run(session, "insert into t values (1)") == [("INSERT 0 1", None)]
    assert len(calls) == 2
    assert rows(session, "select count(*) from t") == [(1,)]  # the first attempt was undone


def test_cancel(session):
    run(session, "create table t (a int)")
    run(session, "insert into t select * from generate_series(1, 3000)")
    gen = session.simple_query("select * from t")
    res = next(gen)
    session.cancel()
    with pytest.raises(Exception) as info:
        res.fetch()
    assert getattr(info.value, "sqlstate", None) == "57014"


def test_open_session_missing_database(engine):
    with pytest.raises(InvalidCatalogName):
        engine.open_session("cumulo", "nope", {})


def test_engine_roles_and_load(engine, session):
    assert engine.role("cumulo").superuser
    assert engine.role("postgres") is not None
    assert engine.role("nobody") is None
    assert engine.load() == 1


def test_explain_analyze_and_dml(session):
    run(session, "create table t (a int primary key, b int)")
    run(session, "insert into t values (1, 1)")
    out = rows(session, "explain analyze select * from t")
    assert out and isinstance(out[0][0], str)
    lines = [r[0] for r in rows(session, "explain update t set b = 2 where a = 1")]
    assert lines[0].startswith("Update on t") and lines[1].startswith("  ->  ")
    assert rows(session, "select b from t") == [(1,)]  # plain EXPLAIN does not run it
    lines = [r[0] for r in rows(session, "explain analyze update t set b = 2 where a = 1")]
    assert "(actual time=" in lines[0] and "rows=0 loops=1)" in lines[0]  # PG's ModifyTable
    assert lines[-1].startswith("Execution Time: ")
    assert rows(session, "select b from t") == [(2,)]


def test_literal_normalisation_shares_plans(session):
    run(session, "create table t (id int primary key, v text, d date, n numeric)")
    for i in range(5):
        run(session, f"insert into t values ({i}, 'v{i}', '2024-01-0{i + 1}', {i}.5)")
    keys = [k for k in session.cache._map if len(k) == 3]
    assert len(keys) == 1  # one plan for the five INSERTs
    assert rows(session, "select v, d, n from t where id = 3") == [
        ("v3", __import__("datetime").date(2024, 1, 4), __import__("decimal").Decimal("3.5"))]
    assert rows(session, "select id from t where v = 'v2' and n > 1.0") == [(2,)]
    assert rows(session, "select id from t order by 1 desc limit 2") == [(4,), (3,)]
    assert rows(session, "select 'a' || 'b'") == [("ab",)]
    fails(session, "select * from t where id = 'x'", "22P02")


def test_set_config_local(session):
    f = session.functions
    assert f.set_setting("application_name", "x", False) == "x"
    assert session.get_setting("application_name") == "x"
    run(session, "begin")
    f.set_setting("application_name", "y", True)
    assert rows(session, "show application_name") == [("y",)]
    run(session, "commit")
    assert rows(session, "show application_name") == [("x",)]


@pytest.mark.timeout(60)
def test_concurrent_create_same_name_conflicts(engine):
    import threading

    a = engine.open_session("cumulo", "cumulo", {})
    b = engine.open_session("cumulo", "cumulo", {})
    run(a, "begin; create table t (x int)")
    errors = []
    started = threading.Event()

    def other():
        started.set()
        try:
            run(b, "create table t (y int)")  # waits for a, then sees its commit
        except Exception as e:  # noqa: BLE001 - recorded for the assertion
            errors.append(e)

    # NB: a daemon thread, and b's statement is cancelled if it outlives the test's
    # patience, so a lost wake-up fails this test instead of hanging the whole run.
    th = threading.Thread(target=other, daemon=True)
    th.start()
    started.wait(10)
    th.join(0.3)
    run(a, "commit")
    th.join(20)
    if th.is_alive():
        b.cancel()
        b.txn is not None and hasattr(b.txn, "cancel") and b.txn.cancel()
        th.join(5)
    assert not th.is_alive(), "CREATE TABLE in b never returned after a committed"
    assert errors and errors[0].sqlstate in ("40001", "42P07")
    assert rows(a, "select count(*) from pg_class where relname = 't'") == [(1,)]
    a.close()
    b.close()


def test_read_committed_concurrent_updates_both_apply(engine):
    import threading

    a = engine.open_session("cumulo", "cumulo", {})
    b = engine.open_session("cumulo", "cumulo", {})
    run(a, "create table acc (id int primary key, bal int)")
    run(a, "insert into acc values (1, 0)")
    run(a, "begin; update acc set bal = bal + 1 where id = 1")
    done = []
    th = threading.Thread(target=lambda: done.append(run(b, "update acc set bal = bal + 10 "
                                                          "where id = 1")))
    th.start()
    th.join(0.3)
    assert not done  # b waits for a's row
    run(a, "commit")
    th.join(10)
    assert done == [[("UPDATE 1", None)]]
    assert rows(a, "select bal from acc") == [(11,)]  # b re-ran on the new snapshot
    run(a, "begin isolation level repeatable read; select bal from acc")
    run(b, "update acc set bal = 0 where id = 1")
    fails(a, "update acc set bal = 5 where id = 1", "40001")
    run(a, "rollback")
    a.close()
    b.close()


def test_show_column_names(session):
    res = next(iter(session.simple_query("show timezone")))
    assert [c.name for c in res.columns] == ["TimeZone"]
    assert res.fetch() == [(system_timezone(),)]  # the machine's zone, as initdb picks it
    res = next(iter(session.simple_query("show transaction isolation level")))
    assert [c.name for c in res.columns] == ["transaction_isolation"]
    res.fetch()


def test_read_committed_rechecks_only_originally_matched_rows(engine):
    """Hermitage PMP-write: a blocked DELETE re-checks its rows, it does not rescan."""
    import threading

    a = engine.open_session("cumulo", "cumulo", {})
    b = engine.open_session("cumulo", "cumulo", {})
    run(a, "create table test (id int primary key, value int)")
    run(a, "insert into test values (1, 10), (2, 20)")
    run(a, "begin; update test set value = value + 10")
    done = []
    th = threading.Thread(target=lambda: done.append(run(b, "delete from test where value = 20")))
    th.start()
    th.join(0.3)
    run(a, "commit")
    th.join(10)
    assert done == [[("DELETE 0", None)]]
    assert rows(a, "select * from test order by id") == [(1, 20), (2, 30)]
    a.close()
    b.close()


def test_compatibility_noops(session):
    run(session, "create table t (a int)")
    out = run(session, "grant select on t to public; revoke all on t from public; "
              "set constraints all deferred")
    assert [t for t, _ in out] == ["GRANT", "REVOKE", "SET CONSTRAINTS"]
    fails(session, "lock table t", "25P01")
    # weak modes conflict with nothing Cumulo can hold; the others: 0A000
    assert run(session, "begin; lock table t in row exclusive mode; commit")[1][0] == "LOCK TABLE"
    run(session, "begin")
    fails(session, "lock table t in exclusive mode", "0A000")
    run(session, "rollback")
    run(session, "begin")
    fails(session, "lock table nosuch in access share mode", "42P01")
    run(session, "rollback")
    # REINDEX and CLUSTER: PostgreSQL's outcome, nothing to rebuild (sql.maintenance)
    assert run(session, "reindex table t")[0][0] == "REINDEX"
    fails(session, "cluster t", "42704")


def test_prepared_in_ddl_transaction_replans_after_truncate(session):
    run(session, "create table t (a int)")
    run(session, "insert into t values (1)")
    run(session, "begin; truncate t")
    p = session.prepare("select count(*) from t", [])
    res = session.execute(p, [])
    assert res.fetch() == [(0,)]
    run(session, "rollback")
    res = session.execute(p, [])
    assert res.fetch() == [(1,)]  # planned again against the rolled-back catalog
    session.sync()
    run(session, "prepare q as select count(*) from t")
    run(session, "truncate t")
    assert rows(session, "execute q") == [(0,)]


def test_plan_cache_follows_search_path(session):
    run(session, "create schema s; create table t (a int); create table s.t (a int)")
    run(session, "insert into t values (1); insert into s.t values (2)")
    assert rows(session, "select a from t") == [(1,)]
    run(session, "set search_path = s")
    assert rows(session, "select a from t") == [(2,)]
    p = session.prepare("select a from t where a > $1", [0])
    run(session, "reset search_path")
    assert rows(session, "select a from t") == [(1,)]
    res = session.execute(p, [0])
    assert res.fetch() == [(1,)]  # re-parsed under the new search_path, as PostgreSQL >= 9.3
    session.sync()


def test_statement_timeout(session):
    run(session, "create table t (a int)")
    run(session, "insert into t select g from generate_series(1, 20000) g")
    run(session, "set statement_timeout = '20ms'")
    # NB: 400M pairs, seconds on any path: a fast hash join could finish between two
    # cancel checks before a 1 ms timer thread got the interpreter on a loaded machine
    err = fails(session, "select count(*) from t a, t b where a.a + b.a = 7", "57014")
    assert err.message == "canceling statement due to statement timeout"
    run(session, "set statement_timeout = 0")
    assert rows(session, "select count(*) from t where a < 3") == [(2,)]


def test_a_dropped_query_generator_leaves_later_statements_alone(session):
    """A caller that fails midway (a COPY whose data breaks a key) drops its simple_query
    generator unfinished; the garbage collector closes it later, perhaps during another
    statement. Its cleanup used to abort whatever transaction the session had then: a
    later COPY reported `COPY 2` and kept nothing."""
    run(session, "create table g (id int primary key)")
    failed = session.simple_query("copy g from stdin")
    with pytest.raises(SQLError) as info:
        res = next(failed)
        res.copy_in.feed(b"1\n1\n")
        res.copy_in.finish()
    assert info.value.sqlstate == "23505"
    gen = session.simple_query("copy g from stdin")
    res = next(gen)
    res.copy_in.feed(b"2\n3\n")
    failed.close()  # what the collector does, here while the second COPY is open
    assert res.copy_in.finish() == "COPY 2"
    for _ in gen:
        pass
    assert session.txn is None and not session.running
    assert rows(session, "select id from g order by id") == [(2,), (3,)]
