"""The table shows every system, ratios and error footnotes; JSON and PNG are written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import report
from bench.core import Figure


def figures() -> list[Figure]:
    return [
        Figure("pgbench", "TPC-B tps", "tx/s", "higher", {"cumulo": 500.0, "postgres": 2000.0}),
        Figure("pgbench", "TPC-B latency", "ms", "lower", {"cumulo": 16.0, "postgres": 4.0}),
        Figure(
            "floor",
            "SELECT 1 tps",
            "q/s",
            "higher",
            {"cumulo": None, "postgres": 60000.0, "floor": 80000.0},
            errors={"cumulo": "BenchError: pgbench exited with 2"},
        ),
    ]


def test_ratio_and_speed():
    tps, latency, broken = figures()
    assert tps.ratio() == pytest.approx(0.25) and tps.speed() == pytest.approx(0.25)
    assert latency.ratio() == pytest.approx(4.0) and latency.speed() == pytest.approx(0.25)
    assert broken.ratio() is None and broken.ratio("floor") is None


def test_table_has_columns_ratios_and_footnotes():
    text = report.table(figures())
    header = text.splitlines()[0].split()
    assert header[3:] == ["Cumulo", "PostgreSQL", "floor", "Cumulo/PostgreSQL", "Cumulo/floor"]
    tps_row = next(line for line in text.splitlines() if "TPC-B tps" in line)
    assert "2,000" in tps_row and "500" in tps_row and "0.25x" in tps_row
    assert "error [1]" in text
    assert "[1] Cumulo: BenchError: pgbench exited with 2" in text


def test_the_same_error_is_one_footnote():
    figs = figures()
    for f in figs:
        f.values["cumulo"] = None
        f.errors["cumulo"] = "did not start: Cumulo exited with 1"
    text = report.table(figs)
    assert text.count("error [1]") == 3 and "[2]" not in text


def test_format():
    assert report.fmt(72454.8) == "72,455"
    assert report.fmt(12.345) == "12.3"
    assert report.fmt(0.07612) == "0.0761"
    assert report.fmt(None) == "-"


def test_json_and_png(tmp_path):
    path = report.write_json(str(tmp_path / "r.json"), {"workloads": ["x"]}, figures())
    data = json.loads(Path(path).read_text())
    assert data["workloads"] == ["x"]
    assert data["figures"][0]["ratios"]["cumulo/postgres"] == pytest.approx(0.25)
    assert data["figures"][2]["errors"]["cumulo"].startswith("BenchError")
    pytest.importorskip("matplotlib")
    png = report.write_png(str(tmp_path / "r.png"), "title", figures())
    assert png is not None
    assert Path(png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
