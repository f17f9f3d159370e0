"""Automatic ANALYZE over a real server: a table loaded by COPY (and changed by DML) gets
statistics without anyone running ANALYZE, as PostgreSQL's autovacuum gives them, so the
optimizer's estimate follows the data (the issue: 586,166 rows estimated at 333).

The launcher naps between checks, so the test polls (up to a generous deadline, never a
timing assertion) until the statistics appear in `pg_stats` and in EXPLAIN's estimate.
"""

from __future__ import annotations

import re
import time

import psycopg

DEADLINE = 60.0


def _estimate(conn, sql: str) -> int:
    first = conn.execute("EXPLAIN " + sql).fetchone()[0]
    m = re.search(r" rows=(\d+) ", first)
    assert m, first
    return int(m.group(1))


def _wait(fn) -> bool:
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        if fn():
            return True
        time.sleep(0.2)
    return False


def test_copy_then_statistics_without_analyze(cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS auto_a")
        conn.execute("CREATE TABLE auto_a (id int PRIMARY KEY, g int, s text)")
        with conn.cursor().copy("COPY auto_a FROM STDIN") as cp:
            for i in range(20000):
                cp.write_row((i, i % 8, f"s{i}"))
        sql = "SELECT * FROM auto_a WHERE g = 3"
        assert _wait(lambda: 2000 <= _estimate(conn, sql) <= 3000), _estimate(conn, sql)
        rows = conn.execute("SELECT n_distinct FROM pg_stats WHERE tablename = 'auto_a' "
                            "AND attname = 'g'").fetchall()
        assert rows and float(rows[0][0]) == 8, rows

        # a change past 50 + 10 % of the rows makes the table due again: 3 of 8 values go
        conn.execute("DELETE FROM auto_a WHERE g IN (0, 1, 2)")
        assert _wait(lambda: conn.execute(
            "SELECT n_distinct FROM pg_stats WHERE tablename = 'auto_a' AND attname = 'g'"
        ).fetchone()[0] == 5)


def test_small_changes_stay_below_the_threshold(cumulo_server):
    """Fewer than 50 changed rows never trigger an ANALYZE (PostgreSQL's base threshold)."""
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS auto_b")
        conn.execute("CREATE TABLE auto_b (id int PRIMARY KEY)")
        conn.execute("INSERT INTO auto_b SELECT generate_series(1, 20)")
        conn.execute("DROP TABLE IF EXISTS auto_c")
        conn.execute("CREATE TABLE auto_c (id int PRIMARY KEY)")
        conn.execute("INSERT INTO auto_c SELECT generate_series(1, 500)")
        # auto_c (500 rows) is analyzed; by then auto_b, checked in the same naps, was not
        assert _wait(lambda: conn.execute(
            "SELECT count(*) FROM pg_stats WHERE tablename = 'auto_c'").fetchone()[0] > 0)
        assert conn.execute(
            "SELECT count(*) FROM pg_stats WHERE tablename = 'auto_b'").fetchone()[0] == 0
