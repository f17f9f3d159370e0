"""Django's time and JSON gaps against a throwaway PostgreSQL 15 (issue 16, Django items 4 and 5).

date_trunc on time (time is implicitly an interval), time - time, date - date
as an integer, time input such as '3:16:17.4567', the jsonb operators ?| and
?& and ? on a key path, and ordering and comparing jsonb values in
PostgreSQL's jsonb order (Object > Array > Boolean > Number > String > Null,
numbers as numbers), DISTINCT ON over jsonb. Text and binary formats.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select date_trunc('hour', time '10:34:56'), date_trunc('minute', interval '1 day 10:34:56'), date_trunc('second', time '10:34:56.789')
select time '10:00' - time '08:30', time '08:00' - time '10:30:00.5', date '2024-03-01' - date '2024-02-01', pg_typeof(date '2024-03-01' - date '2024-02-01')
select '3:16:17.4567'::time, time '3:16:17.4567', '3:16:17'::time, '03:16'::time
select '{"a":1,"b":2}'::jsonb ?| array['a','c'], '{"a":1,"b":2}'::jsonb ?& array['a','c'], '{"a":{"b":1}}'::jsonb -> 'a' ? 'b', '["x","y"]'::jsonb ?& array['x','y'], '{"a":1}'::jsonb ?| array[]::text[]
select '{"a":1}'::jsonb ?& array[]::text[], '{"a":1}'::jsonb ?| '{a,b}'
select v from (values ('{"a": 1}'::jsonb), ('[1, 2]'), ('[3]'), ('"b"'), ('10'), ('2'), ('null'), ('true'), ('{}'), ('"aa"'), ('false'), ('{"b": 1, "a": 2}'), ('[[1]]'), ('2.5')) s(v) order by v
select v from (values ('{"a": 1}'::jsonb), ('[1, 2]'), ('"b"'), ('10'), ('2')) s(v) order by v desc
select '10'::jsonb > '2'::jsonb, '"a"'::jsonb < '1'::jsonb, '[1]'::jsonb < '{}'::jsonb, '{"a":1}'::jsonb = '{"a": 1}'
select distinct on (k) k, v from (values ('2'::jsonb, 1), ('10', 2), ('2', 3)) s(k, v) order by k, v
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_django_time_and_json_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary)
