"""Starts and stops the systems under test: Cumulo, a throwaway PostgreSQL 15, the floor.

Each is a context manager that yields a `System` (host, port, DSN) and always
stops what it started, on errors and on Ctrl-C too, and removes its temp dir.
Both databases listen on 127.0.0.1 only, with trust auth, role and database
`cumulo`, so every workload connects to either one the same way.

- Cumulo runs embedded: one `cumulo serve` child on a free port, ready when its
  stderr says "ready to accept connections" (as PostgreSQL's log does).
- PostgreSQL 15 gets a fresh `initdb` in a temp dir, run as user `postgres`
  (initdb refuses root), with its stock configuration: the comparison is with
  PostgreSQL as users install it.
- The floor (`floor_server.py`) is a pgwire server that does no work at all;
  it shows how fast a Python asyncio server can possibly answer.

Children get their own session so the terminal's Ctrl-C reaches only the
harness, which then stops them in order instead of racing them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, quote, unquote, urlsplit

PG_BIN = os.environ.get("CUMULO_BENCH_PG_BIN", "/usr/lib/postgresql/15/bin")
READY = b"ready to accept connections"


@dataclass(frozen=True)
class System:
    """A running server the workloads connect to over TCP (or its Unix socket: `over_unix`)."""

    name: str  # "cumulo", "postgres" or "floor": the key in every Figure
    label: str
    host: str  # an address, or (`over_unix`) the socket's directory, as libpq takes it
    port: int
    user: str = "cumulo"
    dbname: str = "cumulo"
    log_path: str = ""
    socket_dir: str = ""  # where the server's Unix-domain socket is, if it has one here

    @property
    def dsn(self) -> str:
        """Returns a libpq URL for this server."""
        if self.host.startswith("/"):  # a socket directory goes in the query, as libpq wants
            return (f"postgresql://{self.user}@/{self.dbname}"
                    f"?host={quote(self.host, safe='/')}&port={self.port}")
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}"

    def over_unix(self) -> System:
        """The same server reached through its Unix-domain socket (libpq `-h DIR`)."""
        if not self.socket_dir:  # NB: an external server (--cumulo-url)
            raise LookupError(f"no Unix-domain socket known for {self.label}")
        return replace(self, host=self.socket_dir)

    def connect(self, autocommit: bool = True):  # -> psycopg.Connection
        """Opens a psycopg 3 connection (autocommit by default) that gives up after 30 s."""
        import psycopg

        return psycopg.connect(self.dsn, autocommit=autocommit, connect_timeout=30)

    def libpq_args(self) -> list[str]:
        """Returns the -h/-p/-U arguments of libpq tools (pgbench, psql)."""
        return ["-h", self.host, "-p", str(self.port), "-U", self.user]

    def log_tail(self, lines: int = 30) -> str:
        """Returns the last lines of the server's log, for error messages."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


def external(name: str, label: str, url: str) -> System:
    """Returns a System for a server someone else runs, from a postgresql:// URL.

    A socket directory in the query (`?host=/var/run/postgresql&port=5433`, libpq's way)
    is where `--transport unix` finds it; TCP then goes to 127.0.0.1 on the same port.
    """
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    socket_dir = query.get("host", "") if query.get("host", "").startswith("/") else ""
    return System(
        name,
        label,
        parts.hostname or "127.0.0.1",
        parts.port or int(query.get("port", 5432)),
        unquote(parts.username or "cumulo"),
        parts.path.lstrip("/") or "cumulo",
        socket_dir=socket_dir,
    )


class SystemStartError(RuntimeError):
    """A server did not come up; the message carries the tail of its log."""


def pg_bin(tool: str) -> str:
    """Returns the path of a PostgreSQL 15 binary."""
    return os.path.join(PG_BIN, tool)


def free_port() -> int:
    """Returns a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(cmd: Sequence[str]) -> list[str]:
    """Prefixes a command so it runs as user postgres when we are root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return list(cmd)


def _run(cmd: Sequence[str], what: str, timeout: float = 120) -> str:
    """Runs a setup command, raising SystemStartError with its output when it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SystemStartError(f"{what} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


@contextmanager
def postgres15(settings: dict[str, str] | None = None, keep: bool = False) -> Iterator[System]:
    """Runs a throwaway PostgreSQL 15 on a free loopback port; yields it as a System."""
    root = tempfile.mkdtemp(prefix="cumulo-bench-pg-")
    data, sock, log = (os.path.join(root, p) for p in ("data", "sock", "postgres.log"))
    os.mkdir(sock)
    if os.geteuid() == 0:
        for path in (root, sock):
            shutil.chown(path, "postgres", "postgres")
    port = free_port()
    started = False
    try:
        _run(
            _as_postgres(
                [
                    pg_bin("initdb"),
                    "-D",
                    data,
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ]
            ),
            "initdb",
        )
        opts = f"-c listen_addresses=127.0.0.1 -p {port} -k {sock}"
        for key, value in (settings or {}).items():
            opts += f" -c {key}={value}"
        started = True
        _run(
            _as_postgres(
                [pg_bin("pg_ctl"), "-D", data, "-l", log, "-w", "-t", "60", "-o", opts, "start"]
            ),
            "pg_ctl start",
        )
        _run(
            [
                pg_bin("psql"),
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-c",
                "CREATE ROLE cumulo SUPERUSER LOGIN",
                "-c",
                "CREATE DATABASE cumulo OWNER cumulo",
            ],
            "creating role and database cumulo",
        )
        yield System("postgres", "PostgreSQL", "127.0.0.1", port, log_path=log, socket_dir=sock)
    finally:
        with shielded():
            if started:
                _stop_postgres(data)
            if not keep:
                shutil.rmtree(root, ignore_errors=True)


@contextmanager
def shielded() -> Iterator[None]:
    """Defers Ctrl-C while servers stop, so a second Ctrl-C cannot leave one running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _stop_postgres(data: str) -> None:
    """Stops PostgreSQL fast, or immediately if a fast stop hangs."""
    for mode, timeout in (("fast", 60), ("immediate", 30)):
        cmd = _as_postgres(
            [pg_bin("pg_ctl"), "-D", data, "-m", mode, "-w", "-t", str(timeout), "stop"]
        )
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=timeout + 5)
        except subprocess.TimeoutExpired:
            continue
        if proc.returncode == 0 or b"Is server running?" in proc.stderr:
            return


@contextmanager
def child_server(
    cmd: Sequence[str],
    system: System,
    log_path: str,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
) -> Iterator[System]:
    """Runs cmd as a child server, waits for READY in its log, and stops it on exit."""
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            list(cmd),
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    try:
        deadline = time.monotonic() + timeout
        while True:
            with open(log_path, "rb") as f:
                if READY in f.read():
                    break
            if proc.poll() is not None:
                raise SystemStartError(
                    f"{system.label} exited with {proc.returncode} before it was ready "
                    f"({_last_line(system.log_tail())})\n{system.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise SystemStartError(
                    f"{system.label} was not ready after {timeout:.0f}s "
                    f"({_last_line(system.log_tail())})\n{system.log_tail()}"
                )
            time.sleep(0.05)
        yield system
    finally:
        with shielded():
            stop_child(proc)


def _last_line(text: str) -> str:
    """Returns the last non-blank line of a log, which usually names the error."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"


def stop_child(proc: subprocess.Popen, timeout: float = 30.0) -> int | None:
    """Stops a child with SIGTERM, then SIGKILL; returns its exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


@contextmanager
def cumulo_embedded(
    extra_args: Sequence[str] = (), keep: bool = False, timeout: float = 60.0
) -> Iterator[System]:
    """Runs `cumulo serve` on a free loopback port with a temp data dir; yields it."""
    root = tempfile.mkdtemp(prefix="cumulo-bench-")
    data, log, sock = (os.path.join(root, p) for p in ("data", "server.log", "sock"))
    os.mkdir(sock)
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "cumulo.server",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        data,
        "-c",
        f"unix_socket_directories={sock}",  # NB: beside PostgreSQL's: both in a temp dir
        *extra_args,
    ]
    system = System("cumulo", "Cumulo", "127.0.0.1", port, log_path=log, socket_dir=sock)
    try:
        with child_server(cmd, system, log, timeout) as running:
            yield running
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


@contextmanager
def floor(timeout: float = 30.0) -> Iterator[System]:
    """Runs the do-nothing pgwire floor server on a free loopback port; yields it."""
    root = tempfile.mkdtemp(prefix="cumulo-bench-floor-")
    log = os.path.join(root, "floor.log")
    port = free_port()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    )
    cmd = [sys.executable, "-m", "bench.floor_server", "--port", str(port)]
    system = System("floor", "floor", "127.0.0.1", port, log_path=log)
    try:
        with child_server(cmd, system, log, timeout, env=env) as running:
            print(f"[bench] floor ready on {running.host}:{running.port}", file=sys.stderr)
            yield running
    finally:
        shutil.rmtree(root, ignore_errors=True)
