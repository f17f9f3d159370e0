"""txn-micro runs in process, starts no server, and yields every figure with a value."""

from __future__ import annotations

import json

from bench.__main__ import main


def test_txn_micro_figures(tmp_path, capsys):
    rc = main(["txn-micro", "--seconds", "0.05", "--out", str(tmp_path)])
    assert rc == 0
    [path] = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    metrics = {f["metric"]: f["values"]["cumulo"] for f in data["figures"]}
    assert len(metrics) == 8
    assert all(v is not None and v > 0 for v in metrics.values()), metrics
    assert "starting" not in capsys.readouterr().err  # no PostgreSQL, no cumulo serve
