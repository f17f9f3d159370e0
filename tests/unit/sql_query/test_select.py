"""End-to-end SELECT semantics through COMPILER.plan_query over the in-memory tables."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest

from .harness import DB


@pytest.fixture(scope="module")
def db() -> DB:
    return DB()


CASES = [
    ("select 1", [(1,)]),
    ("select a + 1 as x, b from t where a > 1 order by a desc",
     [(5, None), (4, "three"), (3, "two")]),
    ("select count(*), sum(a), avg(c) from t", [(4, 10, Decimal("1.2500000000000000"))]),
    ("select * from tv", [(2, "two"), (3, "three"), (4, None)]),
    ("select y, count(*) from u group by 1 having count(*) > 0 order by y nulls first",
     [(None, 1), ("a", 1), ("b", 1), ("c", 1)]),
    ("select distinct x from u order by x", [(1,), (2,), (5,)]),
    ("select distinct on (x) x, y from u order by x, y desc", [(1, "a"), (2, "c"), (5, None)]),
    ("select x from u union select a from t order by 1", [(1,), (2,), (3,), (4,), (5,)]),
    ("select x from u intersect all select a from t order by 1", [(1,), (2,)]),
    ("select x from u except select a from t", [(5,)]),
    ("with recursive r(n) as (select 1 union all select n+1 from r where n<5) select sum(n) from r",
     [(15,)]),
    ("select a, y from t join u on t.a = u.x order by a, y", [(1, "a"), (2, "b"), (2, "c")]),
    ("select a, y from t left join u on t.a = u.x order by a, y",
     [(1, "a"), (2, "b"), (2, "c"), (3, None), (4, None)]),
    ("select a, x from t full join u on t.a = u.x order by a, x",
     [(1, 1), (2, 2), (2, 2), (3, None), (4, None), (None, 5)]),
    ("select a, x from t right join u on t.a = u.x order by x", [(1, 1), (2, 2), (2, 2), (None, 5)]),
    ("select a, y from t join u on a = x join u u2 using (x, y) order by 1, 2",
     [(1, "a"), (2, "b"), (2, "c")]),
    ("select count(*) from t, u", [(16,)]),
    ("select t.a, (select count(*) from u where u.x = t.a) from t order by 1",
     [(1, 1), (2, 2), (3, 0), (4, 0)]),
    ("select a from t where exists (select 1 from u where u.x = t.a) order by 1", [(1,), (2,)]),
    ("select a from t where a in (select x from u) order by 1", [(1,), (2,)]),
    ("select a from t where a not in (select x from u where x is not null) order by 1",
     [(3,), (4,)]),
    ("select * from generate_series(1,3) g", [(1,), (2,), (3,)]),
    ("select generate_series(1,3), 5", [(1, 5), (2, 5), (3, 5)]),
    ("select unnest(array[1,2,3]) as v", [(1,), (2,), (3,)]),
    ("select a, row_number() over (order by a desc), rank() over (partition by a % 2 order by a),"
     " sum(a) over (order by a) from t order by a",
     [(1, 4, 1, 1), (2, 3, 1, 3), (3, 2, 2, 6), (4, 1, 2, 10)]),
    ("select a, lag(a) over (order by a), lead(a, 2, -1) over (order by a) from t order by a",
     [(1, None, 3), (2, 1, 4), (3, 2, -1), (4, 3, -1)]),
    ("select string_agg(b, ',' order by a desc), array_agg(a order by a desc), bool_and(a > 0),"
     " bool_or(a > 3), count(b) from t", [("three,two,one", [4, 3, 2, 1], True, True, 3)]),
    ("select count(distinct x) from u", [(3,)]),
    ("select a from t order by a limit 2 offset 1", [(2,), (3,)]),
    ("select * from (values (1,'a'),(2,'b')) v(p,q) where p > 1", [(2, "b")]),
    ("select a from t where b like 't%' or b ilike 'ON%' order by a", [(1,), (2,), (3,)]),
    ("select 5/2, -7/2, -7 % 3, 1.5 * 2, 'a' < 'b', 10::int2 * 2",
     [(2, -3, -1, Decimal("3.0"), True, 20)]),
    ("select case when a > 2 then 'big' when a > 1 then 'mid' else 'small' end,"
     " coalesce(b, 'none'), nullif(a, 2), greatest(a, 2), least(a, 2) from t order by a",
     [("small", "one", 1, 2, 1), ("mid", "two", None, 2, 2), ("big", "three", 3, 3, 2),
      ("big", "none", 4, 4, 2)]),
    ("select a from t where a between 2 and 3 and b is not null", [(2,), (3,)]),
    ("select (1,2) < (1,3), 1 is distinct from null, null::int is not distinct from null",
     [(True, True, True)]),
    ("select a = any(array[1,2]), a <> all(array[1,2]) from t order by a",
     [(True, False), (True, False), (False, True), (False, True)]),
    ("select c.a from t c cross join lateral (select c.a * 2 as d) s where s.d > 4 order by 1",
     [(3,), (4,)]),
    ("select date '2024-01-31' + 1, timestamp '2024-01-01 10:00' - timestamp '2024-01-01 08:30'",
     [(dt.date(2024, 2, 1), dt.timedelta(seconds=5400))]),
    ("select max(b), min(a) from t", [("two", 1)]),
    ("select a from t order by b nulls first", [(4,), (1,), (3,), (2,)]),
    ("select a from t order by b desc nulls last", [(2,), (3,), (1,), (4,)]),
    ("select x, sum(x) from u group by x order by x", [(1, 1), (2, 4), (5, 5)]),
    ("select x * 2 as d, count(*) from u group by d order by d", [(2, 1), (4, 2), (10, 1)]),
    ("select count(*) filter (where x > 1) from u", [(3,)]),
    ("select 1 where false", []),
    ("select count(*) from t where false", [(0,)]),
    ("select (array[10,20,30])[2]", [(20,)]),
    ("with w as (select a from t where a < 3) select * from w a1 join w a2 on a1.a = a2.a order by 1",
     [(1, 1), (2, 2)]),
    ("select * from unnest(array['x','y']) with ordinality u(v, n)", [("x", 1), ("y", 2)]),
    ("select 'ab' ~ '^a', 'AB' ~* 'b$', 'ab' !~ 'c', 'a' || 1 || null", [(True, True, True, None)]),
]


@pytest.mark.parametrize("sql,expected", CASES, ids=[c[0][:60] for c in CASES])
def test_query(db: DB, sql: str, expected: list) -> None:
    assert db.rows(sql) == expected


def test_output_columns(db: DB) -> None:
    assert db.cols("select count(*), sum(a), avg(a), max(b), a from t group by a") == [
        ("count", 20), ("sum", 20), ("avg", 1700), ("max", 25), ("a", 23)]
    assert db.cols("select 1, 'x', true, a::text, 1::int8, sum(1::int8) from t group by a") == [
        ("?column?", 23), ("?column?", 25), ("?column?", 16), ("a", 25), ("int8", 20), ("sum", 1700)]
    plan, _ = db.plan("select filler, aid from pgbench_accounts")
    assert [(c.table_oid, c.attnum, c.typmod) for c in plan.columns] == [
        (16400, 4, 88), (16400, 1, -1)]


def test_row_key_is_the_encoded_key_and_ctid_a_tid(db: DB) -> None:
    from cumulo.server.sql.catalog.syscols import ROW_KEY
    from cumulo.server.sql.exec.keys import encode_key

    assert db.rows(f"select {ROW_KEY}, a from t where a = 2") == [(encode_key((2,)), 2)]
    assert db.rows(f"select {ROW_KEY} from t order by a limit 1") == [(encode_key((1,)),)]
    (tid, a), = db.rows("select ctid, a from t where a = 2")
    assert re.fullmatch(r"\(\d+,\d+\)", tid) and a == 2
    assert db.rows("select ctid from t where a = 2") == [(tid,)]  # the same in every read


def test_params_and_reuse(db: DB) -> None:
    plan, params = db.plan("select a from t where a > $1 and b <> $2 order by a limit $3")
    assert params.oids == [23, 25, 20]
    for args, want in (([1, "x", 10], [(2,), (3,)]), ([2, "two", 1], [(3,)])):
        rows = [r for b in plan.execute(db.ctx(args)) for r in b]
        assert rows == want


def test_correlated_scalar_subquery_in_case(db: DB) -> None:
    sql = ("select a, case when a > 2 then (with recursive r(n) as (select 1 union all "
           "select n + 1 from r where n < t.a) select count(*) from r) end from t order by a")
    assert db.rows(sql) == [(1, None), (2, None), (3, 3), (4, 4)]


MORE = [
    ("select * from u natural join u u2 order by 1", [(1, "a"), (2, "b"), (2, "c")]),
    ("values (1), (2) order by 1 desc", [(2,), (1,)]),
    ("(select 1 as q) union (select 2) order by 1 desc limit 1", [(2,)]),
    ("select a, b from t where (a, b) in ((1, 'one'), (2, 'x'))", [(1, "one")]),
    ("select a from t where a = any('{1,3}'::int[]) order by a", [(1,), (3,)]),
    ("select a, sum(a) over (), count(*) over (partition by a > 2) from t order by a",
     [(1, 10, 2), (2, 10, 2), (3, 10, 2), (4, 10, 2)]),
    ("select exists(select 1 from u where x = 99), not exists(select 1)", [(False, False)]),
    ("select array(select x from u order by x)", [([1, 2, 2, 5],)]),
    ("select t.a from t left join u on t.a = u.x and u.y = 'b' where u.x is null order by 1",
     [(1,), (3,), (4,)]),
    ("select x, rank() over w from u window w as (order by x) order by x",
     [(1, 1), (2, 2), (2, 2), (5, 4)]),
    ("select * from (select a, b from t order by a desc limit 2) s order by a",
     [(3, "three"), (4, None)]),
]


@pytest.mark.parametrize("sql,expected", MORE, ids=[c[0][:60] for c in MORE])
def test_more_queries(db: DB, sql: str, expected: list) -> None:
    assert db.rows(sql) == expected


def test_group_by_primary_key_allows_dependent_columns(db: DB) -> None:
    assert db.rows("select a, b, count(*) from t join u on a = x group by a order by a") == [
        (1, "one", 1), (2, "two", 2)]
    from cumulo.server.errors import GroupingError

    with pytest.raises(GroupingError):
        db.rows("select x, y from u group by x")
