"""memory: what a loaded table costs the server, next to PostgreSQL's size of the same table.

Issue 11's bar: a 10M-row, 3-column table must fit in at most 1.5 GB of
server RSS, the row store and the columnar copy together. This loads the
`aggregation` workload's table (id bigint PRIMARY KEY, g integer, x bigint)
by COPY, runs its GROUP BY once (which builds the columnar copy), waits for
garbage collection to pass over the load's versions (the row store keeps
cold rows compactly, `kivi.coldrows`, once a collection finds no snapshot can
see an older version: that waits for the server's GC interval; the server
freezes cold rows unless started with `--no-cold-rows`: run
`python -m bench memory --cumulo-arg=--no-cold-rows` for the figure without), and
then reads the server's resident set from /proc. PostgreSQL's figure is
`pg_total_relation_size` (heap + primary key index) of the same table: its
memory is a fixed shared buffer pool, so on-disk size is the comparable
number. Both figures are also given per row.

Sizes as `aggregation`: --rows or --scale (millions), by default 1M.
"""

from __future__ import annotations

import os
import time

from ..core import Figure, RunContext
from ..server_cost import listening_pid
from ..systems import System
from . import aggregation

NAME = "memory"
DESCRIPTION = "server RSS (Cumulo) and table size (PostgreSQL) after a COPY of 1M rows x 3 columns"
# NB: longer than the server's GC interval (`--gc-interval`, 30 s by default): a load of a
# few COPY commits triggers no collection by commit count, and only a collection freezes the
# load's rows into cold segments (`kivi.coldrows`); a 10M-row freeze itself takes 20-40 s
# on a busy machine (40 s caught one half done: 1,597 MiB, then 1,518 once it was over)
SETTLE_S = float(os.environ.get("CUMULO_BENCH_MEMORY_SETTLE", "80"))  # seconds


def _rows(ctx: RunContext) -> int:
    options = ctx.options
    if options.rows:
        return int(options.rows)
    if options.scale:
        return max(1, int(options.scale * 1_000_000))
    return 1_000_000


def run(ctx: RunContext) -> list[Figure]:
    """Loads the table on each system, queries it once, and measures what it holds."""
    rows = _rows(ctx)
    want = aggregation.expected(rows)
    size: dict[str, float | None] = {}
    for s in ctx.systems:
        loaded = ctx.attempt(s, "load", aggregation._load, ctx, s, 0, rows)
        if loaded is None:
            size[s.name] = None
            continue
        size[s.name] = ctx.attempt(s, "measure", _measure, s, want)
    per_row = {k: None if v is None else v / rows for k, v in size.items()}
    mib = {k: None if v is None else v / 2**20 for k, v in size.items()}
    note = "Cumulo: server VmRSS; PostgreSQL: pg_total_relation_size (heap + PK index)"
    return [
        ctx.figure(NAME, f"memory, {rows:,} rows x 3 columns", "MiB", "lower", mib, "measure",
                   note),
        ctx.figure(NAME, f"bytes per row, {rows:,} rows", "B", "lower", per_row, "measure", note),
    ]


def _measure(system: System, want: dict[int, tuple[int, int]]) -> float:
    """Runs the GROUP BY once, lets garbage collection pass, and returns the bytes held."""
    with system.connect() as conn:
        aggregation._query(conn, want)
        if system.name == "postgres":
            (n,) = conn.execute(
                f"SELECT pg_total_relation_size('{aggregation.TABLE}')").fetchone()
            return float(n)
    time.sleep(SETTLE_S)
    with system.connect() as conn:
        aggregation._query(conn, want)  # the copy is still right after collection
    pid = listening_pid(system.port)
    if pid is None:
        raise RuntimeError("cannot find the server's process")
    return float(vm_rss(pid))


def vm_rss(pid: int) -> int:
    """Returns a process's resident set size in bytes (Linux /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")
