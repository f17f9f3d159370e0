"""The session TimeZone (and DateStyle, IntervalStyle), checked against a throwaway PostgreSQL 15.

PostgreSQL stores a timestamptz as an instant and shows it on the session's
clocks: text output, input without an offset, casts to and from timestamp, date
and time, AT TIME ZONE, date_trunc, extract and to_char all depend on the
TimeZone setting. `STATEMENTS` runs under several zones (UTC, Europe/Madrid
around both DST changes, America/St_Johns with its half-hour offset,
Asia/Kolkata, numeric offsets, an INTERVAL zone) on both servers through psycopg
in text format, every value loaded as the exact text the server sent, and the
rows (or SQLSTATE and message) must be identical.

The client checks that follow use psql, asyncpg and pg8000 against Cumulo with a
non-UTC session zone: what they print or decode must be the instant that was
stored, shown on the session's clocks.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess

import asyncpg
import pg8000.native
import psycopg
import pytest
from psycopg.types.string import TextLoader

from tests import pg15 as pg15_mod

ZONES = [
    "'UTC'",
    "'Europe/Madrid'",
    "'America/St_Johns'",
    "'Asia/Kolkata'",
    "-3",
    "'+02'",
    "INTERVAL '+05:30' HOUR TO MINUTE",
    "'America/New_York'",
]

# Each statement's result depends on the session zone (or checks a zone-independent rule).
STATEMENTS = """
show timezone
select current_setting('TimeZone')
select '2024-06-01 12:00:00+00'::timestamptz
select '2024-01-15 12:00:00.5+02'::timestamptz
select '2024-06-01 12:00:00'::timestamptz
select '2024-03-31 01:30:00'::timestamptz
select '2024-03-31 02:30:00'::timestamptz
select '2024-03-31 03:30:00'::timestamptz
select '2024-10-27 02:30:00'::timestamptz
select '2024-10-27 01:59:59.999999+00'::timestamptz
select '2024-10-27 00:30:00+00'::timestamptz, '2024-10-27 01:30:00+00'::timestamptz
select '2024-03-10 02:30:00'::timestamptz, '2024-11-03 01:30:00'::timestamptz
select '1900-01-01 00:00:00+00'::timestamptz
select '1850-06-01 12:00:00+00'::timestamptz
select '2024-06-01 12:00:00-03:30'::timestamptz, '2024-06-01T12:00:00Z'::timestamptz
select '2024-06-01 12:00:00.1234567+00'::timestamptz
select '2024-06-01 12:00 EST'::timestamptz, '2024-06-01 12:00 Europe/London'::timestamptz
select '2024-06-01 12:00 +05'::timestamptz, '2024-06-01 12:00 -0330'::timestamptz
select '2024-06-01 12:00 Mars/Phobos'::timestamptz
select timestamptz '2024-06-01 12:00:00'
select '2024-06-01 12:00+00'::timestamptz::text
select 'infinity'::timestamptz, '-infinity'::timestamptz::text, '-infinity'::timestamp
select 'infinity'::timestamptz::timestamp, '-infinity'::timestamp::timestamptz, to_json('infinity'::timestamptz)
select isfinite('infinity'::timestamptz), isfinite(now()), 'infinity'::timestamptz > now()
select date_trunc('day', 'infinity'::timestamptz), extract(epoch from '-infinity'::timestamptz)
select 'at ' || '2024-06-01 12:00+00'::timestamptz
select array['2024-01-01 00:00+00', '2024-07-01 00:00+00']::timestamptz[]
select to_json('1900-01-01 12:00+00'::timestamptz), to_jsonb('2024-06-01 12:00:00.5+00'::timestamptz)
select json_build_object('t', '2024-06-01 12:00+00'::timestamptz), to_json('12:00+05'::timetz)
select format('%s', '2024-06-01 12:00+00'::timestamptz), concat('a', '2024-06-01 12:00+00'::timestamptz)
select '2024-06-01 12:00+00'::timestamptz::varchar, '2024-06-01 12:00+00'::timestamptz::timestamp(0)
select extract(isodow from '2024-06-01 23:30+00'::timestamptz), extract(dow from '2024-06-01 23:30+00'::timestamptz)
select '12:00:00'::time::timetz = '12:00:00'::timetz, '23:30+00'::timetz at time zone 'Asia/Tokyo'
select '2024-06-01 12:00'::timestamp::timestamptz
select '2024-03-31 02:30'::timestamp::timestamptz
select '2024-06-01 12:00+00'::timestamptz::timestamp
select '2024-06-01 23:30+00'::timestamptz::date, '2024-06-01 00:30+00'::timestamptz::date
select '2024-06-01 23:30:15+00'::timestamptz::time
select '2024-06-01 23:30:15+00'::timestamptz::timetz
select '2024-06-01'::date::timestamptz
select '2024-03-31'::date::timestamptz
select '2024-06-01'::date < '2024-06-01 01:00+00'::timestamptz
select '2024-06-01 00:00+00'::timestamptz = '2024-06-01 00:00'::timestamp
select '2024-06-01 12:00+00'::timestamptz at time zone 'America/New_York'
select '2024-06-01 12:00'::timestamp at time zone 'Asia/Tokyo'
select '2024-06-01 12:00+00'::timestamptz at time zone '+05'
select '2024-06-01 12:00+00'::timestamptz at time zone 'EST'
select '2024-06-01 12:00'::timestamp at time zone 'UTC'
select '2024-10-27 00:30'::timestamp at time zone 'Atlantic/Azores', '2024-03-31 00:30'::timestamp at time zone 'Atlantic/Azores'
select ('2024-06-01 12:00'::timestamp at time zone 'UTC') at time zone 'Europe/Madrid'
select '2024-06-01 12:00+00'::timestamptz at time zone interval '+02:00'
select timezone('Mars/Phobos', '2024-06-01 12:00+00'::timestamptz)
select date_trunc('day', '2024-03-31 12:00+00'::timestamptz)
select date_trunc('day', '2024-06-01 23:30+00'::timestamptz)
select date_trunc('hour', '2024-10-27 01:30+00'::timestamptz)
select date_trunc('month', '2024-06-01 00:30+00'::timestamptz)
select date_trunc('week', '2024-06-03 01:30+00'::timestamptz)
select date_trunc('day', '2024-06-01 23:30+00'::timestamptz, 'Asia/Tokyo')
select date_trunc('day', '2024-06-01 23:30+00'::timestamptz, 'Mars/Phobos')
select extract(hour from '2024-06-01 23:30+00'::timestamptz)
select extract(day from '2024-06-01 23:30+00'::timestamptz)
select extract(epoch from '2024-06-01 23:30:00.25+00'::timestamptz)
select extract(timezone from '2024-06-01 23:30+00'::timestamptz)
select extract(timezone_hour from '2024-06-01 23:30+00'::timestamptz)
select extract(timezone_minute from '2024-01-01 23:30+00'::timestamptz)
select date_part('hour', '2024-01-01 23:30+00'::timestamptz)
select to_char('2024-06-01 23:30:15+00'::timestamptz, 'YYYY-MM-DD HH24:MI:SS')
select to_char('2024-06-01 23:30:15+00'::timestamptz, 'Dy DD Mon HH12 AM OF TZ tz')
select make_timestamptz(2024, 3, 31, 2, 30, 0)
select make_timestamptz(2024, 1, 1, 0, 0, 0, 'America/New_York')
select to_timestamp(1700000000)
select to_timestamp('2024-06-01 10:00', 'YYYY-MM-DD HH24:MI')
select extract(epoch from age('2024-06-01 00:00+00'::timestamptz, '2024-03-31 00:30+00'))
select now()::date = current_date, localtimestamp = now()::timestamp
select current_timestamp::date - current_date, now() = current_timestamp
select 'today'::date = current_date, 'tomorrow'::date - current_date, 'today'::timestamptz = current_date::timestamptz
select 'yesterday'::timestamp = current_date - 1, 'epoch'::timestamptz, 'epoch'::timestamp
select 'now'::timestamptz = now(), 'tomorrow'::timestamp = current_date + 1, 'yesterday'::timestamptz = (current_date - 1)::timestamptz
select 'now'::timestamp(0) = localtimestamp(0), localtime = current_time::time, 'now'::time = localtime
select current_time(0)::time = localtime(0), current_timestamp(2) = now()::timestamptz(2), pg_typeof(localtime), pg_typeof(current_time(2))
select extract(timezone from current_time) = extract(timezone from now())
create table tz_t (id int primary key, ts timestamptz, d date)
insert into tz_t values (1, '2024-06-01 12:00', '2024-06-01'), (2, '2024-12-01 12:00+00', '2024-12-01')
insert into tz_t values (3, '2024-03-31 02:30', '2024-03-31'), (4, 'infinity', NULL), (5, '-infinity', NULL)
select id, ts, ts::timestamp, d::timestamptz from tz_t order by tz_t.ts
select id, ts::date from tz_t where id < 4 order by id
select id from tz_t where ts < '2024-06-01 12:00:00' order by id
select ts::date, count(*) from tz_t where isfinite(ts) group by 1 order by 1
select to_char(ts, 'YYYY-MM-DD HH24:MI TZH:TZM'), date_trunc('day', ts) from tz_t where id < 4 order by id
select max(ts), min(ts), count(*) filter (where ts > '2024-06-01') from tz_t
update tz_t set ts = d::timestamp where id = 2 returning ts
drop table tz_t
""".strip().splitlines()


def _text_conn(dsn: str) -> psycopg.Connection:
    """A psycopg connection that loads every value as the exact text the server sent."""
    c = psycopg.connect(dsn, autocommit=True)
    for oid in (16, 20, 21, 23, 25, 700, 701, 1082, 1083, 1114, 1184, 1186, 1266, 1700, 1115,
                1185, 1009):
        c.adapters.register_loader(oid, TextLoader)
    return c


def _run(c: psycopg.Connection, sql: str) -> object:
    try:
        cur = c.execute(sql)
        return ("rows", cur.fetchall()) if cur.description else ("tag", cur.statusmessage)
    except psycopg.Error as e:
        return ("error", e.sqlstate, str(e).splitlines()[0])


@pytest.mark.parametrize("zone", ZONES)
def test_session_zone_matches_pg15(zone, pg15, cumulo_server):
    """Every statement under `SET TIME ZONE zone` gives PostgreSQL 15's text, byte for byte."""
    mism = []
    with _text_conn(pg15.dsn()) as pc, _text_conn(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute(f"set time zone {zone}")
            c.execute("drop table if exists tz_t")
        assert cc.info.parameter_status("TimeZone") == pc.info.parameter_status("TimeZone")
        for sql in STATEMENTS:
            want, got = _run(pc, sql), _run(cc, sql)
            if want != got:
                mism.append(f"{sql}\n   pg15: {want}\n cumulo: {got}")
    assert not mism, f"{len(mism)} of {len(STATEMENTS)} differ under {zone}:\n" + "\n".join(mism)


# Session commands and catalog views, run once on one connection each (in this order).
SESSION_STATEMENTS = """
show time zone
set time zone 'europe/madrid'
show timezone
set local time zone 'Asia/Kolkata'
show timezone
set time zone local
set time zone 'Asia/Kolkata'
set time zone default
set timezone = 'America/New_York'
reset timezone
set timezone to 'Asia/Kolkata'
reset all
set time zone 2.5
show timezone
set time zone interval '-03:30' hour to minute
show timezone
set time zone 'EST5EDT'
select '2024-07-01 12:00+00'::timestamptz, '2024-01-01 12:00+00'::timestamptz
set time zone 'FOO+3'
select '2024-07-01 12:00+00'::timestamptz, to_char('2024-07-01 12:00+00'::timestamptz, 'TZ')
set time zone '<+05:30>-05:30'
show timezone
set time zone 'Mars/Phobos'
set timezone = 'Z'
show timezone
select set_config('TimeZone', 'Asia/Tokyo', false)
select '2024-06-01 12:00+00'::timestamptz
select set_config('TimeZone', 'Mars/Phobos', false)
begin
set local timezone = 'Asia/Kolkata'
select '2024-06-01 12:00+00'::timestamptz
commit
select '2024-06-01 12:00+00'::timestamptz
select * from pg_timezone_names where name in ('Europe/Madrid', 'America/St_Johns', 'EST5EDT', 'UTC', 'Etc/GMT+3') order by 1
select * from pg_timezone_abbrevs where abbrev in ('EST', 'CEST', 'MSK', 'IST', 'NZDT') order by 1
select count(*) from pg_timezone_abbrevs
select count(*) > 500 from pg_timezone_names
select '03/04/2024'::date, '2024/03/04'::date, 'June 1, 2024'::date, '1 Jun 2024'::date
select 'Jun-01-2024'::date, '20240601'::date, '01-Jun-2024'::date, 'Sat Jun 01 2024'::date
select 'Jun 1 2024 10:30 PM'::timestamp, '03/04/2024 13:45:10.5'::timestamp, '2024-06-01 12:30 am'::timestamp
select 'Sat Jun 01 21:00:00 2024 JST'::timestamptz, 'Jun 1 2024 10:30 Europe/Madrid'::timestamptz
select '2024-06-01 10:00 pm +02'::timestamptz, 'junk'::date
select '13/13/2024'::date
set datestyle = 'DMY'
select '03/04/2024'::date, '03/04/24'::date, '3.4.2024'::date, '03/04/1999 10:00'::timestamptz
set datestyle = 'ISO, YMD'
select '03/04/05'::date, '24-06-01'::date
select '03/04/2024'::date
reset datestyle
select '03/04/69'::date, '03/04/70'::date
set time zone 'Asia/Tokyo'
set datestyle = 'SQL, DMY'
select '2024-06-01 12:00+00'::timestamptz, '2024-06-01'::date, '2024-06-01 12:00:00.5'::timestamp
set datestyle = 'Postgres, MDY'
select '2024-06-01 12:00+00'::timestamptz, '2024-06-01'::date, '2024-06-01 12:00'::timestamp
set datestyle = 'Postgres, DMY'
select '2024-06-01 12:00+00'::timestamptz::text, '2024-06-01'::date, array['2024-06-01 12:00'::timestamp]
set datestyle = 'German'
select '2024-06-01 12:00+00'::timestamptz, '2024-06-01'::date, 'infinity'::timestamptz
set time zone -3
select '2024-06-01 12:00+00'::timestamptz
set time zone 'America/St_Johns'
select '1900-06-01 12:00+00'::timestamptz, '2024-06-01 12:00+00'::timestamptz
select '2024-06-01'::date::text, 'd' || '2024-06-01'::date
reset datestyle
set intervalstyle = 'iso_8601'
select interval '1 day 02:03:04.5', interval '-3 hours', interval '0', interval '-1 day -00:00:01'
select (interval '90 minutes')::text, interval '45 days'
set intervalstyle = 'postgres_verbose'
select interval '1 day 02:03:04.5', interval '-3 hours', interval '0', interval '-1 day -00:00:01'
select (interval '90 minutes')::text, interval '1 second'
set intervalstyle = 'sql_standard'
select interval '1 day 02:03:04.5', interval '-3 hours', interval '0', interval '-1 day -00:00:01'
select (interval '90 minutes')::text, interval '45 days'
set intervalstyle = 'bogus'
show intervalstyle
reset intervalstyle
select interval '1 day 02:03:04', interval '+05:30' hour to minute, interval '2' hour to minute
""".strip().splitlines()


def test_session_commands_match_pg15(pg15, cumulo_server):
    """SET / SHOW / RESET forms of TimeZone, its errors and ParameterStatus, as PostgreSQL 15."""
    mism = []
    with _text_conn(pg15.dsn()) as pc, _text_conn(cumulo_server.dsn()) as cc:
        for c in (pc, cc):
            c.execute("set time zone 'UTC'")
        for sql in SESSION_STATEMENTS:
            want, got = _run(pc, sql), _run(cc, sql)
            want_ps = pc.info.parameter_status("TimeZone")
            got_ps = cc.info.parameter_status("TimeZone")
            if want_ps == "Etc/UTC" and got_ps == "UTC":  # the two servers' defaults
                got_ps = want_ps
            if (want, want_ps) != (got, got_ps):
                mism.append(f"{sql}\n   pg15: {want} {want_ps}\n cumulo: {got} {got_ps}")
    assert not mism, "\n".join(mism)


def test_extended_protocol_text_results(pg15, cumulo_server):
    """Parameters and text results of the extended protocol use the session zone too."""
    sqls = [
        ("select %s::text::timestamptz, %s::timestamptz", ["2024-10-27 02:30", "2024-03-31 02:30"]),
        ("select %s::timestamptz::date, %s::timestamptz at time zone 'UTC'",
         ["2024-06-01 23:30+00", "2024-06-01 12:00"]),
        ("select date_trunc('day', %s::timestamptz), extract(hour from %s::timestamptz)",
         ["2024-06-01 23:30+00", "2024-06-01 23:30+00"]),
    ]
    for zone in ("Europe/Madrid", "America/St_Johns"):
        with _text_conn(pg15.dsn()) as pc, _text_conn(cumulo_server.dsn()) as cc:
            for c in (pc, cc):
                c.execute(f"set time zone '{zone}'")
            for sql, params in sqls:
                want = pc.execute(sql, params).fetchall()
                assert cc.execute(sql, params).fetchall() == want, (zone, sql)
                # a prepared statement planned under one zone follows the session to the next
                assert cc.execute(sql, params, prepare=True).fetchall() == want, (zone, sql)
            for c in (pc, cc):
                c.execute("set datestyle = 'Postgres, DMY'")
            for sql, params in sqls:  # prepared statements' row shapes follow DateStyle too
                want = pc.execute(sql, params, prepare=True).fetchall()
                assert cc.execute(sql, params, prepare=True).fetchall() == want, (zone, sql)


def test_copy_to_in_session_zone(pg15, cumulo_server):
    """COPY TO STDOUT (text and csv) prints timestamptz on the session's clocks."""
    outs = []
    for dsn in (pg15.dsn(), cumulo_server.dsn()):
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("drop table if exists tz_copy")
            c.execute("create table tz_copy (id int primary key, ts timestamptz)")
            c.execute("insert into tz_copy values (1, '2024-06-01 12:00+00'), "
                      "(2, '2024-12-01 12:00:00.25+00'), (3, '1900-01-01 00:00+00')")
            c.execute("set time zone 'America/St_Johns'")
            got = []
            for fmt in ("text", "csv"):
                with c.cursor().copy(f"copy (select * from tz_copy order by id) to stdout "
                                     f"with (format {fmt})") as cp:
                    got.append(b"".join(bytes(b) for b in cp).decode())
            with c.cursor().copy("copy tz_copy to stdout") as cp:
                got.append(b"".join(bytes(b) for b in cp).decode())
            c.execute("drop table tz_copy")
            outs.append(got)
    assert outs[1] == outs[0]
    assert "2024-06-01 09:30:00-02:30" in outs[1][0]


PSQL = "/usr/lib/postgresql/15/bin/psql"


def _psql(port: int, script: str, tz: str, password: str = "") -> str:
    """Runs a psql script with PGTZ (sent as the TimeZone startup parameter); returns its output."""
    env = {**os.environ, "PGPASSWORD": password, "PAGER": "", "PSQL_PAGER": "", "PGTZ": tz,
           "LC_ALL": "C.UTF-8", "COLUMNS": "200"}
    env.pop("PGOPTIONS", None)
    res = subprocess.run([PSQL, "-X", "-h", "127.0.0.1", "-p", str(port), "-U", "cumulo", "-d",
                          "cumulo", "-v", "ON_ERROR_STOP=1"],
                         input=script, capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_psql_prints_session_zone(pg15, cumulo_server):
    """psql's table of a timestamptz column under PGTZ is PostgreSQL's, character for character."""
    setup = ("drop table if exists tz_psql;\n"
             "create table tz_psql (id int primary key, ts timestamptz, t timestamp);\n"
             "insert into tz_psql values (1, '2024-03-31 02:30', '2024-03-31 02:30'),\n"
             "  (2, '2024-10-27 02:30:00.5', NULL), (3, '2024-06-01 12:00+00', '2024-06-01 12:00');\n")
    query = ("show timezone;\n"
             "select id, ts, ts::date as d, ts::text as txt, t::timestamptz as tt\n"
             "  from tz_psql order by id;\n"
             "\\x\nselect * from tz_psql where id = 3;\n")
    for tz in ("Europe/Madrid", "America/St_Johns"):
        want = _psql(pg15.port, setup + query, tz, pg15_mod.PASSWORD)
        got = _psql(cumulo_server.port, setup + query, tz)
        assert got == want
        assert tz in got
    assert "2024-03-31 03:30:00+02" in _psql(cumulo_server.port, query, "Europe/Madrid")


def test_asyncpg_round_trip_in_session_zone(cumulo_server):
    """asyncpg (binary) keeps the instant; text forms and local fields follow the session zone."""
    aware = dt.datetime(2024, 10, 27, 1, 30, 0, 250000, tzinfo=dt.timezone(dt.timedelta(hours=-5)))

    async def go() -> None:
        c = await asyncpg.connect(cumulo_server.dsn(),
                                  server_settings={"TimeZone": "Europe/Madrid"})
        try:
            assert await c.fetchval("show timezone") == "Europe/Madrid"
            await c.execute("drop table if exists tz_apg")
            await c.execute("create table tz_apg (id int primary key, ts timestamptz)")
            await c.execute("insert into tz_apg values (1, $1), (2, '2024-10-27 02:30')", aware)
            rows = await c.fetch("select id, ts, ts::text, extract(hour from ts)::int, "
                                 "ts at time zone 'UTC' from tz_apg order by id")
            assert rows[0][1] == aware
            assert rows[0][2:] == ("2024-10-27 07:30:00.25+01", 7,
                                   dt.datetime(2024, 10, 27, 6, 30, 0, 250000))
            # 02:30 happens twice that night: PostgreSQL takes the later (+01) one
            assert rows[1][1] == dt.datetime(2024, 10, 27, 1, 30, tzinfo=dt.UTC)
            assert rows[1][2] == "2024-10-27 02:30:00+01"
            await c.execute("set time zone 'Asia/Kolkata'")
            assert await c.fetchval("select ts::text from tz_apg where id = 1") == \
                "2024-10-27 12:00:00.25+05:30"
            assert await c.fetchval("select $1::timestamptz = ts from tz_apg where id = 1",
                                    aware) is True
            inf = await c.fetchrow("select 'infinity'::timestamptz, '-infinity'::timestamp")
            assert tuple(inf) == (dt.datetime.max, dt.datetime.min)  # asyncpg's infinities
            assert await c.fetchval("select $1::timestamptz::text", inf[0]) == "infinity"
            await c.execute("drop table tz_apg")
        finally:
            await c.close()

    asyncio.run(go())


def test_pg8000_round_trip_in_session_zone(cumulo_server):
    """pg8000 (text format) parses the session-zone text back to the same instant."""
    aware = dt.datetime(2024, 3, 31, 0, 59, 59, 999999, tzinfo=dt.UTC)
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=cumulo_server.port,
                                 database="cumulo",
                                 startup_params={"TimeZone": "America/St_Johns"})
    try:
        assert c.parameter_statuses["TimeZone"] == "America/St_Johns"
        c.run("drop table if exists tz_p8")
        c.run("create table tz_p8 (id int primary key, ts timestamptz)")
        c.run("insert into tz_p8 values (1, :v), (2, '2024-11-03 01:30')", v=aware)
        (ts1, txt1), (ts2, txt2) = c.run("select ts, ts::text from tz_p8 order by id")
        assert ts1 == aware and ts1.utcoffset() == -dt.timedelta(hours=2, minutes=30)
        assert txt1 == "2024-03-30 22:29:59.999999-02:30"
        assert ts2 == dt.datetime(2024, 11, 3, 5, 0, tzinfo=dt.UTC)  # the later 01:30 (-03:30)
        c.run("set time zone -3")
        assert c.parameter_statuses["TimeZone"] == "<-03>+03"
        assert c.run("select ts::text from tz_p8 where id = 1") == [["2024-03-30 21:59:59.999999-03"]]
        c.run("drop table tz_p8")
    finally:
        c.close()


JAR = "/usr/share/java/postgresql.jar"


def test_jdbc_in_a_non_utc_jvm_zone(pg15, cumulo_server):
    """pgJDBC sends the JVM's zone as TimeZone; getString/getTimestamp agree with PostgreSQL."""
    jpype = pytest.importorskip("jpype", reason="JPype1 is not installed")
    if not os.path.exists(JAR):
        pytest.skip(f"needs {JAR} (apt-get install libpostgresql-jdbc-java)")
    if not jpype.isJVMStarted():
        jpype.startJVM(classpath=[JAR], convertStrings=False)
    elif JAR not in str(jpype.java.lang.System.getProperty("java.class.path")):
        pytest.skip("a JVM without pgJDBC was already started in this process")
    java = jpype.JPackage("java")
    tz_class = java.util.TimeZone
    saved = tz_class.getDefault()
    tz_class.setDefault(tz_class.getTimeZone("America/St_Johns"))
    seen = []
    try:
        for url in (f"jdbc:postgresql://127.0.0.1:{pg15.port}/cumulo?user=cumulo"
                    f"&password={pg15_mod.PASSWORD}",
                    f"jdbc:postgresql://127.0.0.1:{cumulo_server.port}/cumulo?user=cumulo"):
            conn = java.sql.DriverManager.getConnection(url)
            try:
                st = conn.createStatement()
                rs = st.executeQuery("select current_setting('TimeZone'), "
                                     "'2024-03-10 12:00+00'::timestamptz, "
                                     "'2024-11-03 01:30'::timestamptz, '2024-06-01'::date")
                assert rs.next()
                row = [str(rs.getString(i)) for i in range(1, 5)]
                row += [int(rs.getTimestamp(i).getTime()) for i in (2, 3)]
                ps = conn.prepareStatement("select ?::timestamptz::text")
                ps.setTimestamp(1, java.sql.Timestamp(1717243200000))  # 2024-06-01 12:00 UTC
                rs = ps.executeQuery()
                assert rs.next()
                row.append(str(rs.getString(1)))
                seen.append(row)
            finally:
                conn.close()
    finally:
        tz_class.setDefault(saved)
    assert seen[1] == seen[0]
    assert seen[1][:2] == ["America/St_Johns", "2024-03-10 09:30:00-02:30"]


def test_now_literals_are_not_frozen_in_cached_plans(cumulo_server):
    """'now' / 'today' are the transaction's: a cached plan must not keep the first value."""
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("set time zone 'Pacific/Kiritimati'")  # UTC+14: 'today' is not UTC's date
        seen = set()
        for _ in range(3):
            now, same, today = c.execute(
                "select 'now'::timestamptz, 'now'::timestamptz = now(), "
                "'today'::date = (now() at time zone 'Pacific/Kiritimati')::date").fetchone()
            assert same is True and today is True
            seen.add(now)
            c.execute("select pg_sleep(0.01)")
        assert len(seen) == 3
        c.execute("create table tz_now (id int primary key, ts timestamptz)")
        try:
            for i in range(2):
                c.execute("insert into tz_now values (%s, 'now')" % (i + 1))
                c.execute("select pg_sleep(0.01)")
            assert c.execute("select count(distinct ts) from tz_now").fetchone() == (2,)
        finally:
            c.execute("drop table tz_now")
