"""EXPLAIN, EXPLAIN ANALYZE and ANALYZE statistics over the wire (psycopg, a real server)."""

from __future__ import annotations

import re

import psycopg
import pytest


@pytest.fixture(scope="module")
def conn(cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("drop table if exists xa, xb")
        c.execute("create table xa (k int primary key, v int)")
        c.execute("insert into xa select g, g % 50 from generate_series(1, 2000) g")
        c.execute("create table xb (id int primary key, note text)")
        c.execute("insert into xb select g, 'n' || g from generate_series(1, 2000) g")
        yield c


def lines(conn, sql: str) -> list[str]:
    return [r[0] for r in conn.execute(sql).fetchall()]


def test_explain_prints_the_tree_with_estimates(conn):
    out = lines(conn, "explain select v, count(*) from xa where k > 100 group by v")
    assert out[0].startswith("Project") and "(rows=" in out[0]
    assert any(ln.startswith("  ") for ln in out)  # children are indented
    assert any("Scan xa" in ln for ln in out)


def test_explain_analyze_reports_actual_rows_and_time(conn):
    out = lines(conn, "explain analyze select k from xa where v = 3")
    m = re.search(r"actual rows=(\d+) loops=(\d+) time=([\d.]+) ms", out[0])
    assert m, out
    assert int(m.group(1)) == 40 and int(m.group(2)) == 1


def test_analyze_statistics_feed_the_estimates(conn):
    sql = "explain select * from xa where v = 3"
    before = lines(conn, sql)
    conn.execute("analyze xa")
    after = lines(conn, sql)
    assert before != after
    assert "(rows=40)" in after[0]  # 2000 rows, 50 distinct v


def test_analyze_statistics_choose_between_bind_and_hash_join(conn):
    conn.execute("analyze xa, xb")
    selective = "select note from xa join xb on id = k where v = 1"  # 40 of 2000 rows
    broad = "select note from xa join xb on id = k where v < 45"  # 1800 of 2000 rows
    assert any("algo=bind" in ln for ln in lines(conn, "explain " + selective))
    assert not any("algo=bind" in ln for ln in lines(conn, "explain " + broad))
    got = sorted(conn.execute(selective).fetchall())
    assert got == sorted((f"n{k}",) for k in range(1, 2001) if k % 50 == 1)
