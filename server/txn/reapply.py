"""Commits that are durable but failed to apply: retried until KiVi takes them.

A commit is acknowledged once its redo record is durable; applying its writes
to KiVi, reporting its timestamp readable and releasing its locks come after
(`LocalTxnManager.commit`, "publish"). If the apply fails (a KiVi node down, an
RPC error, a full disk), publishing anyway would be a lost update: the
snapshot would pass a timestamp whose rows KiVi does not have, a reader would
see the old values, and a writer would overwrite them without any conflict.
So a failed commit stays unpublished, its locks held and its timestamp
pending (snapshots stop below it), and this thread applies it again with a
growing pause until KiVi takes it (applying is idempotent: versions are keyed
by their commit ts), then publishes it. Commits are retried in ts order, and
one still failing holds back the later ones only in KiVi, never in the log.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("cumulo.txn")


class Reapplier:
    """Retries failed applies in the background; `published(cts, item)` runs after each success."""

    def __init__(self, apply: Callable[[int, Any], None],
                 published: Callable[[int, Any], None],
                 first_pause: float = 0.02, max_pause: float = 1.0) -> None:
        self._apply = apply
        self._published = published
        self._first, self._max = first_pause, max_pause
        self._pending: dict[int, Any] = {}  # cts -> what `apply` needs
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stop = False
        self.retries = 0  # applies tried again (stats, tests)

    def add(self, cts: int, item: Any) -> None:
        """Queues a commit whose apply failed; the thread starts on the first one."""
        with self._cond:
            self._pending[cts] = item
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cumulo-reapply",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()

    def pending(self) -> int:
        """How many commits wait for their apply."""
        with self._cond:
            return len(self._pending)

    def _run(self) -> None:
        pause = self._first
        while True:
            with self._cond:
                while not self._pending and not self._stop:
                    self._cond.wait()
                if self._stop and not self._pending:
                    return
                cts = min(self._pending)
                item = self._pending[cts]
            try:
                self.retries += 1
                self._apply(cts, item)
            except Exception:  # noqa: BLE001 - logged, retried
                log.warning("applying commit %d failed again; retrying in %.2fs", cts, pause,
                            exc_info=True)
                with self._cond:
                    if self._stop:
                        return
                    self._cond.wait(pause)
                pause = min(pause * 2, self._max)
                continue
            with self._cond:
                del self._pending[cts]
            pause = self._first
            self._published(cts, item)

    def close(self, timeout: float = 5.0) -> None:
        """Stops the thread after one more try of what is pending (replay applies the rest)."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
            t = self._thread
        if t is not None:
            t.join(timeout)
