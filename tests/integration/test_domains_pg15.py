"""CREATE DOMAIN against PostgreSQL 15 (issue 16): the catalog, casts, columns and errors.

A domain is its base type on the wire (RowDescription carries the base OID, as
PostgreSQL's does) with NOT NULL, DEFAULT and CHECK constraints enforced on a
cast and on every value written to a column of it (INSERT, UPDATE, COPY):
23502 `domain d does not allow null values`, 23514 `value for domain d
violates check constraint "d_check"`. pg_type has its typtype 'd' row (and
`_d`), pg_constraint its checks (contypid), pg_attribute the domain as the
column's type; psql's \\dD query lists it. Compared byte for byte (`typediff`,
text and binary), then through psycopg, asyncpg, pg8000 and cumulo.driver, and
with SQLAlchemy's domain reflection.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pg8000.native
import psycopg
import pytest
import sqlalchemy as sa

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15
from tests.pg15 import PASSWORD

# psql 15's \dD (describe.c, listDomains), as it sends it.
DD = r"""SELECT n.nspname as "Schema",
       t.typname as "Name",
       pg_catalog.format_type(t.typbasetype, t.typtypmod) as "Type",
       (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type bt
        WHERE c.oid = t.typcollation AND bt.oid = t.typbasetype AND t.typcollation <> bt.typcollation) as "Collation",
       CASE WHEN t.typnotnull THEN 'not null' END as "Nullable",
       t.typdefault as "Default",
       pg_catalog.array_to_string(ARRAY(
         SELECT pg_catalog.pg_get_constraintdef(r.oid, true) FROM pg_catalog.pg_constraint r WHERE t.oid = r.contypid
       ), ' ') as "Check"
FROM pg_catalog.pg_type t
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE t.typtype = 'd'
      AND n.nspname <> 'pg_catalog'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_type_is_visible(t.oid)
ORDER BY 1, 2""".replace("\n", " ")

STATEMENTS = [
    "create domain posint as int not null default 7 check (value > 0)",
    "create domain shortstr as varchar(5)",
    "create domain pct as numeric(5,2) constraint pct_range check (value >= 0) check (value <= 100)",
    "create domain posint as int",
        "select 5::posint, 'abcdefg'::shortstr, 12.345::pct, cast(3 as posint) as x",
    "select (-1)::posint",
    "select null::posint",
    "select 101::pct",
    "select null::pct, null::shortstr",
    "select 5::posint + 1, pg_typeof(5::posint + 1)",
    "create table dom_t (id int primary key, p posint, s shortstr, c pct)",
    "insert into dom_t (id) values (1)",
    "insert into dom_t values (2, 3, 'abc', 50)",
    "insert into dom_t values (3, -1, null, null)",
    "insert into dom_t values (4, null, null, null)",
    "insert into dom_t values (5, 1, 'abcdefg', null)",
    "insert into dom_t values (6, 1, null, 100.5)",
    "insert into dom_t values (7, 1, null, -0.5)",
    "update dom_t set p = 0 where id = 2",
    "update dom_t set c = c + 10 where id = 2",
    "insert into dom_t select 10 + g, g, 'x', g from generate_series(1, 3) g",
    "insert into dom_t select 20 + g, g - 2, 'x', g from generate_series(1, 3) g",
    "select * from dom_t order by id",
    "select p, s, c from dom_t where p > 2 order by id",
    "select typname, typtype, format_type(typbasetype, typtypmod), typnotnull, typdefault, typtypmod, typlen, typbyval, typcategory, typinput::text, typoutput::text from pg_type where typname in ('posint', 'shortstr', 'pct') order by 1",
    "select t.typname, e.typtype, e.typcategory from pg_type t join pg_type e on e.oid = t.typarray where t.typname = 'posint'",
    "select conname, contype, conrelid, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) from pg_constraint where contypid = 'pct'::regtype order by 1",
    "select attname, atttypid::regtype::text, format_type(atttypid, atttypmod), attnotnull from pg_attribute where attrelid = 'dom_t'::regclass and attnum > 0 order by attnum",
    "select 'posint'::regtype::text, 'posint'::regtype::oid = (select oid from pg_type where typname = 'posint'), to_regtype('shortstr') is not null",
    DD,
    "drop domain posint",
    "drop domain nosuch",
    "drop domain if exists nosuch",
    "alter domain posint drop not null",
    "alter domain posint set default 9",
    "alter domain pct drop constraint pct_range",
    "alter domain pct drop constraint nosuch",
    "alter domain pct drop constraint if exists nosuch",
    DD,
    "insert into dom_t (id, c) values (30, -3)",
    "select id, p, c from dom_t where id = 30",
    "drop table dom_t",
    "drop domain posint, shortstr, pct",
    "select count(*) from pg_type where typname in ('posint', 'shortstr', 'pct', '_posint')",
]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_domains_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=[
                            "drop table if exists dom_t",
                            "drop domain if exists posint, shortstr, pct"])


# Arrays of domains: `d[]` stores d's base type, checks each element (23514 / 23502 as for a
# scalar), and goes out typed d[] (the domain's own array type) where PostgreSQL types it so.
ARRAY_STATEMENTS = [
    "create domain apos as int check (value > 0)",
    "create domain ann as text not null",
    "select array[1, 2]::apos[], pg_typeof(array[1]::apos[]), '{5,NULL}'::apos[]",
    "select array[0]::apos[]",
    "select array[[1, 2], [3, -4]]::apos[]",
    "select '{1,x}'::apos[]",
    "select array[null]::ann[]",
    "select '{a,NULL}'::ann[]",
    "select array['a', 'b c']::ann[], (array[3]::apos[])[1], array[1]::apos[] || 5",
    "create table dom_a (a apos[], b ann[], c int)",
    "insert into dom_a values ('{1,2}', '{x}', 1), (array[3], null, 2)",
    "insert into dom_a values ('{1,-2}', null, 3)",
    "insert into dom_a values (null, array['a', null], 4)",
    "update dom_a set a = a || 0 where c = 1",
    "update dom_a set a = a || 7 where c = 1",
    "select a, b, a[1], a[1:2], pg_typeof(a), pg_typeof(a[1]), pg_typeof(a[1:1]) from dom_a order by c",
    "select attname, atttypid::regtype::text, atttypmod, format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'dom_a'::regclass and attnum > 0 order by attnum",
    "create domain ddef as int default 42",
    "create table dom_b (a int[], b int, c int default 3, e int)",
    "insert into dom_b values ('{1,2}', 3)",
    "alter table dom_b alter column a type apos[]",
    "alter table dom_b alter column b type apos, alter column c type ddef",
    "alter table dom_b alter column e type ddef",
    "select attname, atttypid::regtype::text, format_type(atttypid, atttypmod), atthasdef from pg_attribute where attrelid = 'dom_b'::regclass and attnum > 0 order by attnum",
    "insert into dom_b values ('{-1}', 1)",
    "insert into dom_b values ('{1}', -1)",
    "insert into dom_b (a, b) values ('{4}', 4)",
    "alter table dom_b alter column a type int[], alter column b type int",
    "alter table dom_b alter column e type int",
    "insert into dom_b (a, b) values ('{-1}', -1)",
    "alter table dom_b alter column a type apos[]",
    "alter table dom_b alter column b type apos using -b",
    "select a, b, c, e, pg_typeof(a), pg_typeof(c), pg_typeof(e) from dom_b order by b",
    "drop table dom_b",
    "drop domain ddef",
    "alter domain apos add constraint small check (value < 10)",
    "alter domain ann drop not null",
    "alter domain apos set not null",
    "drop domain apos",
    "alter table dom_a add column d apos[]",
    "insert into dom_a (c, d) values (5, '{-1}')",
    "drop domain apos cascade",
    "select * from dom_a order by c",
    "drop table dom_a",
    "drop domain ann",
]


def test_domain_arrays_match_pg15(pg15, cumulo_server):
    """Text results and errors byte for byte; in binary, the array's header names the
    domain as its element type on both servers (PostgreSQL's array_send)."""
    drops = ["drop table if exists dom_a, dom_b", "drop domain if exists apos, ann, ddef"]
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), ARRAY_STATEMENTS, False, drops=drops)

    def header(dsn: str) -> tuple[int, int]:
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("drop domain if exists apos")
            c.execute("create domain apos as int check (value > 0)")
            cur = c.cursor(binary=True)
            cur.execute("select array[1, 2]::apos[], 'apos'::regtype::oid, '_apos'::regtype::oid")
            res = cur.pgresult
            assert res is not None
            raw, (_, dom, arr) = res.get_value(0, 0), cur.fetchone() or (0, 0, 0)
            assert raw is not None
            c.execute("drop domain apos")
        # array_send: ndims, has-null flag, element OID; the column typed d[]
        return int.from_bytes(raw[8:12], "big") - dom, res.ftype(0) - arr

    assert header(pg15.dsn()) == (0, 0)
    assert header(cumulo_server.dsn()) == (0, 0)


SETUP = ["drop table if exists dc", "drop domain if exists email",
         "create domain email as text check (value like '%@%')",
         "create table dc (id int, e email)",
         "insert into dc values (1, 'a@b')"]


def _psycopg(dsn: str) -> tuple:
    with psycopg.connect(dsn, autocommit=True) as c:
        for s in SETUP:
            c.execute(s)
        rows = c.execute("select id, e from dc where e = %s", ["a@b"]).fetchall()
        try:
            with c.cursor().copy("copy dc from stdin") as cp:
                cp.write("2\tnot-an-email\n")
            copied = "ok"
        except psycopg.Error as e:
            copied = (e.sqlstate, str(e.diag.message_primary))
        try:
            c.execute("insert into dc values (%s, %s)", [3, "nope"])
            bad = "ok"
        except psycopg.Error as e:
            bad = (e.sqlstate, str(e.diag.message_primary), e.diag.constraint_name)
        return rows, copied, bad


async def _asyncpg(dsn: str) -> tuple:
    c = await asyncpg.connect(dsn)
    try:
        rows = [tuple(r) for r in await c.fetch("select id, e, 'x@y'::email from dc order by id")]
        try:
            await c.execute("insert into dc values ($1, $2)", 4, "nope")
            bad = "ok"
        except asyncpg.PostgresError as e:
            bad = (e.sqlstate, e.message)
        return rows, bad
    finally:
        await c.close()


def _pg8000(port: int, password: str | None) -> tuple:
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                 password=password)
    try:
        rows = c.run("select id, e from dc order by id")
        try:
            c.run("select 'bad'::email")
            bad = "ok"
        except pg8000.native.DatabaseError as e:
            bad = (e.args[0]["C"], e.args[0]["M"])
        return rows, bad
    finally:
        c.close()


def _driver(dsn: str) -> tuple:
    with drv.connect(dsn) as c:
        c.autocommit = True
        cur = c.cursor()
        cur.execute("select id, e from dc order by id")
        rows = cur.fetchall()
        try:
            cur.execute("update dc set e = 'x' where id = 1")
            bad = "ok"
        except drv.DatabaseError as e:
            bad = (e.sqlstate, str(e))
        return rows, bad


def test_clients_see_domains_as_postgresql(pg15, cumulo_server):
    """psycopg (with COPY), asyncpg (binary), pg8000 and cumulo.driver, both servers."""
    want = _psycopg(pg15.dsn())
    assert want[2][0] == "23514"
    assert _psycopg(cumulo_server.dsn()) == want
    assert asyncio.run(_asyncpg(cumulo_server.dsn())) == asyncio.run(_asyncpg(pg15.dsn()))
    assert _pg8000(cumulo_server.port, None) == _pg8000(pg15.port, PASSWORD)
    d_pg, d_cu = _driver(pg15.dsn()), _driver(cumulo_server.dsn())
    assert d_cu[0] == d_pg[0] and d_cu[1][0] == d_pg[1][0] == "23514"


def test_sqlalchemy_reflects_domains(pg15, cumulo_server):
    """SQLAlchemy's PostgreSQL dialect lists the domains as it does on PostgreSQL."""
    def domains(dsn: str) -> list:
        eng = sa.create_engine(dsn.replace("postgresql://", "postgresql+psycopg://"))
        try:
            with eng.connect() as conn:
                conn.execute(sa.text("drop table if exists dc"))
                conn.execute(sa.text("drop domain if exists email, posint2"))
                conn.execute(sa.text("create domain email as text check (value like '%@%')"))
                conn.execute(sa.text("create domain posint2 as int not null default 1 "
                                     "check (value > 0)"))
                conn.execute(sa.text("create table dc (id int, e email, p posint2)"))
                conn.commit()
            insp = sa.inspect(eng)
            cols = [(c["name"], repr(c["type"]), c["nullable"], c["default"])
                    for c in insp.get_columns("dc")]
            return [sorted(insp.get_domains(), key=lambda d: d["name"]), cols]
        finally:
            eng.dispose()

    want = domains(pg15.dsn())
    assert [d["name"] for d in want[0]] == ["email", "posint2"]
    assert domains(cumulo_server.dsn()) == want
