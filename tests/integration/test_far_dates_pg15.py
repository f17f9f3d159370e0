"""Dates BC and after 9999 against PostgreSQL 15 (issue 16, item 6).

PostgreSQL's dates run from 4714-11-24 BC to 5874897-12-31 and its timestamps to
294276-12-31 23:59:59.999999; Python's stop at years 1 and 9999, so Cumulo holds the
rest as `pgtypes.fardate` values. Compared with PostgreSQL 15: the bytes each server
sends for literals, the range errors (22008), comparisons with ordinary dates and the
infinities, date arithmetic, casts, extract/date_trunc/to_char, and a table that stores,
orders, indexes and keys them (`typediff`, psycopg, text and binary); then parameters
and results through asyncpg's binary integer forms (days and microseconds from
2000-01-01), COPY text and binary out and back in, and pg8000.
"""

from __future__ import annotations

import asyncio
import random

import asyncpg
import psycopg
import pyarrow as pa
import pytest

import cumulo.driver as cd
from tests.integration.columnar_diff import columnar, vector_ran
from tests.integration.typediff import assert_same_as_pg15, connect, pg8000_outcomes
from tests.pg15 import PASSWORD

LITERALS = """
select '4714-11-24 BC'::date, '5874897-12-31'::date, '0044-03-15 BC'::date, '10000-01-01'::date, '0001-01-01 BC'::date, '0001-01-01'::date
select '4714-11-23 BC'::date
select '5874898-01-01'::date
select '0000-01-01'::date
select '0044-02-29 BC'::date
select '0045-02-29 BC'::date, '0044-03-15 10:00 BC'::date
select '4714-11-24 00:00 BC'::timestamp, '294276-12-31 23:59:59.999999'::timestamp, '0044-03-15 12:34:56.5 BC'::timestamptz, '20000-06-01 12:00'::timestamptz, '9999-12-31 24:00'::timestamp
select '294277-01-01'::timestamp
select '4714-11-23 23:59 BC'::timestamp
select '4714-11-24 00:00 BC'::timestamptz
select '294276-12-31 23:00-05'::timestamptz
select 'March 15, 44 BC 10:00'::timestamp, 'March 15, 44 10:00'::timestamp, '03/15/0044 BC'::date, '15 Mar 44 BC'::date
select '1999-12-31 10:30:00.5'::timestamp(0), '2000-01-01 10:30:00.5'::timestamp(0), '1999-12-31 10:30:00.25'::timestamp(1), '0044-03-15 10:30:00.5 BC'::timestamp(0), '1960-01-01 00:00:00.5+00'::timestamptz(0)
select '0001-01-01 00:00:00.5'::timestamp(0), '9999-12-31 23:59:59.5'::timestamp(0), 'infinity'::timestamp(0)
select '0044-03-15 BC'::date::text, '20000-06-01 12:00'::timestamp::text, '0044-03-15 BC'::text::date, '10000-01-01 BC'::text::date
""".strip().splitlines()

OPERATIONS = """
select date '0044-03-15 BC' < date '0001-01-01', date '10000-01-01' > date '9999-12-31', date '10000-01-01' < 'infinity'::date, date '4714-11-24 BC' > '-infinity'::date, date '0044-03-15 BC' = date '0044-03-15 BC'
select timestamp '0044-03-15 BC' < timestamp '0001-01-01', timestamp '20000-01-01' > timestamp '9999-12-31 23:59:59.999999', timestamptz '20000-01-01+00' < 'infinity'::timestamptz, date '0044-03-15 BC' < timestamp '0044-03-15 00:00:01 BC'
select greatest(date '10000-01-01', date '2024-01-01'), least(date '0044-03-15 BC', date '2024-01-01'), date '0044-03-15 BC' between date '4714-11-24 BC' and date '0001-01-01'
select date '0044-02-28 BC' + 1, date '0001-01-01' - 1, date '9999-12-31' + 1, date '10000-01-01' - 1, date '5874897-12-31' - 5, 7 + date '0001-12-31 BC'
select date '5874897-12-31' + 1
select date '4714-11-24 BC' - 1
select date '0044-03-15 BC' - date '2000-01-01', date '5874897-12-31' - date '4714-11-24 BC', date '10000-01-01' - date '9999-12-31'
select date '0044-03-15 BC' + interval '1 mon', timestamp '0044-03-15 10:00 BC' + interval '1 day 2 hours', timestamp '9999-12-31 23:00' + interval '2 hours', timestamp '20000-01-31' + interval '1 mon', timestamp '0001-01-01' - interval '1 year'
select timestamptz '0001-01-01 00:30+00' - interval '1 hour', timestamptz '9999-12-31 23:30+00' + interval '1 day'
select timestamp '294276-12-31' + interval '1 day'
select timestamp '20000-01-01' - timestamp '2000-01-01', timestamp '0044-03-15 BC' - timestamp '0001-01-01'
select '0044-03-15 BC'::date::timestamp, '0044-03-15 BC'::date::timestamptz, '20000-06-01 12:00'::timestamp::date, '0044-03-15 10:00 BC'::timestamptz::date, '0044-03-15 10:00 BC'::timestamp::timestamptz, '0044-03-15 10:00+00 BC'::timestamptz::timestamp
select '5874897-12-31'::date::timestamp
select extract(year from date '0044-03-15 BC'), extract(month from date '0044-03-15 BC'), extract(day from date '10000-02-29'), extract(dow from date '0044-03-15 BC'), extract(doy from date '0044-03-15 BC'), extract(century from date '0044-03-15 BC'), extract(millennium from date '20000-01-01'), extract(epoch from timestamp '0044-03-15 BC'), extract(isodow from date '0044-03-15 BC')
select extract(decade from date '0044-03-15 BC'), extract(week from date '0001-01-01 BC'), extract(isoyear from date '0001-01-01 BC'), extract(quarter from date '20000-11-01'), extract(julian from date '4714-11-24 BC'), extract(epoch from date '5874897-12-31')
select date_part('year', timestamp '20000-06-01 12:00'), date_part('hour', timestamp '0044-03-15 10:00 BC'), date_part('minute', timestamptz '20000-06-01 12:34+00')
select date_trunc('month', timestamp '0044-03-15 10:00 BC'), date_trunc('year', timestamp '20000-06-01 12:00'), date_trunc('day', timestamptz '20000-06-01 12:00+00'), date_trunc('century', timestamp '0044-03-15 BC'), date_trunc('week', timestamp '0044-03-15 10:00 BC'), date_trunc('hour', timestamp '20000-06-01 12:34:56')
select to_char(date '0044-03-15 BC', 'YYYY-MM-DD BC'), to_char(timestamp '20000-06-01 12:00', 'YYYY-MM-DD HH24:MI:SS'), to_char(date '0044-03-15 BC', 'Day Mon DD YYYY AD'), to_char(timestamp '0044-03-15 13:14:15 BC', 'HH12:MI:SS PM DDD b.c.')
select make_date(-44, 3, 15), make_date(20000, 2, 29), make_timestamp(-44, 3, 15, 12, 30, 15.5), make_timestamp(20000, 1, 1, 0, 0, 0)
select make_date(0, 1, 1)
select age(timestamp '20000-01-01', timestamp '2000-01-01'), date_bin('1 day', timestamp '20000-06-01 12:34', timestamp '2001-01-01'), to_char(timestamp '20000-06-01 12:00', 'IYYY-IW-ID WW Q J CC'), to_char(date '0044-03-15 BC', 'IYYY IW J')
select to_timestamp(-1e11)::text, to_timestamp(1e12)::text, extract(epoch from to_timestamp(-1e11))
select timestamp '20000-06-01 12:00' at time zone 'UTC', timestamptz '20000-06-01 12:00+00' at time zone 'Europe/Paris', extract(timezone from timestamptz '0044-03-15 12:00+00 BC'), date_trunc('millennium', date '0044-03-15 BC'), date_trunc('decade', timestamp '0005-01-01')
select date '0044-03-15 BC' + time '10:30', generate_series(timestamp '0003-01-01 BC', timestamp '0001-06-01', interval '1 year')
select '{0044-03-15 BC,10000-01-01}'::date[], array[timestamp '20000-01-01'], daterange('0044-03-15 BC', '10000-01-01'), isfinite(date '0044-03-15 BC')
select to_date('0044-03-15 BC', 'YYYY-MM-DD BC'), to_timestamp('20000-06-01', 'YYYY-MM-DD'), to_json(date '0044-03-15 BC'), to_json(timestamp '0044-03-15 10:00 BC'), to_jsonb(date '10000-01-01')
set timezone = 'Europe/Paris'
select timestamptz '0044-03-15 12:34:56.5 BC', timestamptz '20000-06-01 12:00', timestamptz '9999-12-31 23:30+00', timestamptz '0001-01-01 00:00+00', to_json(timestamptz '20000-06-01 12:00+00')
set datestyle = 'SQL, MDY'
select date '0044-03-15 BC', date '10000-01-01', timestamp '0044-03-15 10:00 BC', timestamptz '20000-06-01 12:00+00', date '2024-01-02'
set datestyle = 'German'
select date '0044-03-15 BC', timestamp '0044-03-15 10:00 BC', timestamptz '20000-06-01 12:00+00'
set datestyle = 'Postgres, DMY'
select date '0044-03-15 BC', date '10000-01-01', timestamp '0044-03-15 10:00 BC', timestamptz '20000-06-01 12:00+00', timestamp '2024-01-02 03:04:05'
reset datestyle
reset timezone
""".strip().splitlines()

TABLE = """
create table fd_t (id int primary key, d date, ts timestamp, tz timestamptz)
insert into fd_t values (1, '0044-03-15 BC', '0044-03-15 10:00 BC', '0044-03-15 10:00+00 BC'), (2, '10000-01-01', '20000-06-01 12:00', '20000-06-01 12:00+00'), (3, '2024-01-01', '2024-01-01 10:00', '2024-01-01 10:00+00'), (4, 'infinity', 'infinity', 'infinity'), (5, '-infinity', '-infinity', '-infinity'), (6, '4714-11-24 BC', '4714-11-24 00:00 BC', '4714-11-24 00:00+00 BC'), (7, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00'), (8, '0001-01-01', '0001-01-01 00:00', '0001-01-01 00:00+00'), (9, '9999-12-31', '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59.999999+00'), (10, '0001-12-31 BC', '0001-12-31 23:59:59.999999 BC', null)
select * from fd_t order by id
select id from fd_t order by d, id
select id from fd_t order by ts desc, id
select id from fd_t order by tz nulls first, id
select id from fd_t where d < '0001-01-01' order by id
select id from fd_t where ts > '9999-12-31' order by id
select min(d), max(d), min(ts), max(ts), min(tz), max(tz) from fd_t where id not in (4, 5)
select count(distinct d), count(distinct ts), count(*) from fd_t
select d, count(*) from fd_t group by d order by d
create table fd_p (ts timestamp(2), tz timestamptz(0))
insert into fd_p values ('1999-12-31 10:30:00.125', '1999-12-31 10:30:00.5+00'), ('0044-03-15 10:30:00.005 BC', '20000-01-01 00:00:00.5+00'), ('2024-01-01 00:00:00.125', '9999-12-31 23:59:59.5+00')
select * from fd_p
drop table fd_p
create table fd_k (d date primary key, ts timestamp unique)
insert into fd_k select d, ts from fd_t
select * from fd_k order by d
select * from fd_k where d = '0044-03-15 BC'
select * from fd_k where d between '4714-11-24 BC' and '0001-01-01' order by d
select * from fd_k where ts >= '10000-01-01' order by ts desc
insert into fd_k values ('0044-03-15 BC', null)
create index fd_t_d on fd_t (d desc)
select id from fd_t where d > '9999-12-31' order by d desc
select id from fd_t where d = '10000-01-01'
update fd_t set d = d - 1, ts = ts + interval '1 day' where id in (1, 2, 6)
select id, d, ts from fd_t where id in (1, 2, 6) order by id
update fd_k set d = d + 1 where d = '5874897-12-31'
delete from fd_k where d < '0001-01-01'
select count(*), min(d) from fd_k
""".strip().splitlines()

COLUMNAR = """
create table fd_v (id int primary key, d date, ts timestamp, tz timestamptz, n int)
insert into fd_v select g, case when g % 7 = 0 then date '0044-03-15 BC' - g when g % 11 = 0 then date '10000-01-01' + g else date '2024-01-01' + g end, case when g % 5 = 0 then timestamp '0044-03-15 10:00 BC' + g * interval '1 hour' when g % 13 = 0 then timestamp '20000-06-01' + g * interval '1 day' else timestamp '2024-01-01' + g * interval '1 minute' end, case when g % 3 = 0 then timestamptz '20000-01-01 00:00+00' + g * interval '1 second' else timestamptz '2024-01-01 00:00+00' end, g % 4 from generate_series(1, 2000) g
analyze fd_v
set cumulo.columnar = on
select count(*), min(d), max(d), min(ts), max(ts), min(tz), max(tz) from fd_v
select count(*) from fd_v where d < '0001-01-01'
select count(*) from fd_v where ts > '9999-12-31' and d > '2024-01-01'
select n, min(d), max(d), count(distinct d), min(ts), max(tz) from fd_v group by n order by n
select id, d, ts from fd_v order by d, id limit 5
select extract(year from d) y, count(*) from fd_v group by y order by y limit 8
select count(*) from fd_v where d + 1 > date '9999-12-31'
reset cumulo.columnar
""".strip().splitlines()

DROPS = ["drop table if exists fd_t", "drop table if exists fd_k", "drop table if exists fd_v",
         "drop table if exists fd_p"]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_far_dates_match_pg15(binary, pg15, cumulo_server):
    """Literals, range errors, operators, functions and a stored, keyed, indexed table:
    PostgreSQL 15's column types, bytes and SQLSTATEs, text and binary."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), LITERALS + OPERATIONS + TABLE,
                        binary, drops=DROPS)


def test_columnar_path_keeps_far_dates(pg15, cumulo_server):
    """With `cumulo.columnar = on` far values take the column store's object form: the
    vector form filters them (it ran, by the server's count) and every answer is PG's."""
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), COLUMNAR, drops=DROPS)
    with connect(cumulo_server.dsn()) as cc, columnar(cc, "on"):
        assert vector_ran(cc, "select count(*) from fd_v where d < '0001-01-01'")
        cc.execute("drop table fd_v")


# asyncpg's "tuple" codecs hand over PostgreSQL's own integers: days for a date, and
# microseconds for a timestamp[tz], both from 2000-01-01, in the binary format.
FAR_DAYS = [-2451545, -746117, -730485, -730120, 0, 2921939, 2921940, 2145031948]
FAR_US = [-211813488000000000, -64464463503500000, -63082281600000001, 0,
          252455615999999999, 252455616000000000, 9223371331199999999]


async def _outcome(c: asyncpg.Connection, sql: str, *args: object) -> tuple:
    """The row, or the error's (SQLSTATE, message)."""
    try:
        return tuple(await c.fetchrow(sql, *args))
    except asyncpg.PostgresError as e:
        return (e.sqlstate, str(e))


async def _asyncpg_round_trip(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    try:
        for name in ("date", "timestamp", "timestamptz"):
            await c.set_type_codec(name, schema="pg_catalog", encoder=lambda v: v,
                                   decoder=lambda v: v, format="tuple")
        out: list = []
        for days in FAR_DAYS:  # a binary parameter in, binary and text out
            out.append(await _outcome(c, "select $1::date, $1::date::text, $1::date - 1",
                                      (days,)))
            out.append(await _outcome(c, "select $1::date + 1", (days,)))
        for us in FAR_US:
            out.append(await _outcome(c, "select $1::timestamp, $1::timestamp::text, "
                                      "$1::timestamptz::text, $1::timestamp::date", (us,)))
        out.append(await _outcome(c, "select $1::date + 0", (2145031949,)))
        await c.execute("create table fd_a (d date primary key, ts timestamptz)")
        try:
            await c.executemany("insert into fd_a values ($1, $2)",
                                [((d,), (u,)) for d, u in zip(FAR_DAYS, FAR_US, strict=False)])
            out.append(tuple(await c.fetch("select d, ts, d::text as t from fd_a order by 1 desc")))
        finally:
            await c.execute("drop table fd_a")
        return out
    finally:
        await c.close()


def test_asyncpg_binary_days_and_microseconds(pg15, cumulo_server):
    """Far values as asyncpg's binary integers, as parameters and results, and stored."""
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute("drop table if exists fd_a")
    want = asyncio.run(_asyncpg_round_trip(pg15.dsn()))
    assert ((-746117,), "0044-03-15 BC", (-746118,)) in want  # the oracle's sanity
    assert asyncio.run(_asyncpg_round_trip(cumulo_server.dsn())) == want


def _copy_out(conn: psycopg.Connection, sql: str) -> bytes:
    with conn.cursor().copy(sql) as cp:
        return b"".join(bytes(b) for b in cp)


def test_copy_text_and_binary_round_trip(pg15, cumulo_server):
    """COPY TO (text, binary) sends PostgreSQL's bytes; COPY FROM reads both back."""
    setup = [*DROPS, "create table fd_c (id int, d date, ts timestamp, tz timestamptz)",
             "insert into fd_c values (1, '0044-03-15 BC', '0044-03-15 10:00:00.5 BC', "
             "'0044-03-15 10:00+00 BC'), (2, '5874897-12-31', '294276-12-31 23:59:59.999999', "
             "'20000-06-01 12:00+00'), (3, '2024-02-29', '2024-02-29 01:02:03', null), "
             "(4, 'infinity', '-infinity', 'infinity')"]
    outs = {}
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for name, c in (("pg", pc), ("cu", cc)):
            c.execute("drop table if exists fd_c")
            c.execute("set timezone = 'UTC'")
            for sql in setup:
                c.execute(sql)
            text = _copy_out(c, "copy fd_c to stdout")
            binary = _copy_out(c, "copy (select * from fd_c order by id) to stdout (format binary)")
            c.execute("create table fd_c2 (like fd_c)")
            with c.cursor().copy("copy fd_c2 from stdin") as cp:
                cp.write(text)
            with c.cursor().copy("copy fd_c2 from stdin (format binary)") as cp:
                cp.write(binary)
            back = c.execute("select id, d::text, ts::text, tz::text from fd_c2 "
                             "order by id, d").fetchall()
            outs[name] = (text, binary, back)
            c.execute("drop table fd_c2")
            c.execute("drop table fd_c")
    assert b"0044-03-15 BC\t0044-03-15 10:00:00.5 BC" in outs["pg"][0]
    assert outs["cu"] == outs["pg"]


def test_pg8000_reads_far_dates(pg15, cumulo_server):
    """pg8000 (text results) sees the same values and errors from both servers."""
    stmts = ["select '0044-03-15 BC'::date, '10000-01-01'::date, '20000-06-01 12:00'::timestamp",
             "select '0044-03-15 10:00 BC'::timestamp::text, '4714-11-23 BC'::date"]
    want = pg8000_outcomes(pg15.port, PASSWORD, stmts)
    assert pg8000_outcomes(cumulo_server.port, None, stmts) == want


def test_arrow_direct_api_carries_far_dates(cumulo_server):
    """The direct table API: Arrow's date32 / timestamp integers of far values are stored
    as such (SQL reads PostgreSQL's text), and read back as the same integers; a timestamp
    past Arrow's int64 microseconds from 1970 is 22008."""
    days = [-2440588, -735160, 2932897, 2145042905, 0]  # from 1970-01-01, as date32
    us = [-210866803200000000, -63517788000000000, 9223372036854775807, 0, 1]
    with connect(cumulo_server.dsn()) as sql:
        sql.execute("drop table if exists fd_arrow")
        sql.execute("create table fd_arrow (k int primary key, d date, ts timestamp, "
                    "tz timestamptz)")
        c = cd.connect(cumulo_server.dsn())
        c.autocommit = True
        try:
            t = c.table("fd_arrow")
            t.upsert(pa.table({"k": list(range(5)), "d": pa.array(days, pa.date32()),
                               "ts": pa.array(us, pa.timestamp("us")),
                               "tz": pa.array(us, pa.timestamp("us", tz="UTC"))}))
            got = sql.execute("select d::text, ts::text from fd_arrow order by k").fetchall()
            assert got[:3] == [("4714-11-24 BC", "4714-11-24 00:00:00 BC"),
                               ("0044-03-15 BC", "0044-03-15 10:00:00 BC"),
                               ("10000-01-01", "294247-01-10 04:00:54.775807")]
            assert got[3][0] == "5874897-12-31"
            back = t.read()
            assert back.column("d").cast(pa.int32()).to_pylist() == days
            assert back.column("tz").cast(pa.int64()).to_pylist() == us
            sql.execute("update fd_arrow set ts = '294276-12-31 23:59:59' where k = 0")
            with pytest.raises(cd.DatabaseError) as e:
                t.read()
            assert e.value.sqlstate == "22008"
        finally:
            c.close()
            sql.execute("drop table fd_arrow")


_DATES = ["date '4714-11-24 BC'", "date '0044-03-15 BC'", "date '0001-12-31 BC'", "date '0001-01-01'",
          "date '2024-02-29'", "date '9999-12-31'", "date '10000-01-01'", "date '5874897-12-31'",
          "date 'infinity'", "date '-infinity'"]
_STAMPS = ["timestamp '4714-11-24 00:00 BC'", "timestamp '0044-03-15 10:30:00.5 BC'",
           "timestamp '0001-12-31 23:59:59.999999 BC'", "timestamp '2024-02-29 12:00'",
           "timestamp '9999-12-31 23:59:59.999999'", "timestamp '20000-06-01 12:34:56'",
           "timestamp '294276-12-31 23:59:59.999999'", "timestamp 'infinity'"]
_FIELDS = ["year", "month", "day", "dow", "isodow", "doy", "week", "isoyear", "quarter", "decade",
           "century", "millennium", "epoch", "hour"]  # NB: julian of a timestamp: LEFT
_UNITS = ["day", "week", "month", "quarter", "year", "decade", "century", "millennium"]
_SHAPES = [
    "select {d} + {n}", "select {d} - {n}", "select {d} - {d2}", "select {d} < {d2}, {d} = {d2}",
    "select {d}::timestamp", "select {d}::timestamptz::text", "select {t}::date",
    "select {t} + interval '{n} days {n} hours'", "select {t} - interval '{n} mons'",
    "select {t} > {t2}", "select extract({f} from {d})",
    "select extract({f} from {t})", "select date_trunc('{u}', {t})",
    "select to_char({t}, 'YYYY-MM-DD HH24:MI:SS.US BC IYYY-IW-ID DDD J Q CC Day Mon')",
    "select greatest({d}, {d2}), least({t}, {t2})", "select {d} + time '24:00'",
]


def _random_statements(seed: int, n: int) -> list[str]:
    """Random pairings of far values with the operators and functions (a seeded list, so a
    failure names its statement)."""
    rng = random.Random(seed)
    return [rng.choice(_SHAPES).format(
        d=rng.choice(_DATES), d2=rng.choice(_DATES), t=rng.choice(_STAMPS),
        t2=rng.choice(_STAMPS), f=rng.choice(_FIELDS), u=rng.choice(_UNITS),
        n=rng.choice([1, 7, 400, 100000, 2000000000])) for _ in range(n)]


def test_random_far_date_expressions_match_pg15(pg15, cumulo_server):
    """120 seeded random expressions over far values and the infinities, text and binary."""
    stmts = _random_statements(16, 120)
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), stmts, False)
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), stmts, True)
