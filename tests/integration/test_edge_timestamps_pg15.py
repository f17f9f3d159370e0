"""The real 0001-01-01 00:00:00 and 9999-12-31 23:59:59.999999 are not the infinities (issue 16).

`-infinity` used to be datetime.min, so a Go or .NET zero time
(`0001-01-01 00:00:00`) read back as `-infinity`, and the last microsecond of
9999 as `infinity`. The sentinels are now a type of their own
(`pgtypes.infdate.InfiniteTimestamp`). Checked against PostgreSQL 15, in the
bytes each server sends (text and binary, `typediff`): literals, comparisons,
casts, arithmetic, a table that stores, sorts, filters, indexes and groups
both the edges and the infinities (row path and columnar copy), a primary key
holding all four, COPY in and out (text and binary), asyncpg, pg8000 and
cumulo.driver reading the values, and a restart (redo log and checkpoint).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import signal

import asyncpg
import pg8000.native
import psycopg
import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15, connect, differences
from tests.pg15 import PASSWORD

STATEMENTS = """
set timezone = 'UTC'
select '0001-01-01 00:00:00'::timestamp, '9999-12-31 23:59:59.999999'::timestamp, '-infinity'::timestamp, 'infinity'::timestamp
select '0001-01-01 00:00:00+00'::timestamptz, '9999-12-31 23:59:59.999999+00'::timestamptz, '-infinity'::timestamptz, 'infinity'::timestamptz
select '0001-01-01'::date, '9999-12-31'::date, '-infinity'::date, 'infinity'::date
select '0001-01-01'::timestamp = '-infinity', '0001-01-01'::timestamp > '-infinity', '9999-12-31 23:59:59.999999'::timestamp < 'infinity', isfinite('0001-01-01'::timestamp), isfinite('9999-12-31 23:59:59.999999'::timestamptz)
select '0001-01-01'::timestamp + interval '1 day', '9999-12-31 23:59:59.999999'::timestamp - interval '1 us', '0001-01-02'::timestamp - interval '1 day'
select '9999-12-31 23:59:59.999999'::timestamp - '0001-01-01'::timestamp, '0001-01-01'::timestamp - '0001-01-01'::timestamp
select 'infinity'::timestamp - '0001-01-01'::timestamp
select '0001-01-01'::timestamp::date, '0001-01-01'::date::timestamp, '0001-01-01'::date::timestamptz, '0001-01-01 00:00:00+00'::timestamptz::timestamp, '9999-12-31 23:59:59.999999'::timestamp::date
select extract(year from '0001-01-01'::timestamp), extract(epoch from '9999-12-31 23:59:59.999999'::timestamp), date_trunc('day', '0001-01-01 00:00:00'::timestamp)
select '0001-01-01'::timestamp::text, '-infinity'::timestamp::text, to_char('0001-01-01'::timestamp, 'YYYY-MM-DD HH24:MI:SS')
select greatest('0001-01-01'::timestamp, '-infinity'), least('9999-12-31 23:59:59.999999'::timestamp, 'infinity')
select date '0001-01-01' + time '00:00', time '01:02' + date '2024-02-29', 'infinity'::date + time '10:00', '0001-01-01'::date - 0
select to_char('infinity'::timestamp, 'YYYY'), to_char('-infinity'::date, 'YYYY'), to_char('0001-01-01'::timestamp, 'YYYY')
select to_json('infinity'::timestamp), to_jsonb('-infinity'::timestamptz), to_json('0001-01-01'::timestamp)
select max(x), min(x) from (values ('0001-01-01'::timestamp), ('-infinity'), ('infinity')) v(x)
create table ets (id int primary key, ts timestamp, tz timestamptz, d date)
insert into ets values (1, '0001-01-01', '0001-01-01 00:00:00+00', '0001-01-01'), (2, '-infinity', '-infinity', '-infinity'), (3, '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59.999999+00', '9999-12-31'), (4, 'infinity', 'infinity', 'infinity'), (5, '2024-01-01 10:00', '2024-01-01 10:00+00', '2024-01-01'), (6, null, null, null)
select * from ets order by id
select id, ts from ets order by ts, id
select id, tz from ets order by tz desc, id
select id from ets where ts = '0001-01-01' order by id
select id from ets where ts = '-infinity' order by id
select id from ets where ts < '0001-01-02' order by id
select id from ets where tz >= '9999-12-31 23:59:59.999999+00' order by id
select id from ets where ts in ('0001-01-01', 'infinity') order by id
select min(ts), max(ts), min(tz), max(tz), count(distinct ts), count(distinct d) from ets
select ts, count(*) from ets group by ts order by ts
select a.id, b.id from ets a join ets b on a.ts = b.ts order by 1
select id, ts::date, d::timestamp from ets order by id
create index ets_ts on ets (ts)
select id from ets where ts = '0001-01-01'
select id from ets where ts <= '0001-01-01' order by ts
select id from ets where ts > '9999-12-31 23:59:59' order by ts
create table etk (ts timestamp primary key, d date unique)
insert into etk values ('-infinity', '-infinity'), ('0001-01-01', '0001-01-01'), ('9999-12-31 23:59:59.999999', '9999-12-31'), ('infinity', 'infinity')
insert into etk values ('0001-01-01', '2000-01-01')
insert into etk values ('2000-01-01', 'infinity')
select * from etk order by ts
select * from etk where ts = '-infinity'
select * from etk order by d desc
update ets set ts = ts + interval '1 day' where id in (1, 2)
select id, ts from ets where id in (1, 2) order by id
select '24:00:00'::time, '24:00'::time::text, '24:00:00+02'::timetz, '24:00:00.000001'::time
select '24:00:00.000001'::time
select '24:00'::time = '00:00', '24:00'::time > '23:59:59.999999', time '24:00' - time '23:00', time '24:00' - time '00:00'
select time '24:00' + interval '1 hour', time '24:00' - interval '30 min', date '2000-02-28' + time '24:00', time '24:00'::interval
select extract(hour from time '24:00'), extract(epoch from time '24:00'), make_time(24, 0, 0), cast('23:59:59.999' as time(2)), to_json(time '24:00')
create table ett (k time primary key, v time, z timetz)
insert into ett values ('24:00', '24:00', '24:00+01'), ('23:59:59.999999', '24:00:00', null), ('00:00', null, '00:00+00')
select * from ett order by k
select * from ett where k = '24:00'
select max(k), min(v), count(distinct v) from ett
select v, count(*) from ett group by v order by v
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_edge_timestamps_match_pg15(binary, pg15, cumulo_server):
    """Every statement gives PostgreSQL 15's column types and bytes."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=["drop table if exists ets, etk, ett"])


COLUMNAR = """
select id, ts, tz, d from ecol order by id
select id from ecol where ts = '0001-01-01' order by id
select id from ecol where ts < '0001-01-02' order by id
select id from ecol where ts > '9999-12-31' order by id
select min(ts), max(ts), min(d), max(d), count(*) from ecol
select ts, count(*) from ecol group by ts order by ts
""".strip().splitlines()


@pytest.mark.parametrize("columnar", ["on", "off"])
def test_edges_through_the_columnar_copy(columnar, pg15, cumulo_server):
    """A table big enough to freeze packs: the edges stay real, the infinities infinite."""
    setup = ["drop table if exists ecol",
             "create table ecol (id int primary key, ts timestamp, tz timestamptz, d date)",
             "insert into ecol select g, timestamp '2000-01-01' + g * interval '1 hour', "
             "timestamptz '2000-01-01 00:00+00' + g * interval '1 hour', "
             "date '2000-01-01' + g from generate_series(1, 3000) g",
             "insert into ecol values (-1, '0001-01-01', '0001-01-01 00:00:00+00', '0001-01-01'), "
             "(-2, '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59.999999+00', '9999-12-31'), "
             "(-3, '-infinity', '-infinity', '-infinity'), (-4, 'infinity', 'infinity', 'infinity')",
             # a second pack of edges only: the columnar copy's datetime64 path, no sentinel
             "insert into ecol select -10 - g, '0001-01-01', '0001-01-01 00:00:00+00', '0001-01-01' "
             "from generate_series(1, 3000) g"]
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute("set timezone = 'UTC'")
            for s in setup:
                c.execute(s)
        cc.execute(f"set cumulo.columnar = {columnar}")
        try:
            mism = differences(pc, cc, COLUMNAR, False) + differences(pc, cc, COLUMNAR, True)
        finally:
            cc.execute("reset cumulo.columnar")
    assert not mism, "\n".join(mism)


def _copy_round_trip(dsn: str, fmt: str) -> list:
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("set timezone = 'UTC'")
        c.execute("drop table if exists ecp")
        c.execute("create table ecp (id int, ts timestamp, tz timestamptz, d date)")
        c.execute("insert into ecp values (1, '0001-01-01', '0001-01-01 00:00:00+00', '0001-01-01'), "
                  "(2, '-infinity', '-infinity', '-infinity'), (3, '9999-12-31 23:59:59.999999', "
                  "'9999-12-31 23:59:59.999999+00', '9999-12-31'), (4, 'infinity', 'infinity', "
                  "'infinity')")
        data = b""
        with c.cursor().copy(f"copy ecp to stdout (format {fmt})") as cp:
            for chunk in cp:
                data += bytes(chunk)
        out.append(data)
        c.execute("create temp table ecp2 (id int, ts timestamp, tz timestamptz, d date)")
        with c.cursor().copy(f"copy ecp2 from stdin (format {fmt})") as cp:
            cp.write(data)
        out.append(c.execute("select id, ts::text, tz::text, d::text from ecp2 order by id").fetchall())
        c.execute("drop table ecp")
    return out


@pytest.mark.parametrize("fmt", ["text", "csv", "binary"])
def test_copy_keeps_edges_apart_from_infinities(fmt, pg15, cumulo_server):
    """COPY TO gives PostgreSQL's bytes; COPY FROM of those bytes stores the same values."""
    want = _copy_round_trip(pg15.dsn(), fmt)
    assert want[1][0] == (1, "0001-01-01 00:00:00", "0001-01-01 00:00:00+00", "0001-01-01")
    assert _copy_round_trip(cumulo_server.dsn(), fmt) == want


SELECT = ("select '0001-01-01 00:00:00'::timestamp, '-infinity'::timestamp, "
          "'9999-12-31 23:59:59.999999'::timestamp, '0001-01-01'::date")


def test_clients_read_the_real_edge(pg15, cumulo_server):
    """asyncpg (binary), pg8000 (text) and cumulo.driver read what they read from PostgreSQL."""
    async def apg(dsn: str):
        c = await asyncpg.connect(dsn)
        try:
            return tuple(await c.fetchrow(SELECT))
        finally:
            await c.close()

    def p8(port: int, password: str | None) -> tuple:
        c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                     password=password)
        try:
            return tuple(c.run(SELECT)[0])
        finally:
            c.close()

    def cdrv(dsn: str) -> tuple:
        with drv.connect(dsn) as c:
            cur = c.cursor()
            cur.execute(SELECT)
            return tuple(cur.fetchone())

    edge = dt.datetime(1, 1, 1)
    a_pg, a_cu = asyncio.run(apg(pg15.dsn())), asyncio.run(apg(cumulo_server.dsn()))
    assert a_cu == a_pg and a_cu[0] == edge
    d_pg, d_cu = cdrv(pg15.dsn()), cdrv(cumulo_server.dsn())
    assert d_cu == d_pg and d_cu[0] == edge
    assert str(d_cu[0]) == "0001-01-01 00:00:00"
    p_pg, p_cu = p8(pg15.port, PASSWORD), p8(cumulo_server.port, None)
    assert p_cu == p_pg and p_cu[0] == edge


def test_edges_and_infinities_survive_a_restart(fresh_server):
    """The redo log and the checkpoint keep the edge values real and the infinities infinite."""
    rows = "(1, '0001-01-01', '0001-01-01 00:00:00+00', '0001-01-01'), (2, '-infinity', " \
           "'-infinity', '-infinity'), (3, '9999-12-31 23:59:59.999999', " \
           "'9999-12-31 23:59:59.999999+00', '9999-12-31'), (4, 'infinity', 'infinity', 'infinity')"
    query = "select id, ts::text, tz::text, d::text from er order by id"
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("set timezone = 'UTC'")
        c.execute("create table er (id int primary key, ts timestamp, tz timestamptz, d date)")
        c.execute(f"insert into er values {rows}")
        c.execute("create table er2 (id int, ts timestamp, tz timestamptz, d date)")
        c.execute("create table er3 (t time primary key)")  # 24:00:00 in keys and the log
        c.execute("insert into er3 values ('24:00'), ('23:59:59.999999'), ('00:00')")
        with c.cursor().copy("copy er2 from stdin") as cp:  # a bulk redo record
            cp.write("1\t0001-01-01 00:00:00\t0001-01-01 00:00:00+00\t0001-01-01\n"
                     "2\t-infinity\t-infinity\t-infinity\n")
        before = c.execute(query).fetchall()
        before2 = c.execute(query.replace("from er ", "from er2 ")).fetchall()
    assert before[0] == (1, "0001-01-01 00:00:00", "0001-01-01 00:00:00+00", "0001-01-01")
    assert before[1] == (2, "-infinity", "-infinity", "-infinity")
    times = [("00:00:00",), ("23:59:59.999999",), ("24:00:00",)]
    fresh_server.stop(signal.SIGKILL)  # the redo log alone
    fresh_server.start()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("set timezone = 'UTC'")
        assert c.execute(query).fetchall() == before
        assert c.execute(query.replace("from er ", "from er2 ")).fetchall() == before2
        assert c.execute("select t::text from er3 where t > '23:59:59.999999'").fetchall() \
            == [("24:00:00",)]
        assert c.execute("select t::text from er3 order by t").fetchall() == times
    fresh_server.restart()  # an orderly stop: the checkpoint
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("set timezone = 'UTC'")
        assert c.execute(query).fetchall() == before
        assert c.execute(query.replace("from er ", "from er2 ")).fetchall() == before2
        assert c.execute("select t::text from er3 where t > '23:59:59.999999'").fetchall() \
            == [("24:00:00",)]
