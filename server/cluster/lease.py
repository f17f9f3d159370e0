"""The lease gate: a KiVi node answers data requests only while its ZooKeeper session surely lives.

Why (CLUSTER.md §1.4): a node that was paused (SIGSTOP, a long GC pause, a VM
freeze) for longer than its session timeout T has been declared dead: the MasterMind
has reopened its regions on other nodes, from its checkpoint and the loggers, under a
higher epoch. When it resumes it still holds those regions in memory, and a query
engine whose map is a little stale may still send it an apply (which would then be
missing on the new owner: a lost commit) or a read (which would miss the new owner's
writes: a wrong answer). The node cannot learn of its death before acting, since
kazoo notices the expired session only on its next exchange with the server.

So the node proves to itself that it is alive. A thread pings `exists(own member
znode)` every T/6 and remembers `t_ok`, the monotonic time at which the last
successful ping was *sent*: the server heard from the session after `t_ok`, so it
cannot expire it before `t_ok + T`. A data request is answered only if, *after* it ran
and before the reply goes out, `now < t_ok + 2/3·T`; otherwise the node answers
`RegionMoving` (retryable: the client waits, and its next try goes wherever the map
then says). Every reply the node sends therefore left before its session could have
expired, hence before any other node could own its regions.

When the ping finds the member znode gone, or owned by another session (the session
expired and kazoo reconnected with a new one), this incarnation is dead: `rejoin`
drops the regions the map now gives to others and registers again, and only then
the gate opens.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..kivi.api import Apply, Get, LatestCommit, Scan
from ..kivi.routing import Fenced, RegionMoving

log = logging.getLogger("cumulo.lease")
GATED = (Apply, Get, Scan, LatestCommit)  # what a stale owner must not answer


class LeaseGate:
    """Tracks whether this process's ZooKeeper session is surely alive (see the module doc).

    >>> g = LeaseGate(6.0); g.open(now=100.0)   # unarmed: always open
    True
    >>> g.t_ok = 100.0
    >>> g.open(now=103.9), g.open(now=104.1)    # 2/3 of 6 s after the last ping
    (True, False)
    """

    def __init__(self, session_timeout: float) -> None:
        self.timeout = session_timeout
        self.t_ok: float | None = None  # None: not armed (no ZooKeeper yet)
        self.closed_count = 0  # requests refused (for the log and tests)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def open(self, now: float | None = None) -> bool:
        t = self.t_ok
        if t is None:
            return True
        return (time.monotonic() if now is None else now) < t + self.timeout * 2 / 3

    def check(self, what: str = "request") -> None:
        """Raises `RegionMoving` unless the session surely lives."""
        if not self.open():
            self.closed_count += 1
            raise RegionMoving(f"this KiVi node's ZooKeeper lease lapsed: {what} refused")

    def arm(self, zk: Any, path: str, rejoin: Callable[[], None]) -> LeaseGate:
        """Starts pinging `path` (this process's ephemeral member znode) with `zk`."""
        self.t_ok = time.monotonic()
        self._thread = threading.Thread(target=self._run, args=(zk, path, rejoin), daemon=True,
                                        name="lease-gate")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def disarm(self) -> None:
        """Closes the gate for good and ends the pings (callable from `rejoin`, in the
        pinging thread: a deposed MasterMind, `cluster.leader`)."""
        self.t_ok = float("-inf")
        self._stop.set()

    def _run(self, zk: Any, path: str, rejoin: Callable[[], None]) -> None:
        while not self._stop.wait(self.timeout / 6):
            sent = time.monotonic()
            try:
                stat = zk.exists(path)
                ours = stat is not None and stat.ephemeralOwner == zk.client_id[0]
            except Exception:  # noqa: BLE001 - suspended or expired: the lease lapses
                continue
            if ours:
                self.t_ok = sent
                continue
            log.warning("this node's ZooKeeper session expired (member %s lost): "
                        "dropping the regions given away and registering again", path)
            try:
                rejoin()
            except Exception:  # noqa: BLE001 - try again at the next ping
                log.exception("re-registering after the session expired failed")


class Gated:
    """Serves `inner` (a KiVi node) through a `LeaseGate`: data requests are answered only
    while the lease holds, checked after they ran (see the module docstring)."""

    def __init__(self, inner: Any, gate: LeaseGate) -> None:
        self.inner, self.gate = inner, gate

    def handle(self, req: Any) -> Any:
        reply = self.inner.handle(req)
        kind = type(req.msg) if type(req) is Fenced else type(req)  # NB: a move's catch-up
        if kind in GATED:
            self.gate.check(kind.__name__)
        return reply


__all__ = ["GATED", "Gated", "LeaseGate"]
