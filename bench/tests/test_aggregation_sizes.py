"""The aggregation workload measures the issue's two sizes unless told one size."""

from __future__ import annotations

from bench.core import Options
from bench.workloads.aggregation import SIZES, expected, sizes


def test_default_sizes_are_1m_and_10m():
    assert sizes(Options()) == SIZES == (1_000_000, 10_000_000)
    assert sizes(Options(scale=0.5)) == (500_000,)
    assert sizes(Options(rows=1234, scale=3)) == (1234,)


def test_growing_the_table_keeps_the_closed_form_answer():
    # the 10M table is the 1M one plus rows 1M+1..10M: the answers are those of 1..10M
    small, big = expected(1_000), expected(10_000)
    extra = {g: (c, s) for g, (c, s) in expected(10_000).items()}
    for g, (c, s) in small.items():
        tail = [i for i in range(1_001, 10_001) if i % 100 == g]
        assert big[g] == (c + len(tail), s + sum(tail)) == extra[g]
