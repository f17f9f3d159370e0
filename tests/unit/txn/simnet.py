"""A deterministic simulator of the decomposed transaction manager, over the real components.

Why: the commit protocol is split over components that talk by messages (ARCHITECTURE.md,
"Life of a transaction"), and its correctness depends on what happens when those
messages are late, reordered, lost and resent. Threads cannot explore that; a seeded
scheduler can, and replays any failure from its seed.

What is real and what is simulated:

- real: `CommitSequencer`, `SnapshotServer`, `ConflictManager` (one per bucket share),
  `GroupCommit` (the logger's decisions) and `KiviNode` (storage, several of them, keys
  spread by hash). Each is driven only through `handle(message)`-style calls.
- simulated: the network and the LTM. `Net` delivers every message after a random delay
  (so messages between any two actors overtake each other), loses attempts and resends
  them after a retransmission timeout, and delivers *duplicates* of the messages whose
  receivers must be idempotent (Apply, Readable, Discarded, Advanced, Release, Prune,
  Collect). `SimLTM` is the LTM's commit protocol written as message handlers (the real
  `LocalTxnManager` is threaded, so it cannot run under a scheduler); it follows the
  same steps: lazy snapshot with session consistency, conflict checks per write, commit
  ts from a local batch, redo record durable on a logger before the acknowledgement,
  then apply, report readable and release.

The checker (`simcheck.Checker`) then verifies the history; the gap check runs online,
each time the snapshot server moves.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Any

from cumulo.server.kivi.api import Apply, Collect
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn import groupcommit as gcm
from cumulo.server.txn.conflicts import (
    ConflictManager,
    Prune,
    WaitForGraph,
    Woken,
    bucket_of,
)
from cumulo.server.txn.sequencer import CommitSequencer, RequestBatch
from cumulo.server.txn.snapshot import Advanced, SnapshotServer

from .simcheck import Checker, SimViolation
from .simltm import SPACE, LogAppend, LogDurable, SimLTM


@dataclass(frozen=True)
class Config:
    txns: int = 10_000  # update and read-only transactions to finish (commit or abort)
    ltms: int = 3
    sessions: int = 6  # per LTM
    cms: int = 2
    buckets: int = 64
    loggers: int = 2
    nodes: int = 2
    keys: int = 300
    hot: int = 12  # a third of the accesses go to these keys, for conflicts and waits
    ops: tuple[int, int] = (1, 6)
    write_ratio: float = 0.5
    delete_ratio: float = 0.1
    delay: float = 1.0  # ms, the maximum one-way network delay
    drop: float = 0.02  # probability that one attempt of a message is lost
    dup: float = 0.03  # probability that an idempotent message also arrives a second time
    rto: float = 5.0  # ms before a lost attempt is resent
    fsync: tuple[float, float] = (0.3, 2.0)
    segment_bytes: int = 4096  # small, so that segments roll under in-flight fsyncs
    fail_commit: float = 0.01  # a commit that dies after taking its ts (the ts is discarded)
    drain_every: float = 15.0  # ms: an LTM gives back its unused timestamps this often
    gc_every: float = 40.0
    max_batch: int = 32


class Net:
    """The scheduler: one heap of (time, seq, handler, message); seeded, hence reproducible."""

    def __init__(self, rng: random.Random, cfg: Config) -> None:
        self.rng = rng
        self.cfg = cfg
        self.now = 0.0
        self.q: list[tuple[float, int, Any, Any]] = []
        self.seq = 0
        self.messages = 0
        self.lost = 0
        self.dups = 0

    def send(self, handler: Any, msg: Any, idempotent: bool = False) -> None:
        """Delivers msg to handler after a random delay, resending lost attempts."""
        rnd = self.rng.random
        cfg = self.cfg
        t = self.now + rnd() * cfg.delay
        while rnd() < cfg.drop:
            t += cfg.rto  # this attempt was lost: the sender's timer fires and it resends
            self.lost += 1
        self.seq += 1
        heapq.heappush(self.q, (t, self.seq, handler, msg))
        if idempotent and rnd() < cfg.dup:  # the ack was lost, so the receiver gets it twice
            self.dups += 1
            self.seq += 1
            heapq.heappush(self.q, (t + cfg.rto * rnd() * 2, self.seq, handler, msg))

    def at(self, t: float, handler: Any, arg: Any = None) -> None:
        """Runs handler(arg) at time t (a local timer: never lost)."""
        self.seq += 1
        heapq.heappush(self.q, (t, self.seq, handler, arg))

    def run(self) -> None:
        """Delivers messages in time order until the queue is empty."""
        q = self.q
        pop = heapq.heappop
        n = 0
        while q:
            t, _s, handler, msg = pop(q)
            self.now = t
            handler(msg)
            n += 1
        self.messages += n


class Sim:
    """Wires the components, runs the sessions, and feeds the checker."""

    def __init__(
        self,
        seed: int,
        cfg: Config | None = None,
        *,
        cm_class: type = ConflictManager,
        snapshot_class: type = SnapshotServer,
        node_class: type = KiviNode,
        logger_class: type = gcm.GroupCommit,
    ) -> None:
        self.seed = seed
        self.cfg = cfg = cfg or Config()
        self.rng = random.Random(seed)
        self.net = Net(self.rng, cfg)
        self.checker = Checker(seed)
        self.keys = [encode_key((i,)) for i in range(cfg.keys)]
        self.sequencer = CommitSequencer(1)
        self.snap = snapshot_class(0)
        self.cms = [cm_class(frozenset(range(i, cfg.buckets, cfg.cms))) for i in range(cfg.cms)]
        self.cm_of = [0] * cfg.buckets
        for i, cm in enumerate(self.cms):
            for b in cm.owned:
                self.cm_of[b] = i
        self.key_cm = [self.cm_of[bucket_of((SPACE, k), cfg.buckets)] for k in self.keys]
        self.key_node = [i % cfg.nodes for i in range(cfg.keys)]
        self.nodes = [node_class(node_id=f"n{i}") for i in range(cfg.nodes)]
        self.logger_class = logger_class
        self.loggers = [SimLogger(self, i) for i in range(cfg.loggers)]
        self.graph = WaitForGraph()
        self.cm_handlers = [self.cm_recv(i) for i in range(cfg.cms)]
        self.node_handlers = [self.node_recv(i) for i in range(cfg.nodes)]
        self.ltms = [SimLTM(self, i) for i in range(cfg.ltms)]
        self.handed_out = 0  # timestamps 1..handed_out were given to some LTM
        self.published = 0  # the largest snapshot the snapshot server announced
        self.checked = 0  # timestamps <= checked passed the gap check
        self.applied_left: dict[int, int] = {}  # cts -> nodes that have not applied it yet
        self.applied_at: set[tuple[int, int]] = set()
        self.discarded: set[int] = set()
        self.finished = 0
        self.started = 0
        self.stats = {"conflicts": 0, "waits": 0, "deadlocks": 0, "failed_commits": 0,
                      "discarded": 0, "session_waits": 0}

    # -- the run ------------------------------------------------------------------------

    def run(self) -> Sim:
        """Runs cfg.txns transactions to their end, drains, and checks the history."""
        for ltm in self.ltms:
            for s in range(self.cfg.sessions):
                self.net.at(self.rng.random(), ltm.start_txn, s)
            self.net.at(self.rng.random() * self.cfg.drain_every, ltm.drain, None)
        self.net.at(self.cfg.gc_every, self.gc, None)
        self.net.run()
        for ltm in self.ltms:  # every LTM closes: the rest of its batch is discarded
            ltm.drain(None, again=False)
        self.net.run()
        if self.finished < self.cfg.txns:
            raise SimViolation(self.seed, f"liveness: only {self.finished} transactions ended")
        if self.snap.snapshot != self.handed_out:
            raise SimViolation(
                self.seed,
                f"liveness: the snapshot stopped at {self.snap.snapshot}, "
                f"timestamps up to {self.handed_out} were handed out",
            )
        self.checker.check()
        return self

    def gc(self, _: Any) -> None:
        """The low-water mark: no active transaction and no future snapshot is older."""
        if self.finished >= self.cfg.txns:
            return
        lw = min(ltm.known for ltm in self.ltms)
        for ltm in self.ltms:
            for t in ltm.active.values():
                if t.start is not None and t.start < lw:
                    lw = t.start
        for i in range(self.cfg.nodes):
            self.net.send(self.node_handlers[i], Collect(lw), idempotent=True)
        for i in range(self.cfg.cms):
            self.net.send(self.cm_handlers[i], Prune(lw), idempotent=True)
        self.net.at(self.net.now + self.cfg.gc_every, self.gc, None)

    # -- the components' message handlers ----------------------------------------------------

    def sequencer_recv(self, msg: RequestBatch) -> None:
        for out in self.sequencer.handle(msg, self.net.now):
            if out.first != self.handed_out + 1:
                raise SimViolation(self.seed, f"sequencer skipped or reused timestamps: {out}")
            self.handed_out = out.last
            self.net.send(self.ltms[out.ltm].on_batch, out)

    def snapshot_recv(self, msg: Any) -> None:
        for out in self.snap.handle(msg, self.net.now):
            if type(out) is Advanced:
                self._check_gap_free(out.snapshot)
                for ltm in self.ltms:
                    self.net.send(ltm.on_advanced, out, idempotent=True)

    def _check_gap_free(self, snap: int) -> None:
        """Online check: every timestamp the snapshot covers is applied everywhere or discarded."""
        if snap < self.published:
            raise SimViolation(self.seed, f"the snapshot went back from {self.published} to {snap}")
        self.published = snap
        if snap > self.handed_out:
            raise SimViolation(self.seed, f"snapshot {snap} covers timestamps never handed out")
        for ts in range(self.checked + 1, snap + 1):
            if ts in self.discarded:
                self.discarded.discard(ts)
                continue
            left = self.applied_left.pop(ts, None)
            if left is None or left:
                raise SimViolation(
                    self.seed,
                    f"gap: snapshot {snap} covers ts {ts}, which is "
                    + ("not applied on every node" if left else "neither committed nor discarded"),
                )
        self.checked = snap

    def cm_recv(self, i: int) -> Any:
        cm = self.cms[i]

        def recv(msg: Any) -> None:
            for out in cm.handle(msg, self.net.now):
                if type(out) is Woken:
                    for tid in out.txns:
                        ltm = self.ltms[tid % self.cfg.ltms]
                        self.net.send(ltm.on_woken, tid)
                else:
                    self.net.send(self.ltms[out.txn % self.cfg.ltms].on_acquired, out)

        return recv

    def node_recv(self, i: int) -> Any:
        node = self.nodes[i]

        def recv(msg: Any) -> None:
            if type(msg) is Apply:
                if (msg.ts, i) not in self.applied_at:  # NB: a duplicate re-applies, harmlessly
                    if msg.ts <= self.published:
                        raise SimViolation(
                            self.seed, f"commit {msg.ts} applied under snapshot {self.published}"
                        )
                    self.applied_at.add((msg.ts, i))
                    self.applied_left[msg.ts] -= 1
                node.apply(msg)
                return
            if type(msg) is Collect:
                node.collect(msg)
                return
            get, reply = msg
            reply(node.get(get).rows[0])

        return recv


class SimLogger:
    """One logger: the real `GroupCommit` decisions, a fake disk that knows what is durable."""

    def __init__(self, sim: Sim, idx: int) -> None:
        self.sim = sim
        self.idx = idx
        self.gc = sim.logger_class(1, {}, sim.cfg.segment_bytes, 0.2)
        self.segment: dict[int, list[int]] = {1: []}  # seq -> lsns written to it
        self.durable: set[int] = set()
        self.flush: tuple[int, list[int]] | None = None
        self.waiters: list[tuple[int, LogAppend]] = []

    def recv(self, msg: LogAppend) -> None:
        lsn = 0
        for out in self.gc.handle(gcm.Append(msg.ts, msg.nbytes)):
            if type(out) is gcm.Write:
                lsn = out.lsn
                self.segment[self.gc.seq].append(lsn)
            else:
                self._do(out)
        self.waiters.append((lsn, msg))
        self._wait(lsn)

    def _wait(self, lsn: int) -> None:
        for out in self.gc.handle(gcm.WaitDurable(lsn), self.sim.net.now):
            self._do(out)

    def _do(self, out: Any) -> None:
        match out:
            case gcm.OpenSegment(seq):
                self.segment.setdefault(seq, [])
            case gcm.CloseSegment(seq):
                self.durable.update(self.segment.pop(seq))  # close = fsync + close
            case gcm.StartFsync(seq, upto):
                # The fsync covers what the segment holds *now* (later writes may or may not).
                self.flush = (upto, list(self.segment[seq]))
                lo, hi = self.sim.cfg.fsync
                self.sim.net.at(self.sim.net.now + lo + self.sim.rng.random() * (hi - lo),
                                self.fsync_done)
            case gcm.Durable(upto):
                self._durable(upto)

    def fsync_done(self, _: Any) -> None:
        upto, lsns = self.flush  # type: ignore[misc]
        self.flush = None
        self.durable.update(lsns)
        for out in self.gc.handle(gcm.FsyncDone(upto)):
            self._do(out)
        if self.waiters:  # the next leader syncs whatever arrived during this fsync
            self._wait(max(lsn for lsn, _m in self.waiters))

    def _durable(self, upto: int) -> None:
        keep = []
        for lsn, msg in self.waiters:
            if lsn <= upto:
                if lsn not in self.durable:
                    raise SimViolation(
                        self.sim.seed, f"logger {self.idx} reported lsn {lsn} durable; it is not"
                    )
                self.sim.net.send(self.sim.ltms[msg.ltm].on_durable, LogDurable(msg.ts, msg.tid))
            else:
                keep.append((lsn, msg))
        self.waiters = keep
