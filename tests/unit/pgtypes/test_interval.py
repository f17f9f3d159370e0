"""The Interval class: PostgreSQL's (months, days, microseconds) with its comparison span.

Expected values are PostgreSQL 15's (checked by hand against `psql`; the
differential test `tests/integration/test_interval_pg15.py` covers the SQL
surface against a live PostgreSQL 15).
"""

from __future__ import annotations

import datetime as dt
import pickle
from decimal import Decimal

import pytest

from cumulo.server.errors import DatetimeFieldOverflow, DivisionByZero, InvalidDatetimeFormat
from cumulo.server.kivi import keycodec, wire
from cumulo.server.pgtypes import binary
from cumulo.server.pgtypes import interval as ivl
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.interval import Interval
from cumulo.server.pgtypes.intervaltext import STYLES, parse_interval

DAY = ivl.USECS_PER_DAY
HOUR = ivl.USECS_PER_HOUR


def test_span_drives_equality_hash_and_order():
    mon, days30 = Interval(1, 0, 0), Interval(0, 30, 0)
    assert mon == days30 and hash(mon) == hash(days30)
    assert Interval(0, 1, 0) == Interval(0, 0, 24 * HOUR) == dt.timedelta(days=1)
    assert len({mon, days30, Interval(0, 0, 720 * HOUR)}) == 1
    assert Interval(12, 0, 0) < Interval(0, 361, 0) and Interval(12, 0, 0) > Interval(0, 359, 0)
    assert sorted([Interval(1, 0, 0), Interval(0, -1, 0), Interval(0, 0, HOUR)]) == [
        Interval(0, -1, 0), Interval(0, 0, HOUR), Interval(1, 0, 0)]
    # the fields stay apart even when the spans are equal
    assert (mon.months, mon.day, days30.months, days30.day) == (1, 0, 0, 30)


def test_field_arithmetic():
    a = Interval(14, 3, 4 * HOUR)
    assert a + Interval(1, -3, 0) == Interval(15, 0, 4 * HOUR)
    assert (a + Interval(1, -3, 0)).day == 0
    assert a - a == Interval() and -a == Interval(-14, -3, -4 * HOUR)
    # a plain timedelta on either side counts as days plus time
    assert (dt.timedelta(hours=26) + Interval(1, 0, 0)) == Interval(1, 1, 2 * HOUR)
    assert isinstance(dt.timedelta(days=1) - Interval(1, 0, 0), Interval)
    assert sum([Interval(1, 0, 0), Interval(0, 2, 0)]).months == 1  # Python's sum() works


@pytest.mark.parametrize(("iv", "factor", "want"), [
    (Interval(1, 0, 0), 1.5, Interval(1, 15, 0)),
    (Interval(12, 0, 0), 0.5, Interval(6, 0, 0)),
    (Interval(0, 1, 0), 2.5, Interval(0, 2, 12 * HOUR)),
    (Interval(1, 3, 0), 0.3, Interval(0, 9, 21 * HOUR + 36 * 60 * 10**6)),
    (Interval(0, 0, HOUR), -1, Interval(0, 0, -HOUR)),
])
def test_mul_cascades_fractions_down(iv, factor, want):
    got = iv * factor
    assert (got.months, got.day, got.time) == (want.months, want.day, want.time)


def test_div():
    got = Interval(1, 0, 0) / 7
    assert (got.months, got.day, got.time) == (0, 4, 6 * HOUR + 51 * 60 * 10**6 + 25689600)
    with pytest.raises(DivisionByZero):
        Interval(1, 0, 0) / 0


@pytest.mark.parametrize(("start", "iv", "want"), [
    (dt.datetime(2024, 1, 31), Interval(1, 0, 0), dt.datetime(2024, 2, 29)),
    (dt.datetime(2023, 1, 31), Interval(1, 0, 0), dt.datetime(2023, 2, 28)),
    (dt.datetime(2024, 3, 31), Interval(-1, 0, 0), dt.datetime(2024, 2, 29)),
    (dt.datetime(2024, 2, 29), Interval(12, 0, 0), dt.datetime(2025, 2, 28)),
    (dt.datetime(2024, 1, 31, 10), Interval(1, 1, HOUR), dt.datetime(2024, 3, 1, 11)),
    (dt.datetime(2024, 12, 15), Interval(1, 0, 0), dt.datetime(2025, 1, 15)),
])
def test_timestamp_plus_interval_months_first(start, iv, want):
    assert ivl.add_to_timestamp(start, iv) == want


def test_timestamptz_adds_days_on_the_wall_clock():
    madrid = ivl_zone("Europe/Madrid")
    start = dt.datetime(2024, 3, 30, 11, tzinfo=dt.UTC)  # 12:00 CET
    day = ivl.add_to_timestamp(start, Interval(0, 1, 0), madrid)
    assert day == dt.datetime(2024, 3, 31, 10, tzinfo=dt.UTC)  # 12:00 CEST
    assert ivl.add_to_timestamp(start, Interval(0, 0, 24 * HOUR), madrid) == dt.datetime(
        2024, 3, 31, 11, tzinfo=dt.UTC)


def ivl_zone(name: str) -> dt.tzinfo:
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


def test_justify():
    assert ivl.justify_hours(Interval(0, 0, 27 * HOUR)) == Interval(0, 1, 3 * HOUR)
    j = ivl.justify_hours(Interval(0, -1, 30 * HOUR))
    assert (j.day, j.time) == (0, 6 * HOUR)
    j = ivl.justify_days(Interval(1, -40, 0))
    assert (j.months, j.day) == (0, -10)
    j = ivl.justify_interval(Interval(1, 0, -HOUR))
    assert (j.months, j.day, j.time) == (0, 29, 23 * HOUR)


def test_age_is_symbolic():
    got = ivl.age(dt.datetime(2024, 3, 15, 10), dt.datetime(2023, 1, 20, 12, 30))
    assert (got.months, got.day, got.time) == (13, 25, 21 * HOUR + 30 * 60 * 10**6)
    got = ivl.age(dt.datetime(2024, 3, 1), dt.datetime(2024, 1, 31))
    assert (got.months, got.day, got.time) == (1, 1, 0)


def test_extract_and_trunc():
    v = parse_interval("1 year 2 mons 3 days 04:05:06.5", style="postgres")
    assert ivl.extract_field("epoch", v) == Decimal("37015506.500000")
    assert ivl.extract_field("month", parse_interval("-14 mons", style="postgres")) == -2
    assert ivl.extract_field("milliseconds", parse_interval("3.5 s", style="postgres")) == Decimal(
        "3500.000")
    assert ivl.extract_field("dow", v) is None
    t = ivl.trunc("month", v)
    assert (t.months, t.day, t.time) == (14, 0, 0)
    assert ivl.trunc("week", v) is None


@pytest.mark.parametrize(("text", "fields", "out"), [
    ("1 year 2 mons 3 days 04:05:06.789",
     (14, 3, 14706789000),
     ("1 year 2 mons 3 days 04:05:06.789", "@ 1 year 2 mons 3 days 4 hours 5 mins 6.789 secs",
      "+1-2 +3 +4:05:06.789", "P1Y2M3DT4H5M6.789S")),
    ("-1 day +02:03", (0, -1, 7380000000),
     ("-1 days +02:03:00", "@ 1 day -2 hours -3 mins ago", "-1 +2:03:00", "P-1DT2H3M")),
    ("1 day -24 hours", (0, 1, -DAY),
     ("1 day -24:00:00", "@ 1 day -24 hours", "+1 -24:00:00", "P1DT-24H")),
    ("@ 1 year 2 mons ago", (-14, 0, 0),
     ("-1 years -2 mons", "@ 1 year 2 mons ago", "-1-2", "P-1Y-2M")),
    ("1.5 years", (18, 0, 0), ("1 year 6 mons", "@ 1 year 6 mons", "1-6", "P1Y6M")),
    ("P1Y2M3DT4H5M6S", (14, 3, 14706000000), None),
    ("1-2", (14, 0, 0), None),
    ("3 4:05:06", (0, 3, 14706000000), None),
    ("12:34.5", (0, 0, 754500000), None),
    ("0", (0, 0, 0), ("00:00:00", "@ 0", "0", "PT0S")),
])
def test_text_in_and_out(text, fields, out):
    v = parse_interval(text, style="postgres")
    assert (v.months, v.day, v.time) == fields
    if out is not None:
        want = dict(zip(["postgres", "postgres_verbose", "sql_standard", "iso_8601"], out,
                        strict=True))
        if want["sql_standard"] == "-1 +2:03:00":
            want["sql_standard"] = "+0-0 -1 +2:03:00"
        if want["sql_standard"] == "+1 -24:00:00":
            want["sql_standard"] = "+0-0 +1 -24:00:00"
        assert {k: f(v) for k, f in STYLES.items()} == want
        for style, f in STYLES.items():  # every style reads its own output back
            back = parse_interval(f(v), style=style)
            assert (back.months, back.day, back.time) == fields


def test_sql_standard_leading_minus_applies_to_all_fields():
    v = parse_interval("-1 2:03:04", style="sql_standard")
    assert (v.day, v.time) == (-1, -7384000000)
    v = parse_interval("-1 2:03:04", style="postgres")
    assert (v.day, v.time) == (-1, 7384000000)


@pytest.mark.parametrize("bad", ["garbage", "1 day 2 days", "1 year 1 year", "", "1 hour 02:00"])
def test_bad_input(bad):
    with pytest.raises(InvalidDatetimeFormat):
        parse_interval(bad, style="postgres")


def test_typmod_adjust():
    v = parse_interval("1 year 2 mons 3 days 04:05:06.789", style="postgres")
    ym = ivl.adjust(v, ivl.typmod(ivl.YEAR | ivl.MONTH))
    assert (ym.months, ym.day, ym.time) == (14, 0, 0)
    assert ivl.adjust(v, ivl.typmod(ivl.YEAR)).months == 12
    sec2 = ivl.adjust(v, ivl.typmod(ivl.FULL_RANGE, 2))
    assert sec2.time == 14706790000
    hour = ivl.adjust(v, ivl.typmod(ivl.DAY | ivl.HOUR))
    assert (hour.day, hour.time) == (3, 4 * HOUR)


def test_range_limit():
    with pytest.raises(DatetimeFieldOverflow):
        Interval(2**31, 0, 0)


def test_binary_carries_months():
    v = Interval(14, -3, 5)
    enc, dec = binary.binary_encoder(T.INTERVAL), binary.binary_decoder(T.INTERVAL)
    raw = enc(v)
    assert raw == (5).to_bytes(8, "big") + (-3).to_bytes(4, "big", signed=True) + (14).to_bytes(
        4, "big")
    back = dec(raw)
    assert (back.months, back.day, back.time) == (14, -3, 5)
    # a months-free timedelta still goes out as days plus same-signed time
    assert dec(enc(dt.timedelta(hours=-26))).day == -1


def test_storage_round_trip_and_old_timedeltas():
    v = Interval(14, -3, 5)
    back = wire.unpackb(wire.packb((1, v, [v])))
    assert (back[1].months, back[1].day, back[1].time) == (14, -3, 5)
    assert type(back[2][0]) is Interval
    # values written before months existed (ext code 5) still decode
    old = wire.unpackb(wire.packb(dt.timedelta(days=2, seconds=5)))
    assert old == dt.timedelta(days=2, seconds=5)
    assert pickle.loads(pickle.dumps(v)).months == 14


def test_key_order_is_postgres_order():
    vals = [Interval(1, 0, 0), Interval(0, 29, 0), Interval(0, 0, -1), Interval(12, 0, 0),
            dt.timedelta(days=31)]
    keys = sorted(vals, key=lambda x: keycodec.encode_key((x,)))
    assert keys == sorted(vals)
    # equal spans are equal keys: a unique index treats '1 mon' and '30 days' as PG does
    assert keycodec.encode_key((Interval(1, 0, 0),)) == keycodec.encode_key((Interval(0, 30, 0),))
