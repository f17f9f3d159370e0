"""Wrong answers clients' test suites met (issue 16), diffed with PostgreSQL 15.

Each script runs statement by statement on PostgreSQL 15 and on Cumulo (the runner of
`test_statements_pg15`): status, rows, SQLSTATE and message must match. The cases that
were wrong answers are also fetched through asyncpg (binary format, its own codecs), so
a second client sees PostgreSQL's values too.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from tests.integration.test_statements_pg15 import assert_same_outcomes

SCRIPTS = {
    # MIN/MAX over an enum column follow the declared order, not the labels' text order,
    # whether grouped or not, and with a pushed filter under them.
    "enum_min_max": """
create type wa_mood as enum ('sad', 'ok', 'happy');
create table wa_e (id int primary key, g int, m wa_mood);
insert into wa_e values (1, 1, 'happy'), (2, 1, 'sad'), (3, 2, 'ok'), (4, 2, 'happy'), (5, 2, null);
select min(m), max(m) from wa_e;
select g, min(m), max(m), count(m) from wa_e group by g order by g;
select min(m), max(m) from wa_e where id > 1;
select max(m)::text from wa_e where g = 2;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"wa_{name}", SCRIPTS[name])


ASYNCPG_QUERIES = (
    "select min(m)::text, max(m)::text from wa_e",
    "select g, min(m)::text, max(m)::text from wa_e group by g order by g",
    "select min(m)::text from wa_e where m <> 'sad'",
)


def test_enum_min_max_through_asyncpg(servers):
    """The same table, read through asyncpg's binary protocol, gives PostgreSQL's rows."""
    pg, cu = servers
    assert_same_outcomes(pg, cu, "wa_async_enum", SCRIPTS["enum_min_max"])
    exp = asyncio.run(_fetch(pg.dsn(db="wa_async_enum")))
    got = asyncio.run(_fetch(cu.dsn(dbname="wa_async_enum")))
    assert got == exp
    assert exp == [[("sad", "happy")], [(1, "sad", "happy"), (2, "ok", "happy")], [("ok",)]]


async def _fetch(dsn: str) -> list[list[tuple]]:
    conn = await asyncpg.connect(dsn)
    try:
        return [[tuple(r) for r in await conn.fetch(q)] for q in ASYNCPG_QUERIES]
    finally:
        await conn.close()
