"""date 'infinity' / '-infinity' and the edges of the date range against PostgreSQL 15 (issue 16, item 6).

Infinite dates in and out (text and binary: PostgreSQL's DATEVAL_NOEND and
DATEVAL_NOBEGIN), comparisons with real dates (0001-01-01 and 9999-12-31
are real dates, not infinities), isfinite, date + integer and timestamp +
interval keeping infinities, subtracting an infinite date (22008), casts
between infinite dates and timestamps, and a table that stores, sorts,
filters and aggregates them. Text and binary formats.
"""

from __future__ import annotations

import pytest

from tests.integration.typediff import assert_same_as_pg15, connect, differences

STATEMENTS = """
select 'infinity'::timestamp, '-infinity'::timestamp, 'infinity'::timestamptz, '-infinity'::timestamptz
select 'infinity'::date, '-infinity'::date, ' Infinity '::date
select '+infinity'::date
select '0001-01-01'::date, '9999-12-31'::date, date '0001-01-01' + 1, date '9999-12-31' - 1
select 'infinity'::timestamp > now(), '-infinity'::date < '0001-01-01', 'infinity'::date > '9999-12-31', isfinite('infinity'::date), isfinite('-infinity'::date), isfinite(date '2024-01-01'), isfinite(now()), isfinite('infinity'::timestamp)
select 'infinity'::timestamp - interval '1 day', '-infinity'::date + 1, 'infinity'::date - 7, '-infinity'::timestamptz + interval '1 mon'
select 'infinity'::date - date '2024-01-01'
select 'infinity'::date::timestamp, '-infinity'::date::timestamptz, 'infinity'::timestamp::date, '-infinity'::timestamptz::date
select 'infinity'::date = 'infinity'::date, 'infinity'::date <> '-infinity'::date, greatest('infinity'::date, '2024-01-01'), least('-infinity'::date, '2024-01-01')
create table inf_t (id int primary key, d date, ts timestamp, tz timestamptz)
insert into inf_t values (1, 'infinity', 'infinity', 'infinity'), (2, '-infinity', '-infinity', '-infinity'), (3, '2024-01-01', '2024-01-01 10:00', '2024-01-01 10:00+00'), (4, '0001-01-01', null, null), (5, '9999-12-31', null, null)
select * from inf_t order by id
select id, d from inf_t order by d, id
select id from inf_t where d > '2024-01-01' order by id
select id from inf_t where d = 'infinity'
select min(d), max(d), count(distinct d) from inf_t
drop table inf_t
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_infinite_dates_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists inf_t"])


EXTREME_INTERVALS = """
select interval '178000000 years', interval '-178000000 years', interval '2147483647 days', interval '2147483647 months', interval '-2147483648 days'
select interval '2147483647 days 2147483647 hours', interval '178000000 years' > interval '1 year', interval '-178000000 years' < interval '1 year'
select interval '178000000 years' + interval '1 mon'
select interval '2147483648 days'
select interval '178956970 years 8 months'
select justify_days(interval '2147483647 days')
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_extreme_intervals_match_pg15(binary, pg15, cumulo_server):
    """Intervals at the int32 limits of months and days: PG 15's values, text and binary."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        mism = differences(pc, cc, EXTREME_INTERVALS, binary)
    assert not mism, "\n".join(mism)
