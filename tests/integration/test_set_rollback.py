"""SET is transactional, as in PostgreSQL: ROLLBACK, ROLLBACK TO and a failed implicit
transaction undo it, and the ParameterStatus a client holds follows.

Compared with a throwaway PostgreSQL 15 through psycopg: each step's result and the
TimeZone the client believes in afterwards must be the same on both.
"""

from __future__ import annotations

import psycopg

STEPS = [
    "set timezone = 'UTC'",
    "begin", "set timezone = 'Asia/Tokyo'", "show timezone", "rollback", "show timezone",
    "begin", "set timezone = 'Asia/Tokyo'", "commit", "show timezone",
    "set timezone = 'UTC'",
    "begin", "savepoint a", "set work_mem = '8MB'", "set timezone = 'Asia/Tokyo'",
    "rollback to a", "show work_mem", "show timezone",
    "set work_mem = '16MB'", "release a", "commit", "show work_mem",
    "begin", "savepoint b", "set timezone = 'Asia/Kolkata'", "select 1/0", "rollback to b",
    "show timezone", "commit",
    "set timezone = 'Europe/Madrid'; select 1/0", "show timezone",
    "set timezone = 'Europe/Madrid'; select 1", "show timezone",
    "begin", "set local timezone = 'Asia/Kolkata'", "set work_mem = '32MB'", "commit",
    "show timezone", "show work_mem",
    "begin", "reset work_mem", "rollback", "show work_mem", "show timezone",
    "begin", "set timezone = 'Asia/Tokyo'", "select 1/0", "rollback", "show timezone",
]


def _run(dsn: str) -> list[tuple]:
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in STEPS:
            try:
                cur = c.execute(sql)
                got = cur.fetchall() if cur.description else cur.statusmessage
            except psycopg.Error as e:
                got = e.sqlstate
            out.append((sql, got, c.info.parameter_status("TimeZone")))
    return out


def test_set_follows_the_transaction_like_pg15(pg15, cumulo_server):
    expected = _run(pg15.dsn())
    assert _run(cumulo_server.dsn()) == expected
    # the script must exercise what it claims: a rolled-back SET visible before the ROLLBACK
    assert ("show timezone", [("Asia/Tokyo",)], "Asia/Tokyo") in expected
    assert ("show work_mem", [("32MB",)], "Europe/Madrid") in expected
