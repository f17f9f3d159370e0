"""Ordered-set (percentile_cont/_disc, mode) and statistical (corr, covar_*, regr_*) aggregates
over a real table through psycopg, GROUP BY, with `cumulo.columnar` off and on: the vector
path declines them (they need each group's sorted values, or PostgreSQL's Youngs-Cramer
sums), so both runs and PostgreSQL 15 agree; beside them plain sum/count/avg still work.
The statement-level differential script is `ordered_set_aggregates` in test_sql_front_pg15.
"""

from __future__ import annotations

import pytest

from tests.integration.columnar_diff import assert_on_off_match_pg, connect_pair

SETUP = [
    "create table osa_t (id int primary key, g int, x float8, y numeric(8, 2), s text)",
    "insert into osa_t select i, i % 5, case when i % 17 = 0 then null else (i * 37 % 101) / 4.0 end, "
    "(i * 13 % 59) * 1.5, 'v' || (i % 4) from generate_series(1, 600) i",
]

QUERIES = [
    "select g, percentile_cont(0.5) within group (order by x), "
    "percentile_disc(array[0.1, 0.9]) within group (order by y desc), "
    "mode() within group (order by s), sum(y), count(*) from osa_t group by g order by g",
    "select g, corr(y, x), covar_samp(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x), "
    "regr_count(y, x), avg(x) from osa_t where id > 20 group by g order by g",
    "select s, percentile_cont(0.9) within group (order by y) filter (where g <> 2), "
    "regr_sxx(y, x) filter (where x > 5) from osa_t group by s order by s",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("osa_t",), SETUP)


def test_on_off_and_pg15_agree(conns) -> None:
    cu, pg = conns
    for sql in QUERIES:
        want = assert_on_off_match_pg(cu, pg, sql)
        assert len(want) >= 4 and all(v is not None for r in want for v in r), sql
