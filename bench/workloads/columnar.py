"""columnar: the analytic queries of issue 11 on live data, with `cumulo.columnar` on and off.

One table of N rows (default 1M; `--rows`/`--scale`), loaded by COPY, then 1%
of its rows updated (one UPDATE), so the columnar copy has dirty packs and a
tail, as in a live OLTP table. Then, each the median of 3 timed runs after a
warm-up, the systems taking turns:

- `GROUP BY g` (100 groups: count, sum) after the 1% update;
- `WHERE g < 90 ORDER BY price LIMIT 10` (90% of the rows pass the filter);
- both again on Cumulo with `SET cumulo.columnar = off` (the row path), against
  the same PostgreSQL figures;
- freshness: one session commits an INSERT, another at once runs a columnar
  count that must see it; the figure is the p99 over 50 commits of the time
  from the commit's acknowledgement to the end of the first query that sees
  the row (PostgreSQL: the same, as the reference).

Every answer is checked: GROUP BY against closed-form sums, top-N against
PostgreSQL's rows.

`CUMULO_BENCH_COLUMNAR_MODES=auto` times Cumulo with `cumulo.columnar = auto` only
(at 10M rows the row path's runs alone take minutes).
"""

from __future__ import annotations

import os
import time
from typing import Any

import psycopg

from ..core import BenchError, Figure, RunContext, median
from ..progress import Progress
from ..systems import System
from .ingest import chunks

NAME = "columnar"
DESCRIPTION = "GROUP BY after 1% updates, ORDER BY ... LIMIT 10, freshness; columnar on/off"
TABLE = "bench_col"
DDL = (f"CREATE TABLE {TABLE} (id bigint PRIMARY KEY, g integer NOT NULL, x bigint NOT NULL, "
       "price double precision NOT NULL)")
GROUP_Q = f"SELECT g, count(*), sum(x) FROM {TABLE} GROUP BY g"
TOPN_Q = f"SELECT id, price FROM {TABLE} WHERE g < 90 ORDER BY price, id LIMIT 10"
FRESH_Q = f"SELECT count(*) FROM {TABLE} WHERE id > %s"
GROUPS = 100
BATCH = 100_000
WARMUPS, RUNS = 1, 3
FRESH_SAMPLES = 50
MODES = tuple(os.environ.get("CUMULO_BENCH_COLUMNAR_MODES", "auto,off").split(","))


def _price(i: int) -> float:
    return float((i * 7919) % 1_000_003) / 100.0


def rows_of(options: Any) -> int:
    if options.rows:
        return int(options.rows)
    if options.scale:
        return max(1, int(options.scale * 1_000_000))
    return 1_000_000


def expected(rows: int) -> dict[int, tuple[int, int]]:
    """{g: (count, sum(x))} after the load (x = id) and the update (x += 1 where id % 100 = 7)."""
    out: dict[int, list[int]] = {}
    for g in range(GROUPS):
        first = g or GROUPS
        n = 0 if first > rows else (rows - first) // GROUPS + 1
        if n:
            out[g] = [n, n * first + GROUPS * n * (n - 1) // 2]
    if 7 in out:
        out[7][1] += out[7][0]  # every id with id % 100 = 7 is in group 7
    return {g: (c, s) for g, (c, s) in out.items()}


def run(ctx: RunContext) -> list[Figure]:
    rows = rows_of(ctx.options)
    want = expected(rows)
    load_s = {s.name: ctx.attempt(s, "load", _load, ctx, s, rows) for s in ctx.systems}
    up = [s for s in ctx.systems if load_s[s.name] is not None]
    times: dict[tuple[str, str], list[float]] = {}
    answers: dict[str, Any] = {}
    conns = {s.name: ctx.attempt(s, "query", s.connect) for s in up}
    variants = [(s, mode) for s in up for mode in (MODES if s.name == "cumulo" else ("pg",))]
    try:
        for i in range(WARMUPS + RUNS):
            for s, mode in variants:
                conn = conns[s.name]
                if conn is None:
                    continue
                if s.name == "cumulo":
                    conn.execute(f"SET cumulo.columnar = {mode}")
                for q in ("group", "topn"):
                    got = ctx.attempt(s, q, _timed, conn, GROUP_Q if q == "group" else TOPN_Q)
                    if got is None:
                        continue
                    secs, result = got
                    if q == "group":
                        _check_groups(result, want)
                    else:
                        answers.setdefault(f"{s.name}-{mode}", result)
                    if i >= WARMUPS:
                        times.setdefault((f"{s.name}-{mode}", q), []).append(secs)
        ref = answers.get("postgres-pg")
        for k, v in answers.items():
            if ref is not None and v != ref:
                raise BenchError(f"top-N answer of {k} differs from PostgreSQL's")
        fresh = {s.name: ctx.attempt(s, "freshness", _freshness, s, rows) for s in up}
    finally:
        for c in conns.values():
            if c is not None:
                c.close()
    ctx.commands += [GROUP_Q, TOPN_Q, FRESH_Q + " (freshness probe)"]

    def med(key: str, q: str) -> float | None:
        t = times.get((key, q), [])
        return median(t) if len(t) == RUNS else None

    out = [ctx.figure(NAME, f"load (COPY) {rows:,} rows + UPDATE 1%", "s", "lower", load_s,
                      "load")]
    for q, label in (("group", f"GROUP BY g, {rows:,} rows, 1% updated"),
                     ("topn", f"WHERE g < 90 ORDER BY price LIMIT 10, {rows:,} rows")):
        pg = med("postgres-pg", q)
        out.append(ctx.figure(NAME, f"{label} (columnar auto)", "s", "lower",
                              {"cumulo": med("cumulo-auto", q), "postgres": pg}, q))
        out.append(ctx.figure(NAME, f"{label} (columnar off)", "s", "lower",
                              {"cumulo": med("cumulo-off", q), "postgres": pg}, q))
    out.append(ctx.figure(NAME, f"freshness p99, commit to visible ({FRESH_SAMPLES} commits)",
                          "s", "lower", fresh, "freshness"))
    return out


def _load(ctx: RunContext, system: System, rows: int) -> float:
    spent = 0.0
    with system.connect() as conn, conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {TABLE}")
        cur.execute(DDL)
        with Progress(f"{system.label:<10} load {rows:,}", rows) as bar:
            for ids in chunks(rows, BATCH):
                data = "".join([f"{i}\t{i % GROUPS}\t{i}\t{_price(i)}\n" for i in ids]).encode()
                start = time.perf_counter()
                with cur.copy(f"COPY {TABLE} (id, g, x, price) FROM STDIN") as copy:
                    copy.write(data)
                spent += time.perf_counter() - start
                bar.advance(len(ids))
        start = time.perf_counter()
        cur.execute(f"UPDATE {TABLE} SET x = x + 1 WHERE id % 100 = 7")
        conn.commit()
        spent += time.perf_counter() - start
        if system.name == "postgres":
            cur.execute(f"VACUUM ANALYZE {TABLE}")
    return spent


def _timed(conn: psycopg.Connection, sql: str) -> tuple[float, list[tuple]]:
    start = time.perf_counter()
    got = conn.execute(sql).fetchall()
    return time.perf_counter() - start, got


def _check_groups(got: list[tuple], want: dict[int, tuple[int, int]]) -> None:
    answer = {int(g): (int(n), int(s)) for g, n, s in got}
    if answer != want:
        wrong = sorted(g for g in set(want) | set(answer) if answer.get(g) != want.get(g))
        raise BenchError(f"wrong GROUP BY answer for {len(wrong)} groups (first g={wrong[0]})")


def _freshness(system: System, rows: int) -> float:
    """p99 seconds from an INSERT's commit to the end of the first count that sees it."""
    lat: list[float] = []
    with system.connect() as w, system.connect() as r:
        w.autocommit = True
        r.autocommit = True
        if system.name == "cumulo":  # a columnar scan, although the key range is small
            r.execute("SET cumulo.columnar = on")
        r.execute(FRESH_Q, (rows,)).fetchone()  # warm-up: the plan is made and cached
        for k in range(FRESH_SAMPLES):
            new_id = rows + 1 + k
            w.execute(f"INSERT INTO {TABLE} VALUES (%s, 1, 1, 1.0)", (new_id,))
            acked = time.perf_counter()
            while True:
                n = r.execute(FRESH_Q, (new_id - 1,)).fetchone()[0]
                if n >= 1:
                    break
                if time.perf_counter() - acked > 5:
                    raise BenchError("a commit stayed invisible for 5 s")
            lat.append(time.perf_counter() - acked)
        w.execute(f"DELETE FROM {TABLE} WHERE id > %s", (rows,))
    lat.sort()
    return lat[min(len(lat) - 1, int(0.99 * len(lat)))]
