"""Automatic ANALYZE, as PostgreSQL's autovacuum launcher runs it: off the clients' path.

Why: a table loaded with 586,000 rows and never analyzed was estimated at 333
rows (the optimizer's 1000-row default times a filter), so its joins were
planned as if it were tiny. PostgreSQL avoids that twice over: the planner
reads the table's physical size, and autovacuum analyzes a table once
enough of it changed. Cumulo has no page count to read, so it relies on the
second, with a short nap.

How:
1. Counting, on the commit path, for the price of a dict update per written
   table: `SQLSession.commit_txn` hands each committed transaction's write
   counts (rows written per KiVi space, from its write set) to `note`.
2. A daemon thread wakes every `naptime` seconds (setting
   `autovacuum_naptime`, default NAPTIME) and, per database with changes,
   maps spaces to tables and analyzes each table whose changed rows since its
   last ANALYZE exceed PostgreSQL's threshold:
   `autovacuum_analyze_threshold` (50) + `autovacuum_analyze_scale_factor`
   (0.1) x the rows it had then, once its writes have paused for a nap (a
   load in 20,000-row COPYs is analyzed once at its end, not at every 10 %
   of growth; a table written without pause waits BUSY_WAIT seconds at most,
   or DUTY times as long as its last ANALYZE took, whichever is longer).
3. The statistics go where ANALYZE puts them (`catalog.statstore`), in the
   thread's own transaction. When some analysed table's row count moved by
   REPLAN times or more (or it had no statistics), the catalog version bump makes
   every session reload them and replan, exactly as after a manual ANALYZE;
   otherwise the optimizer's statistics are reloaded in place and cached plans
   stay (`replans`). Why: a bump throws away every session's cached plans, and an
   OLTP workload that keeps its tables growing (TPC-C's orders) had them analysed
   every few seconds, each time re-analysing every session's statements (a quarter
   of the loop's samples in CH-benCHmark's mixed window) for plans that the small
   change in counts would not alter.

What an ANALYZE costs the writers is `optimizer.sampling`'s concern: a table is
sampled by row positions (`kivi.storesample`: the count from the stores' lists
and masks, 30,000 rows read), or from its columnar copy's packs; only a table the
transaction itself wrote, or one on remote nodes, is read whole, a chunk under
the lock at a time, paced like an analytic scan while OLTP runs. Why DUTY: a
table written without pause and read through rows (a streaming ingest, when its
ANALYZE read every row, and the table keeps growing) was analyzed every BUSY_WAIT
seconds, each run longer than the last (~40 % of the server's samples during the
pipeline's ingest); sampling made each run short, and DUTY still bounds it. With DUTY
the launcher spends at most 1/DUTY of its time on such a table; PostgreSQL's
cost-based delay (`autovacuum_vacuum_cost_delay`) bounds its workers the same way.

`autovacuum = off` stops the thread's work (counting goes on, so turning it
back on catches up). A failure (a table dropped meanwhile, a conflict) is
logged and retried at the next nap; it never reaches a client.

Example:
    >>> threshold(0), threshold(1000)
    (50.0, 150.0)
    >>> replans(None, 5000), replans(1000, 1900), replans(1000, 2000), replans(10, 0)
    (True, False, True, True)
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from typing import Any

from ..txn.writeset import WriteSet
from ..waits import Lock
from .catalog import statstore
from .optimizer import stats
from .settings import SERVER, ServerDefaults

log = logging.getLogger("cumulo.autoanalyze")

NAPTIME = 2.0  # seconds between checks (PostgreSQL: 60; Cumulo has no relpages to fall back on)
BASE = 50  # autovacuum_analyze_threshold
SCALE = 0.1  # autovacuum_analyze_scale_factor
BUSY_WAIT = 30.0  # seconds a due table still being written waits for a pause at most
DUTY = 20.0  # ... or this many times its last ANALYZE's duration, if longer


def threshold(rows: int) -> float:
    """Changed rows that make a table of `rows` rows due for ANALYZE."""
    return BASE + SCALE * rows


REPLAN = 2.0  # a row count moved by this factor makes cached plans stale


def replans(before: int | None, after: int) -> bool:
    """Whether a table that had `before` rows in its statistics (None: never analysed)
    and now has `after` makes cached plans stale: its size moved by REPLAN times."""
    if before is None:
        return True
    lo, hi = sorted((max(before, 1), max(after, 1)))
    return hi >= REPLAN * lo


class AutoAnalyze:
    """The per-engine launcher: change counts in, ANALYZE runs out (see the module doc)."""

    def __init__(self, store: Any, tm: Any, settings: ServerDefaults = SERVER) -> None:
        self.store = store
        self.tm = tm
        self.settings = settings  # server-wide: autovacuum, autovacuum_naptime (reloadable)
        self._lock = threading.Lock()
        # held for the whole transaction of an automatic or a manual (autocommit) ANALYZE:
        # two of them writing the same statistics row would fail one with 40001. A
        # `waits.Lock`: the holder parks its greenlet on the event-loop front end (paced
        # sampling, the commit's log wait), and a second session must park, not block the loop
        self.lock = Lock()
        self._changes: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self._since: dict[tuple[int, int], float] = {}  # (db, space) -> first uncounted change
        self._seen: dict[tuple[int, int], int] = {}  # (db, space) -> its count at the last nap
        self._took: dict[tuple[int, int], float] = {}  # (db, space) -> its last ANALYZE's seconds
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0  # tables analyzed so far (pg_stat_user_tables.autoanalyze_count, summed)

    def note(self, db_oid: int, counts: dict[int, int]) -> None:
        """Adds a committed transaction's write counts; starts the thread on first use."""
        if not counts:
            return
        with self._lock:
            per = self._changes[db_oid]
            for space, n in counts.items():
                if space in per:
                    per[space] += n
                else:  # NB: a space's first change since it was counted: (db, space) is in
                    per[space] = n  # _since exactly while the space is in per (`due` drops both)
                    self._since.setdefault((db_oid, space), time.time())
        if self._thread is None:
            self._start()

    def note_writes(self, db_oid: int, ws: WriteSet) -> None:
        """`note` of a committed transaction's write set itself: a write set of dicts alone
        (OLTP's) is counted here, without `WriteSet.counts`' dict and its two calls (the
        commit's, per transaction); one with runs (a COPY's) goes through `note`."""
        if ws.runs:
            self.note(db_oid, ws.counts())
            return
        with self._lock:
            per = self._changes[db_oid]
            for space, w in ws.spaces.items():
                if space in per:
                    per[space] += len(w)
                elif w:  # NB: as `note` (a space emptied by a rollback to a savepoint: none)
                    per[space] = len(w)
                    self._since.setdefault((db_oid, space), time.time())
        if self._thread is None:
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._loop, name="autoanalyze", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _setting(self, name: str, default: str) -> str:
        return str(self.settings.values.get(name, default))

    def _naptime(self) -> float:
        raw = self._setting("autovacuum_naptime", str(NAPTIME))
        try:
            return max(0.05, float(raw.rstrip("s")) if not raw.endswith("min")
                       else float(raw[:-3]) * 60)
        except ValueError:
            return NAPTIME

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._naptime())
            self._wake.clear()
            if self._stop.is_set():
                return
            if self._setting("autovacuum", "on") in ("off", "false", "0"):
                continue
            try:
                self.run_once()
            except Exception:  # never the clients' problem: retried at the next nap
                log.warning("automatic analyze failed; retrying later", exc_info=True)

    def due(self, db_oid: int) -> list[Any]:
        """The tables of a database due for ANALYZE now (their counts are taken)."""
        with self._lock:
            per = self._changes.get(db_oid)
            if not per:
                return []
            snapshot = dict(per)
        snap = self.store.snapshot(db_oid)
        now = time.time()
        out, fresh = [], []
        for table in snap.tables:
            if table.kind != "r" or table.space not in snapshot:
                continue
            ts = self.store.stats.get(table.oid)
            since = self._since.get((db_oid, table.space), 0.0)
            count = snapshot[table.space]
            if ts is not None and ts.analyzed_at is not None and ts.analyzed_at.timestamp() > since:
                fresh.append(table)  # an ANALYZE ran after these changes began (a load's own)
            elif count >= threshold(ts.rows if ts else 0) and (
                    self._seen.get((db_oid, table.space)) == count
                    or now - since > self.busy_wait(db_oid, table.space)):
                out.append(table)  # due, and its writes paused for a nap (or it never pauses)
            self._seen[(db_oid, table.space)] = count
        with self._lock:
            for table in out + fresh:
                per.pop(table.space, None)
                self._since.pop((db_oid, table.space), None)
                self._seen.pop((db_oid, table.space), None)
        return out

    def busy_wait(self, db_oid: int, space: int) -> float:
        """Seconds a due table that is written without pause waits before its ANALYZE."""
        return max(BUSY_WAIT, DUTY * self._took.get((db_oid, space), 0.0))

    def run_once(self) -> int:
        """Analyzes every table that is due, database by database; returns how many."""
        with self._lock:
            dbs = [db for db, per in self._changes.items() if per]
        done = 0
        for db_oid in dbs:
            tables = self.due(db_oid)
            if not tables:
                continue
            stale = False
            with self.lock:  # a manual ANALYZE waits for this one (and this for it)
                txn = self.tm.begin()
                try:
                    for table in tables:
                        began = time.monotonic()
                        before = self.store.stats.get(table.oid)
                        got = stats.analyze(txn, table, publish=False)
                        statstore.save(txn, db_oid, table.oid, got)
                        stale = stale or replans(None if before is None else before.rows, got.rows)
                        self._took[(db_oid, table.space)] = time.monotonic() - began
                    txn.commit()
                except BaseException:
                    txn.abort()
                    raise
            if stale:
                # NB: the plans that read these tables were chosen without these statistics
                self.store.bump(changed=frozenset(t.name.lower() for t in tables))
                self.store.snapshot(db_oid)  # reloads the optimizer's statistics now
            else:
                self.store.reload_stats()  # NB: the plans stay: see `replans`
            done += len(tables)
            log.debug("automatic analyze of %s", ", ".join(t.name for t in tables))
        self.runs += done
        return done
