"""The `workers` workload's parts that need no server: configurations, client shares,
the CPU of a process tree read from /proc, counting a window's transactions, and the notes."""

from __future__ import annotations

import doctest
import os
import socket
import sys
import time

import pytest

from bench.systems import System
from bench.workloads import workers
from bench.workloads.workers import Group, Run, Window, notes


def test_doctests() -> None:
    assert doctest.testmod(workers).failed == 0


def test_a_bad_configuration_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUMULO_BENCH_WORKERS", "shared-2,threads-4")
    with pytest.raises(ValueError, match="threads-4"):
        workers.configs()


def test_group_cpu_is_read_from_proc_by_kind() -> None:
    group = Group("me", [System("me", "me", "127.0.0.1", 0)], {os.getpid(): "engine"})
    before = group.cpu_seconds()["engine"]
    end = time.process_time() + 0.05
    while time.process_time() < end:  # burn some CPU in this process
        pass
    assert group.cpu_seconds()["engine"] >= before + 0.03


def test_window_counts_the_seconds_that_ended_inside_it() -> None:
    w = Window()
    w.lines = [(10.0, 100.0), (11.0, 200.0), (12.0, 300.0), (13.0, 400.0)]
    assert w.transactions(10.0, 12.0) == 500.0  # the seconds ending at 11 and 12
    assert w.transactions(9.0, 13.0) == 1000.0


def test_notes_give_ratios_to_the_paired_postgres_run_and_to_one_process() -> None:
    results = {"TPC-B": {
        "postgres@cumulo": Run(1000.0, 300.0, 0, 2.0, {"server": 300.0}),
        "cumulo": Run(700.0, 900.0, 0, 2.0, {"server": 900.0}),
        "postgres@shared-2": Run(900.0, 310.0, 0, 3.0, {"server": 310.0}),
        "shared-2": Run(90.0, 8000.0, 0, 3.0, {"engine": 4000.0, "mastermind": 2000.0,
                                               "kivi": 2000.0}),
    }}
    out = notes(results)
    assert len(out) == 2
    assert out[0].startswith("TPC-B cumulo: 700 tps, 900 us CPU/tx, load 2.0 = 0.70x PostgreSQL")
    assert "(engine 4000, mastermind 2000, kivi 2000)" in out[1]
    assert "0.10x PostgreSQL (900 tps" in out[1] and "0.13x one process" in out[1]


def test_a_round_trip_to_an_echo_child_costs_cpu_on_both_sides() -> None:
    client, server = workers.round_trip([sys.executable, "-c", workers.ECHO], _echo, n=500)
    assert 0 < client < 10_000 and 0 < server < 10_000


def _echo(host: str, port: int):
    sock = socket.create_connection((host, port))

    def call() -> bytes:
        sock.sendall(b"ping")
        return sock.recv(16)

    return call, sock.close
