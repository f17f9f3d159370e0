"""pgbench's summary is parsed into the right numbers, and a summary without tps is an error."""

from __future__ import annotations

import pytest

from bench.core import BenchError
from bench.pgbench_tool import parse_summary

# pgbench 15.18's stdout for a 3 s TPC-B run with -P 1 (latency stddev appears with -P).
OUTPUT = """\
pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: prepared
number of clients: 8
number of threads: 2
maximum number of tries: 1
duration: 3 s
number of transactions actually processed: 5268
number of failed transactions: 7 (0.133%)
latency average = 4.531 ms
latency stddev = 2.250 ms
initial connection time = 11.305 ms
tps = 1756.062481 (without initial connection time)
"""


def test_parse_summary():
    r = parse_summary(OUTPUT)
    assert r.tps == pytest.approx(1756.062481)
    assert r.latency_ms == pytest.approx(4.531)
    assert r.latency_stddev_ms == pytest.approx(2.25)
    assert r.transactions == 5268
    assert r.failed == 7
    assert r.connection_ms == pytest.approx(11.305)


def test_summary_without_tps_is_an_error():
    truncated = OUTPUT.rsplit("tps =", 1)[0]
    with pytest.raises(BenchError, match="no tps"):
        parse_summary(truncated)
