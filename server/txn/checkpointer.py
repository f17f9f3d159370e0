"""Background checkpoints: bounded redo logs and bounded restart time.

Without them a server checkpoints only when it shuts down cleanly, so the redo
log of a server that runs for a week (or is killed) holds a week of commits, and
a restart replays all of them. The checkpointer, like PostgreSQL's, wakes every
`checkpoint_timeout` and asks the transaction manager to checkpoint: storage
writes its state as of the current snapshot (`kivi.checkpoint`), that ts is
recorded (`recovery.take_checkpoint`) and the log segments wholly below it are
deleted. A restart then replays only what was committed since.

It works the same in embedded mode and in a cluster's query engine, whose
`checkpoint()` checkpoints every KiVi node over RPC and trims the remote loggers.

The interval is read before each wait (a callable), so a configuration reload
changes it without a restart. A checkpoint is skipped when nothing was committed
since the last one (`progress` unchanged), as PostgreSQL skips idle ones.

Unlike PostgreSQL's, which writes only the pages dirtied since the last one, a
checkpoint here writes every region whole, so its cost grows with the data, not
with the writes. At TPC-H SF 0.3 one took 76 s of CPU (SF 1: minutes): with a
fixed 5 min interval a long load paid a checkpoint of everything loaded so far
every 5 minutes, and the queries after it ran beside one. So the wait after a
checkpoint is at least its own duration divided by SHARE: checkpoints take at
most that share of the time (`next_wait`), as PostgreSQL spreads one over
`checkpoint_completion_target` of the interval. Restart time stays bounded by
the redo written in that longer wait, which is at most SHARE's inverse times
what the checkpoint itself took to write.

>>> next_wait(300.0, 2.0), next_wait(300.0, 76.0)
(300.0, 760.0)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("cumulo.checkpointer")

MIN_INTERVAL = 1.0  # seconds; a smaller setting is raised to it (PostgreSQL's minimum is 30s)
SHARE = 0.1  # the most of the wall time checkpoints may take (see the module's docstring)


def next_wait(interval: float, took: float) -> float:
    """Seconds until the next checkpoint: the interval, or longer after a long checkpoint."""
    return max(interval, took / SHARE)


class Checkpointer:
    """A daemon thread that checkpoints `tm` every `interval()` seconds (0 or less: never)."""

    def __init__(self, tm: Any, interval: Callable[[], float],
                 progress: Callable[[], int] | None = None) -> None:
        self.tm = tm
        self.interval = interval
        self.progress = progress
        self.done = 0  # checkpoints taken, for tests and SHOW
        self.took = 0.0  # seconds the last checkpoint took (stretches the next wait)
        self._last: int | None = self._progress()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="checkpointer", daemon=True)

    def start(self) -> Checkpointer:
        """Starts the thread; returns self."""
        self._thread.start()
        return self

    def request(self) -> None:
        """Re-reads the interval now (after a configuration reload)."""
        self._wake.set()

    def _loop(self) -> None:
        deadline = time.monotonic() + self._seconds()
        while not self._stop.is_set():
            seconds = self._seconds()
            if seconds <= 0:  # disabled: look again after a reload
                self._wake.wait(60.0)
                self._wake.clear()
                deadline = time.monotonic() + max(self._seconds(), 0.0)
                continue
            deadline = min(deadline, time.monotonic() + next_wait(seconds, self.took))
            left = deadline - time.monotonic()
            if left > 0:
                self._wake.wait(left)
                self._wake.clear()
                continue
            if self._stop.is_set():
                return
            self.run_once("time")
            deadline = time.monotonic() + next_wait(self._seconds(), self.took)

    def _seconds(self) -> float:
        try:
            s = float(self.interval())
        except Exception:  # NB: a bad setting must not end checkpoints: keep PostgreSQL's 5min
            s = 300.0
        return s if s <= 0 else max(s, MIN_INTERVAL)

    def _progress(self) -> int | None:
        """The commit mark now; None when unknown (then every interval checkpoints)."""
        if self.progress is None:
            return None
        try:
            return self.progress()
        except Exception:  # NB: e.g. a cluster's snapshot source being reconnected
            return None

    def run_once(self, reason: str = "time") -> bool:
        """Takes one checkpoint unless nothing was committed since the last; True if taken."""
        mark = self._progress()
        if mark is not None and mark == self._last:
            return False
        log.info("checkpoint starting: %s", reason)
        t0 = time.monotonic()
        try:
            durable = self.tm.checkpoint()
        except Exception as e:  # NB: a failed checkpoint keeps the log; the next one retries
            log.warning("checkpoint failed: %s", e)
            return False
        self._last = mark
        self.took = time.monotonic() - t0
        if durable is False:  # NB: storage in memory (a cluster's node without a data dir)
            log.info("checkpoint skipped: storage keeps no files, so the redo log stays whole")
            return False
        self.done += 1
        log.info("checkpoint complete: up to commit %s; total=%.3f s", mark if mark is not None
                 else "?", time.monotonic() - t0)
        return True

    def stop(self) -> None:
        """Stops the thread, waiting for a checkpoint in progress to finish."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()
