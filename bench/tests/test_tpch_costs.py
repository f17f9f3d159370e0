"""The tpch workload's cost figures: each timed query also gives the median of the server's
CPU seconds over its runs, and a server that is not ours to see (no process listening on
its port here) gives nan CPU and no peak RSS rather than failing the run."""

from __future__ import annotations

import math
import socket
from types import SimpleNamespace

from bench.workloads import tpch


def test_median_notes_the_median_server_cpu() -> None:
    ticks = iter([0.0, 1.0, 1.0, 4.0, 4.0, 6.0])
    cpu: dict[str, float] = {}
    wall = tpch._median(lambda sql: None, "select 1", 0.1, lambda: next(ticks), cpu)
    assert cpu == {"select 1": 2.0} and wall >= 0


def test_a_server_not_ours_gives_nan_cpu_and_no_rss() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: no pid to read
    system = SimpleNamespace(port=port)
    assert math.isnan(tpch.server_clock(system)())  # type: ignore[arg-type]
    assert tpch.peak_rss(system) is None  # type: ignore[arg-type]
