"""JSON builders over json/jsonb arguments, against a throwaway PostgreSQL 15 (issue 16, Django 5).

A json or jsonb argument of jsonb_build_object, json_build_array, to_json and
the rest is embedded as JSON, not as a string: `jsonb_build_object('a',
jsonb_build_object('b', 1))` is `{"a": {"b": 1}}`. Cumulo used to return
`{"a": "{\"b\": 1}"}`, a wrong answer. Text and binary bytes must match.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select jsonb_build_object('a', jsonb_build_object('b', 1)), json_build_object('a', json_build_object('b', 1))
select jsonb_build_object('a', jsonb_build_object('b', 1))->'a'->'b', jsonb_build_object('a', '{"x":1}'::jsonb) #> '{a,x}'
select jsonb_build_array(jsonb_build_object('b', 1), '[1, 2]'::json, 'text', null), json_build_array('{"a" :  1}'::json, '{"a" :  1}'::jsonb, 'x')
select to_jsonb(array['{"a":1}'::jsonb]), to_json('{"a":1}'::json), to_json(array['{"a":1}'::json, null])
select jsonb_build_object('a', array['{"a":1}'::jsonb]), json_build_object('k', '[1, 2]'::json, 'n', null::jsonb)
select jsonb_build_object('a', '"s"'::jsonb, 'b', 'plain'::text, 'c', '{"q": 1}'::text)
select concat('{"a":1}'::jsonb, 'x'), pg_typeof('1'::jsonb), format('%s', '{"a":1}'::jsonb)
select jsonb_agg(x), json_agg(x) from (values ('{"a":1}'::jsonb), ('[2]'::jsonb)) s(x)
create table jb_t (id int primary key, doc jsonb)
insert into jb_t values (1, jsonb_build_object('n', jsonb_build_object('k', 1))), (2, jsonb_build_object('n', '[1]'::jsonb))
select id, doc, doc->'n', jsonb_typeof(doc->'n') from jb_t order by id
drop table jb_t
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_json_builders_match_pg15(binary, pg15, cumulo_server):
    """Nested JSON builders give PostgreSQL 15's objects, byte for byte."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists jb_t"])
