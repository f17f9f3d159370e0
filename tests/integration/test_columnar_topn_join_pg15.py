"""Differential tests of top-N over joins on the vector path (`ORDER BY ... LIMIT` with no
aggregate between: `exec.vector.jointopn`): `cumulo.columnar` on and off agree, and both
give PostgreSQL 15's rows in PostgreSQL's order.

The sort keys are made to catch a candidate filter: NULLs (NULLS FIRST / LAST, ASC and
DESC), float NaN (above every number) and +-Infinity, long runs of ties on the first key
(decided by the second), text keys under the default collation and "C", numeric keys of
several scales, OFFSET, LIMIT 0, LIMIT beyond the row count, duplicate join keys on both
sides, LEFT joins whose unmatched rows sort by a NULL, semi and anti joins, and an empty
input. EXPLAIN ANALYZE proves the vector form ran.

The same holds, over ANALYZEd tables (`cs_*`), for a full sort over a join (`ORDER BY` with
no LIMIT, TPC-H Q20's outer query: every joined row becomes the row join's tuple, a semi
join to a LEFT join filtered by an aggregate among them; `ctid` above the join keeps the row
path), for joins by a table over a key unique on one side (`join.direct`), two keys at once
(`join.combined`), NULL keys, keys out of range and duplicates on both sides, and for GROUP
BY over a grouped subquery (TPC-H Q13's count of customers per order count).
"""

from __future__ import annotations

import pytest

from tests.integration.columnar_diff import assert_on_off_match_pg, assert_vector_ran, connect_pair

SETUP = [
    "create table colt_f (id int primary key, dk int, x float8, s text, n numeric, g int)",
    "insert into colt_f select i, case when i % 43 = 0 then null else i % 300 end, "
    "case when i % 31 = 0 then null else (i % 200) * 0.5 end, "
    "(array['b', 'B', 'a', 'é', 'Z', null, 'a b'])[1 + i % 7], (i % 17) / 4.0, i % 3 "
    "from generate_series(1, 5000) i",
    "update colt_f set x = 'NaN' where id % 97 = 0",
    "update colt_f set x = 'Infinity' where id = 11",
    "update colt_f set x = '-Infinity' where id = 12",
    "update colt_f set n = 2.50 where id % 101 = 0",
    "create table colt_d (id int primary key, name text, w int)",
    "insert into colt_d select i, 'd' || (i % 23), case when i % 9 = 0 then null else i % 50 end "
    "from generate_series(0, 249) i",
    "create table colt_dup (k int, v int)",  # duplicate join keys
    "insert into colt_dup select i % 40, i from generate_series(1, 400) i",
    "create table colt_empty (id int primary key, dk int)",
]

QUERIES = [
    "select f.id, f.x, d.name from colt_f f join colt_d d on f.dk = d.id "
    "order by f.x, f.id limit 12",
    "select f.id, f.x from colt_f f join colt_d d on f.dk = d.id order by f.x desc, f.id limit 9",
    "select f.id, f.x from colt_f f join colt_d d on f.dk = d.id "
    "order by f.x desc nulls last, f.id limit 7",
    "select f.id, f.x from colt_f f join colt_d d on f.dk = d.id "
    "order by f.x nulls first, f.id limit 40",
    "select d.w, f.id from colt_f f join colt_d d on f.dk = d.id order by d.w, f.id limit 15",
    "select f.s, f.id from colt_f f join colt_d d on f.dk = d.id order by f.s, f.id limit 20",
    "select f.s, f.id from colt_f f join colt_d d on f.dk = d.id "
    "order by f.s desc nulls last, f.id limit 8 offset 5",
    "select f.s collate \"C\", f.id from colt_f f join colt_d d on f.dk = d.id "
    "order by f.s collate \"C\", f.id limit 10",
    "select f.n, f.id from colt_f f join colt_d d on f.dk = d.id where d.w > 10 "
    "order by f.n desc, f.id limit 10",
    "select f.id, u.v from colt_f f join colt_dup u on f.g = u.k order by u.v, f.id limit 6",
    "select f.id from colt_f f join colt_d d on f.dk = d.id order by f.id limit 0",
    "select d.id, f.id from colt_d d join colt_f f on f.dk = d.id where d.id < 3 "
    "order by f.id desc limit 100000",
    # three tables, LEFT, semi and anti joins
    "select f.id, d.name, u.v from colt_f f join colt_d d on f.dk = d.id "
    "join colt_dup u on u.k = d.w order by u.v desc, f.id limit 11",
    "select f.id, d.w from colt_f f left join colt_d d on f.dk = d.id and d.w > 40 "
    "order by d.w nulls first, f.id limit 9",
    "select f.id, f.x from colt_f f where exists (select 1 from colt_dup u where u.k = f.dk) "
    "order by f.x, f.id limit 8",
    "select f.id, f.s from colt_f f where not exists (select 1 from colt_d d where d.id = f.dk) "
    "order by f.s nulls first, f.id limit 8",
    "select f.id from colt_f f join colt_empty e on f.dk = e.dk order by f.id limit 5",
]

SORT_SETUP = [
    "create table cs_f (id int primary key, dk int, k2 int, x float8, s text, n numeric(10, 2))",
    "insert into cs_f select i, case when i % 41 = 0 then null else i % 260 end, i % 7, "
    "(i % 90) * 0.25, (array['b', 'a', null, 'c'])[1 + i % 4], (i % 13) / 4.0 "
    "from generate_series(1, 4000) i",
    "create table cs_d (id int primary key, name text, w int)",
    "insert into cs_d select i, 'd' || (i % 19), case when i % 8 = 0 then null else i % 30 end "
    "from generate_series(0, 239) i",
    "create table cs_p (a int, b int, q int, primary key (a, b))",
    "insert into cs_p select i % 250, i / 250, i from generate_series(0, 2999) i",
    "create table cs_dup (k int, v int)",
    "insert into cs_dup select i % 40, i from generate_series(1, 400) i",
    "analyze cs_f",
    "analyze cs_d",
    "analyze cs_p",
    "analyze cs_dup",
]

SORT_QUERIES = [
    # full sorts over joins
    "select f.id, d.name from cs_f f join cs_d d on f.dk = d.id where d.w > 20 "
    "order by d.name, f.id",
    "select d.id, d.name from cs_d d where d.id in (select p.a from cs_p p "
    "where p.a in (select f.dk from cs_f f where f.s = 'a') and p.q > "
    "(select 0.5 * sum(f2.n) from cs_f f2 where f2.dk = p.a and f2.k2 = p.b)) order by d.name, d.id",
    "select f.id, d.w from cs_f f left join cs_d d on f.dk = d.id and d.w < 5 "
    "order by d.w nulls first, f.id",
    "select f.id, u.v from cs_f f join cs_dup u on f.k2 = u.k where f.id < 300 order by u.v, f.id",
    "select f.id, f.x + 1 as y from cs_f f where not exists (select 1 from cs_d d "
    "where d.id = f.dk) order by y desc, f.id",
    # two keys at once; keys of the probe side outside the build side's range
    "select count(*), sum(p.q) from cs_p p join cs_f f on p.a = f.dk and p.b = f.k2",
    "select count(*) from cs_f f join cs_d d on f.id = d.id + 3900",
    "select d.name, count(*) from cs_f f join cs_d d on f.dk = d.id group by d.name "
    "order by d.name",
    # GROUP BY over a grouped subquery
    "select c, count(*) from (select d.id, count(f.id) as c from cs_d d left join cs_f f "
    "on f.dk = d.id and f.s <> 'b' group by d.id) t group by c order by count(*) desc, c desc",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("colt_f", "colt_d", "colt_dup", "colt_empty",
                                                  "cs_f", "cs_d", "cs_p", "cs_dup"),
                            SETUP + SORT_SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


# ORDER BY a COLLATE expression has no vector sort key; a numeric with no typmod (values of
# several scales) is no vector key either: the vector join runs, then hands over to rows
VECTOR = [q for q in QUERIES if "collate" not in q and "f.n desc" not in q]


def test_a_fallback_says_why(conns) -> None:
    cu, pg = conns
    sql = next(q for q in QUERIES if "f.n desc" in q)
    cu.execute("set cumulo.columnar = on")
    try:
        lines = [r[0] for r in cu.execute("explain analyze " + sql).fetchall()]
    finally:
        cu.execute("reset cumulo.columnar")
    ran = [ln.strip() for ln in lines if ln.strip().startswith("Ran: ")]
    assert ran and ran[0].startswith("Ran: fell back: "), lines
    assert ran[-1].endswith("row plan"), lines


@pytest.mark.parametrize("sql", VECTOR)
def test_the_vector_form_runs(conns, sql: str) -> None:
    assert_vector_ran(conns[0], sql)


@pytest.mark.parametrize("sql", SORT_QUERIES)
def test_sorts_joins_and_nested_aggregates_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


def test_full_sort_over_a_join_runs_vectorized(conns) -> None:
    assert_vector_ran(conns[0], SORT_QUERIES[0], "ColumnarJoin")
    assert_vector_ran(conns[0], SORT_QUERIES[1], "ColumnarJoin")


def test_ctid_above_a_join_keeps_the_row_path(conns) -> None:
    cu, _ = conns
    sql = "select f.ctid, d.name from cs_f f join cs_d d on f.dk = d.id order by d.name, f.id"
    plan = [r[0] for r in cu.execute("explain " + sql).fetchall()]
    assert not any("sort join" in line for line in plan), plan
    assert all(r[0] is not None for r in cu.execute(sql).fetchall())
