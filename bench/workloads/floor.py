"""floor: `SELECT 1` against the do-nothing floor server, PostgreSQL and Cumulo.

Cumulo's SELECT 1 rate against PostgreSQL's says how far behind it is;
against the floor's (a Python asyncio server that answers with precomputed
bytes, `bench/floor_server.py`) it says how much of that gap is the work
Cumulo does per statement rather than the cost of being a Python server.

The driver is pgbench with a custom script (`-f`, one `SELECT 1;`), simple
protocol, 8 clients on 2 threads, and `-n`. NB: with `-n` and a custom
script, pgbench 15 sends nothing but the script after the startup handshake
(checked with the floor's query log: only 'SELECT 1;' arrives); without `-n`
it would first send `vacuum pgbench_branches`, `vacuum pgbench_tellers` and
`truncate pgbench_history`, which fail on an empty database. The three runs
alternate floor, PostgreSQL, Cumulo. The floor runs in its own process, like
the two databases, so all three pay the same loopback and scheduling costs.

Options: --seconds (per run, default 30), --repeat (rounds; medians), --clients, --threads.
"""

from __future__ import annotations

import os
from contextlib import ExitStack

from ..core import Figure, RunContext
from ..pgbench_tool import alternate, tps_and_latency
from ..systems import System, SystemStartError, floor

NAME = "floor"
DESCRIPTION = "SELECT 1 rate against a do-nothing asyncio pgwire server and PostgreSQL"
SCRIPT = "SELECT 1;\n"


def run(ctx: RunContext) -> list[Figure]:
    """Runs pgbench's SELECT 1 script against the floor and every system."""
    script = os.path.join(ctx.workdir, "select1.sql")
    with open(script, "w") as f:
        f.write(SCRIPT)
    opts = ctx.options
    args = ["-n", "-M", "simple", "-f", script, "-c", str(opts.clients), "-j", str(opts.threads)]
    with ExitStack() as stack:
        systems = list(ctx.systems)
        floor_system: System | None = None
        try:
            floor_system = stack.enter_context(floor())
            systems.insert(0, floor_system)
        except SystemStartError as exc:  # the databases' figures are still worth having
            ctx.errors[("floor", "SELECT 1")] = f"did not start: {str(exc).splitlines()[0]}"
        results = alternate(ctx, systems, "SELECT 1", args)
        if floor_system is None:
            results["floor"] = None
        elif sent := _floor_queries(floor_system):
            ctx.notes.append(f"queries the floor received from pgbench: {sent}")
    label = f"SELECT 1 -M simple -c {opts.clients}"
    return tps_and_latency(ctx, NAME, label, "q/s", "SELECT 1", results)


def _floor_queries(system: System) -> str:
    """Returns the distinct SQL texts the floor has logged so far, comma-separated."""
    prefix = "floor: first query "
    lines = system.log_tail(200).splitlines()
    return ", ".join(line[len(prefix) :] for line in lines if line.startswith(prefix))
