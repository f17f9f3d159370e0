"""The simulated LTM: the commit protocol of `txn.ltm.LocalTxnManager` as message handlers.

Why a model and not the real LTM: the real one is threaded (each session blocks in
its own thread), which no seeded scheduler can drive. This one takes the same steps
in the same order, as reactions to messages (see `simnet`): lazy snapshot with
session consistency, a conflict check per write (waiting behind active writers, the
wait-for graph, deadlock victims), commit ts from a local batch sized by
`sequencer.BatchSizer`, the redo record durable on a logger before the
acknowledgement, then apply on every node, report readable, release the locks; a
stale batch is given back as discarded timestamps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cumulo.server.kivi.api import Apply, Get, Write
from cumulo.server.txn.conflicts import Acquire, Conflict, Granted, Release, Wait
from cumulo.server.txn.sequencer import BatchSizer, LocalBatch, RequestBatch
from cumulo.server.txn.snapshot import Advanced, Discarded, Readable

from .simcheck import SimViolation, TxnRecord

if TYPE_CHECKING:
    from .simnet import Sim

SPACE = 1


class SimTxn:
    __slots__ = (
        "tid", "ltm", "session", "ops", "i", "start", "need", "reads", "writes", "held", "cts",
        "done", "woken", "waiting", "nodes_left",
    )

    def __init__(self, tid: int, ltm: SimLTM, session: int, ops: list, need: int) -> None:
        self.tid = tid
        self.ltm = ltm
        self.session = session
        self.ops = ops
        self.i = 0
        self.start: int | None = None
        self.need = need
        self.reads: dict[int, Any] = {}
        self.writes: dict[int, Any] = {}
        self.held: dict[int, None] = {}  # keys whose write lock the txn holds (ordered)
        self.cts: int | None = None
        self.done = False
        self.woken = False
        self.waiting: int | None = None  # the CM index it waits on
        self.nodes_left: set[int] = set()


@dataclass(frozen=True)
class LogAppend:
    ts: int
    tid: int
    ltm: int
    nbytes: int


@dataclass(frozen=True)
class LogDurable:
    ts: int
    tid: int


@dataclass(frozen=True)
class ApplyAck:
    tid: int
    node: int


class SimLTM:
    """The LTM's commit protocol as message handlers (see the module docstring)."""

    def __init__(self, sim: Sim, idx: int) -> None:
        self.sim = sim
        self.idx = idx
        self.known = 0  # the newest snapshot announced to this LTM
        self.batch = LocalBatch()
        self.requested = False
        self.need_ts: list[SimTxn] = []
        self.snap_waiters: list[SimTxn] = []
        self.active: dict[int, SimTxn] = {}
        self.session_need = [0] * sim.cfg.sessions
        self.sizer = BatchSizer(period=sim.cfg.drain_every, ceiling=sim.cfg.max_batch)
        self.counter = 0

    # -- begin and snapshot ----------------------------------------------------------------

    def start_txn(self, session: int) -> None:
        sim = self.sim
        if sim.started >= sim.cfg.txns:
            return
        sim.started += 1
        cfg = sim.cfg
        rnd = sim.rng.random
        ops = []
        for _ in range(sim.rng.randint(*cfg.ops)):
            key = int(rnd() * cfg.hot) if rnd() < 0.33 else int(rnd() * cfg.keys)
            if rnd() < cfg.write_ratio:
                ops.append(("d" if rnd() < cfg.delete_ratio else "w", key))
            else:
                ops.append(("r", key))
        self.counter += 1
        tid = self.counter * cfg.ltms + self.idx
        txn = SimTxn(tid, self, session, ops, self.session_need[session])
        self.active[tid] = txn
        if self.known < txn.need:  # session consistency: wait for our last commit
            sim.stats["session_waits"] += 1
            self.snap_waiters.append(txn)
            return
        txn.start = self.known
        self.step(txn)

    def on_advanced(self, msg: Advanced) -> None:
        if msg.snapshot <= self.known:
            return  # a late or duplicated announcement
        self.known = msg.snapshot
        if self.snap_waiters:
            ready = [t for t in self.snap_waiters if t.need <= self.known]
            self.snap_waiters = [t for t in self.snap_waiters if t.need > self.known]
            for txn in ready:
                txn.start = self.known
                self.step(txn)

    # -- statements -------------------------------------------------------------------------

    def step(self, txn: SimTxn) -> None:
        sim = self.sim
        if txn.i == len(txn.ops):
            self.commit(txn)
            return
        kind, key = txn.ops[txn.i]
        if kind == "r":
            if key in txn.writes:
                txn.i += 1
                self.step(txn)
                return

            def reply(row: Any, txn: SimTxn = txn, key: int = key) -> None:
                sim.net.send(self.on_read, (txn, key, None if row is None else row[1]))

            get = Get(SPACE, txn.start, [sim.keys[key]])  # type: ignore[arg-type]
            sim.net.send(sim.node_handlers[sim.key_node[key]], (get, reply))
            return
        if key in txn.held:
            self._write(txn)
            return
        cm = sim.key_cm[key]
        txn.waiting = cm
        txn.woken = False
        sim.net.send(sim.cm_handlers[cm], Acquire(txn.tid, txn.start, ((SPACE, sim.keys[key]),)))

    def on_read(self, msg: tuple[SimTxn, int, Any]) -> None:
        txn, key, value = msg
        if key not in txn.reads:  # a repeated read must see the same: the checker checks the first
            txn.reads[key] = value
        elif txn.reads[key] != value:
            raise SimViolation(self.sim.seed, f"txn {txn.tid} read key {key} twice, differently")
        txn.i += 1
        self.step(txn)

    def _write(self, txn: SimTxn) -> None:
        kind, key = txn.ops[txn.i]
        txn.writes[key] = None if kind == "d" else txn.tid
        txn.i += 1
        self.step(txn)

    def on_acquired(self, out: Any) -> None:
        txn = self.active.get(out.txn)
        if txn is None or txn.done:
            return
        sim = self.sim
        if type(out) is Granted:
            txn.waiting = None
            txn.held[txn.ops[txn.i][1]] = None
            self._write(txn)
        elif type(out) is Conflict:
            sim.stats["conflicts"] += 1
            self.abort(txn, "conflict")
        else:
            assert type(out) is Wait
            sim.stats["waits"] += 1
            if txn.woken:  # the holder ended before its Wait reached us: ask again
                self.step(txn)
                return
            if sim.graph.would_deadlock(txn.tid, out.holder):
                sim.stats["deadlocks"] += 1
                self.abort(txn, "deadlock")
                return
            sim.graph.add(txn.tid, out.holder)

    def on_woken(self, tid: int) -> None:
        txn = self.active.get(tid)
        if txn is None or txn.done or txn.waiting is None:
            return
        if tid in self.sim.graph.edges:
            self.sim.graph.remove(tid)
            self.step(txn)
        else:
            txn.woken = True  # the Wait reply is still on its way

    # -- commit and abort ---------------------------------------------------------------------

    def commit(self, txn: SimTxn) -> None:
        if not txn.writes:
            self._finish(txn, committed=True)
            return
        ts = self.batch.take()
        if ts is None:
            self.need_ts.append(txn)
            if not self.requested:
                self.requested = True
                size = self.sizer.size(self.sim.net.now)  # the commits of the last period
                self.sim.net.send(self.sim.sequencer_recv, RequestBatch(self.idx, size))
            return
        self._log(txn, ts)

    def on_batch(self, batch: Any) -> None:
        self.requested = False
        self.batch.refill(batch, self.sim.net.now)
        waiting, self.need_ts = self.need_ts, []
        for txn in waiting:
            self.commit(txn)

    def _log(self, txn: SimTxn, ts: int) -> None:
        sim = self.sim
        self.sizer.commit(sim.net.now)
        if sim.rng.random() < sim.cfg.fail_commit:  # e.g. the logger refused the record
            sim.stats["failed_commits"] += 1
            self._discard((ts,))
            self.abort(txn, "failed commit")
            return
        txn.cts = ts
        logger = sim.loggers[ts % len(sim.loggers)]
        sim.net.send(logger.recv, LogAppend(ts, txn.tid, self.idx, 40 + 30 * len(txn.writes)))

    def on_durable(self, msg: LogDurable) -> None:
        """The redo record is durable: acknowledge, then apply, publish and release."""
        sim = self.sim
        txn = self.active[msg.tid]
        self.session_need[txn.session] = txn.cts  # type: ignore[assignment]
        per_node: dict[int, list[Write]] = {}
        for key, value in txn.writes.items():
            row = None if value is None else (key, value)
            per_node.setdefault(sim.key_node[key], []).append(Write(SPACE, sim.keys[key], row))
        sim.applied_left[txn.cts] = len(per_node)  # type: ignore[index]
        txn.nodes_left = set(per_node)
        self._finish(txn, committed=True)  # the client has its acknowledgement now
        for node, writes in per_node.items():
            apply = Apply(txn.cts, writes)  # type: ignore[arg-type]

            def applied(_: Any, node: int = node, apply: Apply = apply) -> None:
                sim.node_handlers[node](apply)  # the node applies, then acknowledges
                sim.net.send(self.on_applied, ApplyAck(txn.tid, node), idempotent=True)

            sim.net.send(applied, None, idempotent=True)

    def on_applied(self, ack: ApplyAck) -> None:
        txn = self.active.get(ack.tid)
        if txn is None or ack.node not in txn.nodes_left:
            return  # a duplicated ack
        txn.nodes_left.discard(ack.node)
        if txn.nodes_left:
            return
        del self.active[txn.tid]
        sim = self.sim
        sim.net.send(sim.snapshot_recv, Readable((txn.cts,)), idempotent=True)  # type: ignore[arg-type]
        self._release(txn, txn.cts)

    def _release(self, txn: SimTxn, cts: int | None) -> None:
        sim = self.sim
        by_cm: dict[int, list] = {}
        for key in txn.held:
            by_cm.setdefault(sim.key_cm[key], []).append((SPACE, sim.keys[key]))
        for cm, keys in by_cm.items():
            sim.net.send(sim.cm_handlers[cm], Release(txn.tid, tuple(keys), cts), idempotent=True)

    def abort(self, txn: SimTxn, why: str) -> None:
        sim = self.sim
        sim.graph.remove(txn.tid)
        self.active.pop(txn.tid, None)
        self._release(txn, None)
        txn.writes = {}
        self._finish(txn, committed=False)

    def _finish(self, txn: SimTxn, committed: bool) -> None:
        sim = self.sim
        txn.done = True
        if not txn.writes:
            self.active.pop(txn.tid, None)
        sim.checker.add(TxnRecord(txn.tid, self.idx * 1000 + txn.session, txn.start, txn.cts,
                                  txn.need, txn.reads, txn.writes, committed))
        sim.finished += 1
        self.sim.net.at(sim.net.now + sim.rng.random() * 0.5, self.start_txn, txn.session)

    def _discard(self, stamps: tuple[int, ...]) -> None:
        self.sim.discarded.update(stamps)
        self.sim.stats["discarded"] += len(stamps)
        self.sim.net.send(self.sim.snapshot_recv, Discarded(stamps), idempotent=True)

    def drain(self, _: Any, again: bool = True) -> None:
        """Gives back the unused rest of a stale batch, as an idle LTM must (all of it at close)."""
        now = self.sim.net.now
        if not again or self.sizer.stale(self.batch, now):
            rest = self.batch.drain()
            if rest:
                self._discard(tuple(rest))
        if again and self.sim.finished < self.sim.cfg.txns:
            self.sim.net.at(now + self.sim.cfg.drain_every / 2, self.drain, None)
