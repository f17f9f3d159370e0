"""Error positions (the ErrorResponse P field) compared with PostgreSQL 15.

psql prints `LINE 1:` and a caret under the offending token from the P field,
and psycopg exposes it as `diag.statement_position`. For each statement below
both servers must agree on the SQLSTATE, the primary message and the position:
syntax errors at various points (including `at end of input`) and literals that
do not cast (`'abc'::int`) in a SELECT list, in INSERT VALUES and in WHERE, and
the names, operators, ordinals and aggregates that binding rejects.
"""

from __future__ import annotations

import subprocess

import psycopg
import pytest

SETUP = "create table ep (a int, b numeric, d date)"

STATEMENTS = [
    "select 1 from ep where;",
    "select 1 from ep where",
    "select 1 from ep where   ",
    "select $1",
    "select 1; select 2 + $1",
    "select * from ep where a = ;",
    "select a b c from ep",
    "select * from ep limit",
    "select * from ep order by",
    "update ep set a = where a = 1",
    "select a from ep where a in (1, 2",
    "select 1\nfrom ep\nwhere",
    "selec 1",
    "select (1",
    "select 1 +",
    "insert into ep values (1,",
    "select 'abc'::int",
    "select 1, 'abc'::integer",
    "select 'x'::numeric",
    "select 'nope'::date",
    "select 'abc'::int + 1 from ep",
    "insert into ep values ('abc', 1, '2020-01-01')",
    "insert into ep (a) values ('1.5')",
    "insert into ep values (1, 'zz', '2020-01-01')",
    "insert into ep values (1, 2, 'notadate')",
    "select * from ep where a = 'abc'",
    "select * from ep where a = 'abc'::int",
    "select * from ep where d > 'bad'",
    "select * from ep where a = 1 and b = 'q'::numeric",
    "select 'it''s'::int",
    "select '99999999999'::int",
    "select '2020-13-45'::date",
    "select '25:00:99'::time",
    "select nosuch from ep",
    "select a from nosuch",
    "select nofn(1)",
    "select a + 'x'::text from ep",
    "select * from ep where a = 1 and zz = 2",
    "select 1::nosuchtype",
    "insert into ep (a, zz) values (1, 2)",
    "update ep set zz = 1",
    "select a from ep x, ep y",
    "select y.a, a from ep x, ep y where x.a = 1",
    "select x.a from ep",
    "select 1 / 0",
    "select cast('abc' as int)",
    "select int 'abc'",
    "select a from ep order by 5",
    "select a from ep group by b",
    "select sum(a) from ep where sum(a) > 1",
    "select a from ep where a >= 'x'::text",
    "select nofn(a), nofn(b) from ep",
    "select -- nosuch\n  a, 'nosuch' from ep where nosuch = 1",
    "select a from ep\norder by 1, 7",
    "select a from ep where a = 1 and count(*) > 0",
    "select * from ep limit 'x'",
]


def _error(dsn: str, sql: str) -> tuple[str | None, str, str | None]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("drop table if exists ep")
        conn.execute(SETUP)
        try:
            conn.execute(sql)
        except psycopg.Error as e:
            return e.sqlstate, e.diag.message_primary or "", e.diag.statement_position
    return None, "no error", None


@pytest.mark.parametrize("sql", STATEMENTS)
def test_position_matches_pg15(cumulo_server, pg15, sql):
    expected = _error(pg15.dsn(), sql)
    assert expected[0] is not None, "the statement must fail on PostgreSQL"
    assert _error(cumulo_server.dsn(), sql) == expected


def _psql_caret(dsn: str, sql: str) -> list[str]:
    res = subprocess.run(["psql", dsn, "-X", "-q", "-c", sql], capture_output=True, text=True,
                         timeout=60)
    return [x for x in res.stderr.splitlines() if x.startswith("LINE") or x.strip() == "^"
            or x.startswith(" ")]


@pytest.mark.parametrize("sql", [
    "select 'abc'::int", "select * from ep where;", "select 1; select 'abc'::int",
    "select 1;\nselect * from ep\nwhere a = ;", "select * from ep where   "])
def test_psql_prints_the_caret(cumulo_server, pg15, sql):
    expected = _psql_caret(pg15.dsn(), sql)
    assert any(x.startswith("LINE ") for x in expected)
    assert _psql_caret(cumulo_server.dsn(), sql) == expected
