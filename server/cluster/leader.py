"""MasterMind failover: a leader elected in ZooKeeper, fenced by an epoch (CLUSTER.md §3.5).

Why: the MasterMind hands out every commit timestamp and the shared snapshot, and
owns placement. With one process, its death stops every commit. So several
MasterMind processes run (`cumulo cluster up --masterminds 2`, or the supervisor
restarting a dead one); one leads, the others wait:

    /cumulo/mastermind/lock     ephemeral: the election (whoever created it leads)
    /cumulo/mastermind/epoch    the leader's term number; its znode *version* fences
    /cumulo/mastermind/state    {"bound": U, "snapshot": S}, written by the leader
    /cumulo/mastermind/fence    loggers refuse records with a ts at or below it
    /cumulo/mastermind/ltms     the query engines the leader knew of
    /cumulo/mastermind/leader   ephemeral {"host", "port", "epoch"}, once it serves

**Taking over** (`MasterMindRole._lead`), after winning the lock:
1. Increment the epoch (a compare-and-set). Every later ZooKeeper write of this term
   is a multi that checks the epoch znode's version: the state, the fence and the
   region map (`regionstore.commit(fence=)`), so a deposed leader changes nothing.
2. Read U, the bound the previous leader persisted before handing out any ts above it
   (`Term.reserve`, save before use, as PD's TSO), and S, a snapshot it reached.
3. Close the old term's timestamps: write the fence U, and send `FenceTs(U)` to every
   logger, which from then on refuses records at or below U (40001: the transaction
   did not commit) and replies once those it accepted are durable. A query engine may
   still hold a batch of the old term; its commits fail that way until it drops it.
4. Apply again every logged record in (S, U] (idempotent; a commit logged but not yet
   applied when its engine's MasterMind died), then start the sequencer at U + 1 and
   the snapshot at U: every ts at or below U is now applied or will never be.
5. Publish the leader znode; start placement, the reaper and the conflict-manager
   restarts with this term's fence. The leader saves, about every second, the
   snapshot and the engines' znodes it knows (`/cumulo/mastermind/ltms`): the next
   leader's reaper also clears an engine that died while no leader watched, releasing
   its locks as committed up to U.

**Fencing a paused leader.** It answers only while its ZooKeeper session surely lives
(a `lease.LeaseGate` on its lock, checked before a request runs); on resuming it finds
the lock held by another session and steps down (then campaigns again, as a standby).
Every request an engine sends carries the epoch it read in the leader znode (`Led`);
a MasterMind of another epoch refuses it with 57P03, and the engine reads the znode
again. Timestamps it could still hand out are at or below its U, which the loggers
refuse: nothing it says can make a commit count.

**Query engines** talk to the leader through `LeaderClient`, which follows the
leader znode: when it vanishes (the leader's session ended) requests in flight fail at
once, and calls wait (up to `wait` seconds) for the next leader and go on there.
Acknowledged commits survive: each was logged before it was acknowledged, so it is
below the new leader's snapshot only once applied (step 4).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from kazoo.exceptions import BadVersionError, NodeExistsError, NoNodeError

from ..kivi.client import KiviClient
from ..kivi.remote import RemoteNode
from ..txn.logger import read_log
from ..txn.recovery import record_ts, replay_records
from ..txn.sequencer import CommitSequencer, RequestBatch
from ..txn.snapshot import SnapshotServer
from . import zk as zk_mod
from .failover import recorded_dirs
from .leaderclient import EPOCH, FENCE, KNOWN_LTMS, LEADER, LOCK, MM, STATE, Led, not_leader
from .lease import LeaseGate
from .mastermind import MasterMindService
from .seqmarks import SequenceMarks
from .services import FenceTs, LogRead
from .zkmap import ZkRegionMap

log = logging.getLogger("cumulo.leader")
WINDOW = 10_000  # timestamps reserved per state write (a failover skips at most this many)

class Term:
    """One leader's term: its epoch, the version of the epoch znode it wrote (the fence of
    its writes), and the timestamp bound it persisted."""

    def __init__(self, zk: Any, epoch: int, version: int, bound: int) -> None:
        self.zk, self.epoch, self.version, self.bound = zk, epoch, version, bound
        self.saved_snapshot = -1
        # the engines (their `/cumulo/ltms` znode names) the previous leader knew of: one
        # gone now died while no leader watched, and is reaped all the same
        self.known_ltms: set[str] = set()
        self.saved_ltms: list[str] = []
        self.batch_replies: dict[int, tuple[int, Any]] = {}  # LTM -> (rid, its last batch)

    @property
    def fence(self) -> tuple[str, int]:
        return (EPOCH, self.version)

    def write(self, path: str, body: dict[str, Any] | list[str] | int) -> None:
        """Sets `path` (creating it) in a multi that checks the epoch; raises if deposed."""
        data = json.dumps(body).encode()
        tx = self.zk.transaction()
        tx.check(EPOCH, self.version)
        if self.zk.exists(path):
            tx.set_data(path, data)
        else:
            tx.create(path, data)
        results = tx.commit()
        if any(isinstance(r, Exception) for r in results):
            raise not_leader(f"writing {path} failed ({results}): a newer leader took over")

    def reserve(self, upto: int, snapshot: int = 0) -> None:
        """Persists a bound above `upto` before any ts above the current one is handed out."""
        if upto > self.bound:
            self.save(upto + WINDOW, snapshot)

    def save(self, bound: int, snapshot: int) -> None:
        self.write(STATE, {"bound": bound, "snapshot": snapshot})
        self.bound, self.saved_snapshot = bound, snapshot


def begin_term(zk: Any) -> tuple[Term, int, int]:
    """Increments the epoch; returns (the term, the old term's bound U, its snapshot S)."""
    zk.ensure_path(MM)
    while True:
        try:
            raw, stat = zk.get(EPOCH)
            epoch = int(raw) + 1
            version = zk.set(EPOCH, str(epoch).encode(), version=stat.version).version
        except NoNodeError:
            try:
                zk.create(EPOCH, b"1")
            except NodeExistsError:
                continue
            epoch, version = 1, 0
        except BadVersionError:
            continue
        break
    try:
        state = json.loads(zk.get(STATE)[0])
    except NoNodeError:
        state = {"bound": 0, "snapshot": 0}
    old_bound = int(state["bound"])
    term = Term(zk, epoch, version, old_bound)
    try:
        term.known_ltms = set(json.loads(zk.get(KNOWN_LTMS)[0]))
    except NoNodeError:
        pass
    return term, old_bound, int(state["snapshot"])


def close_old_term(term: Term, old_bound: int, old_snapshot: int,
                   kivi: Callable[[], Any]) -> int:
    """Steps 3 and 4 of the module docstring; returns how many records were applied again."""
    if old_bound <= old_snapshot:
        return 0
    term.write(FENCE, old_bound)
    up = dict(zk_mod.discover(term.zk).addresses("logger"))
    loggers = [RemoteNode(h, p, timeout=30.0) for h, p in up.values()]
    try:
        payloads = []
        for lg in loggers:
            lg.handle(FenceTs(old_bound))
            payloads += lg.handle(LogRead(old_snapshot)).payloads
    finally:
        for lg in loggers:
            lg.close()
    # NB: a logger that is down holds records too (a commit whose engine died before
    # applying it): its files are read where it left them (the shared-storage assumption,
    # CLUSTER.md §3.3); it reads the fence when it comes back
    for name, directory in sorted(recorded_dirs(term.zk).items()):
        if name not in up and os.path.isdir(directory):
            found = [p for p in read_log(directory) if (record_ts(p) or 0) > old_snapshot]
            log.warning("logger %s is down: read %d records above %d from its files in %s",
                        name, len(found), old_snapshot, directory)
            payloads += found
    mine = [p for p in payloads if (record_ts(p) or 0) <= old_bound]
    if not mine:
        return 0
    _top, n = replay_records(mine, kivi(), old_snapshot)
    return n


class MasterMindRole:
    """The object a MasterMind process serves: a `MasterMindService` while it leads,
    refusals otherwise (see the module docstring).

    `on_lead(mm, term)` starts what only a leader runs (placement, the reaper...) and
    returns the function that stops it.
    """

    def __init__(self, zk: Any, host: str, port: int, session_timeout: float,
                 on_lead: Callable[[MasterMindService, Term], Callable[[], None]]) -> None:
        self.zk, self.host, self.port = zk, host, port
        self.session_timeout = session_timeout
        self.on_lead = on_lead
        self.mm: MasterMindService | None = None
        self.term: Term | None = None
        self.gate = LeaseGate(session_timeout)
        self.terms = 0  # terms led by this process (for the log and tests)
        self._stop_services: Callable[[], None] = lambda: None
        self.rejoin: Callable[[], None] = lambda: None  # registers the member znode again
        self._stop = threading.Event()
        self._kivi: KiviClient | None = None

    def offload(self, msg: Any) -> bool:
        mm = self.mm
        return mm is not None and mm.offload(msg.msg if type(msg) is Led else msg)

    def handle(self, msg: Any) -> Any:
        epoch, rid = None, 0
        if type(msg) is Led:
            epoch, rid, msg = msg.epoch, msg.rid, msg.msg
        mm, term = self.mm, self.term
        if mm is None or term is None:
            raise not_leader("it is a standby")
        if not self.gate.open():
            raise not_leader("its ZooKeeper lease lapsed")
        if epoch is not None and epoch != term.epoch:
            raise not_leader(f"it leads term {term.epoch}, the request is for term {epoch}")
        if rid and type(msg) is RequestBatch:
            return self._batch_once(mm, term, msg, rid)
        return mm.handle(msg)

    def _batch_once(self, mm: MasterMindService, term: Term, msg: RequestBatch,
                    rid: int) -> Any:
        """Serves a `RequestBatch` at most once per call (`Led.rid`): a retry whose first
        reply was lost gets that batch again. Runs on the event loop: no lock needed."""
        last = term.batch_replies.get(msg.ltm)
        if last is not None and last[0] == rid:
            return last[1]
        out = mm.handle(msg)
        term.batch_replies[msg.ltm] = (rid, out)
        return out

    # --- the election -------------------------------------------------------------------------

    def campaign(self) -> None:
        """Waits (in a thread) to lead, then takes over."""
        threading.Thread(target=self._campaign, daemon=True, name="mm-campaign").start()

    def _campaign(self) -> None:
        while not self._stop.is_set():
            try:
                self.zk.create(LOCK, json.dumps({"host": self.host, "port": self.port}).encode(),
                               ephemeral=True, makepath=True)
            except NodeExistsError:
                gone = threading.Event()
                if self.zk.exists(LOCK, watch=lambda _e, gone=gone: gone.set()) is not None:
                    gone.wait(1.0)
                continue
            except Exception:  # noqa: BLE001 - ZooKeeper away: try again
                self._stop.wait(0.5)
                continue
            try:
                self._lead()
                return
            except Exception:  # noqa: BLE001 - give the lock up and let another try
                log.exception("taking over as MasterMind leader failed")
                self.gate.disarm()
                self.mm = self.term = None
                self._stop_services()
                self._stop_services = lambda: None
                if self._kivi is not None:  # NB: built before every node had registered
                    self._kivi.close()
                    self._kivi = None
                try:
                    self.zk.delete(LOCK)
                except Exception:  # noqa: BLE001 - our session is gone: so is the lock
                    pass
                self._stop.wait(1.0)

    def _lead(self) -> None:
        t0 = time.monotonic()
        term, old_bound, old_snapshot = begin_term(self.zk)
        redone = close_old_term(term, old_bound, old_snapshot, self._kivi_client)
        mm = MasterMindService()
        mm.sequencer = CommitSequencer(old_bound + 1)
        mm.snapshots = SnapshotServer(old_bound)
        term.save(old_bound + WINDOW, old_bound)
        mm.reserve = lambda upto: term.reserve(upto, mm.snapshots.snapshot)
        mm.sequences = SequenceMarks.in_zookeeper(term)  # continues above the old term's marks
        mm.gc_hold_until = time.monotonic() + 3.0  # NB: the engines report every second
        # NB: an engine of the old term that dies is released as committed up to its bound
        ltms = term.known_ltms | set(self.zk.get_children(zk_mod.LTMS) if
                                     self.zk.exists(zk_mod.LTMS) else ())
        for name in ltms:
            mm.batches.top[int(name.rsplit("-", 1)[1]) % zk_mod.MAX_LTMS] = old_bound
        self.gate = LeaseGate(self.session_timeout).arm(self.zk, LOCK, self._deposed)
        self._stop_services = self.on_lead(mm, term)
        self.mm, self.term = mm, term
        self.terms += 1
        body = json.dumps({"host": self.host, "port": self.port, "epoch": term.epoch}).encode()
        if self.zk.exists(LEADER):
            self.zk.delete(LEADER)  # NB: our own, from a term this process lost
        self.zk.create(LEADER, body, ephemeral=True)
        threading.Thread(target=self._save_loop, args=(mm, term), daemon=True,
                         name="mm-state").start()
        log.info("leading the cluster as MasterMind, term %d: timestamps from %d, %d logged "
                 "commits of the previous term applied again, in %.3f s", term.epoch,
                 old_bound + 1, redone, time.monotonic() - t0)

    def _save_loop(self, mm: MasterMindService, term: Term) -> None:
        """Persists the snapshot every second (the next leader replays the log above it)."""
        while not self._stop.wait(1.0) and self.term is term:
            if not self.gate.open():
                continue
            snap = mm.snapshots.snapshot
            try:
                if snap != term.saved_snapshot:
                    term.save(term.bound, snap)
                ltms = sorted(self.zk.get_children(zk_mod.LTMS))
                if ltms != term.saved_ltms:
                    term.write(KNOWN_LTMS, ltms)
                    term.saved_ltms = ltms
            except Exception:  # noqa: BLE001 - deposed or ZooKeeper away: the gate decides
                log.warning("saving the MasterMind state failed", exc_info=True)

    def _deposed(self) -> None:
        """The lease gate found the lock another session's: step down, campaign again."""
        log.warning("this MasterMind's ZooKeeper session expired: it no longer leads "
                    "(term %s); standing by", self.term.epoch if self.term else "?")
        self.gate.disarm()
        self.mm = self.term = None
        try:
            self._stop_services()
            self.rejoin()  # NB: its member znode went with its session
        except Exception:  # noqa: BLE001 - still stands by; `cluster status` tells
            log.exception("re-registering the deposed MasterMind failed")
        finally:
            self._stop_services = lambda: None
            self.campaign()

    def _kivi_client(self) -> KiviClient:
        if self._kivi is None:
            members = zk_mod.discover(self.zk)
            nodes = {n: RemoteNode(h, p) for n, (h, p) in members.addresses("kivi")}
            self._kivi = KiviClient(nodes, ZkRegionMap(self.zk, sorted(nodes), adopt=False))
        return self._kivi

    def may_act(self) -> bool:
        """Whether this process leads now, with its lease (placement checks it)."""
        return self.mm is not None and self.gate.open()

    def stop(self) -> None:
        self._stop.set()
        self.gate.stop()
        self._stop_services()
        if self._kivi is not None:
            self._kivi.close()


__all__ = ["MasterMindRole", "Term", "begin_term", "close_old_term"]
