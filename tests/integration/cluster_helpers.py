"""Small helpers the cluster failure tests share (test_cluster_*_failure.py): waiting for a
condition of a running cluster, and reading which processes `cumulo cluster up` started.

A supervised process killed by a test comes back under a new pid: `cluster_procs(d)` reads
the launcher's own record (cluster.json) so a test sees the restart the way an operator would.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol


class Worker(Protocol):
    """A client thread of a failure test: it runs until its `stop` event is set."""

    stop: threading.Event

    def join(self, timeout: float | None = None) -> None: ...


def wait_for(cond: Callable[[], object], what: str, seconds: float = 90.0) -> None:
    """Poll `cond` every 0.1 s until it is true; fail naming `what` after `seconds`.

    >>> wait_for(lambda: True, "nothing")
    """
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def cluster_procs(d: str) -> dict[str, dict]:
    """The processes of the cluster in directory `d`, by name (`logger-0`, `conflicts-0`...)."""
    with open(os.path.join(d, "cluster.json")) as f:
        return {p["name"]: p for p in json.load(f)["procs"]}


def stop_workers(workers: Sequence[Worker]) -> None:
    """Tell every client thread to stop first, then wait for each: they wind down together."""
    for w in workers:
        w.stop.set()
    for w in workers:
        w.join(90)
