"""tests/reaper.py: the servers of a killed test run are stopped at the next session start,
and nothing else is: not a live run's servers, not a process that reused a pid."""

from __future__ import annotations

import doctest
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from tests import reaper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
SLEEPER = "import time; time.sleep(120)"

# A test run that starts a server (a stand-in that sleeps, its directory on its command
# line as a real server's is), records it as the fixtures do, and is killed before its
# teardown: os._exit skips every finally.
KILLED_RUN = f"""
import os, subprocess, sys
from tests import reaper
p, q = (subprocess.Popen([sys.executable, "-c", {SLEEPER!r}, d],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for d in sys.argv[1:3])
reaper.register("cumulo", p.pid, sys.argv[1])
reaper.register("cluster", 0, sys.argv[2])  # NB: by its directory, as a cluster is
reaper.register("pg15-template", 0, sys.argv[3])  # NB: a directory no process runs in
print(p.pid, q.pid, flush=True)
os._exit(0)
"""


def test_only_the_servers_of_a_gone_run_are_reaped(tmp_path, monkeypatch):
    pid_dir = str(tmp_path / "pids")
    monkeypatch.setattr(reaper, "PID_DIR", pid_dir)
    dirs = {k: tempfile.mkdtemp(prefix="cumulo-test-") for k in ("orphan", "live", "reused")}
    dirs["cluster"] = tempfile.mkdtemp(prefix="cumulo-cluster-up-")
    dirs["template"] = tempfile.mkdtemp(prefix="cumulo-pg15-")
    live = subprocess.Popen([sys.executable, "-c", SLEEPER, dirs["live"]])
    reused = subprocess.Popen([sys.executable, "-c", SLEEPER, dirs["reused"]])
    try:
        out = subprocess.run([sys.executable, "-c", KILLED_RUN, dirs["orphan"],
                              dirs["cluster"], dirs["template"]], cwd=ROOT,
                             env={**os.environ, "CUMULO_TEST_PID_DIR": pid_dir,
                                  "PYTHONPATH": ROOT},
                             capture_output=True, text=True, check=True)
        orphan, in_cluster = map(int, out.stdout.split())
        with open(os.path.join(pid_dir, f"cumulo-{orphan}.json")) as f:
            gone_owner = json.load(f)
        assert reaper.start_time(orphan) is not None and reaper.start_time(in_cluster) is not None
        live_file = reaper.register("cumulo", live.pid, dirs["live"])
        # the pid of a server of the killed run, now another process's (its start time differs)
        with open(os.path.join(pid_dir, f"cumulo-{reused.pid}.json"), "w") as f:
            json.dump({**gone_owner, "pid": reused.pid, "path": dirs["reused"],
                       "start": reaper.start_time(reused.pid) - 1}, f)

        assert sorted(reaper.reap_stale()) == [f"stopped cluster ({dirs['cluster']})",
                                               f"stopped cumulo server {orphan} ({dirs['orphan']})"]

        assert reaper.start_time(orphan) is None
        deadline = time.monotonic() + 10  # NB: killed, then collected by whoever adopted it
        while reaper.start_time(in_cluster) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reaper.start_time(in_cluster) is None
        assert not os.path.exists(dirs["cluster"]) and not os.path.exists(dirs["template"])
        assert live.poll() is None and reused.poll() is None
        assert not os.path.exists(dirs["orphan"]) and not os.path.exists(dirs["reused"])
        assert os.path.exists(dirs["live"])
        assert os.listdir(pid_dir) == [os.path.basename(live_file)]
        assert reaper.reap_stale() == []  # the live run's server stays
        reaper.unregister(live_file)
        assert os.listdir(pid_dir) == []
    finally:
        for p in (live, reused):
            p.kill()
            p.wait()
        for d in dirs.values():
            shutil.rmtree(d, ignore_errors=True)


def test_reaper_doctests():
    assert doctest.testmod(reaper).failed == 0
