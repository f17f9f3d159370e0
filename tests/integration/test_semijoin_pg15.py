"""Semi and anti joins against PostgreSQL 15: EXISTS, NOT EXISTS, IN, NOT IN, = ANY and <> ALL
on data full of NULLs, empty sub-plans and duplicates give PostgreSQL's rows, and EXPLAIN
shows which of them the `semijoin` rule turned into joins (and which stay subqueries).

NOT IN is the trap: `x NOT IN (subquery)` is NULL (so the row is rejected) when x is NULL
and the subquery has rows, or when the subquery yields a NULL. One server pair per module.
"""

from __future__ import annotations

import psycopg
import pytest

from tests import pg15 as pg15_mod

SETUP = [
    "CREATE TABLE a (id int PRIMARY KEY, k int, v text)",
    "CREATE TABLE b (id int PRIMARY KEY, k int, w int)",
    "CREATE TABLE c (id int PRIMARY KEY, k int NOT NULL)",
    "CREATE TABLE e (id int PRIMARY KEY, k int)",
    "INSERT INTO a VALUES (1, 1, 'x'), (2, 2, 'y'), (3, NULL, 'z'), (4, 4, NULL), (5, 5, 'q')",
    "INSERT INTO b VALUES (1, 1, 10), (2, 2, NULL), (3, NULL, 30), (4, 2, 40), (5, 7, 1)",
    "INSERT INTO c VALUES (1, 1), (2, 5), (3, 7)",
]

# (query, what EXPLAIN must contain on Cumulo)
CASES = [
    ("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", "Semi Join"),
    ("SELECT id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", "Anti Join"),
    ("SELECT id FROM a WHERE k IN (SELECT k FROM b)", "Semi Join"),
    ("SELECT id FROM a WHERE k = ANY (SELECT k FROM b)", "Semi Join"),
    # b.k has a NULL: NOT IN is never true
    ("SELECT id FROM a WHERE k NOT IN (SELECT k FROM b)", "Null Aware: true"),
    ("SELECT id FROM a WHERE k <> ALL (SELECT k FROM b)", "Null Aware: true"),
    # no NULL on the right: a NULL a.k is still rejected
    ("SELECT id FROM a WHERE k NOT IN (SELECT k FROM b WHERE k IS NOT NULL)",
     "Null Aware: true"),
    # an empty right side: every row qualifies, NULL a.k included
    ("SELECT id FROM a WHERE k NOT IN (SELECT k FROM e)", "Null Aware: true"),
    ("SELECT id FROM a WHERE k NOT IN (SELECT k FROM b WHERE w > 1000)", "Null Aware: true"),
    # both sides NOT NULL: a plain anti join
    ("SELECT id FROM a WHERE id NOT IN (SELECT k FROM c)", "Hash Anti Join"),
    ("SELECT id FROM a WHERE k NOT IN (SELECT k FROM c)", "Null Aware: true"),
    # correlated NOT IN over nullable columns stays a subquery
    ("SELECT id FROM a WHERE k NOT IN (SELECT b.k FROM b WHERE b.id = a.id)", "SubPlan"),
    ("SELECT id FROM a WHERE id NOT IN (SELECT c.k FROM c WHERE c.id = a.id)", "Anti Join"),
    # correlated with a residual (CH-benCHmark Q21's shape)
    ("SELECT id FROM a WHERE EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.w > a.id)",
     "Semi Join"),
    ("SELECT id FROM a WHERE NOT EXISTS (SELECT * FROM b WHERE b.k = a.k AND b.w > a.id)",
     "Anti Join"),
    ("SELECT id FROM a WHERE k IN (SELECT b.k FROM b WHERE b.w > a.id)", "Semi Join"),
    # only a non-equality: a nested-loop semi join
    ("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.w < a.id)", "Nested Loop Semi Join"),
    # with other tables and conjuncts
    ("SELECT a.id, c.id FROM a, c WHERE a.k = c.k AND NOT EXISTS "
     "(SELECT 1 FROM b WHERE b.k = a.k AND b.id <> c.id)", "Anti Join"),
    ("SELECT a.id FROM a WHERE a.id > 1 AND EXISTS (SELECT 1 FROM b WHERE b.k = a.k) "
     "AND NOT EXISTS (SELECT 1 FROM c WHERE c.k = a.k)", "Anti Join"),
    # nested: the inner EXISTS is decorrelated inside the outer one's right side
    ("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND NOT EXISTS "
     "(SELECT 1 FROM c WHERE c.k = b.w))", "Semi Join"),
    # a correlation two levels up cannot be decorrelated at the inner level
    ("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE EXISTS "
     "(SELECT 1 FROM c WHERE c.k = a.k AND c.id = b.id))", "SubPlan"),
    # int4 against int8: still hash keys
    ("SELECT id FROM a WHERE k IN (SELECT w::bigint FROM b)", "Semi Join"),
    ("SELECT id FROM a WHERE k NOT IN (SELECT w::bigint FROM b WHERE w IS NOT NULL)",
     "Anti Join"),
    # under OR or in the select list: stays a subquery
    ("SELECT id FROM a WHERE id = 1 OR EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", "SubPlan"),
    ("SELECT id, EXISTS (SELECT 1 FROM b WHERE b.k = a.k) FROM a", "SubPlan"),
    # uncorrelated EXISTS stays a (cached) subquery
    ("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM e)", "SubPlan"),
    ("SELECT id FROM a WHERE NOT EXISTS (SELECT 1 FROM e)", "SubPlan"),
    # semi joins inside a scalar subquery and a derived table
    ("SELECT id, (SELECT count(*) FROM b WHERE b.k = a.k AND EXISTS "
     "(SELECT 1 FROM c WHERE c.k = b.k)) FROM a", "Semi Join"),
    ("SELECT s.id FROM (SELECT * FROM a WHERE k IN (SELECT k FROM c)) s WHERE s.id < 5",
     "Semi Join"),
    # IN over an aggregate sub-plan (CH-benCHmark Q20's shape), and DISTINCT in the sub-plan
    ("SELECT id FROM a WHERE k IN (SELECT k FROM b GROUP BY k HAVING count(*) > 1)",
     "Semi Join"),
    ("SELECT id FROM a WHERE k IN (SELECT DISTINCT b.k FROM b WHERE b.id >= a.id)", "Semi Join"),
    # EXISTS (... LIMIT 1), a common idiom: the LIMIT does not matter to EXISTS
    ("SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k LIMIT 1)", "Semi Join"),
    ("SELECT id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k LIMIT 0)", "SubPlan"),
    # GROUP BY over a semi join
    ("SELECT count(*), sum(k) FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", "Semi Join"),
]


@pytest.fixture(scope="module")
def dsns(cumulo_server, pg15):
    return pg15_mod.same_schema(pg15, cumulo_server, "semijoin", SETUP)


def _rows(dsn: str, sql: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return sorted(conn.execute(sql).fetchall(), key=repr)


@pytest.mark.parametrize("sql,plan", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_same_rows_as_pg15(dsns, sql, plan):
    pg, cu = dsns
    assert _rows(cu, sql) == _rows(pg, sql)
    with psycopg.connect(cu, autocommit=True) as conn:
        text = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql).fetchall())
    assert plan in text, text


def test_not_in_with_params_and_after_writes(dsns):
    """A cached plan sees new NULLs: the null-aware anti join reads the right side per run."""
    pg, cu = dsns
    sql = "SELECT id FROM a WHERE k NOT IN (SELECT k FROM c WHERE c.id > %s)"
    for dsn in (pg, cu):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE n (id int PRIMARY KEY, k int)")
            conn.execute("INSERT INTO n VALUES (1, 2)")
    q2 = "SELECT id FROM a WHERE k NOT IN (SELECT k FROM n)"
    results = []
    for dsn in (pg, cu):
        with psycopg.connect(dsn, autocommit=True) as conn:
            got = [sorted(conn.execute(sql, (i,)).fetchall()) for i in (0, 1, 5)]
            got.append(sorted(conn.execute(q2).fetchall()))
            conn.execute("INSERT INTO n VALUES (2, NULL)")
            got.append(sorted(conn.execute(q2).fetchall()))
            results.append(got)
    assert results[0] == results[1]
    assert results[1][-1] == []  # a NULL appeared on the right: nothing qualifies


def test_dml_with_semi_and_anti_joins(dsns):
    """UPDATE and DELETE filtered by EXISTS / NOT IN touch PostgreSQL's rows (rolled back)."""
    pg, cu = dsns
    stmts = [
        "UPDATE a SET v = 'w' WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k) RETURNING id",
        "DELETE FROM a WHERE k NOT IN (SELECT k FROM c) RETURNING id",
        "DELETE FROM a WHERE id NOT IN (SELECT k FROM c) RETURNING id",
    ]
    results = []
    for dsn in (pg, cu):
        got = []
        with psycopg.connect(dsn) as conn:
            for s in stmts:
                got.append(sorted(conn.execute(s).fetchall()))
            got.append(sorted(conn.execute("SELECT * FROM a").fetchall(), key=repr))
            conn.rollback()
        results.append(got)
    assert results[0] == results[1]
