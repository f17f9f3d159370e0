"""Non-ISO date/time input (`pgtypes.dateparse`), with PostgreSQL 15's readings.

The integration test `test_timezone.py` runs the same inputs against a live
PostgreSQL 15; these pin the parser's rules one by one.
"""

from __future__ import annotations

import datetime as dt

import pytest

from cumulo.server.errors import DatetimeFieldOverflow, InvalidDatetimeFormat
from cumulo.server.pgtypes import dateparse
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.text import parse_text

D = dt.date


@pytest.mark.parametrize(("text", "order", "want"), [
    ("03/04/2024", "MDY", D(2024, 3, 4)),
    ("03/04/2024", "DMY", D(2024, 4, 3)),
    ("2024/03/04", "DMY", D(2024, 3, 4)),
    ("03/04/05", "YMD", D(2003, 4, 5)),
    ("3.4.2024", "DMY", D(2024, 4, 3)),
    ("June 1, 2024", "MDY", D(2024, 6, 1)),
    ("1 Jun 2024", "DMY", D(2024, 6, 1)),
    ("Sat Jun 01 2024", "MDY", D(2024, 6, 1)),
    ("01-Jun-2024", "MDY", D(2024, 6, 1)),
    ("20240601", "MDY", D(2024, 6, 1)),
    ("03/04/69", "MDY", D(2069, 3, 4)),
    ("03/04/70", "MDY", D(1970, 3, 4)),
])
def test_dates_in_each_order(text, order, want):
    dateparse.use_datestyle(f"ISO, {order}")
    try:
        assert parse_text(T.DATE, text) == want
    finally:
        dateparse.use_datestyle("ISO, MDY")


def test_clock_meridiem_zone():
    assert dateparse.parse_loose("Jun 1 2024 10:30 PM") == (dt.datetime(2024, 6, 1, 22, 30), None,
                                                            False)
    assert dateparse.parse_loose("06/01/2024 12:30:01.5 am +02") == (
        dt.datetime(2024, 6, 1, 0, 30, 1, 500000), "+02", False)
    assert dateparse.parse_loose("Sat Jun 01 21:00:00 2024 JST")[1] == "JST"
    ts = parse_text(T.TIMESTAMPTZ, "Sat Jun 01 21:00:00 2024 JST", "UTC")
    assert ts == dt.datetime(2024, 6, 1, 12, 0, tzinfo=dt.UTC)


def test_errors():
    with pytest.raises(InvalidDatetimeFormat):
        parse_text(T.DATE, "junk")
    with pytest.raises(DatetimeFieldOverflow):
        parse_text(T.DATE, "13/13/2024")
    with pytest.raises(DatetimeFieldOverflow):
        parse_text(T.TIMESTAMP, "06/01/2024 13:00 PM")
