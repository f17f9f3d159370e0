"""selectonly: pgbench's select-only script through each protocol mode, at 1, 4 and 8 clients.

The `pgbench` workload gives one select-only figure (`-M prepared -c 8`).
That hides where a server loses: per statement (one client, where only the
server's work per round trip counts), or under concurrency (several clients,
where a server with one interpreter lock cannot use the second core and its
threads hand the lock to each other). The three protocol modes also take
different paths through a server:

- `-M simple`: a Query message with the key in the text (plans must be
  found again from the text, constants and all);
- `-M extended`: Parse (unnamed), Bind, Describe, Execute, Sync for every
  transaction, the same text each time (what libpq's PQexecParams sends);
- `-M prepared`: Parse once, then Bind, Describe, Execute, Sync.

Each combination alternates between the systems like the `pgbench` workload
(`--repeat` rounds, medians), after a stock `pgbench -i -s N` on each
(`--scale`, default 1: select-only reads one row by primary key, and the
table's size matters little), with `-n` (select-only writes nothing, so there is
nothing to vacuum between runs). Figures: tps, latency, and the server's CPU
time and context switches per transaction. `--clients` sets the largest
client count (default 8); `--threads` caps pgbench's threads (`-j`).

Options: --scale, --seconds, --repeat, --clients, --threads.
"""

from __future__ import annotations

from ..core import Figure, RunContext
from ..pgbench_tool import alternate, tps_and_latency
from . import pgbench as stock

NAME = "selectonly"
DESCRIPTION = "pgbench -S in simple, extended and prepared modes at 1, 4 and 8 clients"
DEFAULT_SCALE = 1
MODES = ("simple", "extended", "prepared")


def client_counts(most: int) -> list[int]:
    """The client counts to run: 1, 4 and `most` (in order, without repeats).

    >>> client_counts(8), client_counts(4), client_counts(1), client_counts(16)
    ([1, 4, 8], [1, 4], [1], [1, 4, 16])
    """
    return sorted({c for c in (1, 4, most) if c <= max(most, 1)})


def run(ctx: RunContext) -> list[Figure]:
    """Loads pgbench's tables on every system, then runs each mode and client count."""
    opts = ctx.options
    scale = max(1, int(opts.scale or DEFAULT_SCALE))
    load_seconds = {
        s.name: ctx.attempt(s, "load", stock._load, ctx, s, scale) for s in ctx.systems
    }
    loaded = [s for s in ctx.systems if load_seconds[s.name] is not None]
    figures = [
        ctx.figure(NAME, f"load (pgbench -i -s {scale})", "s", "lower", load_seconds, "load")
    ]
    for mode in MODES:
        for clients in client_counts(opts.clients):
            step = f"select-only -M {mode} -c {clients}"
            threads = max(1, min(clients, opts.threads))
            args = ["-n", "-S", "-M", mode, "-c", str(clients), "-j", str(threads)]
            results = dict.fromkeys((s.name for s in ctx.systems), None)
            results.update(alternate(ctx, loaded, step, args))
            steps = {s.name: step if s in loaded else "load" for s in ctx.systems}
            figures += tps_and_latency(ctx, NAME, f"{step} -s {scale}", "tx/s", step, results,
                                       steps)
    return figures
