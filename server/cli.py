"""The `cumulo` command: `cumulo serve` runs every role in one process (embedded mode).

Embedded mode wires the same components as cluster mode, in-process: KiVi
nodes and the transaction components (`txn.embedded`), the SQL engine
(`sql.engine`), and the pgwire front end (`pgwire.server`). A restart on the
same data dir recovers everything that was committed.
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
        help="client authentication: trust (default on loopback), or require a password "
        "(cleartext, md5 or SCRAM-SHA-256)",
    )
    serve.add_argument("--require-password", action="store_true", help="same as --auth scram")
    serve.add_argument("--ssl-cert", help="PEM certificate: enables TLS")
    serve.add_argument("--ssl-key", help="PEM private key for --ssl-cert")
    serve.add_argument("--no-sync-commit", action="store_true", help="acknowledge before fsync")
    serve.add_argument("--log-level", default=os.environ.get("CUMULO_LOG_LEVEL", "INFO"))
    sub.add_parser("version", help="print the version")
    bench = sub.add_parser("bench", help="compare Cumulo with PostgreSQL 15 (see bench/)")
    bench.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs the `cumulo` command line."""
    args = _parser().parse_args(argv)
    if args.command == "version":
        from importlib.metadata import version

        print(f"cumulo {version('cumulo')}")
        return 0
    if args.command == "bench":
        try:
            from bench.__main__ import main as bench_main  # type: ignore[import-not-found]
        except ImportError:
            print("cumulo bench: run it from a source checkout (python -m bench)", file=sys.stderr)
            return 2
        return int(bench_main(args.args) or 0)
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    from .pgwire.server import serve
    from .sql.engine import SQLEngine
    from .txn.embedded import open_embedded

    os.makedirs(args.data_dir, exist_ok=True)
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
    auth = "scram" if args.require_password else args.auth
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
        log.info("database system is shut down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
