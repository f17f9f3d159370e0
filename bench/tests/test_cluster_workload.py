"""The `cluster` workload's pieces that need no cluster: configurations, ports and ratios.
(The workload itself starts real clusters: `python -m bench cluster`.)"""

from __future__ import annotations

import socket

from bench.pgbench_tool import PgbenchResult
from bench.workloads import cluster


def test_configurations_from_the_environment(monkeypatch):
    monkeypatch.delenv("CUMULO_BENCH_CLUSTERS", raising=False)
    assert cluster.configs() == [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2)]
    monkeypatch.setenv("CUMULO_BENCH_CLUSTERS", "3x2, 1x1")
    assert cluster.configs() == [(3, 2), (1, 1)]
    assert cluster.key(3, 2) == "cluster-3n2e"


def test_consecutive_ports_are_free():
    base = cluster.consecutive_ports(3)
    for p in range(base, base + 3):
        with socket.socket() as s:
            s.bind(("127.0.0.1", p))


def test_ratios_name_each_cluster_against_postgres_embedded_and_one_node():
    results = {"TPC-B": {"postgres": PgbenchResult(400.0), "cumulo": PgbenchResult(200.0),
                         "cluster-1n1e": PgbenchResult(50.0), "cluster-3n1e": PgbenchResult(100.0),
                         "cluster-2n2e": None}}
    lines = cluster.ratios(results)
    assert lines == [
        "cluster-1n1e TPC-B: 50 tps = 0.125x PostgreSQL, 0.250x embedded",
        "cluster-3n1e TPC-B: 100 tps = 0.250x PostgreSQL, 0.500x embedded, 2.000x 1n/1e",
    ]
