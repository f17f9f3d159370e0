"""A query engine's background loop that outlives its own failures.

Why: in cluster mode an engine keeps threads that long-poll other processes: the
conflict managers' wake-up mailboxes (`PollWoken`) and the MasterMind's snapshot
(`cluster.manager`). Such a thread caught only SQLError, so anything else (a bug, a
reply it did not expect) ended it without a word, and from then on every lock wait
behind another engine's transaction, and every wait for the shared snapshot, hung on
a thread that no longer ran. `keep_running` logs the failure and goes on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..errors import SQLError

log = logging.getLogger("cumulo.cluster")


def keep_running(step: Callable[[], object], stop: threading.Event, interval: float,
                 what: str, longest: float = 5.0) -> None:
    """Runs `step()` again and again until `stop` is set (`step` itself blocks: a long poll).

    An SQLError (the other process unreachable or refusing, as while it restarts) waits
    `interval` and tries again. Any other exception is logged with its traceback and
    waits twice as long each time it comes again in a row, up to `longest` seconds, so
    that a failure that repeats neither spins nor floods the log. A step that returns
    resets the pause.
    """
    pause = interval
    while not stop.is_set():
        try:
            step()
        except SQLError:
            if stop.wait(interval):
                return
            continue
        except Exception:  # noqa: BLE001 - the thread must go on: see the module docstring
            log.exception("%s failed; trying again in %.2f s", what, pause)
            if stop.wait(pause):
                return
            pause = min(pause * 2, longest)
            continue
        pause = interval
