"""Runs TPC-C terminals in separate Python processes for a fixed time, and an analytic stream.

Processes, not threads: the client side is Python too, and one GIL shared by
eight terminals would measure the client. Each process owns one connection
and one terminal (home warehouse = terminal number modulo the warehouses),
runs the standard mix until the deadline, and sends its counts back through a
queue. The optional analytic process loops over the CH-benCHmark queries on
its own connection and reports each query's latencies, so OLTP throughput can
be compared with and without analytics in otherwise identical runs.
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from dataclasses import dataclass, field

from .data import Scale
from .txns import Counts, Terminal

MAX_TRIES = 20  # tries per transaction before a terminal counts it as given up and goes on


@dataclass
class RunResult:
    """The merged outcome of one timed run."""

    seconds: float
    counts: Counts
    errors: list[str] = field(default_factory=list)
    query_times: dict[int, list[float]] = field(default_factory=dict)
    cancelled: int = 0  # analytic statements cancelled by the statement_timeout
    data_errors: int = 0  # analytic queries failing on the live data (Q8's 22012 division by zero)

    @property
    def tpmc(self) -> float:
        """Returns committed New-Order transactions per minute."""
        return self.counts.committed["new_order"] * 60.0 / self.seconds

    @property
    def tps(self) -> float:
        """Returns committed transactions of every type per second."""
        return sum(self.counts.committed.values()) / self.seconds


def _start(conn_ready, go, deadline) -> float:
    """Tells the parent this process is connected, waits for the common start; returns the deadline."""
    conn_ready.put(("ready", None))
    go.wait()
    return deadline.value


def _terminal(dsn: str, scale: Scale, w_id: int, seed: int, go, deadline, out) -> None:
    import psycopg

    try:
        with psycopg.connect(dsn) as conn:
            term = Terminal(conn, scale, w_id, seed, max_tries=MAX_TRIES)
            end = _start(out, go, deadline)
            while time.time() < end:
                term.next()
            out.put(("counts", term.counts))
    except Exception as exc:  # reported to the parent, which turns it into a bench error
        out.put(("error", f"terminal {seed}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=2)}"))


def _analytics(dsn: str, queries: list[list[str]], timeout: float, go, deadline, out) -> None:
    import psycopg

    times: dict[int, list[float]] = {}
    cancelled = data_errors = 0
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            if timeout:
                conn.execute(f"SET statement_timeout = {int(timeout * 1000)}")
            end = _start(out, go, deadline)
            while time.time() < end:
                for i, statements in enumerate(queries):
                    if time.time() >= end:
                        break
                    start = time.perf_counter()
                    try:
                        for sql in statements:  # a query's statements run whole (Q15's view)
                            cur = conn.execute(sql)
                            if cur.description:
                                cur.fetchall()
                    except psycopg.errors.QueryCanceled:
                        cancelled += 1  # over the cap under load: counted, the stream goes on
                        continue
                    except psycopg.errors.DataError:
                        # The same query fails on either system when the live data makes it
                        # (Q8 divides by a year's revenue, which new orders can leave at 0).
                        data_errors += 1
                        if statements[-1].upper().startswith("DROP VIEW"):
                            conn.execute(statements[-1])
                        continue
                    times.setdefault(i, []).append(time.perf_counter() - start)
        out.put(("queries", (times, cancelled, data_errors)))
    except Exception as exc:
        out.put(("error", f"analytics: {type(exc).__name__}: {exc}"))


def run(
    dsn: str, scale: Scale, terminals: int, seconds: float,
    analytic_queries: list[list[str]] | None = None, timeout: float = 0.0,
) -> RunResult:
    """Runs `terminals` TPC-C processes (plus one analytic stream if queries are given).

    Every process starts, connects and reports ready; only then does the clock
    start for all of them at once, so a slow spawn on a loaded machine shortens
    nobody's run. `timeout` is the analytic stream's statement_timeout in
    seconds (0: none).
    """
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    go = ctx.Event()
    deadline = ctx.Value("d", 0.0)
    procs = [
        ctx.Process(
            target=_terminal,
            args=(dsn, scale, i % scale.warehouses + 1, 1000 + i, go, deadline, out),
            daemon=True,
        )
        for i in range(terminals)
    ]
    if analytic_queries:
        procs.append(
            ctx.Process(
                target=_analytics,
                args=(dsn, analytic_queries, timeout, go, deadline, out),
                daemon=True,
            )
        )
    for p in procs:
        p.start()
    result = RunResult(seconds, Counts())
    pending = len(procs)
    try:
        for _ in procs:  # until everyone is connected (or has failed to)
            kind, payload = out.get(timeout=300)
            if kind != "ready":
                result.errors.append(payload)
                pending -= 1
        deadline.value = time.time() + seconds
        go.set()
        for _ in range(pending):
            kind, payload = out.get(timeout=seconds + 600)
            if kind == "counts":
                result.counts.merge(payload)
            elif kind == "queries":
                result.query_times, result.cancelled, result.data_errors = payload
            else:
                result.errors.append(payload)
    finally:
        go.set()
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    return result
