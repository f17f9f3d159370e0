"""`python -m bench WORKLOAD...` (or `cumulo bench ...`): Cumulo against PostgreSQL 15.

1. Parse the arguments and pick the workloads (`all` runs every one).
2. Start a throwaway PostgreSQL 15 and an embedded Cumulo, both on loopback.
   A system that fails to start is reported, not fatal: the other one's
   figures still come out (Cumulo is young; PostgreSQL's numbers are useful).
3. Run each workload against the systems that are up; collect its figures.
4. Print one table; write JSON and PNG to bench/results/ (or --out).
5. Stop both servers: on success, on error, on Ctrl-C and on SIGTERM.

Exit code: 0 when every figure was measured on every system, 1 when some
step failed somewhere (see the table's footnotes), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
import traceback
from contextlib import ExitStack
from datetime import UTC, datetime

from . import report
from .core import Figure, Options, RunContext
from .systems import System, SystemStartError, cumulo_embedded, external, postgres15
from .workloads import MICRO, WORKLOADS, load

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def parser() -> argparse.ArgumentParser:
    """Returns the command-line parser."""
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Runs a workload against Cumulo and PostgreSQL 15 on this machine, "
        "side by side, and reports each figure and the Cumulo/PostgreSQL ratio.",
        epilog="workloads:\n"
        + "\n".join(f"  {name:<12} {load(name).DESCRIPTION}" for name in [*WORKLOADS, *MICRO]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "workloads",
        nargs="+",
        metavar="WORKLOAD",
        choices=[*WORKLOADS, *MICRO, "all"],
        help=f"one or more of {', '.join(WORKLOADS)}, all",
    )
    p.add_argument(
        "--scale",
        type=float,
        help="workload size (pgbench: scale factor, default "
        "10; ingest, aggregation: millions of rows, default 1)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="length of each timed run (pgbench, floor); time cap per ingest method",
    )
    p.add_argument("--rows", type=int, help="exact row count (ingest, aggregation); beats --scale")
    p.add_argument("--clients", type=int, default=8, help="pgbench clients (default 8)")
    p.add_argument("--threads", type=int, default=2, help="pgbench threads (default 2)")
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of each timed pgbench/floor run, "
        "systems taking turns; figures are medians (default 1)",
    )
    p.add_argument(
        "--systems",
        default="cumulo,postgres",
        help="comma-separated systems to run (default cumulo,postgres)",
    )
    p.add_argument(
        "--transport",
        choices=["tcp", "unix", "both"],
        default="tcp",
        help="how pgbench reaches both systems: loopback TCP (default), their Unix-domain "
        "sockets, or both in the same run, reported as separate figures",
    )
    p.add_argument("--out", default=RESULTS, help="directory for JSON and PNG (bench/results)")
    p.add_argument(
        "--cumulo-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for `cumulo serve` (repeatable)",
    )
    p.add_argument("--keep", action="store_true", help="keep the servers' temp dirs (logs)")
    p.add_argument(
        "--cumulo-url",
        metavar="URL",
        help="use a running Cumulo (say a cluster) at "
        "postgresql://user@host:port/db instead of starting one",
    )
    return p


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def start_systems(
    stack: ExitStack, names: list[str], args: argparse.Namespace
) -> tuple[list[System], dict[str, str]]:
    """Starts the requested systems in `stack`; returns those up and the start errors."""
    starters = {
        "postgres": lambda: postgres15(keep=args.keep),
        "cumulo": lambda: cumulo_embedded(args.cumulo_arg, keep=args.keep),
    }
    up: list[System] = []
    failed: dict[str, str] = {}
    for name in ("postgres", "cumulo"):
        if name not in names:
            continue
        if name == "cumulo" and args.cumulo_url:
            up.append(external("cumulo", "Cumulo", args.cumulo_url))
            continue
        print(f"[bench] starting {name} ...", file=sys.stderr)
        try:
            system = stack.enter_context(starters[name]())
            up.append(system)
            print(f"[bench] {name} ready on {system.host}:{system.port}", file=sys.stderr)
        except SystemStartError as exc:
            failed[name] = f"did not start: {str(exc).splitlines()[0]}"
            print(f"[bench] {name} did not start:\n{exc}", file=sys.stderr)
    return up, failed


def run(args: argparse.Namespace) -> tuple[list[Figure], dict]:
    """Starts the systems, runs the workloads and returns the figures and run metadata."""
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    unknown = set(names) - {"cumulo", "postgres"}
    if unknown:
        raise SystemExit(f"unknown system(s): {', '.join(sorted(unknown))}")
    workloads = list(WORKLOADS) if "all" in args.workloads else list(dict.fromkeys(args.workloads))
    options = Options(args.scale, args.seconds, args.rows, args.clients, args.threads, args.repeat,
                      args.transport)
    if all(w in MICRO for w in workloads):
        names = []  # micro-benchmarks run in process: no server to start
    meta: dict = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "argv": sys.argv[1:] if args.argv is None else args.argv,
        "workloads": workloads,
        "options": vars(options),
        "machine": report.machine(),
        "commands": [],
        "notes": [],
    }
    figures: list[Figure] = []
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="cumulo-bench-") as workdir:
        systems, failed = start_systems(stack, names, args)
        for name in workloads:
            ctx = RunContext(systems, options, workdir)
            print(f"[bench] workload {name}", file=sys.stderr)
            begin = time.monotonic()
            try:
                produced = load(name).run(ctx)
            except Exception as exc:  # a harness bug in one workload must not lose the others
                traceback.print_exc(file=sys.stderr)
                meta["notes"].append(f"workload {name} crashed: {type(exc).__name__}: {exc}")
                meta["crashed"] = True
                produced = []
            for figure in produced:
                for system, reason in failed.items():
                    figure.errors.setdefault(system, reason)
                    figure.values.setdefault(system, None)
            figures += produced
            meta["commands"] += ctx.commands
            meta["notes"] += ctx.notes
            print(f"[bench] workload {name} took {time.monotonic() - begin:.0f}s", file=sys.stderr)
            # NB: ratios from a loaded machine move a lot: each workload says what it ran beside
            meta.setdefault("loadavg_after", {})[name] = os.getloadavg()
        print("[bench] stopping servers ...", file=sys.stderr)
    meta["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    return figures, meta


def main(argv: list[str] | None = None) -> int:
    """Runs `python -m bench` with argv (sys.argv[1:] when None); returns the exit code."""
    args = parser().parse_args(argv)
    args.argv = argv
    previous = signal.signal(signal.SIGTERM, _sigterm)
    try:
        figures, meta = run(args)
    except KeyboardInterrupt:
        print("\n[bench] interrupted; servers stopped", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(report.table(figures))
    for note in meta["notes"]:
        print(f"note: {note}")
    os.makedirs(args.out, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    base = os.path.join(args.out, f"{'-'.join(meta['workloads'])}-{stamp}")
    print(f"[bench] wrote {report.write_json(base + '.json', meta, figures)}", file=sys.stderr)
    png = report.write_png(base + ".png", f"Cumulo vs PostgreSQL 15 ({meta['started']})", figures)
    if png:
        print(f"[bench] wrote {png}", file=sys.stderr)
    return 1 if meta.get("crashed") or any(f.errors for f in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
