"""pgbench 15 against `cumulo serve`: init (COPY ... freeze on, vacuum analyze, primary keys)
and short TPC-B runs in every query mode, each message flow of `../shared/suites/pgbench`.

The runs are short (a couple of seconds each): they prove the protocol flows and the
bookkeeping (no failed transaction, balances that add up), not the speed; `python -m
bench` measures that.
"""

from __future__ import annotations

import os
import re
import subprocess

import psycopg
import pytest

PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not os.path.exists(PGBENCH), reason="PostgreSQL 15's pgbench is missing"),
]


def pgbench(server, *args: str, options: str | None = None) -> str:
    env = {**os.environ, "PGHOST": "127.0.0.1", "PGPORT": str(server.port), "PGUSER": "cumulo",
           "PGDATABASE": "cumulo"}
    if options:
        env["PGOPTIONS"] = options
    out = subprocess.run([PGBENCH, *args], capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


def failed(report: str) -> int:
    m = re.search(r"number of failed transactions: (\d+)", report)
    assert m, report
    return int(m.group(1))


def processed(report: str) -> int:
    m = re.search(r"number of transactions actually processed: (\d+)", report)
    assert m, report
    return int(m.group(1))


BALANCES = (("pgbench_accounts", "abalance"), ("pgbench_tellers", "tbalance"),
            ("pgbench_branches", "bbalance"))


def balances(server) -> list[int]:
    with psycopg.connect(server.dsn()) as conn:
        return [conn.execute(f"select sum({col}) from {table}").fetchone()[0]
                for table, col in BALANCES]


def history(server) -> tuple[int, int]:
    """The sum of the deltas and the row count of this run (pgbench truncates it first)."""
    with psycopg.connect(server.dsn()) as conn:
        return conn.execute("select coalesce(sum(delta), 0), count(*) from pgbench_history"
                            ).fetchone()


@pytest.fixture(scope="module")
def initialised(cumulo_server):
    report = pgbench(cumulo_server, "-i", "-s", "1")
    assert "vacuuming..." in report and "creating primary keys..." in report
    assert "done in" in report
    with psycopg.connect(cumulo_server.dsn()) as conn:
        assert conn.execute("select count(*) from pgbench_accounts").fetchone() == (100000,)
        assert conn.execute("select count(*) from pgbench_tellers").fetchone() == (10,)
        keys = conn.execute(
            "select conrelid::regclass::text from pg_constraint where contype = 'p' "
            "and conrelid::regclass::text like 'pgbench%' order by 1").fetchall()
        assert keys == [("pgbench_accounts",), ("pgbench_branches",), ("pgbench_tellers",)]
    return cumulo_server


@pytest.mark.parametrize("mode", ["simple", "extended", "prepared"])
def test_tpcb_in_every_query_mode(initialised, mode):
    before = balances(initialised)
    report = pgbench(initialised, "-M", mode, "-c", "4", "-j", "2", "-t", "50")
    assert failed(report) == 0
    assert processed(report) == 200
    delta, n = history(initialised)
    assert n == 200
    # TPC-B's invariant: every committed delta is in the history and in all three balances
    assert [after - b for after, b in zip(balances(initialised), before, strict=True)] == [
        delta] * 3


def test_select_only_prepared(initialised):
    report = pgbench(initialised, "-M", "prepared", "-S", "-c", "2", "-j", "1", "-t", "200")
    assert failed(report) == 0 and processed(report) == 400


def test_repeatable_read_with_retries(initialised):
    before = balances(initialised)
    report = pgbench(initialised, "-M", "prepared", "-N", "-c", "4", "-j", "2", "-t", "50",
                     "--max-tries=10",
                     options="-c default_transaction_isolation=repeatable\\ read")
    assert failed(report) == 0 and processed(report) == 200
    delta, n = history(initialised)
    assert n == 200
    after = balances(initialised)  # -N updates only the accounts
    assert [a - b for a, b in zip(after, before, strict=True)] == [delta, 0, 0]


def test_server_side_generate_init(cumulo_server):
    report = pgbench(cumulo_server, "-i", "-I", "dtGvp", "-s", "1")
    assert "server-side generate" in report
    with psycopg.connect(cumulo_server.dsn()) as conn:
        assert conn.execute("select count(*), sum(bid) from pgbench_accounts").fetchone() == (
            100000, 100000)
