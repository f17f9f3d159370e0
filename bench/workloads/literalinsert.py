"""literalinsert: multi-row INSERT ... VALUES of literals, in ms per 1,000 rows.

What psycopg2's `execute_values`, `pg_dump --inserts --rows-per-insert` and
ORMs that render literals send: one simple-protocol statement of many rows of
constants, `(1, 'name1', '2024-01-01 00:00:00', 1.5), (2, ...), ...`. Cumulo
turns such rows into parameters in C-level passes (`server/sql/literalrows.py`)
and inserts them through the parameterised multi-row path.

Statements of 1,000 and of 10,000 rows (bigint key, text, timestamp, numeric;
--rows total, default 40,000, into a fresh table per size) go through psycopg's
simple Query (libpq `PQexec`, as psycopg2 sends them). Each figure is the wall
time per 1,000 rows; the stored row count and the key sum are checked.
"""

from __future__ import annotations

import time
from typing import Any

from ..core import BenchError, Figure, RunContext
from ..systems import System

NAME = "literalinsert"
DESCRIPTION = "multi-row INSERT of literal VALUES, 1k- and 10k-row statements (ms per 1,000 rows)"
DDL = "CREATE TABLE bench_litins (id bigint PRIMARY KEY, name text, ts timestamp, x numeric)"
SIZES = (1_000, 10_000)


def _statement(start: int, n: int) -> bytes:
    rows = ",".join(f"({k},'name''{k}','2024-01-{k % 28 + 1:02d} 00:00:00',{k}.5)"
                    for k in range(start, start + n))
    return f"INSERT INTO bench_litins VALUES {rows}".encode()


def _load(system: System, statements: list[bytes], total: int) -> float:
    """Seconds to run every statement, after checking what was stored."""
    with system.connect() as conn:
        conn.autocommit = True
        conn.execute("DROP TABLE IF EXISTS bench_litins")
        conn.execute(DDL)
        pgc: Any = conn.pgconn
        start = time.perf_counter()
        for sql in statements:
            res = pgc.exec_(sql)
            if res.error_message:
                raise BenchError(res.error_message.decode())
        took = time.perf_counter() - start
        got = conn.execute("SELECT count(*), sum(id) FROM bench_litins").fetchone()
        conn.execute("DROP TABLE bench_litins")
    if got is None or tuple(got) != (total, total * (total - 1) // 2):
        raise BenchError(f"{system.name}: stored {got}, expected {total} rows")
    return took


def run(ctx: RunContext) -> list[Figure]:
    total = ctx.options.rows or 40_000
    figures = []
    for size in SIZES:
        n = max(size, total // size * size)
        statements = [_statement(s, size) for s in range(0, n, size)]
        per_k: dict[str, float | None] = {}
        title = f"INSERT of {size:,}-row literal VALUES ({n:,} rows): ms per 1,000 rows"
        for system in ctx.systems:
            took = ctx.attempt(system, title, _load, system, statements, n)
            ctx.commands.append(f"{system.name}: {len(statements)} x INSERT of {size} rows")
            per_k[system.name] = None if took is None else took / n * 1e6  # NB: s/row * 1e6 = ms per 1,000 rows
        figures.append(ctx.figure(NAME, title, "ms", "lower", per_k, title))
    return figures
