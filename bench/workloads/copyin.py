"""copyin: COPY FROM STDIN of 1M rows, text and binary, wide (6 types) and narrow rows.

The bulk load path alone, in seconds and in server CPU per row, so that a change to
COPY's parse, convert, write or commit shows up without the rest of `bulk` and
`ingest` around it:

- wide: `(id bigint PRIMARY KEY, g int, amount numeric(12,2), note text, ts timestamp,
  flag boolean)`, the rows of `bulk`'s COPY;
- narrow: `(id bigint PRIMARY KEY, g int, x float8)`, the rows of `ingest`.

Each is loaded by one `COPY ... FROM STDIN` (the whole million rows in one statement,
sent in 64 KiB CopyData messages, as `\\copy` and psycopg's `copy.write` do), in text
and in binary format. The binary input is what PostgreSQL's own `COPY TO (FORMAT
BINARY)` writes for the text rows, taken once before anything is timed, so neither
system pays for a client-side encoder. After each load the rows are counted and summed.

Server CPU is the listening process tree's user + system time over the load (for
PostgreSQL, the postmaster's tree: the backend, the checkpointer, the WAL writer).
"""

from __future__ import annotations

import time
from typing import Any

from ..core import BenchError, Figure, RunContext
from ..server_cost import listening_pid, sample
from ..systems import System
from .bulk import copy_text
from .ingest import text_chunk

NAME = "copyin"
DESCRIPTION = "COPY FROM STDIN of 1M rows, text and binary, 6 types and narrow (s, CPU us/row)"
SHAPES = {
    "6 types": ("CREATE TABLE bench_copyin (id bigint PRIMARY KEY, g int, amount numeric(12,2), "
                "note text, ts timestamp, flag boolean)", copy_text),
    "narrow": ("CREATE TABLE bench_copyin (id bigint PRIMARY KEY, g integer NOT NULL, "
               "x double precision NOT NULL)", lambda n: text_chunk(range(1, n + 1))),
}
CHUNK = 1 << 16


def rows_for(ctx: RunContext) -> int:
    return ctx.options.rows or max(1_000, int((ctx.options.scale or 1) * 1_000_000))


def _binary_of(system: System, ddl: str, text: bytes) -> bytes:
    """The binary COPY form of `text`, as the system's COPY TO writes it."""
    with system.connect() as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS bench_copyin")
        cur.execute(ddl)
        with cur.copy("COPY bench_copyin FROM STDIN") as cp:
            cp.write(text)
        out = bytearray()
        with cur.copy("COPY bench_copyin TO STDOUT (FORMAT BINARY)") as cp:
            for block in cp:
                out += block
        cur.execute("DROP TABLE bench_copyin")
    return bytes(out)


def _load(system: System, ddl: str, data: bytes, binary: bool, n: int) -> tuple[float, float]:
    """(seconds, server CPU us per row) of one COPY of `data`; checks the rows."""
    with system.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS bench_copyin")
        conn.execute(ddl)
        pid = listening_pid(system.port)
        with conn.cursor() as cur:
            before = sample(pid) if pid is not None else None
            start = time.perf_counter()
            opts = " (FORMAT BINARY)" if binary else ""
            with cur.copy(f"COPY bench_copyin FROM STDIN{opts}") as cp:
                view = memoryview(data)
                for i in range(0, len(data), CHUNK):
                    cp.write(view[i:i + CHUNK])
            took = time.perf_counter() - start
            cpu = float("nan")
            if pid is not None and before is not None:
                cpu = (sample(pid).cpu_s - before.cpu_s) / n * 1e6
        count, total = conn.execute("SELECT count(*), sum(id) FROM bench_copyin").fetchone()
        conn.execute("DROP TABLE bench_copyin")
    if count != n or int(total) != n * (n + 1) // 2:
        raise BenchError(f"COPY of {n} rows left count={count}, sum={total}")
    return took, cpu


def run(ctx: RunContext) -> list[Figure]:
    """Loads each shape in text then binary, the systems taking turns per load."""
    n = rows_for(ctx)
    pg = next((s for s in ctx.systems if s.name == "postgres"), ctx.systems[0])
    figures = []
    for shape, (ddl, make) in SHAPES.items():
        text = make(n)
        binary = _binary_of(pg, ddl, text)
        for fmt, data in (("text", text), ("binary", binary)):
            seconds: dict[str, float | None] = {}
            cpu: dict[str, float | None] = {}
            label = f"COPY FROM STDIN {fmt}, {n:,} rows, {shape}"
            for system in ctx.systems:
                out: Any = ctx.attempt(system, label, _load, system, ddl, data, fmt == "binary",
                                       n)
                ctx.commands.append(f"{system.name}: COPY {shape} {fmt} {n} rows")
                seconds[system.name] = None if out is None else out[0]
                cpu[system.name] = None if out is None else out[1]
            figures.append(ctx.figure(NAME, label, "s", "lower", seconds, label))
            figures.append(ctx.figure(NAME, f"{label}: server CPU per row", "us", "lower", cpu,
                                      label))
    return figures
