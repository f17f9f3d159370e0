"""txn-micro: the transaction layer's and KiVi's own speeds, in process, on one core.

Not a comparison with PostgreSQL (there is nothing to compare a commit sequencer
with): these are the figures issue 2 asks for, measured on the components directly,
without SQL or sockets, so that a regression in them is seen here first.

- **MasterMind bookkeeping**: commit timestamps granted *and* made visible per second.
  An LTM asks the `CommitSequencer` for a batch of timestamps, takes them one by one
  from its `LocalBatch` (one per commit), and reports them readable to the
  `SnapshotServer` in groups, which advances the snapshot. Target: >= 1,000,000/s.
- **LTM update commits per second** (one thread, in-memory, no log): the full commit
  path of `LocalTxnManager` (write set, conflict manager, timestamp, apply, publish).
- **Session-consistency delay** p50/p99, embedded, with a durable log and 4 sessions
  committing concurrently: the time a session's next snapshot waits for its own last
  commit to become visible (`LocalTxnManager.take_snapshot`). Target p99 <= 1 ms.
- **KiVi** (`KiviNode`, in process): point gets and puts per second (one key per call),
  and scan rows per second over 200,000 rows, with and without a pushed-down filter
  (which keeps 10%; rows examined per second).

Options: --seconds caps each timed loop (default here 2 s each; the global default of
30 is for the server workloads).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time

from ..core import Figure, RunContext

NAME = "txn-micro"
DESCRIPTION = "commit timestamps/s, session-consistency delay, KiVi get/put/scan (in process)"
SYSTEM = "cumulo"
SCAN_ROWS = 200_000


def _seconds(ctx: RunContext) -> float:
    return min(ctx.options.seconds, 2.0)


def _fig(metric: str, unit: str, better: str, value: float, note: str = "") -> Figure:
    return Figure(NAME, metric, unit, better, {SYSTEM: value}, note=note)


def timestamps_per_second(seconds: float, batch: int = 4096, group: int = 256) -> float:
    """Timestamps granted by the sequencer and made visible by the snapshot server per second."""
    from cumulo.server.txn.sequencer import CommitSequencer, LocalBatch, RequestBatch
    from cumulo.server.txn.snapshot import Readable, SnapshotServer

    seq, snaps, local = CommitSequencer(1), SnapshotServer(0), LocalBatch()
    take = local.take
    done = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(64):
            (b,) = seq.handle(RequestBatch(0, batch))
            local.refill(b, 0.0)
            pending: list[int] = []
            while (ts := take()) is not None:  # one take per commit
                pending.append(ts)
                if len(pending) == group:
                    snaps.handle(Readable(tuple(pending)))
                    pending = []
            if pending:
                snaps.handle(Readable(tuple(pending)))
            done += batch
    elapsed = time.perf_counter() - t0
    assert snaps.snapshot == done, "the snapshot did not cover every granted timestamp"
    return done / elapsed


def ltm_commits_per_second(seconds: float) -> float:
    """Update commits per second through the embedded LTM (in memory, one thread)."""
    from cumulo.server.kivi.keycodec import encode_key
    from cumulo.server.txn.embedded import open_embedded

    tm = open_embedded(None, gc_interval=None)
    try:
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while time.perf_counter() < deadline:
            for _ in range(200):
                txn = tm.begin()
                txn.put(1, [(encode_key((n % 10_000,)), (n, "x"))])
                txn.commit()
                n += 1
        return n / (time.perf_counter() - t0)
    finally:
        tm.close()


def session_delays(seconds: float, sessions: int = 4) -> tuple[float, float, int]:
    """Returns (p50 ms, p99 ms, samples) of the wait for the session's own last commit."""
    from cumulo.server.kivi.keycodec import encode_key
    from cumulo.server.txn.embedded import open_embedded

    data = tempfile.mkdtemp(prefix="cumulo-txn-micro-")
    tm = open_embedded(data, gc_interval=None)
    delays: list[list[float]] = [[] for _ in range(sessions)]
    stop = time.perf_counter() + seconds

    def session(s: int) -> None:
        i = 0
        while time.perf_counter() < stop:
            txn = tm.begin(session=s)
            txn.put(1, [(encode_key((s, i % 1000)), (s, i))])
            txn.commit()
            nxt = tm.begin(session=s)
            t0 = time.perf_counter()
            tm.ltm.take_snapshot(nxt)  # waits until the snapshot covers our commit
            delays[s].append(time.perf_counter() - t0)
            nxt.abort()
            i += 1

    threads = [threading.Thread(target=session, args=(s,)) for s in range(sessions)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        tm.close()
        shutil.rmtree(data, ignore_errors=True)
    xs = sorted(d for per in delays for d in per)
    if not xs:
        raise RuntimeError("no session-consistency samples")
    return xs[len(xs) // 2] * 1e3, xs[min(len(xs) - 1, int(len(xs) * 0.99))] * 1e3, len(xs)


def kivi_point(seconds: float) -> tuple[float, float]:
    """Returns (puts/s, gets/s) on an in-process KiVi node, one key per request."""
    from cumulo.server.kivi.api import Apply, Get, Write
    from cumulo.server.kivi.keycodec import encode_key
    from cumulo.server.kivi.node import KiviNode

    node = KiviNode()
    keys = [encode_key((i,)) for i in range(100_000)]
    n = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds / 2
    while time.perf_counter() < deadline:
        for _ in range(1000):
            node.apply(Apply(n + 1, [Write(1, keys[n % 100_000], (n, "v"))]))
            n += 1
    puts = n / (time.perf_counter() - t0)
    g = 0
    top = n
    t0 = time.perf_counter()
    deadline = t0 + seconds / 2
    while time.perf_counter() < deadline:
        for _ in range(1000):
            node.get(Get(1, top, [keys[(g * 7919) % min(top, 100_000)]]))
            g += 1
    return puts, g / (time.perf_counter() - t0)


def kivi_scan(seconds: float) -> tuple[float, float]:
    """Returns rows examined per second by full scans (no filter, then a 10% filter)."""
    from cumulo.server.kivi.api import Apply, Scan, Write
    from cumulo.server.kivi.keycodec import encode_key
    from cumulo.server.kivi.node import KiviNode

    node = KiviNode()
    step = 10_000
    for lo in range(0, SCAN_ROWS, step):
        node.apply(Apply(1, [Write(1, encode_key((i,)), (i, i % 100, "payload"))
                             for i in range(lo, lo + step)]))
    keep_10pct = ("cmp", "<", ("col", 1), ("const", 10))

    def rate(flt: object, expect: int) -> float:
        rounds = 0
        t0 = time.perf_counter()
        while True:
            got, resume = 0, None
            while True:
                rep = node.scan(Scan(1, 1, resume, None, None, flt, None, None, False, False, 4096))
                got += len(rep.rows)
                resume = rep.resume_key
                if resume is None:
                    break
            if got != expect:
                raise RuntimeError(f"scan returned {got} rows, expected {expect}")
            rounds += 1
            if time.perf_counter() - t0 >= seconds / 2:
                return rounds * SCAN_ROWS / (time.perf_counter() - t0)

    return rate(None, SCAN_ROWS), rate(keep_10pct, SCAN_ROWS // 10)


def run(ctx: RunContext) -> list[Figure]:
    """Measures every figure (each loop capped by --seconds, at most 2 s)."""
    secs = _seconds(ctx)
    figures = [
        _fig("commit timestamps granted+visible", "ts/s", "higher", timestamps_per_second(secs),
             "sequencer batches of 4096, readable reports of 256; target >= 1,000,000/s"),
        _fig("LTM update commits (1 thread, no log)", "commits/s", "higher",
             ltm_commits_per_second(secs)),
    ]
    p50, p99, n = session_delays(secs)
    note = f"{n} samples, 4 sessions, durable log; target p99 <= 1 ms"
    figures += [
        _fig("session-consistency delay p50", "ms", "lower", p50, note),
        _fig("session-consistency delay p99", "ms", "lower", p99, note),
    ]
    puts, gets = kivi_point(secs)
    full, filtered = kivi_scan(secs)
    figures += [
        _fig("KiVi point put", "puts/s", "higher", puts, "one key per Apply"),
        _fig("KiVi point get", "gets/s", "higher", gets, "one key per Get"),
        _fig("KiVi scan, no filter", "rows/s", "higher", full, f"{SCAN_ROWS} rows, batches of 4096"),
        _fig("KiVi scan, pushed-down filter (10%)", "rows/s", "higher", filtered,
             "rows examined per second"),
    ]
    ctx.notes.append(f"txn-micro ran in process (pid {os.getpid()}); no server involved")
    return figures
