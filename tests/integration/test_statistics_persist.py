"""ANALYZE's statistics are catalog data: they survive a restart (and a crash after commit),
roll back with their transaction, go with DROP TABLE, and show in pg_stats, pg_class and
pg_stat_user_tables the way PostgreSQL 15 shows them. One server of its own, restarted."""

from __future__ import annotations

import signal

import psycopg
import pytest

from tests import pg15 as pg15_mod

SETUP = [
    "CREATE TABLE s (id int PRIMARY KEY, g text, n numeric, d date)",
    "INSERT INTO s SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'g' || (i % 5) END, "
    "i % 7, date '2024-01-01' + i FROM generate_series(1, 1000) i",
    "CREATE TABLE other (k int PRIMARY KEY)",
    "INSERT INTO other SELECT generate_series(1, 10)",
]

STATS_SQL = ("SELECT attname, null_frac, avg_width, n_distinct, most_common_vals::text, "
             "histogram_bounds IS NOT NULL FROM pg_stats WHERE tablename = 's' ORDER BY attname")
CLASS_SQL = "SELECT relname, reltuples FROM pg_class WHERE relname IN ('s', 'other') ORDER BY 1"
USER_SQL = ("SELECT relname, n_live_tup, last_analyze IS NOT NULL, analyze_count FROM "
            "pg_stat_user_tables WHERE relname IN ('s', 'other') ORDER BY 1")


def _q(dsn: str, sql: str) -> list[tuple]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


def _run(dsn: str, *stmts: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for s in stmts:
            conn.execute(s)


def test_statistics_survive_restart_and_go_with_the_table(fresh_server):
    dsn = fresh_server.dsn()
    _run(dsn, *SETUP)
    # never analyzed: as PostgreSQL, reltuples -1 and no pg_stats rows
    assert _q(dsn, CLASS_SQL) == [("other", -1.0), ("s", -1.0)]
    assert _q(dsn, STATS_SQL) == []
    assert _q(dsn, USER_SQL) == [("other", 0, False, 0), ("s", 0, False, 0)]
    # ANALYZE in a transaction that rolls back leaves nothing
    with psycopg.connect(dsn) as conn:
        conn.execute("ANALYZE s")
        conn.rollback()
    assert _q(dsn, CLASS_SQL) == [("other", -1.0), ("s", -1.0)]
    _run(dsn, "ANALYZE")
    before = _q(dsn, STATS_SQL)
    assert [r[0] for r in before] == ["d", "g", "id", "n"]
    by = {r[0]: r for r in before}
    assert by["id"][3] == -1.0  # unique: a negative fraction of the rows, as in PostgreSQL
    assert by["n"][3] == 7.0 and by["g"][3] == 5.0
    assert abs(by["g"][1] - 1 / 3) < 0.01 and by["id"][1] == 0.0
    assert _q(dsn, CLASS_SQL) == [("other", 10.0), ("s", 1000.0)]
    assert _q(dsn, USER_SQL) == [("other", 10, True, 1), ("s", 1000, True, 1)]
    plan = "\n".join(r[0] for r in _q(dsn, "EXPLAIN SELECT * FROM s WHERE n = 3"))
    assert "rows=143" in plan, plan  # 1000 rows / 7 distinct values

    # a crash after the commit loses nothing
    fresh_server.stop(signal.SIGKILL)
    fresh_server.start()
    assert _q(dsn, STATS_SQL) == before
    assert _q(dsn, CLASS_SQL) == [("other", 10.0), ("s", 1000.0)]
    assert _q(dsn, USER_SQL)[1][:3] == ("s", 1000, True)
    plan = "\n".join(r[0] for r in _q(dsn, "EXPLAIN SELECT * FROM s WHERE n = 3"))
    assert "rows=143" in plan, plan  # the optimizer has them back too

    # DROP TABLE drops them; a new table of the same name starts unanalyzed
    _run(dsn, "DROP TABLE s", "CREATE TABLE s (id int PRIMARY KEY, g text, n numeric, d date)")
    assert _q(dsn, STATS_SQL) == []
    assert _q(dsn, CLASS_SQL) == [("other", 10.0), ("s", -1.0)]
    fresh_server.stop()
    fresh_server.start()
    assert _q(dsn, STATS_SQL) == []
    assert _q(dsn, CLASS_SQL) == [("other", 10.0), ("s", -1.0)]


def test_pg_stats_matches_pg15_where_exact(fresh_server):
    """On a table small enough to be sampled whole, the exact figures agree with PG 15."""
    if not pg15_mod.available():
        pytest.skip("PostgreSQL 15 binaries not installed")
    pg = pg15_mod.PG15().start()
    try:
        got = []
        for dsn in (pg.dsn(), fresh_server.dsn()):
            _run(dsn, *SETUP, "ANALYZE s")
            got.append(_q(dsn, "SELECT attname, null_frac, n_distinct, "
                                "most_common_vals::text IS NOT NULL FROM pg_stats "
                                "WHERE tablename = 's' AND attname IN ('id', 'g', 'n') "
                                "ORDER BY attname"))
            got.append(_q(dsn, CLASS_SQL))
        pg_stats, pg_class, cu_stats, cu_class = got
        assert cu_class == pg_class
        for p, c in zip(pg_stats, cu_stats, strict=True):
            assert c[0] == p[0] and c[2] == p[2] and c[3] == p[3]
            assert abs(c[1] - p[1]) < 0.001
    finally:
        pg.stop()
