"""A fresh session's TimeZone is the machine's zone, as PostgreSQL 15's initdb picks it.

initdb writes the zone it finds ($TZ, else the /etc/localtime link: `Etc/UTC` on
Debian) into postgresql.conf; `cumulo serve` finds it the same way at start. A
session that sends no TimeZone must then see the same name in ParameterStatus,
SHOW, current_setting and after RESET on both servers.
"""

from __future__ import annotations

import psycopg
import pytest

from cumulo.server.sql.settings import system_timezone

STATEMENTS = [
    "show timezone",
    "select current_setting('TimeZone'), current_setting('timezone')",
    "select setting, reset_val from pg_settings where name = 'TimeZone'",
    "select to_char('2024-06-01 12:00:00+00'::timestamptz, 'YYYY-MM-DD HH24:MI TZ OF')",
    "set time zone 'America/New_York'",
    "reset timezone",
    "show timezone",
    "set time zone default",
    "select current_setting('TimeZone')",
]


def _session(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as conn:
        out: list = [("ParameterStatus", conn.info.parameter_status("TimeZone"))]
        for sql in STATEMENTS:
            cur = conn.execute(sql)
            out.append(cur.fetchall() if cur.description else cur.statusmessage)
        out.append(("after RESET", conn.info.parameter_status("TimeZone")))
    return out


@pytest.fixture
def no_pgtz(monkeypatch):
    """libpq sends PGTZ as a startup TimeZone; the default is only seen without it."""
    monkeypatch.delenv("PGTZ", raising=False)
    monkeypatch.delenv("PGOPTIONS", raising=False)


def test_default_timezone_as_pg15(no_pgtz, cumulo_server, pg15):
    want, got = _session(pg15.dsn()), _session(cumulo_server.dsn())
    assert got == want
    assert want[0] == ("ParameterStatus", system_timezone())  # the oracle agrees with our guess


SETTINGS = ("TimeZone", "DateStyle", "IntervalStyle", "application_name", "search_path",
            "transaction_isolation", "lc_messages", "lc_monetary", "extra_float_digits",
            "statement_timeout", "lock_timeout", "work_mem", "standard_conforming_strings")


def _provenance(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True, application_name="prov",
                         options="-c extra_float_digits=2") as conn:
        conn.execute("set search_path = public")
        conn.execute("set statement_timeout = '5s'")
        return conn.execute(
            "select name, setting, unit, source, boot_val, reset_val from pg_settings"
            " where name = any(%s) order by 1", (list(SETTINGS),)).fetchall()


def test_pg_settings_provenance_as_pg15(no_pgtz, cumulo_server, pg15):
    """pg_settings says where each value came from (initdb's file, the client's startup
    packet, a SET) and counts time and memory in their unit, as psql's \\dconfig reads it."""
    want, got = _provenance(pg15.dsn()), _provenance(cumulo_server.dsn())
    assert got == want
    assert {r[0]: r[3] for r in want}["application_name"] == "client"
