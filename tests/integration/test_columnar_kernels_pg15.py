"""Differential tests of the vector kernels for `substring` and integer `mod` / `%`:
`cumulo.columnar` on and off agree, and both give PostgreSQL 15's answers, errors included.

substring counts characters (non-ASCII strings), takes a start of 0 or below (the count
still ends where SQL says), no count, a count past the end, NULL strings and NULL bounds;
a negative count is 22011. mod keeps the dividend's sign, `min % -1` is 0, NULL on either
side is NULL, and a zero divisor is 22012 (only in a row that is not NULL). The kernels
run in filters, grouping keys and aggregates; EXPLAIN ANALYZE proves the vector form ran.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.columnar_diff import (
    assert_on_off_match_pg,
    assert_vector_ran,
    connect_pair,
    rows,
)

SETUP = [
    "create table colm_t (id int primary key, g int, a int, b int, big bigint, s text, "
    "v varchar(20), c char(4))",
    "insert into colm_t select i, i % 7, (i * 37) % 201 - 100, "
    "case when i % 11 = 0 then null else (i % 9) - 4 end, "
    "case when i = 5 then -9223372036854775808 else i * 1000003 - 4000000 end, "
    "case when i % 13 = 0 then null when i % 5 = 0 then 'straße' || i when i % 5 = 1 then '' "
    "else 'abc' || i end, 'élan' || (i % 17), case when i % 19 = 0 then null else 'x' || (i % 3) "
    "end from generate_series(1, 2000) i",
    "create table colm_z (id int primary key, a int, b int)",
    "insert into colm_z values (1, 5, 0), (2, 7, 2), (3, null, 0)",
]
QUERIES = [
    "select g, count(*), sum(a % 7), min(a % -3), max(mod(a, 5)) from colm_t group by g order by g",
    "select a % 4 as r, count(*) from colm_t group by r order by r",
    "select count(*) from colm_t where mod(big, 1000) = -3",
    "select g, sum(big % 97) from colm_t where b is not null and b <> 0 and a % b = 0 "
    "group by g order by g",
    "select big % -1, count(*) from colm_t group by 1 order by 1",
    # the int64 minimum and values past 2**52: exact (the row code's mod divided in floats)
    "select mod(big, 1000) r, count(*) from colm_t where big < -3000000 group by r order by r",
    "select id, mod(9223372036854775807 - id, 10), mod(big, -7) from colm_t where id < 9 "
    "order by id",
    "select count(*) from colm_t where 1000 % (g + 1) = 0",
    "select substring(s, 1, 1) k, count(*) from colm_t group by k order by k",
    "select substr(s, 2) k, count(*) from colm_t where substr(s, 2) > 'b' group by k "
    "order by k limit 20",
    "select substring(s, 0, 3) k, count(*) from colm_t group by k order by k",
    "select substring(s, -2, 5) k, count(*) from colm_t group by k order by k",
    "select substring(s, 5, 2) k, count(*) from colm_t group by k order by k",
    "select substring(s, 50) k, count(*) from colm_t group by k order by k",
    "select substring(v, 2, 3) k, count(*) from colm_t group by k order by k",
    "select g, count(*) from colm_t where substring(s, 1, 1) <> 'a' group by g order by g",
    "select substring(s, 1, null::int) k, count(*) from colm_t group by k order by k",
    "select count(*) from colm_t where substring(s, 1, 3) = 'str'",
    # casts of string columns to text / varchar, per dictionary entry: char(n) loses its
    # padding (CH-benCHmark Q7's substring(c_state from 1 for 1)), varchar(n) cuts
    "select substring(c from 1 for 1) k, count(*) from colm_t group by k order by k",
    "select c::text || '|' k, count(*) from colm_t where c::text <> 'x1' group by k order by k",
    "select v::varchar(3) k, count(*) from colm_t group by k order by k",
    # constant arithmetic (the simple protocol makes it `$1 + $2`): one value per execution
    "select g, count(*) from colm_t where a between 1 - 50 and 1 + 10 and b >= -(2 * 1) "
    "group by g order by g",
]
ERRORS = [
    ("select count(*) from colm_z where a % b = 1", "22012"),
    ("select sum(mod(a, b)) from colm_z", "22012"),
    ("select count(*) from colm_t where substring(s, 1, -1) = ''", "22011"),
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("colm_t", "colm_z"), SETUP)


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert assert_on_off_match_pg(*conns, sql)


def _error(conn: psycopg.Connection, sql: str) -> str | None:
    try:
        conn.execute(sql).fetchall()
    except psycopg.Error as ex:
        return ex.sqlstate
    return None


@pytest.mark.parametrize("sql,state", ERRORS)
def test_errors_as_pg15(conns, sql: str, state: str) -> None:
    cu, pg = conns
    assert _error(pg, sql) == state
    for mode in ("off", "on"):
        cu.execute(f"set cumulo.columnar = {mode}")
        assert _error(cu, sql) == state, mode
    cu.execute("reset cumulo.columnar")
    assert cu.execute("select 1").fetchone() == (1,)  # the session goes on


def test_a_zero_divisor_in_a_null_row_is_no_error(conns) -> None:
    cu, pg = conns
    sql = "select id, a % b from colm_z where id <> 1 order by id"
    want = rows(pg, sql)
    for mode in ("off", "on"):
        cu.execute(f"set cumulo.columnar = {mode}")
        assert rows(cu, sql) == want == [(2, 1), (3, None)]
    cu.execute("reset cumulo.columnar")


@pytest.mark.parametrize("sql", [q for q in QUERIES if q.startswith((
    "select g, count(*), sum(a % 7)", "select a % 4", "select substring(s, 1, 1) k",
    "select g, count(*) from colm_t where substring"))])
def test_the_vector_form_runs(conns, sql: str) -> None:
    assert_vector_ran(conns[0], sql)
