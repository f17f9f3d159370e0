"""The server log an operator reads: PostgreSQL's line format, log_statement,
log_min_duration_statement, and nothing a client's bad query can flood it with."""

from __future__ import annotations

import re
import time

import psycopg
import pytest

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \S+ \[\d+\] "
                  r"(LOG|WARNING|ERROR|FATAL|DEBUG):  \S")


def lines_after(server, mark: int) -> list[str]:
    return server.log()[mark:].splitlines()


def wait_for_line(server, mark: int, needle: str) -> list[str]:
    """The log lines after `mark`, once one of them contains needle (logging is in-process
    but the file is written by another process: poll briefly)."""
    deadline = time.monotonic() + 30
    while True:
        lines = lines_after(server, mark)
        if any(needle in ln for ln in lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


@pytest.fixture
def server(module_server):
    """The module's server: each test reads only the log lines after a mark it takes, so one
    server serves them all (test_every_line_has_postgres_format reads all of it)."""
    return module_server


def test_every_line_has_postgres_format(server):
    lines = [ln for ln in server.log().splitlines() if ln.strip()]
    assert lines and all(LINE.match(ln) for ln in lines), lines
    assert any(" LOG:  database system is ready to accept connections" in ln for ln in lines)


def test_log_statement_levels(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("set log_statement = 'ddl'")
        mark = len(server.log())
        conn.execute("create table audited (id int primary key, v text)")
        conn.execute("insert into audited values (1, 'a')")
        conn.execute("set log_statement = 'mod'")
        conn.execute("update audited set v = 'b' where id = 1")
        conn.execute("select v from audited")
        conn.execute("insert into audited values (%s, %s)", (2, "c"))  # extended protocol
        conn.execute("set log_statement = 'none'")
        conn.execute("delete from audited")
        conn.execute("set log_statement = 'all'")
        conn.execute("select 'all of them'")
        lines = wait_for_line(server, mark, "all of them")
    logged = [ln.split("  ", 1)[1] for ln in lines if " LOG:  " in ln]
    assert logged == [
        "statement: create table audited (id int primary key, v text)",
        "statement: update audited set v = 'b' where id = 1",
        "execute <unnamed>: insert into audited values ($1, $2)",
        "statement: select 'all of them'",
    ], lines


def test_log_min_duration_statement(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("set log_min_duration_statement = 0")
        mark = len(server.log())
        conn.execute("select 42 as answer")
        conn.execute("set log_min_duration_statement = '1h'")
        conn.execute("select 'too quick to log'")
        conn.execute("set log_min_duration_statement = 0")
        conn.execute("select 'last'")
        lines = wait_for_line(server, mark, "select 'last'")
    durations = [ln for ln in lines if "duration: " in ln]
    assert any(re.search(r" LOG:  duration: \d+\.\d{3} ms  statement: select 42 as answer$", ln)
               for ln in durations), lines
    assert not any("too quick" in ln for ln in lines)


def test_bad_queries_leave_no_traceback(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        mark = len(server.log())
        with pytest.raises(psycopg.errors.StatementTooComplex):  # 54001, as PostgreSQL
            conn.execute("select " + "(" * 5000 + "1" + ")" * 5000)
        with pytest.raises(psycopg.errors.StatementTooComplex):
            conn.execute("select " + "+".join(["1"] * 30000))
        # sqlglot warns about statements it falls back on ("contains unsupported syntax")
        with pytest.raises(psycopg.Error):
            conn.execute(  # 0A000: not supported
                "create conversion myconv for 'LATIN1' to 'UTF8' from iso8859_1_to_utf8")
        assert conn.execute("select 1").fetchone() == (1,)  # the session is fine
        conn.execute("select 'done'")
    log = server.log()[mark:]
    assert "Traceback" not in log and "RecursionError" not in log, log
    assert "sqlglot" not in log and "unsupported syntax" not in log, log
    assert len(log.splitlines()) <= 4, log  # a line per failed statement at most
