"""The harness end to end with a real Cumulo: both systems measured, figures in JSON, a plot.

test_main.py runs the quick workloads against PostgreSQL with a Cumulo that
cannot start, and a stand-in for the success path; this one starts the real
`cumulo serve` next to PostgreSQL 15 and runs the floor and TPC-C (tiny scale:
two small warehouses, 3-second runs, 2 terminal processes) and CH-benCHmark
(answers checked against PostgreSQL's, then timed), so a change that breaks
the harness against the real server fails CI. It checks that every figure
exists and is positive on both systems, never how fast anything is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench.__main__ import main
from tests.pg15 import available

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.skipif(not available(), reason="PostgreSQL 15 binaries are not installed")
def test_floor_and_tpcc_on_both_systems(tmp_path, capsys):
    args = ["floor", "tpcc", "--scale", "0", "--seconds", "3", "--clients", "2", "--threads", "1"]
    rc = main([*args, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    [json_path] = tmp_path.glob("*.json")
    [png] = tmp_path.glob("*.png")
    assert png.stat().st_size > 1000
    data = json.loads(json_path.read_text())
    assert rc == 0, out
    assert {f["workload"] for f in data["figures"]} == {"floor", "tpcc"}
    for f in data["figures"]:
        assert not f["errors"], f
        assert f["values"]["cumulo"] > 0 and f["values"]["postgres"] > 0, f
        assert f["ratios"]["cumulo/postgres"] == f["values"]["cumulo"] / f["values"]["postgres"]
    tpmc = next(f for f in data["figures"] if f["metric"] == "tpmC")
    assert "postgres:" in tpmc["note"] and "cumulo:" in tpmc["note"] and "retries" in tpmc["note"]
    loads = [c for c in data["commands"] if "TPC-C load (COPY)" in c]
    assert len(loads) == 2 and all("order_line" in c for c in loads)
    assert "Cumulo/PostgreSQL" in out


@pytest.mark.skipif(not available(), reason="PostgreSQL 15 binaries are not installed")
def test_ch_checks_answers_then_times_on_both_systems(tmp_path, capsys):
    args = ["ch", "--scale", "0", "--seconds", "3", "--clients", "2"]
    rc = main([*args, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert rc == 0, out  # every answer matched PostgreSQL's, every figure was measured
    figures = {f["metric"]: f for f in data["figures"]}
    assert [m for m in figures if m.endswith(" alone") and m.startswith("Q")] == [
        f"Q{i} alone" for i in range(1, 23)
    ]
    assert "geometric mean of 22 of 22 queries" in figures
    for metric, f in figures.items():
        assert not f["errors"], f
        for system in ("cumulo", "postgres"):
            value = f["values"][system]
            # under analytics a loaded machine may commit no New-Order in 3 s: present, >= 0
            assert value > 0 or (value == 0 and "analytic" in metric), f
    assert any(n.startswith("ch: cumulo analytic stream:") for n in data["notes"])
    assert any("statement_timeout" in c for c in data["commands"])


def test_cumulo_bench_help_is_bench_help(tmp_path):
    # From outside the checkout, as an installed `cumulo` would run: bench's own options show.
    proc = subprocess.run(
        [sys.executable, "-m", "cumulo.server", "bench", "--help"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    assert "--seconds" in proc.stdout and "tpcc" in proc.stdout
    assert "{serve,version,bench}" not in proc.stdout  # not the cumulo command's own help
