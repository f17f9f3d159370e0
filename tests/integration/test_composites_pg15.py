"""Composite types (CREATE TYPE ... AS (...)) against a throwaway PostgreSQL 15 (issue 16, item 2).

The type's pg_type, pg_class (relkind c) and pg_attribute rows, casts from
text and from ROW(...) (fields converted to their attributes' types and
typmods), field access, a column of the type: text and binary, byte for
byte. Then the clients' own composite support: psycopg's CompositeInfo and
register_composite (parameters and results, text and binary) and asyncpg's
introspection, with the same results as on PostgreSQL.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest
from psycopg.types.composite import CompositeInfo, register_composite

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
create type zc as (a int, b text, c numeric(5,2))
select '(1,x,2.5)'::zc, row(2, 'y z', 3)::zc, ('(1,x,2)'::zc).b, (row(5, 'q', null)::zc).a
select '(1,x)'::zc
select relname, relkind, relnatts, reltype > 0, relhasindex, relpersistence from pg_class where relname = 'zc'
select attname, atttypid, attnum, attnotnull, atttypmod from pg_attribute where attrelid = (select typrelid from pg_type where typname = 'zc') order by attnum
select typname, typtype, typcategory, typrelid > 0, typarray > 0 from pg_type where typname in ('zc', '_zc') order by typname
create table zct (id int primary key, v zc)
insert into zct values (1, '(1,a,1.5)'), (2, row(2, 'b c', null)), (3, null)
select * from zct order by id
select id, (v).b, (v).c from zct order by id
drop table zct
drop type zc
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_composites_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's outcome (user type OIDs compare as "user")."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists zct", "drop type if exists zc"])


def _psycopg(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists cct")
        c.execute("drop type if exists cpair")
        c.execute("create type cpair as (a int, b text)")
        info = CompositeInfo.fetch(c, "cpair")
        assert info is not None
        register_composite(info, c)
        out.append((info.field_names, info.field_types))
        c.execute("create table cct (id int, p cpair)")
        for binary in (False, True):
            c.execute("delete from cct")
            c.execute("insert into cct values (1, %s)", (info.python_type(1, "x y"),), binary=binary)
            out.append([tuple(r[0]) + (r[1],) for r in
                        c.execute("select p, (p).b from cct", binary=binary).fetchall()])
    return out


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        return [tuple(await c.fetchval("select p from cct")),
                tuple(await c.fetchval("select row(2, 'z')::cpair"))]
    finally:
        await c.close()


def test_composite_clients_like_pg15(pg15, cumulo_server):
    """psycopg CompositeInfo/register_composite and asyncpg composites: PG 15's answers."""
    got = _psycopg(cumulo_server.dsn()) + asyncio.run(_asyncpg(cumulo_server.dsn()))
    want = _psycopg(pg15.dsn()) + asyncio.run(_asyncpg(pg15.dsn()))
    assert got == want
    assert tuple(map(list, got[0])) == (["a", "b"], [23, 25])
