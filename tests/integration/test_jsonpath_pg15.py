"""SQL/JSON path functions against a throwaway PostgreSQL 15 (issue 16, Django item 5).

jsonb_path_query (a set), _query_array, _query_first, _exists and _match in
lax mode: members, wildcards, subscripts and ranges (`last`), filters with
comparisons, && || !, exists, starts with and like_regex, predicate paths,
syntax errors (42601), and the functions over a table's jsonb column. Text and
binary formats.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select jsonb_path_query('{"a":[1,2,3]}', '$.a[*] ? (@ > 1)')
select jsonb_path_exists('{"a":1}', '$.a'), jsonb_path_exists('{"a":1}', '$.b'), jsonb_path_query_first('{"a":[1,2]}', '$.a[0]'), jsonb_path_query_array('{"a":[1,2]}', '$.a[*]'), jsonb_path_match('{"a":1}', '$.a == 1')
select jsonb_path_query('{"a": {"b": [{"c": 1}, {"c": 5}]}}', '$.a.b.c')
select jsonb_path_query('{"a": {"b": [{"c": 1}, {"c": 5}]}}', '$.a.b[*] ? (@.c >= 2 && @.c < 10)')
select jsonb_path_query('{"x": [1, "a", null, true, {"k": 1}]}', '$.x[*]')
select jsonb_path_query_array('{"x": [10, 20, 30, 40]}', '$.x[1 to 2]'), jsonb_path_query_array('{"x": [10, 20, 30, 40]}', '$.x[last]'), jsonb_path_query_array('{"a": 1, "b": 2}', '$.*')
select jsonb_path_query_array('[{"n": "abc"}, {"n": "xbc"}]', '$[*] ? (@.n starts with "a")'), jsonb_path_query_array('[{"n": "abc"}, {"n": "xbc"}]', '$[*] ? (@.n like_regex "^x")')
select jsonb_path_exists('{"a": [1, 2]}', '$.a ? (@ == 2)'), jsonb_path_exists('{"a": {"b": 1}}', '$ ? (exists (@.a.b))'), jsonb_path_query_first('{}', '$.nope')
select jsonb_path_query_array('{"a": [1, 2, 3]}', '$.a[*] ? (@ != 2 || @ == 2)'), jsonb_path_query_array('{"a": [1, "2", 3]}', '$.a[*] ? (@ > 1)')
select jsonb_path_query('{"a": 1}', '$.a ==')
create table jp_t (id int primary key, doc jsonb)
insert into jp_t values (1, '{"tags": ["x", "y"], "n": 3}'), (2, '{"tags": ["z"], "n": 10}'), (3, '{}')
select id from jp_t where jsonb_path_exists(doc, '$.tags[*] ? (@ == "y")') order by id
select id, jsonb_path_query_first(doc, '$.n') from jp_t order by id
drop table jp_t
select jsonb_path_query('{"a":[1,-2.5,3]}', '$.a.size()'), jsonb_path_query('{"a":[1,-2.5,3]}', '$.a.type()'), jsonb_path_query_array('{"a":[1,-2.5,3]}', '$.a.abs()'), jsonb_path_query_array('{"a":[1,-2.5,3.2]}', '$.a.floor()'), jsonb_path_query_array('{"a":[1,-2.5,3.2]}', '$.a.ceiling()')
select jsonb_path_query_array('[1, "a", null, true, {}, []]', '$[*].type()'), jsonb_path_query('{"a":1}', '$.a.size()'), jsonb_path_query('{"a":"x"}', '$.size()')
select jsonb_path_exists('{"a":[1,2,3]}', '$.a ? (@.size() > 2)'), '{"a":[1,2,3]}'::jsonb @? '$.a ? (@.size() > 2)', '{"a":[1,2,3]}'::jsonb @@ '$.a.size() == 3'
select jsonb_path_query('{"a":"x"}', '$.a.abs()')
select '{"a":"x"}'::jsonb @? '$.a.abs()'
select jsonb_path_query('{"a":[{"b":2},{"b":-3}]}', '$.a[*].b.abs()')
select jsonb_path_query('{"a":1}', '$.a.double()')
select jsonb_path_query_array('{"a":[1.10, "2.5", 3, -0.5e1]}', '$.a[*].double()')
select jsonb_path_query('{"a":"x"}', '$.a.double()')
select jsonb_path_query('{"a":true}', '$.a.double()')
select '$.a[*] ? (@ > 1)'::jsonpath, 'strict $.a'::jsonpath, '$.a + 1'::jsonpath
select '@'::jsonpath
select '$.a =='::jsonpath
select pg_typeof('$'::jsonpath), '{"$.a","$.b"}'::jsonpath[]
select typname, typlen, typcategory, typarray, typinput, typoutput, typreceive, typsend from pg_type where oid in (4072, 4073) order by oid
create table jpt (id int primary key, p jsonpath)
insert into jpt values (1, '$.a ? (@ > 1)'), (2, 'strict $.b[*]'), (3, null)
select * from jpt order by id
drop table jpt
select '{"a":[1,2,3]}'::jsonb @? '$.a[*] ? (@ > 2)', '{"a":[1,2,3]}'::jsonb @? '$.a[*] ? (@ > 5)', '{"a":1}'::jsonb @@ '$.a == 1', '{"a":1}'::jsonb @@ '$.a', '{"a":[1,2]}'::jsonb @? '$.b'
select jsonb_path_query('{"a":[1,2,3]}', '$.a[*] ? (@ > 1)'::jsonpath), jsonb_path_exists('{"a":1}', '$.a'::jsonpath)
select '{"a":[1,2,3]}' @? '$.a[*] ? (@ > 2)'::jsonpath
select '1'::jsonpath @? '$'
select '$.a'::jsonpath = '$.a'::jsonpath
select '$ ? (@ like_regex "a" flag "x")'::jsonpath
""".strip().splitlines()

# jsonpath_in + jsonpath_out: the path as PostgreSQL 15 normalizes and prints it, and its errors
NORMALIZED = r"""
select $q$$.a[*] ? (@ > 1)$q$::jsonpath
select $q$$$q$::jsonpath
select $q$strict $.a$q$::jsonpath
select $q$lax $.a$q$::jsonpath
select $q$$.a.b.c$q$::jsonpath
select $q$$."a b"$q$::jsonpath
select $q$$.a[1,2 to 3, last]$q$::jsonpath
select $q$$.a[*].b$q$::jsonpath
select $q$$.*$q$::jsonpath
select $q$$.**$q$::jsonpath
select $q$$.**{2}$q$::jsonpath
select $q$$.**{1 to last}$q$::jsonpath
select $q$$.a ? (@.b == 1 && @.c == 2 && @.d == 3)$q$::jsonpath
select $q$$.a ? ((@.b == 1 || @.c == 2) && @.d == 3)$q$::jsonpath
select $q$$.a + 1$q$::jsonpath
select $q$$.a + 1 * 2$q$::jsonpath
select $q$($.a + 1) * 2$q$::jsonpath
select $q$-$.a$q$::jsonpath
select $q$- 1$q$::jsonpath
select $q$+1$q$::jsonpath
select $q$1.50$q$::jsonpath
select $q$1e3$q$::jsonpath
select $q$.5$q$::jsonpath
select $q$1.$q$::jsonpath
select $q$$.a.type()$q$::jsonpath
select $q$$.a.size()$q$::jsonpath
select $q$$.a.double().floor()$q$::jsonpath
select $q$$.datetime("HH24")$q$::jsonpath
select $q$$ ? (@ like_regex "^a" flag "i")$q$::jsonpath
select $q$$ ? (@ starts with "a")$q$::jsonpath
select $q$$ ? (exists (@.a))$q$::jsonpath
select $q$$ ? (!(@ > 1))$q$::jsonpath
select $q$$ ? ((@ > 1) is unknown)$q$::jsonpath
select $q$$var$q$::jsonpath
select $q$$.a ? (@ == $x)$q$::jsonpath
select $q$null$q$::jsonpath
select $q$true$q$::jsonpath
select $q$"str"$q$::jsonpath
select $q$$[0]$q$::jsonpath
select $q$$.a[$.b]$q$::jsonpath
select $q$@$q$::jsonpath
select $q$last$q$::jsonpath
select $q$$.a ==$q$::jsonpath
select $q$$ ? (@ > 1$q$::jsonpath
select $q$$.a.keyvalue()$q$::jsonpath
select $q$$.a == 1$q$::jsonpath
select $q$$ ? (@.a == "x\"y")$q$::jsonpath
select $q$$."\u0041"$q$::jsonpath
select $q$$.a[1.5]$q$::jsonpath
select $q$$.abs$q$::jsonpath
select $q$$.a.b ? (@ > 1).c$q$::jsonpath
select $q$$ ? (@ > 1) ? (@ < 5)$q$::jsonpath
select $q$00$q$::jsonpath
select $q$1.2.3$q$::jsonpath
select $q$$ . a$q$::jsonpath
select $q$$.a[*] ? (@ != 2 || @ == 2)$q$::jsonpath
select $q$$ ? (@ <> 2)$q$::jsonpath
select $q$$.a[1 to 2]$q$::jsonpath
select $q$$ ? (@.a + @.b > 3)$q$::jsonpath
select $q$$.a / 2 % 3$q$::jsonpath
select $q$-(1 + 2)$q$::jsonpath
select $q$$ ? (1 == 1)$q$::jsonpath
select $q$"a" like_regex "b"$q$::jsonpath
select $q$$ # 1$q$::jsonpath
select $q$$.a ? (@ > 1) extra$q$::jsonpath
select $q$$ ? (last > 1)$q$::jsonpath
select $q$$.a[last - 1]$q$::jsonpath
select $q$$ ? (@.a[last] > 1)$q$::jsonpath
select $q$$ ? (@ == 1.5e2)$q$::jsonpath
select $q$$.a ? ($ == 1)$q$::jsonpath
select $q$$ like_regex "a" flag "z"$q$::jsonpath
select $q$1.5e-2$q$::jsonpath
select $q$-1.20$q$::jsonpath
select $q$$."a\tb"$q$::jsonpath
select $q$$.a[-1]$q$::jsonpath
select $q$exists($.a)$q$::jsonpath
select $q$$ ? (@ == null)$q$::jsonpath
select $q$$.a ? (@ == true || !(@ == false))$q$::jsonpath
select $q$$.datetime()$q$::jsonpath
select $q$$.**{last}$q$::jsonpath
select $q$$.**{2 to 5}.b$q$::jsonpath
select $q$$.a.b[*][2].c$q$::jsonpath
select $q$$ ? (@ like_regex "a" flag "xsi")$q$::jsonpath
select $q$$.a.b ? (@.c > 2 || @.d < 3 && @.e == 4)$q$::jsonpath
select $q$$ ? (-@ > 1)$q$::jsonpath
select $q$$.a[*] ? (@.x starts with $v)$q$::jsonpath
select $q$($ ? (@ > 1)).a$q$::jsonpath
select $q$$.a ? (@ > 1 && (@ < 3 || @ == 7))$q$::jsonpath
select $q$$.g ? (exists (@.x ? (@ > 1)))$q$::jsonpath
select $q$strict$q$::jsonpath
select $q$$.a ? @ > 1$q$::jsonpath
""".strip().splitlines()


def test_jsonpath_type_normalizes_as_pg15(pg15, cumulo_server):
    """Each path prints as PostgreSQL's jsonpath_out does, or fails with its 42601 message."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), NORMALIZED, False)


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        return [await c.fetchval("select $1::jsonpath", "$.a[*] ? (@ > 1)"),
                await c.fetchval("select '{\"a\": [1, 5]}'::jsonb @? $1", "$.a[*] ? (@ > 2)"),
                await c.fetchval("select $1::point <-> point '(4,6)'", asyncpg.Point(1, 2)),
                await c.fetchval("select box '(0,0),(2,2)' # $1", asyncpg.Box((1, 1), (3, 3))),
                await c.fetchval("select @@ $1::circle", asyncpg.Circle((1, 2), 3))]
    finally:
        await c.close()


def test_asyncpg_jsonpath_and_geometry(pg15, cumulo_server):
    """asyncpg's introspection and codecs see jsonpath and the geometric results as on PG 15."""
    assert asyncio.run(_asyncpg(cumulo_server.dsn())) == asyncio.run(_asyncpg(pg15.dsn()))


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_jsonpath_matches_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists jp_t", "drop table if exists jpt"])
