"""The pieces workloads trust without a server: closed-form answers, row data, the progress bar."""

from __future__ import annotations

import io
from collections import defaultdict

from bench.progress import Progress
from bench.workloads import WORKLOADS, load
from bench.workloads.aggregation import expected
from bench.workloads.ingest import chunks, insert_sql, text_chunk, tuples_chunk


def test_expected_matches_brute_force():
    for rows in (1, 99, 100, 101, 250, 1234):
        brute: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        for i in range(1, rows + 1):
            brute[i % 100][0] += 1
            brute[i % 100][1] += i
        assert expected(rows) == {g: tuple(v) for g, v in brute.items()}, rows


def test_chunks_cover_every_id_once():
    ids = [i for r in chunks(250_001, 100_000) for i in r]
    assert ids == list(range(1, 250_002))


def test_text_and_tuples_are_the_same_rows():
    ids = range(98, 103)
    lines = text_chunk(ids).decode().splitlines()
    assert [tuple(line.split("\t")) for line in lines] == [
        (str(i), str(g), repr(x)) for i, g, x in tuples_chunk(ids)
    ]


def test_insert_placeholders():
    assert insert_sql("%s").endswith("VALUES (%s, %s, %s)")
    assert insert_sql(":{n}").endswith("VALUES (:1, :2, :3)")


def test_every_workload_has_the_interface():
    for name in WORKLOADS:
        module = load(name)
        assert module.NAME == name and module.DESCRIPTION and callable(module.run)


def test_progress_writes_a_line_per_tenth_off_a_terminal():
    out = io.StringIO()
    with Progress("load", 1000, stream=out) as bar:
        for _ in range(100):
            bar.advance(10)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("load [") and "0%" in lines[0]
    assert lines[-1].count("#") == Progress.WIDTH and "100%" in lines[-1]
    assert len(lines) == 11  # the start, then one per 10 %


class _FakeConn:
    def __init__(self, row):
        self.row = row

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql):
        assert "pgbench_accounts" in sql and "pgbench_branches" in sql
        return self

    def fetchone(self):
        return self.row


class _FakeSystem:
    def __init__(self, row):
        self.row = row

    def connect(self):
        return _FakeConn(self.row)


def test_tpcb_invariant_catches_lost_updates():
    import pytest

    from bench.core import BenchError
    from bench.workloads.pgbench import _check_balances

    assert _check_balances(_FakeSystem((1234, 1234, 1234)))
    assert _check_balances(_FakeSystem((None, None, None)))  # no transaction ran
    with pytest.raises(BenchError, match="balances disagree"):
        _check_balances(_FakeSystem((1234, 1200, 1234)))
