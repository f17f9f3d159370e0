"""copyout: COPY TO STDOUT and a big SELECT of 1M rows, text and binary, in seconds and CPU.

The result paths alone, so that a change to how rows reach the wire shows up
without the rest of `bulk` around it: the rows of `bulk`'s COPY (bigint, int,
numeric(12,2), text, timestamp, boolean; --rows, default 1M) are loaded once per
system by COPY FROM (not timed), then read back four ways through psycopg:

- `COPY bench_copyout TO STDOUT` in text and in binary format, every CopyData read;
- `SELECT * FROM bench_copyout` fetched whole (`fetchall`) with text and with binary
  result formats (psycopg's `binary=True` cursor).

Each figure is the wall time and the server's CPU per row (the listening process
tree's user + system time; for PostgreSQL the postmaster's tree). The jobs start once
every server has gone quiet after its load (`server_cost.wait_quiet`): Cumulo's freeze
of the just-loaded rows into cold segments, PostgreSQL's autovacuum, would otherwise
overlap the first job; the figures are the steady state. The output is
checked: the COPY's bytes against PostgreSQL's when both systems run, the row count
and the sum of the ids of each SELECT.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..core import BenchError, Figure, RunContext
from ..server_cost import listening_pid, sample, wait_quiet
from ..systems import System
from .bulk import copy_text

NAME = "copyout"
DESCRIPTION = "COPY TO STDOUT and SELECT of 1M rows x 6 types, text and binary (s, CPU us/row)"
DDL = ("CREATE TABLE bench_copyout (id bigint PRIMARY KEY, g int, amount numeric(12,2), "
       "note text, ts timestamp, flag boolean)")


def rows_for(ctx: RunContext) -> int:
    return ctx.options.rows or max(1_000, int((ctx.options.scale or 1) * 1_000_000))


def _load(system: System, data: bytes) -> None:
    with system.connect() as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS bench_copyout")
        cur.execute(DDL)
        with cur.copy("COPY bench_copyout FROM STDIN") as cp:
            view = memoryview(data)
            for i in range(0, len(data), 1 << 16):
                cp.write(view[i:i + (1 << 16)])


def _copy(conn: Any, binary: bool) -> bytes:
    out = bytearray()
    with conn.cursor() as cur:
        with cur.copy("COPY bench_copyout TO STDOUT" + (" (FORMAT BINARY)" if binary else "")) \
                as cp:
            for block in cp:
                out += block
    return bytes(out)


def _select(conn: Any, binary: bool) -> tuple[int, int]:
    with conn.cursor(binary=binary) as cur:
        rows = cur.execute("SELECT * FROM bench_copyout").fetchall()
    return len(rows), sum(r[0] for r in rows)


def _timed(system: System, job: Callable[[Any], Any], n: int) -> tuple[float, float, Any]:
    """(seconds, server CPU us per row, the job's result) of one job on a fresh connection."""
    with system.connect() as conn:
        pid = listening_pid(system.port)
        before = sample(pid) if pid is not None else None
        start = time.perf_counter()
        got = job(conn)
        took = time.perf_counter() - start
        cpu = float("nan")
        if pid is not None and before is not None:
            cpu = (sample(pid).cpu_s - before.cpu_s) / n * 1e6
    return took, cpu, got


JOBS: dict[str, Callable[[Any], Any]] = {
    "COPY TO STDOUT text": lambda c: _copy(c, False),
    "COPY TO STDOUT binary": lambda c: _copy(c, True),
    "SELECT * fetchall, text results": lambda c: _select(c, False),
    "SELECT * fetchall, binary results": lambda c: _select(c, True),
}


def run(ctx: RunContext) -> list[Figure]:
    """Loads the rows into each system, then runs each job on each system in turn."""
    n = rows_for(ctx)
    data = copy_text(n)
    for system in ctx.systems:
        ctx.attempt(system, "load", _load, system, data)
        ctx.commands.append(f"{system.name}: COPY FROM {n} rows (not timed)")
    for system in ctx.systems:
        waited = wait_quiet(system.port)
        ctx.commands.append(f"{system.name}: quiet after {waited:.0f} s")
    figures = []
    for label, job in JOBS.items():
        seconds: dict[str, float | None] = {}
        cpu: dict[str, float | None] = {}
        outputs: dict[str, Any] = {}
        title = f"{label}, {n:,} rows x 6 types"
        for system in ctx.systems:
            out: Any = ctx.attempt(system, title, _timed, system, job, n)
            ctx.commands.append(f"{system.name}: {label}")
            seconds[system.name] = None if out is None else out[0]
            cpu[system.name] = None if out is None else out[1]
            if out is not None:
                outputs[system.name] = out[2]
        for name, got in outputs.items():
            if label.startswith("SELECT") and got != (n, n * (n + 1) // 2):
                raise BenchError(f"{name}: {label} gave {got[0]} rows, id sum {got[1]}")
            if label == "COPY TO STDOUT text" and got != data:
                raise BenchError(f"{name}: {label} is not the rows loaded")
        if label == "COPY TO STDOUT binary" and len(set(outputs.values())) > 1:
            raise BenchError(f"{label}: the systems' bytes differ")
        figures.append(ctx.figure(NAME, title, "s", "lower", seconds, title))
        figures.append(ctx.figure(NAME, f"{title}: server CPU per row", "us", "lower", cpu, title))
    for system in ctx.systems:
        with system.connect() as conn:
            conn.execute("DROP TABLE IF EXISTS bench_copyout")
    return figures
