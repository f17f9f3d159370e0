"""ROW(...) constructors and anonymous record values against PostgreSQL 15 (issue 16, item 10).

record_out's text (`(1,"a b",,"","x""y")`: quoting, NULL as nothing, nested
records quoted) and record_send's binary layout (field count, then each
field's type OID, length and bytes; an unknown literal field is OID 705 as in
PostgreSQL), for ROW(...) and (a, b) forms, nested records, arrays of
records, records of columns, row comparisons and IN. Text and binary formats.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select row(1, 'a')
select (1, 'a'::text)
select row(1, 'a b', null, '', 'x"y', 'p,q', 2.5::numeric, true)
select row(1, row(2, 'z'))
select row()
select (1, 2) = (1, 2), row(1, 'a') < row(1, 'b')
select pg_typeof(row(1, 2))
select array[row(1, 'a'), row(2, 'b')]
select row(1, date '2024-01-01', '{"a": 1}'::jsonb)
create table row_t (id int primary key, name text, d date)
insert into row_t values (1, 'x y', '2024-01-01'), (2, null, null)
select row(id, name, d), (id, name) from row_t order by id
select id from row_t where (id, name) = (1, 'x y')
select id from row_t where row(id, 'q') in (row(2, 'q'), row(3, 'q')) order by id
drop table row_t
select row(1.5::float8, 'NaN'::float8, -0.0::float8), row(array[1,2], 'x'::bytea), row(interval '1 day', uuid '00000000-0000-0000-0000-000000000001')
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_records_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists row_t"])
