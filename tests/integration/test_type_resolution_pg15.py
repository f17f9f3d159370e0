"""Type resolution as PostgreSQL 15's parser does it (issue 16): set operations, `(x).*`,
result column names. Differential: the bytes each server sends (type OIDs, typmods, text
and binary values, or SQLSTATE and message) through libpq (`typediff`), then what pg8000
users see, and the RowDescription's column names and origins.

Set operations follow select_common_type: an untyped literal in a SELECT operand takes the
other side's type (`t UNION SELECT '(3,4)'` reads a `t`), two categories are 42804, the
kept type moves only to one it converts to implicitly (`varchar UNION text` is varchar,
`int UNION oid` oid, `float4 UNION int` float4), and a failed conversion is 42846.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

SETUP = """
create table trt (a int, b int)
insert into trt values (1, 2)
create table trs (x varchar(5), y char(3), z numeric(5,2))
insert into trs values ('a', 'b', 1.5)
create type trc as (x int, y text)
""".strip().splitlines()
DROPS = ["drop table if exists trt, trs", "drop type if exists trc"]

SETOPS = """
select t from trt t union select '(3,4)' order by 1
select '(3,4)' union select t from trt t order by 1
select t from trt t union all select null order by 1
select t from trt t union select 'a'::text
select t from trt t union values (null)
select 1 union select 'a'::text
select true union select 1
select 1 intersect select 'a'::text
select 1 union all select 'x'
select 1 except select 'a'
select 'a' union select 'b' union select 3
select 1 union (select '2' union select '3')
select * from (select '2') s union select 1
select 1 union values ('2')
select '1' union select 2 order by 1
select '1'::unknown union select 2 order by 1
select 1 union select null::unknown order by 1
(select '5') union select 1 order by 1
select 'a'::varchar union select 'b'::text order by 1
select 'b'::text union select 'a'::varchar order by 1
select 'x'::char(3) union select 'y'::varchar(5) order by 1
select 'x'::varchar(3) union select 'y'::varchar(5) order by 1
select 'x'::varchar(3) union select 'y'::varchar(3) order by 1
select 1::oid union select 2 order by 1
select 2 union select 1::oid order by 1
select 1::int8 union select 1::oid
select '1'::text union select 1::oid
select 1.5::float4 union select 2 order by 1
select 1.5 union select 1::float4 order by 1
select 1::int2 union select 1::int8 union select 1.5 order by 1
select '2020-01-01'::date union select '2020-01-01 10:00'::timestamp order by 1
select '2020-01-01'::date union select '10:00'::time
select '1 day'::interval union select '10:00'::time
select 'a'::name union select 'b'::varchar order by 1
select array[1] union select '{2}' order by 1
select array[1] union select array[2.5] order by 1
select '{1}'::int[] union select '{a}'::text[]
select '{}'::json union select '{}'::jsonb
select x from trs union select 'b' order by 1
select x from trs union select x from trs
select y from trs union select 'zz' order by 1
select z from trs union select 1 order by 1
select x, y, z from trs union all select null, null, null order by 1
select '1' as a, 2 as b union select 3, '4' order by 1
select * from (select 1 as a union select '2') q order by 1
select t.* from trt t union select '3', '4' order by 1
values (1), (2.5), ('3') order by 1
values (true), (1)
values (1), ('a')
values ('a'::varchar), ('b'::text)
values ('a'::varchar(3)), ('b'::varchar(3))
""".strip().splitlines()

FIELDS = """
select (t).* from trt t
select (t).a, (t).b, (t.*).a from trt t
select ((t)).* from trt t
select (t).*, 5 as z from trt t where (t).a = 1 order by (t).b
select (x).*, (x).a from (select t as x from trt t) s
select (row(1, 2)).*, (row(1, 'a'::text)).f2
select (x).*, (x).f1 from (select row(1, 2) as x) s
select (row(1, 'a')::trc).*, (row(1, 'a')::trc).y
select count(*) from (select (t).* from trt t) s
select (t).c from trt t
select (x).c from (select t as x from trt t) s
select (row(1, 2)).c
select (x).c from (select row(1, 2) as x) s
select (row(1, 'a')::trc).z
select (1).x
select (a).* from trt
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_set_operations_and_fields_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), [*SETUP, *SETOPS, *FIELDS], binary,
                        drops=DROPS)


def _described(dsn: str, statements: list[str]) -> list:
    """Each statement's RowDescription as libpq reads it: (name, type, table?, column)."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for s in DROPS + SETUP:
            c.execute(s)
        for s in statements:
            res = c.pgconn.exec_(s.encode())
            out.append([(res.fname(i), res.ftype(i) if res.ftype(i) < 16384 else "user",
                         res.ftable(i) != 0, res.ftablecol(i)) for i in range(res.nfields)])
    return out


def test_names_and_origins_match_pg15(pg15, cumulo_server):
    """Column names, types and origins of set operations and `(x).*`, then pg8000's view."""
    queries = [q for q in SETOPS + FIELDS if "order by 1" in q or q.startswith("select (")]
    want = _described(pg15.dsn(), queries)
    assert want[0] == [(b"t", "user", False, 0)]
    assert _described(cumulo_server.dsn(), queries) == want
    script = DROPS + SETUP + SETOPS[:12] + FIELDS
    assert pg8000_outcomes(cumulo_server.port, None, script) == \
        pg8000_outcomes(pg15.port, PASSWORD, script)
