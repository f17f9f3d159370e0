"""Differential tests of uncorrelated scalar subqueries on the vector path (evaluated once per
execution, then a constant for every pack), and of filters with no vector form on one table:
`cumulo.columnar` on and off agree, and both give PostgreSQL 15's answers and SQLSTATEs.

Cases: a subquery whose value is NULL (no row, or an aggregate of nothing), NaN and
Infinity as the value, a numeric average with more digits than the column, text compared
under the default collation and under "C", a subquery over an empty table, one that returns
two rows (21000 on both paths), subqueries under a vector join and beside an anti join
(CH-benCHmark Q22's shape), duplicates. EXPLAIN ANALYZE proves the vector form ran.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.columnar_diff import (
    assert_on_off_match_pg,
    assert_vector_ran,
    columnar,
    connect_pair,
    rows,
)

SETUP = [
    "create table colq_t (id int primary key, g int, s text, x float8, d numeric(10,2), "
    "ph text)",
    "insert into colq_t select i, i % 6, (array['b', 'B', 'a', 'ä', 'Z', null])[1 + i % 6], "
    "case when i % 29 = 0 then null else i / 8.0 end, (i % 300) - 99.5, (i % 9)::text || 'x' "
    "from generate_series(1, 4000) i",
    "update colq_t set x = 'NaN' where id % 97 = 0",
    "insert into colq_t select i, 0, 'b', 5.0, 1.00, '1x' from generate_series(4001, 4010) i",
    "create table colq_o (id int primary key, tid int, g int)",
    "insert into colq_o select i, (i * 7) % 4500, i % 4 from generate_series(1, 2500) i",
    "create table colq_empty (id int primary key, v float8, s text)",
    "create table colq_nan (id int primary key, x float8)",
    "insert into colq_nan values (1, 'NaN'), (2, 1.5)",
]

QUERIES = [
    # numeric: an average with more digits than the column's scale
    "select g, count(*), sum(d) from colq_t where d > (select avg(d) from colq_t where d > 0) "
    "group by g order by g",
    # NULL subquery values: no row, an aggregate over nothing
    "select count(*) from colq_t where x > (select v from colq_empty)",
    "select count(*), sum(d) from colq_t where d < (select max(id) from colq_empty) or g = 2",
    "select g, count(*) from colq_t where x <> (select min(v) from colq_empty) is null "
    "group by g order by g",
    # NaN and Infinity: NaN is greater than every number in PostgreSQL
    "select count(*) from colq_t where x < (select max(x) from colq_nan)",
    "select count(*) from colq_t where x = (select max(x) from colq_nan)",
    "select count(*) from colq_t where x < (select 'Infinity'::float8)",
    # text: the default collation and "C"
    "select count(*) from colq_t where s > (select min(s) from colq_t where g = 1)",
    "select s, count(*) from colq_t where s >= (select 'a') group by s order by s",
    "select s, count(*) from colq_t where s collate \"C\" < (select 'a') "
    "group by s order by s collate \"C\"",
    # filters with no vector form (row code over the column), and duplicates
    "select g, count(*), sum(x) from colq_t where substring(ph from 1 for 1) in ('1', '2') "
    "group by g order by g",
    "select count(*), avg(d) from colq_t where d > 0.00 and substring(ph from 1 for 1) "
    "in ('1', '3', '5')",
    # under joins: CH-benCHmark Q22's shape (scalar subquery beside NOT EXISTS)
    "select substring(s from 1 for 1), count(*), sum(d) from colq_t t "
    "where substring(ph from 1 for 1) in ('1', '2', '3', '4') "
    "and d > (select avg(d) from colq_t where d > 0.00 and substring(ph from 1 for 1) "
    "in ('1', '2', '3', '4')) and not exists (select * from colq_o o where o.tid = t.id) "
    "group by substring(s from 1 for 1) order by 1",
    "select o.g, count(*), sum(t.d) from colq_t t join colq_o o on o.tid = t.id "
    "where t.x > (select avg(x) from colq_t where x <> 'NaN') group by o.g order by o.g",
]


# grouped aggregates read by a vector join or filter as columns (`exec.vector.aggframe`):
# integer, string (a NULL group) and numeric keys; COUNT, SUM of numeric and of int8
# (numeric of scale 0), MIN/MAX of strings; a float MAX over NaN keeps the rows
AGG_INPUTS = [
    "select g, count(*), sum(d) from colq_t where g in (select g from colq_t group by g "
    "having sum(d) > 0) group by g order by g",
    "select t.s, count(*), sum(t.d) from colq_t t join (select s, count(*) n, min(ph) lo, "
    "max(ph) hi, sum(d) sd from colq_t group by s having count(*) > 5) a on a.s = t.s "
    "where t.ph >= a.lo and t.ph < a.hi and t.d < a.sd group by t.s order by 1",
    "select o.g, count(*) from colq_o o where o.tid in (select id from colq_t group by id "
    "having sum(id::int8) > 100 and min(s) >= 'a') group by o.g order by o.g",
    "select a.d, a.n from (select d, count(*) n, max(x) mx from colq_t group by d) a "
    "join colq_o o on o.tid = a.n where a.mx > 1 order by 1, 2",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("colq_t", "colq_o", "colq_empty", "colq_nan"), SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


@pytest.mark.parametrize("sql", QUERIES)
def test_the_vector_form_runs(conns, sql: str) -> None:
    assert_vector_ran(conns[0], sql)


def test_more_than_one_row_is_21000(conns) -> None:
    cu, pg = conns
    sql = "select count(*) from colq_t where d > (select d from colq_t where g = 1)"
    with pytest.raises(psycopg.errors.CardinalityViolation):
        pg.execute(sql)
    for mode in ("on", "off"):
        cu.execute(f"set cumulo.columnar = {mode}")
        with pytest.raises(psycopg.errors.CardinalityViolation):
            cu.execute(sql)
    cu.execute("reset cumulo.columnar")
    assert cu.execute("select 1").fetchone() == (1,)


def test_a_correlated_subquery(conns) -> None:
    """A correlated subquery is no constant: whatever path runs it, PostgreSQL's answer."""
    cu, pg = conns
    sql = "select count(*), sum(t.d) from colq_t t where t.d > (select max(o.g) from colq_o o " \
          "where o.tid = t.id)"
    want = rows(pg, sql)
    for mode in ("on", "off"):
        cu.execute(f"set cumulo.columnar = {mode}")
        assert rows(cu, sql) == want, mode
    cu.execute("reset cumulo.columnar")


# correlated aggregates decorrelated into a join whose grouped side keeps only the keys of
# the filtered outer table (`optimizer.keyreduce`): TPC-H Q17's and Q2's shapes, COUNT's 0
REDUCED = [
    "select count(*), sum(t.d) from colq_t t where t.s in ('a', 'Z') "
    "and t.g < (select avg(o.g) from colq_o o where o.tid = t.id)",
    "select t.g, count(*) from colq_t t where t.ph = '3x' "
    "and (select count(*) from colq_o o where o.tid = t.id) = 0 group by t.g order by t.g",
    "select o.id, t.id from colq_o o join colq_t t on t.id = o.tid where t.s = 'b' "
    "and o.g = (select min(o2.g) from colq_o o2 where o2.tid = t.id) order by 1, 2",
]


def test_decorrelated_aggregates_read_only_the_outer_keys(conns) -> None:
    cu, pg = conns
    for sql in REDUCED:
        assert_on_off_match_pg(cu, pg, sql)
        with columnar(cu, "on"):
            plan = "\n".join(r[0] for r in cu.execute("explain " + sql).fetchall())
        assert "Semi Join" in plan and "SubPlan" not in plan, plan


@pytest.mark.parametrize("sql", AGG_INPUTS)
def test_aggregates_read_as_columns_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


@pytest.mark.parametrize("sql", AGG_INPUTS[:3])
def test_aggregates_are_read_as_columns(conns, sql: str) -> None:
    """TPC-H Q18's shape and others: the aggregate's groups reach the join as columns (the
    last case's MAX over NaN has none: it is read as rows)."""
    cu, _ = conns
    with columnar(cu, "on"):
        plan = "\n".join(r[0] for r in cu.execute("explain analyze " + sql).fetchall())
    assert "vector form (columns)" in plan, plan
