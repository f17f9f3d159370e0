"""'infinity' timestamps at the edges PostgreSQL 15 defines (issue 16, item 6).

A cast of an infinite timestamp to `time` or `date`, `age()` of one, and `extract` /
`date_part` of one, compared in the bytes each server sends, text and binary (`typediff`,
psycopg), then through pg8000 and cumulo.driver.
"""

from __future__ import annotations

import pg8000.native
import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15
from tests.pg15 import PASSWORD

STATEMENTS = """
select 'infinity'::timestamp::time
select '-infinity'::timestamptz::time
select 'infinity'::timestamp::date, '-infinity'::timestamptz::date
select age('infinity'::timestamp, '2020-01-01'::timestamp)
select age('2020-01-01'::timestamp, '-infinity'::timestamp)
select age('infinity'::timestamptz, '2020-01-01'::timestamptz)
select extract(epoch from '-infinity'::timestamp), extract(epoch from 'infinity'::timestamptz)
select extract(epoch from 'infinity'::date), extract(year from '-infinity'::timestamp)
select extract(day from 'infinity'::timestamp), extract(dow from 'infinity'::timestamp)
select date_part('epoch', '-infinity'::timestamp), date_part('year', 'infinity'::timestamp)
select date_part('day', 'infinity'::timestamp)
select 'infinity'::numeric, '-infinity'::numeric, 'infinity'::float8::numeric, 'nan'::numeric
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_infinity_edges_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary)


QUERY = ("select 'infinity'::timestamp::time, date_part('day', 'infinity'::timestamp), "
         "age('infinity'::timestamp, '2020-01-01')::text, extract(epoch from '-infinity'::date)")


def test_clients_read_infinity_edges(pg15, cumulo_server):
    """pg8000 (text) and cumulo.driver see PostgreSQL's values; age(x, '-infinity') is 22008."""
    def p8(port: int, password: str | None) -> list:
        c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                     password=password)
        try:
            return [tuple(r) for r in c.run(QUERY)]
        finally:
            c.close()

    want = p8(pg15.port, PASSWORD)
    assert want[0][:3] == (None, None, "292257 years 8 days 04:00:54.775807")
    assert p8(cumulo_server.port, None) == want
    with drv.connect(cumulo_server.dsn()) as c:
        cur = c.cursor()
        cur.execute(QUERY)
        assert [tuple(r) for r in cur.fetchall()] == want
        with pytest.raises(drv.DatabaseError) as e:
            cur.execute("select age('2020-01-01'::timestamp, '-infinity')")
        assert e.value.sqlstate == "22008"
