"""Arrays whose lower bounds are not 1 ('[2:3]={1,2}') against PostgreSQL 15.

PostgreSQL keeps the bounds an input gives; Cumulo dropped them, so array_lower said 1,
`a[2]` of '[2:3]={1,2}' was 2 instead of 1 and the text output lost its dimensions.
Compared here: the text output (psycopg, psql), the binary output's bytes (psycopg with a
raw loader: its lbound fields), array_lower / array_upper / array_dims / subscripts /
slices / generate_subscripts, casts, array_append / prepend / cat (the outer side's bounds),
array_position(s) / remove / replace (subscripts from the bound), = and <> (the bounds count),
a stored int[] column read back,
binary input with a lower bound, and array_in's errors for bad dimensions.
"""

from __future__ import annotations

import subprocess

import psycopg
from psycopg.adapt import Loader
from psycopg.pq import Format

from tests.integration.stmtdiff import assert_same_outcomes, fresh_databases

SCRIPT = """
select '[2:3]={1,2}'::int[]::text, '[0:1][-1:0]={{1,2},{3,NULL}}'::int[]::text;
select '[1:2]={1,2}'::int[]::text, ' [2:2] = {7}'::int[]::text, '[3]={a,b,c}'::text[]::text;
select array_lower(a, 1), array_upper(a, 1), array_dims(a), array_length(a, 1), cardinality(a), array_ndims(a) from (select '[2:3]={1,2}'::int[] a) s;
select array_lower(a, 2), array_upper(a, 2), array_dims(a), array_lower(a, 3) from (select '[0:1][-1:0]={{1,2},{3,4}}'::int[] a) s;
select a[1], a[2], a[3], a[4] from (select '[2:3]={10,20}'::int[] a) s;
select a[0][-1], a[1][0], a[1][1], a[2][0] from (select '[0:1][-1:0]={{1,2},{3,4}}'::int[] a) s;
select a[2:2]::text, a[:2]::text, a[3:]::text, a[1:9]::text, a[4:5]::text from (select '[2:3]={10,20}'::int[] a) s;
select generate_subscripts('[2:3]={10,20}'::int[], 1);
select '[2:3]={1,2}'::int[]::bigint[]::text, '[2:3]={1.5,2.25}'::numeric(3,1)[]::text, '[5:6]={a,b}'::varchar(1)[]::text;
select format('%s', '[2:3]={x,y}'::text[]);
select array_append('[2:3]={1,2}'::int[], 3)::text, ('[2:3]={1,2}'::int[] || 3)::text, array_prepend(0, '[2:3]={1,2}'::int[])::text, (0 || '[2:3]={1,2}'::int[])::text;
select ('[2:3]={1,2}'::int[] || '{5,6}'::int[])::text, ('{5,6}'::int[] || '[2:3]={1,2}'::int[])::text, array_cat('[0:0]={1}'::int[], '{}'::int[])::text, array_cat('{}'::int[], '[0:0]={1}'::int[])::text;
select ('[0:1][1:2]={{1,2},{3,4}}'::int[] || '{5,6}'::int[])::text, ('{5,6}'::int[] || '[0:1][1:2]={{1,2},{3,4}}'::int[])::text;
select array_position('[2:4]={1,2,1}'::int[], 1), array_position('[2:4]={1,2,1}'::int[], 1, 3), array_positions('[2:4]={1,2,1}'::int[], 1)::text, array_position('{1,2,1}'::int[], 1, 2), array_position('[2:4]={1,2,1}'::int[], 1, 0);
select array_remove('[2:4]={1,2,1}'::int[], 1)::text, array_remove('[2:3]={1,1}'::int[], 1)::text, array_replace('[2:4]={1,2,1}'::int[], 1, 9)::text;
select array_to_string('[2:3]={a,b}'::text[], '-'), unnest('[2:3]={a,b}'::text[]), array_length('[5:5]={x}'::text[], 1);
select '[2:3]={1,2}'::int[] = '{1,2}'::int[], '[2:3]={1,2}'::int[] <> '{1,2}'::int[], '[2:3]={1,2}'::int[] = '[2:3]={1,2}'::int[], '{1,2}'::int[] = '[2:3]={1,2}'::int[], '[2:3]={1,2}'::int[] is distinct from '{1,2}'::int[];
create table arr (id int primary key, a int[], t text[]);
insert into arr values (1, '[2:3]={1,2}', '[0:0]={z}'), (2, '{5}', '{y}'), (3, '[-2:-1][1:1]={{7},{8}}', null);
select id, a::text, t::text, a[2], a[-1], array_lower(a, 1), array_dims(t) from arr order by id;
insert into arr values (4, '{1,2}', '{z}');
select id from arr where a = '{1,2}' order by id;
select id from arr where a = '[2:3]={1,2}' or t = '[0:0]={z}' order by id;
update arr set a = '[4:5]={4,5}' where id = 2;
select id, a::text, a[4] from arr where id = 2;
select '[2:4]={1,2}'::int[];
select '[3:2]={1,2}'::int[];
select '[2:3]{1,2}'::int[];
select '[x]={1}'::int[];
select '[2:3]=1'::int[];
select '[2:3'::int[];
"""


def test_bounds_match_pg15(pg15, cumulo_server):
    assert_same_outcomes(pg15, cumulo_server, "arr_bounds", SCRIPT, types=True, detail=True)


class _Raw(Loader):
    """The binary bytes as the server sent them (psycopg's own array loader drops lbound)."""

    format = Format.BINARY

    def load(self, data: bytes) -> bytes:  # type: ignore[override]
        return bytes(data)


_BINARY_QUERIES = [
    "select '[2:3]={1,2}'::int[]",
    "select '[0:1][-1:0]={{1,2},{3,NULL}}'::int[]",
    "select '{1,2}'::int[]",
    "select a from arr_b order by id",
    "select %s::int[]",
]


def _binary(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("create table arr_b (id int primary key, a int[])")
        conn.execute("insert into arr_b values (1, '[7:8]={1,2}'), (2, '{3}')")
        out = []
        with conn.cursor(binary=True) as cur:
            for q in _BINARY_QUERIES:
                cur.adapters.register_loader(1007, _Raw)  # int4[]
                cur.execute(q, ["[3:4]={5,6}"] if "%s" in q else None)
                out.append((q, cur.fetchall()))
        return out


def test_binary_output_lbounds_match_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "arr_bounds_bin")
    expected = _binary(pg)
    assert any(b"\x00\x00\x00\x07" in row[0] for q, rows in expected for row in rows)
    assert _binary(cu) == expected


def test_binary_input_keeps_lbound(pg15, cumulo_server):
    """A binary int4[] parameter with lbound 3 (hand-made bytes), read back as text."""
    raw = (b"\x00\x00\x00\x01" b"\x00\x00\x00\x00" b"\x00\x00\x00\x17"  # 1 dim, no NULL, int4
           b"\x00\x00\x00\x02" b"\x00\x00\x00\x03"  # 2 elements from 3
           b"\x00\x00\x00\x04\x00\x00\x00\x05" b"\x00\x00\x00\x04\x00\x00\x00\x06")
    got = []
    for dsn in fresh_databases(pg15, cumulo_server, "arr_bounds_bin_in"):
        with psycopg.connect(dsn, autocommit=True) as conn:
            res = conn.pgconn.exec_params(b"select $1::text, array_lower($1, 1), $1[3]",
                                          [raw], [1007], [1])
            assert res.status == psycopg.pq.ExecStatus.TUPLES_OK, res.error_message
            got.append([res.get_value(0, i) for i in range(3)])
    assert got[0] == [b"[3:4]={5,6}", b"3", b"5"]
    assert got[1] == got[0]


def _psql(dsn: str) -> str:
    sql = ("select '[2:3]={1,2}'::int[], array_dims('[0:1][2:3]={{1,2},{3,4}}'::int[]);"
           "select ('[2:3]={10,20}'::int[])[2];")
    res = subprocess.run(["psql", dsn, "-X", "-A", "-t", "-c", sql], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_psql_shows_bounds_as_pg15(pg15, cumulo_server):
    expected = _psql(pg15.dsn())
    assert "[2:3]={1,2}|[0:1][2:3]" in expected
    assert _psql(cumulo_server.dsn()) == expected


def test_bounds_survive_restart(fresh_server):
    """The stored bounds come back from the redo log after a restart (kivi.wire's ext 18)."""
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        conn.execute("create table kept (id int primary key, a int[])")
        conn.execute("insert into kept values (1, '[2:3]={1,2}'), (2, '[0:0][5:6]={{3,4}}')")
    fresh_server.restart()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        rows = conn.execute("select a::text, array_lower(a, 1) from kept order by id").fetchall()
    assert rows == [("[2:3]={1,2}", 2), ("[0:0][5:6]={{3,4}}", 0)]
