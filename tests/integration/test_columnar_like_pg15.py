"""Differential tests of LIKE / ILIKE on the vector path (one Arrow kernel per dictionary):
`cumulo.columnar` on and off agree, and both give PostgreSQL 15's answers.

The strings are made to catch a LIKE translation: NULLs, the empty string, a newline (`_`
matches it), literal `_`, `%` and `\\` escaped in patterns, a pattern that is only `%`,
upper and lower case for ILIKE, non-ASCII letters (`_` is one character, not one byte),
duplicates, and an empty table; over one table and under a vector join. EXPLAIN ANALYZE
proves that the vector form computed each query; psycopg and asyncpg read the answers.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from tests.integration.columnar_diff import (
    assert_on_off_match_pg,
    assert_vector_ran,
    connect_pair,
    rows,
)

WORDS = ["abc", "ABC", "a_c", "a%c", "a\\c", "a\nc", "", "straße", "STRASSE", "élan", "Élan",
         "x", "ab", "abcabc", "b_", "100%", None]
SETUP = [
    "create table colk_s (id int primary key, g int, s text, v varchar(12))",
    "create table colk_d (id int primary key, name text)",
    "create table colk_empty (id int primary key, s text)",
    "insert into colk_s select i, i % 5, (WORDS)[1 + i % N], 'v' || (i % 37) "
    "from generate_series(1, 3000) i",
    "insert into colk_d select i, (WORDS)[1 + (i * 7) % N] from generate_series(1, 1200) i",
]
PATTERNS = ["a_c", "a\\_c", "%\\%%", "a\\\\c", "%", "", "_", "%b%", "ABC", "stra_e", "%an",
            "a%", "%c"]


def _array() -> str:
    def lit(w: str | None) -> str:
        return "null" if w is None else "'" + w.replace("'", "''") + "'"

    return "array[" + ", ".join(lit(w) for w in WORDS) + "]::text[]"


def _setup() -> list[str]:
    return [x.replace("WORDS", _array()).replace(" N]", f" {len(WORDS)}]") for x in SETUP]


def _pat(p: str) -> str:
    return "'" + p.replace("'", "''") + "'"


QUERIES = [
    *(f"select g, count(*) from colk_s where s like {_pat(p)} group by g order by g"
      for p in PATTERNS),
    *(f"select count(*), count(s) from colk_s where s not like {_pat(p)}" for p in PATTERNS[:7]),
    # ILIKE over ASCII patterns (strings of any letters: non-ASCII ones keep Python's folding)
    *(f"select g, count(*) from colk_s where s ilike {_pat(p)} group by g order by g"
      for p in ["abc", "A_C", "%B%", "x", "%\\%", "ab%"]),
    "select count(*) from colk_s where s not ilike 'ABC'",
    "select s, count(*) from colk_s where s like '%a%' or s ilike 'X' group by s order by s",
    "select v, count(*) from colk_s where v like 'v1_' group by v order by v",
    "select count(*) from colk_empty where s like '%'",
    # under a vector join: LIKE on each side
    "select d.name, count(*) from colk_s s, colk_d d where s.id = d.id and d.name like 'a%' "
    "and s.s not like '%c' group by d.name order by d.name",
    "select count(*) from colk_s s join colk_d d on s.id = d.id where s.s ilike '%b%'",
]


@pytest.fixture(scope="module")
def conns(cumulo_server, pg15):
    yield from connect_pair(cumulo_server, pg15, ("colk_s", "colk_d", "colk_empty"), _setup())


@pytest.mark.parametrize("sql", QUERIES)
def test_on_off_and_pg15_agree(conns, sql: str) -> None:
    assert_on_off_match_pg(*conns, sql)


@pytest.mark.parametrize("sql", [q for q in QUERIES if "colk_empty" not in q])
def test_the_vector_form_runs(conns, sql: str) -> None:
    assert_vector_ran(conns[0], sql)


def test_non_ascii_ilike_is_unchanged(conns) -> None:
    """ILIKE over non-ASCII strings keeps the row path's case folding on both paths."""
    cu, _ = conns
    sql = "select s, count(*) from colk_s where s ilike '%LAN' or s ilike 'straSSe' " \
          "group by s order by s"
    cu.execute("set cumulo.columnar = off")
    off = rows(cu, sql)
    cu.execute("set cumulo.columnar = on")
    on = rows(cu, sql)
    cu.execute("reset cumulo.columnar")
    assert on == off and off


def test_asyncpg_reads_the_same(conns, cumulo_server, pg15) -> None:
    sql = "select g, count(*) from colk_s where s like 'a\\_c' or s like '%\\%' " \
          "group by g order by g"

    async def fetch(dsn: str) -> list[tuple]:
        c = await asyncpg.connect(dsn)
        try:
            await c.execute("set cumulo.columnar = on") if dsn == cumulo_server.dsn() else None
            return [tuple(r) for r in await c.fetch(sql)]
        finally:
            await c.close()

    got = asyncio.run(fetch(cumulo_server.dsn()))
    want = asyncio.run(fetch(pg15.dsn()))
    assert got == want and got
