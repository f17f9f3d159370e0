"""spark and locust end to end against a real PostgreSQL 15, with a Cumulo that cannot start.

Tiny sizes (2,000 rows, 1-second locust runs): this checks that the workloads
run, check their answers and report, not anybody's speed. The Spark part
needs pyspark, java and the JDBC jar; without them the test says so by
skipping, it does not pass.
"""

from __future__ import annotations

import json

import pytest

from bench.__main__ import main
from bench.workloads import spark


@pytest.mark.slow
def test_spark_and_locust_against_postgres(tmp_path, capsys):
    if why := spark.missing():
        pytest.skip(why)
    rc = main(
        [
            "spark",
            "locust",
            "--rows",
            "2000",
            "--seconds",
            "1",
            "--cumulo-arg=--no-such-flag",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 1  # Cumulo did not start
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    figures = {(f["workload"], f["metric"]): f for f in data["figures"]}
    assert set(figures) == {
        ("spark", "JDBC read, 4 partitions, 2,000 rows"),
        ("spark", "JDBC append, reWriteBatchedInserts, 2,000 rows"),
        ("spark", "cumulo source read vs PostgreSQL JDBC, 4 partitions, 2,000 rows"),
        ("spark", "cumulo source write vs PostgreSQL JDBC append, 2,000 rows"),
        ("locust", "10 users, requests/s"),
        ("locust", "10 users, p95 latency"),
        ("locust", "50 users, requests/s"),
        ("locust", "50 users, p95 latency"),
    }
    for f in figures.values():
        assert f["values"]["postgres"] > 0, f
        assert not f["errors"].get("postgres"), f
        assert "did not start" in f["errors"]["cumulo"], f
    assert any("reWriteBatchedInserts=true" in c for c in data["commands"])
    assert any("bench.locust_app" in c and " 50 1.0 " in c for c in data["commands"])
    assert "cumulo:// for both systems" in figures[("locust", "10 users, requests/s")]["note"]
    assert "spark" in out and "locust" in out
