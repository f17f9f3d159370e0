"""POSIX and numeric TimeZone settings against a throwaway PostgreSQL 15 (issue 16, item 3).

PostgreSQL reads a TimeZone it does not know by name as a POSIX TZ string, whose
offset counts hours WEST of Greenwich: `SET timezone TO '+02:00'` is UTC-2
(extract(timezone) is -7200) and prints `-02`, with an empty abbreviation, while
the number `2` (or `'+2'`) is UTC+2 and SHOW prints `<+02>-02`. Every zone runs
the same statements on both servers in the text and binary formats, and a
connection that sets the zone at start-up (`options=-c TimeZone=...`) sees the
same ParameterStatus and values.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.typediff import connect, differences

ZONES = ["'+02:00'", "'2:00'", "'+02:00:00'", "'+15:00'", "'-12:45'", "'+5:30'", "'-02:30:15'",
         "'UTC+3'", "'<+03>-03'", "'GMT-2'", "'XYZ+4'", "'MSK-3'", "'+2'", "'-05'", "7", "-3.5",
         "20", "-23.5", "'EST5EDT'", "'foo'", "'UTC+02:00'"]

STATEMENTS = [
    "show timezone",
    "select timestamptz '2024-07-01 12:00:00+00', '2024-01-01 00:00'::timestamptz",
    "select extract(timezone from timestamptz '2024-07-01 12:00+00'), "
    "to_char(timestamptz '2024-01-01 00:00+00', 'TZ OF')",
    "select '2024-01-01 10:00'::timestamptz::text, timezone('UTC', '2024-01-01 10:00'::timestamp)",
    "select date_trunc('day', timestamptz '2024-03-10 12:00+00'), "
    "timestamptz '2024-03-10 12:00+00'::date, timestamptz '2024-03-10 23:30+00'::time",
]


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_posix_zones_match_pg15(binary, pg15, cumulo_server):
    """Each zone: the SET's outcome and the statements after it are PostgreSQL 15's."""
    mism = []
    with connect(pg15.dsn()) as pc, connect(cumulo_server.dsn()) as cc:
        for zone in ZONES:
            for c in (pc, cc):
                c.execute("reset timezone")
            mism += differences(pc, cc, [f"set timezone to {zone}", *STATEMENTS], binary)
    assert not mism, f"{len(mism)} differ:\n" + "\n".join(mism)


@pytest.mark.parametrize("zone", ["+02:00", "-05", "UTC+3", "<+05:30>-05:30"])
def test_zone_at_connect_time(zone, pg15, cumulo_server):
    """`options=-c TimeZone=...` at start-up: the same reported zone and values as PG 15."""
    def probe(dsn: str) -> tuple:
        with psycopg.connect(dsn, options=f"-c TimeZone={zone.replace(' ', '')}",
                             autocommit=True) as c:
            row = c.execute("select '2024-01-01 10:00+00'::timestamptz::text").fetchone()
            return c.info.parameter_status("TimeZone"), row
    assert probe(cumulo_server.dsn()) == probe(pg15.dsn())
