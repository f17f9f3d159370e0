"""The htap workload's reading of pgbench's per-transaction logs (`-l`): the p99 and the
longest transaction (the longest OLTP stall) over every client thread's file."""

from __future__ import annotations

import doctest
from pathlib import Path

from bench.workloads import htap


def test_doctests() -> None:
    assert doctest.testmod(htap).failed == 0


def test_latencies_over_several_logs(tmp_path: Path) -> None:
    # pgbench -l: client_id transaction_no time(us) script_no time_epoch time_us
    a = tmp_path / "log.1"
    b = tmp_path / "log.1.1"
    a.write_text("".join(f"0 {i} {500 + i} 0 1700000000 {i}\n" for i in range(150)))
    b.write_text("".join(f"1 {i} {900 + i} 0 1700000000 {i}\n" for i in range(49))
                 + "1 49 250000 0 1700000000 9\n" + "garbage line\n")
    got = htap.read_latencies([str(a), str(b)])
    assert got.count == 200
    assert got.max == 250.0  # the one stall of 250 ms
    assert got.p99 is not None and 0.9 < got.p99 < 1.0  # the 198th of 200, in ms


def test_no_transactions() -> None:
    assert htap.read_latencies([]) == htap.Latencies()


def test_queries_touch_only_pgbench_tables() -> None:
    for q in htap.QUERIES:
        assert "pgbench_" in q and q.lstrip().upper().startswith("SELECT")
