"""The README table generator: every figure a row, errors and notes as footnotes, ratios kept."""

from __future__ import annotations

import json

from bench.core import Figure
from bench.summary import main, markdown


def _run(*figures: Figure) -> dict:
    return {"argv": ["x"], "started": "t0", "figures": [f.to_json() for f in figures]}


def test_rows_ratios_and_footnotes(tmp_path, capsys):
    tps = Figure("pgbench", "TPC-B tps", "tx/s", "higher", {"cumulo": 500.0, "postgres": 1000.0})
    q5 = Figure("ch", "Q5 alone", "s", "lower", {"cumulo": None, "postgres": 0.25},
                {"cumulo": "over the 60 s cap"}, note="a note")
    floor = Figure("floor", "SELECT 1 tps", "q/s", "higher",
                   {"cumulo": 1.0, "postgres": 2.0, "floor": 4.0})
    q6 = Figure("ch", "Q6 alone", "s", "lower", {"cumulo": 2.0, "postgres": 1.0}, note="a note")
    text = markdown([_run(tps), _run(q5, floor, q6)])
    lines = text.splitlines()
    assert lines[0] == "| workload | figure | PostgreSQL 15 | floor | Cumulo | Cumulo/PostgreSQL |"
    assert "| pgbench | TPC-B tps (tx/s, higher is better) | 1,000 |  | 500.0 | 0.5x |" in lines
    q5_row = next(ln for ln in lines if "Q5" in ln)
    assert "error [1]" in q5_row and "better) [2]" in q5_row and q5_row.endswith("|  |")
    assert "1. Cumulo: over the 60 s cap" in lines and "2. ch: a note" in lines
    assert "| 2.00 | 4.00 | 1.00 | 0.5x |" in next(ln for ln in lines if "SELECT 1" in ln)
    assert "Q6 alone (s, lower is better) [2] |" in text and "3." not in text  # one note, one number
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**_run(tps), "loadavg_after": {"pgbench": [3.5, 2.0, 1.25]}}))
    assert main([str(path)]) == 0
    printed = capsys.readouterr().out
    assert "TPC-B tps" in printed and "after each workload: pgbench 3.5 2.0 1.2" in printed
