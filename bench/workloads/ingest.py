"""ingest: narrow rows loaded three ways, in rows per second.

Loading is where an HTAP system first meets its data, and the three paths
cost very different amounts per row on the server:

- COPY text: `COPY ... FROM STDIN`, the bulk path (pgbench's and pg_dump's);
- COPY binary: `(FORMAT BINARY)`, written with psycopg 3's `write_row` after
  `set_types`, so the server parses no text at all;
- executemany: one INSERT per row, batched by the driver. It uses our own
  `cumulo.driver` when it is importable (against both systems, so the client
  is the same), otherwise psycopg 3 (pipeline mode); the run notes which.

The table is `bench_ingest(id bigint PRIMARY KEY, g int, x float8)`: a key
because every real table has one and a KV store needs one. Rows go in batches
of BATCH (one COPY or one executemany + commit each), so a slow system can be
cut off after `--seconds` per method without losing what it measured: the
rate is rows loaded / time spent loading, and the figure's note says when a
system was cut off. Generating the rows is not timed. After each method the
loaded rows are counted and summed on the server, so a fast wrong load
cannot pass as a fast load. Methods alternate between the systems.

Options: --scale (millions of rows, default 1) or --rows; executemany loads a
tenth as many (INSERT is 10-100x slower than COPY everywhere); --seconds is
the cap per method per system (default 30).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg

from ..core import BenchError, Figure, RunContext
from ..progress import Progress
from ..systems import System

NAME = "ingest"
DESCRIPTION = "1M narrow rows through COPY text, COPY binary and executemany (rows/s)"
TABLE = "bench_ingest"
DDL = (
    f"CREATE TABLE {TABLE} (id bigint PRIMARY KEY, g integer NOT NULL, x double precision NOT NULL)"
)
COLUMNS = f"{TABLE} (id, g, x)"
BATCH = 100_000
EXECUTEMANY_BATCH = 10_000
GROUPS = 100


def rows_for(ctx: RunContext) -> int:
    """Returns how many rows the COPY methods load."""
    return ctx.options.rows or max(1, int((ctx.options.scale or 1) * 1_000_000))


def chunks(total: int, size: int) -> Iterator[range]:
    """Yields consecutive ranges of ids 1..total, `size` at a time."""
    for start in range(1, total + 1, size):
        yield range(start, min(start + size, total + 1))


def text_chunk(ids: range) -> bytes:
    """Returns COPY text data for a range of ids: id, id % 100, id / 2."""
    return "".join([f"{i}\t{i % GROUPS}\t{i * 0.5}\n" for i in ids]).encode()


def tuples_chunk(ids: range) -> list[tuple[int, int, float]]:
    """Returns the same rows as Python tuples."""
    return [(i, i % GROUPS, i * 0.5) for i in ids]


def driver() -> tuple[str, Callable[[str], Any], str]:
    """Returns (name, connect(dsn), placeholder) of the executemany client: cumulo.driver or psycopg."""
    try:
        import cumulo.driver as ours

        connect = ours.connect
        marks = {
            "qmark": "?",
            "numeric": ":{n}",
            "named": ":p{n}",
            "format": "%s",
            "pyformat": "%s",
        }
        mark = marks[getattr(ours, "paramstyle", "format")]
        return "cumulo.driver", connect, mark
    except (ImportError, AttributeError, KeyError):
        return (
            "psycopg " + psycopg.__version__,
            lambda dsn: psycopg.connect(dsn, connect_timeout=30),
            "%s",
        )


def insert_sql(mark: str) -> str:
    """Returns the INSERT for executemany with the driver's placeholders."""
    marks = ", ".join(mark.format(n=n) for n in (1, 2, 3))
    return f"INSERT INTO {COLUMNS} VALUES ({marks})"


def run(ctx: RunContext) -> list[Figure]:
    """Loads the rows with each method on each system, alternating systems per method."""
    total = rows_for(ctx)
    many_total = max(1_000, total // 10)
    name, _, _ = driver()
    ctx.notes.append(f"ingest executemany used {name}")
    methods = {
        "COPY text": (total, _copy_text),
        "COPY binary": (total, _copy_binary),
        f"executemany ({name})": (many_total, _executemany),
    }
    figures = []
    for method, (rows, load) in methods.items():
        rates: dict[str, float | None] = {}
        notes = []
        for system in ctx.systems:
            out = ctx.attempt(system, method, _measure, ctx, system, load, rows, method)
            rates[system.name] = None if out is None else out[0] / out[1]
            if out is not None and out[0] < rows:
                notes.append(f"{system.name} cut off after {out[0]:,} of {rows:,} rows")
        label = f"{method}, {rows:,} rows"
        figures.append(ctx.figure(NAME, label, "rows/s", "higher", rates, method, "; ".join(notes)))
    return figures


def _measure(
    ctx: RunContext, system: System, load: Callable, rows: int, method: str
) -> tuple[int, float]:
    """Recreates the table, runs one load method, checks the rows; returns (rows, seconds)."""
    with system.connect() as conn:
        conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
        conn.execute(DDL)
    ctx.commands.append(f"{system.name}: {method}: {rows} rows into {DDL}")
    with Progress(f"{system.label:<10} {method}", rows) as bar:
        loaded, seconds = load(system, rows, ctx.options.seconds, bar)
    with system.connect() as conn:
        count, total = conn.execute(f"SELECT count(*), sum(id) FROM {TABLE}").fetchone()
        conn.execute(f"DROP TABLE {TABLE}")
    expected = loaded * (loaded + 1) // 2
    if count != loaded or int(total or 0) != expected:
        raise BenchError(f"loaded {loaded} rows but the table has count={count}, sum(id)={total}")
    return loaded, seconds


def _copy_text(system: System, rows: int, cap: float, bar: Progress) -> tuple[int, float]:
    """Loads with COPY text, BATCH rows per COPY statement."""
    spent, loaded = 0.0, 0
    with system.connect() as conn, conn.cursor() as cur:
        for ids in chunks(rows, BATCH):
            data = text_chunk(ids)
            start = time.perf_counter()
            with cur.copy(f"COPY {COLUMNS} FROM STDIN") as copy:
                copy.write(data)
            spent += time.perf_counter() - start
            loaded += len(ids)
            bar.advance(len(ids))
            if spent > cap:
                break
    return loaded, spent


def _copy_binary(system: System, rows: int, cap: float, bar: Progress) -> tuple[int, float]:
    """Loads with COPY binary via psycopg's typed write_row, BATCH rows per COPY."""
    spent, loaded = 0.0, 0
    with system.connect() as conn, conn.cursor() as cur:
        for ids in chunks(rows, BATCH):
            data = tuples_chunk(ids)
            start = time.perf_counter()
            with cur.copy(f"COPY {COLUMNS} FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int8", "int4", "float8"])
                for row in data:
                    copy.write_row(row)
            spent += time.perf_counter() - start
            loaded += len(ids)
            bar.advance(len(ids))
            if spent > cap:
                break
    return loaded, spent


def _executemany(system: System, rows: int, cap: float, bar: Progress) -> tuple[int, float]:
    """Loads with executemany, EXECUTEMANY_BATCH rows per call, one commit per call."""
    _, connect, mark = driver()
    sql = insert_sql(mark)
    spent, loaded = 0.0, 0
    conn = connect(system.dsn)
    try:
        cur = conn.cursor()
        for ids in chunks(rows, EXECUTEMANY_BATCH):
            data = tuples_chunk(ids)
            start = time.perf_counter()
            cur.executemany(sql, data)
            conn.commit()
            spent += time.perf_counter() - start
            loaded += len(ids)
            bar.advance(len(ids))
            if spent > cap:
                break
    finally:
        conn.close()
    return loaded, spent
