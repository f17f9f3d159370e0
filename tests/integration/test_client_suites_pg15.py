"""What clients' own test suites still found unlike PostgreSQL 15 (issue 16), diffed with it.

The cases come from probes written after psycopg's and asyncpg's test suites (their type,
cursor, copy and codec tests): generate_series with a string step ('12 hours' was read as
12 seconds), casts to polymorphic pseudo-types (`x::anyarray` keeps x's type on the wire),
array input deeper than six dimensions (54000), pg_lsn as a type of its own (input checks,
position order, binary I/O, its arithmetic), daterange bounds at ±infinity, jsonb
subscripting and the sorted input of DISTINCT aggregates.

Scripts run statement by statement through psycopg on a fresh database of each server
(`stmtdiff`: rows, column names and type OIDs, SQLSTATE and message); the wire forms are
compared raw, text and binary (`typediff`), and asyncpg's prepared statements meet the
binary parameter and result codecs.
"""

from __future__ import annotations

import asyncio
import datetime as dt

import asyncpg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes, fresh_databases
from tests.integration.typediff import connect, differences

SCRIPTS = {
    # sqlglot turned the string step into INTERVAL '12' HOURS, which bound as 12 seconds
    # (7,201 rows for a day), '12:00' into a syntax error and '0.5 day' into a zero step
    "series_string_steps": """
select count(*) from generate_series('2000-01-01'::timestamp, '2000-01-02', '12 hours');
select * from generate_series('2000-01-01'::timestamp, '2000-01-02', '12 hours');
select generate_series('2000-01-01'::timestamp, '2000-01-01 00:09', '3 minutes');
select count(*) from generate_series('2000-01-01'::timestamp, '2000-01-02', '12:00');
select count(*) from generate_series('2000-01-01'::timestamptz, '2000-01-02', '0.5 day');
select generate_series('2000-01-01'::date, '2000-01-03', '1 day');
select generate_series(1, 5, '2');
select * from generate_series(1.0, 2, '0.5');
select generate_series(1, 3, '1 day');
select generate_series('2000-01-01'::timestamp, '2000-01-02', '0 hours');
select count(*) from generate_series('2000-01-01'::timestamp, '2000-01-02', interval '6 hours');
""",
    # coerce_type relabels nothing for a polymorphic target: the value keeps its type
    "polymorphic_casts": """
select '{1, 2, NULL}'::int[]::anyarray;
select 1::anyelement, 'a'::text::anynonarray, array[1]::anyelement;
select pg_typeof('{1}'::int[]::anyarray), pg_typeof(2.5::anyelement);
select 1::anyarray;
select array[1]::anynonarray;
select '{1}'::anyarray;
select 'x'::anyelement;
""",
    # ReadArrayStr's MAXDIM
    "array_dimensions": """
select '{{{{{{1}}}}}}'::int[];
select '{{{{{{{1}}}}}}}'::int[];
select '{{{{{{{"a"}}}}}}}'::text[];
""",
    # pg_lsn was text: no input check, text order ('A/0' > '10/0'), text on the binary wire
    "pg_lsn": """
select '16/B374D848'::pg_lsn, '16/b374d848'::pg_lsn, '0/a'::pg_lsn, 'FFFFFFFF/FFFFFFFF'::pg_lsn;
select 'foo'::pg_lsn;
select '16/'::pg_lsn;
select ' 0/0'::pg_lsn;
select '123456789/0'::pg_lsn;
select '16/B374D848'::pg_lsn - '16/B374D800'::pg_lsn, '16/B374D848'::pg_lsn + 1;
select '0/FFFFFFFF'::pg_lsn + 1, 2 + '0/0'::pg_lsn, '0/10'::pg_lsn - 1.6, '0/0'::pg_lsn - '0/1';
select '0/0'::pg_lsn - 1;
select 'FFFFFFFF/FFFFFFFF'::pg_lsn + 1;
select '0/0'::pg_lsn + 'NaN'::numeric;
select '0/0'::pg_lsn * 2;
create table lsns (id int primary key, l pg_lsn);
insert into lsns values (1, 'A/0'), (2, '9/0'), (3, '10/0'), (4, null), (5, '9/FFFFFFFF');
select id, l from lsns order by l, id;
select id from lsns where l > '9/FFFFFFFF' order by id;
select max(l), min(l) from lsns;
select l from lsns order by l desc nulls last limit 2;
select 'A/0'::pg_lsn < '10/0'::pg_lsn, '10/0'::pg_lsn = '10/0', '9/0'::pg_lsn >= '9/0';
""",
    # daterange_canonical leaves an infinite date bound as written
    "daterange_infinite_bounds": """
select '(-infinity,2000-01-01]'::daterange, '[2000-01-01,infinity]'::daterange;
select '(-infinity,infinity]'::daterange, daterange('-infinity', '2000-01-01', '(]');
select '(-infinity,2000-01-01]'::daterange = '[-infinity,2000-01-02)'::daterange;
select '(-infinity,2000-01-01]'::daterange @> '-infinity'::date;
select lower_inc('(-infinity,2000-01-01]'::daterange), upper_inc('[2000-01-01,infinity]'::daterange);
""",
    # PostgreSQL 14's jsonb subscripting: each subscript a #> step, integer or text only
    "jsonb_subscripts": """
create table docs (id int primary key, j jsonb);
insert into docs values (1, '{"a": [1, {"b": 2}], "c": null, "1": "one"}'), (2, '[10, 20, 30]'), (3, null);
select id, j['a'][0], j['a'][1]['b'], j['a'][-1], j['c'], j['nope'], j['a']['x'] from docs order by id;
select id, j[1], j['1'], j[id - 1], j[-1], (j)['a'] from docs order by id;
select ('{"a": {"b": "c"}}'::jsonb)['a']['b'], ('[1, 2]'::jsonb)[null::int];
select j[true] from docs;
select j[1:2] from docs;
select j['a'][1.5] from docs;
""",
    # a DISTINCT aggregate without ORDER BY sees its distinct values sorted, as PostgreSQL
    # dedupes them by sorting (was: first-seen order)
    "distinct_aggregate_order": """
create table vals (g int, x int, s text, n numeric);
insert into vals values (1, 3, 'b', 2.5), (1, 1, 'B', null), (1, null, 'a', -1), (1, 2, '_', 2.5), (2, 1, 'b', 0), (2, 1, 'a', 0);
select array_agg(distinct x), string_agg(distinct s, ','), json_agg(distinct n), jsonb_agg(distinct x) from vals;
select g, array_agg(distinct x), array_agg(distinct s) from vals group by g order by g;
select array_agg(distinct x order by x desc), count(distinct x), array_agg(distinct x) filter (where x > 1) from vals;
select array_agg(distinct x) over () from vals limit 1;
""",
    # single gaps: bitgetbit/bitsetbit, bpcharoctetlen, EXTRACT(MICROSECONDS ...)'s scale,
    # the refcursor type (PL/pgSQL's cursor values) and the geometric types' typelem
    "single_gaps": """
select get_bit('1010'::bit(4), 0), get_bit(B'0101', 3), get_bit('101'::varbit, 1);
select set_bit('1010'::bit(4), 1, 1), set_bit(B'101'::varbit, 0, 0), pg_typeof(set_bit(B'101'::varbit, 0, 0));
select get_bit(B'101', 3);
select get_bit(B'101', -1);
select set_bit(B'101', 0, 2);
select octet_length('a '::char(4)), length('a '::char(4)), octet_length('é'::char(3)), octet_length(null::char(2));
select extract(microseconds from '23:30:50.000321'::time), extract(microseconds from '2000-01-01 00:00:01.5'::timestamp);
select extract(microseconds from '23:30:50.000321+02'::timetz), extract(microseconds from '1.5 s'::interval);
select 'x'::refcursor, 'x'::refcursor::text, pg_typeof('x'::refcursor), '{a,b}'::refcursor[], 'c'::text::refcursor;
select oid, typname, typlen, typcategory, typelem, typarray, typinput, typoutput, typreceive, typsend from pg_type where oid in (600, 601, 603, 628, 1790, 2201) order by oid;
""",
    # json_object_agg / jsonb_object_agg were missing (jsonb_object_agg(x, x) was 42803)
    "object_aggregates": """
create table kv (g int, k text, v int, d date, j jsonb);
insert into kv values (1, 'b', 1, '2000-01-01', '{"x": [1]}'), (1, 'a', null, '2000-01-02', null), (1, 'b', 3, null, '[]'), (2, 'c', 4, '2000-01-03', '"s"');
select json_object_agg(k, v), jsonb_object_agg(k, v) from kv;
select g, json_object_agg(k, v order by k), jsonb_object_agg(k, v order by k desc) from kv group by g order by g;
select json_object_agg(d, j), jsonb_object_agg(d, j) from kv where d is not null;
select json_object_agg(k, v) filter (where v > 1), jsonb_object_agg(v, k) from kv where v is not null;
select json_object_agg('k', row(1, 'a')), jsonb_object_agg(true, 1.50), json_object_agg('k', 'v');
select k, json_object_agg(k, v) over (order by k, v) from kv order by k, v;
select json_object_agg(x, x) from generate_series(1, 2) x where false;
select json_object_agg(d, v) from kv;
select jsonb_object_agg(array[1], 1);
select json_object_agg(j, 1) from kv;
select json_object_agg(1);
""",
    # an unknown literal in an anyarray/anyelement position takes the other arguments' type
    # (array_cat(int[], '{9}') gave {1,2,3,"{",9,"}"}: the literal's characters)
    "polymorphic_unknowns": """
select array_cat('{1,2}'::int[], '{9}'), array_cat('{9}', '{1,2}'::int[]);
select array_append('{1}'::int[], '5'), array_prepend('5', '{1}'::int[]);
select array_remove('{1,2}'::int[], '2'), array_replace('{1,2}'::int[], '2', '3');
select array_position('{1,2}'::int[], '2'), array_cat('{1}', '{2}'), pg_typeof(array_cat('{1}', '{2}'));
select array_cat('{a}'::text[], '{b,c}'), array_cat(array[1.5], '{2}');
select array_cat('{1,2}'::int[], '{x}');
""",
    # array || unknown reads the literal as the array's type (it became a text element), a
    # one-dimension-smaller array is one more element, and BETWEEN SYMMETRIC was BETWEEN
    "array_concat_and_between": """
select '{1,2}'::int[] || '{3}', array['a'] || '{b,c}', array[1] || null, null || array[1];
select array['a'] || 'b';
select '{1,2}'::int[] || '{a}';
select array[[1,2]] || array[3,4], array[3,4] || array[[1,2]], array_cat(array[[1,2]], array[3,4]), '{}'::int[] || array[[1]];
select 5 between symmetric 10 and 1, 5 not between symmetric 10 and 1, 11 between symmetric 10 and 1;
select null between symmetric 1 and 2, 1 between symmetric 1 and null, 'b' between symmetric 'c' and 'a';
""",
    # to_char's FF1..FF6, RN and EEEE templates (printed as literal text before)
    "to_char_templates": """
select to_char(timestamp '2000-01-02 13:04:05.678901', 'FF1 FF2 FF3 FF4 FF5 FF6 ff3 FMFF6'), to_char(time '01:02:03.5', 'HH24:MI:SS.FF2');
select to_char(1e10::float8, '9.9EEEE'), to_char(-2.5::float8, '9.9EEEE'), to_char(12345.678::numeric, '9.99EEEE'), to_char(123, '9EEEE');
select to_char(0, '9.99EEEE'), to_char(9.999, '9.99EEEE'), to_char(9.999::float8, '9.99EEEE'), to_char(-12345.6::numeric, '9.9EEEE');
select to_char('Infinity'::numeric, '9.99EEEE'), to_char('NaN'::float8, '9.9EEEE');
select to_char(-0.00012, 'FM9.9EEEE');
select to_char(12, 'RN'), to_char(3999, 'FMRN'), to_char(4000, 'RN'), to_char(0, 'RN'), to_char(12.5, 'rn'), to_char(1994::int8, 'FMrn');
select to_char('2000-01-01'::timestamp, 'TZ OF TZH TZM'), to_char('2000-01-01 00:00+05:30'::timestamptz, 'TZ OF TZH:TZM'), to_char('2000-01-01'::date, 'OF');
select to_char(interval '1 hour', 'OF');
select to_char(interval '1 hour', 'HH24 TZ');
""",
    # regtype input in SQL's words, 'allballs', and format_type's quoted "bit" (typmod -1)
    "type_names": """
select 'bit varying(3)'::regtype, 'interval day to second(3)'::regtype, to_regtype('bit varying'), 'time without time zone'::regtype;
select 'character varying(3)'::regtype, 'double precision[][]'::regtype, to_regtype('numeric(10, 2)'), 'timestamp with time zone[]'::regtype;
select 'allballs'::time, 'allballs'::timetz, ' ALLBALLS '::time;
select format_type('bit'::regtype, -1), format_type('bit'::regtype, null), format_type('bit'::regtype, 5), format_type('_bit'::regtype, -1), format_type('varbit'::regtype, -1);
select '1'::bit(2)::text, cast(B'1' as bit varying(3)), '1 day 2:03:04.5678'::interval day to second(3);
select 'a'::text::bit;
""",
    # timestamp +- time through time's implicit cast to interval (42883 before)
    "timestamp_plus_time": """
select timestamp '2000-01-01' + time '10:00', timestamptz '2000-01-01 00:00+00' + time '01:00';
select timestamp '2000-01-01' - time '10:00', date '2000-01-01' - time '10:00', time '10:00' + timestamp '2000-01-01';
select timestamp '2000-01-01' + time '24:00', date '2000-01-01' + time '10:00', interval '1 day' + date '2000-01-01' + time '10:00';
select time '10:00' - timestamp '2000-01-01';
""",
    # pg_cast's geometric casts, each the target type's function (42846 before)
    "geometric_casts": """
select box '((0,0),(2,2))'::point, circle '<(0,0),1>'::box, box '((0,0),(2,2))'::circle, box '((0,0),(2,2))'::polygon;
select polygon '((0,0),(1,1),(2,0))'::path, path '((0,0),(1,1),(2,0))'::polygon, lseg '[(0,0),(2,2)]'::point, polygon '((0,0),(1,1),(2,0))'::box;
select circle '<(1,1),1>'::point, polygon '((0,0),(1,1),(2,0))'::circle, point '(1,1)'::box, box '((0,0),(2,2))'::lseg;
select circle '<(0,0),1>'::polygon::text, polygon '((0,0),(1,1),(2,0))'::point;
select point '(1,1)'::circle;
select castsource, casttarget, castfunc, castcontext, castmethod from pg_cast where castsource in (600, 601, 602, 603, 604, 718) and casttarget in (600, 601, 602, 603, 604, 718) order by 1, 2;
""",
    # namein clips to NAMEDATALEN - 1 bytes on a character boundary (kept whole before)
    "name_clipping": """
select repeat('x', 70)::name, length(repeat('é', 40)::name), octet_length(repeat('é', 40)::name), 'abc'::name;
select pg_typeof(repeat('x', 70)::name), (repeat('x', 70)::varchar)::name, repeat('y', 63)::name = repeat('y', 63);
select count(*) from pg_class where relname = repeat('z', 70);
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(cumulo_server, pg15, name):
    assert_same_outcomes(pg15, cumulo_server, f"clientsuites_{name}", SCRIPTS[name], types=True)


WIRE = [
    "select '16/B374D848'::pg_lsn, 'FFFFFFFF/FFFFFFFF'::pg_lsn, '0/0'::pg_lsn",
    "select '16/B374D848'::text::pg_lsn",
    "select '{1, 2, NULL}'::int[]::anyarray",
    "select '(-infinity,2000-01-01]'::daterange, '[2000-01-01,infinity]'::daterange",
    "select ''::\"char\", 'a'::\"char\"",
]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_wire_forms_as_pg15(cumulo_server, pg15, binary):
    pg, cu = connect(pg15.dsn()), connect(cumulo_server.dsn())
    try:
        assert not differences(pg, cu, WIRE, binary=binary)
    finally:
        pg.close()
        cu.close()


ASYNCPG = [
    # charrecv takes a NUL byte: the empty "char" (text_recv's 22021 does not apply)
    ('select $1::"char"', (b"\x00",)),
    ('select $1::"char"::text', (b"\x00",)),
    ('select array[$1::"char"]', (b"\x00",)),
    ('select $1::"char"', (b"a",)),
    # asyncpg's own test_arrays: a pseudo-type result type could not be introspected
    ("select '{1, 2, NULL}'::int[]::anyarray", ()),
    ("select '{{{{{{{1}}}}}}}'::int[]", ()),
    # pg_lsn through the binary codec both ways
    ("select $1::text::pg_lsn", ("16/B374D848",)),
    ("select $1::pg_lsn", ("16/B374D848",)),
    ("select $1::pg_lsn - $2::pg_lsn", ("16/B374D848", "16/B374D800")),
    ("select array_cat($1::int[], $2)", ([1, 2], [9])),
    ("select generate_series($1::timestamp, $2, '12 hours')",
     (dt.datetime(2000, 1, 1), dt.datetime(2000, 1, 2))),
]


async def _asyncpg_outcomes(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    out: list = []
    try:
        for sql, args in ASYNCPG:
            try:
                stmt = await conn.prepare(sql)
                rows = await stmt.fetch(*args)
                out.append((sql, [tuple(r) for r in rows],
                            [a.type.name for a in stmt.get_attributes()]))
            except asyncpg.PostgresError as e:
                out.append((sql, "ERROR", e.sqlstate))
    finally:
        await conn.close()
    return out


def test_asyncpg_codecs_as_pg15(cumulo_server, pg15):
    pg_dsn, cu_dsn = fresh_databases(pg15, cumulo_server, "clientsuites_asyncpg")
    want = asyncio.run(_asyncpg_outcomes(pg_dsn))
    got = asyncio.run(_asyncpg_outcomes(cu_dsn))
    assert [g for g, w in zip(got, want, strict=True) if g != w] == []
