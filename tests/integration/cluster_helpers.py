"""Small helpers the cluster failure tests share (test_cluster_*_failure.py): waiting for a
condition of a running cluster, and reading which processes `cumulo cluster up` started.

A supervised process killed by a test comes back under a new pid: `cluster_procs(d)` reads
the launcher's own record (cluster.json) so a test sees the restart the way an operator would.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable


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
