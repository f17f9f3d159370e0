"""One transaction: lazy snapshot, private writes merged into reads, savepoints.

Reads go to KiVi at the snapshot timestamp and are overlaid with the private
write set. A scan of a space where the transaction has written merges two
ordered streams, KiVi's rows and the own writes in the range:

    KiVi (filtered at the node):  a1      c1  d1          g1
    own writes:                       b2  c2      e(del)
    merged:                       a1  b2  c2  d1          g1

The node still filters (the same compiled filter, `kivi.filters.positions`,
runs over the own rows here) and still projects, but a limit is raised by the
number of own writes in the range (each can hide at most one node row) and an
aggregate is computed here over the merged stream, since the node cannot see
uncommitted rows. The own writes are captured when `scan` is called, so a statement does
not see the rows it writes while scanning (no Halloween problem).

Writes are conflict-checked as they are made (`LocalTxnManager.acquire`),
which may block this thread behind another writer. Writes to a space the
transaction created itself (`claim_space`: a new table, TRUNCATE's or a
rewrite's new space) are not: nobody else can see that space before the commit.

A SERIALIZABLE transaction that is not READ ONLY also records what it reads
(`readset.ReadSet`: keys got, hits and misses, and the key ranges each scan
batch covered) for write-snapshot validation at commit (see `validate`). Once
it has written, each new read and write is probed at once (eager detection), so
a transaction that read an overwritten version fails where PostgreSQL fails it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..errors import InternalError, ReadOnlySQLTransaction
from ..kivi import filters
from ..kivi.agg import partial_aggregate
from ..kivi.api import Row, Scan
from ..kivi.columnar.access import built_space_snapshots, space_snapshots
from ..kivi.columnar.copy import Snapshot
from ..kivi.fanout import local_node, scan_batches
from . import xids
from .api import READ_ONLY_EXEMPT, ScanSpec
from .conflicts import LATEST
from .readset import ReadSet
from .rowlocks import NO_KEY_UPDATE, UPDATE, WAIT
from .writeset import ABSENT, WriteSet

if TYPE_CHECKING:
    from .ltm import LocalTxnManager


class Transaction:
    """A snapshot-isolation transaction of the local transaction manager (implements `api.Txn`)."""

    __slots__ = (
        "ltm", "tid", "isolation", "read_only", "session", "ws", "_ts", "min_snapshot", "done",
        "cancelled", "locked", "lock_timeout", "reads", "doomed", "pivot",
        "validated", "private", "xid", "locks_first",
    )

    def __init__(
        self, ltm: LocalTxnManager, tid: int, isolation: str, read_only: bool, session: Any
    ) -> None:
        self.ltm = ltm
        self.tid = tid
        self.isolation = isolation
        self.read_only = read_only
        self.session = session
        self.locks_first = ltm.locks_first  # see `LocalTxnManager.locks_first`
        self.ws = WriteSet()
        self._ts: int | None = None
        self.min_snapshot = 0  # a retried READ COMMITTED statement must see the winner's commit
        self.done = False
        self.cancelled = False
        self.locked: dict[tuple[int, bytes], int] = {}  # row locks (lock_row()) -> mode
        self.lock_timeout: float | None = None  # seconds a write may wait (lock_timeout)
        # SERIALIZABLE update transactions only: READ ONLY ones pay nothing
        self.reads = (ReadSet(skip=ltm.untracked_spaces)
                      if isolation == "serializable" and not read_only else None)
        self.doomed = ""  # why a read was overwritten after the snapshot (eager detection)
        self.pivot = 0  # the commit ts that overwrote it (named in the 40001's DETAIL)
        self.validated = False  # prepared in the conflict managers: settle at the end
        self.private: set[int] | None = None  # spaces this txn created (see claim_space)
        self.xid = 0  # its PostgreSQL-style id once txid_current() asked (`xids`), else 0

    def __repr__(self) -> str:
        return f"<Transaction {self.tid} {self.isolation} ts={self._ts}>"

    @property
    def start_ts(self) -> int | None:
        """The snapshot timestamp, or None while no statement has touched data."""
        return self._ts

    def read_ts(self) -> int:
        """The snapshot timestamp the statement reads at, taken now if it has none."""
        return self._snap()

    @property
    def has_writes(self) -> bool:
        """Tells whether the write set holds anything."""
        return bool(self.ws)

    def new_statement(self) -> None:
        """Marks a statement boundary; READ COMMITTED drops its snapshot here."""
        self.cancelled = False
        if self.isolation == "read committed":
            self._ts = None

    def _snap(self) -> int:
        ts = self._ts
        if ts is None:
            if self.done:
                raise InternalError("the transaction has already ended")
            ts = self._ts = self.ltm.take_snapshot(self)
        return ts

    # -- reads ----------------------------------------------------------------

    def get_unread(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """`get` without recording a SERIALIZABLE read (see `api.Txn.get_unread`)."""
        reads = self.reads
        if reads is None:
            return self.get(space, keys)
        self.reads = None
        try:
            return self.get(space, keys)
        finally:
            self.reads = reads

    def get(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """Reads rows by key: own writes first, then the snapshot."""
        ts = self._ts
        if ts is None:  # NB: `_snap` inline: each READ COMMITTED statement's first read
            if self.done:
                raise InternalError("the transaction has already ended")
            ts = self._ts = self.ltm.take_snapshot(self)
        reads = self.reads
        ws = self.ws
        if not (ws.spaces.get(space) or ws.runs.get(space)):  # NB: `written` inline
            if reads is not None:
                reads.add_points(space, keys)
                if self.ws:
                    self.ltm.probe(self, at_write=False)
            return list(self.ltm.kivi.get_rows(space, ts, keys))
        if len(keys) == 1:  # NB: one key (a keyed read): its own write, if any, as `lookup`
            w = ws.spaces.get(space)
            if w is not None:
                row = w.get(keys[0], ABSENT)
                if row is not ABSENT:
                    return [row]
        out = ws.lookup(space, keys)
        missing = [i for i, r in enumerate(out) if r is ABSENT]
        if missing:
            if reads is not None:
                reads.add_points(space, [keys[i] for i in missing])
                self.ltm.probe(self, at_write=False)
            rows = self.ltm.kivi.get_rows(space, ts, [keys[i] for i in missing])
            for i, r in zip(missing, rows, strict=True):
                out[i] = r
        return out

    def get_one(self, space: int, key: bytes) -> Row | None:
        """`get` of one key (a keyed UPDATE's read): its row or None, with no list in or
        out. A SERIALIZABLE updater's read (recorded) and a space with sorted runs take
        `get`'s way."""
        ts = self._ts
        if ts is None:  # NB: as `get`
            if self.done:
                raise InternalError("the transaction has already ended")
            ts = self._ts = self.ltm.take_snapshot(self)
        ws = self.ws
        w = ws.spaces.get(space)
        if w is not None:
            row = w.get(key, ABSENT)
            if row is not ABSENT:
                return row
        if self.reads is not None or ws.runs.get(space):
            return self.get(space, [key])[0]
        return self.ltm.kivi.get_rows(space, ts, [key])[0]

    def scan(self, spec: ScanSpec) -> Iterator[list[Row]]:
        """Yields batches of rows in key order (or partial-aggregate rows), own writes merged in."""
        ts = self._snap()  # NB: now, not when the caller starts iterating
        own = self.ws.range(spec.space, spec.lo, spec.hi, spec.reverse)
        if not own:
            return self._node_scan(spec, ts)
        return self._merged_scan(spec, ts, own)

    def scan_columns(self, spec: ScanSpec, width: int) -> Iterator[tuple[list[Any], int]] | None:
        """A whole forward scan as column batches of `width` columns ((columns, rows)), at
        this snapshot (`KiviNode.scan_columns`); None tells the caller to read `scan`'s
        rows instead: the transaction has its own writes in the space (merged by rows),
        a SERIALIZABLE updater must record its reads, or the node is not in process."""
        node = local_node(self.ltm.kivi)
        if (node is None or self.ws.written(spec.space) or self.reads is not None
                or spec.reverse or spec.filter is not None or spec.limit is not None
                or spec.aggregate is not None or spec.with_keys or spec.projection is not None):
            return None
        return node.scan_columns(spec.space, spec.lo, spec.hi, self._snap(), width)

    def columnar(self, space: int, wait: bool = True) -> list[Snapshot] | None:
        """The space at this snapshot as columnar packs, one snapshot per region (issue 11).

        None tells the caller to read through `scan` instead: the transaction has its own
        writes in the space (they are not in the copy), a SERIALIZABLE updater must record
        its reads, or the nodes are remote; without `wait`, also while the space's copy
        is being built (`cumulo.columnar = auto` reads rows meanwhile, see `kivi.columnar.warm`).
        """
        if self.ws.written(space) or self.reads is not None:
            return None
        return space_snapshots(self.ltm.kivi, space, self._snap(), wait)

    def columnar_built(self, space: int) -> list[Snapshot] | None:
        """`columnar`, but None unless every region already has its copy (none is built):
        ANALYZE samples a copy that analytic queries keep, and reads rows otherwise."""
        if self.ws.written(space) or self.reads is not None:
            return None
        return built_space_snapshots(self.ltm.kivi, space, self._snap())

    def sample(self, space: int, size: int, seed: int) -> tuple[int, list[Row]] | None:
        """(the space's visible rows at this snapshot, a uniform sample of `size` of them)
        read by position (`KiviNode.sample`), for ANALYZE; None tells the caller to read
        `scan`'s rows: the space fits in the sample, the transaction has its own writes
        in it, a SERIALIZABLE updater must record its reads, or the node is not in process."""
        node = local_node(self.ltm.kivi)
        if node is None or self.ws.written(space) or self.reads is not None:
            return None
        return node.sample(space, self._snap(), size, seed)

    def _node_scan(self, spec: ScanSpec, ts: int) -> Iterator[list[Row]]:
        node = self.ltm.kivi
        lo, hi, limit = spec.lo, spec.hi, spec.limit
        reads = self.reads
        if reads is None:  # no read ranges to record: regions on several nodes read in parallel
            yield from scan_batches(node, Scan(spec.space, ts, lo, hi, spec.projection,
                                               spec.filter, limit, spec.aggregate,
                                               spec.with_keys, spec.reverse, spec.batch_size,
                                               spec.params))
            return
        # a tracked scan under a LIMIT fetches keys too, to cut its read range at the last row
        strip = (reads is not None and limit is not None and spec.aggregate is None
                 and not spec.with_keys)
        while True:
            rep = node.scan(
                Scan(spec.space, ts, lo, hi, spec.projection, spec.filter, limit, spec.aggregate,
                     spec.with_keys or strip, spec.reverse, spec.batch_size, spec.params)
            )
            rows = rep.rows
            if reads is not None:  # the range this batch covered, whatever the filter kept
                resume = rep.resume_key if spec.aggregate is None else None
                if resume is None and limit is not None and rows and len(rows) >= limit:
                    resume = rows[-1][0]  # the limit stopped the scan at this key
                    if not spec.reverse:
                        resume += b"\x00"
                if resume is None:
                    reads.add_range(spec.space, lo, hi)
                elif spec.reverse:
                    reads.add_range(spec.space, resume, hi)
                else:
                    reads.add_range(spec.space, lo, resume)
                if self.ws:
                    self.ltm.probe(self, at_write=False)
                if strip:
                    rows = [r[1:] for r in rows]
            if rows:
                yield rows
            if rep.resume_key is None or spec.aggregate is not None:
                return
            if limit is not None:
                limit -= len(rows)
                if limit <= 0:
                    return
            if spec.reverse:
                hi = rep.resume_key
            else:
                lo = rep.resume_key

    def _merged_scan(
        self, spec: ScanSpec, ts: int, own: list[tuple[bytes, Row | None]]
    ) -> Iterator[list[Row]]:
        agg = spec.aggregate
        proj = None if agg is not None else spec.projection
        if spec.filter is not None:  # the node's compiled filter, run once over the own rows
            live = [(k, r) for k, r in own if r is not None]
            picked = filters.positions(spec.filter)([r for _, r in live], spec.params)
            passing: set[bytes] | None = {live[j][0] for j in picked}
        else:
            passing = None
        node_limit = None if agg is not None or spec.limit is None else spec.limit + len(own)
        node_spec = ScanSpec(spec.space, spec.lo, spec.hi, proj, spec.filter, node_limit, None,
                             True, spec.reverse, spec.batch_size, spec.params)
        with_keys = spec.with_keys and agg is None
        limit = None if agg is not None else spec.limit
        rev = spec.reverse
        n_own = len(own)
        i = 0
        out: list[Row] = []
        emitted = 0

        def own_row(k: bytes, r: Row | None) -> Row | None:
            if r is None or (passing is not None and k not in passing):
                return None
            if proj is not None:
                r = tuple(r[j] for j in proj)
            return (k, *r) if with_keys else r

        def merged() -> Iterator[Row]:
            nonlocal i
            for batch in self._node_scan(node_spec, ts):
                for nrow in batch:
                    k = nrow[0]
                    while i < n_own and ((own[i][0] > k) if rev else (own[i][0] < k)):
                        r = own_row(*own[i])
                        i += 1
                        if r is not None:
                            yield r
                    if i < n_own and own[i][0] == k:
                        r = own_row(*own[i])  # the own write hides the stored row
                        i += 1
                        if r is not None:
                            yield r
                        continue
                    yield nrow if with_keys else nrow[1:]
            while i < n_own:
                r = own_row(*own[i])
                i += 1
                if r is not None:
                    yield r

        if agg is not None:
            yield partial_aggregate(agg, [list(merged())])
            return
        size = spec.batch_size
        for r in merged():
            out.append(r)
            emitted += 1
            if limit is not None and emitted >= limit:
                break
            if len(out) >= size:
                yield out
                out = []
        if out:
            yield out

    # -- writes ---------------------------------------------------------------

    def holds(self, key: tuple[int, bytes]) -> bool:
        """Tells whether txn holds a lock on key (written or locked in any mode)."""
        return key in self.locked or self.ws.contains(*key)

    def claim_space(self, space: int) -> None:
        """Declares `space` new, created by this transaction: no other can see it before
        the commit, so its writes skip the conflict managers (a bulk load into a new or
        truncated table, ADD PRIMARY KEY's rewrite). The commit still records its keys
        as committed there, so an older snapshot cannot overwrite them unnoticed."""
        if self.private is None:
            self.private = set()
        self.private.add(space)

    def put(self, space: int, items: list[tuple[bytes, Row | None]],
            mode: int = NO_KEY_UPDATE) -> None:
        """Inserts or replaces rows in the private write set (conflict-checked); a row None
        is `delete`'s tombstone, written in its lock mode."""
        if len(items) == 1:
            self.put_one(space, *items[0], mode)  # NB: one row: no list built below
            return
        if self.read_only and space not in READ_ONLY_EXEMPT:
            raise ReadOnlySQLTransaction("cannot execute in a read-only transaction")
        if self._ts is None:
            self._snap()
        ws = self.ws
        locked = self.locked
        private = self.private
        fresh: list[bytes] = []  # keys of space to acquire
        # every key is new to the write set (NB: `written` inline: one call fewer per write)
        new_keys = not (ws.spaces.get(space) or ws.runs.get(space))
        if private is None or space not in private:
            fresh = list(map(itemgetter(0), items))
            # NB: a bulk load's later batches bring keys new to the write set: C-level only
            new_keys = new_keys or ws.fresh(space, fresh)
            if locked or not new_keys:  # NB: a key new to the write set needs no `contains`
                fresh = [k for k in fresh if (new_keys or not ws.contains(space, k))
                         and (not locked or (space, k) not in locked)]
        if locked:  # a row locked in a weaker mode than the write's: upgrade (as of the
            # snapshot: a row changed since, which FOR KEY SHARE lets through, conflicts)
            weak = [k for k in map(itemgetter(0), items) if locked.get((space, k), mode) < mode]
            if weak:
                self.ltm.acquire(self, [(space, k) for k in weak], mode=mode)
                locked.update(dict.fromkeys(((space, k) for k in weak), mode))
        if fresh:
            self.ltm.acquire_space(self, space, fresh, mode=mode)
        if len(items) > 16:
            ws.put_many(space, items, new_keys)
        else:
            for k, r in items:
                ws.put(space, k, r)
        if self.reads is not None:  # after the ww check, as PostgreSQL: doomed reads fail here
            self.ltm.probe(self, at_write=True)

    def put_one(self, space: int, k: bytes, row: Row | None, mode: int = NO_KEY_UPDATE) -> None:
        """`put` of one row (a keyed UPDATE's, a single-row INSERT's), with no list in: the
        rules of `put` for one key. A key locked (`lock_row`) at least as strongly passes,
        one locked more weakly is upgraded, one written already passes or is in a space
        this transaction created (`claim_space`), else it is acquired."""
        if self.read_only and space not in READ_ONLY_EXEMPT:
            raise ReadOnlySQLTransaction("cannot execute in a read-only transaction")
        if self._ts is None:
            self._snap()
        ws = self.ws
        locked = self.locked
        have = locked.get((space, k)) if locked else None
        if have is None:
            w = ws.spaces.get(space)
            private = self.private
            if not ((w is not None and k in w)
                    or (ws.runs.get(space) and ws.contains(space, k))
                    or (private is not None and space in private)):
                self.ltm.acquire_space(self, space, [k], mode=mode)
        elif have < mode:
            self.ltm.acquire(self, [(space, k)], mode=mode)
            locked[(space, k)] = mode
        ws.put(space, k, row)
        if self.reads is not None:  # as `put`: after the ww check
            self.ltm.probe(self, at_write=True)

    def put_bulk(self, space: int, keys: list[bytes], rows: list[Row],
                 cols: list[list[Any]] | None = None) -> None:
        """`put` of a batch given as parallel lists of keys and rows (the direct API's
        upsert; a repeated key keeps its last row).

        A batch of keys all new to the write set is recorded with one undo entry and no
        pair per row (a sorted run when the keys ascend, `WriteSet.put_new`), and, when
        every key is plainly free, held in bulk: the conflict manager holds the write
        set's keys of the space whole (`WriteSet.held`) and seals them at the commit
        (`LocalTxnManager.acquire_bulk`), with no holder entry per key. Anything else (row
        locks, a key written already, one held or committed elsewhere, remote managers)
        takes `put`'s way, key by key, with its waits and conflicts. `cols` (the rows as
        columns) spare the commit's redo record a transpose (`WriteSet.columns`).
        """
        if self.read_only:
            raise ReadOnlySQLTransaction("cannot execute in a read-only transaction")
        ws = self.ws
        if len(keys) > 16 and not self.locked and ws.fresh(space, keys):
            self._snap()
            if self.private is not None and space in self.private:
                ws.put_new(space, keys, rows, cols)  # nobody else can see the space
                return
            if self.ltm.acquire_bulk(self, space, keys, ws.held(space),
                                     lambda: ws.put_new(space, keys, rows, cols)):
                if self.reads is not None:  # as `put`: after the ww check
                    self.ltm.probe(self, at_write=True)
                return
        self.put(space, list(zip(keys, rows, strict=True)))

    def delete(self, space: int, keys: list[bytes]) -> None:
        """Deletes rows (tombstones) in the private write set (conflict-checked)."""
        self.put(space, [(k, None) for k in keys], UPDATE)

    def lock_row(self, space: int, keys: list[bytes], mode: int = UPDATE,
                 wait: int = WAIT, latest: bool = False) -> int:
        """Locks rows in a PostgreSQL row-lock mode (`rowlocks`); see `api.Txn.lock_row`.

        Returns 0 when every row is locked as the snapshot saw it, the commit ts of a
        newer version when READ COMMITTED locked a row changed since the snapshot (the
        caller rechecks it on a snapshot at least that new: `fresh_snapshot`), and -1
        when SKIP LOCKED met a row another transaction holds (nothing is locked then).
        REPEATABLE READ and SERIALIZABLE raise 40001 for a row changed since the
        snapshot; NOWAIT raises 55P03 instead of waiting.
        """
        if self.read_only:
            raise ReadOnlySQLTransaction(
                "cannot execute SELECT FOR UPDATE in a read-only transaction"
            )
        if self._ts is None:
            self._snap()
        locked = self.locked
        ws = self.ws
        if len(keys) == 1 and not latest:  # NB: one row (a keyed UPDATE's): no list built
            k = keys[0]
            key = (space, k)
            have = locked.get(key, -1) if locked else -1
            w = ws.spaces.get(space)
            if have >= mode or (w is not None and k in w) or (
                    ws.runs.get(space) and ws.contains(space, k)):
                return 0
            got = self.ltm.lock_space(self, space, keys, mode, wait)
            if got >= 0:
                locked[key] = mode  # NB: stronger than `have`
            return got
        if locked:
            fresh = [k for k in keys
                     if locked.get((space, k), -1) < mode and not ws.contains(space, k)]
        else:
            fresh = [k for k in keys if not ws.contains(space, k)]
        if not fresh:
            return 0
        if latest:  # NB: the newest versions, at any isolation (api.Txn.lock_row)
            self.ltm.acquire(self, [(space, k) for k in fresh], latest=True, mode=mode)
            got = 0
        else:
            got = self.ltm.lock_space(self, space, fresh, mode, wait)
        if got >= 0:
            for k in fresh:
                key = (space, k)
                locked[key] = max(mode, locked.get(key, -1))
        return got

    def lock_put_one(self, space: int, k: bytes, row: Row | None, mode: int) -> int:
        """`lock_row(space, [k], mode)` and, when that locks the row as the snapshot saw it
        (0), `put_one(space, k, row, mode)`: a keyed UPDATE's lock and write of the row it
        read, in one call. A newer version (READ COMMITTED's commit ts, > 0) leaves the row
        locked and nothing written, as `lock_row` alone; REPEATABLE READ and SERIALIZABLE
        raise as it does."""
        if self.read_only:  # NB: as `lock_row`
            raise ReadOnlySQLTransaction(
                "cannot execute SELECT FOR UPDATE in a read-only transaction"
            )
        if self._ts is None:
            self._snap()
        locked = self.locked
        ws = self.ws
        key = (space, k)
        have = locked.get(key, -1) if locked else -1
        if have < mode:
            w = ws.spaces.get(space)
            if (w is not None and k in w) or (ws.runs.get(space) and ws.contains(space, k)):
                if have >= 0:  # NB: written, locked more weakly: `put_one` upgrades it
                    self.ltm.acquire(self, [key], mode=mode)
                    locked[key] = mode
            else:
                got = self.ltm.lock_space(self, space, [k], mode, WAIT)
                if got >= 0:
                    locked[key] = mode  # NB: stronger than `have`
                if got:
                    return got
        ws.put(space, k, row)
        if self.reads is not None:  # as `put`: after the ww check
            self.ltm.probe(self, at_write=True)
        return 0

    def unlock_row(self, space: int, keys: list[bytes]) -> None:
        """Drops row locks taken on keys not written (see `api.Txn.unlock_row`)."""
        locked = self.locked
        gone = [(space, k) for k in keys if (space, k) in locked and not self.ws.contains(space, k)]
        for key in gone:
            del locked[key]
        if gone:
            self.ltm.release(self, tuple(gone))

    def fresh_snapshot(self, latest: bool = False) -> FreshSnapshot:
        """Reads at a new snapshot (at least `min_snapshot`) inside the block, then at the
        old one again: READ COMMITTED's recheck of a row locked in a newer version. With
        `latest`, reads see every applied commit (referential checks after a lock wait)."""
        return FreshSnapshot(self, latest)

    @contextmanager
    def kept_snapshot(self) -> Iterator[int]:
        """Reads after the block at the snapshot of before it, even where a READ COMMITTED
        rerun inside took a newer one (`new_statement`): a data-modifying WITH query's
        recheck leaves the rest of its statement on the statement's snapshot, as
        PostgreSQL's EvalPlanQual does."""
        ts = self._snap()
        try:
            yield ts
        finally:
            self._ts = ts

    def lock(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """Takes the write locks of keys and returns their rows (see `api.Txn.lock`)."""
        self.lock_row(space, keys)
        rc = self.isolation == "read committed"
        if not rc:
            return self.get(space, keys)
        # NB: the newest committed version, whatever the snapshot: nobody else can write
        # these keys now, and every version KiVi holds was committed (and logged) first.
        own = self.ws.lookup(space, keys)
        rows = self.ltm.kivi.get_rows(space, LATEST, [k for k, r in zip(keys, own, strict=True)
                                                      if r is ABSENT])
        it = iter(rows)
        return [next(it) if r is ABSENT else r for r in own]

    def savepoint(self) -> tuple[int, int]:
        """Returns a token for the current write-set state and row locks (`WriteSet.savepoint`
        inline). Each statement's savepoint and a READ COMMITTED UPDATE's build this pair
        themselves (`SQLSession.execute_stmt`, `dml.update`): no call per statement."""
        return len(self.ws.undo), len(self.locked)

    def rollback_to(self, token: Any, keep_locks: bool = False) -> None:
        """Undoes the writes made since `savepoint()` returned `token` and, as PostgreSQL's
        subtransaction abort, drops the row locks taken since (unless their rows are
        still written). `keep_locks`: keeps them (a READ COMMITTED statement's rerun over
        the rows it locked in their newest versions, `LocalTxnManager._acquire_one`)."""
        ws_token, nlocks = token if isinstance(token, tuple) else (token, len(self.locked))
        if keep_locks:
            nlocks = len(self.locked)
        gone = self.ws.rollback_to(ws_token)
        locked = self.locked
        dropped: list[tuple[int, bytes]] = []
        if len(locked) > nlocks:
            for key in list(locked)[nlocks:]:
                del locked[key]
                if not self.ws.contains(*key):
                    dropped.append(key)
        if gone or dropped:
            private = self.private or ()
            self.ltm.release(self, tuple(dropped) + tuple(
                k for k in gone if k not in locked and k[0] not in private))

    # -- end ------------------------------------------------------------------

    def commit(self, durable: bool = True) -> int | None:
        """Makes the writes durable and visible; returns the commit ts (None if read-only)."""
        if self.done:
            return None
        if not self.xid:
            return self.ltm.commit(self, durable)
        try:
            cts = self.ltm.commit(self, durable)
        except BaseException:
            xids.finish(self, None, committed=False)
            raise
        xids.finish(self, cts, committed=True)
        return cts

    def cancel(self) -> None:
        """Interrupts a wait of this transaction's statement from another thread (57014)."""
        self.ltm.cancel(self)

    def abort(self) -> None:
        """Discards the transaction. Safe to call twice."""
        if self.done:
            return
        self.ltm.abort(self)
        if self.xid:
            xids.finish(self, None, committed=False)


class FreshSnapshot:
    """`Transaction.fresh_snapshot`'s block. A class, not a generator context manager: a
    READ COMMITTED UPDATE of a row committed after its snapshot (a hot pgbench TPC-B row)
    enters one, and the generator's machinery cost more than the block's work."""

    __slots__ = ("txn", "latest", "old")

    def __init__(self, txn: Transaction, latest: bool) -> None:
        self.txn = txn
        self.latest = latest
        self.old: int | None = None

    def __enter__(self) -> int:
        txn = self.txn
        old = self.old = txn._ts
        txn._snap()  # NB: the statement's snapshot, taken first if it had none
        txn._ts = LATEST if self.latest else None
        try:
            return txn._snap()
        except BaseException:
            txn._ts = old
            raise

    def __exit__(self, *exc: object) -> None:
        self.txn._ts = self.old
