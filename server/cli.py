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
import gc
import logging
import os
import signal
import ssl
import sys

log = logging.getLogger("cumulo")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cumulo", description="Cumulo HTAP SQL database")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run a server in embedded mode (every role in one process)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=5433)
    serve.add_argument("--data-dir", default="./cumulo-data")
    serve.add_argument(
        "--auth",
        choices=["trust", "password", "md5", "scram"],
        default="trust",
        help="client authentication: trust (default on loopback), or require a password: "
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
    serve.add_argument("--no-sync-commit", action="store_true", help="acknowledge before fsync")
    serve.add_argument(
        "--memory-limit",
        default="80%",
        help="cap on the server's address space, as a size (e.g. 8G, 512M) or a percentage of "
        "the machine's memory (default 80%%, at least 4G); 0 for none. A statement that needs more fails "
        "alone with 53200 out of memory instead of the kernel killing the server",
    )
    serve.add_argument(
        "--cluster",
        metavar="ZK_HOSTS",
        help="cluster mode: use the KiVi nodes, conflict managers and loggers registered in "
        "this ZooKeeper (host:port[,...]) instead of running them in this process",
    )
    serve.add_argument("--log-level", default=os.environ.get("CUMULO_LOG_LEVEL", "INFO"))
    sub.add_parser("version", help="print the version")
    bench = sub.add_parser("bench", add_help=False, help="compare Cumulo with PostgreSQL 15 (see bench/)")
    bench.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def _bench(argv: list[str]) -> int:
    """Runs `python -m bench` with argv, from the source checkout this server/ is part of."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.isfile(os.path.join(root, "bench", "__main__.py")) and root not in sys.path:
        sys.path.insert(0, root)  # the console script does not put the checkout on sys.path
    try:
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
    args = _parser().parse_args(argv)
    if args.command == "version":
        from importlib.metadata import version

        print(f"cumulo {version('cumulo')}")
        return 0
    if args.command == "bench":  # reached only with options before it, e.g. `cumulo -x bench`
        return _bench(args.args)
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    code = asyncio.run(_serve(args))
    import threading

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
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        caps = [c for c in (soft, hard, limit) if c != resource.RLIM_INFINITY]
        resource.setrlimit(resource.RLIMIT_AS, (min(caps), hard))
    except (ImportError, ValueError, OSError) as e:
        log.warning("cannot set the memory limit: %s", e)


async def _serve(args: argparse.Namespace) -> int:
    from .pgwire.server import serve
    from .sql.engine import SQLEngine
    from .txn.embedded import open_embedded

    _cap_memory(args.memory_limit)
    os.makedirs(args.data_dir, exist_ok=True)
    zk = None
    if args.cluster:
        from .cluster import zk as zk_mod

        zk = zk_mod.connect(args.cluster)
        txn = zk_mod.open_cluster(zk)
    else:
        txn = open_embedded(args.data_dir, sync_commit=not args.no_sync_commit)
    engine = SQLEngine(txn)
    # NB: KiVi keeps millions of long-lived tuples; without this, every young-generation
    # collection walks them all and inserts slow down as the data grows.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    ssl_context = None
    if args.ssl_cert:
        ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ssl_context.load_cert_chain(args.ssl_cert, args.ssl_key)
    # NB: like pg_hba's md5 method: a SCRAM verifier gets SCRAM, an md5 verifier md5
    auth = "md5" if args.require_password and args.auth == "trust" else args.auth
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def ready(host: str, port: int) -> None:
        log.info(
            "database system is ready to accept connections on %s:%d (data dir %s)",
            host,
            port,
            os.path.abspath(args.data_dir),
        )

    server = await serve(
        engine, args.host, args.port, auth=auth, ssl_context=ssl_context, on_ready=ready
    )
    try:
        await stop.wait()
        log.info("received shutdown request; shutting down")
    finally:
        await server.close()
        engine.close()
        txn.close()
        if zk is not None:
            zk.stop()
        log.info("database system is shut down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
