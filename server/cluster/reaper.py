"""A dead query engine's leftovers, cleared by the MasterMind (CLUSTER.md §3.2).

Why: a query engine (an LTM) that dies holds three things the others wait on.

1. **Timestamps.** It takes commit timestamps from the MasterMind in batches. One it
   took but never finished (the rest of its batch, a commit it logged but did not
   report) is a gap below which the shared snapshot cannot move: every other engine's
   commit would wait for it forever (`LocalTxnManager._await_snapshot`).
2. **Write locks** in the conflict managers: their waiters on other engines would
   wait forever.
3. **Its low water**, which holds garbage collection back.

ZooKeeper tells when it died: each engine holds an ephemeral `/cumulo/ltms/ltm-<seq>`
(`cluster.zk.join_as_ltm`), deleted when its session expires (a SIGKILL, or a pause
longer than the session timeout). The MasterMind's `Reaper` watches those znodes and,
for each one that goes, runs `reap`:

1. **Fence** it: the MasterMind refuses its batches, reports and low water
   (57P01), and every logger its records (`services.FenceLtm`, which replies once the
   records it accepted before are durable). A paused engine that wakes up can then
   neither log nor publish a commit, so what step 2 decides stays true.
2. **Resolve** its unfinished timestamps (`LtmBatches`): one a logger holds was
   committed, durably, so it is applied again to KiVi (idempotent) and reported
   readable; one no logger holds never will be, and is discarded. The snapshot moves.
3. **Release** its conflict-manager holds as committed at the largest timestamp it
   was ever handed (`services.ReleaseLtm`): this covers any commit of it the log
   holds, whether or not it was released, and costs a writer with an older snapshot
   at most a 40001. Its waiters on other engines wake up.
4. **Forget** its low water and its edges in the global wait-for graph.

Its clients lost their connection with the process; the other engines' clients see
at most a delay of about the session timeout.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..kivi.client import KiviClient
from ..kivi.remote import RemoteNode
from ..txn.codec import unpack_bulk
from ..txn.recovery import record_ts, replay_records
from ..txn.sequencer import Batch
from . import zk as zk_mod
from .services import FenceLtm, LogRead, ReleaseLtm
from .zkmap import ZkRegionMap

log = logging.getLogger("cumulo.reaper")


class LtmBatches:
    """The timestamp ranges each LTM was handed, kept while some may be unfinished.

    >>> b = LtmBatches()
    >>> b.handed(Batch(1, 1, 10)); b.handed(Batch(2, 11, 20)); b.handed(Batch(1, 21, 30))
    >>> b.unfinished(1, lambda ts: ts <= 25)
    [26, 27, 28, 29, 30]
    >>> b.forget_below(20); b.ranges, b.top
    ({1: [(21, 30)]}, {1: 30, 2: 20})
    >>> b.owns(1, (22,)), b.owns(2, (22,))
    (True, False)
    """

    def __init__(self) -> None:
        self.ranges: dict[int, list[tuple[int, int]]] = {}
        self.top: dict[int, int] = {}  # LTM -> the largest ts it was ever handed

    def handed(self, batch: Batch) -> None:
        self.ranges.setdefault(batch.ltm, []).append((batch.first, batch.last))
        self.top[batch.ltm] = max(self.top.get(batch.ltm, 0), batch.last)

    def forget_below(self, snapshot: int) -> None:
        """Drops the ranges the snapshot has passed (all their timestamps are finished)."""
        for ltm in list(self.ranges):
            kept = [r for r in self.ranges[ltm] if r[1] > snapshot]
            if kept:
                self.ranges[ltm] = kept
            else:
                del self.ranges[ltm]

    def unfinished(self, ltm: int, finished: Callable[[int], bool]) -> list[int]:
        return [ts for first, last in self.ranges.get(ltm, ())
                for ts in range(first, last + 1) if not finished(ts)]

    def owns(self, ltm: int, stamps: tuple[int, ...]) -> bool:
        """Tells whether any of the timestamps was handed to `ltm`."""
        return any(first <= ts <= last for first, last in self.ranges.get(ltm, ())
                   for ts in stamps)


@dataclass(frozen=True)
class Reaped:
    """What `reap` did for one dead LTM."""

    ltm: int
    reapplied: int  # logged commits applied again and reported readable
    discarded: int  # timestamps it took and never used
    released: int  # transactions whose conflict-manager holds were dropped
    seconds: float


def logged_among(payloads: list[bytes], wanted: set[int]) -> list[bytes]:
    """The redo records whose commit ts is in `wanted`."""
    out = []
    for p in payloads:
        ts = record_ts(p)
        if ts is None:
            ts = unpack_bulk(p)[0]
        if ts in wanted:
            out.append(p)
    return out


def reap(mm: Any, ltm: int, loggers: list[Any], cms: list[Any], kivi: Any) -> Reaped:
    """Clears what LTM `ltm` left (see the module docstring); `mm` is the
    `MasterMindService`, the others are clients (`handle`) of the roles, `kivi` a
    `KiviNodeAPI` over every node."""
    t0 = time.monotonic()
    top, stamps = mm.fence(ltm)
    for lg in loggers:
        lg.handle(FenceLtm(ltm))
    readable: list[int] = []
    if stamps:
        wanted = set(stamps)
        base = min(wanted) - 1
        records = logged_among([p for lg in loggers for p in lg.handle(LogRead(base)).payloads],
                               wanted)
        replay_records(records, kivi, base)
        readable = sorted({record_ts(p) or unpack_bulk(p)[0] for p in records})
    discarded = sorted(set(stamps) - set(readable))
    mm.resolve(tuple(readable), tuple(discarded))
    released = sum(int(cm.handle(ReleaseLtm(ltm, top)).value or 0) for cm in cms) if top else 0
    mm.forget(ltm)
    return Reaped(ltm, len(readable), len(discarded), released, time.monotonic() - t0)


class Reaper:
    """Watches the engines' znodes and reaps each one that goes (one thread, in order)."""

    def __init__(self, zk: Any, mm: Any, retry: float = 1.0,
                 seen: set[str] | None = None) -> None:
        self.zk, self.mm, self.retry = zk, mm, retry
        # NB: a new MasterMind leader passes the engines its predecessor knew
        # (`cluster.leader`): one that died while no leader watched is reaped too
        self.seen: set[str] = set(seen or ())
        self.done: list[Reaped] = []  # for the log and for tests
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._kivi: KiviClient | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="ltm-reaper")

    def start(self) -> Reaper:
        self.zk.ensure_path(zk_mod.LTMS)
        self._thread.start()
        self.zk.ChildrenWatch(zk_mod.LTMS, self._on_children)
        return self

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(10)
        if self._kivi is not None:
            self._kivi.close()

    def _on_children(self, children: list[str]) -> None:
        """kazoo's thread: only posts the LTM ids that left."""
        now = set(children)
        for name in sorted(self.seen - now):
            self._queue.put(int(name.rsplit("-", 1)[1]) % zk_mod.MAX_LTMS)
        self.seen = now

    def _run(self) -> None:
        while True:
            ltm = self._queue.get()
            if ltm is None:
                return
            while True:
                try:
                    done = self._reap(ltm)
                    break
                except Exception:  # noqa: BLE001 - a role is briefly unreachable: try again
                    log.exception("clearing what dead query engine %d left failed; retrying", ltm)
                    time.sleep(self.retry)
            self.done.append(done)
            log.info("query engine %d is dead: %d commits applied again, %d timestamps "
                     "discarded, %d transactions' locks released, in %.3f s", done.ltm,
                     done.reapplied, done.discarded, done.released, done.seconds)

    def _reap(self, ltm: int) -> Reaped:
        members = zk_mod.discover(self.zk)
        loggers = [RemoteNode(h, p) for _n, (h, p) in members.addresses("logger")]
        cms = [RemoteNode(h, p) for _n, (h, p) in members.addresses("cm")]
        try:
            return reap(self.mm, ltm, loggers, cms, self._kivi_client(members))
        finally:
            for c in loggers + cms:
                c.close()

    def _kivi_client(self, members: zk_mod.Membership) -> KiviClient:
        if self._kivi is None:
            nodes = {n: RemoteNode(h, p) for n, (h, p) in members.addresses("kivi")}
            self._kivi = KiviClient(nodes, ZkRegionMap(self.zk, sorted(nodes), adopt=False))
        return self._kivi


__all__ = ["LtmBatches", "Reaped", "Reaper", "logged_among", "reap"]
