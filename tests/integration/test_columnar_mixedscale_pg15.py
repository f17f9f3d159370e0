"""Differential tests of SUM / AVG over a numeric whose rows differ in scale, under GROUP BY
over a vector join (TPC-H Q8's `sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) /
sum(volume)`): `cumulo.columnar` on and off agree, both give PostgreSQL 15's answers, and
the text of each value (its scale) is PostgreSQL's.

PostgreSQL's numeric SUM has, per group, the largest scale among that group's rows: a group
whose rows all take the `ELSE 0` branch sums to `0`, one with a single `2.5000` to
`2.5000`. The groups are made to be of every kind: only ELSE rows, only THEN rows, mixed,
all NULL, and a group with a NULL key. The vector form (the join, the per-row scales and
their MAX per group) must run: EXPLAIN ANALYZE says so.
"""

from __future__ import annotations

import pytest

from tests.integration.columnar_diff import (
    assert_on_off_match_pg,
    columnar,
    connect_pair,
    printed,
    vector_ran,
)

SETUP = [
    "create table colx_n (id int primary key, name text)",
    "insert into colx_n select i, 'n' || (i % 5) from generate_series(1, 40) i",
    "create table colx_l (id int primary key, nid int, g int, price numeric(10,2), "
    "disc numeric(4,2), q int)",
    "insert into colx_l select i, i % 41, case when i % 97 = 0 then null else i % 9 end, "
    "case when i % 53 = 0 then null else (i % 211) * 1.25 end, (i % 10) * 0.01, i % 7 "
    "from generate_series(1, 3000) i",
]
VOL = "l.price * (1 - l.disc)"
QUERIES = [
    # Q8's shape: a share per group; group 0 sees only ELSE rows for 'n4'
    f"select l.g, sum(case when n.name = 'n1' then {VOL} else 0 end) / sum({VOL}) "
    "from colx_l l, colx_n n where l.nid = n.id group by l.g order by l.g nulls first",
    f"select l.g, sum(case when n.name = 'n4' and l.g > 0 then {VOL} else 0 end), "
    f"avg(case when l.q = 3 then l.price else 0 end), count(*) "
    "from colx_l l, colx_n n where l.nid = n.id group by l.g order by l.g nulls first",
    # a group whose rows are all NULL: SUM and AVG are NULL
    "select l.q, sum(case when l.q = 6 then null when n.name = 'n2' then l.price else 0 end) "
    "from colx_l l, colx_n n where l.nid = n.id group by l.q order by l.q",
    # several groups, keys from both sides
    "select n.name, l.q, sum(case when l.disc > 0.05 then l.disc else 0 end) "
    "from colx_l l, colx_n n where l.nid = n.id group by n.name, l.q order by 1, 2",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("colx_n", "colx_l"), SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree_to_the_scale(conns, sql: str) -> None:
    cu, pg = conns
    assert_on_off_match_pg(cu, pg, sql)
    want = printed(pg, sql)
    with columnar(cu, "on"):
        assert printed(cu, sql) == want
        assert vector_ran(cu, sql)
    with columnar(cu, "off"):
        assert printed(cu, sql) == want


def test_groups_of_several_scales_exist(conns) -> None:
    _, pg = conns
    scales = {len(r[1].split(".")[1]) if "." in r[1] else 0
              for r in printed(pg, QUERIES[1]) if r[1] is not None}
    assert len(scales) > 1, scales
