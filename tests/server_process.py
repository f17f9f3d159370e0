"""Starts and stops a real `cumulo serve` process for integration tests.

Tests talk to it over a socket with real clients, exactly as users do. The
server's stderr goes to a log file that is printed when a test fails to start
it, so a crash is never silent.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from cumulo.server.cluster.ports import port_run
from tests import reaper


def free_port() -> int:
    """Returns a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def engine_port(engines: int = 2) -> int:
    """A port P with P .. P + engines - 1 free, below the ephemeral range, for
    `cumulo cluster up --port P --engines N` (engine i listens on P + i; see
    `cumulo.server.cluster.ports` for why below)."""
    return port_run(engines)


# The session-wide server of a whole run grows past 4 GiB of address space by its end
# (numpy/pyarrow, and every test database's columnar copies); 6 GiB still refuses the
# 8 GiB string of test_serve's out-of-memory test.
MEMORY_LIMIT = 6 << 30


def _limit_memory() -> None:
    """Caps the server's address space so a runaway query fails alone, not the test machine."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _temp_data_dir() -> str:
    """A data dir for a server that names none, removed when the test process exits: many
    tests stop their own servers and leave the directory (tens of MB each, every run)."""
    path = tempfile.mkdtemp(prefix="cumulo-test-")
    atexit.register(shutil.rmtree, path, True)
    return path


@dataclass
class CumuloServer:
    """A `cumulo serve` child process on 127.0.0.1."""

    data_dir: str = field(default_factory=_temp_data_dir)
    port: int = field(default_factory=free_port)
    extra_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen | None = None
    log_path: str = ""
    pid_file: str = ""  # NB: tests/reaper.py stops the server if its test run is killed

    @property
    def host(self) -> str:
        return "127.0.0.1"

    def dsn(self, user: str = "cumulo", dbname: str = "cumulo", password: str | None = None) -> str:
        auth = user if password is None else f"{user}:{password}"
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{dbname}"

    def start(self, timeout: float = 30.0) -> CumuloServer:
        """Starts the server and waits until it logs that it accepts connections."""
        self.log_path = os.path.join(self.data_dir, "server.log")
        log = open(self.log_path, "ab")
        offset = log.tell()  # NB: a restart appends; only this run's lines count
        cmd = [
            sys.executable,
            "-m",
            "cumulo.server",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            self.data_dir,
            # NB: the session-wide server outlives many tests' connections; a test of the
            # limit itself sets its own (a later -c wins)
            "-c",
            "max_connections=1000",
            *self.extra_args,
        ]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=log, preexec_fn=_limit_memory)
        self.pid_file = reaper.register("cumulo", self.proc.pid, self.data_dir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"cumulo serve exited with {self.proc.returncode}:\n{self.log()}"
                )
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                ready = b"ready to accept connections" in f.read()
            if ready:
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"cumulo serve did not become ready in {timeout}s:\n{self.log()}")

    def log(self) -> str:
        """Returns what the server wrote to stderr so far."""
        try:
            return open(self.log_path, encoding="utf-8", errors="replace").read()
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 90.0) -> int | None:
        """Stops the server with `sig` (SIGKILL simulates a crash) and returns its exit code.

        The wait is generous because an orderly shutdown writes a final checkpoint: the
        session-wide server holds every integration test's data, and on a loaded 2-core
        machine that took 19 s once, which a 20 s wait turned into a teardown error.
        """
        if self.proc is None or self.proc.poll() is not None:
            reaper.unregister(self.pid_file)
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"cumulo serve ignored signal {sig}:\n{self.log()}") from None
        finally:
            if self.proc.poll() is not None:
                reaper.unregister(self.pid_file)

    def restart(self) -> CumuloServer:
        """Stops the server cleanly and starts it again on the same data dir and port."""
        self.stop()
        return self.start()


# The front end `cumulo serve` runs without --frontend (server/cli.py), the session server's.
DEFAULT_FRONTEND = os.environ.get("CUMULO_FRONTEND", "loop")


@contextlib.contextmanager
def on_frontend(frontend: str, shared: CumuloServer) -> Iterator[CumuloServer]:
    """`shared` (the session's server) if it runs `frontend`, else a server of its own that
    does, stopped and removed at the end: a module that checks both front ends starts one."""
    if frontend == DEFAULT_FRONTEND:
        yield shared
        return
    server = CumuloServer(extra_args=["--frontend", frontend]).start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
