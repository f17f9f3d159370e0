"""The `cumulo` command: `cumulo serve` runs every role in one process (embedded mode).

Embedded mode wires the same components as cluster mode, in-process: KiVi
nodes and the transaction components (`txn.embedded`), the SQL engine
(`sql.engine`), and the pgwire front end (`pgwire.server`). A restart on the
same data dir recovers everything that was committed. With `--cluster ZK_HOSTS`
the query engine runs here and the storage and transaction roles are the
processes registered in ZooKeeper (`cluster.zk`).

Shutdown (SIGTERM or Ctrl-C) is PostgreSQL's fast shutdown: running statements
are cancelled, every session gets FATAL 57P01, and the process exits once the
logs are flushed (see `pgwire.server.Server.close`).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import importlib
import logging
import os
import signal
import socket
import ssl
import sys
import threading
from collections.abc import Sequence
from importlib.metadata import version
from typing import NoReturn

import uvloop

from . import oplog
from .cluster import launcher
from .cluster import zk as zk_mod
from .cluster.catalogsync import CatalogSync
from .cluster.opencluster import open_cluster
from .cluster.seqmarks import use_mastermind_sequences
from .cluster.workers import (
    CancelRelay,
    WorkerError,
    Workers,
    announce_ready,
    group_root,
    wait_for_go,
    watch_parent,
)
from .datadir import STOPPING, DataDirError, DataDirLock, prepare
from .kivi import mvcc
from .pgwire.hba import FILE_NAME as HBA_FILE
from .pgwire.hba import HbaError, HbaFile
from .pgwire.hba import install as install_hba
from .pgwire.unixsock import UnixListener, UnixSocketError, UnixSpec, directories, permissions
from .pgwire.unixsock import probe as probe_unix
from .sql.conffile import ConfError, Config, install
from .sql.settings import SERVER, duration_ms
from .txn.checkpointer import Checkpointer
from .txn.embedded import open_embedded

log = logging.getLogger("cumulo")


class StartupError(Exception):
    """Why the server could not start: one line for the operator (exit code 1)."""


class _Parser(argparse.ArgumentParser):
    """argparse with PostgreSQL's manners: a bad option is one line on stderr and exit code 1."""

    def error(self, message: str) -> NoReturn:
        self.exit(1, f"{self.prog}: error: {message} (try \"{self.prog} --help\")\n")


class _HelpFormatter(argparse.HelpFormatter):
    """Shows each option's default, except for flags and options that have none."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default not in (None, False, [], argparse.SUPPRESS) and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


CLUSTER_HELP = (
    "cluster mode: serve SQL here (a query engine) and use the KiVi nodes, conflict managers "
    "and loggers registered in this ZooKeeper (host:port[,...]) instead of running them in this "
    "process. The other roles are separate processes, started first, each with its own data "
    "directory: cumulo {mastermind|kivi|logger|conflicts} --zk ZK_HOSTS [--data-dir DIR], or all "
    "at once on one machine with cumulo cluster up (see README, Cluster mode)"
)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cumulo", description="Cumulo HTAP SQL database")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    serve = sub.add_parser(
        "serve", help="run a server in embedded mode (every role in one process)",
        description="Runs a Cumulo server that speaks the PostgreSQL 15 protocol. Settings come "
        "from DATA_DIR/cumulo.conf, DATA_DIR/cumulo.auto.conf (ALTER SYSTEM) and -c, in that "
        "order; SIGHUP reloads them. SIGTERM or Ctrl-C shuts the server down.",
        formatter_class=_HelpFormatter,
    )
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, default=5433,
                       help="TCP port to listen on; also names the Unix-domain socket "
                       "DIR/.s.PGSQL.PORT in each DIR of unix_socket_directories "
                       "(-c unix_socket_directories=DIR,...; empty: none)")
    serve.add_argument("--data-dir", default="./cumulo-data",
                       help="directory of the database files; created if missing, and locked "
                       "(postmaster.pid) so that one server at a time uses it")
    serve.add_argument(
        "-c", "--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
        help="set a configuration parameter for the server, as postgres -c does (repeatable), "
        "e.g. -c checkpoint_timeout=30s -c log_statement=ddl",
    )
    serve.add_argument(
        "--auth",
        choices=["trust", "password", "md5", "scram"],
        default="trust",
        help="client authentication: trust (no password), or require a password: "
        "cleartext, md5 (SCRAM-SHA-256 for roles with a SCRAM verifier, as PostgreSQL's md5 "
        "method) or scram (SCRAM-SHA-256 only)",
    )
    serve.add_argument(
        "--require-password",
        action="store_true",
        help="every client authenticates with the password its role was given (CREATE ROLE ... "
        "PASSWORD): SCRAM-SHA-256 or md5, whichever the stored verifier allows (--auth md5)",
    )
    serve.add_argument("--ssl-cert", help="PEM certificate: enables TLS")
    serve.add_argument("--ssl-key", help="PEM private key for --ssl-cert")
    serve.add_argument("--no-sync-commit", action="store_true",
                       help="acknowledge a commit before its redo record is fsynced")
    serve.add_argument(
        "--memory-limit",
        default="80%",
        help="cap on the server's address space, as a size (e.g. 8G, 512M) or a percentage of "
        "the machine's memory (at least 4G); 0 for none. A statement that needs more fails "
        "alone with 53200 out of memory instead of the kernel killing the server",
    )
    serve.add_argument("--cluster", metavar="ZK_HOSTS", help=CLUSTER_HELP)
    serve.add_argument("--zk-session-timeout", type=float, default=10.0,
                       help="with --cluster: seconds after which a crashed engine is taken for "
                       "dead (its transactions aborted, its locks released)")
    serve.add_argument("--gc-interval", type=float, default=30.0,
                       help="seconds between garbage collections of old row versions "
                       "(0: none)")
    serve.add_argument("--cold-rows", action=argparse.BooleanOptionalAction, default=True,
                       help="keep settled rows in compact cold segments (about 150 B a row "
                       "instead of 340; default on): far less memory; rows scanned again "
                       "and again are kept decoded")
    serve.add_argument("--frontend", choices=["loop", "threads"],
                       default=os.environ.get("CUMULO_FRONTEND", "loop"),
                       help="loop: one event loop serves every connection (sessions are "
                       "greenlets); threads: a thread per connection; env CUMULO_FRONTEND")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="with --cluster: run N query-engine processes that share the port "
                       "(SO_REUSEPORT), so that SQL uses more than one core; this process "
                       "starts the other N-1 (cluster.workers)")
    serve.add_argument("--worker-of", type=int, help=argparse.SUPPRESS)  # a --workers child
    serve.add_argument("--log-level", default=os.environ.get("CUMULO_LOG_LEVEL", "INFO"),
                       type=str.upper, choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                       help="least severity written to the server log (stderr); the default "
                       "comes from $CUMULO_LOG_LEVEL, else INFO")
    sub.add_parser("version", help="print the version")
    bench = sub.add_parser("bench", add_help=False, help="compare Cumulo with PostgreSQL 15 (see bench/)")
    bench.add_argument("args", nargs=argparse.REMAINDER)
    sub.add_parser("pipeline", add_help=False, help="Spark pipelines on Cumulo, e.g. "
                   "`cumulo pipeline tickdata --url URL --once` (needs the spark extra)")
    for name, text in launcher.COMMAND_HELP.items():  # cluster mode (see cluster.launcher)
        sub.add_parser(name, add_help=False, help=text)
    return parser


def _bench(argv: list[str]) -> int:
    """Runs `python -m bench` with argv, from the source checkout this server/ is part of."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.isfile(os.path.join(root, "bench", "__main__.py")) and root not in sys.path:
        sys.path.insert(0, root)  # the console script does not put the checkout on sys.path
    try:  # NB: lazy: bench/ is in the source checkout only, not in the installed package
        from bench.__main__ import main as bench_main
    except ImportError:
        print("cumulo bench: run it from a source checkout (python -m bench)", file=sys.stderr)
        return 2
    return int(bench_main(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    """Runs the `cumulo` command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        # Everything after `bench` is bench's own (its --help included), so it bypasses this parser.
        return _bench(argv[1:])
    if argv[:1] == ["pipeline"]:  # its own parser too; pyspark loads only here
        from cumulo.pipeline.tickdata.cli import main as pipeline_main

        return pipeline_main(argv[1:])
    if argv[:1] and argv[0] in launcher.COMMAND_HELP:  # their own parsers (cluster.launcher)
        return launcher.main(argv)
    args = _parser().parse_args(argv)
    if args.command == "version":
        print(f"cumulo {version('cumulo')}")
        return 0
    if args.command == "bench":  # reached only with options before it, e.g. `cumulo -x bench`
        return _bench(args.args)
    oplog.setup(args.log_level)
    try:
        # The event-loop front end runs on uvloop (libuv's loop, in C): asyncio's own loop is
        # Python code on every wake-up. Quiet 2-core machine, `SELECT 1` at 8 clients: 20.6
        # against 23.4 us of server CPU per query, 0.56x against 0.49x the bare-Python floor's
        # rate. The threaded front end keeps asyncio's loop, which only accepts there.
        factory = uvloop.new_event_loop if args.frontend == "loop" else None
        with asyncio.Runner(loop_factory=factory) as runner:
            code = runner.run(_serve(args))
    except StartupError as e:
        # NB: one line, no traceback, as PostgreSQL's FATAL at start-up
        log.critical("%s", e)
        return 1
    left = [t for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()]
    if left:
        # NB: everything committed is durable by now. A thread still running (a connection
        # stuck in a statement that ignored cancel, an executor's worker) would hold up or
        # abort interpreter finalisation, which joins executors and non-daemon threads: the
        # user asked the server to stop, so it stops.
        log.info("exiting with %d threads still running: %s", len(left),
                 ", ".join(sorted({t.name for t in left})))
        logging.shutdown()
        sys.stderr.flush()
        os._exit(code)
    return code


MIN_PERCENT_LIMIT = 4 << 30


def memory_limit(spec: str, total: int | None = None) -> int | None:
    """Parses --memory-limit into bytes (None: no limit): "80%", "8G", "512M", "0"."""
    spec = spec.strip().upper()
    if spec in ("", "0", "NONE"):
        return None
    if spec.endswith("%"):
        if total is None:
            try:
                total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            except (ValueError, OSError):
                return None
        # NB: the cap is on address space, which threads' stacks and malloc arenas inflate
        # well past what is resident: never below 4 GiB, or a small machine could not serve
        return max(int(total * float(spec[:-1]) / 100), MIN_PERCENT_LIMIT)
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if spec.endswith("B"):
        spec = spec[:-1]
    scale = units.get(spec[-1:], 1)
    return int(float(spec[:-1] if scale != 1 else spec) * scale)


def _cap_memory(spec: str) -> None:
    """Lowers RLIMIT_AS to the --memory-limit (never raises it: a test harness may cap lower)."""
    limit = memory_limit(spec)
    if limit is None:
        return
    try:
        import resource  # NB: lazy: a Unix-only module (the ImportError is handled below)

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        caps = [c for c in (soft, hard, limit) if c != resource.RLIM_INFINITY]
        resource.setrlimit(resource.RLIMIT_AS, (min(caps), hard))
    except (ImportError, ValueError, OSError) as e:
        log.warning("cannot set the memory limit: %s", e)


def _command_line_settings(items: list[str]) -> dict[str, str]:
    """`-c name=value` options as a dict (StartupError for one without `=`)."""
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise StartupError(f'-c {item}: expected NAME=VALUE')
        out[name.strip().lower().replace("-", "_")] = value.strip()
    return out


def _listen_error(host: str, port: int, e: OSError) -> StartupError:
    reason = os.strerror(e.errno) if e.errno and e.errno > 0 else \
        (e.strerror or str(e)).split(" (while attempting", 1)[0]
    hint = " (is another server running on this port?)" if e.errno == errno.EADDRINUSE else ""
    return StartupError(f'could not listen on "{host}" port {port}: {reason}{hint}')


def _probe_port(host: str, port: int) -> None:
    """Fails early if the port cannot be listened on (in use, or a bad address)."""
    if port == 0:
        return
    try:
        probe = socket.create_server((host, port), reuse_port=False)
    except OSError as e:
        raise _listen_error(host, port, e) from None
    probe.close()


def _unix_spec(data_dir: str, worker: bool) -> UnixSpec:
    """The Unix-domain sockets to listen on, from unix_socket_directories & co.

    NB: a `--workers` child listens on none: a socket file has one owner (no SO_REUSEPORT
    for a path), so the first engine serves every Unix-socket connection, as PostgreSQL's
    one postmaster does; TCP connections are spread over all the engines.
    """
    if worker:
        return UnixSpec(())
    values = SERVER.values
    try:
        mode = permissions(values.get("unix_socket_permissions", "0777"))
    except UnixSocketError as e:
        raise StartupError(str(e)) from None
    return UnixSpec(directories(values.get("unix_socket_directories", "")), mode,
                    values.get("unix_socket_group", "").strip(), data_dir,
                    configured=SERVER.source("unix_socket_directories") != "default")


def _first_socket_dir(listeners: Sequence[UnixListener]) -> str:
    """postmaster.pid's socket directory: the first one listened in, "" if none."""
    return os.path.dirname(listeners[0].path) if listeners else ""


def _checkpoint_seconds() -> float:
    """checkpoint_timeout in seconds, read at each checkpoint (a reload may change it)."""
    return duration_ms(SERVER.values.get("checkpoint_timeout", "5min")) / 1000.0


# The SQL layer imports these on a session's first transaction, UPDATE, DELETE, SELECT ...
# FOR UPDATE or utility statement; without .pyc files (PYTHONDONTWRITEBYTECODE) compiling
# them took ~0.2 s. On the event-loop front end that stalls every session at once, so
# they are loaded before the server listens.
WARM_MODULES = (".sql.utility", ".sql.txnctl", ".sql.dml.insert", ".sql.dml.update",
                ".sql.dml.locksub")


def _warm_statement_modules() -> None:
    for name in WARM_MODULES:
        importlib.import_module(name, __package__)


# pyarrow imports pandas at its first conversion to Python values (a direct-API write's
# first batch, a columnar result): ~1 s that the first such statement paid. A thread
# loads it once the server runs, instead of delaying the start by that much.
BACKGROUND_MODULES = ("pandas",)


def _warm_in_background() -> None:
    def load() -> None:
        for name in BACKGROUND_MODULES:
            importlib.import_module(name)

    threading.Thread(target=load, name="cumulo-warm", daemon=True).start()


async def _serve(args: argparse.Namespace) -> int:
    """Starts every part, serves until a shutdown signal, and stops them in reverse order.

    Anything that fails before the server is ready becomes a StartupError: one line in the
    log and exit code 1, never a traceback (a bad option, data directory or port is the
    operator's to fix, not a bug).
    """
    if args.workers > 1 and not args.cluster:
        raise StartupError("--workers needs --cluster: the query engines share storage and "
                           "transactions through the cluster's roles")
    if args.workers > 1 and args.port == 0:  # NB: each engine would get a port of its own
        raise StartupError("--workers needs a fixed --port: the engines listen on one port")
    try:
        memory_limit(args.memory_limit)
    except ValueError:
        raise StartupError(f'invalid --memory-limit "{args.memory_limit}"') from None
    _cap_memory(args.memory_limit)
    try:
        data_dir = prepare(args.data_dir)
        lock = DataDirLock.acquire(data_dir, port=args.port)
    except DataDirError as e:
        raise StartupError(str(e)) from None
    txn = engine = server = checkpointer = zk = workers = relay = None
    signals: list[int] = []  # SIGINT: fast shutdown; SIGTERM: smart
    try:
        config = Config(data_dir, _command_line_settings(args.settings))
        try:
            config.load()
        except ConfError as e:
            raise StartupError(str(e)) from None
        install(config)
        try:
            hba = HbaFile(data_dir)
        except (HbaError, OSError) as e:
            raise StartupError(f"could not load {HBA_FILE}: {e}") from None
        install_hba(hba)
        config.on_reload.append(hba.reload)
        ssl_context = None
        if args.ssl_cert:
            try:
                ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                ssl_context.load_cert_chain(args.ssl_cert, args.ssl_key)
            except (OSError, ssl.SSLError) as e:
                raise StartupError(f'could not load TLS certificate "{args.ssl_cert}": '
                                   f"{getattr(e, 'strerror', None) or e}") from None
        if args.worker_of is None:  # NB: a worker shares the port its parent listens on
            _probe_port(args.host, args.port)  # NB: before recovery, which may take a while
            try:
                probe_unix(_unix_spec(data_dir, False), args.port)
            except UnixSocketError as e:
                raise StartupError(str(e)) from None
        if args.workers > 1:  # NB: now, so that they import while this engine joins
            try:
                workers = Workers.start(args, data_dir, args.workers - 1)
            except WorkerError as e:
                raise StartupError(str(e)) from None
        # NB: lazy because the cluster role processes (`cluster.launcher`) share this entry
        # point and never load the SQL layer or the front end (sqlglot and all: ~0.7 s of CPU
        # per process), and late so that a bad option, data dir, file or port fails at once
        from .pgwire.server import cancel_request, serve
        from .sql.engine import SQLEngine

        if args.cluster:
            if args.worker_of is not None:
                try:
                    wait_for_go()  # NB: the parent joins first (it resets the CMs)
                except WorkerError as e:
                    raise StartupError(str(e)) from None
            try:
                zk = zk_mod.connect(args.cluster, session_timeout=args.zk_session_timeout)
                txn = open_cluster(zk, gc_interval=args.gc_interval)
            except Exception as e:
                raise StartupError(f"could not join the cluster at {args.cluster}: {e}") from None
        else:
            mvcc.FREEZE_ROWS = args.cold_rows
            try:
                txn = open_embedded(data_dir, sync_commit=not args.no_sync_commit,
                                    gc_interval=args.gc_interval)
            except Exception as e:  # NB: damaged files; the traceback is for --log-level debug
                log.debug("recovery failed", exc_info=True)
                raise StartupError(f'could not recover data directory "{data_dir}": '
                                   f"{type(e).__name__}: {e}") from None
        engine = SQLEngine(txn)
        _warm_statement_modules()
        _warm_in_background()
        if args.cluster:  # DDL here reaches the other query engines before it returns
            CatalogSync(zk, engine.store)
            use_mastermind_sequences(txn, engine.store)  # blocks of nextval from the leader
        # NB: KiVi keeps millions of long-lived tuples; without this, every young-generation
        # collection walks them all and inserts slow down as the data grows.
        gc.collect()
        gc.freeze()
        # NB: 10,000, not more: a young collection holds the GIL for about 1 us per object
        # (50,000 stalled every session 60-100 ms under TPC-B, `python -m bench htap`).
        gc.set_threshold(10_000, 20, 100)
        # NB: like pg_hba's md5 method: a SCRAM verifier gets SCRAM, an md5 verifier md5
        auth = "md5" if args.require_password and args.auth == "trust" else args.auth
        unix = _unix_spec(data_dir, args.worker_of is not None)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal(sig: int) -> None:
            signals.append(sig)
            stop.set()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal, sig)

        if workers is not None:  # NB: this engine has joined: the others may now
            try:
                workers.go()
                await loop.run_in_executor(None, workers.wait_ready, 120.0)
            except WorkerError as e:
                raise StartupError(str(e)) from None
        try:
            server = await serve(
                engine, args.host, args.port, auth=auth, ssl_context=ssl_context,
                frontend=args.frontend, settings=SERVER.values,
                reuse_port=args.workers > 1 or args.worker_of is not None, unix=unix,
            )
        except UnixSocketError as e:
            raise StartupError(str(e)) from None
        except OSError as e:
            raise _listen_error(args.host, args.port, e) from None
        # NB: postmaster.pid says ready (with where it listens) before the log line does:
        # a tool that saw the line finds the file up to date
        lock.listening(_first_socket_dir(server.unix_listeners), args.host)
        log.info("database system is ready to accept connections on %s:%d (data dir %s)",
                 server.host, server.port, data_dir)
        if workers is not None or args.worker_of is not None:  # a cancel may land elsewhere
            registry = server.registry
            relay = CancelRelay(data_dir, group_root(data_dir, args.worker_of is not None),
                                lambda key: cancel_request(registry, key))
            server.relay_cancel = relay.forward
        if args.worker_of is not None:
            announce_ready()
            watch_parent(loop, lambda: on_signal(signal.SIGINT))
        checkpointer = Checkpointer(txn, _checkpoint_seconds,
                                    lambda: txn.ltm.snapshots.snapshot).start()

        config.on_reload.append(checkpointer.request)
        if workers is not None:
            config.on_reload.append(lambda: workers.reload(data_dir))
        loop.add_signal_handler(signal.SIGHUP, config.reload)
        await stop.wait()
        log.info("received shutdown request; shutting down")
    finally:
        lock.set_status(STOPPING)
        if workers is not None:
            workers.tell(signals[0] if signals else signal.SIGINT)
        if checkpointer is not None:
            checkpointer.stop()
        if server is not None:
            await server.close(smart=signals[:1] == [signal.SIGTERM])
        if workers is not None:
            workers.stop(signals[0] if signals else signal.SIGINT, 10.0)
        if relay is not None:
            relay.close()
        if engine is not None:
            engine.close()
        if txn is not None:
            txn.close()
        if zk is not None:
            zk.stop()
        lock.release()
        if server is not None:
            log.info("database system is shut down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
