"""Issue 16 gaps closed against PostgreSQL 15: USING/NATURAL joins' merged columns, INSERT
... OVERRIDING USER VALUE, multi-action ALTER TABLE, MERGE with a join as its source,
and domains in routine signatures.

Each script runs statement by statement on a fresh database of each server through
psycopg (rows, column names and type OIDs, SQLSTATE, message, DETAIL, HINT), and the
queries of `ASYNCPG` also through asyncpg (prepared: its row descriptions and rows).
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

SCRIPTS = {
    # The merged column comes first in `*`, in USING order, COALESCE(a, b) for FULL; a.id
    # and b.id stay in a.* / b.*; `USING (id) AS j` names the merged columns only.
    "using_columns": """
create table a (x int, id int, av text);
create table b (id int, y int, bv text);
create table c (id int, z int);
create table d (id bigint, w int);
insert into a values (1, 1, 'a1'), (2, 2, 'a2'), (3, NULL, 'a3');
insert into b values (1, 10, 'b1'), (4, 40, 'b4');
insert into c values (1, 100), (4, 400), (5, 500);
insert into d values (1, 7), (9, 9);
select * from a join b using (id) order by 1;
select * from a left join b using (id) order by 1, 2;
select * from a right join b using (id) order by 1;
select * from a full join b using (id) order by 1, 2;
select id, a.id, b.id from a full join b using (id) order by 1, 2, 3;
select * from a natural join b;
select * from a natural full join b order by 1, 2;
select a.*, b.* from a join b using (id);
select a, b from a join b using (id);
select * from a full join b using (id) full join c using (id) order by 1, 2;
select * from (a join b using (id)) join c using (id);
select * from a join (b join c using (id)) using (id);
select * from a, b join c using (id) order by 1, 2;
select id from a, b join c using (id);
select j.id, j.* from a full join b using (id) as j order by 1;
select * from a join b using (id) as j where j.id = 1 and a.id = 1;
select * from a join b using (id) as j join c using (id) as j;
select * from a join d using (id) order by 1;
select * from a full join d using (id) order by 1;
select pg_typeof(id) from a left join d using (id) limit 1;
select * from a join b using (id, id);
select * from a join b using (nope);
select * from a join b using (x);
select * from a join (select 'x'::text as id) s using (id);
select * from a join b using (id) join c on c.id = b.id;
select count(*) from a full join b using (id) where id > 1 and av is null;
select * from a full join b using (id) where x = 1 or y = 40 order by 1;
""",
    # Views keep the join's columns and print as ruleutils does
    "using_views": """
create table a (x int, id int, av text);
create table b (id int, y int, bv text);
create table c (id int, z int);
create table d (id bigint, w int);
insert into a values (1, 1, 'a1'), (2, 2, 'a2');
insert into b values (1, 10, 'b1'), (4, 40, 'b4');
insert into c values (1, 100), (4, 400);
create view v1 as select * from a full join b using (id);
select * from v1 order by 1;
select pg_get_viewdef('v1');
create view v2 as select * from a full join b using (id) full join c using (id);
select * from v2 order by 1;
select pg_get_viewdef('v2', true);
create view v3 as select * from a natural join b;
select pg_get_viewdef('v3');
create view v4 as select * from a right join b using (id);
select pg_get_viewdef('v4');
create view v5 as select * from a join d using (id);
select pg_get_viewdef('v5');
create view v6 as select j.id, b.y from a join b using (id) as j join c using (id);
select * from v6;
select pg_get_viewdef('v6', true);
create view v7 as select * from a join b using (id) join c on c.id = b.id;
""",
}

ASYNCPG = [
    "select * from a full join b using (id) order by 1, 2",
    "select a.*, j.id from a join b using (id) as j",
    "select * from a join d using (id)",
]


def statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";\n") if s.strip()]


def run(dsn: str, script: str) -> list[tuple]:
    """One comparable outcome per statement, an error's DETAIL and HINT included."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in statements(script):
            try:
                cur = conn.execute(sql)
                desc = [(d.name, d.type_code if d.type_code < 16384 else "user")
                        for d in cur.description or []]
                out.append((sql, cur.statusmessage, desc,
                            cur.fetchall() if cur.description else None))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, "ERROR", e.sqlstate, d.message_primary, d.message_detail,
                            d.message_hint))
    return out


def fresh(pg, cu, name: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    for dsn in (pg.dsn(), cu.dsn()):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"drop database if exists {name}")
            conn.execute(f"create database {name}")
    return pg.dsn(db=name), cu.dsn(dbname=name)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(cumulo_server, pg15, name):
    pg, cu = fresh(pg15, cumulo_server, f"fidel_{name}")
    expected = run(pg, SCRIPTS[name])
    got = run(cu, SCRIPTS[name])
    diffs = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not diffs, "\n".join(f"pg: {e}\ncu: {g}" for e, g in diffs)


async def _prepared(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    out: list[tuple] = []
    try:
        for sql in ASYNCPG:
            st = await conn.prepare(sql)
            attrs = [(a.name, a.type.oid) for a in st.get_attributes()]
            out.append((sql, attrs, [tuple(r) for r in await st.fetch()]))
    finally:
        await conn.close()
    return out


def test_using_joins_through_asyncpg(cumulo_server, pg15):
    pg, cu = fresh(pg15, cumulo_server, "fidel_asyncpg")
    setup = SCRIPTS["using_columns"].split("select")[0]
    run(pg, setup)
    run(cu, setup)
    expected = asyncio.run(_prepared(pg))
    assert expected[0][1][0] == ("id", 23)
    assert asyncio.run(_prepared(cu)) == expected
