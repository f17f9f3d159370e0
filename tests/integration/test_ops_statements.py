"""Statements that used to be accepted and do nothing: each now works as in PostgreSQL 15
(compared with it) or fails with 0A000 feature_not_supported. Stubs that gave wrong
answers (pg_database_size) are right or 0A000; txid_current() has its own differential test
(test_sql_front_pg15)."""

from __future__ import annotations

import psycopg
import pytest


def outcome(dsn: str, statements: list[str]) -> list[str]:
    """Runs statements in order on one connection (autocommit); each one's tag or SQLSTATE."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in statements:
            try:
                cur = conn.execute(sql)
                out.append(cur.statusmessage or "")
            except psycopg.Error as e:
                out.append(e.sqlstate or "?")
    return out


SETUP = ["drop table if exists ops_lock", "create table ops_lock (id int primary key, v int)"]


@pytest.mark.parametrize("statements", [
    # outside a block: 25P01 before anything else
    ["lock table ops_lock in access share mode"],
    ["begin", "lock table ops_lock in access share mode", "commit"],
    ["begin", "lock ops_lock in row share mode", "commit"],
    ["begin", "lock table only ops_lock in row exclusive mode nowait", "commit"],
    ["begin", "lock table ops_lock, ops_lock in row exclusive mode", "commit"],
    ["begin", "lock table ops_nosuch in access share mode", "rollback"],
    ["begin", "lock table public.ops_lock in access share mode",
     "insert into ops_lock values (1, 1)", "commit"],
])
def test_lock_table_weak_modes_as_postgres(cumulo_server, pg15, statements):
    ours = outcome(cumulo_server.dsn(), SETUP + statements)
    theirs = outcome(pg15.dsn(), SETUP + statements)
    assert ours == theirs


@pytest.mark.parametrize("sql", [
    "lock table ops_lock",  # ACCESS EXCLUSIVE, the default
    "lock table ops_lock in share mode",
    "lock table ops_lock in exclusive mode",
    "lock table ops_lock in share row exclusive mode",
    "lock table ops_lock in share update exclusive mode",
])
def test_lock_table_strong_modes_are_not_supported(cumulo_server, sql):
    assert outcome(cumulo_server.dsn(), SETUP + ["begin", sql, "rollback"])[-2] == "0A000"


@pytest.mark.parametrize("sql", [
    "reindex table ops_lock", "reindex index ops_lock_pkey", "reindex database cumulo",
    "cluster ops_lock using ops_lock_pkey", "cluster",
])
def test_maintenance_statements_as_postgres(cumulo_server, pg15, sql):
    # REINDEX and CLUSTER were 0A000; they now answer as PG15 (sql.maintenance: checks,
    # nothing to rebuild), and a maintenance script's outcome is PG's
    assert outcome(cumulo_server.dsn(), SETUP + [sql]) == outcome(pg15.dsn(), SETUP + [sql])


def test_pg_database_size(cumulo_server, pg15):
    for dsn in (cumulo_server.dsn(), pg15.dsn()):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("drop table if exists ops_size")
            conn.execute("create table ops_size (id int primary key, pad text)")
            conn.execute("insert into ops_size select g, repeat('x', 200) "
                         "from generate_series(1, 5000) g")
            conn.execute("analyze ops_size")
            size, table = conn.execute(
                "select pg_database_size(current_database()), "
                "pg_total_relation_size('ops_size')").fetchone()
            # the database holds at least this table's megabyte; never 0
            assert size >= table > 1_000_000, (dsn, size, table)
            oid_size = conn.execute("select pg_database_size(oid) from pg_database "
                                    "where datname = current_database()").fetchone()[0]
            assert oid_size >= table
            with pytest.raises(psycopg.errors.InvalidCatalogName):
                conn.execute("select pg_database_size('no_such_db')")
            assert conn.execute("select pg_database_size(0::oid)").fetchone() == (None,)
            conn.execute("drop table ops_size")
