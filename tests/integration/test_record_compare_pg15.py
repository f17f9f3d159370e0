"""Records compared, cast and turned into JSON as PostgreSQL 15 does (issue 16, item 2).

Two row constructors compare field by field with SQL's NULL rules
(`ROW(1, NULL) = ROW(1, NULL)` is NULL), but anything else of a record type,
a whole-row reference first of all, compares with record_eq / record_cmp:
NULL fields equal each other and sort last, so `t = t` is true whatever `t`
holds. `t.*` in an expression is the whole row (`t.*::text`,
`row_to_json(t.*)`, `json_agg(t.*)`) and goes out typed with the table's row
type (pg_class.reltype; a subquery's row stays `record`), and a record-typed column that is not a
table's row (`ROW(a, b) AS r` from a subquery) becomes a JSON object with
PostgreSQL's f1, f2, ... keys. Checked in the bytes each server sends, text
and binary (`typediff`); pg8000 and asyncpg then read `t = t` the same way.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pg8000.native
import pytest

from tests.integration.typediff import assert_same_as_pg15
from tests.pg15 import PASSWORD

STATEMENTS = """
create table rr (a int, b text, c float8)
insert into rr values (1, null, 'NaN'), (null, null, null), (2, 'x', 1.5)
select a, t = t, t <> t, t is distinct from t, t is not distinct from t from rr t order by a
select a, t = row(1, null::text, 'NaN'::float8), row(1, null::text, 'NaN'::float8) = t, t < t, t >= row(1, 'a'::text, 0::float8), t > row(1, null::text, 0::float8) from rr t order by a
select a, t = row(1, null, 'NaN'::float8) from rr t order by a
select a, t = row(1, 'a', 0::float8) from rr t order by a
select a, t = u, t < u, t <> u from rr t, rr u where t.a is not distinct from u.a order by a
select row(1, null) = row(1, null), row(1, null) <> row(1, null), row(1, 2) < row(1, 3), row(1, null) < row(2, null), (1, null) is not distinct from (1, null)
select count(*) from rr t where t = t
select t.*::text from rr t order by a
select (t.*)::text, a from rr t order by a
select row_to_json(t.*) from rr t order by a
select json_agg(t.* order by a) from rr t
select jsonb_agg(t.* order by a)::text from rr t
select row_to_json(r) from (select a, row(a, b) as r from rr) s order by a
select json_agg(r order by n) from (select a as n, row(a, b) as r from rr) s
select to_jsonb(r)::text, to_json(r)::text from (select a, row(a, b) as r from rr) s order by a
select json_build_object('k', r)::text, json_build_array(r, 1)::text from (select a, row(a, b) as r from rr) s order by a
select row_to_json(r) from (select a, t as r from rr t) s order by a
select x.*::text from rr t
select t from rr t order by a
select t, pg_typeof(t)::text, pg_typeof(t.*)::text from rr t order by a
select u from rr t join rr u on t.a = u.a order by t.a
select s from (select a, b, c from rr) s order by a
select r from (select row(a, b) as r, a from rr) s order by a
create table rr2 (a int, z text)
insert into rr2 values (1, 'p'), (3, 'q')
select u, t from rr t join rr2 u using (a) order by t.a
select u::text, row_to_json(u) from rr t join rr2 u using (a) order by t.a
select count(u) from rr t join rr2 u using (a)
drop table rr2
drop table rr
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_records_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists rr, rr2"])


QUERY = ("select a, t = t, t <> t, row_to_json(t.*)::text from (values (1, null::text), "
         "(null, null)) t(a, b) order by a")


def test_clients_read_record_equality(pg15, cumulo_server):
    """pg8000 (text) and asyncpg (binary) see PostgreSQL's answers."""
    def p8(port: int, password: str | None) -> list:
        c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                     password=password)
        try:
            return c.run(QUERY)
        finally:
            c.close()

    async def apg(dsn: str) -> list:
        c = await asyncpg.connect(dsn)
        try:
            return [tuple(r) for r in await c.fetch(QUERY)]
        finally:
            await c.close()

    want = p8(pg15.port, PASSWORD)
    assert want == [[1, True, False, '{"a":1,"b":null}'], [None, True, False,
                                                          '{"a":null,"b":null}']]
    assert p8(cumulo_server.port, None) == want
    assert asyncio.run(apg(cumulo_server.dsn())) == asyncio.run(apg(pg15.dsn()))


async def _asyncpg_whole_rows(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        await c.execute("drop table if exists rwt")
        await c.execute("create table rwt (a int, b text, c numeric(4,1))")
        await c.execute("insert into rwt values (1, 'x', 2.5), (2, null, null)")
        rows = [tuple(r["t"]) for r in await c.fetch("select t from rwt t order by a")]
        typ = await c.fetchval("select pg_typeof(t)::text from rwt t limit 1")
        await c.execute("drop table rwt")
        return [rows, typ]
    finally:
        await c.close()


def test_asyncpg_decodes_a_tables_row_type(pg15, cumulo_server):
    """The whole row goes out as the table's row type: asyncpg introspects it (pg_type,
    pg_attribute) and decodes the binary record as on PostgreSQL."""
    want = asyncio.run(_asyncpg_whole_rows(pg15.dsn()))
    assert want[1] == "rwt"
    assert asyncio.run(_asyncpg_whole_rows(cumulo_server.dsn())) == want
