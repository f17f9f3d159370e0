"""interval with a months part, checked against a throwaway PostgreSQL 15 (issue 3).

`STATEMENTS` runs under each of the four IntervalStyles on both servers through
psycopg in text format, every value loaded as the exact text the server sent;
the rows (or SQLSTATE and message) must be identical. They cover input in every
style (`1-2`, `P1Y2M`, `@ 1 year ago`, fractions that cascade), output,
comparison (`'1 mon' = '30 days'`), calendar arithmetic with end-of-month
clamping, interval * and / by numbers, make_interval, age, justify_*, extract,
date_trunc, to_char, sum/avg, generate_series with a monthly step, and a table
whose interval column sorts and GROUPs as PostgreSQL's.

Binary round trips follow: asyncpg and psycopg's binary format both carry the
months field, and a restart keeps an interval column's months.
"""

from __future__ import annotations

import asyncio
import datetime as dt

import asyncpg
import pg8000.native
import psycopg
import pytest
from psycopg.types.string import TextLoader

from tests import pg15 as pg15_mod
from tests.integration.test_timezone import _run
from tests.integration.test_timezone import _text_conn as tz_text_conn
from tests.server_process import CumuloServer

STYLES = ["postgres", "postgres_verbose", "sql_standard", "iso_8601"]

STATEMENTS = """
select interval '1 year'
select interval '1 year 2 months 3 days 04:05:06.789'
select interval '-1 year -2 mons +3 days -04:05:06'
select interval '1 day -24 hours', interval '-1 day +02:03'
select interval '1.5 years', interval '1.5 months', interval '1.5 days', interval '1.5 weeks'
select interval '0.1 month', interval '-1.5 years', interval '2.25 hours'
select interval '@ 1 year 2 mons ago', interval '@ 3 days 4 hours ago'
select interval 'P1Y2M3DT4H5M6S', interval 'P-1Y-2M', interval 'PT1.5S', interval 'P1W'
select interval 'P0001-02-03T04:05:06', interval 'P1.5Y', interval 'PT36H'
select interval '1-2', interval '-1-2', interval '3 4:05:06', interval '1 2:03'
select interval '-1 2:03:04', interval '+1 -2:03:04'
select interval '5', interval '12:34.5', interval '10:30', interval '-00:00:01.5'
select interval '1 millennium 2 centuries 3 decades', interval '1 millisecond 5 microseconds'
select interval '2 weeks 3 days', interval '1 week -1 day'
select interval '+1-2 +3 +4:05:06.789', interval '+0-0 -1 +2:03:00', interval '-1-2', interval '-3 4:05:06'
select interval '@ 1 day -2 hours -3 mins ago', interval '@ 1 year 2 mons 3 days 4 hours 5 mins 6.789 secs'
select interval 'P1DT-24H', interval 'PT-1.5S', interval 'P-1DT2H3M', interval '-1 years -2 mons +3 days -04:05:06'
select pg_typeof(time '10:00'::interval), time '10:00'::interval + interval '1 mon', date '2024-01-01'::text
select 'an interval ' || 'x', 'interval ''1 day''', E'it\\'s interval ' || 'a', interval 'it''s'
select interval '1 day 2 days'
select interval 'garbage'
select interval '1 year 1 year'
select interval '0', interval '0 days', interval 'PT0S', interval '-0'
select interval '1 mon' = interval '30 days', interval '1 day' = interval '24 hours'
select interval '1 year' > interval '360 days', interval '1 year' < interval '361 days'
select interval '1 mon 1 day' < interval '31 days 1 second'
select date '2024-01-31' + interval '1 month'
select date '2024-03-31' - interval '1 month', date '2023-01-31' + interval '1 month'
select timestamp '2024-01-31 10:00' + interval '1 month 1 day 1 hour'
select timestamp '2024-02-29 00:00' + interval '1 year', timestamp '2024-02-29' - interval '12 months'
select timestamp '2024-05-31 12:00' - interval '3 mons 2 days'
select interval '1 month' + timestamp '2024-01-31', interval '1 day' + date '2024-02-28'
select timestamp '2024-03-01' - timestamp '2024-01-31 12:00'
select timestamp '2024-01-01' - timestamp '2024-03-01 06:00'
select interval '1 year 2 mons' + interval '3 mons 4 days', interval '1 mon' - interval '1 day'
select interval '1 day' + interval '-24 hours', interval '1 mon' - interval '1 mon 1 day'
select interval '1 mon' * 1.5, interval '1 year' * 0.5, interval '1 day' * 2.5
select interval '1 mon 3 days' * 0.3, 2 * interval '1 year 1 day', interval '1 hour' * -1
select interval '1 year' / 5, interval '1 mon' / 7, interval '3 days' / 2
select interval '1 mon' / 0
select -interval '1 year 2 mons 3 days 04:00', - interval '-1 day'
select time '10:00' + interval '1 mon 1 day 3 hours', time '01:00' - interval '2 hours'
select make_interval(years => 1), make_interval(months => 14, days => 3)
select make_interval(1, 2, 3, 4, 5, 6, 7.5), make_interval(secs => 90.25)
select make_interval(hours => -30, mins => 5), make_interval(weeks => 2)
select make_interval(), make_interval(1, 2), make_interval(days => null), justify_hours(null)
select make_interval(years => 1, months => -13, days => 400, hours => 1, mins => -70, secs => 3600.5)
select date_trunc('millisecond', interval '1.234567 s'), date_trunc('century', interval '250 years'), date_trunc('second', interval '-1.5 s')
select date_trunc('foo', interval '1 day')
select extract(foo from interval '1 day')
select timestamp '2024-01-01' + interval '1.5 mons', date '2024-02-29' - interval '1 year'
select age(timestamp '2024-03-15 10:00', timestamp '2023-01-20 12:30')
select age(timestamp '2023-01-20', timestamp '2024-03-15 10:00')
select age(timestamp '2024-03-01', timestamp '2024-01-31'), age(date '2024-02-29', date '2023-02-28')
select age(timestamp '2000-01-01', timestamp '2000-01-01')
select justify_hours(interval '27 hours'), justify_hours(interval '-1 day 30 hours')
select justify_days(interval '35 days'), justify_days(interval '1 mon -40 days')
select justify_interval(interval '1 mon -1 hour'), justify_interval(interval '-1 mon 40 days 30 hours')
select extract(epoch from interval '1 year 2 mons 3 days 04:05:06.5')
select extract(epoch from interval '-1 year'), extract(epoch from interval '1 mon')
select extract(year from interval '14 months'), extract(month from interval '-14 months')
select extract(day from interval '40 days 30 hours'), extract(hour from interval '30 hours')
select extract(minute from interval '-01:02:03'), extract(second from interval '01:02:03.25')
select extract(milliseconds from interval '3.5 seconds'), extract(microseconds from interval '1.000001 s')
select extract(quarter from interval '7 months'), extract(decade from interval '25 years')
select extract(century from interval '250 years'), extract(millennium from interval '2500 years')
select date_part('month', interval '1 year 5 mons'), date_part('epoch', interval '1 day')
select extract(dow from interval '1 day')
select date_trunc('year', interval '1 year 5 mons 3 days 04:05')
select date_trunc('month', interval '1 year 5 mons 3 days'), date_trunc('hour', interval '3 days 04:05:06')
select date_trunc('quarter', interval '1 year 5 mons'), date_trunc('decade', interval '25 years 3 mons')
select date_trunc('day', interval '-1 year -5 mons -3 days -04:05')
select date_trunc('week', interval '15 days')
select to_char(interval '1 year 2 mons 3 days 04:05:06', 'YYYY MM DD HH24:MI:SS')
select to_char(interval '15 hours 3 minutes', 'HH12:MI AM'), to_char(interval '-2 days', 'DD')
select interval '1 year 2 mons'::text, '3 mons'::interval::text
select cast('1-2' as interval), cast(interval '2 days' as text)
select interval '1 day 02:03:04.56789'::interval(2), interval '1.999 s'::interval(0)
select array[interval '1 mon', interval '1 year 1 day']
select to_json(interval '1 year 2 mons'), json_build_object('i', interval '-1 day'), to_jsonb(interval '1 mon 2 days')
select 'x' || interval '1 mon', format('%s', interval '3 mons'), concat(interval '1 year', '!')
select interval '1 mon' in (interval '30 days', interval '1 day'), interval '2 mons' between interval '59 days' and interval '61 days'
select greatest(interval '1 mon', interval '31 days'), least(interval '1 year', interval '359 days')
select extract(epoch from timestamp '2024-03-01' - timestamp '2024-01-01'), (timestamp '2024-03-01' - timestamp '2024-01-01') = interval '60 days'
select interval '1 mon' * 2.5::numeric, interval '1 day' / 3::numeric, 3.5 * interval '1 hour'
select interval '1 day' * 1e300
select interval '1 mon' / 'nan'::float8
select cast(interval '1 day 2 hours' as time), interval '-1 hour'::time, interval '25:30'::time, cast(time '10:00' as interval)
select -interval '-2147483648 hours', interval '2147483648 days'
select to_char(interval '-1 year -2 mons -3 days -04:05:06', 'YYYY MM DD HH24 MI SS')
select to_char(interval '100 hours 3 mins', 'HH24:MI DDD'), to_char(interval '2 years 3 mons 4 days', 'FMYYYY-FMMM-FMDD DDD')
select justify_interval(interval '-1 mon 1 day'), justify_days(interval '-35 days'), justify_hours(interval '-1 day -25 hours')
select make_interval(secs => 'infinity')
select interval '1 year 2 mons 3 days' year, interval '1-2' year to month, interval '5' hour
select interval '3 4:05:06.789' day to second, interval '1:30' hour to minute, interval '2' month
select '1 day 02:03:04.5'::interval hour to minute, '14 mons 3 days'::interval year to month
select '1 day 02:03:04.5678'::interval(2), cast('3 days 04:05' as interval day)
select interval '1.23456' second(2), interval '3 4:05:06.789' day to second(1), interval '1:02.345' minute to second(2)
select '1 day 02:03:04.5678'::interval second(2), cast('3 days 04:05:06.789' as interval day to second(0)), '1.5'::interval hour to second(3)
create table iv_m (a interval year to month, b interval(2), c interval hour, d interval)
insert into iv_m values ('1 year 2 mons 3 days', '1.23456 s', '2 days 03:04:05', '1 mon 1.5 s')
select a, b, c, d from iv_m
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'iv_m'::regclass and attnum > 0 order by attnum
select column_name, data_type, datetime_precision, interval_type, interval_precision from information_schema.columns where table_name = 'iv_m' order by ordinal_position
drop table iv_m
select '1:30'::interval minute to second(2), '1:30'::interval minute to second, '1:30'::interval hour to minute
create table iv_p (a interval day to second(3), b interval second(1), c interval minute to second(2), d interval(0))
insert into iv_p values ('1 day 00:00:01.23456', '2.25 s', '1:30.555', '0.5 s')
select * from iv_p
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'iv_p'::regclass and attnum > 0 order by attnum
select column_name, datetime_precision, interval_type from information_schema.columns where table_name = 'iv_p' order by ordinal_position
drop table iv_p
select pg_typeof(interval '1 mon' * 2), pg_typeof(date '2024-01-01' + interval '1 mon')
select generate_series(timestamp '2024-01-31', timestamp '2024-06-01', interval '1 month')
select generate_series(timestamp '2024-03-01', timestamp '2024-01-01', interval '-1 mon 5 days')
select date_bin(interval '1 mon', timestamp '2024-01-15', timestamp '2024-01-01')
create table iv_t (id int primary key, v interval, g int)
insert into iv_t values (1, '1 mon', 1), (2, '30 days', 1), (3, '1 year', 2), (4, '-1 day', 2)
insert into iv_t values (5, '1 day 01:00', 3), (6, '25 hours', 3), (7, null, 3), (8, '1-2', 1)
select id, v from iv_t order by v, id
select v, count(*) from iv_t group by v order by v
select count(distinct v) from iv_t
select sum(v), avg(v), min(v), max(v) from iv_t
select g, sum(v), avg(v) from iv_t group by g order by g
select id from iv_t where v = interval '720 hours' order by id
select id, v * 2, v + interval '1 mon', timestamp '2024-01-31' + v from iv_t where id < 5 order by id
select id, extract(epoch from v), justify_interval(v) from iv_t order by id
update iv_t set v = v + interval '1 year' where id = 1 returning v
select d, count(*) over (order by d range between interval '1 mon' preceding and current row) from (values (timestamp '2024-01-31'), (timestamp '2024-02-29'), (timestamp '2024-03-01'), (timestamp '2024-03-31')) s(d) order by d
drop table iv_t
select generate_series(date '2024-01-31', date '2024-04-30', interval '1 month')
create table iv_ev (id int primary key, ts timestamp, d date)
insert into iv_ev select g, timestamp '2024-01-31' + g * interval '1 day', date '2024-01-31' + g from generate_series(1, 100) g
select count(*) from iv_ev where ts > timestamp '2024-03-31' - interval '1 month'
select count(*) from iv_ev where ts + interval '1 mon' > timestamp '2024-04-30'
select count(*) from iv_ev where d - interval '1 mon' between date '2024-02-01' and date '2024-02-29'
select id, age(ts, timestamp '2024-01-31') from iv_ev where id in (29, 30, 31, 60) order by id
select min(ts - timestamp '2024-01-01'), max(age(ts, timestamp '2023-01-15')) from iv_ev
drop table iv_ev
""".strip().splitlines()


def _text_conn(dsn: str) -> psycopg.Connection:
    """test_timezone's exact-text connection, with interval[] loaded as text too."""
    c = tz_text_conn(dsn)
    c.adapters.register_loader(1187, TextLoader)
    return c


def _differences(pg15, cumulo_server, setup: list[str], statements: list[str]) -> list[str]:
    """Runs `setup`, then each statement, on both servers: the statements whose answers differ."""
    mism = []
    with _text_conn(pg15.dsn()) as pc, _text_conn(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            for sql in setup:
                c.execute(sql)
        for sql in statements:
            want, got = _run(pc, sql), _run(cc, sql)
            if want != got:
                mism.append(f"{sql}\n   pg15: {want}\n cumulo: {got}")
    return mism


@pytest.mark.parametrize("style", STYLES)
def test_intervals_match_pg15(style, pg15, cumulo_server):
    """Every statement under `SET IntervalStyle = style` gives PostgreSQL 15's text exactly."""
    setup = [f"set intervalstyle = {style}", "set timezone = 'UTC'",
             *(f"drop table if exists {t}" for t in ("iv_t", "iv_m", "iv_ev", "iv_p"))]
    mism = _differences(pg15, cumulo_server, setup, STATEMENTS)
    assert not mism, f"{len(mism)} of {len(STATEMENTS)} differ under {style}:\n" + "\n".join(mism)


TSTZ_STATEMENTS = """
select timestamptz '2024-03-30 12:00+01' + interval '1 day'
select timestamptz '2024-03-30 12:00+01' + interval '24 hours'
select timestamptz '2024-10-26 12:00+02' + interval '1 mon 1 day'
select timestamptz '2024-03-31 12:00+02' - interval '1 month'
select age(timestamptz '2024-04-01 00:00+02', timestamptz '2024-03-01 00:00+01')
select generate_series(timestamptz '2024-03-30 00:00+01', timestamptz '2024-04-01 00:00+02', interval '1 day')
""".strip().splitlines()


def test_timestamptz_arithmetic_keeps_wall_clock_across_dst(pg15, cumulo_server):
    """timestamptz + interval adds months and days on the session's clock (Europe/Madrid DST)."""
    mism = _differences(pg15, cumulo_server, ["set timezone = 'Europe/Madrid'"], TSTZ_STATEMENTS)
    assert not mism, "\n".join(mism)


BINARY_VALUES = ["1 year 2 mons 3 days 04:05:06.789", "-1 mon +2 days -00:00:01", "1 day -24 hours",
                 "0", "-178000 years -1 mon", "3 mons"]


def _months_days_us(dsn: str, binary: bool) -> list[tuple]:
    """Each value sent through psycopg (binary params and results when asked): its three fields."""
    with psycopg.connect(dsn, autocommit=True) as c:
        out = []
        for text in BINARY_VALUES:
            cur = c.cursor(binary=binary)
            cur.execute("select %s::interval::text, extract(month from %s::interval), "
                        "extract(day from %s::interval), extract(epoch from %s::interval)",
                        (text, text, text, text))
            out.append(cur.fetchone())
        return out


@pytest.mark.parametrize("binary", [False, True])
def test_psycopg_binary_and_text_agree_with_pg15(binary, pg15, cumulo_server):
    assert _months_days_us(cumulo_server.dsn(), binary) == _months_days_us(pg15.dsn(), binary)


def test_psycopg_binary_interval_results(pg15, cumulo_server):
    """psycopg's binary interval loader reads months: a value with months decodes like PG's."""
    def fetch(dsn: str) -> list:
        with psycopg.connect(dsn, autocommit=True) as c:
            cur = c.cursor(binary=True)
            cur.execute("select interval '2 days 03:00', interval '-5 days', "
                        "interval '1 mon' = interval '30 days'")
            return list(cur.fetchone())
    assert fetch(cumulo_server.dsn()) == fetch(pg15.dsn())


async def _asyncpg_fields(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        # asyncpg decodes interval as timedelta (months count 30 days); a tuple codec shows the
        # raw (months, days, microseconds) the server sent, and sends them back as given.
        await conn.set_type_codec("interval", schema="pg_catalog", format="tuple",
                                  encoder=lambda v: v, decoder=lambda v: v)
        out = []
        for text in BINARY_VALUES:
            out.append(await conn.fetchval("select $1::text::interval", text))
        out.append(await conn.fetchval("select $1::interval::text", (14, 3, 4_000_000)))
        out.append(await conn.fetchval("select $1::interval + interval '1 mon'", (1, -2, 5)))
        out.append(await conn.fetchval(
            "select date '2024-01-31' + $1::interval", (1, 0, 0)))
        return out
    finally:
        await conn.close()


def test_asyncpg_binary_months_round_trip(pg15, cumulo_server):
    """asyncpg's binary interval carries months both ways, exactly as with PostgreSQL 15."""
    want = asyncio.run(_asyncpg_fields(pg15.dsn()))
    got = asyncio.run(_asyncpg_fields(cumulo_server.dsn()))
    assert got == want
    assert want[0] == (14, 3, 14706789000)


async def _asyncpg_default(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        return [await conn.fetchval("select interval '1 mon 2 days 03:00'"),
                await conn.fetchval("select $1::interval::text", dt.timedelta(days=40, hours=1))]
    finally:
        await conn.close()


def test_asyncpg_default_codec(pg15, cumulo_server):
    """asyncpg's default timedelta codec: the same timedelta and text as from PostgreSQL 15."""
    assert asyncio.run(_asyncpg_default(cumulo_server.dsn())) == asyncio.run(
        _asyncpg_default(pg15.dsn()))


def _pg8000_values(host: str, port: int, password: str | None) -> list:
    con = pg8000.native.Connection("cumulo", host=host, port=port, database="cumulo",
                                   password=password)
    try:
        rows = con.run("select interval '1 year 2 mons 3 days 04:05:06.5', interval '-3 days', "
                       "interval '1 mon', :v::interval + interval '1 mon'",
                       v=dt.timedelta(days=40, hours=-1))
        return [repr(v) for v in rows[0]]
    finally:
        con.close()


def test_pg8000_reads_months_as_with_pg15(pg15, cumulo_server):
    """pg8000 parses the text form itself: months come back as its PGInterval, like PG 15's."""
    want = _pg8000_values(pg15.host, pg15.port, pg15_mod.PASSWORD)
    assert _pg8000_values(cumulo_server.host, cumulo_server.port, None) == want
    assert "1 months" in want[2]


def test_interval_column_survives_restart():
    """An interval column keeps its months across a restart and still sorts and GROUPs as PG's."""
    srv = CumuloServer().start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("create table ivr (id int primary key, v interval)")
            c.execute("create index ivr_v on ivr (v)")
            c.execute("insert into ivr values (1, '1 year 2 mons'), (2, '30 days'), (3, '1 mon'),"
                      " (4, '-3 days 04:00'), (5, '1 day -24 hours')")
        srv.restart() if hasattr(srv, "restart") else (srv.stop(), srv.start())
        with _text_conn(srv.dsn()) as c:
            rows = c.execute("select id, v from ivr order by v, id").fetchall()
            assert rows == [("4", "-3 days +04:00:00"), ("5", "1 day -24:00:00"), ("2", "30 days"),
                            ("3", "1 mon"), ("1", "1 year 2 mons")]
            groups = c.execute("select count(*) from ivr group by v order by v").fetchall()
            assert groups == [("1",), ("1",), ("2",), ("1",)]
            hit = c.execute("select id from ivr where v = '720 hours' order by id").fetchall()
            assert hit == [("2",), ("3",)]
            got = c.execute("select date '2024-01-31' + v from ivr where id = 3").fetchone()
            assert got == ("2024-02-29 00:00:00",)
    finally:
        srv.stop()
