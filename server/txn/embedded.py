"""Embedded mode: every transaction component in one process, called directly.

`open_embedded(data_dir)` wires a KiVi node, the commit sequencer, the
snapshot server, the conflict managers, the loggers and the local transaction
manager, recovers the data dir (checkpoint + log replay, see `recovery`) and
returns a `TxnManager`. Cluster mode wires the same component classes with an
RPC transport instead.

Options:

- `data_dir=None` keeps everything in memory (no log, no checkpoints): for tests.
- `sync_commit` (default True): a commit returns once its redo record is
  fsynced. With False, a commit is acknowledged once its record is written to
  the OS, *before* fsync: a crash of the process loses nothing, a crash of
  the machine may lose the last `flush_interval` seconds of commits.
- `loggers`, `conflict_managers`, `buckets`: how many of each component share
  the work (the records by commit ts, the keys by hash bucket).
- `gc_interval`: the longest time between garbage collections (None: only `collect()`).
  A busy server collects sooner, after every `gc_commits` commits (checked each
  `GC_TICK` seconds): an OLTP hot row (a pgbench branch) gains a version per
  commit, and each new version copies its chain, so chains must stay short. A
  server that goes quiet after commits (a bulk load) collects at the next tick.

After a restart the columnar copies the node had are built again on a thread of
their own (`kivi.columnar.warm`), once the first collection has frozen the
recovered rows (or at once without a collector).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from ..kivi import freeze
from ..kivi.api import KiviNodeAPI
from ..kivi.columnar.access import warm_copies
from ..kivi.node import KiviNode
from .conflicts import ConflictManager
from .front import LtmFront
from .logger import LogGroup
from .ltm import LocalTxnManager
from .recovery import replay, take_checkpoint
from .sequencer import CommitSequencer
from .snapshot import SnapshotServer

GC_TICK = 1.0  # seconds between looks at the commit counter


def _default_node(data_dir: str | None) -> KiviNodeAPI:
    """Returns the storage node for embedded mode (its files go under <data_dir>/kivi)."""
    return KiviNode(data_dir)


class EmbeddedTxnManager(LtmFront):
    """The `api.TxnManager` of embedded mode: the LTM plus recovery, checkpoints and GC."""

    def __init__(
        self,
        data_dir: str | None,
        kivi: KiviNodeAPI | None = None,
        *,
        sync_commit: bool = True,
        loggers: int = 1,
        conflict_managers: int = 1,
        buckets: int = 1024,
        gc_interval: float | None = 30.0,
        flush_interval: float = 0.2,
        gc_commits: int = 2000,
    ) -> None:
        self.data_dir = data_dir
        self.kivi = kivi if kivi is not None else _default_node(data_dir)
        top = 0
        self.replayed = 0
        if data_dir:
            os.makedirs(data_dir, exist_ok=True)
            top, self.replayed = replay(data_dir, self.kivi)
        self.log = (
            LogGroup(os.path.join(data_dir, "log"), loggers, sync_commit=sync_commit,
                     flush_interval=flush_interval)
            if data_dir
            else None
        )
        cms = [
            ConflictManager(frozenset(range(i, buckets, conflict_managers)))
            for i in range(conflict_managers)
        ]
        self.ltm = LocalTxnManager(
            self.kivi,
            sequencer=CommitSequencer(top + 1),
            snapshots=SnapshotServer(top),
            conflict_managers=cms,
            buckets=buckets,
            # NB: one logger (the default) takes the commits itself: LogGroup.log, which
            # picks a logger by ts, would be a Python call more per commit
            log=self.log.loggers[0] if self.log is not None and loggers == 1 else self.log,
        )
        self._ckpt_lock = threading.Lock()
        self._stop = threading.Event()
        self._seen_commits = -1  # the commit count at `_readers_only`'s last look
        self._collected = threading.Event()  # the first collection is done (or none runs)
        if not gc_interval:
            self._collected.set()
        if data_dir:  # NB: not joined at close: it stops between spaces, and a build is paced
            threading.Thread(target=self._warm_loop, name="columnar-warm", daemon=True).start()
        self._gc: threading.Thread | None = None
        if gc_interval:
            self._gc = threading.Thread(
                target=self._gc_loop, args=(gc_interval, gc_commits), name="txn-gc", daemon=True
            )
            self._gc.start()
        self._closed = False

    def checkpoint(self) -> bool:
        """Checkpoints storage at the current snapshot and trims the redo log; False (nothing
        trimmed) without a data dir."""
        if not self.data_dir:
            return False
        with self._ckpt_lock:
            if self.log is not None:
                # NB: roll the open segments first, so that what they hold is (nearly always)
                # below ts and the trim below can delete them now, not a checkpoint later
                self.log.trim(0)
            ts = self.ltm.snapshots.snapshot
            if not take_checkpoint(self.data_dir, self.kivi, ts):
                return False
            if self.log is not None:
                self.log.trim(ts)  # NB: only below a checkpoint storage made durable
            return True

    def _gc_loop(self, interval: float, commits: int) -> None:
        """Collects every `commits` commits, every `interval` seconds, and once the server
        goes quiet (no commit for a tick, and no transaction running) after commits since
        the last pass, or after a start: the first pass after a bulk load or a recovery
        freezes its rows into cold segments (about 1.5 s of CPU per million rows), which
        otherwise happens in the middle of the next workload and stalls it (pgbench's
        timed run right after `pgbench -i`). Why no transaction running: a user's first
        read of what it just loaded (a COPY TO, pandas' `read_sql` after `to_sql`)
        commits nothing, and the freeze ran beside it (43 % of the server's samples
        during a `read_sql` of 100k rows right after `to_sql`: 0.52 s of server CPU
        against 0.20 once frozen); it now runs at the first tick after it, and a freeze
        under way waits between its windows while only readers run (`_readers_only`)."""
        stats = self.ltm.stats
        last_at, last_count, seen = time.monotonic(), -1, 0
        freeze.readers.set(self._readers_only)  # a freeze in this thread waits for readers
        while not self._stop.wait(min(GC_TICK, interval)):
            now, count = time.monotonic(), stats["commits"]
            quiet, seen = count == seen, count
            if (count - last_count < commits and now - last_at < interval
                    and not (quiet and count != last_count and not self.ltm.running())):
                continue
            last_at, last_count = now, count
            try:
                self.ltm.collect()
            except Exception:  # pragma: no cover - GC must never take the server down
                logging.getLogger("cumulo.txn").exception("garbage collection failed")
            self._collected.set()

    def _warm_loop(self) -> None:
        """Builds the columnar copies the node had before the restart, after the first
        collection: it freezes the recovered rows, which a build then reads compactly,
        and the two would otherwise compete for the CPU right after the start."""
        while not self._collected.wait(GC_TICK):
            if self._stop.is_set():
                return
        t0 = time.monotonic()
        try:
            built = warm_copies(self.kivi, lambda: self.ltm.snapshots.snapshot, self._stop.is_set)
            if built:
                logging.getLogger("cumulo.txn").info(
                    "built the columnar copies of %d tables in the background in %.1f s",
                    built, time.monotonic() - t0)
        except Exception:  # pragma: no cover - a failed build leaves the first query to build
            logging.getLogger("cumulo.txn").exception("building the columnar copies failed")

    def _readers_only(self) -> bool:
        """Tells whether transactions run and none committed since the last look: readers
        (a user's COPY TO or SELECT of what was just loaded), not OLTP or a loader, which a
        freeze must keep up with (`freeze.readers`: a freeze that waited for every running
        transaction would crawl beside a streaming ingest, its hot rows piling up)."""
        count = self.ltm.stats["commits"]
        quiet, self._seen_commits = count == self._seen_commits, count
        return quiet and self.ltm.running()

    def close(self) -> None:
        """Flushes and stops every component."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._gc is not None:
            self._gc.join()
        self.ltm.close()
        if self.log is not None:
            self.log.close()
        self.kivi.close()


def open_embedded(data_dir: str | None, kivi: KiviNodeAPI | None = None, **options: Any) -> (
    EmbeddedTxnManager
):
    """Opens (and recovers) an embedded transaction manager over data_dir (None: in memory)."""
    return EmbeddedTxnManager(data_dir, kivi, **options)
