"""Pid files for the servers tests start, so the servers of a killed test run are reaped.

A test run killed from outside (a CI timeout, a helper's `timeout`, SIGKILL) never
reaches its fixtures' teardown, and the `cumulo serve` and PostgreSQL 15 servers it
started keep running, each holding memory and some CPU, until someone notices. So
every server a fixture starts gets a pid file here, naming the server's pid, its
start time, the directory it was started for, and the pid and start time of the
process that owns it (the test run). `stop()` removes the file. At the start of the
next test session `reap_stale()` stops the servers whose owner is gone. A cluster
(`cumulo cluster up`, many processes that a supervisor restarts) is recorded by its
directory alone: it is stopped with `cumulo cluster down`, and then any process whose
command line still names that directory (a unique temp dir) is killed.

What is never touched: a process without a pid file here; a process whose start
time or command line no longer match its file (the pid was reused); the servers of
a test run that is still going (several runs share this machine). A reaped
server's directory is removed only if it is one of the fixtures' own temp dirs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PID_DIR = os.environ.get("CUMULO_TEST_PID_DIR") or os.path.join(
    tempfile.gettempdir(), "cumulo-test-pids")

# The prefixes of the temp dirs the fixtures make (tests/server_process.py, tests/pg15.py).
_OWN_DIRS = ("cumulo-test-", "cumulo-pg15-", "cumulo-cluster-up-")


def fast_tempdir() -> str:
    """Where the fixtures put the files of servers they start and throw away: tmpfs when the
    machine has a writable one. Copying a PostgreSQL 15 data dir (46 MB) to /tmp on an ext4
    disk mounted with `discard` took 0.7-0.9 s of system time here, to /dev/shm 0.06 s.
    A small one (a container's 64 MB default) is not used: a template and a copy need ~100 MB,
    more when several test runs share the machine."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        st = os.statvfs(shm)
        if st.f_bavail * st.f_frsize >= 2 << 30:
            return shm
    return tempfile.gettempdir()


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None if it is gone (or a zombie).

    >>> start_time(os.getpid()) == start_time(os.getpid()) is not None
    True
    """
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else int(fields[19])


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def register(kind: str, pid: int, path: str) -> str:
    """Records a server just started (`kind` is "cumulo", "pg15" or "cluster"; `path` a
    directory its command line names; a cluster's pid is 0) or a fixture's temp dir that no
    process runs in (another kind, pid 0: only the directory is removed); returns the pid
    file, for `unregister`."""
    os.makedirs(PID_DIR, exist_ok=True)
    record = {"kind": kind, "pid": pid, "start": start_time(pid), "path": path,
              "owner": os.getpid(), "owner_start": start_time(os.getpid())}
    file = os.path.join(PID_DIR, f"{kind}-{pid or os.path.basename(path.rstrip('/'))}.json")
    with open(file + ".tmp", "w") as f:
        json.dump(record, f)
    os.replace(file + ".tmp", file)
    return file


def unregister(file: str) -> None:
    """Forgets a server that was stopped."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(file)


def _alive(pid: int, start: int | None) -> bool:
    return start is not None and start_time(pid) == start


def _own_dir(path: str) -> bool:
    """A temp dir that a fixture made (and nothing else could have)."""
    path = path.rstrip("/")
    return (os.path.dirname(path) in (tempfile.gettempdir(), fast_tempdir())
            and os.path.basename(path).startswith(_OWN_DIRS))


def _naming(path: str) -> list[int]:
    """The live processes whose command line names `path`."""
    return [int(p) for p in os.listdir("/proc")
            if p.isdigit() and start_time(int(p)) is not None and path in _cmdline(int(p))]


def _stop_cluster(path: str) -> bool:
    """`cumulo cluster down` for the cluster in `path`, then SIGKILL for what is left."""
    if not _naming(path):
        return False
    if os.path.exists(os.path.join(path, "cluster.json")):  # NB: the launcher's record
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run([sys.executable, "-m", "cumulo.server.cli", "cluster", "down",
                            "--data-dir", path, "--timeout", "5"], capture_output=True,
                           timeout=60)
    for pid in _naming(path):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return True


def reap_stale() -> list[str]:
    """Stops the servers whose owning test run is gone; returns what it did, one line each."""
    done: list[str] = []
    try:
        names = sorted(os.listdir(PID_DIR))
    except FileNotFoundError:
        return done
    for name in names:
        file = os.path.join(PID_DIR, name)
        try:
            with open(file) as f:
                rec = json.load(f)
            pid, path = int(rec["pid"]), str(rec["path"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # NB: being written, or not ours to judge
        if _alive(int(rec["owner"]), rec["owner_start"]):
            continue  # its test run is still going
        if rec["kind"] == "cluster":
            # NB: only a fixture's own temp dir, a name no other process's command line has
            if _own_dir(path) and _stop_cluster(path):
                done.append(f"stopped cluster ({path})")
        elif _alive(pid, rec["start"]) and path and path in _cmdline(pid):
            # NB: SIGQUIT is PostgreSQL's immediate shutdown (the postmaster takes its
            # children with it); a test's cumulo server has nothing worth a clean stop.
            os.kill(pid, signal.SIGQUIT if rec["kind"] == "pg15" else signal.SIGKILL)
            done.append(f"stopped {rec['kind']} server {pid} ({path})")
            deadline = time.monotonic() + 10
            while _alive(pid, rec["start"]) and time.monotonic() < deadline:
                time.sleep(0.05)  # NB: not our child: its files are removed once it is gone
        if rec["kind"] == "pg15":
            path = os.path.dirname(path.rstrip("/"))  # NB: the pid file names <root>/data
        if _own_dir(path):
            shutil.rmtree(path, ignore_errors=True)
        unregister(file)
    return done
