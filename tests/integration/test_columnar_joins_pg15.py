"""Differential tests of vectorized joins: aggregates over inner, LEFT, semi and anti hash joins
give the same answers with `cumulo.columnar` on and off, and both give PostgreSQL 15's.

The data are made to catch the join rules: NULL keys (never match), duplicate keys on both
sides, multi-column keys, LEFT joins whose rows find no match, residual conditions that are
NULL for some pairs (three-valued), keys of int against numeric, text keys whose tables have
different dictionaries, date keys, float keys with NaN and -0 (PostgreSQL: NaN = NaN, -0 = 0),
and an empty table. EXPLAIN ANALYZE proves that the vector form ran (`ColumnarJoin` above a
row subtree that was never executed); psycopg and asyncpg both read the answers.
"""

from __future__ import annotations

import asyncio
import re

import asyncpg
import psycopg
import pytest

from tests.integration.columnar_diff import (
    assert_on_off_match_pg,
    assert_vector_ran,
    connect_pair,
    norm,
    rows,
    vector_ran,
)

TABLES = ("cj_fact", "cj_dim", "cj_sub", "cj_flt", "cj_empty")
SETUP = [
    "create table cj_dim (id int primary key, k int, name text, w numeric(8,2), dt date, "
    "grp int)",
    "create table cj_fact (id int primary key, dk int, k2 int, amt numeric(10,2), q int, "
    "s text, x float8, dt date, nk numeric(6,1))",
    "create table cj_sub (a int, b int, tag text, primary key (a, b))",
    "create table cj_flt (id int primary key, f float8, v int)",
    "create table cj_empty (id int primary key, dk int, v int)",
    "insert into cj_dim select i, i % 50, 'n' || (i % 7), i * 1.5, date '2020-01-01' + i % 30, "
    "i % 4 from generate_series(1, 2000) i",
    # a key no fact row has, NULLs, and a duplicate dimension key (k is not unique)
    "insert into cj_dim values (3001, null, null, null, null, null), "
    "(3002, 7, 'n1', 2.00, null, 1), (3003, 7, 'zz', 3.25, '2020-01-05', 2)",
    "insert into cj_fact select i, case when i % 97 = 0 then null else i % 2100 end, i % 50, "
    "(i % 1000) / 7.0, i % 13, case when i % 41 = 0 then null else 'n' || (i % 9) end, "
    "case when i % 31 = 0 then null else i * 0.5 end, date '2020-01-01' + i % 40, "
    "(i % 60) / 2.0 from generate_series(1, 12000) i",
    "insert into cj_sub select i % 50, i % 4, case when i % 5 = 0 then null else 't' || (i % 3) "
    "end from generate_series(1, 200) i on conflict do nothing",
    "insert into cj_flt values (1, 0.0, 1), (2, -0.0, 2), (3, 'NaN', 3), (4, 'NaN', 4), "
    "(5, 1.5, 5), (6, null, 6), (7, 'Infinity', 7), (8, '-Infinity', 8), (9, 1.5, 9)",
    "insert into cj_flt select i, i / 4.0, i from generate_series(10, 1500) i",
]

QUERIES = [
    # row code run once per distinct string (`rowexpr._per_entry`): as a join key (CH Q7's
    # `ascii(substring(c_state from 1 for 1)) = n2.n_nationkey`), a group key and a filter,
    # over NULL strings too (coalesce gives them a value)
    "select d.name, count(*) from cj_fact f, cj_dim d "
    "where ascii(substring(f.s from 2 for 1)) - 48 = d.k and d.grp = 1 group by d.name "
    "order by d.name",
    "select coalesce(upper(f.s), '?') || '!' as u, count(*), sum(f.q) from cj_fact f, cj_dim d "
    "where f.dk = d.id and length(coalesce(f.s, '')) < 3 group by u order by u",
    # a numeric CASE of several scales: PostgreSQL's sum keeps each group's own scale
    "select d.grp, sum(case when d.grp = 1 then f.amt else 0 end)::text "
    "from cj_fact f join cj_dim d on f.dk = d.id group by d.grp order by 1",
    # GROUP BY the dimension's primary key (either side's key column): the fact table is
    # aggregated first (`exec.vector.eager`); fact keys the dimension lacks, or NULL, drop out
    "select d.id, count(*), sum(f.amt), min(f.q), max(f.q), count(f.x) from cj_fact f "
    "join cj_dim d on f.dk = d.id where f.q <> 3 group by d.id order by d.id desc limit 15",
    "select f.dk, d.id, count(*), avg(f.amt) from cj_fact f, cj_dim d where d.id = f.dk "
    "and d.grp = 2 group by f.dk, d.id order by 1 limit 15",
    "select count(*), sum(c), max(c) from (select d.id, count(*) c from cj_fact f "
    "join cj_dim d on f.dk = d.id group by d.id) t",
    # inner joins: one key, duplicates on both sides, NULL keys, filters on each side
    "select d.name, count(*), sum(f.amt), avg(f.q), min(f.dt), max(d.w) from cj_fact f, cj_dim d "
    "where f.dk = d.id group by d.name order by d.name",
    "select d.k, count(*), sum(f.q) from cj_fact f join cj_dim d on f.k2 = d.k "
    "where d.grp = 1 and f.q < 5 group by d.k order by d.k",
    "select count(*), sum(f.amt) from cj_fact f, cj_dim d where f.dk = d.id and d.name like 'n1%'",
    # multi-column keys, three tables, text keys from different tables
    "select s.tag, count(*), sum(f.amt) from cj_fact f, cj_sub s where f.k2 = s.a "
    "and f.q = s.b group by s.tag order by s.tag",
    "select d.grp, s.tag, count(*) from cj_fact f, cj_dim d, cj_sub s where f.dk = d.id "
    "and d.k = s.a and d.grp = s.b group by d.grp, s.tag order by 1, 2",
    "select f.s, count(*) from cj_fact f, cj_dim d where f.s = d.name group by f.s order by 1",
    # residuals: non-equi conditions, NULL for some pairs
    "select count(*), sum(f.q) from cj_fact f, cj_dim d where f.dk = d.id and f.amt > d.w",
    "select d.grp, count(*) from cj_fact f, cj_dim d where f.dk = d.id and f.dt <= d.dt "
    "group by d.grp order by 1",
    "select count(*) from cj_fact f, cj_dim d where f.dk = d.id and (f.x > 100 or d.w < 10)",
    # int = numeric, numeric scales, date keys
    "select count(*), sum(d.w) from cj_fact f, cj_dim d where f.nk = d.k",
    "select count(*), sum(f.nk) from cj_fact f, cj_dim d where f.nk = d.w",
    "select f.dt, count(*) from cj_fact f, cj_dim d where f.dt = d.dt and d.id < 40 "
    "group by f.dt order by 1",
    # LEFT joins: unmatched rows padded with NULLs, ON conditions on either side
    "select d.id, count(f.id), sum(f.q) from cj_dim d left join cj_fact f on f.dk = d.id "
    "and f.q > 5 group by d.id order by 2, 1 limit 12",
    "select count(*), count(f.id), sum(f.amt) from cj_dim d left join cj_fact f "
    "on f.dk = d.id and d.grp = 2",
    "select c, count(*) from (select d.id, count(f.id) as c from cj_dim d left join cj_fact f "
    "on f.dk = d.id and f.amt > d.w group by d.id) t group by c order by c",
    "select d.grp, count(*), count(e.id) from cj_dim d left join cj_empty e on e.dk = d.id "
    "group by d.grp order by 1",
    # semi and anti joins (EXISTS / NOT EXISTS), with residuals
    "select count(*), sum(f.amt) from cj_fact f where exists (select 1 from cj_dim d "
    "where d.id = f.dk and d.w > f.amt)",
    "select f.q, count(*) from cj_fact f where not exists (select 1 from cj_dim d "
    "where d.id = f.dk and d.grp = 3) group by f.q order by 1",
    "select count(*) from cj_dim d where not exists (select 1 from cj_fact f "
    "where f.dk = d.id and f.dt > d.dt)",
    "select count(*) from cj_dim d where d.k in (select k2 from cj_fact where q = 3)",
    # float keys: NaN = NaN, -0 = 0, NULL never matches
    "select a.id, count(*) from cj_flt a, cj_flt b where a.f = b.f and a.id < 12 "
    "group by a.id order by 1",
    "select count(*), sum(b.v) from cj_flt a join cj_flt b on a.f = b.f",
    # expressions with no vector kernel run as row code over the joined columns: keys,
    # filters, group keys and aggregate arguments (mod, upper, CASE, extract)
    "select mod(f.k2 * d.k, 7), count(*) from cj_fact f, cj_dim d where f.dk = d.id "
    "group by 1 order by 1",
    "select sum(case when d.name = 'n1' then f.q else 0 end), sum(f.amt) from cj_fact f "
    "join cj_dim d on f.dk = d.id",
    "select sum(case when d.grp = 1 then f.amt else 0 end)::text, avg(case when d.grp = 1 "
    "then f.amt else 0 end)::text, sum(f.amt) from cj_fact f join cj_dim d on f.dk = d.id",
    "select extract(year from f.dt), extract(day from d.dt), count(*) from cj_fact f, cj_dim d "
    "where f.dk = d.id group by 1, 2 order by 1, 2",
    "select count(*), sum(d.k) from cj_fact f, cj_dim d where mod(f.id, 2000) = d.id",
    "select d.grp, count(*) from cj_fact f, cj_dim d where f.dk = d.id and upper(d.name) "
    "like 'N1%' group by 1 order by 1",
    # an OR whose branches share the join key; an OR over two inputs implying a filter on each
    "select count(*), sum(f.q) from cj_fact f, cj_dim d where (f.dk = d.id and d.grp = 1 "
    "and f.q < 3) or (f.dk = d.id and d.grp = 2 and f.q > 10)",
    "select a.name, b.name, count(*) from cj_fact f, cj_dim a, cj_dim b where f.dk = a.id "
    "and f.k2 = b.id and ((a.name = 'n1' and b.name = 'n2') or (a.name = 'n2' and "
    "b.name = 'n1')) group by 1, 2 order by 1, 2",
    # an aggregate (itself vectorized) as a join input: IN (... GROUP BY ... HAVING ...)
    "select d.grp, count(*), sum(d.w) from cj_dim d where d.id in (select dk from cj_fact "
    "group by dk having sum(q) > 60) group by d.grp order by 1",
    "select count(*), sum(t.s) from cj_dim d, (select k2, sum(amt) as s, count(*) as c "
    "from cj_fact group by k2) t where t.k2 = d.k and t.c > d.grp",
    # an empty side, and aggregates over expressions of both sides
    "select count(*), sum(e.v) from cj_fact f, cj_empty e where f.dk = e.dk",
    "select d.grp, sum(f.amt * d.w), sum(f.q + d.k), count(f.x) from cj_fact f, cj_dim d "
    "where f.dk = d.id group by d.grp order by 1",
]



@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, TABLES, SETUP, drop_after=True)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


def _plan(conn: psycopg.Connection, sql: str) -> list[str]:
    return [r[0] for r in conn.execute("explain analyze " + sql).fetchall()]


@pytest.mark.parametrize("sql", QUERIES)
def test_the_vector_join_runs(conns, sql: str) -> None:
    """Every query above is computed by the vector form (none fell back to rows)."""
    assert_vector_ran(conns[0], sql, "ColumnarJoin")


def test_explain_shows_the_choice(conns) -> None:
    """EXPLAIN prints the plan that runs: the vector join (with the order it chose, under
    ANALYZE) when it may run, and only the row plan under `cumulo.columnar = off`."""
    cu, _ = conns
    sql = "select d.name, count(*) from cj_fact f, cj_dim d where f.dk = d.id group by d.name"
    plan = [r[0] for r in cu.execute("explain " + sql).fetchall()]
    assert any(ln.lstrip(" ->").startswith("ColumnarJoin") for ln in plan), plan
    assert any(ln.strip().startswith("Vector: join (") for ln in plan), plan
    lines = _plan(cu, sql)
    assert any(ln.strip() == "Ran: vector form" for ln in lines), lines
    order = [ln.strip() for ln in lines if ln.strip().startswith("Join Order: ")]
    # the smaller input (cj_dim: 2003 rows) first, then the fact table, which the keys of
    # cj_dim first reduced to the rows that can match (`exec.vector.reduce`)
    assert len(order) == 1 and re.match(r"Join Order: cj_dim \(2003 rows\) ⋈ cj_fact "
                                        r"\((\d+) of 12000 rows\) → \1 rows$", order[0]), lines
    cu.execute("set cumulo.columnar = off")
    try:
        off = [r[0] for r in cu.execute("explain " + sql).fetchall()]
        assert not any("Columnar" in ln or "Vector" in ln for ln in off), off
        ran = _plan(cu, sql)
        assert not any("Columnar" in ln or "never executed" in ln for ln in ran), ran
        assert ran[0].lstrip().startswith(("HashAggregate", "GroupAggregate", "Aggregate")), ran
    finally:
        cu.execute("reset cumulo.columnar")


def test_row_path_kept_where_it_must(conns) -> None:
    """A point lookup on one side and a sub-plan run per row keep the row path: no
    ColumnarJoin in their plans, and still PostgreSQL's answers. (NOT IN's null-aware anti
    join is vectorized: test_columnar_distinct_pg15; so is a numeric CASE of several scales
    under GROUP BY: test_columnar_mixedscale_pg15.)"""
    cu, pg = conns
    for sql in [
        "select count(*) from cj_fact f, cj_dim d where f.dk = d.id and d.id = 17",
        # a sub-plan run per row (EXISTS under OR); uncorrelated scalar subqueries are
        # constants on the vector path (test_columnar_subquery_pg15)
        "select count(*) from cj_fact f, cj_dim d where f.dk = d.id "
        "and (d.grp = 1 or exists (select 1 from cj_sub s where s.a = d.k))",
    ]:
        plan = [r[0] for r in cu.execute("explain " + sql).fetchall()]
        assert not any("ColumnarJoin" in ln for ln in plan), (sql, plan)
        assert cu.execute(sql).fetchall() == pg.execute(sql).fetchall()


def test_own_writes_and_fresh_commits(conns, cumulo_server) -> None:
    """A transaction with its own writes on a joined table reads them (row path); another
    session's commit is in the next vector join."""
    cu, _ = conns
    sql = "select count(*), sum(f.q) from cj_fact f, cj_dim d where f.dk = d.id and d.id = f.id"
    cu.execute("set cumulo.columnar = on")
    try:
        before = cu.execute(sql).fetchone()
        with psycopg.connect(cumulo_server.dsn()) as other:
            other.execute("insert into cj_fact (id, dk, q) values (900001, 900001, 7)")
            other.execute("insert into cj_dim (id, k) values (900001, 1)")
            mine = other.execute(sql).fetchone()
            assert mine == (before[0] + 1, before[1] + 7)
            assert cu.execute(sql).fetchone() == before  # not committed yet
            other.commit()
        assert cu.execute(sql).fetchone() == (before[0] + 1, before[1] + 7)
        cu.execute("delete from cj_fact where id = 900001")
        cu.execute("delete from cj_dim where id = 900001")
        assert cu.execute(sql).fetchone() == before
    finally:
        cu.execute("reset cumulo.columnar")


def test_asyncpg_reads_the_same(conns, cumulo_server) -> None:
    """A second client (asyncpg, binary results) gets PostgreSQL's answers from the vector form."""
    _, pg = conns

    async def run() -> list[list[tuple]]:
        c = await asyncpg.connect(cumulo_server.dsn())
        try:
            await c.execute("set cumulo.columnar = on")
            return [[tuple(norm(v) for v in r) for r in await c.fetch(q)] for q in QUERIES[:6]]
        finally:
            await c.close()

    got = asyncio.run(run())
    for sql, mine in zip(QUERIES[:6], got, strict=True):
        assert mine == rows(pg, sql), sql


def test_row_path_nan_keys(conns) -> None:
    """NaN join keys match NaN on the row path too (PostgreSQL: NaN = NaN)."""
    cu, pg = conns
    sql = next(q for q in QUERIES if q.startswith("select a.id, count(*) from cj_flt"))
    cu.execute("set cumulo.columnar = off")
    try:
        assert cu.execute(sql).fetchall() == pg.execute(sql).fetchall()
    finally:
        cu.execute("reset cumulo.columnar")


def test_errors_as_postgresql(conns) -> None:
    """A division by zero in a joined aggregate's argument is PostgreSQL's 22012 on both paths
    (the row code's error sends the statement to the row plan, which raises it)."""
    cu, pg = conns
    sql = "select sum(f.q / (d.grp - d.grp)) from cj_fact f, cj_dim d where f.dk = d.id"
    for c, mode in ((pg, None), (cu, "on"), (cu, "off")):
        if mode:
            c.execute(f"set cumulo.columnar = {mode}")
        with pytest.raises(psycopg.errors.DivisionByZero):
            c.execute(sql)
    cu.execute("reset cumulo.columnar")


def test_prepared_parameters(conns) -> None:
    """Parameters in scan filters, residuals and row-code expressions are read at each
    execution of a prepared statement (compiled once)."""
    cu, pg = conns
    sql = ("select d.grp, count(*), sum(f.q) from cj_fact f, cj_dim d where f.dk = d.id "
           "and f.q < %s and f.amt > d.w - %s and mod(f.k2, %s) = 1 group by d.grp order by 1")
    cu.execute("set cumulo.columnar = on")
    try:
        assert vector_ran(cu, sql.replace("%s", "5"), "ColumnarJoin")
        for args in [(5, 10, 3), (11, 0, 2), (0, 1, 4)]:
            got = [tuple(norm(v) for v in r) for r in cu.execute(sql, args, prepare=True)]
            want = [tuple(norm(v) for v in r) for r in pg.execute(sql, args)]
            assert got == want, args
    finally:
        cu.execute("reset cumulo.columnar")
