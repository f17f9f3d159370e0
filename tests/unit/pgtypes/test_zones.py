"""Time zone rules of `pgtypes.zones` and the timestamptz text I/O built on them.

The expected values are what PostgreSQL 15 answers (checked against it when
this file was written; the integration test `test_timezone.py` re-checks them
live).
"""

from __future__ import annotations

import datetime as dt
import threading
from zoneinfo import ZoneInfo

import pytest

from cumulo.server.errors import InvalidParameterValue
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes import zones
from cumulo.server.pgtypes.text import format_text, parse_text

MADRID = ZoneInfo("Europe/Madrid")


@pytest.mark.parametrize(("value", "shown", "east"), [
    ("Europe/Madrid", "Europe/Madrid", None),
    ("europe/madrid", "Europe/Madrid", None),
    ("utc", "UTC", 0),
    ("-3", "<-03>+03", -3 * 3600),
    ("+02", "<+02>-02", 2 * 3600),
    ("2.5", "<+02:30>-02:30", 9000),
    ("0", "<+00>-00", 0),
    ("interval '+05:30' hour to minute", "<+05:30>-05:30", 19800),
    ("INTERVAL '-03:30'", "<-03:30>+03:30", -12600),
    ("<+05:30>-05:30", "<+05:30>-05:30", 19800),
    ("FOO+3", "FOO+3", -3 * 3600),
    ("GMT-05:30", "GMT-05:30", 19800),
    ("EST5EDT", "EST5EDT", None),
])
def test_parse_setting(value, shown, east):
    name, tz = zones.parse_setting(value)
    assert name == shown
    if east is not None:
        off = dt.datetime(2024, 1, 1, tzinfo=dt.UTC).astimezone(tz).utcoffset()
        assert off == dt.timedelta(seconds=east)


@pytest.mark.parametrize("value", ["Mars/Phobos", "Z", "interval '1 day'", "../etc/passwd", "",
                                   "nan"])
def test_parse_setting_rejects(value):
    with pytest.raises(InvalidParameterValue) as ei:
        zones.parse_setting(value)
    assert ei.value.sqlstate == "22023"
    assert str(ei.value).startswith('invalid value for parameter "TimeZone"')


def test_to_utc_takes_the_later_instant_in_gaps_and_overlaps():
    gap = zones.to_utc(dt.datetime(2024, 3, 31, 2, 30), MADRID)
    assert gap == dt.datetime(2024, 3, 31, 1, 30, tzinfo=dt.UTC)  # shown as 03:30+02
    overlap = zones.to_utc(dt.datetime(2024, 10, 27, 2, 30), MADRID)
    assert overlap == dt.datetime(2024, 10, 27, 1, 30, tzinfo=dt.UTC)  # 02:30+01, not +02
    plain = zones.to_utc(dt.datetime(2024, 6, 1, 12, 0), MADRID)
    assert plain == dt.datetime(2024, 6, 1, 10, 0, tzinfo=dt.UTC)


def test_named_zone_order_and_signs():
    assert zones.named_zone("EST").utcoffset(None) == dt.timedelta(hours=-5)
    assert zones.named_zone("+05").utcoffset(None) == dt.timedelta(hours=-5)  # POSIX sign
    assert zones.named_zone("asia/kolkata") == ZoneInfo("Asia/Kolkata")
    assert zones.named_zone("Mars/Phobos") is None
    with pytest.raises(InvalidParameterValue, match='time zone "Mars/Phobos" not recognized'):
        zones.zone_arg("Mars/Phobos")


def test_timestamptz_text_output_offsets():
    v = dt.datetime(1900, 1, 1, tzinfo=dt.UTC)
    assert format_text(T.TIMESTAMPTZ, v, "Europe/Madrid") == "1899-12-31 23:45:16-00:14:44"
    assert format_text(T.TIMESTAMPTZ, v, "America/St_Johns") == "1899-12-31 20:29:08-03:30:52"
    w = dt.datetime(2024, 6, 1, 12, 0, 0, 500000, tzinfo=dt.UTC)
    assert format_text(T.TIMESTAMPTZ, w, "Asia/Kolkata") == "2024-06-01 17:30:00.5+05:30"
    assert format_text(T.TIMESTAMPTZ, w, "-3") == "2024-06-01 09:00:00.5-03"
    assert format_text(T.TIMESTAMPTZ, w, "UTC") == "2024-06-01 12:00:00.5+00"


def test_timestamptz_text_input_in_zone():
    assert parse_text(T.TIMESTAMPTZ, "2024-03-31 02:30", "Europe/Madrid") == \
        dt.datetime(2024, 3, 31, 1, 30, tzinfo=dt.UTC)
    assert parse_text(T.TIMESTAMPTZ, "2024-06-01 12:00 EST", "Europe/Madrid") == \
        dt.datetime(2024, 6, 1, 17, 0, tzinfo=dt.UTC)
    assert parse_text(T.TIMESTAMPTZ, "2024-06-01 12:00 Europe/London", "UTC") == \
        dt.datetime(2024, 6, 1, 11, 0, tzinfo=dt.UTC)
    assert parse_text(T.TIMESTAMPTZ, "2024-06-01 12:00+05", "Europe/Madrid") == \
        dt.datetime(2024, 6, 1, 7, 0, tzinfo=dt.UTC)  # ISO sign in a literal
    with pytest.raises(InvalidParameterValue, match='time zone "mars/phobos" not recognized'):
        parse_text(T.TIMESTAMPTZ, "2024-06-01 12:00 Mars/Phobos", "UTC")


def test_session_zone_is_per_thread():
    zones.use(MADRID)
    seen = []
    t = threading.Thread(target=lambda: seen.append(zones.session_zone()))
    t.start()
    t.join()
    try:
        assert seen == [dt.UTC] and zones.session_zone() is MADRID
        v = dt.datetime(2024, 6, 1, 12, 0, tzinfo=dt.UTC)
        assert format_text(T.TIMESTAMPTZ, v) == "2024-06-01 14:00:00+02"  # None: the session's
    finally:
        zones.use(dt.UTC)
