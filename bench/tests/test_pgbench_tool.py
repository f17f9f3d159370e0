"""pgbench's summary is parsed into the right numbers, and a summary without tps is an error."""

from __future__ import annotations

import pytest

from bench import pgbench_tool
from bench.core import BenchError, Options, RunContext
from bench.pgbench_tool import alternate, parse_summary, tps_and_latency
from bench.systems import System

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


def test_alternate_takes_turns_and_reports_medians(monkeypatch):
    calls = []
    tps = {"postgres": iter([100.0, 300.0, 200.0]), "cumulo": iter([10.0, 30.0])}

    def fake_pgbench(ctx, system, args, label, seconds=None, rows=None, timeout=None, meter=None):
        calls.append(system.name)
        value = next(tps[system.name], None)
        if value is None:
            raise BenchError("pgbench exited with 2: server closed the connection")
        return OUTPUT.replace("1756.062481", str(value))

    monkeypatch.setattr(pgbench_tool, "pgbench", fake_pgbench)
    pg, cu = System("postgres", "PostgreSQL", "h", 1), System("cumulo", "Cumulo", "h", 2)
    ctx = RunContext([pg, cu], Options(seconds=1, repeat=3), "/tmp")
    results = alternate(ctx, [pg, cu], "TPC-B", ["-S"])
    assert calls == ["postgres", "cumulo", "postgres", "cumulo", "postgres", "cumulo"]
    assert results["postgres"].tps == 200.0 and results["postgres"].failed == 21
    assert results["cumulo"] is None  # failed in round 3: no figure from a broken system
    tps_fig, latency_fig = tps_and_latency(ctx, "pgbench", "TPC-B", "tx/s", "TPC-B", results)
    assert tps_fig.metric == "TPC-B (median of 3) tps"
    assert tps_fig.values == {"postgres": 200.0, "cumulo": None}
    assert "server closed the connection" in tps_fig.errors["cumulo"]
    assert latency_fig.better == "lower" and latency_fig.values["postgres"] == pytest.approx(4.531)


def test_cost_ignores_a_last_sample_taken_after_the_clients_left():
    from bench.server_cost import CostMeter, Sample

    meter = CostMeter(None)
    meter.first = (Sample(1.0, {1: 10, 2: 100, 3: 100}), 0.0)
    meter.prev = (Sample(2.0, {1: 12, 2: 600, 3: 600}), 1000.0)
    meter.last = (Sample(2.5, {1: 13}), 1400.0)  # the connection threads 2 and 3 have ended
    cost = meter.result()
    assert cost is not None
    assert cost.switches_per_tx == 1002 / 1000 and round(cost.cpu_us_per_tx) == 1000
    meter.last = (Sample(2.5, {1: 13, 2: 700, 3: 700}), 1400.0)  # still connected: the last
    assert meter.result().switches_per_tx == 1203 / 1400
