"""log_file_mode as PostgreSQL 15 has it: SHOW, pg_settings, SET refused, ALTER SYSTEM.

Cumulo logs to stderr only (no logging_collector), so no file takes the mode; what a
client sees of the setting must still be PostgreSQL's: `0600`, octal in SHOW and decimal in
boot_val / reset_val, a sighup setting that SET cannot change, values read as C's strtol
reads them (0644 octal, 0x1a4 hexadecimal, 420 decimal).
"""

from __future__ import annotations

import time

import psycopg
import pytest

ROW = ("select name, setting, unit, category, short_desc, context, vartype, source, min_val, "
       "max_val, enumvals, boot_val, reset_val, pending_restart from pg_settings "
       "where name = 'log_file_mode'")


@pytest.fixture(scope="module")
def dsns(pg15, module_server):
    return pg15.dsn(), module_server.dsn()


def outcome(dsn: str, sql: str) -> tuple[str, ...]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        try:
            cur = conn.execute(sql)
            return ("ok", *map(str, cur.fetchall())) if cur.description else ("ok",)
        except psycopg.Error as e:
            return (str(e.sqlstate), e.diag.message_primary or "")


def shown_after_reload(dsn: str, before: str) -> str:
    """SHOW log_file_mode once the reload took effect (PostgreSQL rereads on its SIGHUP)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select pg_reload_conf()")
        deadline = time.monotonic() + 60
        while (shown := conn.execute("show log_file_mode").fetchone()[0]) == before:
            assert time.monotonic() < deadline, "the reload did not take effect"
            time.sleep(0.05)
        return shown


def test_show_and_pg_settings(dsns):
    pg, ours = dsns
    assert outcome(pg, "show log_file_mode") == outcome(ours, "show log_file_mode") == \
        ("ok", "('0600',)")
    assert outcome(ours, ROW) == outcome(pg, ROW)
    assert outcome(ours, "select current_setting('log_file_mode')") == ("ok", "('0600',)")


@pytest.mark.parametrize("sql", [
    "set log_file_mode = '0644'",
    "set log_file_mode to default",
    "reset log_file_mode",
    "select set_config('log_file_mode', '0644', false)",
    "alter system set log_file_mode = 0644",  # the number 644: out of range
    "alter system set log_file_mode = 'abc'",
    "alter system set log_file_mode = '0o644'",
    "alter system set log_file_mode = -1",
    "alter system set log_file_mode = 512",
])
def test_refused_as_postgresql(dsns, sql):
    pg, ours = dsns
    expected = outcome(pg, sql)
    assert expected[0] != "ok"
    assert outcome(ours, sql) == expected


@pytest.mark.parametrize("value, shown", [("'0x1a4'", "0644"), ("420", "0644"),
                                          ("'0640'", "0640"), ("'1e2'", "0144")])
def test_alter_system_and_reload(dsns, value, shown):
    for dsn in dsns:
        assert outcome(dsn, f"alter system set log_file_mode = {value}") == ("ok",)
    try:
        assert [shown_after_reload(dsn, "0600") for dsn in dsns] == [shown, shown]
        rows = [outcome(dsn, ROW) for dsn in dsns]
        assert rows[0] == rows[1]
        assert f"'{shown}'" in rows[0][1] and "'configuration file'" in rows[0][1]
    finally:
        for dsn in dsns:
            outcome(dsn, "alter system reset log_file_mode")
    assert [shown_after_reload(dsn, shown) for dsn in dsns] == ["0600", "0600"]
