"""Driver throughput next to psycopg 3 and asyncpg, against a throwaway PostgreSQL 15.

    python -m tests.driver.bench_driver [--rows 100000] [--fetch 1000000] [--cumulo]

Measures executemany of `--rows` rows (int, text, float, timestamp) and a
fetch of `--fetch` rows (int, text, float) with each driver, and prints
seconds, rows per second and the client's CPU seconds (the part a driver
controls; wall time on a busy machine mostly measures the neighbours). It is
a measurement, not a test: nothing is
asserted, and pytest does not collect it. `--cumulo` also runs the
cumulo.driver numbers against a `cumulo serve` (smaller sizes).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import shutil
import time
from collections.abc import Callable

import asyncpg
import psycopg

import cumulo.driver as drv
from cumulo.driver import aio
from tests.pg15 import PG15
from tests.server_process import CumuloServer

TS = datetime.datetime(2024, 1, 2, 3, 4, 5)
INSERT = "insert into bench_t values (%s, %s, %s, %s)"
FETCH = "select g, 'row ' || g::text, g * 0.5::float8 from generate_series(1, {n}) g"


def _rows(n: int) -> list[tuple]:
    return [(i, f"value {i}", i * 0.25, TS) for i in range(n)]


def _report(label: str, n: int, dt: float, cpu: float) -> None:
    print(f"  {label:<46} {dt:7.2f} s {n / dt:11,.0f} rows/s   client CPU {cpu:6.2f} s",
          flush=True)


def _timed(label: str, n: int, fn: Callable[[], object]) -> float:
    t, c = time.perf_counter(), time.process_time()
    fn()
    dt = time.perf_counter() - t
    _report(label, n, dt, time.process_time() - c)
    return dt


async def _atimed(label: str, n: int, coro) -> None:  # noqa: ANN001 - any awaitable
    t, c = time.perf_counter(), time.process_time()
    await coro
    _report(label, n, time.perf_counter() - t, time.process_time() - c)


def _reset(cur) -> None:  # noqa: ANN001 - any DB-API cursor
    cur.execute("drop table if exists bench_t")
    cur.execute("create table bench_t (id int, v text, f float8, ts timestamp)")


def bench_sync(dsn: str, rows: int, fetch: int, with_psycopg: bool) -> None:
    data = _rows(rows)
    c = drv.connect(dsn)
    cur = c.cursor()
    _reset(cur)
    c.commit()
    _timed(f"cumulo.driver executemany {rows:,}", rows,
           lambda: (cur.executemany(INSERT, data), c.commit()))
    cur.arraysize = 10_000

    def fetch_all() -> None:
        cur.execute(FETCH.format(n=fetch))
        while cur.fetchmany():
            pass
        c.rollback()

    _timed(f"cumulo.driver fetch {fetch:,} (fetchmany 10k)", fetch, fetch_all)
    c.autocommit = True
    _timed(f"cumulo.driver fetch {fetch:,} (autocommit fetchall)", fetch,
           lambda: cur.execute(FETCH.format(n=fetch)).fetchall())
    c.close()
    if not with_psycopg:
        return
    pc = psycopg.connect(dsn.replace("cumulo://", "postgresql://"))
    pcur = pc.cursor()
    _reset(pcur)
    pc.commit()
    _timed(f"psycopg executemany {rows:,}", rows,
           lambda: (pcur.executemany(INSERT, data), pc.commit()))

    def pfetch() -> None:
        with pc.cursor(name="big") as named:  # a server-side cursor streams like ours
            named.itersize = 10_000
            named.execute(FETCH.format(n=fetch))
            while named.fetchmany(10_000):
                pass
        pc.rollback()

    _timed(f"psycopg fetch {fetch:,} (named cursor)", fetch, pfetch)
    _timed(f"psycopg fetch {fetch:,} (client cursor fetchall)", fetch,
           lambda: (pcur.execute(FETCH.format(n=fetch)).fetchall(), pc.rollback()))
    _timed(f"psycopg fetch {fetch:,} (binary fetchall)", fetch,
           lambda: (pc.cursor(binary=True).execute(FETCH.format(n=fetch)).fetchall(),
                    pc.rollback()))
    pc.close()


async def bench_aio(dsn: str, rows: int, fetch: int, with_asyncpg: bool) -> None:
    data = _rows(rows)
    sql = "insert into bench_t values ($1, $2, $3, $4)"
    conn = await aio.connect(dsn)
    await conn.execute("truncate bench_t")
    await _atimed(f"cumulo.driver.aio executemany {rows:,}", rows, conn.executemany(sql, data))
    await _atimed(f"cumulo.driver.aio fetch {fetch:,}", fetch, conn.fetch(FETCH.format(n=fetch)))
    await conn.close()
    if not with_asyncpg:
        return
    conn = await asyncpg.connect(dsn.replace("cumulo://", "postgresql://"))
    await conn.execute("truncate bench_t")
    await _atimed(f"asyncpg executemany {rows:,}", rows, conn.executemany(sql, data))
    await _atimed(f"asyncpg fetch {fetch:,}", fetch, conn.fetch(FETCH.format(n=fetch)))
    await conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--fetch", type=int, default=1_000_000)
    ap.add_argument("--cumulo", action="store_true", help="also run against cumulo serve")
    args = ap.parse_args()
    pg = PG15().start()
    try:
        dsn = pg.dsn().replace("postgresql://", "cumulo://") + "?sslmode=disable"
        print(f"PostgreSQL 15 ({args.rows:,} rows inserted, {args.fetch:,} fetched):")
        bench_sync(dsn, args.rows, args.fetch, True)
        asyncio.run(bench_aio(dsn, args.rows, args.fetch, True))
    finally:
        pg.stop()
    if args.cumulo:
        server = CumuloServer().start()
        try:
            rows, fetch = args.rows // 10, args.fetch // 10
            dsn = f"cumulo://cumulo@127.0.0.1:{server.port}/cumulo"
            print(f"cumulo serve ({rows:,} rows inserted, {fetch:,} fetched):")
            bench_sync(dsn, rows, fetch, False)
            asyncio.run(bench_aio(dsn, rows, fetch, False))
        finally:
            server.stop()
            shutil.rmtree(server.data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
