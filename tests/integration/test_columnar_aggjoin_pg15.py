"""Differential tests of an aggregate with AVG feeding a vector join (CH-benCHmark Q17's shape:
`... FROM order_line, (SELECT i_id, AVG(ol_quantity) AS a ... GROUP BY i_id) t WHERE
ol_quantity < t.a`): `cumulo.columnar` on and off agree, and both give PostgreSQL 15's answers.

PostgreSQL's AVG over integers has a scale per value (1.5000000000000000 beside
1000000.5000000000), so the averages are made to differ in scale: large and small groups, a
group whose values are all NULL (AVG NULL), float averages with NaN. The averages are then
compared in the join (exact, by row code over the Decimals), used as group keys, and taken
MIN / MAX / SUM / COUNT of, where PostgreSQL prints each value's own scale.
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
    "create table cola_item (id int primary key, data text)",
    "insert into cola_item select i, 'it' || (i % 7) || case when i % 3 = 0 then 'b' else 'a' end "
    "from generate_series(1, 400) i",
    "create table cola_line (id int primary key, iid int, q int, amt numeric(8,2), x float8)",
    "insert into cola_line select i, i % 420, case when i % 50 = 0 then null "
    "when i % 400 < 5 then 1000000 + i % 3 else i % 11 end, (i % 97) * 1.25, "
    "case when i % 61 = 0 then 'NaN' else (i % 13) * 0.5 end from generate_series(1, 6000) i",
    "update cola_line set q = null where iid = 7",
]

SUB = "(select i.id, avg(l.q) as a, avg(l.x) as ax from cola_item i, cola_line l " \
      "where i.data like '%b' and l.iid = i.id group by i.id)"
QUERIES = [
    # CH-benCHmark Q17's shape: the average compared in the join
    f"select sum(l.amt) / 2.0 from cola_line l, {SUB} t where l.iid = t.id and l.q < t.a",
    f"select count(*), sum(l.amt) from cola_line l, {SUB} t where l.iid = t.id and l.q >= t.a",
    f"select count(*) from cola_line l, {SUB} t where l.iid = t.id and l.x < t.ax",
    # the averages themselves: keys, MIN / MAX / SUM / COUNT (each value's own scale)
    f"select t.a, count(*) from cola_line l, {SUB} t where l.iid = t.id group by t.a "
    "order by t.a nulls first",
    f"select min(t.a), max(t.a), sum(t.a), count(t.a) from cola_line l, {SUB} t "
    "where l.iid = t.id",
    f"select count(*), max(t.ax) from cola_line l, {SUB} t where l.iid = t.id and t.a > 5",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("cola_item", "cola_line"), SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    cu, pg = conns
    want = assert_on_off_match_pg(cu, pg, sql)
    with columnar(cu, "on"):
        text = printed(cu, sql)
    if "nan" not in repr(want).lower():
        assert text == printed(pg, sql)


def test_the_averages_have_several_scales(conns) -> None:
    _, pg = conns
    scales = {str(r[0]).split(".")[1].__len__() for r in pg.execute(
        f"select a from {SUB} t where a is not null")}
    assert len(scales) > 1, scales


def test_q17_runs_by_vector_code(conns) -> None:
    with columnar(conns[0], "on") as cu:
        assert vector_ran(cu, QUERIES[0])
        assert vector_ran(cu, QUERIES[2])
