"""`CUMULO_BENCH_TPCH_QUERIES` / `CUMULO_BENCH_CH_QUERIES` pick the queries a tpch or ch run
times (`tpch.chosen`): names are case-insensitive, order is the workload's own, and an empty
list keeps every query."""

from __future__ import annotations

import doctest

from bench.workloads import tpch


def test_chosen_picks_named_queries_in_workload_order() -> None:
    qs = [(f"Q{i}", f"select {i}") for i in range(1, 23)]
    assert tpch.chosen(qs, "q19, Q8") == [("Q8", "select 8"), ("Q19", "select 19")]
    assert tpch.chosen(qs, "") == qs
    assert tpch.chosen(qs, "Q99") == []
    assert doctest.testmod(tpch).failed == 0
