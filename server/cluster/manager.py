"""Cluster mode's `TxnManager`: the same LTM as embedded mode, over remote components.

Why a separate wiring and not a second LTM: the commit protocol (`txn.ltm`) must be
one piece of code whatever the deployment. Embedded mode hands the LTM in-process
components; this module hands it proxies (`cluster.proxies`) of KiVi nodes, conflict
managers and loggers that run in other processes (`cluster.role`). The commit
sequencer and the snapshot server stay with the LTM (one query engine), as in
embedded mode, unless `mastermind=(host, port)` names a MasterMind role
(`cluster.mastermind`) that several LTMs share: then a thread long-polls it for
snapshots moved by other LTMs (-> `LocalTxnManager.snapshot_advanced`) and gives back
the rest of a batch that sat unused for `stale_after` seconds
(-> `LocalTxnManager.give_back_stale`), so that an idle LTM does not hold every
snapshot back. With ZooKeeper, `mastermind` is a `leaderclient.LeaderClient` that
follows the elected leader through a failover (`cluster.leader`); when a new leader
takes over, the rest of the batch (timestamps of the old term, which the loggers now
refuse) is given back at once.

Garbage collection (`collect`, and a thread every `gc_interval` seconds) removes old
versions on the KiVi nodes and old records on the conflict managers. Every LTM shares
those, so with a MasterMind the mark is the global low water (`mastermind.LowWater`:
the minimum over the LTMs), which the snapshot thread keeps reporting every
`report_interval` seconds (once before the first transaction, too); without one, this
LTM is the only one and its own low water is the mark.

Several LTMs may share the conflict managers (each with its own `ltm_id`, which is
part of its transaction ids). A waiter whose holder belongs to another LTM is woken
through its manager's mailbox: one thread per manager long-polls it (`PollWoken`)
and hands the tids to `LocalTxnManager.wake`. A wake-up can still be lost (a reply
that never arrived, a manager that dropped the waiter), so a waiter also asks its
manager again after `reask_after` seconds without one, then after twice as long each
time (`LocalTxnManager.reask_after`): a lost wake-up delays it, never hangs it. These
threads log whatever fails and go on (`loops.keep_running`). With a MasterMind, the
LTM's wait-for graph is the MasterMind's global one (`mastermind.RemoteWaitForGraph`),
so a deadlock through two query engines is detected too; without one, only within an
LTM.

`reset_conflicts=True` (the LTM that starts a fresh cluster) clears every conflict
manager and tells it the recovered high mark, so that SERIALIZABLE transactions
older than the restart fail safely.

Recovery: the storage nodes report the timestamp their checkpoint covers; every
logger is asked for its records above it, which are replayed in ts order
(`txn.recovery.replay_records`, idempotent), and timestamps continue above the
largest one found.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import partial
from typing import Any

from ..kivi.client import KiviClient
from ..kivi.remote import RemoteNode
from ..txn.front import LtmFront
from ..txn.ltm import LocalTxnManager
from ..txn.recovery import durable_checkpoint, replay_records
from ..txn.sequencer import CommitSequencer
from ..txn.snapshot import SnapshotServer
from .leaderclient import LeaderClient
from .loops import keep_running
from .mastermind import RemoteSequencer, RemoteSnapshots, RemoteWaitForGraph
from .proxies import RemoteConflictManager, RemoteLogGroup


def bucket_shares(managers: int, buckets: int) -> list[frozenset[int]]:
    """The buckets each of `managers` conflict managers owns (round robin, as embedded)."""
    return [frozenset(range(i, buckets, managers)) for i in range(managers)]


class ClusterTxnManager(LtmFront):
    """An `api.TxnManager` whose KiVi nodes, conflict managers and loggers are remote."""

    def __init__(
        self,
        kivi: KiviClient,
        conflict_managers: list[RemoteConflictManager],
        log: RemoteLogGroup | None,
        *,
        buckets: int = 1024,
        recover: bool = True,
        ltm_id: int = 0,
        reset_conflicts: bool = False,
        poll_interval: float = 0.2,
        mastermind: tuple[str, int] | LeaderClient | None = None,
        stale_after: float = 0.05,
        gc_interval: float | None = 30.0,
        report_interval: float = 1.0,
        reask_after: float = 1.0,
    ) -> None:
        self.kivi = kivi
        self.cms = conflict_managers
        self.log = log
        top = 0
        self.replayed = 0
        if recover and log is not None:
            base, high = kivi.checkpoint_bounds()
            top, self.replayed = replay_records(log.read(base), kivi, base)
            # NB: a node that lost its regions (failover) reports an old checkpoint and the
            # loggers are trimmed past it: the newest checkpoint still bounds the commits
            top = max(top, high)
        if log is not None:
            log.ltm_id = ltm_id  # NB: loggers refuse the records of an LTM declared dead
        for cm in conflict_managers:
            cm.ltm_id = ltm_id
            if reset_conflicts:
                cm.reset(top)
        self.mastermind: RemoteSnapshots | None = None
        graph = None
        # NB: set when a new MasterMind leader took over: this LTM's batch of the old
        # term's timestamps is useless (the loggers refuse them) and is dropped
        self._new_leader = threading.Event()
        if mastermind is not None:
            client: Any = mastermind
            if isinstance(mastermind, tuple):
                client = RemoteNode(*mastermind)
            else:
                mastermind.on_new_leader = self._new_leader.set
            self.mastermind = RemoteSnapshots(client)
            self.mastermind.start(top)
            sequencer: Any = RemoteSequencer(client)
            snapshots: Any = self.mastermind
            graph = RemoteWaitForGraph(client)  # deadlocks through several query engines
        else:
            sequencer, snapshots = CommitSequencer(top + 1), SnapshotServer(top)
        self.ltm = LocalTxnManager(
            kivi,
            sequencer=sequencer,
            snapshots=snapshots,
            conflict_managers=conflict_managers,  # type: ignore[arg-type]
            buckets=buckets,
            log=log,
            ltm_id=ltm_id,
            wait_graph=graph,
            shared_snapshots=self.mastermind is not None,
            reask_after=reask_after,
        )
        self.ltm_id = ltm_id
        self._graph = graph
        if self.mastermind is not None:  # NB: before any transaction: it holds GC back now
            self.mastermind.report_low_water(ltm_id, self.ltm.low_water())
        self._closed = False
        self._stop = threading.Event()
        self._reported = 0.0  # when `_snapshot_step` last reported the low water
        self._pollers = [
            threading.Thread(target=keep_running, daemon=True, name=f"woken-poll-{i}", args=(
                partial(self._poll_step, cm, poll_interval), self._stop, poll_interval,
                f"the wake-up poll of conflict manager {i}"))
            for i, cm in enumerate(conflict_managers)
        ]
        if self.mastermind is not None:
            self._pollers.append(threading.Thread(
                target=keep_running, daemon=True, name="snapshot-poll", args=(
                    partial(self._snapshot_step, self.mastermind, poll_interval, stale_after,
                            report_interval),
                    self._stop, poll_interval, "the snapshot poll")))
        if gc_interval:
            self._pollers.append(threading.Thread(
                target=self._gc_loop, args=(gc_interval,), daemon=True, name="txn-gc"))
        for t in self._pollers:
            t.start()

    def _snapshot_step(self, mm: RemoteSnapshots, interval: float, stale_after: float,
                       report_interval: float) -> None:
        """One turn of the snapshot thread (`loops.keep_running`): follows the shared
        snapshot; gives back timestamps this LTM left unused; reports this LTM's low water
        (which keeps it among the LTMs that hold GC back)."""
        now = time.monotonic()
        if now - self._reported >= report_interval:
            mm.report_low_water(self.ltm_id, self.ltm.low_water())
            self._reported = now
        if self._new_leader.is_set():
            self._new_leader.clear()
            self.ltm.give_back_stale(0.0)
            if self._graph is not None:
                # NB: the new leader's wait-for graph is empty: woken, this LTM's
                # waiters ask the conflict managers again and report their edges
                # to it (`would_deadlock`), so a cycle closing across the failover
                # ends in 40P01 rather than a lock timeout
                self.ltm.wake(list(self._graph.edges.copy()))
        self.ltm.give_back_stale(stale_after)
        if mm.poll(min(interval, stale_after)):
            self.ltm.snapshot_advanced()

    def collect(self) -> int:
        """Garbage-collects now, below the global low water (see the module docstring);
        returns the mark used."""
        if self.mastermind is None:
            return self.ltm.collect()
        return self.ltm.collect(self.mastermind.report_low_water(self.ltm_id,
                                                                 self.ltm.low_water()))

    def _gc_loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.collect()
            except Exception:  # noqa: BLE001 - GC must never take the engine down
                logging.getLogger("cumulo.txn").exception("garbage collection failed")

    def _poll_step(self, cm: RemoteConflictManager, interval: float) -> None:
        """One turn of a wake-up thread (`loops.keep_running`): fetches the wake-ups that
        other LTMs' releases left for this LTM's waiters."""
        tids = cm.poll_woken(interval)
        if tids:
            self.ltm.wake(tids)

    def checkpoint(self) -> bool:
        """Checkpoints every node at the current snapshot, then trims the loggers; False if
        a node keeps no files (then nothing is trimmed)."""
        if self.log is not None:
            self.log.trim(0)  # NB: rolls the loggers' segments first (see EmbeddedTxnManager)
        ts = self.ltm.snapshots.snapshot
        # NB: trim only below a checkpoint every node made durable (see durable_checkpoint)
        if not durable_checkpoint(self.kivi, ts):
            return False
        if self.log is not None:
            self.log.trim(ts)
        return True

    def close(self) -> None:
        """Finishes deferred work and closes the connections (the remote roles keep running)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        for t in self._pollers:
            t.join()
        self.ltm.close()
        for cm in self.cms:
            cm.close()
        if self.log is not None:
            self.log.close()
        if self.mastermind is not None:
            self.mastermind.client.close()
        self.kivi.close()
