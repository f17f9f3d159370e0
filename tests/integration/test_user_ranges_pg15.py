"""CREATE TYPE ... AS RANGE against a throwaway PostgreSQL 15 (issue 16, item 2).

A user range type over float8 or numeric: its constructor functions and its
multirange's (named by PostgreSQL's rule, or MULTIRANGE_TYPE_NAME), input and
output, operators, lower/upper/isempty, format_type and regtype, pg_type and
pg_range rows, a column of the type, DROP TYPE. Text and binary formats.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
create type floatrange as range (subtype = float8)
create type tr2 as range (subtype = numeric, multirange_type_name = tr2_multi)
select floatrange(1.5, 2.5), floatrange(1, 2, '[]'), '[1.5,3)'::floatrange @> 2.0::float8, floatrange(1, 5) && floatrange(4, 6), floatrange(1, 3) + floatrange(2, 6)
select '[1,2)'::tr2, tr2(1, 2), tr2_multi(tr2(1, 2), tr2(3, 4)), '{[1,2)}'::tr2_multi
select floatmultirange(floatrange(1, 2), floatrange(1.5, 3)), lower(floatrange(1, 2)), upper_inc(floatrange(1, 2, '[]')), isempty(floatrange(1, 1))
select format_type('floatrange'::regtype, -1), format_type('floatmultirange'::regtype, -1), 'tr2_multi'::regtype::text
select typname, typtype, typcategory, typalign from pg_type where typname in ('floatrange', '_floatrange', 'floatmultirange', '_floatmultirange') order by typname
select rngsubtype::regtype::text, rngmultitypid::regtype::text, rngsubopc from pg_range where rngtypid = 'floatrange'::regtype
create table ur_t (id int primary key, r floatrange)
insert into ur_t values (1, '[1,2)'), (2, '(,0]'), (3, 'empty')
select * from ur_t order by r
drop table ur_t
drop type tr2
drop type floatrange
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_user_ranges_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's outcome (user type OIDs compare as "user")."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=[
                            "drop table if exists ur_t",
                            "drop type if exists tr2",
                            "drop type if exists floatrange"])
