"""The catalog, the OID counter and sequences survive a restart."""

from __future__ import annotations

from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded

from .helpers import fails, rows, run


def open_engine(path):
    return SQLEngine(open_embedded(str(path), gc_interval=None))


def test_restart_keeps_catalog_data_and_sequences(tmp_path):
    eng = open_engine(tmp_path)
    s = eng.open_session("cumulo", "cumulo", {})
    run(s, "create table t (id serial primary key, v text)")
    run(s, "create index tv on t (v)")
    run(s, "insert into t (v) values ('a'), ('b')")
    run(s, "create user u1 password 'pw'")
    run(s, "create database d2")
    run(s, "begin; create table gone (a int); rollback")
    oid_before = max(t.oid for t in s.catalog().tables)
    s.close()
    eng.close()

    eng = open_engine(tmp_path)
    s = eng.open_session("cumulo", "cumulo", {})
    assert rows(s, "select id, v from t order by id") == [(1, "a"), (2, "b")]
    fails(s, "select * from gone", "42P01")
    assert eng.role("u1") is not None
    eng.open_session("cumulo", "d2", {}).close()
    run(s, "insert into t (v) values ('c')")
    (new_id,), = rows(s, "select id from t where v = 'c'")
    assert new_id > 2  # never reuses a value handed out before the restart
    run(s, "create table t2 (a int)")
    assert min(t.oid for t in s.catalog().tables if t.name == "t2") > oid_before
    assert rows(s, "select id from t where v = 'b'") == [(2,)]  # the index survived too
    s.close()
    eng.close()
