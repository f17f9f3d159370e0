"""A child server that dies or never gets ready is reported with its log, and is not left running."""

from __future__ import annotations

import sys
import time

import pytest

from bench.systems import System, SystemStartError, child_server


def test_child_that_exits_is_reported_with_its_last_line(tmp_path):
    log = str(tmp_path / "log")
    system = System("cumulo", "Cumulo", "127.0.0.1", 1, log_path=log)
    cmd = [
        sys.executable,
        "-c",
        "import sys; print('boom: no such module', file=sys.stderr); sys.exit(3)",
    ]
    with pytest.raises(SystemStartError, match=r"exited with 3 .*\(boom: no such module\)"):
        with child_server(cmd, system, log, timeout=10):
            pass


def test_child_that_never_gets_ready_is_killed(tmp_path):
    log = str(tmp_path / "log")
    pidfile = tmp_path / "pid"
    system = System("cumulo", "Cumulo", "127.0.0.1", 1, log_path=log)
    cmd = [
        sys.executable,
        "-c",
        f"import os, time; open({str(pidfile)!r}, 'w').write("
        "str(os.getpid())); print('starting', flush=True); time.sleep(60)",
    ]
    start = time.monotonic()
    with pytest.raises(SystemStartError, match=r"not ready after 0s \(starting\)"):
        with child_server(cmd, system, log, timeout=0.4):
            pass
    assert time.monotonic() - start < 10
    pid = int(pidfile.read_text())
    assert not _alive(pid)


def test_ready_child_is_stopped_on_error(tmp_path):
    log = str(tmp_path / "log")
    pidfile = tmp_path / "pid"
    system = System("cumulo", "Cumulo", "127.0.0.1", 1, log_path=log)
    cmd = [
        sys.executable,
        "-c",
        f"import os, sys, time; open({str(pidfile)!r}, 'w').write("
        "str(os.getpid())); print('ready to accept connections', file=sys.stderr, flush=True);"
        " time.sleep(60)",
    ]
    with pytest.raises(RuntimeError, match="workload bug"):
        with child_server(cmd, system, log, timeout=10):
            raise RuntimeError("workload bug")
    assert not _alive(int(pidfile.read_text()))


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_external_url_names_host_port_user_and_database():
    from bench.systems import external

    s = external("cumulo", "Cumulo", "postgresql://bob@10.0.0.7:6000/shop")
    assert (s.host, s.port, s.user, s.dbname) == ("10.0.0.7", 6000, "bob", "shop")
    assert s.dsn == "postgresql://bob@10.0.0.7:6000/shop"
