"""Differential tests of the columnar path: `SET cumulo.columnar = on` and `off` give the same
answers, and both give PostgreSQL 15's, over NULLs, NaN, +-Infinity, numeric scales, text
order, multi-column groups, top-N and an empty table. EXPLAIN ANALYZE proves which path ran:
when the vector form runs, the row subtree under `Columnar` runs zero times."""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.columnar_diff import assert_on_off_match_pg, connect_pair, vector_ran

SETUP = [
    "create table colx_t (id int primary key, g int, s text, x float8, d numeric(12,2), "
    "b bigint, dt date, ts timestamp)",
    "insert into colx_t select i, i % 7, 'k' || (i % 13), i * 0.25, (i % 100) / 3.0, "
    "i::bigint * 1000003, date '2020-01-01' + (i % 50), "
    "timestamp '2021-03-04 05:06:07' + (i % 17) * interval '1 hour' "
    "from generate_series(1, 5000) i",
    "update colx_t set x = null where id % 11 = 0",
    "update colx_t set s = null, d = null where id % 17 = 0",
    "update colx_t set x = 'NaN' where id % 101 = 0",
    "update colx_t set x = 'Infinity' where id = 7",
    "update colx_t set x = '-Infinity' where id = 8",
    "delete from colx_t where id % 23 = 0",
    "insert into colx_t values (6001, null, 'zz', -0.5, 0.01, null, null, null)",
    "create table colx_empty (id int primary key, g int, v float8)",
    # an enum orders by declaration, not by its labels' text: the row path must answer
    "drop type if exists colx_mood",
    "create type colx_mood as enum ('sad', 'ok', 'happy')",
    "create table colx_e (id int primary key, m colx_mood, g int)",
    "insert into colx_e select i, (array['sad', 'ok', 'happy'])[1 + i % 3]::colx_mood, i % 4 "
    "from generate_series(1, 300) i",
    "create table colx_c (id int primary key, c char(4), v varchar(6))",
    "insert into colx_c select i, (array['a', 'ab', 'b ', null])[1 + i % 4], 'v' || (i % 5) "
    "from generate_series(1, 200) i",
]

QUERIES = [
    "select count(*), sum(id), min(s), max(s), sum(d), avg(d) from colx_t",
    "select g, count(*), count(x), sum(d), min(d), max(d), avg(id) from colx_t group by g order by g",
    "select s, count(*), sum(b), min(dt), max(ts) from colx_t group by s order by s",
    "select g, s, count(*) from colx_t where id > 100 and s like 'k1%' group by g, s order by g, s",
    "select g, sum(x), count(x) from colx_t where x > 100 group by g order by g",
    "select count(*) from colx_t where x = 'NaN'",
    "select count(*) from colx_t where x > 'Infinity' or x < '-Infinity'",
    "select count(*), sum(d) from colx_t where d >= 10.5 and d < 20",
    "select count(*) from colx_t where s in ('k1', 'k2', null) or s is null",
    "select count(*) from colx_t where not (s = 'k3') and dt between '2020-01-10' and '2020-01-20'",
    "select count(*), sum(id) from colx_t where ts > timestamp '2021-03-04 10:00:00'",
    "select g, max(x), min(x) from colx_t where x < 1000 group by g order by g",
    "select dt, count(*) from colx_t group by dt order by dt limit 5",
    "select count(*), sum(g), avg(v) from colx_empty",
    "select g, count(*) from colx_empty group by g",
    "select id, s, d from colx_t where g = 3 order by d desc, id limit 7",
    "select id, x from colx_t order by x limit 6",
    "select id, x from colx_t order by x desc nulls last, id limit 6",
    "select id, s from colx_t where id > 10 order by s nulls first, id limit 4 offset 2",
    "select id, ts from colx_t order by ts desc, id limit 3",
    "select count(*) from colx_t where b * 2 > 100000000",
    "select g, count(*) from colx_e where m > 'sad' group by g order by g",
    "select id, m from colx_e order by m desc, id limit 4",
    "select m, count(*) from colx_e group by m order by m",
    "select c, count(*), min(v), max(c) from colx_c where v like 'v1%' or v = 'v2' "
    "group by c order by c",
    "select id, c from colx_c where c = 'ab' order by c, v, id limit 3",
    # aggregates over expressions: computed columns, numeric as exact scaled integers
    "select g, sum(d * (1 - d)), avg(d + 1), sum(id * 2), sum(x * 2) from colx_t "
    "group by g order by g",
    "select g + 1, sum(b - id), min(d * 100), max(-d) from colx_t group by g + 1 order by 1",
    "select sum(d * 0.5 + 1.25), count(d - 1) from colx_t where dt > '2020-01-05'",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("colx_t", "colx_empty", "colx_e", "colx_c"),
                            SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


def test_the_vector_form_runs(conns) -> None:
    cu, _ = conns
    cu.execute("set cumulo.columnar = on")
    assert vector_ran(cu, "select g, count(*), sum(d) from colx_t group by g")
    assert vector_ran(cu, "select id from colx_t where g = 1 order by x limit 3")
    for sql in QUERIES[-3:]:  # aggregates over expressions (the last three)
        assert vector_ran(cu, sql), sql
    cu.execute("set cumulo.columnar = off")
    assert not vector_ran(cu, "select g, count(*), sum(d) from colx_t group by g")
    cu.execute("reset cumulo.columnar")
    assert cu.execute("show cumulo.columnar").fetchone()[0] == "auto"
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        cu.execute("set cumulo.columnar = sometimes")


def test_fresh_commits_and_own_writes(cumulo_server) -> None:
    """A commit is visible to the next columnar scan of another session; a transaction
    with its own uncommitted writes on the table reads them (the row path)."""
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as a, \
            psycopg.connect(cumulo_server.dsn(), autocommit=True) as b:
        a.execute("drop table if exists colx_f")
        a.execute("create table colx_f (id int primary key, g int, v int)")
        a.execute("insert into colx_f select i, i % 3, i from generate_series(1, 3000) i")
        b.execute("set cumulo.columnar = on")
        q = "select g, count(*), sum(v) from colx_f group by g order by g"
        assert b.execute(q).fetchall() == [(0, 1000, 1501500), (1, 1000, 1499500),
                                           (2, 1000, 1500500)]
        for i in range(5):
            a.execute("update colx_f set v = v + 1 where id = %s", (3 * i + 3,))
            a.execute("insert into colx_f values (%s, 0, 1)", (10000 + i,))
            got = b.execute(q).fetchall()
            assert got[0] == (0, 1001 + i, 1501500 + 2 * (i + 1)), got
        a.execute("delete from colx_f where g = 2")
        assert [r[0] for r in b.execute(q).fetchall()] == [0, 1]
        b.execute("begin")
        snap = b.execute(q).fetchall()
        a.execute("update colx_f set v = 0 where g = 1")  # after b's snapshot (repeatable?)
        b.execute("insert into colx_f values (50000, 7, 7)")  # own write: the row path
        own = b.execute(q).fetchall()
        assert own[-1] == (7, 1, 7)
        b.execute("rollback")
        assert snap[0][0] == 0
        assert b.execute(q).fetchall()[1] == (1, 1000, 0)
        a.execute("drop table colx_f")
