"""CREATE TYPE ... AS ENUM, ALTER TYPE and DROP TYPE against a throwaway PostgreSQL 15 (issue 16, item 2).

The statements create an enum, cast to and from it (a bad label is 22P02),
compare and sort by the declared order (`'happy' > 'sad'` although `h < s`),
use it as a column (insert, filter, GROUP BY, ORDER BY with NULLs), add labels
BEFORE / AFTER / at the end (pg_enum's enumsortorder is PostgreSQL's: 1.5 for a
label between 1 and 2), rename a label, read pg_type / pg_enum /
format_type / regtype / information_schema, call enum_range, and drop the type
(2BP01 while a column uses it, 42704 when it is gone). Each statement runs in
the text and the binary format; column types, typmods and bytes must be
PostgreSQL's. User-type OIDs differ between servers by construction, so they
compare as "user", and the two statements whose binary values embed such an
OID (an array header, a regtype) run in the text format only.
"""

from __future__ import annotations

import asyncio
import enum

import asyncpg
import psycopg
import pytest
from psycopg.types.enum import EnumInfo, register_enum

from tests.integration.typediff import connect, differences

STATEMENTS = """
create type mood as enum ('sad', 'ok', 'happy')
select 'ok'::mood, 'happy'::mood > 'sad'::mood, 'sad'::mood < 'ok', 'ok'::mood = 'ok', 'x'::mood
select 'x'::mood
select pg_typeof('ok'::mood), 'ok'::mood::text, array['ok', 'sad']::mood[], ('{sad,happy}'::mood[])[2]
create table person (id int primary key, name text, m mood)
insert into person values (1, 'a', 'happy'), (2, 'b', 'sad'), (3, 'c', 'ok'), (4, 'd', null)
insert into person values (5, 'e', 'bad')
select * from person order by m, id
select * from person order by m desc, id
select * from person where m > 'sad' order by id
select m, count(*) from person group by m order by m
select max(id) from person where m = 'ok'
alter type mood add value 'meh' before 'ok'
alter type mood add value 'ecstatic' after 'happy'
alter type mood add value 'furious'
alter type mood add value 'ok'
alter type mood add value if not exists 'ok'
alter type mood add value 'x' before 'nope'
select enumlabel, enumsortorder from pg_enum where enumtypid = 'mood'::regtype order by enumsortorder
insert into person values (6, 'f', 'meh')
select * from person order by m nulls first, id
select format_type('mood'::regtype, -1), format_type('_mood'::regtype, -1), 'mood[]'::regtype::text
select typname, typtype, typcategory, typlen, typbyval, typinput, typoutput, typreceive, typsend, typalign, typstorage, typelem > 0, typarray > 0 from pg_type where typname in ('mood', '_mood') order by typname
select column_name, data_type, udt_name from information_schema.columns where table_name = 'person' order by ordinal_position
drop type mood
drop table person
alter type mood rename value 'sad' to 'blue'
select enum_range(null::mood)
drop type mood
drop type mood
drop type if exists mood
create type mood as enum ()
drop type mood
create type mood as enum ('a', 'a')
create type pair as (a int, b text)
select typname, typtype, typcategory from pg_type where typname in ('pair', '_pair') order by 1
drop type pair
""".strip().splitlines()

TEXT_ONLY = {
    "select pg_typeof('ok'::mood), 'ok'::mood::text, array['ok', 'sad']::mood[], ('{sad,happy}'::mood[])[2]",
    'select enum_range(null::mood)',
}


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_enums_match_pg15(binary, pg15, cumulo_server):
    """Every enum statement gives PostgreSQL 15's outcome, byte for byte."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute("drop table if exists person")
            c.execute("drop type if exists mood")
            c.execute("drop type if exists pair")
        todo = [s for s in STATEMENTS if not (binary and s in TEXT_ONLY)]
        mism = differences(pc, cc, todo, binary)
    assert not mism, f"{len(mism)} of {len(todo)} differ:\n" + "\n".join(mism)


class Color(enum.Enum):
    red = "red"
    green = "green"
    blue = "blue"


def _enum_clients(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists ecl")
        c.execute("drop type if exists color")
        c.execute("create type color as enum ('red', 'green', 'blue')")
        c.execute("create table ecl (id int primary key, c color, cs color[])")
        info = EnumInfo.fetch(c, "color")
        assert info is not None
        out.append((info.name, info.labels))
        register_enum(info, c, Color)
        for binary in (False, True):
            c.execute("delete from ecl")
            c.execute("insert into ecl values (1, %s, %s)", (Color.green, [Color.red, Color.blue]),
                      binary=binary)
            out.append(c.execute("select c, cs from ecl", binary=binary).fetchall())

    async def via_asyncpg() -> list:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("insert into ecl values (2, $1, $2)", "blue", ["green"])
            return [tuple(r) for r in await conn.fetch("select c, cs from ecl order by c")]
        finally:
            await conn.close()

    out.append(asyncio.run(via_asyncpg()))
    return out


def test_enum_clients_like_pg15(pg15, cumulo_server):
    """psycopg's EnumInfo/register_enum (text and binary, arrays) and asyncpg's introspection."""
    got = _enum_clients(cumulo_server.dsn())
    assert got == _enum_clients(pg15.dsn())
    assert got[0] == ("color", ["red", "green", "blue"])
