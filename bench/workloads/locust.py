"""locust: a web shop's mixed traffic through SQLAlchemy, in requests/s and p95 latency.

The other workloads speak SQL through a driver; real applications mostly go
through an ORM or SQL toolkit and a connection pool. This one runs a small
shop (`bench/locust_app.py`: product pages, catalogue pages, order history,
prefix search, order placement in a transaction, profile updates) with
locust's library API, headless, at fixed user counts (USERS: 10 and 50), zero
wait time, for `--seconds` each (default 30), the systems taking turns at
each user count.

Both systems get the same client stack: SQLAlchemy Core over the `cumulo://`
dialect (`cumulo.dialect`, whose DBAPI is `cumulo.driver`, a pure-Python
socket driver that gevent can switch on). It speaks the PostgreSQL protocol,
so it drives PostgreSQL 15 too; when it does not import, both systems use
`postgresql+psycopg://` and the figures' note says so. `CUMULO_BENCH_LOCUST_SCHEME`
(say `postgresql+psycopg`) picks another SQLAlchemy driver for both.

Locust patches the standard library with gevent on import, so each run is a
child process (`python -m bench.locust_app`) that prints one JSON line. The
data (2,000 customers, 1,000 products, 4,000 orders of 3 lines) is loaded
with COPY before anything is timed, from DDL that SQLAlchemy's PostgreSQL
compiler generates from the app's tables. After every run the database must
agree with what the client says it did: the orders and quantities placed
since the load equal the new rows in `lc_order`/`lc_order_line` and the
stock taken from `lc_product`, or the system's figures become an error.

One locust process (one core at most) drives the load, so at high user
counts the client, not the server, may be the limit; the ratio then
understates the difference between the systems.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ..core import BenchError, Figure, RunContext
from ..systems import System

NAME = "locust"
DESCRIPTION = "web-shop mix through SQLAlchemy at 10 and 50 locust users (requests/s, p95)"
USERS = (10, 50)
CHILD = [sys.executable, "-m", "bench.locust_app"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scheme() -> str:
    """Returns the SQLAlchemy URL scheme both systems are driven with ($CUMULO_BENCH_LOCUST_SCHEME wins)."""
    if forced := os.environ.get("CUMULO_BENCH_LOCUST_SCHEME"):
        return forced
    try:
        import cumulo.dialect.base  # noqa: F401
        import cumulo.driver  # noqa: F401
    except ImportError:
        return "postgresql+psycopg"
    return "cumulo"


def url_for(system: System, scheme_: str) -> str:
    """Returns the SQLAlchemy URL of a system."""
    return f"{scheme_}://{system.user}@{system.host}:{system.port}/{system.dbname}"


def ddl() -> list[str]:
    """Returns the app's CREATE TABLE and CREATE INDEX statements, dependencies first."""
    from sqlalchemy.dialects import postgresql
    from sqlalchemy.schema import CreateIndex, CreateTable

    from .. import locust_app as app

    dialect = postgresql.dialect()
    out = []
    for table in app.metadata.sorted_tables:
        out.append(str(CreateTable(table).compile(dialect=dialect)).strip())
        for index in sorted(table.indexes, key=lambda i: i.name or ""):
            out.append(str(CreateIndex(index).compile(dialect=dialect)).strip())
    return out


def parse_child(stdout: str) -> dict:
    """Returns the child's JSON result: the last line of its stdout that is a JSON object."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise BenchError("the locust child printed no result")


def run(ctx: RunContext) -> list[Figure]:
    """Loads the shop on each system, then runs locust at each user count, systems in turn."""
    scheme_ = scheme()
    loaded = {s.name: ctx.attempt(s, "load", _load, ctx, s) for s in ctx.systems}
    placed = {s.name: [0, 0] for s in ctx.systems}  # orders, quantity since the load
    figures = []
    for k, users in enumerate(USERS):
        step = f"{users} users"
        results: dict[str, dict | None] = {}
        for s in ctx.systems:
            if loaded[s.name] is None:
                results[s.name] = None
                continue
            base = (k + 1) * 10_000_000
            results[s.name] = ctx.attempt(
                s, step, _run_one, ctx, s, url_for(s, scheme_), users, base, placed[s.name]
            )
            if results[s.name] is None:
                loaded[s.name] = None  # an inconsistent database is not measured again
        steps = {s.name: _failed_step(ctx, s.name, step) for s in ctx.systems}
        note = f"{scheme_}:// for both systems, 1 locust process, zero wait time"
        extra = [
            f"{s}: {r['failures']} failed of {r['requests']} ({r['errors'][:1]})"
            for s, r in results.items() if r and r["failures"]
        ] + [f"{s}: {r['retries']} retries (40001/40P01)" for s, r in results.items()
             if r and r["retries"]]
        if extra:
            note += "; " + "; ".join(extra)
        rps = {s.name: (results.get(s.name) or {}).get("rps") for s in ctx.systems}
        p95 = {s.name: (results.get(s.name) or {}).get("p95_ms") for s in ctx.systems}
        figures.append(ctx.figure(NAME, f"{users} users, requests/s", "req/s", "higher", rps,
                                  steps, note))
        figures.append(ctx.figure(NAME, f"{users} users, p95 latency", "ms", "lower", p95,
                                  steps, note))
    return figures


def _failed_step(ctx: RunContext, name: str, step: str) -> str:
    """Returns the step whose recorded error explains a missing value (this one by default)."""
    for candidate in (step, "load", *(f"{u} users" for u in USERS)):
        if (name, candidate) in ctx.errors:
            return candidate
    return step


def _load(ctx: RunContext, system: System) -> bool:
    """Creates the shop's tables and COPYs the initial rows in."""
    from .. import locust_app as app

    rows = app.copy_rows()
    with system.connect() as conn:
        for table in reversed(app.metadata.sorted_tables):
            conn.execute(f"DROP TABLE IF EXISTS {table.name}")
        for statement in ddl():
            conn.execute(statement)
        with conn.cursor() as cur:
            for table in app.metadata.sorted_tables:
                with cur.copy(f"COPY {table.name} FROM STDIN") as copy:
                    for row in rows[table.name]:
                        copy.write_row(row)
    ctx.commands.append(f"{system.name}: {'; '.join(ddl())}; COPY the initial rows")
    return True


def _run_one(
    ctx: RunContext, system: System, url: str, users: int, base: int, placed: list[int]
) -> dict:
    """Runs one locust child, checks the database against it; returns its results."""
    cmd = [*CHILD, url, str(users), str(ctx.options.seconds), str(base)]
    ctx.commands.append(" ".join(cmd))
    print(f"[bench] {system.label}: locust, {users} users, {ctx.options.seconds:g} s",
          file=sys.stderr)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=ctx.options.seconds + 300)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise BenchError(f"locust child exited with {proc.returncode}: {tail}")
    result = parse_child(proc.stdout)
    if not result["requests"]:
        raise BenchError(f"no requests completed ({result['errors'][:1]})")
    placed[0] += result["placed"]
    placed[1] += result["placed_qty"]
    verify(system, placed[0], placed[1])
    return result


def verify(system: System, orders: int, qty: int) -> None:
    """Raises BenchError unless the database holds exactly the orders the clients placed."""
    from .. import locust_app as app

    with system.connect() as conn:
        got_orders, got_qty = conn.execute(
            "SELECT (SELECT count(*) FROM lc_order WHERE id > %s),"
            " (SELECT coalesce(sum(qty), 0) FROM lc_order_line WHERE order_id > %s)",
            (app.ORDERS, app.ORDERS),
        ).fetchone()
        taken = conn.execute(
            "SELECT %s - sum(stock) FROM lc_product", (app.PRODUCTS * app.STOCK,)
        ).fetchone()[0]
    if (int(got_orders), int(got_qty), int(taken)) != (orders, qty, qty):
        raise BenchError(
            f"the clients placed {orders} orders of {qty} items, but the database has"
            f" {got_orders} orders of {got_qty} items and {taken} items taken from stock"
        )
