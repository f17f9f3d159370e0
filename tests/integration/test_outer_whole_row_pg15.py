"""A whole row from the null side of an outer join is NULL, as in PostgreSQL 15 (issue 16).

`select u from t left join u on false` gives NULL on PostgreSQL, not `(,)`: the row of a
null-extended relation does not exist, so its whole-row value is NULL (while `u IS NULL`
is true for both, and a real row of NULLs still prints `(,)`). Checked in the bytes each
server sends, text and binary (`typediff`), through psycopg; then pg8000 and our driver.

A matched row whose fields are all NULL is `(,)` on both, even in a table with no NOT NULL
column (the join marks its padded rows), and parenthesised joins work on either side: a
join alias's whole row is PostgreSQL's ROW() of the join's columns, `(,,)` when padded.
"""

from __future__ import annotations

import struct

import pg8000.native
import psycopg
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
select t.a, w, w is null, row_to_json(w) from owt t left join oww w on t.a = 2 order by 1, 2
select t, w from oww w full join owt t on t.a = w.x order by t.a, w.x
select t.a, u, w from owt t left join (owu u join oww w on w.x = u.a) on t.a = u.a order by 1
select t.a, w from owt t left join (owu u left join oww w on w.x = u.a + 9) on t.a = u.a order by 1
select t.a, j, j is null, to_jsonb(j) from owt t left join (owu u join oww w on w.x = u.a) j on t.a = j.a order by 1
select * from owt t join (owu u cross join oww w) on t.a = u.a order by w.x
select j.a, j.y from (oww w left join owu u on u.a = w.x) j order by 1
select t.a, s from owt t left join (select x, y from oww) s on s.x is null order by 1
select u.a from owt t, (owu u join oww w on w.x = u.a) j
select owt.a from owt t
select (select owt.a from owu) from owt x
select nosuch.a from owt
select t.a, (select w from oww w where w.x is null and t.a = 1) from owt t order by 1
create view owv as select a, b from owt where a < 3
select v, pg_typeof(v)::text, v.a from owv v order by v.a
select (select v from owv v order by a limit 1), (select t from owt t order by a limit 1)
select row(1, t)::text, row(t, row(2, 'x'))::text, (t, 3)::text from owt t order by t.a
select t.a, v, row(v)::text from owt t left join owv v on v.a = t.a order by 1
select t from owt t union select row(1, 'x')
select row(1, 'x') intersect select t from owt t
select t from owt t union select v from owv v
select t from owt t except all select v from owv v
select t from owt t where a = 1 union all select null
select null union all select t from owt t where a = 1
select t from owt t where a = 1 union select t from owt t where a = 1
select array[1] union select array[2.5] order by 1
select '(3,4)'::text::record
select coalesce(t, null), case when a > 1 then t end, coalesce(t, null)::text, row_to_json(coalesce(t, null)), coalesce(row(1, 2), null) from owt t order by a
select null::record, null::text::record, (select b from owt where a = 2)::record
select '_owt'::regtype::text, '_owt'::regtype::oid = (select typarray from pg_type where typname = 'owt'), format_type('_owt'::regtype, null), to_regtype('public._owt')::text, to_regtype('_nosuch')
select format_type(typarray, null), typarray::regtype::text from pg_type where typname = 'owt'
select '_owt[]'::regtype
select '_nosuch'::regtype
drop view owv
drop table owt, owu, oww
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_outer_whole_rows_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop view if exists owv",
                                                       "drop table if exists owt, owu, oww"])


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


ARRAYS_OF_ROWS = """
create table oat (a int, b text)
insert into oat values (1, 'x'), (2, null)
select array_agg(t order by a), pg_typeof(array_agg(t)) from oat t
select array[t], (array[t])[1], pg_typeof((array[t])[1]) from oat t order by a
select (array_agg(t order by a))[2], t2 from oat t, (select t as t2 from oat t) s group by t2 order by 2
select t, count(*) from oat t group by t order by 1
select t from oat t union all select t from oat t order by 1
drop table oat
""".strip().splitlines()


def test_nested_rows_carry_their_row_type(pg15, cumulo_server):
    """record_send names a whole row nested in a record by its table's or view's row type
    (pg_class.reltype), as PostgreSQL does, not `record` (2249); an array of whole rows
    (`ARRAY[t]`, `array_agg(t)`) is typed with the table's array type, in its RowDescription
    and as the element type array_send writes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), ARRAYS_OF_ROWS, False,
                        drops=["drop table if exists oat"])

    def oids(dsn: str) -> list[int]:
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("drop view if exists onv")
            c.execute("drop table if exists ont")
            c.execute("create table ont (a int, b text)")
            c.execute("insert into ont values (1, 'x')")
            c.execute("create view onv as select a from ont")
            cur = c.cursor(binary=True)
            cur.execute("select row(1, t), row(v), 'ont'::regtype::oid, 'onv'::regtype::oid, "
                        "array_agg(t), (select typarray from pg_type where oid = 'ont'::regtype) "
                        "from ont t, onv v group by v, t")
            (_, _, ont, onv, _, arr), = cur.fetchall()
            res = cur.pgresult
            assert res is not None
            r1, r2, a = (res.get_value(0, i) for i in (0, 1, 4))  # NB: the bytes as sent
            assert r1 is not None and r2 is not None and a is not None
            array_types = [res.ftype(4) - arr, struct.unpack_from("!I", a, 8)[0] - ont]
            c.execute("drop view onv")
            c.execute("drop table ont")
        # record_send: field count, then per field its type OID, length and bytes
        return [struct.unpack_from("!I", r1, 16)[0] - ont, struct.unpack_from("!I", r2, 4)[0] - onv,
                *array_types]

    assert oids(pg15.dsn()) == [0, 0, 0, 0]
    assert oids(cumulo_server.dsn()) == [0, 0, 0, 0]


ORIGIN_QUERIES = [
    "select t, a, t.* from ort t",
    "select x from ort x",
    "select v.a, v from orv v",
    "select s from (select a, b from ort) s",
    "select t from ort t union all select t from ort t",
    "select * from (select t from ort t) q",
    "select u from ort t left join ort u on false",
    "select j from (ort t join orv v using (a)) j",
    "select row(t.a), count(t) over () from ort t",
    "select distinct t from ort t order by t",
]


def test_whole_row_origin_in_row_description(pg15, cumulo_server):
    """A top-level whole row names its relation (table or view) with column 0 in the
    RowDescription, as PostgreSQL's resorigtbl/resorigcol; a subquery's, a join alias's, a
    set operation's or ROW()'s names none."""
    def origins(dsn: str) -> list[list[tuple]]:
        with psycopg.connect(dsn, autocommit=True) as c:
            for s in ("drop view if exists orv", "drop table if exists ort",
                      "create table ort (a int, b text)", "insert into ort values (1, 'x')",
                      "create view orv as select a, b from ort"):
                c.execute(s)
            rel = dict(c.execute("select oid::int, relname::text from pg_class "
                                 "where relname in ('ort', 'orv')").fetchall())
            out = []
            for q in ORIGIN_QUERIES:
                res = c.pgconn.exec_(q.encode())
                out.append([(res.fname(i), rel.get(res.ftable(i), res.ftable(i)),
                             res.ftablecol(i)) for i in range(res.nfields)])
            c.execute("drop view orv")
            c.execute("drop table ort")
        return out

    want = origins(pg15.dsn())
    assert want[0][0] == (b"t", "ort", 0) and want[3][0] == (b"s", 0, 0)
    assert origins(cumulo_server.dsn()) == want
