"""bulk: the bulk paths a new user tries first, in seconds (lower is better).

Each figure is one job done the same way on both systems, in the same run:

- `pandas.DataFrame.to_sql` of --rows rows (default 100k) of 7 columns (bigint, bigint,
  float8, text, timestamp, boolean, nullable text), with `if_exists="replace"`: through
  SQLAlchemy's `cumulo://` dialect on Cumulo and `postgresql+psycopg://` on PostgreSQL
  (the stock dialect, also timed on Cumulo); `read_sql` of the same table back;
- COPY FROM STDIN and COPY TO STDOUT of the same rows of bigint, int, numeric(12,2), text,
  timestamp, boolean (10x --rows, default 1M), in text format through psycopg;
- executemany of 20k rows x 6 columns through psycopg (pipeline), asyncpg and
  `cumulo.driver` (when importable), one transaction. All three pipeline one Bind/Execute
  per row up to one Sync, which Cumulo runs as one bulk write (pgwire/insertbatch.py);
- the same 20k rows through psycopg's `executemany(..., returning=True)` into a table
  with a bigserial key, `RETURNING id` (what an ORM's bulk insert asks): every id is read
  back and must be 1..20k.

After each load the rows are counted and summed on the server, so a fast wrong load
cannot pass. --seconds does not cut these jobs short; use --rows for a quick run.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import Any

from ..core import BenchError, Figure, RunContext
from ..server_cost import listening_pid, sample
from ..systems import System

NAME = "bulk"
DESCRIPTION = "to_sql / read_sql, COPY FROM/TO (6 common types) and executemany, seconds"
COPY_DDL = ("CREATE TABLE bench_bulk (id bigint PRIMARY KEY, g int, amount numeric(12,2), "
            "note text, ts timestamp, flag boolean)")
MANY_ROWS = 20_000


def rows_for(ctx: RunContext) -> int:
    """The to_sql row count (COPY moves ten times as many)."""
    return ctx.options.rows or max(1_000, int((ctx.options.scale or 0.1) * 1_000_000))


def copy_text(n: int) -> bytes:
    """COPY text of n rows: id, id % 1000, a numeric(12,2), a note, a timestamp, a boolean."""
    return "".join(
        f"{i}\t{i % 1000}\t{i % 100000}.{i % 100:02d}\tnote number {i}\t"
        f"2024-01-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:{i % 60:02d}\t{'t' if i % 2 else 'f'}\n"
        for i in range(1, n + 1)).encode()


def frame(n: int) -> Any:
    """The DataFrame to_sql writes (pandas and numpy are imported only when this runs)."""
    import numpy as np
    import pandas as pd

    ids = np.arange(1, n + 1)
    return pd.DataFrame({
        "id": ids, "a": ids * 2, "b": ids * 0.5, "c": [f"x{i}" for i in range(n)],
        "d": pd.Timestamp("2020-01-01") + pd.to_timedelta(ids, "s"),
        "e": ids % 2 == 0, "f": [None if i % 3 else f"y{i}" for i in range(n)],
    })


def _url(system: System, dialect: str) -> str:
    return system.dsn.replace("postgresql://", f"{dialect}://", 1)


def _to_sql(system: System, df: Any, dialect: str) -> tuple[float, float]:
    import pandas as pd
    import sqlalchemy as sa

    engine = sa.create_engine(_url(system, dialect))
    try:
        start = time.perf_counter()
        df.to_sql("bench_to_sql", engine, if_exists="replace", index=False)
        wrote = time.perf_counter() - start
        start = time.perf_counter()
        back = pd.read_sql("SELECT * FROM bench_to_sql", engine)
        read = time.perf_counter() - start
    finally:
        engine.dispose()
    if len(back) != len(df) or int(back["id"].sum()) != int(df["id"].sum()):
        raise BenchError(f"to_sql wrote {len(df)} rows, read_sql got {len(back)}")
    return wrote, read


def _copy(system: System, n: int) -> tuple[float, float]:
    data = copy_text(n)
    with system.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS bench_bulk")
        conn.execute(COPY_DDL)
        with conn.cursor() as cur:
            start = time.perf_counter()
            with cur.copy("COPY bench_bulk FROM STDIN") as cp:
                for i in range(0, len(data), 1 << 16):
                    cp.write(data[i:i + (1 << 16)])
            copied_in = time.perf_counter() - start
            start, size = time.perf_counter(), 0
            with cur.copy("COPY bench_bulk TO STDOUT") as cp:
                for block in cp:
                    size += len(block)
            copied_out = time.perf_counter() - start
        count, total = conn.execute("SELECT count(*), sum(id) FROM bench_bulk").fetchone()
        conn.execute("DROP TABLE bench_bulk")
    if count != n or int(total) != n * (n + 1) // 2 or size != len(data):
        raise BenchError(f"COPY of {n} rows: count={count}, sum={total}, {size} bytes out")
    return copied_in, copied_out


def _many_rows(n: int) -> list[tuple]:
    base = dt.datetime(2024, 1, 1)
    return [(i, i % 1000, f"{i % 1000}.25", f"note {i}", base + dt.timedelta(seconds=i),
             i % 2 == 0) for i in range(1, n + 1)]


def _asyncpg_many(dsn: str, rows: list[tuple]) -> float:
    """asyncpg's executemany inside one transaction; amount goes as Decimal (numeric)."""
    import asyncio
    from decimal import Decimal

    import asyncpg

    typed = [(a, b, Decimal(c), d, e, f) for a, b, c, d, e, f in rows]

    async def go() -> float:
        conn = await asyncpg.connect(dsn, ssl=False)
        try:
            start = time.perf_counter()
            async with conn.transaction():
                await conn.executemany(
                    "INSERT INTO bench_bulk VALUES ($1, $2, $3, $4, $5, $6)", typed)
            return time.perf_counter() - start
        finally:
            await conn.close()

    return asyncio.run(go())


def _executemany(system: System, client: str) -> tuple[float, float | None]:
    """(seconds, the server's CPU microseconds per row) of one executemany and commit."""
    rows = _many_rows(MANY_ROWS)
    with system.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS bench_bulk")
        conn.execute(COPY_DDL)
    pid = listening_pid(system.port)
    before = sample(pid) if pid is not None else None
    took = _load_many(system, client, rows)
    cpu = None
    if pid is not None and before is not None:
        cpu = (sample(pid).cpu_s - before.cpu_s) / MANY_ROWS * 1e6
    return _counted(system, took), cpu


def _load_many(system: System, client: str, rows: list[tuple]) -> float:
    if client == "asyncpg":
        return _asyncpg_many(system.dsn, rows)
    if client == "psycopg":
        import psycopg

        conn = psycopg.connect(system.dsn, connect_timeout=30)
        sql = "INSERT INTO bench_bulk VALUES (%s, %s, %s, %s, %s, %s)"
    else:
        import cumulo.driver as ours

        conn = ours.connect(system.dsn)
        mark = {"qmark": "?", "numeric": ":{n}", "named": ":p{n}", "format": "%s",
                "pyformat": "%s"}[ours.paramstyle]
        sql = "INSERT INTO bench_bulk VALUES (" + ", ".join(
            mark.format(n=k) for k in range(1, 7)) + ")"
    try:
        start = time.perf_counter()
        conn.cursor().executemany(sql, rows)
        conn.commit()
        took = time.perf_counter() - start
    finally:
        conn.close()
    return took


def _returning(system: System) -> float:
    """psycopg executemany with RETURNING id into a bigserial table, one transaction."""
    import psycopg

    rows = [(g, note, ts) for _, g, _, note, ts, _ in _many_rows(MANY_ROWS)]
    with system.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS bench_ret")
        conn.execute("CREATE TABLE bench_ret (id bigserial PRIMARY KEY, g int, note text, "
                     "ts timestamp)")
    with psycopg.connect(system.dsn, connect_timeout=30) as conn:
        cur = conn.cursor()
        start = time.perf_counter()
        cur.executemany("INSERT INTO bench_ret (g, note, ts) VALUES (%s, %s, %s) RETURNING id",
                        rows, returning=True)
        ids = []
        while True:
            ids += [r[0] for r in cur.fetchall()]
            if not cur.nextset():
                break
        conn.commit()
        took = time.perf_counter() - start
    with system.connect() as check:
        check.execute("DROP TABLE bench_ret")
    if ids != list(range(1, MANY_ROWS + 1)):
        raise BenchError(f"executemany RETURNING gave {len(ids)} ids, not 1..{MANY_ROWS}")
    return took


def _counted(system: System, took: float) -> float:
    """Checks that the load left MANY_ROWS rows, drops the table; returns `took`."""
    with system.connect() as check:
        count = check.execute("SELECT count(*) FROM bench_bulk").fetchone()[0]
        check.execute("DROP TABLE bench_bulk")
    if count != MANY_ROWS:
        raise BenchError(f"executemany of {MANY_ROWS} rows left {count}")
    return took


def run(ctx: RunContext) -> list[Figure]:
    """Runs each job on each system, the systems taking turns per job."""
    n = rows_for(ctx)
    df = frame(n)
    figures = []
    results: dict[str, dict[str, float | None]] = {}
    cpu_per_row: dict[str, dict[str, float | None]] = {}

    def record(label: str, system: System, fn: Callable[..., Any], *args: Any) -> Any:
        out = ctx.attempt(system, label, fn, *args)
        ctx.commands.append(f"{system.name}: {label}")
        return out

    for system in ctx.systems:
        dialect = "cumulo" if system.name == "cumulo" else "postgresql+psycopg"
        out = record(f"to_sql {dialect}", system, _to_sql, system, df, dialect)
        results.setdefault(f"pandas to_sql, {n:,} rows (cumulo:// on Cumulo)", {})[
            system.name] = None if out is None else out[0]
        results.setdefault(f"pandas read_sql, {n:,} rows", {})[
            system.name] = None if out is None else out[1]
        if system.name == "cumulo":
            out = record("to_sql postgresql+psycopg", system, _to_sql, system, df,
                         "postgresql+psycopg")
            results.setdefault(f"pandas to_sql, {n:,} rows (postgresql+psycopg)", {})[
                system.name] = None if out is None else out[0]
    for system in ctx.systems:
        if system.name == "postgres":
            results[f"pandas to_sql, {n:,} rows (postgresql+psycopg)"]["postgres"] = \
                results[f"pandas to_sql, {n:,} rows (cumulo:// on Cumulo)"].get("postgres")
    copy_rows = n * 10
    for system in ctx.systems:
        out = record("copy", system, _copy, system, copy_rows)
        results.setdefault(f"COPY FROM STDIN, {copy_rows:,} rows x 6 types", {})[
            system.name] = None if out is None else out[0]
        results.setdefault(f"COPY TO STDOUT, {copy_rows:,} rows x 6 types", {})[
            system.name] = None if out is None else out[1]
    clients = ["psycopg", "asyncpg"]
    try:
        import cumulo.driver  # noqa: F401

        clients.append("cumulo.driver")
    except ImportError:
        ctx.notes.append("bulk: cumulo.driver not importable; executemany through psycopg only")
    for client in clients:
        for system in ctx.systems:
            out = record(f"executemany {client}", system, _executemany, system, client)
            results.setdefault(f"executemany {MANY_ROWS:,} rows x 6 ({client})", {})[
                system.name] = None if out is None else out[0]
            cpu_per_row.setdefault(f"executemany server CPU per row ({client})", {})[
                system.name] = None if out is None else out[1]
    for system in ctx.systems:
        out = record("executemany returning", system, _returning, system)
        results.setdefault(f"executemany {MANY_ROWS:,} rows, bigserial, RETURNING id (psycopg)",
                           {})[system.name] = out
    for label, values in results.items():
        figures.append(ctx.figure(NAME, label, "s", "lower", values, label))
    for label, values in cpu_per_row.items():
        figures.append(ctx.figure(NAME, label, "us", "lower", values, label))
    return figures
