"""Snapshots shared by name: every partition of one Spark query execution reads at one of them.

pyspark 4.3 plans a Python source's read once per loaded DataFrame and
reuses that plan (partitions included) for the DataFrame's later queries.
A snapshot fixed at planning would make `df.count()` repeat the first
answer after other commits, and fail once its lease ran out. So each
partition asks for the snapshot of its query execution by a name (the
planned read's token and Spark's execution id): the first partition to ask
exports its transaction's snapshot under a lease, the others get the same
identifier, and the next execution gets a fresh one.

    >>> reg = Registry()
    >>> reg.get("k"), reg.put("k", "S1", 60.0), reg.get("k")
    (None, 'S1', 'S1')
    >>> reg.put("k", "S2", 60.0)  # the first one stays
    'S1'
"""

from __future__ import annotations

import threading
import time


class Registry:
    """Name -> exported snapshot identifier, until the snapshot's lease expires."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._named: dict[str, tuple[str, float]] = {}

    def get(self, name: str) -> str | None:
        """The live identifier registered under `name`, if any."""
        with self._lock:
            got = self._named.get(name)
        return got[0] if got is not None and got[1] > time.monotonic() else None

    def put(self, name: str, ident: str, seconds: float) -> str:
        """Registers `ident` under `name` unless a live one is there; returns the one that holds."""
        now = time.monotonic()
        with self._lock:
            for k in [k for k, (_, end) in self._named.items() if end <= now]:
                del self._named[k]
            held = self._named.get(name)
            if held is not None:
                return held[0]
            self._named[name] = (ident, now + seconds)
            return ident


NAMED = Registry()  # one per query engine process, as the exported snapshots themselves
