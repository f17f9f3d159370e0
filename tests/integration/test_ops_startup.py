"""`cumulo serve` as an operator meets it: the data directory lock, start-up errors, --help.

Every start-up error is one line on stderr and exit code 1, never a traceback; a second
server on a data directory in use is refused (postmaster.pid), and the lock of a server
that died is taken over.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

import psycopg
import pytest

from tests.server_process import CumuloServer, free_port


def serve(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs `cumulo serve` expecting it to fail at start-up."""
    return subprocess.run([sys.executable, "-m", "cumulo.server", "serve", *args],
                          capture_output=True, text=True, timeout=timeout)


def one_line_error(out: subprocess.CompletedProcess) -> str:
    """The single stderr line of a failed start; fails the test on a traceback or more lines."""
    assert out.returncode == 1, out
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in out.stderr, out.stderr
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_second_server_on_a_data_dir_is_refused(module_server):
    line = one_line_error(serve("--port", str(free_port()), "--data-dir", module_server.data_dir))
    assert 'lock file "postmaster.pid" already exists' in line
    assert f"PID {module_server.proc.pid}" in line and "FATAL" in line
    with psycopg.connect(module_server.dsn(), autocommit=True) as conn:  # the first one serves on
        assert conn.execute("select 1").fetchone() == (1,)


def test_lock_file_names_the_server_and_goes_at_shutdown(fresh_server):
    pid_file = os.path.join(fresh_server.data_dir, "postmaster.pid")
    lines = open(pid_file).read().splitlines()
    assert lines[0] == str(fresh_server.proc.pid)
    assert lines[1] == os.path.abspath(fresh_server.data_dir)
    assert lines[3] == str(fresh_server.port)
    assert fresh_server.stop() == 0
    assert not os.path.exists(pid_file)


def test_stale_lock_of_a_killed_server_is_taken_over(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        conn.execute("create table stale (id int primary key)")
        conn.execute("insert into stale values (1), (2)")
    dead = fresh_server.proc.pid
    fresh_server.stop(signal.SIGKILL)
    pid_file = os.path.join(fresh_server.data_dir, "postmaster.pid")
    assert open(pid_file).read().split()[0] == str(dead)  # left behind by the crash
    fresh_server.start()
    assert open(pid_file).read().split()[0] == str(fresh_server.proc.pid)
    with psycopg.connect(fresh_server.dsn()) as conn:
        assert conn.execute("select count(*) from stale").fetchone() == (2,)


def test_port_in_use_is_one_line(module_server):
    d = tempfile.mkdtemp(prefix="cumulo-test-")
    line = one_line_error(serve("--port", str(module_server.port), "--data-dir", d))
    assert f'could not listen on "127.0.0.1" port {module_server.port}: Address already in use' \
        in line
    # the failed server released its own data directory: another start there works
    other = CumuloServer(data_dir=d).start()
    other.stop()


@pytest.mark.parametrize("args, expected", [
    (["--data-dir", "/etc/hostname"], "exists but is not a directory"),
    (["--data-dir", "/proc/no/such"], "could not create data directory"),
    (["-c", "no_such_setting=1"], 'unrecognized configuration parameter "no_such_setting"'),
    (["-c", "work_mem=lots"], 'invalid value for parameter "work_mem": "lots"'),
    (["-c", "work_mem"], "expected NAME=VALUE"),
    (["--memory-limit", "much"], 'invalid --memory-limit "much"'),
    (["--port", "eighty"], "argument --port: invalid int value"),
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["--ssl-cert", "/nonexistent.pem"], 'could not load TLS certificate "/nonexistent.pem"'),
])
def test_startup_errors_are_one_line(args, expected):
    if "--data-dir" not in args:
        args = ["--data-dir", tempfile.mkdtemp(prefix="cumulo-test-"), *args]
    line = one_line_error(serve("--port", str(free_port()), *args))
    assert expected in line, line


def test_bad_configuration_file_stops_the_start():
    d = tempfile.mkdtemp(prefix="cumulo-test-")
    with open(os.path.join(d, "cumulo.conf"), "w") as f:
        f.write("work_mem = 64MB\nthis is not a setting line\n")
    line = one_line_error(serve("--port", str(free_port()), "--data-dir", d))
    assert f'syntax error in file "{d}/cumulo.conf" line 2' in line


def test_damaged_data_directory_is_one_line(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        conn.execute("create table doomed (id int primary key)")
    fresh_server.stop()
    kivi = os.path.join(fresh_server.data_dir, "kivi")
    for name in os.listdir(kivi):
        if name.endswith(".ckpt"):
            with open(os.path.join(kivi, name), "wb") as f:
                f.write(b"\x00garbage")
    line = one_line_error(serve("--port", str(free_port()), "--data-dir", fresh_server.data_dir))
    assert f'could not recover data directory "{fresh_server.data_dir}"' in line, line


def test_serve_help_shows_every_option_with_its_default():
    out = subprocess.run([sys.executable, "-m", "cumulo.server", "serve", "--help"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    flat = " ".join(out.split())
    for text in ("--host HOST address to listen on", "(default: 127.0.0.1)", "(default: 5433)",
                 "(default: ./cumulo-data)", "(default: INFO)", "(default: trust)",
                 "(default: 80%)", "postmaster.pid", "-c NAME=VALUE", "cumulo.conf", "SIGHUP"):
        assert text in flat, text
    # --cluster says how the other roles start
    assert "cumulo {mastermind|kivi|logger|conflicts} --zk ZK_HOSTS" in flat
    assert "cumulo cluster up" in flat
