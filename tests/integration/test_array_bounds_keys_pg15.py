"""Arrays that differ only in their lower bounds are different keys and sort apart, as in
PostgreSQL 15.

array_eq compares the bounds ('[2:3]={1,2}' <> '{1,2}'), so GROUP BY, DISTINCT, count(DISTINCT),
UNION/EXCEPT/INTERSECT, hash joins and IN keep them apart; array_cmp orders by the elements
in storage order, then the number of elements, of dimensions, the dimensions and the lower
bounds, so `<`, ORDER BY, min/max and greatest/least see the bounds (and '{{1,2}}' against
'{1,2}' is an answer, not an error). Cumulo grouped and joined them as one value, and
ordered them as equal. Compared through psycopg and asyncpg, on literals and on a table.
"""

from __future__ import annotations

import asyncio

from tests.integration.stmtdiff import (
    assert_same,
    asyncpg_rows_outcomes,
    fresh_databases,
    rows_outcomes,
)

_V = ("(values ('[2:3]={1,2}'::int[]), ('{1,2}'::int[]), ('{1,2}'::int[]), ('[0:1]={1,2}'::int[]),"
      " ('{1,3}'::int[]), ('{1}'::int[]), ('[0:0]={1}'::int[]), ('{{1,2}}'::int[]),"
      " ('{1,null}'::int[]), ('{}'::int[]), (null)) v(x)")

_SETUP = ["create table ta (id int primary key, x int[])",
          "insert into ta values (1, '[2:3]={1,2}'), (2, '{1,2}'), (3, '{1,2}'), "
          "(4, '[0:1]={1,2}'), (5, '{{1,2}}'), (6, '{1}'), (7, null)",
          "create table tb (id int primary key, y int[])",
          "insert into tb values (1, '{1,2}'), (2, '[2:3]={1,2}'), (3, '{{1,2}}')"]

_CASES = [
    f"select x::text, count(*) from {_V} group by x order by 1",
    f"select count(distinct x), count(x) from {_V}",
    f"select distinct x::text from {_V} order by 1",
    f"select x::text as t from {_V} order by x",
    f"select x::text as t from {_V} order by x desc nulls last",
    f"select max(x)::text, min(x)::text from {_V}",
    "select '[2:3]={1,2}'::int[] < '{1,2}'::int[], '[2:3]={1,2}'::int[] > '{1,2}'::int[], "
    "'[0:1]={1,2}'::int[] < '{1,2}'::int[], '[2:3]={1,2}'::int[] <= '{1,2}'::int[], "
    "'[2:3]={1,2}'::int[] >= '{1,2}'::int[]",
    "select '{{1,2}}'::int[] < '{1,2}'::int[], '{1,2}'::int[] < '{{1,2}}'::int[]",
    "select greatest('{1,2}'::int[], '[2:3]={1,2}'::int[])::text, "
    "least('{1,2}'::int[], '[2:3]={1,2}'::int[])::text",
    "select row(1, '[2:3]={1,2}'::int[]) < row(1, '{1,2}'::int[])",
    "select x::text from (values ('[2:3]={1,2}'::int[])) a(x) join (values ('{1,2}'::int[])) b(y)"
    " on x = y",
    f"select x::text from {_V} union select '{{1,2}}' order by 1",
    f"select x::text from {_V} except select '{{1,2}}' order by 1",
    f"select x::text from {_V} intersect select '{{1,2}}' order by 1",
    f"select x::text from {_V} where x in ('{{1,2}}', '{{3}}') order by 1",
    f"select x::text from {_V} where x in (select '[2:3]={{1,2}}'::int[]) order by 1",
    # a table: its scans, hash joins and aggregates
    "select x::text, count(*) from ta group by x order by 1",
    "select count(distinct x) from ta",
    "select ta.id, tb.id from ta join tb on ta.x = tb.y order by 1, 2",
    "select id from ta where x in (select y from tb) order by 1",
    "select id from ta where x not in (select y from tb where y is not null) order by 1",
    "select id, x::text from ta order by x, id",
    "select max(x)::text, min(x)::text from ta",
]


def test_array_bounds_keep_keys_and_order_apart_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "array_bounds_keys")
    expected = rows_outcomes(pg, _CASES, _SETUP)
    assert expected[1] == (_CASES[1], [(9, 10)])
    assert_same(expected, rows_outcomes(cu, _CASES, _SETUP))
    assert asyncio.run(asyncpg_rows_outcomes(cu, _CASES)) == \
        asyncio.run(asyncpg_rows_outcomes(pg, _CASES))
