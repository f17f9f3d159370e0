"""SQL/JSON path functions against a throwaway PostgreSQL 15 (issue 16, Django item 5).

jsonb_path_query (a set), _query_array, _query_first, _exists and _match in
lax mode: members, wildcards, subscripts and ranges (`last`), filters with
comparisons, && || !, exists, starts with and like_regex, predicate paths,
syntax errors (42601), and the functions over a table's jsonb column. Text and
binary formats.
"""

from __future__ import annotations

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
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_jsonpath_matches_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists jp_t"])
