"""Type modifiers of bit(n), bit varying(n) and time(p) with time zone against PostgreSQL 15 (issue 16, item 12).

The typmod reaches RowDescription (casts and columns), pg_attribute /
format_type and information_schema; `bit` alone is bit(1); explicit casts pad
or truncate bit strings and round timetz fractions; B'101' and X'1F' are bit
literals; bit's binary format (bit count, packed bits). Text and binary.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15

STATEMENTS = """
select '10101'::bit(5), '101'::varbit(5), '10:00'::timetz(2), '10:00:01.555+02'::timetz(1)
select B'101', B'101'::varbit, X'1F'::bit(8)
select '101'::bit(5)
select '101101'::varbit(3)
create table tm_t (a bit(5), b varbit(8), c timetz(2), f bit, g time(3) with time zone)
select format_type(atttypid, atttypmod), atttypmod from pg_attribute where attrelid = 'tm_t'::regclass and attnum > 0 order by attnum
insert into tm_t values ('10101', '1', '10:00:01.555+00', '1', '10:00')
select * from tm_t
select column_name, data_type, character_maximum_length, datetime_precision from information_schema.columns where table_name = 'tm_t' order by ordinal_position
drop table tm_t
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_typmods_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types, typmods and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists tm_t"])
