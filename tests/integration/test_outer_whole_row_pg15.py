"""A whole row from the null side of an outer join is NULL, as in PostgreSQL 15 (issue 16).

`select u from t left join u on false` gives NULL on PostgreSQL, not `(,)`: the row of a
null-extended relation does not exist, so its whole-row value is NULL (while `u IS NULL`
is true for both, and a real row of NULLs still prints `(,)`). Checked in the bytes each
server sends, text and binary (`typediff`), through psycopg; then pg8000 and our driver.

Known gap: a relation with no NOT NULL column tells a null-extended row from a matched row
of NULLs only by its fields, so a matched all-NULL row prints NULL here (PostgreSQL: `(,)`).
"""

from __future__ import annotations

import pg8000.native
import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15
from tests.pg15 import PASSWORD

STATEMENTS = """
create table owt (a int, b text)
create table owu (a int not null, c text)
create table oww (x int, y int)
insert into owt values (1, 'x'), (2, null), (3, 'z')
insert into owu values (1, 'one')
insert into oww values (null, null), (1, null)
select owu from owt left join owu on false
select t, u from owt t left join owu u on t.a = u.a order by t.a
select u is null, u is not null, u::text, count(u) over (), row_to_json(u) from owt t left join owu u on false order by 1
select t.a, w from owt t left join oww w on t.a = w.x order by t.a
select t, w from oww w right join owt t on false order by t.a
select t, w from owt t full join oww w on t.a = w.x where w.x is not null or t.a is not null order by t.a, w.x
select t, to_jsonb(u), json_agg(u) over () from owt t left join owu u on t.a = u.a order by t.a
select t, u, w from owt t left join owu u on t.a = u.a left join oww w on u.a = w.x order by t.a
select t.a, (select count(*) from owt z where z = t) from owt t order by 1
select t.a, s from owt t left join (select a, c from owu) s on s.a = t.a order by 1
select count(u), count(t) from owt t left join owu u on t.a = u.a
select w from oww w order by x
drop table owt, owu, oww
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_outer_whole_rows_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists owt, owu, oww"])


SETUP = ["drop table if exists owp", "create table owp (a int, b text)",
         "insert into owp values (1, 'x'), (2, null)"]
QUERY = "select t.a, u::text from owp t left join owp u on u.a = t.a + 1 order by 1"


def test_clients_read_null_extended_rows(pg15, cumulo_server):
    """pg8000 and cumulo.driver get NULL for the missing row, as from PostgreSQL."""
    def p8(port: int, password: str | None) -> list:
        c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                     password=password)
        try:
            for s in SETUP:
                c.run(s)
            return [tuple(r) for r in c.run(QUERY)]
        finally:
            c.close()

    want = p8(pg15.port, PASSWORD)
    assert want == [(1, "(2,)"), (2, None)]
    assert p8(cumulo_server.port, None) == want
    with drv.connect(cumulo_server.dsn()) as conn:
        cur = conn.cursor()
        cur.execute(QUERY)
        assert [tuple(r) for r in cur.fetchall()] == want
