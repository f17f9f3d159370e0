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


@dataclass
class RunResult:
    """The merged outcome of one timed run."""

    seconds: float
    counts: Counts
    errors: list[str] = field(default_factory=list)
    query_times: dict[int, list[float]] = field(default_factory=dict)

    @property
    def tpmc(self) -> float:
        """Returns committed New-Order transactions per minute."""
        return self.counts.committed["new_order"] * 60.0 / self.seconds

    @property
    def tps(self) -> float:
        """Returns committed transactions of every type per second."""
        return sum(self.counts.committed.values()) / self.seconds


def _terminal(
    dsn: str, scale: Scale, w_id: int, seed: int, start: float, deadline: float, out
) -> None:
    import psycopg

    try:
        with psycopg.connect(dsn) as conn:
            term = Terminal(conn, scale, w_id, seed)
            time.sleep(max(0.0, start - time.time()))
            while time.time() < deadline:
                term.next()
            out.put(("counts", term.counts))
    except Exception as exc:  # reported to the parent, which turns it into a bench error
        out.put(("error", f"terminal {seed}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=2)}"))


def _analytics(dsn: str, queries: list[list[str]], start: float, deadline: float, out) -> None:
    import psycopg

    times: dict[int, list[float]] = {}
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            time.sleep(max(0.0, start - time.time()))
            while time.time() < deadline:
                for i, statements in enumerate(queries):
                    if time.time() >= deadline:
                        break
                    start = time.perf_counter()
                    for sql in statements:  # a query's statements run whole (Q15's view)
                        cur = conn.execute(sql)
                        if cur.description:
                            cur.fetchall()
                    times.setdefault(i, []).append(time.perf_counter() - start)
        out.put(("queries", times))
    except Exception as exc:
        out.put(("error", f"analytics: {type(exc).__name__}: {exc}"))


def run(
    dsn: str, scale: Scale, terminals: int, seconds: float,
    analytic_queries: list[list[str]] | None = None,
) -> RunResult:
    """Runs `terminals` TPC-C processes (plus one analytic stream if queries are given)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 3.0  # every process connects first, then all start together
    deadline = start + seconds
    procs = [
        ctx.Process(
            target=_terminal,
            args=(dsn, scale, i % scale.warehouses + 1, 1000 + i, start, deadline, out),
            daemon=True,
        )
        for i in range(terminals)
    ]
    if analytic_queries:
        procs.append(
            ctx.Process(target=_analytics, args=(dsn, analytic_queries, start, deadline, out), daemon=True)
        )
    for p in procs:
        p.start()
    result = RunResult(seconds, Counts())
    for _ in procs:
        kind, payload = out.get(timeout=deadline - time.time() + 600)
        if kind == "counts":
            result.counts.merge(payload)
        elif kind == "queries":
            result.query_times = payload
        else:
            result.errors.append(payload)
    for p in procs:
        p.join(timeout=10)
    return result
