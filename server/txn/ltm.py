"""The local transaction manager (LTM): begin, snapshots, conflict waits, the commit pipeline.

The LTM drives the state-machine components (sequencer, snapshot server,
conflict managers) in-process and adds what they leave out on purpose:
threads, locks and blocking.

Commit of an update transaction (see ARCHITECTURE.md, "Life of a transaction"):

1. conflict checks are already settled: each write was checked when made;
2. take a commit timestamp from the local batch (a lock and an increment);
3. hand the redo record to the logger and wait until it is durable;
4. apply the write set to KiVi at the commit ts, report the ts readable to
   the snapshot server, release the conflict-manager entries (waking waiters);
5. wait until the snapshot includes the commit ts (`_await_snapshot`: a lower ts
   still in flight, or another LTM's unused batch, holds it back), then acknowledge
   (return the commit ts): every transaction that starts afterwards sees the commit.

Step 4 runs in the committing thread because in-process it costs a few
microseconds, and doing it before the acknowledgement means that a client
normally sees its own commit in its next snapshot without waiting.
`pause_apply()` defers step 4 (tests use it to exercise the session-consistency
delay and readers running behind the log).

SERIALIZABLE (write-snapshot isolation, see `validate` and `serial`): between steps 2 and
3 an update transaction that tracked reads sends one `Validate` to each
involved conflict manager; a conflict aborts it with PostgreSQL's 40001
read/write-dependency error, and its ct is reported to the snapshot server as
discarded. After the commit (any isolation), the written keys are recorded in
the range trackers by `Settle`, which also drops the prepared marks.

Session consistency: after a session's update commit at c, its next snapshot
waits until the snapshot server reaches c. The delays are counted in `stats`
(`session_waits`, `session_wait_s`).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import waits
from ..errors import (
    DeadlockDetected,
    InvalidParameterValue,
    LockNotAvailable,
    QueryCanceled,
    SerializationFailure,
    SQLError,
    StatementCompletionUnknown,
)
from ..kivi.api import Apply, Collect, DropSpace, KiviNodeAPI, Row, SpaceWrites, Write
from .api import RetryStatement
from .codec import pack_record, record_pieces
from .conflicts import (
    LATEST,
    Acquire,
    AcquireSpace,
    Conflict,
    ConflictManager,
    Granted,
    Prune,
    ReleaseSpaces,
    Wait,
    WaitForGraph,
    Woken,
    bucket_of,
    by_space,
)
from .reapply import Reapplier
from .rowlocks import NO_KEY_UPDATE, SKIP, WAIT
from .runs import Held
from .sequencer import CommitSequencer, LocalBatch, RequestBatch
from .serial import SerializableMixin
from .snapshot import Advanced, Discarded, Readable, SnapshotServer
from .transaction import Transaction
from .validate import AT_COMMIT, AT_WRITE, rw_failure

_new = tuple.__new__  # an `Apply` (a NamedTuple) from its fields, built in C

log = logging.getLogger("cumulo.txn")
ISOLATIONS = ("read committed", "repeatable read", "serializable")
_LOST_UPDATE = "could not serialize access due to concurrent update"
_ABORTED = "terminating the statement: its transaction was aborted"
_LOCKS_LOST = "could not serialize access: a conflict manager restarted and lost this transaction's locks"


class LocalTxnManager(SerializableMixin):
    """The transaction half of `api.TxnManager`, over in-process components."""

    def __init__(
        self,
        kivi: KiviNodeAPI,
        *,
        sequencer: CommitSequencer,
        snapshots: SnapshotServer,
        conflict_managers: list[ConflictManager],
        buckets: int = 1024,
        log: Any = None,
        batch_size: int = 1000,
        ltm_id: int = 0,
        wait_graph: Any = None,
        shared_snapshots: bool = False,
        reask_after: float | None = None,
    ) -> None:
        self.kivi = kivi
        self.sequencer = sequencer
        self.snapshots = snapshots
        self.cms = conflict_managers
        self.buckets = buckets
        # bucket -> manager index (every bucket is owned by exactly one manager)
        self._owner = [0] * buckets
        for i, cm in enumerate(conflict_managers):
            for b in cm.owned if cm.owned is not None else range(buckets):
                self._owner[b] = i
        self.log = log
        self.batch_size = batch_size
        self.ltm_id = ltm_id
        self._ids = itertools.count(1)
        # NB: transaction ids are unique across LTMs sharing conflict managers (cluster mode);
        # LTM 0 numbers 1, 2, 3 ... as before
        self._tid_base = ltm_id << 48
        self._batch = LocalBatch()
        self._ts_lock = threading.Lock()
        # NB: re-entrant (`_refresh_snapshot` notifies under it); `_finished` takes the lock
        # itself, without the Condition's Python __enter__/__exit__
        self._snap_lock = threading.RLock()
        self._snap_cond = waits.Condition(self._snap_lock)
        self._cm_lock = threading.Lock()
        self._cm_cond = waits.Condition(self._cm_lock)
        # tid -> the Condition (on _cm_lock) its blocked thread waits on: a release wakes
        # only the waiters of the ended holder, not every thread blocked on any key
        self._lock_waits: dict[int, threading.Condition] = {}
        self._graph = wait_graph if wait_graph is not None else WaitForGraph()
        # Several LTMs share one snapshot server (cluster mode): a commit is acknowledged
        # only once the shared snapshot includes it, and each snapshot is asked for fresh,
        # so a transaction that starts after another engine's acknowledgement sees it.
        self.shared_snapshots = shared_snapshots
        self._woken: set[int] = set()
        # tid -> (manager, message) a blocked thread will ask again once woken; a release
        # that wakes it asks at once on its behalf and leaves the answer in _answers, so
        # that the key goes to the queued waiter, not to whoever asks first (an aborted
        # deadlock victim retrying at once took its first key back before the waiter's
        # thread ran, and the two killed each other's retries for ever: a livelock)
        self._asks: dict[int, tuple[Any, Any]] = {}
        self._answers: dict[int, Any] = {}
        # cluster mode: a lock waiter asks its manager again after this many seconds
        # without a wake-up (then twice as long each time, up to 8 s), so that a wake-up
        # lost on its way (a `PollWoken` reply that never arrived, a manager that dropped
        # the registration) delays it, never hangs it; None (embedded: the wake-up is a
        # call in this process) waits for the wake-up
        self.reask_after = reask_after
        # cluster mode: transactions whose locks died with their conflict manager
        # (`doom_active`): they may not commit, and their lock waits end
        self._doomed: set[int] = set()
        self._active_lock = threading.Lock()
        # bumped by each `low_water` after it read the snapshot: `read_rows` reads at the
        # newest snapshot without registering it, and trusts its rows only if no mark was taken
        self._lw_epoch = 0
        self._active: dict[int, int] = {}  # tid -> snapshot, for the GC low-water mark
        self._ser_active: set[int] = set()  # SERIALIZABLE update-capable txns with a snapshot
        self._read_writes: dict[tuple[int, bytes], int] = {}  # serial._note_read_writes
        # SERIALIZABLE does not track reads of these spaces (the SQL layer names its catalog)
        self.untracked_spaces: frozenset[int] = frozenset()
        # in-process managers: every transaction runs here, so _ser_active is all of them
        self._alone = all(type(cm) is ConflictManager for cm in conflict_managers)
        # READ COMMITTED writes lock a row before writing or rerunning over it (EvalPlanQual's
        # order), with in-process and remote managers alike
        self.locks_first = True
        # one in-process manager: a write's first ask is a direct call (`acquire_space`)
        self._direct = conflict_managers[0] if self._alone and len(conflict_managers) == 1 \
            else None
        # the in-process snapshot server: `_finished` calls it directly
        self._local_snapshots = type(snapshots) is SnapshotServer
        self._session_commit: dict[Any, int] = {}
        self._session_lock = threading.Lock()
        self._session_waiting: set[int] = set()
        self._commit_waiting = 0  # threads in `_await_snapshot` (under `_snap_lock`)
        self._paused: list[Any] | None = None
        self._pause_lock = threading.Lock()
        self.stats = {
            "commits": 0, "read_only_commits": 0, "aborts": 0, "conflicts": 0,
            "waits": 0, "deadlocks": 0, "session_waits": 0, "session_wait_s": 0.0,
            "gc_runs": 0, "ser_validations": 0, "ser_failures": 0, "ser_doomed": 0,
            "ser_coarsenings": 0, "apply_failures": 0, "commit_waits": 0, "commit_wait_s": 0.0,
            "reasks": 0,
        }
        self.reapplier = Reapplier(self._reapply, self._reapplied)

    @property
    def alone(self) -> bool:
        """Whether every transaction that can conflict with this LTM's runs in this process
        (in-process conflict managers: embedded mode), so that what a process keeps of its
        running writers is all of them (`sql.dml.exclpending`)."""
        return self._alone

    # -- begin and snapshots ----------------------------------------------------

    def begin(
        self, *, isolation: str = "read committed", read_only: bool = False, session: Any = None
    ) -> Transaction:
        """Begins a transaction; its snapshot is taken at its first data access."""
        iso = isolation  # NB: the session's is lowercase already: no lower() call then
        if iso not in ISOLATIONS:
            iso = iso.lower()
        if iso not in ISOLATIONS:
            if iso == "read uncommitted":  # as in PostgreSQL, it behaves as READ COMMITTED
                iso = "read committed"
            else:
                raise InvalidParameterValue(f"unknown isolation level {isolation!r}")
        return Transaction(self, self.new_tid(), iso, read_only, session)

    def new_tid(self) -> int:
        """A transaction id no other transaction of this LTM has (nor any other LTM's)."""
        return self._tid_base | next(self._ids)

    def end_read(self, tid: int) -> None:
        """Ends a `StatementRead` that took a snapshot: as the commit of a plain read-only
        transaction, it unregisters the snapshot and counts a read-only commit."""
        with self._active_lock:
            self.stats["read_only_commits"] += 1
            self._active.pop(tid, None)

    def read_rows(self, session: Any, space: int, keys: list[bytes]) -> list[Row | None] | None:
        """A `StatementRead`'s whole life in one call, when nothing has to wait: the rows of
        `keys` at the newest snapshot, or None (nothing done) when the caller must take a
        `StatementRead` (the session's last commit is not yet readable, snapshots are
        shared by several LTMs, or a garbage-collection mark was taken during the read).

        No read id is registered. A collection at mark `lw` keeps, for every key, the
        newest version at or below `lw` and every newer one, so a read at any snapshot
        `ts >= lw` finds what it needs; registering only keeps `lw <= ts`. `low_water`
        reads the snapshot (a mark is at most that), then bumps `_lw_epoch`; this call
        reads `_lw_epoch`, then the snapshot, and checks `_lw_epoch` again last. A bump
        seen already at the first read came after that mark's snapshot was read, which
        came before ours, and snapshots only grow: `lw <= ts`. A bump between the reads
        is a mark that may pass `ts`: the rows are dropped and the caller reads again,
        registered. A point read never waits in between, so that is rare (another
        thread's GC pass between two bytecodes)."""
        if self.shared_snapshots:
            return None
        epoch = self._lw_epoch
        ts = self.snapshots.snapshot
        if session is not None and ts < self._session_commit.get(session, 0):
            return None
        try:
            rows = self.kivi.get_rows(space, ts, keys)
        except Exception:
            if self._lw_epoch == epoch:
                raise
            return None  # NB: versions collected under the read: the registered read tells
        if self._lw_epoch != epoch:
            return None
        self.stats["read_only_commits"] += 1
        return rows

    def take_snapshot(self, txn: Transaction) -> int:
        """Returns the snapshot for txn, waiting for the session's last commit if needed."""
        ts = self.snapshots.snapshot
        if ts >= txn.min_snapshot and txn.tid in self._active and not self.shared_snapshots:
            # NB: a later statement's snapshot (READ COMMITTED), as below, with no look at
            # the session's last commit: the first snapshot waited for it, and no other
            # transaction of the session commits while this one runs (one at a time)
            return ts
        need = txn.min_snapshot
        if self.shared_snapshots:
            self._refresh_snapshot()
        if txn.session is not None:
            sc = self._session_commit.get(txn.session, 0)
            if sc > need:
                need = sc
        ts = self.snapshots.snapshot
        if ts >= need and txn.tid in self._active:
            # NB: a later statement's snapshot (READ COMMITTED): the first one stays
            # registered and is no newer than ts (snapshots only grow), so the low water
            # cannot pass ts and nothing needs `_active_lock`
            return ts
        if ts < need:
            t0 = time.perf_counter()
            with self._snap_cond:
                self._session_waiting.add(txn.tid)
                try:
                    while self.snapshots.snapshot < need:
                        self._check_cancel(txn)
                        self._snap_cond.wait()
                finally:
                    self._session_waiting.discard(txn.tid)
                self.stats["session_waits"] += 1
                self.stats["session_wait_s"] += time.perf_counter() - t0
        with self._active_lock:  # NB: together with low_water(), so GC cannot pass us
            ts = self.snapshots.snapshot
            # NB: the first snapshot stays registered: under READ COMMITTED a portal
            # opened by an earlier statement may still be reading at its older snapshot.
            self._active.setdefault(txn.tid, ts)
            if txn.reads is not None:
                self._ser_active.add(txn.tid)
        return ts

    def _refresh_snapshot(self) -> None:
        """Asks the shared snapshot (cluster mode); if that moved it, wakes the sessions
        waiting for it in `take_snapshot`.

        The snapshot poller (`cluster.manager`) wakes them when its long poll finds a
        snapshot newer than the one this engine knows, but a refresh by another session
        may learn it first: the poller then finds nothing new. Unwoken, a waiter slept
        until some later commit moved the snapshot, and one holding a row lock every other
        writer waited for (READ COMMITTED's lock before its rerun) saw none come.
        NB: a waiter adds itself to `_session_waiting` before it reads the snapshot, so an
        empty set read after the move means that it will find the new value."""
        before = self.snapshots.snapshot
        if self.snapshots.refresh() > before and self._session_waiting:
            with self._snap_cond:
                self._snap_cond.notify_all()

    def running(self) -> bool:
        """Tells whether some transaction holds a snapshot now (a statement may be reading)."""
        with self._active_lock:
            return bool(self._active)

    def low_water(self) -> int:
        """Returns the oldest snapshot any active transaction may read at."""
        with self._active_lock:
            lw = self.snapshots.snapshot
            if self._active:
                lw = min(lw, min(self._active.values()))
            self._lw_epoch += 1  # NB: after the snapshot was read: see `read_rows`
            return lw

    def is_waiting(self, txn: Transaction) -> bool:
        """Tells whether txn's thread is blocked (behind a writer or its session's commit)."""
        return txn.tid in self._graph.edges or txn.tid in self._session_waiting

    def cancel(self, txn: Transaction) -> None:
        """Interrupts txn's thread if it waits in the LTM (it raises QueryCanceled)."""
        txn.cancelled = True
        with self._cm_cond:
            self._notify((txn.tid,))
        with self._snap_cond:
            self._snap_cond.notify_all()

    @staticmethod
    def _check_cancel(txn: Transaction) -> None:
        if txn.cancelled:  # NB: stays set until the next statement: it cancels this one
            raise QueryCanceled("canceling statement due to user request")
        if txn.done:  # aborted by another thread (session termination) while waiting
            raise QueryCanceled(_ABORTED)

    # -- conflicts --------------------------------------------------------------

    def _by_manager(self, keys: tuple[tuple[int, bytes], ...] | list) -> dict[int, tuple]:
        if len(self.cms) == 1:
            return {0: tuple(keys)}
        groups: dict[int, list] = {}
        for key in keys:
            groups.setdefault(self._owner[bucket_of(key, self.buckets)], []).append(key)
        return {i: tuple(ks) for i, ks in groups.items()}

    def _space_by_manager(self, space: int, keys: list[bytes] | tuple[bytes, ...]
                          ) -> dict[int, tuple[bytes, ...]]:
        if len(self.cms) == 1:
            return {0: tuple(keys)}
        groups: dict[int, list[bytes]] = {}
        owner, buckets = self._owner, self.buckets
        for k in keys:
            groups.setdefault(owner[bucket_of((space, k), buckets)], []).append(k)
        return {i: tuple(ks) for i, ks in groups.items()}

    def acquire_space(self, txn: Transaction, space: int, keys: list[bytes],
                      latest: bool = False, mode: int = NO_KEY_UPDATE) -> None:
        """`acquire` for keys of one space: one message per manager, no tuple per key
        (a bulk write's batch)."""
        snapshot = LATEST if latest else (txn._ts or 0)
        direct = self._direct
        if direct is not None:
            with self._cm_lock:
                out = direct.try_acquire(txn.tid, snapshot, space, keys, mode)
            if out is None and not txn.done:
                return
            # NB: anything else takes the general way below, which asks again (the keys
            # granted meanwhile pass at once) and waits, retries or raises as it says
        try:
            for i, ks in self._space_by_manager(space, keys).items():
                self._acquire_one(txn, self.cms[i], ks, snapshot, mode, space=space)
        except BaseException:
            self.release(txn, tuple((space, k) for k in keys if not txn.holds((space, k))))
            raise

    def acquire_bulk(self, txn: Transaction, space: int, keys: list[bytes],
                     held: Held, record: Callable[[], None]) -> bool:
        """Takes a batch of keys new to txn's write set at once, holding `held` (the write
        set's keys of the space, `WriteSet.held`) whole in the one in-process manager
        (`ConflictManager.acquire_bulk`), and runs `record` (which puts the keys into
        `held`) under the same lock. False: nothing was taken or recorded (remote or
        several managers, or a key not plainly free); the caller takes the usual way."""
        direct = self._direct
        if direct is None:
            return False
        with self._cm_lock:
            if txn.done or not direct.acquire_bulk(txn.tid, txn._ts or 0, space, keys, held):
                return False
            record()
        return True

    def _release_bulk(self, txn: Transaction, cts: int | None) -> set[int]:
        """Ends txn's bulk holds (sealed whole at a commit); returns the spaces needing no
        per-key release."""
        direct = self._direct
        if direct is None or not direct.bulk_held(txn.tid):
            return set()
        low = self.low_water() if cts is not None else 0
        with self._cm_cond:
            done, woken = direct.release_bulk(txn.tid, cts, low)
            if woken:
                self._wake(woken)
        return done

    def acquire(
        self, txn: Transaction, keys: list[tuple[int, bytes]], latest: bool = False,
        mode: int = NO_KEY_UPDATE,
    ) -> None:
        """Takes the write locks of keys for txn, blocking behind active writers.

        With `latest`, a key committed after txn's snapshot is no conflict (READ
        COMMITTED row locks, which then read the newest version). `mode` is the
        row-lock mode (`rowlocks`): NO_KEY_UPDATE for a put, UPDATE for a delete.
        """
        snapshot = LATEST if latest else (txn._ts or 0)
        try:
            for i, ks in self._by_manager(keys).items():
                self._acquire_one(txn, self.cms[i], ks, snapshot, mode)
        except BaseException:
            self.release(txn, tuple(k for k in keys if not txn.holds(k)))
            raise

    def lock(self, txn: Transaction, keys: list[tuple[int, bytes]], mode: int,
             wait: int = WAIT) -> int:
        """Locks rows for SELECT ... FOR <mode> (see `Transaction.lock_row`).

        Returns 0, or under READ COMMITTED the newest commit ts of a key changed
        since the snapshot (locked all the same), or -1 when `wait` is SKIP and a
        key is held by another transaction (then none of `keys` is left locked).
        """
        rc = txn.isolation == "read committed"
        snapshot = txn._ts or 0
        newest = 0
        try:
            for i, ks in self._by_manager(keys).items():
                got = self._acquire_one(txn, self.cms[i], ks, snapshot, mode, wait, rc)
                if got < 0:
                    self.release(txn, tuple(k for k in keys if not txn.holds(k)))
                    return -1
                newest = max(newest, got)
        except BaseException:
            self.release(txn, tuple(k for k in keys if not txn.holds(k)))
            raise
        return newest

    def lock_space(self, txn: Transaction, space: int, keys: list[bytes], mode: int,
                   wait: int = WAIT) -> int:
        """`lock` for keys of one space. The one in-process manager grants plainly free
        keys with no message, as `acquire_space` does (an UPDATE's lock on the row it
        found, `Transaction.lock_row`); anything else (a holder, a newer commit, NOWAIT,
        SKIP LOCKED, remote managers) takes `lock`'s way, which asks again.

        So is READ COMMITTED's lock of one free row committed after the snapshot (a hot
        pgbench branch): asked again as of that commit, as `_acquire_one`'s relock does,
        it returns the commit ts with no message (a Wait or another Conflict then takes
        `lock`'s way too)."""
        direct = self._direct
        if direct is not None and wait == WAIT:
            with self._cm_lock:
                out = direct.try_acquire(txn.tid, txn._ts or 0, space, keys, mode)
                if type(out) is Conflict and len(keys) == 1 and not txn.done \
                        and txn.isolation == "read committed":
                    cts = out.commit_ts
                    if direct.try_acquire(txn.tid, cts, space, keys, mode) is None:
                        self.stats["conflicts"] += 1
                        if cts > txn.min_snapshot:
                            txn.min_snapshot = cts
                        return cts
            if out is None and not txn.done:
                return 0
            # NB: `lock`'s way for the one manager, in the space's form (`AcquireSpace`:
            # no (space, key) pair per key, no grouping per space at each ask)
            try:
                return self._acquire_one(txn, direct, tuple(keys), txn._ts or 0, mode, wait,
                                         txn.isolation == "read committed", space=space)
            except BaseException:
                self.release(txn, tuple((space, k) for k in keys if not txn.holds((space, k))))
                raise
        return self.lock(txn, [(space, k) for k in keys], mode, wait)

    def _acquire_one(
        self, txn: Transaction, cm: ConflictManager, keys: tuple, snapshot: int,
        mode: int = NO_KEY_UPDATE, wait: int = WAIT, relock: bool = False,
        space: int | None = None,
    ) -> int:
        """Acquires keys from one manager, waiting as `wait` says; returns 0, -1 (SKIP
        met a holder) or, with `relock`, the commit ts of a key changed since the
        snapshot (then acquired as of that commit: READ COMMITTED's row locks). With `space`,
        keys are that space's key bytes (`AcquireSpace`), else (space, key) pairs."""
        tid = txn.tid
        counted = False
        newest = 0
        kept: Conflict | None = None  # a READ COMMITTED write's row, locked for its rerun
        early: Any = None  # the answer a waking release got for us (`_wake`)
        reasked = False  # the last wait ended by asking again (`reask_after`), not woken
        deadline: float | None = None
        period: float | None = None
        with self._cm_cond:
            while True:
                if early is None:
                    msg = (Acquire(tid, snapshot, keys, mode) if space is None
                           else AcquireSpace(tid, snapshot, space, keys, mode))
                    out = cm.handle(msg)[0]
                else:
                    out, early = early, None
                if type(out) is Granted:
                    if txn.done:  # NB: aborted meanwhile; its locks must not outlive it
                        raise QueryCanceled(_ABORTED)
                    if kept is not None:
                        self._kept_for_rerun(txn, kept, mode)
                    return newest
                if type(out) is Conflict:
                    self.stats["conflicts"] += 1
                    # NB: a lock in the newest version is asked again as of the commit that
                    # conflicted, never at LATEST: a remote manager (cluster mode) may see
                    # another engine commit the key again between the two asks, and the
                    # recheck, which reads at a snapshot that covers only the commits
                    # reported here, would miss that one (a lost update). As of the
                    # reported commit a newer one is a Conflict again, with its own ts.
                    if relock:  # locked in its newest version; the caller rechecks it
                        newest = max(newest, out.commit_ts)
                        txn.min_snapshot = max(txn.min_snapshot, out.commit_ts)
                        snapshot = out.commit_ts
                        continue
                    if txn.isolation == "read committed":
                        txn.min_snapshot = max(txn.min_snapshot, out.commit_ts)
                        if len(keys) == 1 and self.locks_first:
                            # NB: the statement reruns (RetryStatement) on a snapshot that
                            # sees this commit; the row is locked first, in its newest
                            # version, as PostgreSQL locks the updated tuple before its
                            # recheck (EvalPlanQual), and stays locked if it no longer
                            # matches. The other sessions woken by the same commit then
                            # wait for this one instead of each rerunning its statement
                            # to find the row taken again: a queue, not a herd
                            kept, snapshot = out, out.commit_ts
                            continue
                        err: SQLError = RetryStatement(_LOST_UPDATE)
                    elif self._hidden_insert(txn, out.key, out.commit_ts):
                        # a key our snapshot lacks, inserted by a concurrent writer that had
                        # read it: PostgreSQL reports the read/write dependency (nbtinsert.c),
                        # not 23505 or ww, as a pivot found at its write
                        err = rw_failure(AT_WRITE)
                    else:
                        err = SerializationFailure(_LOST_UPDATE)
                    err.space, err.key = out.key  # type: ignore[attr-defined]
                    err.commit_ts = out.commit_ts  # type: ignore[attr-defined]
                    try:
                        raise err
                    finally:  # NB: else this frame and err's traceback form a cycle per conflict,
                        del err  # left to the cyclic GC, whose passes then stall every session
                assert type(out) is Wait
                if wait != WAIT:
                    cm.waiters.get(out.holder, set()).discard(tid)
                    if wait == SKIP:
                        return -1
                    raise LockNotAvailable("could not obtain lock on row")
                # NB: under _cm_lock, remote graph (cluster mode) included, where this is a
                # MasterMind call that a fail-over holds up to its end. The local graph's
                # check and record must be one step (two waiters closing one cycle must not
                # both miss it). Freeing the lock for the remote one would let a wake-up
                # pass between the Wait and `_lock_waits` (`wake` drops the tids not in it),
                # and would gain little: a fail-over holds every commit of this engine
                # anyway (its timestamp report and the shared snapshot are MasterMind
                # calls), and `remove`'s WaitDone, at each wait's end, is one too.
                if self._graph.would_deadlock(tid, out.holder):
                    cm.waiters.get(out.holder, set()).discard(tid)
                    self.stats["deadlocks"] += 1
                    raise DeadlockDetected(
                        "deadlock detected",
                        detail=f"Transaction {tid} waits for transaction {out.holder}, "
                        f"which waits for transaction {tid}.",
                    )
                if not counted:  # NB: a waiter may wake spuriously and wait again
                    self.stats["waits"] += 1
                    counted = True
                self._graph.add(tid, out.holder)
                if not reasked:  # NB: asking again is the same wait: same lock_timeout
                    deadline = None if txn.lock_timeout is None \
                        else time.monotonic() + txn.lock_timeout
                    period = self.reask_after
                elif period is not None:  # NB: twice as long each time in a row, up to 8 s:
                    period = min(period * 2, 8.0)  # a long wait costs the manager little
                reasked = False
                reask = None if period is None else time.monotonic() + period
                cond = self._lock_waits[tid] = waits.Condition(self._cm_lock)
                self._asks[tid] = (cm, msg)
                try:
                    while tid not in self._woken:
                        self._check_cancel(txn)
                        if tid in self._doomed:
                            raise SerializationFailure(_LOCKS_LOST)
                        if deadline is None and reask is None:
                            cond.wait()
                            continue
                        now = time.monotonic()
                        if deadline is not None and deadline <= now:
                            raise LockNotAvailable("canceling statement due to lock timeout")
                        if reask is not None and reask <= now:
                            self.stats["reasks"] += 1
                            reasked = True  # NB: no wake-up came: ask the manager again
                            break
                        cond.wait(min(t for t in (deadline, reask) if t is not None) - now)
                except BaseException:
                    cm.waiters.get(out.holder, set()).discard(tid)
                    answer = self._answers.pop(tid, None)
                    if type(answer) is Wait:  # NB: a Granted key goes with the caller's
                        cm.waiters.get(answer.holder, set()).discard(tid)  # release
                    raise
                finally:
                    self._lock_waits.pop(tid, None)
                    self._asks.pop(tid, None)
                    self._woken.discard(tid)
                    self._graph.remove(tid)
                early = self._answers.pop(tid, None)

    @staticmethod
    def _kept_for_rerun(txn: Transaction, kept: Conflict, mode: int) -> None:
        """Raises READ COMMITTED's `RetryStatement` for a row now locked in its newest
        version (`locked`: the rerun keeps the lock, `Transaction.rollback_to`)."""
        txn.locked[kept.key] = max(mode, txn.locked.get(kept.key, -1))
        retry = RetryStatement(_LOST_UPDATE)
        retry.space, retry.key = kept.key
        retry.commit_ts, retry.locked = txn.min_snapshot, True
        try:
            raise retry
        finally:  # NB: no frame <-> traceback cycle (below)
            del retry

    def _wake(self, tids: tuple[int, ...] | list[int] | set[int]) -> None:
        """Wakes the waiters a release of this LTM ended (holds _cm_lock), asking their
        managers again for them first (`_asks`): the keys go to the queued waiters
        before the releasing thread, still running, can ask for them again. A manager
        that fails the ask leaves the waiter to ask itself and meet the error."""
        self._woken.update(tids)
        answers = self._answers
        if answers:
            self._drop_stale_waits(tids)
        asks = self._asks
        if asks:
            for tid in tids:
                ask = asks.get(tid)
                if ask is not None and tid not in answers:
                    try:
                        answers[tid] = ask[0].handle(ask[1])[0]
                    except Exception:  # NB: its own ask raises it in its own thread
                        pass
        self._notify(tids)

    def _drop_stale_waits(self, tids: tuple[int, ...] | list[int] | set[int]) -> None:
        """Forgets the early answers (`_wake`) that told these woken waiters to wait (holds
        _cm_lock): woken again before its thread ran, a waiter's answer may name the holder
        that just ended (a deadlock victim first drops the keys it did not get, waking its
        waiters, then the keys it held), and a wait on it would never end. Such a waiter
        is asked for again, or asks itself; a Granted or Conflict answer stays true."""
        answers = self._answers
        for tid in tids:
            if type(answers.get(tid)) is Wait:
                del answers[tid]

    def _notify(self, tids: tuple[int, ...] | list[int] | set[int]) -> None:
        """Wakes the threads of these transactions if they wait for a lock (holds _cm_lock)."""
        waits = self._lock_waits
        for tid in tids:
            cond = waits.get(tid)
            if cond is not None:
                cond.notify()

    def wake(self, tids: tuple[int, ...] | list[int] | set[int]) -> None:
        """Wakes waiters of this LTM whose holder ended elsewhere (a `Woken` from another LTM).

        Cluster mode: the `Woken` of a release goes to the releasing LTM; the wiring hands
        the tids that belong to this LTM here, and their threads ask the managers again.
        Only the tids waiting now count: one that asked again on its own (`reask_after`)
        and went on may get its wake-up late, and it must neither stay in `_woken` for
        ever nor cut that transaction's next wait short. A waiter is in `_lock_waits`
        from its manager's Wait on (both under `_cm_lock`), so none is missed.
        """
        if not tids:
            return
        with self._cm_cond:
            waiting = self._lock_waits
            tids = [tid for tid in tids if tid in waiting]
            if self._answers:
                self._drop_stale_waits(tids)
            self._woken.update(tids)
            self._notify(tids)

    def waiting_for(self, txn: Transaction) -> int | None:
        """The id of the transaction txn's thread waits for (a write lock), or None."""
        return self._graph.edges.get(txn.tid)

    def release(
        self, txn: Transaction, keys: tuple[tuple[int, bytes], ...], commit_ts: int | None = None,
        spaces: tuple[int, ...] = (),
    ) -> None:
        """Drops txn's write locks on keys (recording the commit), waking their waiters.

        `spaces` are spaces txn created and wrote without locks (`Transaction.claim_space`):
        every manager records them as committed, so that an older snapshot cannot
        overwrite their keys unnoticed.
        """
        if not keys and not spaces:
            return
        self.release_spaces(txn, by_space(keys), commit_ts, spaces)

    def release_spaces(
        self, txn: Transaction, groups: dict[int, Any], commit_ts: int | None = None,
        spaces: tuple[int, ...] = (),
    ) -> None:
        """`release` with the keys grouped per space (space -> key bytes): one message per
        manager (the one in-process manager: a direct call, `ConflictManager.release_spaces`,
        as `acquire_space` asks it), no tuple per key (a bulk load's commit)."""
        if not groups and not spaces:
            return
        direct = self._direct
        if direct is not None:  # NB: the keys as given (a dict's keys view lets the manager
            pairs = [(s, ks) for s, ks in groups.items() if ks]  # seal a bulk load whole)
            if pairs or spaces:
                with self._cm_lock:  # NB: `_cm_cond`'s lock, without its Python __enter__
                    woken = direct.release_spaces(txn.tid, pairs, commit_ts, spaces)
                    if woken:
                        self._wake(woken)
            return
        per: dict[int, list[tuple[int, Any]]] = {}
        for space, keys in groups.items():
            if not keys:
                continue
            for i, ks in self._space_by_manager(space, keys).items():
                per.setdefault(i, []).append((space, ks))
        with self._cm_cond:
            targets = range(len(self.cms)) if spaces else per.keys()
            for i in targets:
                msg = ReleaseSpaces(txn.tid, tuple(per.get(i, ())), commit_ts, spaces)
                for out in self.cms[i].handle(msg):
                    if type(out) is Woken:
                        self._wake(out.txns)

    # -- commit and abort -------------------------------------------------------

    def _next_ts(self, counter: str | None = None) -> int:
        with self._ts_lock:
            if counter is not None:
                self.stats[counter] += 1
            ts = self._batch.take()
            if ts is None:
                (batch,) = self.sequencer.handle(RequestBatch(self.ltm_id, self.batch_size))
                self._batch.refill(batch, time.monotonic())
                ts = self._batch.take()
            return ts  # type: ignore[return-value]

    def discarded_ts(self) -> int:
        """A fresh commit timestamp given back at once (nothing is written at it): a
        transaction id or the end of one that wrote nothing (`xids`)."""
        ts = self._next_ts()
        self._finished((ts,), readable=False)
        return ts

    def last_ts(self) -> int:
        """The newest timestamp this LTM handed out, or the snapshot if that is newer."""
        with self._ts_lock:
            return max(self._batch.next - 1, self.snapshots.snapshot)

    def doom_active(self) -> int:
        """Cluster mode: a conflict manager died, and with it the write locks of this LTM's
        transactions. None of the transactions active now may commit (another writer may
        already hold their keys at the manager's replacement): their commit and their lock
        waits fail with 40001. Returns how many were doomed."""
        with self._active_lock:
            self._doomed.update(self._active)
            n = len(self._active)
        with self._cm_cond:
            self._notify(list(self._lock_waits))
        return n

    def snapshot_advanced(self) -> None:
        """Wakes sessions waiting for a snapshot that another LTM's commit advanced (cluster)."""
        with self._snap_cond:
            self._snap_cond.notify_all()

    def give_back_stale(self, older_than: float) -> int:
        """Discards the local batch's unused timestamps if it is older than `older_than` seconds.

        An idle LTM's batch would otherwise hold every other LTM's snapshot back (cluster
        mode calls this periodically). Returns how many timestamps were given back.
        """
        with self._ts_lock:
            b = self._batch
            if b.next > b.last or time.monotonic() - b.since < older_than:
                return 0
            rest = b.drain()
        self._finished(tuple(rest), readable=False)
        return len(rest)

    def _finished(self, stamps: tuple[int, ...], readable: bool) -> None:
        with self._snap_lock:
            if self._local_snapshots:  # NB: a direct call, no message (once per commit)
                if self.snapshots.finish(stamps) and (self._session_waiting
                                                      or self._commit_waiting):
                    # NB: only with a waiter: each adds itself under `_snap_lock` before
                    # it reads the snapshot, so none can miss the move
                    self._snap_cond.notify_all()
                return
            msg = Readable(stamps) if readable else Discarded(stamps)
            for out in self.snapshots.handle(msg):
                if type(out) is Advanced:
                    self._snap_cond.notify_all()

    def commit(self, txn: Transaction, durable: bool = True) -> int | None:
        """Commits txn: log durably (`durable=False`: written, fsynced soon after, as
        PostgreSQL's synchronous_commit = off), then apply, publish and release (see the
        module doc)."""
        txn.done = True
        ws = txn.ws
        if not ws:
            with self._active_lock:
                self.stats["read_only_commits"] += 1
                if not txn.locked and not ws.spaces and not txn.validated:
                    # NB: nothing to release or settle (a plain read-only transaction)
                    self._active.pop(txn.tid, None)
                    self._ser_active.discard(txn.tid)
                    return None
            self._end(txn, None)  # locks, and keys whose writes were all rolled back
            return None
        if txn.tid in self._doomed:
            with self._active_lock:
                self.stats["aborts"] += 1
            self._end(txn, None)
            raise SerializationFailure(_LOCKS_LOST)
        writes, spaces = ws.for_commit()
        if txn.reads is not None:  # SERIALIZABLE: validate after taking the commit ts
            cts = self._next_ts()
            why = txn.doomed or self._validate(txn, cts)
            if why:
                log.debug("serializable txn %d aborted at %d: %s", txn.tid, cts, why)
                with self._active_lock:
                    self.stats["ser_failures"] += 1
                    self.stats["aborts"] += 1
                self._finish_txn(txn, cts, committed=False)
                raise rw_failure(AT_COMMIT)
            with self._ts_lock:
                self.stats["commits"] += 1
        else:
            cts = self._next_ts("commits")
        if self.log is not None:
            try:
                if spaces:  # NB: bulk writes (a COPY's): written as they are packed
                    self.log.log_pieces(cts, record_pieces(cts, writes, (), spaces,
                                                           txn.ws.columns()), durable)
                else:
                    self.log.log(cts, pack_record(cts, writes), durable)
            except SerializationFailure:  # NB: refused, so in no log: it did not commit
                self._finish_txn(txn, cts, committed=False)
                raise
            except BaseException as exc:
                self._finish_txn(txn, cts, committed=False)
                raise StatementCompletionUnknown(
                    f"could not write the commit record: {exc}"
                ) from exc
        session = txn.session
        if session is not None:  # NB: the session's last commit (`take_snapshot` waits for it)
            with self._session_lock:
                sc = self._session_commit
                sc[session] = cts
                if len(sc) > 256:
                    self._forget_passed_sessions()
        if self._paused is not None:  # NB: a test hook: the lock only once it is set
            with self._pause_lock:
                if self._paused is not None:
                    self._paused.append(lambda: self._publish(txn, cts, writes, spaces))
                    return cts
        self._publish(txn, cts, writes, spaces)
        if self.snapshots.snapshot < cts:
            self._await_snapshot(cts)
        return cts

    def _publish(self, txn: Transaction, cts: int, writes: list[Write],
                 spaces: list[SpaceWrites]) -> None:
        """A logged commit's apply, publish and release. (A method, not a closure in
        `commit`: a closure over five names was built per commit.)"""
        try:
            self.kivi.apply(_new(Apply, (cts, writes, spaces)))  # NB: a NamedTuple, in C
        except Exception as exc:
            # NB: durable but not in KiVi: publishing now would let a snapshot pass cts
            # without its rows and a writer overwrite them (a lost update). It stays
            # pending, its locks held, until the reapplier gets it into KiVi.
            log.exception("applying commit %d failed; retrying in the background", cts)
            with self._ts_lock:
                self.stats["apply_failures"] += 1
            self.reapplier.add(cts, (writes, spaces, txn))
            raise StatementCompletionUnknown(
                f"commit {cts} is durable but could not be applied yet: {exc}"
            ) from exc
        self._finish_txn(txn, cts, committed=True)

    def _await_snapshot(self, cts: int) -> None:
        """Holds an acknowledgement until the snapshot reaches cts.

        A lower timestamp still being logged or applied (a concurrent commit, an
        autoanalyze), or another LTM's unused batch in cluster mode, holds the snapshot
        back for a moment; PostgreSQL's users expect a commit to be visible to every
        transaction that starts after it returns, in any session and on any engine, so
        the wait is here (the snapshot poller wakes it in cluster mode) rather than in
        the other sessions' next snapshot. A paused apply (tests) skips it.
        """
        t0 = time.perf_counter()
        with self._snap_cond:
            self._commit_waiting += 1  # NB: under the lock, before the test (`_finished`)
            try:
                while self.snapshots.snapshot < cts:
                    self._snap_cond.wait(0.05)
                    if self.snapshots.snapshot < cts:
                        self._refresh_snapshot()
            finally:
                self._commit_waiting -= 1
        with self._ts_lock:
            self.stats["commit_waits"] += 1
            self.stats["commit_wait_s"] += time.perf_counter() - t0

    def _reapply(self, cts: int, item: Any) -> None:
        writes, spaces, _ = item
        self.kivi.apply(Apply(cts, writes, spaces))

    def _reapplied(self, cts: int, item: Any) -> None:
        self._finish_txn(item[2], cts, committed=True)

    def _finish_txn(self, txn: Transaction, cts: int, committed: bool) -> None:
        """Reports cts finished (readable if txn committed at it, else discarded) and ends
        txn. Its locks are released even if the report fails (cluster mode: the MasterMind
        out of reach for good, or refusing an engine declared dead): a lock that outlived
        its transaction would hold every later writer of the key back for ever. A ts left
        unreported is settled by the next MasterMind leader or by the reaper."""
        try:
            self._finished((cts,), readable=committed)
        finally:
            self._end(txn, cts if committed else None)

    def _forget_passed_sessions(self) -> None:
        """Entries the snapshot has passed can never delay anyone: drops them, so that ended
        sessions (the keys are Session objects) are not kept alive. Under `_session_lock`."""
        snap = self.snapshots.snapshot
        self._session_commit = {k: v for k, v in self._session_commit.items() if v > snap}

    def _end(self, txn: Transaction, cts: int | None) -> None:
        with self._active_lock:
            self._active.pop(txn.tid, None)
            self._ser_active.discard(txn.tid)
            if self._doomed:
                self._doomed.discard(txn.tid)
        private = txn.private
        direct = self._direct
        ws = txn.ws
        if direct is not None and private is None and not ws.runs:
            # NB: the one in-process manager and a write set of dicts alone (OLTP): the
            # steps below in one call under one hold of the lock (`release_writes`; None,
            # nothing done, when txn holds keys in bulk: the steps below then)
            with self._cm_lock:  # NB: `_cm_cond`'s lock, without its Python __enter__
                woken = direct.release_writes(txn.tid, ws.spaces, txn.locked, cts)
                if woken:
                    self._wake(woken)
            if woken is None:
                self._end_general(txn, cts, private)
                return
            if txn.validated or (cts is not None and self._ser_active):
                # NB: else `_settle` has nothing to do: read without `_active_lock`, as
                # every SERIALIZABLE transaction older than cts registered before cts
                # became readable (`_finished` ran)
                self._settle(txn, cts)
            return
        self._end_general(txn, cts, private)

    def _end_general(self, txn: Transaction, cts: int | None, private: set[int] | None) -> None:
        """`_end`'s release of txn's keys through the managers' messages (several
        managers, a bulk hold, runs or a private space)."""
        bulk = self._release_bulk(txn, cts)
        groups = {s: keys for s, keys in txn.ws.space_keys().items()
                  if (private is None or s not in private) and s not in bulk}
        if txn.locked:  # NB: a row only locked was not changed: no commit recorded for it
            only_locked = txn.ws.unwritten(txn.locked)
            if only_locked:
                self.release(txn, only_locked)
        spaces = tuple(private) if private and cts is not None else ()
        self.release_spaces(txn, groups, cts, spaces)
        self._settle(txn, cts)

    def abort(self, txn: Transaction) -> None:
        """Discards txn's writes and releases its locks."""
        txn.done = True
        with self._active_lock:
            self.stats["aborts"] += 1
        self._end(txn, None)
        if self.is_waiting(txn):  # another thread aborted it: wake its statement up
            self.cancel(txn)

    # -- test hooks ---------------------------------------------------------------

    def pause_apply(self) -> None:
        """Defers the post-commit work (apply, publish, release) until `resume_apply`."""
        with self._pause_lock:
            if self._paused is None:
                self._paused = []

    def resume_apply(self) -> None:
        """Runs the deferred post-commit work, in commit order."""
        with self._pause_lock:
            work, self._paused = self._paused or [], None
        for publish in work:
            publish()

    # -- services -------------------------------------------------------------------

    def drop_space(self, space: int) -> None:
        """Drops a space's data for good, logged so that replay cannot resurrect it."""
        cts = self._next_ts()
        if self.log is not None:
            self.log.log(cts, pack_record(cts, [], [space]))
        self.kivi.drop_space(DropSpace(space))
        self._finished((cts,), readable=True)

    def collect(self, low_water: int | None = None) -> int:
        """Garbage-collects versions below the oldest active snapshot; returns the low water.

        `low_water` (cluster mode: the minimum over every LTM sharing the storage) lowers
        the mark, never raises it above this LTM's own."""
        lw = self.low_water()
        if low_water is not None:
            lw = min(lw, low_water)
        self.kivi.collect(Collect(lw))
        self.stats["gc_runs"] += 1
        with self._session_lock:
            self._session_commit = {k: v for k, v in self._session_commit.items() if v > lw}
        with self._cm_lock:
            for cm in self.cms:
                cm.handle(Prune(lw))
        return lw

    def close(self) -> None:
        """Gives the unused timestamps back and runs any deferred work."""
        self.resume_apply()
        self.reapplier.close()
        with self._ts_lock:
            rest = self._batch.drain()
        if rest:
            self._finished(tuple(rest), readable=False)
