"""Correlated scalar subqueries against PostgreSQL 15: the `scalar_subquery` rule's left joins to
grouped aggregates give PostgreSQL's rows on data full of NULLs, keys with no rows and
duplicates, and EXPLAIN shows which subqueries became joins and which stay SubPlans.

The traps: COUNT over no rows is 0 (not the join's NULL padding), COALESCE and `count + 1`
over no rows are values too, a NULL correlation key matches no row (so the subquery sees
an empty set), and a subquery with GROUP BY or a non-equality correlation is not an
aggregate per key. One server pair per module.
"""

from __future__ import annotations

import psycopg
import pytest

from tests import pg15 as pg15_mod

SETUP = [
    "CREATE TABLE a (id int PRIMARY KEY, k int, v text)",
    "CREATE TABLE b (id int PRIMARY KEY, k int, w int, t text)",
    "CREATE TABLE c (id int PRIMARY KEY, k int NOT NULL)",
    "INSERT INTO a VALUES (1, 1, 'x'), (2, 2, 'y'), (3, NULL, 'z'), (4, 4, NULL), (5, 5, 'q'),"
    " (6, 7, 'r')",
    "INSERT INTO b VALUES (1, 1, 10, 'p'), (2, 2, NULL, 'q'), (3, NULL, 30, 'r'), (4, 2, 40, NULL),"
    " (5, 7, 1, 's'), (6, 1, 5, 't'), (7, 7, NULL, NULL), (8, 5, NULL, 'u')",
    "INSERT INTO c VALUES (1, 1), (2, 5), (3, 7), (4, 1)",
]

JOINED = "Left Join"

# (query, what EXPLAIN must contain on Cumulo, what it must not contain)
CASES = [
    # NULL-on-empty aggregates: the join's NULL padding is the answer (TPC-H Q17's shape)
    ("SELECT id FROM a WHERE k < (SELECT avg(w) FROM b WHERE b.k = a.k)", JOINED, "SubPlan"),
    ("SELECT id, (SELECT 0.5 * sum(w) FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
    ("SELECT id, (SELECT max(t) FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
    # COUNT over no rows is 0, also for a NULL key and for keys with only NULL values
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
    ("SELECT id, (SELECT count(w) FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
    ("SELECT id FROM a WHERE (SELECT count(w) FROM b WHERE b.k = a.k) = 0", JOINED, "SubPlan"),
    ("SELECT id, (SELECT count(*) + 1 FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
    ("SELECT id, (SELECT coalesce(sum(w), -1) FROM b WHERE b.k = a.k) FROM a", JOINED,
     "SubPlan"),
    ("SELECT id, (SELECT count(DISTINCT w) FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
    ("SELECT id, (SELECT sum(w) / count(*) FROM b WHERE b.k = a.k AND w IS NOT NULL) FROM a",
     JOINED, "SubPlan"),
    # two correlation keys, local conjuncts, an expression as the key (TPC-H Q20's shape)
    ("SELECT id FROM a WHERE id < (SELECT sum(w) FROM b WHERE b.k = a.k AND b.id >= a.id)",
     "SubPlan", None),
    ("SELECT id, (SELECT sum(w) FROM b WHERE b.k = a.k AND b.t = a.v) FROM a", JOINED,
     "SubPlan"),
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k AND b.w > 3) FROM a", JOINED,
     "SubPlan"),
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k + 1) FROM a", JOINED, "SubPlan"),
    ("SELECT id, (SELECT count(*) FROM b WHERE b.w::bigint = a.k::bigint * 10) FROM a", JOINED,
     "SubPlan"),
    # two subqueries, in the WHERE and the select list, and under OR
    ("SELECT id, (SELECT count(*) FROM c WHERE c.k = a.k) FROM a "
     "WHERE coalesce(k, 0) <= (SELECT coalesce(max(w), 0) FROM b WHERE b.k = a.k)", JOINED,
     "SubPlan"),
    ("SELECT id FROM a WHERE id = 3 OR k < (SELECT avg(w) FROM b WHERE b.k = a.k)", JOINED,
     "SubPlan"),
    # with a join in the outer query (TPC-H Q2's shape: the key comes from one of the tables)
    ("SELECT a.id, c.id FROM a, c WHERE a.k = c.k AND "
     "c.id = (SELECT min(c2.id) FROM c c2 WHERE c2.k = a.k)", JOINED, "SubPlan"),
    # nested: the inner subquery is decorrelated inside the outer one's aggregate input
    ("SELECT id, (SELECT sum(w) FROM b WHERE b.k = a.k AND "
     "b.w > (SELECT avg(c.id) FROM c WHERE c.k = b.k)) FROM a", JOINED, "SubPlan"),
    # the grouped side reads only the keys the filtered outer table holds (keyreduce): TPC-H
    # Q17's shape, COUNT's 0 for the keys left out, NULL keys, and Q2's shape with a join
    ("SELECT id FROM a WHERE v IN ('x', 'q', 'r') AND k < (SELECT avg(w) FROM b WHERE b.k = a.k)",
     "Semi Join", "SubPlan"),
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k) FROM a WHERE v <> 'y' OR v IS NULL",
     "Semi Join", "SubPlan"),
    ("SELECT id, (SELECT coalesce(sum(w), -1) FROM b WHERE b.k = a.k) FROM a "
     "WHERE k IS NULL OR k > 1", "Semi Join", "SubPlan"),
    ("SELECT a.id, c.id FROM a, c WHERE a.k = c.k AND a.v < 'z' AND "
     "c.id = (SELECT min(c2.id) FROM c c2 WHERE c2.k = a.k)", "Semi Join", "SubPlan"),
    # ... or the keys an IN keeps (TPC-H Q20's shape: the filter goes above the semi join)
    ("SELECT id FROM a WHERE k IN (SELECT k FROM c WHERE id > 1) "
     "AND id > (SELECT count(*) FROM b WHERE b.k = a.k)", "(b.k = c.k)", "SubPlan"),
    ("SELECT id FROM a WHERE k IN (SELECT k FROM c WHERE id < 4) AND v IS NOT NULL "
     "AND 20 > (SELECT sum(w) FROM b WHERE b.k = a.k AND b.id <> 2)", JOINED, "SubPlan"),
    # stays a subquery: a non-equality correlation, GROUP BY, LIMIT, no aggregate
    ("SELECT id, (SELECT sum(w) FROM b WHERE b.w > a.id) FROM a", "SubPlan", None),
    ("SELECT id, (SELECT sum(w) FROM b WHERE b.k = a.k GROUP BY b.k) FROM a", "SubPlan", None),
    ("SELECT id, (SELECT w FROM b WHERE b.k = a.k ORDER BY w LIMIT 1) FROM a", "SubPlan", None),
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k HAVING count(*) > 1) FROM a",
     "SubPlan", None),
    # a volatile function must run per row
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k AND random() < 2) FROM a", "SubPlan",
     None),
    # uncorrelated: a cached subquery, untouched
    ("SELECT id FROM a WHERE k < (SELECT avg(w) FROM b)", "SubPlan", JOINED),
    # aggregates with ORDER BY and FILTER
    ("SELECT id, (SELECT string_agg(t, ',' ORDER BY t) FROM b WHERE b.k = a.k) FROM a", JOINED,
     "SubPlan"),
    ("SELECT id, (SELECT count(*) FILTER (WHERE w > 5) FROM b WHERE b.k = a.k) FROM a", JOINED,
     "SubPlan"),
    ("SELECT id, (SELECT bool_and(w > 2) FROM b WHERE b.k = a.k) FROM a", JOINED, "SubPlan"),
]


@pytest.fixture(scope="module")
def dsns(cumulo_server, pg15):
    return pg15_mod.same_schema(pg15, cumulo_server, "decorrelate", SETUP)


def _rows(dsn: str, sql: str, params: tuple = ()) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return sorted(conn.execute(sql, params or None).fetchall(), key=repr)


@pytest.mark.parametrize("sql,plan,absent", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_same_rows_as_pg15(dsns, sql, plan, absent):
    pg, cu = dsns
    assert _rows(cu, sql) == _rows(pg, sql)
    with psycopg.connect(cu, autocommit=True) as conn:
        text = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql).fetchall())
    assert plan in text, text
    if absent:
        assert absent not in text, text


def test_parameters_and_writes(dsns):
    """A prepared plan with parameters inside the subquery, run again after writes."""
    pg, cu = dsns
    sql = "SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k AND b.w > %s) FROM a"
    results = []
    for dsn in (pg, cu):
        with psycopg.connect(dsn) as conn:
            got = [sorted(conn.execute(sql, (x,), prepare=True).fetchall()) for x in (0, 5, 100)]
            conn.execute("INSERT INTO b VALUES (100, 4, 50, 'n'), (101, NULL, 60, 'n')")
            got.append(sorted(conn.execute(sql, (0,), prepare=True).fetchall()))
            conn.rollback()
        results.append(got)
    assert results[0] == results[1]


def test_dml_with_decorrelated_subqueries(dsns):
    """UPDATE and DELETE filtered by correlated aggregates touch PostgreSQL's rows."""
    pg, cu = dsns
    stmts = [
        "UPDATE a SET v = 'big' WHERE k < (SELECT max(w) FROM b WHERE b.k = a.k) RETURNING id, v",
        "UPDATE a SET v = (SELECT count(*) FROM b WHERE b.k = a.k)::text RETURNING id, v",
        "DELETE FROM a WHERE (SELECT count(*) FROM c WHERE c.k = a.k) = 0 RETURNING id",
    ]
    results = []
    for dsn in (pg, cu):
        got = []
        with psycopg.connect(dsn) as conn:
            for s in stmts:
                got.append(sorted(conn.execute(s).fetchall(), key=repr))
            got.append(sorted(conn.execute("SELECT * FROM a").fetchall(), key=repr))
            conn.rollback()
        results.append(got)
    assert results[0] == results[1]
