"""End to end: every workload runs against a real PostgreSQL 15, a Cumulo that cannot start is
reported rather than fatal, and Ctrl-C stops every server the harness started.

`--cumulo-arg=--no-such-flag` makes `cumulo serve` exit at argument parsing, so
the failure path is tested the same way whether or not the server works yet.
The sizes are tiny: these check the harness, not anybody's speed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

from bench.__main__ import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# The workloads that take seconds at tiny sizes; tpcc and ch (test_tpcc.py), spark and locust
# (test_spark_locust.py) have end-to-end tests of their own, as `all` would take minutes here.
QUICK = ["pgbench", "ingest", "aggregation", "floor"]


def test_quick_workloads_against_postgres(tmp_path, capsys):
    rc = main(
        [
            *QUICK,
            "--scale",
            "1",
            "--rows",
            "3000",
            "--seconds",
            "1",
            "--clients",
            "2",
            "--threads",
            "1",
            "--cumulo-arg=--no-such-flag",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 1  # Cumulo did not start, and the exit code says so
    [json_path] = tmp_path.glob("*.json")
    assert list(tmp_path.glob("*.png"))
    data = json.loads(json_path.read_text())
    assert data["workloads"] == QUICK
    assert set(data["loadavg_after"]) == set(QUICK)  # what each workload ran beside
    assert all(len(avg) == 3 for avg in data["loadavg_after"].values())
    assert {f["workload"] for f in data["figures"]} == set(QUICK)
    for f in data["figures"]:
        assert f["values"]["postgres"] > 0, f
        assert "did not start" in f["errors"]["cumulo"], f
        assert f["ratios"]["cumulo/postgres"] is None
    floor = [f for f in data["figures"] if f["workload"] == "floor"]
    assert all(f["values"]["floor"] > 0 for f in floor)
    assert any("executemany used" in n for n in data["notes"])
    assert any(c.endswith("-T 1 -P 1 cumulo") for c in data["commands"])
    assert "Cumulo/PostgreSQL" in out and "Cumulo/floor" in out
    assert "did not start: Cumulo exited with 1" in out  # a bad option is one FATAL line, exit 1


def test_ctrl_c_stops_every_server(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "bench",
        "floor",
        "--seconds",
        "60",
        "--systems",
        "postgres",
        "--out",
        str(tmp_path),
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    ports = {}
    try:
        for line in proc.stderr:
            if m := re.match(r"\[bench\] (\w+) ready on 127\.0\.0\.1:(\d+)", line):
                ports[m.group(1)] = int(m.group(2))
            if line.startswith("floor") and "SELECT 1 [" in line:
                break  # pgbench is running against the floor
        assert set(ports) == {"postgres", "floor"}, ports
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(30)
        rest = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert rc == 130
    assert "interrupted" in rest
    for name, port in ports.items():
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0, f"{name} still listens on {port}"
    assert not list(tmp_path.iterdir())  # no results from an interrupted run


def test_ratios_when_cumulo_answers(tmp_path, capsys):
    # A second floor stands in for a working Cumulo (through --cumulo-url): the success path.
    from bench.systems import floor

    with floor() as stand_in:
        rc = main(
            [
                "floor",
                "--seconds",
                "1",
                "--clients",
                "2",
                "--threads",
                "1",
                "--systems",
                "cumulo",
                "--cumulo-url",
                stand_in.dsn,
                "--out",
                str(tmp_path),
            ]
        )
    out = capsys.readouterr().out
    assert rc == 0
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    tps = next(f for f in data["figures"] if f["unit"] == "q/s")
    assert set(tps["values"]) == {"floor", "cumulo"} and not tps["errors"]
    assert sum(c.endswith("-T 1 -P 1 cumulo") for c in data["commands"]) == 2
    assert tps["ratios"]["cumulo/floor"] == tps["values"]["cumulo"] / tps["values"]["floor"]
    assert f"{tps['ratios']['cumulo/floor']:.3g}x" in out
