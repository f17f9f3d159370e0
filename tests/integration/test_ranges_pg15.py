"""Range types against a throwaway PostgreSQL 15 (issue 16, item 1): the bytes on the wire, both formats.

`STATEMENTS` cover the six built-in range types: constructors with every bound
flag, text input (quoting, whitespace, `empty`, infinite bounds) and its
errors, canonicalisation of the discrete types, lower/upper/isempty/lower_inc
and friends, every operator (@> <@ && << >> &< &> -|- + * -, comparisons), the
typing rules (`int8range @> 3` is 42883), casts, arrays and JSON of ranges,
and a table of range columns that filters, sorts, groups and updates. Each
statement runs on both servers in the text format (a simple Query) and in the
binary format (an extended-protocol Execute); the column types, typmods and
every value's bytes must be identical (`typediff.raw_outcome`).

`MULTIRANGES` do the same for the six multirange types: input in normal form
(merging, empties dropped), constructors, multirange(), range_merge,
lower/upper/..., @> <@ && with elements, ranges and multiranges, + - *,
ordering, a column. Then the clients: psycopg's and asyncpg's own range and
multirange objects as parameters, text and binary, come back equal on both
servers, and the pg_type and pg_range rows match PostgreSQL's.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import asyncpg
import psycopg
import pytest
from psycopg.types.multirange import Multirange
from psycopg.types.range import Range

from tests.integration.typediff import connect, differences

STATEMENTS = """
select int4range(1, 5), int4range(1, 5, '[]'), int4range(1, 5, '()'), int4range(1, 5, '(]'), int4range(null, 5), int4range(3, null, '[]')
select int8range(1, 5), int8range(-9223372036854775808, 9223372036854775806, '[]'), numrange(1.5, 2.25), numrange(1, 1, '[]'), numrange(1, 1)
select daterange('2024-01-01', '2024-02-01'), daterange('2024-01-01', '2024-02-01', '[]'), daterange(null, null)
select tsrange('2024-01-01 10:00', '2024-01-02'), tstzrange('2024-01-01 10:00+02', null, '(]')
select '[1,5]'::int4range, '(1,5)'::int4range, '(1,2)'::int4range, ' empty '::int4range, '[,]'::int4range, '(,5]'::int8range
select '["2024-01-01 10:00","2024-01-02")'::tsrange, '[2024-01-01,2024-03-01]'::daterange, '[1.50,2.5)'::numrange
select '[1,5'::int4range
select '1,5'::int4range
select '[5,1]'::int4range
select int4range(5, 1)
select int4range(1, 5, 'xx')
select int4range(1, 5, null)
select int4range(2147483647, 2147483647, '[]')
select lower(int4range(1, 5)), upper(int4range(1, 5)), lower(int4range(null, 5)), upper('empty'::int4range), isempty('empty'::numrange), isempty(numrange(1, 2))
select lower_inc(int4range(1, 5)), upper_inc(int4range(1, 5)), lower_inf(int4range(null, 5)), upper_inf(numrange(1, null)), lower_inc(numrange(1, 2, '()')), upper_inc(numrange(1, 2, '(]'))
select lower(daterange('2024-01-01', '2024-02-01')), upper(tsrange('2024-01-01', '2024-01-02'))
select int4range(1, 5) @> 3, int4range(1, 5) @> 5, int4range(1, 5) @> int4range(2, 3), int4range(2, 3) <@ int4range(1, 5), 4 <@ int4range(1, 5)
select numrange(1, 5, '()') @> 1.0, numrange(1, 5, '[]') @> 5.0, int4range(1, 5) && int4range(5, 6), int4range(1, 5) && int4range(4, 6), numrange(1, 5) && numrange(5, 6, '[]')
select int4range(1, 5) << int4range(5, 6), int4range(1, 5) >> int4range(5, 6), int4range(6, 9) >> int4range(1, 6), int4range(1, 5) &< int4range(2, 6), int4range(1, 5) &> int4range(2, 6)
select int4range(1, 5) -|- int4range(5, 6), numrange(1, 5) -|- numrange(5, 6), numrange(1, 5, '[]') -|- numrange(5, 6, '(]'), numrange(1, 5) -|- numrange(5, 6, '(]'), int4range(1, 5, '[]') -|- int4range(6, 7)
select int4range(1, 5) + int4range(5, 9), int4range(1, 5) * int4range(3, 9), int4range(1, 9) - int4range(3, 12), int4range(1, 9) - int4range(0, 4), int4range(1, 9) - int4range(1, 9)
select int4range(1, 5) + int4range(7, 9)
select int4range(1, 9) - int4range(3, 4)
select numrange(1, 5) * numrange(6, 9), numrange(1, 5) + 'empty', 'empty'::numrange - numrange(1, 2), range_merge(int4range(1, 2), int4range(7, 9))
select int4range(1, 5) = '[1,4]', int4range(1, 5) < int4range(1, 6), int4range(1, 5) < int4range(2, 3), 'empty'::int4range < int4range(null, 1), int4range(null, 1) < int4range(1, 2)
select numrange(1, 2, '()') > numrange(1, 2, '[)'), numrange(1, 2, '[]') > numrange(1, 2, '[)'), int4range(null, null) = '(,)'::int4range
select int4range(1, 5) @> 3::bigint
select int4range(1, 5) < int8range(1, 6)
select pg_typeof(int4range(1, 2)), pg_typeof(int8range(1, 2)), pg_typeof(numrange(1, 2)), pg_typeof(daterange(null, null)), pg_typeof(tsrange(null, null)), pg_typeof(tstzrange(null, null))
select int4range(1, 5)::text, '[1,5)'::text::int4range, array[int4range(1, 2), int4range(3, 4)], to_json(int4range(1, 2)), to_jsonb(numrange(1.5, 2))
select '["a b",c]'::text, numrange(1, 5)::varchar
create table rng_t (id int primary key, r int4range, n numrange, d daterange, ts tsrange)
insert into rng_t values (1, '[1,5)', '[1.5,2]', '[2024-01-01,2024-02-01)', '[2024-01-01 10:00,2024-01-01 12:00)'), (2, '[3,9]', '(,0)', 'empty', null), (3, 'empty', null, '[2024-01-15,)', '(,2024-01-01)'), (4, null, '[0,0]', null, null)
select * from rng_t order by id
select id from rng_t where r @> 4 order by id
select id from rng_t where r && '[4,4]' order by id
select id, r from rng_t order by r, id
select id, r from rng_t order by r desc nulls last, id
select r, count(*) from rng_t group by r order by r
select distinct d from rng_t order by d
update rng_t set r = r * '[2,4)' where id = 2 returning r
select id, lower(r), upper(r), isempty(r), d @> date '2024-01-20' from rng_t order by id
drop table rng_t
select int4range(1, 5) @> null::int, null::int4range @> 3, lower(null::int4range)
""".strip().splitlines()

MULTIRANGES = """
select '{[1,3), [5,7)}'::int4multirange, '{}'::int4multirange, int4multirange(), int4multirange(int4range(1,3), int4range(2,8), int4range(10,12)), '{[1,3),[3,5)}'::int4multirange, '{empty, [1,2]}'::int4multirange
select '{[1,3), [5,7)}'::int4multirange @> 2, '{[1,3)}'::int4multirange @> int4range(1,2), '{[1,3),[5,7)}'::int4multirange + '{[3,5)}', '{[1,10)}'::int4multirange - '{[3,5)}', '{[1,10)}'::int4multirange * '{[3,5),[8,12)}'
select multirange(int4range(1,2)), range_merge('{[1,3),[5,7)}'::int4multirange), lower('{[1,3),[5,7)}'::int4multirange), upper('{[1,3),[5,7)}'::int4multirange), isempty('{}'::int4multirange), lower_inf('{(,3)}'::int4multirange), upper_inc('{[1,3]}'::nummultirange)
select '{[1.5,2.5]}'::nummultirange, '{[2024-01-01,2024-02-01)}'::datemultirange, '{["2024-01-01 10:00","2024-01-01 12:00")}'::tsmultirange, '{[1,2)}'::int8multirange
select '{[1,3)}'::int4multirange = '{[1,2],[2,2]}', '{[1,3)}'::int4multirange < '{[1,4)}', '{[1,3)}'::int4multirange && '{[2,5)}', int4range(1,3) && '{[2,5)}'::int4multirange, '{[1,3)}'::int4multirange && int4range(5,6)
select int4range(1,10) @> '{[2,3),[5,6)}'::int4multirange, 3 <@ '{[1,5)}'::int4multirange, '{[2,3)}'::int4multirange <@ '{[1,5)}'::int4multirange
select '{[1,3)'::int4multirange
select '{[1,10)}'::int4multirange - '{[1,10)}', '{(,)}'::int4multirange - '{[3,5)}', nummultirange(numrange(1, 2), numrange(3, null))
select pg_typeof('{}'::datemultirange), array['{[1,2)}'::int4multirange]
create table mr_t (id int primary key, m int4multirange)
insert into mr_t values (1, '{[1,3),[5,7)}'), (2, '{}'), (3, null), (4, '{[0,1)}')
select * from mr_t order by m, id
select id from mr_t where m @> 6
select range_agg(r), pg_typeof(range_agg(r)) from (values (int4range(5,7)), (null), (int4range(1,3)), ('empty'), (int4range(2,4))) v(r)
select k, range_agg(r order by r), range_agg(distinct r) from (values (1, numrange(1.5, 3)), (1, numrange(2, null)), (2, null), (3, numrange(0, 1))) v(k, r) group by k order by k
select range_agg(daterange(d, d + 1)), range_agg(int8range(1, 2)), range_agg(tsrange(null, '2020-01-01')), range_agg(tstzrange('2020-01-01', '2020-01-02')) from (values (date '2020-01-01'), ('2020-01-02'), ('2020-01-05')) v(d)
select range_agg(r) from (values (int4range(1, 3))) v(r) where false
drop table mr_t
select typname, typtype, typcategory, typarray from pg_type where typtype = 'm' order by oid
""".strip().splitlines()

CATALOG = [
    "select * from pg_range order by 1",
    "select oid, typname, typtype, typcategory, typarray, typelem, typlen, typalign, typinput, "
    "typreceive, typsend from pg_type where typtype = 'r' or typelem in "
    "(select oid from pg_type where typtype = 'r') order by oid",
    "select format_type(3926, -1), format_type(3913, -1), 'tstzrange'::regtype::oid",
]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_ranges_match_pg15(binary, pg15, cumulo_server):
    """Every range statement gives PostgreSQL 15's column types and bytes."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute("drop table if exists rng_t")
            c.execute("drop table if exists mr_t")
            c.execute("set time zone 'Europe/Madrid'")
        todo = STATEMENTS + MULTIRANGES + CATALOG
        mism = differences(pc, cc, todo, binary)
    assert not mism, f"{len(mism)} of {len(todo)} differ:\n" + "\n".join(mism)


UTC = dt.UTC
PARAMS = [
    (Range(1, 5), "int4range"), (Range(None, 5, "(]"), "int4range"), (Range(empty=True), "int8range"),
    (Range(Decimal("1.5"), None), "numrange"), (Range(dt.date(2024, 1, 1), dt.date(2024, 2, 1), "[]"), "daterange"),
    (Range(dt.datetime(2024, 1, 1, 10), dt.datetime(2024, 1, 2)), "tsrange"),
    (Range(dt.datetime(2024, 1, 1, 10, tzinfo=UTC), None, "()"), "tstzrange"),
]


def _psycopg_roundtrip(dsn: str, binary: bool) -> list:
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("set time zone 'UTC'")
        out = [c.execute(f"select %s::{t}, %s::{t}::text", (v, v), binary=binary).fetchone()
               for v, t in PARAMS]
        multi = Multirange([Range(1, 3), Range(5, 7, "[]")])
        out.append(c.execute("select %s::int4multirange, %s::int4multirange::text",
                             (multi, multi), binary=binary).fetchone())
        return out


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_psycopg_range_parameters(binary, pg15, cumulo_server):
    """psycopg's Range objects bound and loaded in both formats: the same values as on PG 15."""
    got = _psycopg_roundtrip(cumulo_server.dsn(), binary)
    assert got == _psycopg_roundtrip(pg15.dsn(), binary)
    assert got[1] == (Range(None, 6, "()"), "(,6)")  # canonicalised by the server


async def _asyncpg_roundtrip(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        await c.execute("set time zone 'UTC'")
        out = []
        for v, t in PARAMS:
            r = asyncpg.Range(empty=True) if v.isempty else asyncpg.Range(
                v.lower, v.upper, lower_inc=v.lower_inc, upper_inc=v.upper_inc)
            out.append(tuple(await c.fetchrow(f"select $1::{t}, $1::{t}::text", r)))
        out.append((await c.fetchval("select int8range(1, 10, '[]')"),))
        return out
    finally:
        await c.close()


def test_asyncpg_range_parameters(pg15, cumulo_server):
    """asyncpg's binary range codec (parameters and results) agrees with PG 15."""
    got = asyncio.run(_asyncpg_roundtrip(cumulo_server.dsn()))
    assert got == asyncio.run(_asyncpg_roundtrip(pg15.dsn()))
    assert got[-1] == (asyncpg.Range(1, 11),)
