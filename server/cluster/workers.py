"""`cumulo serve --cluster ZK --workers N`: N query-engine processes behind one port.

Why: one Python process runs Python on one core at a time (the GIL), so a query engine
cannot use a second core however many connections it serves. Several engine processes
can, and cluster mode already lets several engines share storage, transactions and the
catalog (`cluster.opencluster`: each engine is an LTM of its own over the remote KiVi
nodes, conflict managers and loggers; timestamps, snapshots and the global wait-for
graph come from the MasterMind; DDL reaches every engine before it returns,
`cluster.catalogsync`; sequences come in blocks from the MasterMind, `cluster.seqmarks`).
What `--workers` adds is one address for all of them: every engine listens on the same
host and port with SO_REUSEPORT, and the kernel spreads new connections over them, so a
client (pgbench, a pool) needs no load balancer and no list of ports.

The process the operator started (the first engine) starts the other N-1 as its
children at once, so that they load the SQL layer while it joins the cluster:

    cumulo serve --cluster ZK --host H --port P --data-dir D/workers/<i> --worker-of <pid> ...

with the same options and a copy of D's configuration files (cumulo.conf,
cumulo.auto.conf, cumulo_hba.conf), in a session of their own. A child joins only when
the parent writes "GO" on its stdin, once the parent has joined: the first LTM to join
resets the conflict managers (`ClusterTxnManager(reset_conflicts=...)`), and a reset
after another engine began writing would forget its locks. The parent listens only once
every child has told it, on the child's stdout, that it serves: from the first
"ready to accept connections" on, every engine takes connections. A child stops when
its stdin (a pipe from the parent) reaches end of file: also when the parent was
SIGKILLed. The parent passes its own shutdown signal on (SIGTERM: smart, SIGINT: fast)
and waits for the children before it exits.

A CancelRequest is a new connection, which the kernel may hand to another engine than
the session's. An engine that does not know the key passes it on (`CancelRelay`): each
engine of the group reads datagrams on a Unix socket in its data directory
(`CANCEL_SOCKET`), and an unknown key is sent to every other engine's, which cancels
the session if it is its own (and never passes it further).

SIGHUP to the parent copies its configuration files to the children again and passes
the signal on, so that every engine reloads the same settings.

Limits (as with several engines on several ports, `cumulo cluster up --engines N`):
pg_stat_activity, pg_cancel_backend and pg_terminate_backend see the sessions of the
engine they run on; ALTER SYSTEM writes the cumulo.auto.conf of the engine it runs on
(the parent's reaches the children at the next SIGHUP; a child's is overwritten then). A child that dies is not restarted; its clients reconnect, and the
kernel gives them to the engines that still listen.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import logging
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable

from .launcher import cumulo_command

READY_LINE = b"WORKER READY\n"  # what a child writes on its stdout once it serves
GO_LINE = b"GO\n"  # what the parent writes on a child's stdin once it has joined
CONFIG_FILES = ("cumulo.conf", "cumulo.auto.conf", "cumulo_hba.conf")
CANCEL_SOCKET = ".s.cumulo.cancel"  # in each engine's data dir (see `CancelRelay`)
_KEY = struct.Struct("!ii")  # a cancel key: (backend pid, secret)
log = logging.getLogger("cumulo.workers")


class WorkerError(Exception):
    """A worker could not start (one line, plus the end of its output if any)."""


def child_argv(args: argparse.Namespace, data_dir: str, parent: int) -> list[str]:
    """The command line of one child engine: the parent's serve options, its own data dir.

    >>> ns = argparse.Namespace(cluster="zk:2181", host="127.0.0.1", port=5433, auth="trust",
    ...     require_password=False, ssl_cert=None, ssl_key=None, memory_limit="80%",
    ...     zk_session_timeout=10.0, gc_interval=30.0, frontend="threads", log_level="INFO",
    ...     settings=["work_mem=8MB"])
    >>> child_argv(ns, "/d/workers/1", 42)[2:]  # doctest: +NORMALIZE_WHITESPACE
    ['serve', '--cluster', 'zk:2181', '--host', '127.0.0.1', '--port', '5433',
     '--data-dir', '/d/workers/1', '--worker-of', '42', '--auth', 'trust',
     '--memory-limit', '80%', '--zk-session-timeout', '10.0', '--gc-interval', '30.0',
     '--frontend', 'threads', '--log-level', 'INFO', '-c', 'work_mem=8MB']
    """
    argv = [*cumulo_command(), "serve", "--cluster", args.cluster, "--host", args.host,
            "--port", str(args.port), "--data-dir", data_dir, "--worker-of", str(parent),
            "--auth", args.auth, "--memory-limit", args.memory_limit,
            "--zk-session-timeout", str(args.zk_session_timeout),
            "--gc-interval", str(args.gc_interval), "--frontend", args.frontend,
            "--log-level", args.log_level]
    if args.require_password:
        argv.append("--require-password")
    if args.ssl_cert:
        argv += ["--ssl-cert", os.path.abspath(args.ssl_cert)]
        if args.ssl_key:
            argv += ["--ssl-key", os.path.abspath(args.ssl_key)]
    for item in args.settings:
        argv += ["-c", item]
    return argv


def copy_config(src: str, dst: str) -> None:
    """Gives a child the parent's configuration files (a file the parent lacks goes too)."""
    os.makedirs(dst, mode=0o700, exist_ok=True)
    for name in CONFIG_FILES:
        here, there = os.path.join(src, name), os.path.join(dst, name)
        if os.path.isfile(here):
            shutil.copyfile(here, there)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(there)


class Workers:
    """The parent's handle on its child engines (see the module docstring)."""

    def __init__(self, procs: list[subprocess.Popen[bytes]]) -> None:
        self.procs = procs
        self.going = False  # GO was sent: the children join and serve

    def go(self) -> None:
        """Lets the children join the cluster (this engine has)."""
        self.going = True
        for p in self.procs:
            if p.stdin is not None:
                try:
                    p.stdin.write(GO_LINE)
                    p.stdin.flush()
                except OSError:  # NB: it died: `wait_ready` says so
                    pass

    @classmethod
    def start(cls, args: argparse.Namespace, data_dir: str, count: int) -> Workers:
        """Starts `count` child engines (all at once: they import in parallel)."""
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for i in range(1, count + 1):
                d = os.path.join(data_dir, "workers", str(i))
                copy_config(data_dir, d)
                procs.append(subprocess.Popen(
                    child_argv(args, d, os.getpid()), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, start_new_session=True, close_fds=True))
        except OSError as e:
            cls(procs).stop(signal.SIGINT, 5.0)
            raise WorkerError(f"could not start a query-engine worker: {e}") from None
        return cls(procs)

    def wait_ready(self, seconds: float) -> None:
        """Returns once every child serves; raises WorkerError if one exits or is late."""
        waiting = {p.stdout.fileno(): p for p in self.procs if p.stdout is not None}
        seen = {fd: b"" for fd in waiting}
        deadline = time.monotonic() + seconds
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerError(f"{len(waiting)} query-engine worker(s) did not start "
                                  f"within {seconds:.0f} s")
            ready, _, _ = select.select(list(waiting), [], [], left)
            for fd in ready:
                chunk = os.read(fd, 4096)
                seen[fd] += chunk
                if READY_LINE in seen[fd]:
                    del waiting[fd]
                elif not chunk:
                    proc = waiting.pop(fd)
                    code = proc.wait()
                    raise WorkerError(f"query-engine worker {proc.pid} exited with code {code} "
                                      "before it served (its log is above)")

    def reload(self, data_dir: str) -> None:
        """SIGHUP reached the parent: the children get its configuration files again, and
        the signal."""
        for i, p in enumerate(self.procs, 1):
            with contextlib.suppress(OSError):
                copy_config(data_dir, os.path.join(data_dir, "workers", str(i)))
                p.send_signal(signal.SIGHUP)

    def tell(self, sig: int) -> None:
        """Passes a shutdown signal on to every child (one still waiting for GO gets end of
        file on stdin instead, and exits)."""
        if not self.going:
            self._close_pipes()
            return
        for p in self.procs:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(sig)

    def stop(self, sig: int, grace: float) -> None:
        """Passes the shutdown on (`tell`), waits up to `grace` s, then SIGKILLs the rest."""
        self.tell(sig)
        deadline = time.monotonic() + grace
        for p in self.procs:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for p in self.procs:
            for f in (p.stdin, p.stdout):
                if f is not None:
                    with contextlib.suppress(OSError):
                        f.close()


def wait_for_go() -> None:
    """A child waits for its parent's GO (see `Workers.go`); WorkerError if the parent is
    gone (end of file on stdin)."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(0, 1)
        if not chunk:
            raise WorkerError("the parent engine stopped before this worker could join")
        line += chunk
    if line != GO_LINE:
        raise WorkerError(f"unexpected word from the parent engine: {line!r}")


def announce_ready() -> None:
    """A child tells its parent that it serves (see `Workers.wait_ready`)."""
    with contextlib.suppress(OSError):
        os.write(1, READY_LINE)


def watch_parent(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """Calls `stop()` when stdin, a pipe from the parent, reaches end of file (it died)."""
    fd = 0

    def on_stdin() -> None:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)
            stop()

    loop.add_reader(fd, on_stdin)


def group_root(data_dir: str, worker: bool) -> str:
    """The parent engine's data dir: a child's is `<root>/workers/<i>` (`Workers.start`).

    >>> group_root("/d", False), group_root("/d/workers/2", True)
    ('/d', '/d')
    """
    return os.path.dirname(os.path.dirname(data_dir)) if worker else data_dir


class CancelRelay:
    """Passes CancelRequests on between the engines of one `--workers` group.

    `forward(key)` (the front end's `relay_cancel`: a key this engine does not know)
    sends the key to every other engine's socket; a thread here reads the keys the
    others send and hands them to `cancel(key)`, which cancels a session of this engine
    or nothing. Datagrams: one small message, no connection, nothing to clean up when a
    peer is gone (the send fails and is ignored).
    """

    def __init__(self, data_dir: str, root: str, cancel: Callable[[tuple[int, int]], None]
                 ) -> None:
        self.root, self.cancel = root, cancel
        self.path = os.path.join(data_dir, CANCEL_SOCKET)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # NB: left by an engine that was killed
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self._out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._out.setblocking(False)
        self._thread = threading.Thread(target=self._serve, name="cancel-relay", daemon=True)
        self._thread.start()

    def peers(self) -> list[str]:
        """The other engines' sockets (those that exist now)."""
        found = [os.path.join(self.root, CANCEL_SOCKET),
                 *glob.glob(os.path.join(self.root, "workers", "*", CANCEL_SOCKET))]
        return [p for p in found if p != self.path]

    def forward(self, key: tuple[int, int]) -> None:
        data = _KEY.pack(*key)
        for peer in self.peers():
            with contextlib.suppress(OSError):  # NB: that engine stopped: nothing to cancel
                self._out.sendto(data, peer)

    def _serve(self) -> None:
        while True:
            try:
                data = self.sock.recv(64)
            except OSError:  # closed: the engine stops
                return
            if not data:  # NB: shut down (`close`)
                return
            if len(data) == _KEY.size:
                try:
                    self.cancel(_KEY.unpack(data))
                except Exception:  # noqa: BLE001 - a bad cancel must not end the relay
                    log.exception("relayed cancel failed")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self._out.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
