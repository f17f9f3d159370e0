"""The MasterMind role: one commit sequencer and one snapshot server shared by every LTM.

Why a role of its own: with several query engines, commit timestamps must come from
one sequence and the snapshot must be the gap-free prefix of *all* of them
(ARCHITECTURE.md). `MasterMindService` serves the two state machines over
`kivi.remote`, on the event loop (one message at a time, so they need no lock);
`RemoteSequencer` and `RemoteSnapshots` are shaped like the in-process objects that
`txn.ltm.LocalTxnManager` takes, so the LTM code does not change.

The snapshot also moves when *another* LTM's commit fills a gap; an LTM learns that
by a long poll (`PollSnapshot`, run in the thread pool), which `cluster.manager`
turns into `LocalTxnManager.snapshot_advanced()` so that its session-consistency
waiters wake up. `Start(ts)` sets both machines after recovery (timestamps above
`ts`, snapshot at `ts`), and only moves them forward.

It also holds the global wait-for graph (`WaitEdge`, `WaitDone`): each LTM detects
the deadlocks among its own transactions, but a cycle through two query engines is
only seen here.

And it holds every LTM's low water (`LowWater`): the oldest snapshot an LTM's active
transactions may read at. Garbage collection in cluster mode removes versions and
conflict records below a mark on storage and conflict managers that every LTM shares,
so the mark must be the minimum over all of them, not one LTM's own (another query
engine's open REPEATABLE READ snapshot would lose its versions). An LTM's report is a
lower bound of its low water until its next one (its snapshots only move forward), so
the minimum over reports is safe; an LTM that has not reported for `expire_after`
seconds is taken for dead and no longer holds GC back.

It also keeps which timestamps each LTM was handed (`reaper.LtmBatches`), so that
when a query engine dies (`cluster.reaper`, with ZooKeeper) it can `fence` that LTM
(its batches, reports and low water are refused from then on, 57P01), `resolve` the
timestamps it left unfinished, and `forget` its low water and waits.

With ZooKeeper, several may run: `cluster.leader` elects one, serves it through
`MasterMindRole` and persists a timestamp bound before a batch passes it (`reserve`),
so that a successor starts above anything handed out. It owns placement too: `placer` (a `cluster.placer.Placer`, set by
`cluster.role` once ZooKeeper is reached) makes the splits and moves that query
engines ask for (`SplitAt`, `MoveRegion`, run in the thread pool) and runs the loop
that splits big regions and balances the nodes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import FeatureNotSupported, SQLError
from ..kivi.api import Ack
from ..kivi.remote import RemoteNode
from ..kivi.wire import register_messages
from ..txn import sequencer as seq_mod
from ..txn import snapshot as snap_mod
from ..txn.conflicts import WaitForGraph
from ..txn.sequencer import CommitSequencer, Recovered
from ..txn.snapshot import Advanced, SnapshotServer
from . import mmframing
from .placer import MoveRegion, Placer, SplitAt
from .reaper import LtmBatches
from .seqmarks import MESSAGES as SEQ_MESSAGES
from .seqmarks import SequenceMarks
from .services import ltm_of


@dataclass(frozen=True)
class Start:
    """Recovery found everything up to `ts` committed: continue above it."""

    ts: int


@dataclass(frozen=True)
class PollSnapshot:
    """Reply `SnapshotIs` once the snapshot is above `known`, or after `timeout` seconds."""

    known: int
    timeout: float


@dataclass(frozen=True)
class SnapshotIs:
    snapshot: int


@dataclass(frozen=True)
class WaitEdge:
    """`waiter` is about to wait for `holder`: reply True (and record nothing) if that closes
    a cycle in the global wait-for graph, else record the edge and reply False."""

    waiter: int
    holder: int


@dataclass(frozen=True)
class WaitDone:
    """`waiter` no longer waits."""

    waiter: int


@dataclass(frozen=True)
class LowWater:
    """LTM `ltm_id`'s low water is `lw`: reply the minimum over the LTMs that reported
    recently (this one included) with `GlobalLowWater`."""

    ltm_id: int
    lw: int


@dataclass(frozen=True)
class GlobalLowWater:
    lw: int


register_messages(WaitEdge, WaitDone, LowWater, GlobalLowWater)
register_messages(Start, PollSnapshot, SnapshotIs, seq_mod.RequestBatch, seq_mod.Batch,
                  seq_mod.Recovered, snap_mod.Readable, snap_mod.Discarded, snap_mod.Advanced)
mmframing.register(PollSnapshot, SnapshotIs)  # fixed layouts for the per-transaction ones


class MasterMindService:
    """The shared sequencer and snapshot server (see the module docstring)."""

    def __init__(self, expire_after: float = 30.0) -> None:
        self.sequencer = CommitSequencer(1)
        self.expire_after = expire_after  # an LTM silent this long no longer holds GC back
        self.low_waters: dict[int, tuple[int, float]] = {}  # ltm_id -> (lw, when reported)
        self.snapshots = SnapshotServer(0)
        self.graph = WaitForGraph()  # every LTM's waiters: deadlocks across query engines
        self._cond = threading.Condition()
        self.placer: Placer | None = None  # placement changes, with ZooKeeper (see above)
        self.batches = LtmBatches()  # who was handed which timestamps (a dead LTM's gaps)
        self.fenced: set[int] = set()  # LTMs declared dead: refused from then on
        # NB: with a leader elected in ZooKeeper (`cluster.leader`): called with the largest
        # ts a batch may hand out, before it is taken; it persists a higher bound first
        # (save before use), so that a new leader starts above anything handed out
        self.reserve: Callable[[int], None] | None = None
        # NB: a new leader has no low water reports yet: it gives no GC mark until then
        self.gc_hold_until = 0.0
        # the sequences' marks (`cluster.seqmarks`); a leader persists them in ZooKeeper
        self.sequences = SequenceMarks()

    def offload(self, msg: Any) -> bool:
        """Long polls and placement changes run off the event loop, and so does a sequence
        block that writes ZooKeeper. A poll that may not wait (timeout 0:
        `RemoteSnapshots.refresh`, one per transaction start) is answered inline: a
        thread-pool hop cost the MasterMind more CPU than the answer."""
        kind = type(msg)
        if kind in SEQ_MESSAGES:
            return self.sequences.writes(msg)
        return kind is SplitAt or kind is MoveRegion or (kind is PollSnapshot and msg.timeout > 0)

    def handle(self, msg: Any) -> Any:
        """Runs one message: sequencer and snapshot messages answer with their outputs."""
        if type(msg) is PollSnapshot:
            with self._cond:
                if self.snapshots.snapshot <= msg.known:
                    self._cond.wait(msg.timeout)
                return SnapshotIs(self.snapshots.snapshot)
        if type(msg) in (SplitAt, MoveRegion):
            if self.placer is None:
                raise FeatureNotSupported("this MasterMind runs without ZooKeeper: no placement")
            return self.placer.handle(msg)
        if type(msg) in SEQ_MESSAGES:
            return self.sequences.handle(msg)
        if type(msg) is WaitEdge:
            if self.graph.would_deadlock(msg.waiter, msg.holder):
                return True
            self.graph.add(msg.waiter, msg.holder)
            return False
        if type(msg) is WaitDone:
            self.graph.remove(msg.waiter)
            return Ack()
        if self.fenced:
            self._refuse_fenced(msg)
        if type(msg) is LowWater:
            now = time.monotonic()
            lw = self.global_low_water(msg.ltm_id, msg.lw, now)
            return GlobalLowWater(0 if now < self.gc_hold_until else lw)
        if type(msg) is Start:
            self.sequencer.handle(Recovered(msg.ts))
            with self._cond:
                if msg.ts > self.snapshots.snapshot and not self.snapshots.pending:
                    self.snapshots = SnapshotServer(msg.ts)
                    self._cond.notify_all()
            return Ack()
        if type(msg) is seq_mod.RequestBatch:
            with self._cond:
                if self.reserve is not None:
                    self.reserve(self.sequencer.next_ts + msg.size)
                out = self.sequencer.handle(msg)
                self.batches.forget_below(self.snapshots.snapshot)
                self.batches.handed(out[0])
            return out
        if type(msg) is seq_mod.Recovered:
            return self.sequencer.handle(msg)
        with self._cond:
            out = self.snapshots.handle(msg)
            if out:
                self._cond.notify_all()
        return out

    def _refuse_fenced(self, msg: Any) -> None:
        """A dead LTM (a paused engine that woke up) may not take, report or hold back
        anything: what `reaper.reap` decided for it must stay true."""
        kind = type(msg)
        if kind is seq_mod.RequestBatch:
            ltm = msg.ltm
        elif kind in (LowWater,):
            ltm = msg.ltm_id
        elif kind is WaitEdge:
            ltm = ltm_of(msg.waiter)
        elif kind in (snap_mod.Readable, snap_mod.Discarded):
            ltm = next((t for t in tuple(self.fenced) if self.batches.owns(t, msg.ts)), -1)
        else:
            return
        if ltm in self.fenced:
            raise SQLError("terminating connection: this query engine was declared dead "
                           "(its ZooKeeper session expired)", sqlstate="57P01",
                           hint="Its transactions were aborted; reconnect to another engine.")

    def fence(self, ltm: int) -> tuple[int, list[int]]:
        """Declares LTM `ltm` dead; returns (the largest ts it was ever handed, the ones it
        left unfinished)."""
        with self._cond:
            self.fenced.add(ltm)
            return (self.batches.top.get(ltm, 0),
                    self.batches.unfinished(ltm, self.snapshots.finished))

    def resolve(self, readable: tuple[int, ...], discarded: tuple[int, ...]) -> None:
        """Finishes a dead LTM's timestamps (bypassing the fence)."""
        with self._cond:
            for msg in (snap_mod.Readable(readable), snap_mod.Discarded(discarded)):
                if msg.ts and self.snapshots.handle(msg):
                    self._cond.notify_all()

    def high_mark(self) -> int:
        """The largest timestamp handed out so far (a restarted conflict manager's
        watermark, `cluster.cmfailover`)."""
        with self._cond:
            return self.sequencer.next_ts - 1

    def forget(self, ltm: int) -> None:
        """Drops a dead LTM's low water and its waiters' edges."""
        self.low_waters.pop(ltm, None)
        for waiter in [w for w in list(self.graph.edges) if ltm_of(w) == ltm]:
            self.graph.remove(waiter)

    def global_low_water(self, ltm_id: int, lw: int, now: float) -> int:
        """Records one LTM's low water; returns the minimum over the LTMs heard from lately.

        >>> mm = MasterMindService(expire_after=30.0)
        >>> mm.global_low_water(1, 50, now=0.0)
        50
        >>> mm.global_low_water(2, 80, now=1.0)   # LTM 1's 50 still holds it back
        50
        >>> mm.global_low_water(2, 90, now=40.0)  # LTM 1 silent for 40 s: dropped
        90
        """
        self.low_waters[ltm_id] = (lw, now)
        live = {k: v for k, v in self.low_waters.items() if now - v[1] <= self.expire_after}
        self.low_waters = live
        return min(v[0] for v in live.values())


class RemoteSequencer:
    """The sequencer of a MasterMind role, shaped like `CommitSequencer`."""

    def __init__(self, client: RemoteNode) -> None:
        self.client = client

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        return list(self.client.handle(msg))


class RemoteSnapshots:
    """The snapshot server of a MasterMind role, shaped like `SnapshotServer`.

    `snapshot` is the newest value this process has seen (from its own reports' answers
    and from `poll`); it only grows.
    """

    def __init__(self, client: RemoteNode) -> None:
        self.client = client
        self.snapshot = 0
        self.pending = 0
        self._lock = threading.Lock()
        # `refresh` coalescing: asks sent (`_sent`) and answered (`_answered`), numbered
        # in order; one ask at a time, sent by whichever caller finds none in flight
        self._ask = threading.Condition(threading.Lock())
        self._sent = 0
        self._answered = 0
        self._asking = False
        self.stats = {"refreshes": 0, "asks": 0}

    def _saw(self, snap: int) -> bool:
        with self._lock:
            if snap > self.snapshot:
                self.snapshot = snap
                return True
            return False

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Reports readable or discarded timestamps; returns `[Advanced(T)]` if it moved."""
        out = list(self.client.handle(msg))
        for o in out:
            if type(o) is Advanced:
                self._saw(o.snapshot)
        return out

    def poll(self, timeout: float) -> bool:
        """Waits up to timeout seconds for the shared snapshot to move; tells whether it did."""
        return self._saw(self.client.handle(PollSnapshot(self.snapshot, timeout)).snapshot)

    def refresh(self) -> int:
        """Learns a snapshot at least as new as the MasterMind's at the time of the call
        (a commit another query engine acknowledged before it is in it), rather than the
        newest this process happened to see.

        Concurrent callers share asks: any answer to an ask *sent after* a caller arrived
        is as good for it as its own (the MasterMind's snapshot only grows), so a caller
        that finds an ask in flight waits for it to end and then takes the next one,
        sent by itself or by another waiter. With k sessions starting transactions at
        once an engine sends about one ask per round trip instead of k, and the answer
        is exactly as fresh as asking alone.
        """
        ask = self._ask
        with ask:
            self.stats["refreshes"] += 1
            need = self._sent + 1  # NB: the next ask sent; one in flight left before we came
            while self._answered < need:
                if self._asking:
                    ask.wait()
                    continue
                self._asking = True
                self._sent += 1
                mine = self._sent
                self.stats["asks"] += 1
                ask.release()
                try:
                    self.poll(0.0)
                finally:
                    ask.acquire()
                    self._asking = False
                    ask.notify_all()
                self._answered = mine
        return self.snapshot

    def report_low_water(self, ltm_id: int, lw: int) -> int:
        """Tells the MasterMind this LTM's low water; returns the global one (<= lw)."""
        return int(self.client.handle(LowWater(ltm_id, lw)).lw)

    def start(self, ts: int) -> None:
        """Tells the MasterMind that recovery found everything up to ts; learns the snapshot."""
        self.client.handle(Start(ts))
        self.poll(0.0)


class RemoteWaitForGraph:
    """The MasterMind's global wait-for graph, shaped like `conflicts.WaitForGraph`.

    `edges` keeps this LTM's own waiters (the LTM reads it to tell who waits);
    `would_deadlock` asks the MasterMind, which checks the cycle and records the edge in
    one step (two LTMs checking at once cannot both miss the cycle they close), so the
    `add` that follows only records the edge here.
    """

    def __init__(self, client: RemoteNode) -> None:
        self.client = client
        self.edges: dict[int, int] = {}

    def would_deadlock(self, waiter: int, holder: int) -> bool:
        return bool(self.client.handle(WaitEdge(waiter, holder)))

    def add(self, waiter: int, holder: int) -> None:
        self.edges[waiter] = holder

    def remove(self, waiter: int) -> None:
        if self.edges.pop(waiter, None) is not None:
            self.client.handle(WaitDone(waiter))
