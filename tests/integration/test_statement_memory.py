"""A statement that holds more than its memory budget fails alone, with 53200.

`cumulo.statement_mem` is the budget of each sort, hash and materialised
result of a statement, like PostgreSQL's work_mem (`exec/memguard.py`). Session A lowers
its own and runs a big sort while session B, on another client library, keeps
querying: A's statement ends with 53200 "out of memory", B's answers stay
right throughout, and A's session carries on, including the same sort once
the budget is back at its default.
"""

from __future__ import annotations

import threading

import pg8000.dbapi
import psycopg
import pytest

BIG_SORT = "select g, repeat('x', 40) from generate_series(1, 300000) g order by g desc"


def test_a_statement_over_its_budget_fails_alone(cumulo_server):
    a = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    b = pg8000.dbapi.connect(host=cumulo_server.host, port=cumulo_server.port, user="cumulo",
                             database="cumulo")
    b.autocommit = True
    stop = threading.Event()
    answers: list[object] = []

    def other_session() -> None:
        cur = b.cursor()
        while not stop.is_set() or not answers:
            cur.execute("select count(*), sum(g) from generate_series(1, 1000) g")
            answers.append(tuple(cur.fetchone()))

    t = threading.Thread(target=other_session)
    t.start()
    try:
        a.execute("set cumulo.statement_mem = '8MB'")
        assert a.execute("show cumulo.statement_mem").fetchone() == ("8MB",)
        with pytest.raises(psycopg.errors.OutOfMemory) as err:
            a.execute(BIG_SORT).fetchall()
        assert err.value.sqlstate == "53200"
        assert err.value.diag.message_primary == "out of memory"
        assert "passed cumulo.statement_mem (8192 kB)" in (err.value.diag.message_detail or "")
        assert a.execute("select 1").fetchone() == (1,)  # the session goes on
        # smaller statements fit in the same budget
        assert len(a.execute(BIG_SORT.replace("300000", "1000")).fetchall()) == 1000
        a.execute("reset cumulo.statement_mem")  # -1: half of the server's limit
        rows = a.execute(BIG_SORT).fetchall()
        assert len(rows) == 300000 and rows[0][0] == 300000
    finally:
        stop.set()
        t.join()
        a.close()
        b.close()
    assert answers and set(answers) == {(1000, 500500)}


def test_a_lateral_side_run_again_starts_from_zero(cumulo_server):
    """The budget is per execution of an operator: a LATERAL subquery sorted once per outer
    row does not add up across rows (1,000 runs of 2,000 rows, under a 1MB budget)."""
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("set cumulo.statement_mem = '1MB'")
        got = c.execute("select count(*), sum(s.v) from generate_series(1, 1000) o, lateral "
                        "(select o + g as v from generate_series(1, 2000) g order by 1 desc) s"
                        ).fetchone()
        assert got == (2_000_000, 1000 * 2000 * 1001 // 2 + 1000 * 2000 * 2001 // 2)


def test_statement_mem_in_pg_settings(cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("set cumulo.statement_mem = '1GB'")
        assert c.execute("select setting, unit from pg_settings "
                         "where name = 'cumulo.statement_mem'").fetchone() == ("1048576", "kB")
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            c.execute("set cumulo.statement_mem = 'lots'")
