"""array || array and array_cat refuse arrays whose shapes do not fit, as PostgreSQL 15 does.

PostgreSQL's array_cat joins arrays of as many dimensions along the first one, or takes
an array of one dimension fewer as one more element; every other dimension, and its lower
bound, must match, else 2202E "cannot concatenate incompatible arrays" with a DETAIL
naming which rule failed. Cumulo joined the lists whatever their shapes
(`{{1,2}} || [0:1]={3,4}` answered {{1,2},{3,4}}). ARRAY[x, y], array_agg and ARRAY(SELECT)
of arrays also need equal lower bounds, and keep them as the result's inner ones (Cumulo
joined '[0:1]' arrays with '{...}' ones and dropped their bounds). Compared through psycopg
and asyncpg.
"""

from __future__ import annotations

import asyncio

from tests.integration.stmtdiff import asyncpg_rows_outcomes, rows_outcomes

_CASES = [
    "select '{{1,2}}'::int[] || '[0:1]={3,4}'::int[]",
    "select '{{1,2}}'::int[] || '{{3,4,5}}'::int[]",
    "select '{{1,2}}'::int[] || '{3,4,5}'::int[]",
    "select '{{1,2}}'::int[] || '{{{3}}}'::int[]",
    "select '{1}'::int[] || '{{{3}}}'::int[]",
    "select '[0:1]={1,2}'::int[] || '{{3,4}}'::int[]",
    "select '{{1,2}}'::int[] || '[5:5][0:1]={{3,4}}'::int[]",
    "select array_cat('{{1,2}}'::int[], '[0:1]={3,4}'::int[])",
    "select array_cat('{1,2}'::int[], '{{3,4},{5,6,7}}'::int[])",
    # what fits: the result and its dimensions
    "select '{{1,2}}'::int[] || '{{3,4}}'::int[]",
    "select '{1,2}'::int[] || '{{3,4},{5,6}}'::int[]",
    "select '{{1,2}}'::int[] || '{3,4}'::int[]",
    "select ('[5:5][1:2]={{1,2}}'::int[] || '[7:7][1:2]={{3,4}}'::int[])::text",
    "select ('[0:1]={3,4}'::int[] || '[5:5][0:1]={{1,2}}'::int[])::text",
    "select ('[5:5][0:1]={{1,2}}'::int[] || '[0:1]={3,4}'::int[])::text",
    "select ('[2:3]={1,2}'::int[] || '{3}'::int[])::text",
    "select '{}'::int[] || '{{1}}'::int[], '{{1}}'::int[] || null::int[]",
    "select (array[row(1, 2)] || array[row(3, 4)])::text",
    "select (array[row('{1}'::int[], 1)] || array[row('{1,2}'::int[], 2)])::text",
    "select array['a b', 'c'] || array['d']::text[]",
    # ARRAY[...] of arrays, array_agg and ARRAY(SELECT) of arrays: equal shapes and lower
    # bounds, which the result keeps as its inner ones
    "select array[x, y] from (values ('{1,2}'::int[], '[0:1]={3,4}'::int[])) v(x, y)",
    "select array[x, y]::text from (values ('[0:1]={1,2}'::int[], '[0:1]={3,4}'::int[])) v(x, y)",
    "select array[x, y]::text from (values ('[0:1]={1,2}'::int[], null::int[])) v(x, y)",
    "select array[x, y]::text from (values (null::int[], null::int[])) v(x, y)",
    "select array_agg(x) from (values ('{1,2}'::int[]), ('[0:1]={3,4}'::int[])) v(x)",
    "select array_agg(x)::text from (values ('[0:0][2:2]={{1}}'::int[]), ('[0:0][2:2]={{3}}'::int[])) v(x)",
    "select g, array_agg(x)::text from (values (1, '[0:1]={1,2}'::int[]), (1, '[0:1]={3,4}'::int[]),"
    " (2, '{5}'::int[])) v(g, x) group by g order by g",
    "select array(select x from (values ('[0:1]={1,2}'::int[]), ('[0:1]={3,4}'::int[])) v(x))::text",
    "select array(select x from (values ('[0:1]={1,2}'::int[]), ('{3,4}'::int[])) v(x))",
]


def test_array_concatenation_checks_shapes_as_pg15(pg15, cumulo_server):
    expected = rows_outcomes(pg15.dsn(), _CASES, detail=True)
    assert expected[0] == (_CASES[0], "2202E", "cannot concatenate incompatible arrays",
                           "Arrays with differing dimensions are not compatible for "
                           "concatenation.")
    assert rows_outcomes(cumulo_server.dsn(), _CASES, detail=True) == expected
    assert asyncio.run(asyncpg_rows_outcomes(cumulo_server.dsn(), _CASES, detail=True)) == \
        asyncio.run(asyncpg_rows_outcomes(pg15.dsn(), _CASES, detail=True))
