"""The persistent catalog: catalog objects stored as rows of a KiVi system space.

Why rows in KiVi: DDL then goes through ordinary transactions, so CREATE TABLE
inside BEGIN ... ROLLBACK leaves nothing behind, concurrent DDL on the same
object conflicts like any other write, and the catalog survives restarts with
the data it describes.

Layout:

- space 1 (`CATALOG_SPACE`): key `(kind, database oid, oid)`, row
  `(kind, database oid, oid, msgpack(fields))`. Roles and databases are shared
  (database oid 0); everything else belongs to one database, so each database
  is its own namespace.
- space 3 (`NAME_SPACE`): one row per object name, written with the object,
  so two transactions creating the same name conflict like any write-write
  conflict instead of both committing.
- space 2 (`COUNTER_SPACE`): the OID counter and the sequences' high-water
  marks. These are *not* transactional (PostgreSQL's OID counter and
  sequences are not either): they are advanced in blocks by short autonomous
  transactions, so a crash loses at most the unused part of a block.

Readers get an immutable `CatalogSnapshot` per database, cached until the
catalog version changes; a committed DDL transaction bumps the version. With
several query engines (cluster mode), `publish` tells the others
(`cluster.catalogsync`), whose `remote_bump` raises their version and the
timestamp their next catalog read must see (`min_ts`). A
transaction that has itself changed the catalog reads it through its own
write set instead (`load_snapshot(txn, ...)`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import msgpack

from ... import waits
from ...errors import SequenceGeneratorLimitExceeded, SerializationFailure
from ...kivi.keycodec import encode_key
from ...txn.api import RetryStatement, ScanSpec
from . import statstore
from .changes import changed_names
from .model import (
    BOOTSTRAP_SUPERUSER_OID,
    FIRST_USER_OID,
    INFORMATION_SCHEMA_OID,
    PG_CATALOG_OID,
    PUBLIC_OID,
    CatalogSnapshot,
    Collation,
    Column,
    Constraint,
    Database,
    Extension,
    Function,
    Index,
    Role,
    Schema,
    Sequence,
    Table,
    Trigger,
    UserType,
)

CATALOG_SPACE = 1
COUNTER_SPACE = 2
NAME_SPACE = 3  # name claims: make concurrent CREATEs of one name conflict (40001)
OID_BLOCK = 64
SEQ_BLOCK = 32
ROWID_BLOCK = 8192  # as PostgreSQL's SEQ_LOG_VALS
_CHANGES_KEPT = 64  # catalog versions whose changed names `keeps` remembers

KINDS: dict[str, type] = {
    "role": Role,
    "database": Database,
    "schema": Schema,
    "table": Table,
    "index": Index,
    "constraint": Constraint,
    "sequence": Sequence,
    "type": UserType,
    "extension": Extension,
    "function": Function,
    "trigger": Trigger,
    "collation": Collation,
}
KIND_OF = {cls: kind for kind, cls in KINDS.items()}
SHARED = ("role", "database")
FIXED_SCHEMAS = (Schema(PG_CATALOG_OID, "pg_catalog"), Schema(INFORMATION_SCHEMA_OID, "information_schema"))


def _name_parent(obj: Any) -> int:
    """The OID a catalog object's name is unique under, as PostgreSQL's unique indexes
    on pg_class, pg_type, pg_trigger...: its table's for an index or a trigger, none for
    a role, database or schema, else its schema's."""
    if isinstance(obj, (Index, Trigger)):
        return obj.table_oid
    if isinstance(obj, (Role, Database, Schema)):
        return 0
    schema_oid: int = obj.schema_oid
    return schema_oid


def _pack(obj: Any) -> bytes:
    fields = {}
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if f.name == "columns" and isinstance(obj, Table):
            v = [dataclasses.astuple(c) for c in v]
        fields[f.name] = v
    return msgpack.packb(fields, use_bin_type=True)


def _unpack(kind: str, payload: bytes) -> Any:
    fields = msgpack.unpackb(payload, raw=False, strict_map_key=False)
    cls = KINDS[kind]
    for k, v in list(fields.items()):
        if isinstance(v, list):
            if k == "columns" and cls is Table:
                fields[k] = tuple(Column(*c) for c in v)
            else:
                fields[k] = tuple(v)
    return cls(**fields)


def obj_key(kind: str, db_oid: int, oid: int) -> bytes:
    """Returns the catalog-space key of one object."""
    return encode_key((kind, db_oid, oid))


def comment_key(db_oid: int, objoid: int, subid: int) -> bytes:
    """Returns the catalog-space key of a COMMENT ON."""
    return encode_key(("comment", db_oid, objoid, subid))


class CatalogStore:
    """The catalog of one query engine: persistence, cached snapshots, OIDs and sequences."""

    def __init__(self, txn_manager: Any) -> None:
        self.tm = txn_manager
        self.version = 1
        self._lock = waits.Lock()  # NB: held across commits (counters): parks on the loop
        self._cache: dict[int, CatalogSnapshot] = {}
        self._unpacked: dict[int, dict[tuple[str, bytes], Any]] = {}  # `_build`'s, per database
        self._shared: tuple[tuple[Database, ...], tuple[Role, ...]] | None = None
        self._oid_next = 0
        self._oid_limit = 0
        self._seq: dict[int, list[int]] = {}
        self._rowids: dict[int, list[int]] = {}  # oid -> [last value, high-water mark, is_called]
        self._stats_version = 0  # the catalog version `optimizer.stats.STATS` was loaded at
        # table OID -> its statistics as this store last loaded them: `optimizer.stats.STATS`
        # is the process's, and another engine in the process (tests, embedded use) may
        # have loaded its own there since; the launcher (`autoanalyze`) reads these
        self.stats: dict[int, Any] = {}
        # Cluster mode: another engine's DDL committed at `min_ts`; a reload must see it.
        self.min_ts = 0
        self._version_lock = threading.Lock()  # NB: not `_lock`: a ZooKeeper thread takes it
        self.publish: Callable[[int], None] | None = None  # tells the other engines (cluster)
        # version -> the names its DDL changed (`changes`; None or absent: anything)
        self._changed: dict[int, frozenset[str] | None] = {}
        # cluster mode: the MasterMind keeps the sequences' marks (`cluster.seqmarks`)
        self.seq_marks: Any = None

    # -- reading -------------------------------------------------------------

    def _rows(self, txn: Any) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for batch in txn.scan(ScanSpec(CATALOG_SPACE, batch_size=4096)):
            rows.extend(batch)
        return rows

    def _build(self, rows: list[tuple[Any, ...]], db_oid: int, version: int) -> CatalogSnapshot:
        per: dict[str, list[Any]] = {k: [] for k in KINDS}
        comments: dict[tuple[int, int], str] = {}
        # NB: the objects of the last build, by their stored bytes: a DDL changes a few
        # rows, so the rest are the same (frozen) objects again, not unpacked anew (365
        # CREATE TABLE ... PARTITION OF made each rebuild unpack every partition's row)
        known = self._unpacked.get(db_oid, {})
        kept: dict[tuple[str, bytes], Any] = {}
        for row in rows:
            kind, dbo = row[0], row[1]
            if kind == "comment":
                if dbo == db_oid:
                    comments[(row[2], row[3])] = row[4]
                continue
            if kind in SHARED or dbo == db_oid:
                key = (kind, row[3])
                obj = known.get(key)
                if obj is None:
                    obj = _unpack(kind, row[3])
                kept[key] = obj
                per[kind].append(obj)
        self._unpacked[db_oid] = kept
        dbs = tuple(sorted(per["database"], key=lambda d: d.oid))
        database = next((d for d in dbs if d.oid == db_oid), None) or Database(db_oid, "?")
        return CatalogSnapshot(
            database=database,
            databases=dbs,
            roles=tuple(sorted(per["role"], key=lambda r: r.oid)),
            schemas=FIXED_SCHEMAS + tuple(sorted(per["schema"], key=lambda s: s.oid)),
            tables=tuple(per["table"]),
            indexes=tuple(per["index"]),
            constraints=tuple(per["constraint"]),
            sequences=tuple(per["sequence"]),
            comments=comments,
            version=version,
            types=tuple(per["type"]),
            extensions=tuple(per["extension"]),
            functions=tuple(per["function"]),
            triggers=tuple(per["trigger"]),
            collations=tuple(per["collation"]),
        )

    def snapshot(self, db_oid: int) -> CatalogSnapshot:
        """Returns the committed catalog of one database (cached until the version changes)."""
        snap = self._cache.get(db_oid)
        if snap is not None and snap.version == self.version:
            return snap
        with self._lock:
            with self._version_lock:
                version, min_ts = self.version, self.min_ts
            txn = self.tm.begin(read_only=True)
            txn.min_snapshot = min_ts
            try:
                rows = self._rows(txn)
                if self._stats_version != version:  # ANALYZE bumps the version too
                    self.stats = statstore.reload(txn)
                    self._stats_version = version
            finally:
                txn.abort()
            snap = self._build(rows, db_oid, version)
            self._cache[db_oid] = snap
            return snap

    def reload_stats(self) -> None:
        """Reloads the optimizer's statistics (`statstore`) without a version bump: cached
        snapshots and plans stay valid. For an automatic ANALYZE whose counts barely moved
        (`autoanalyze.replans`); other query engines see them at their next reload."""
        with self._lock:
            with self._version_lock:
                min_ts = self.min_ts
            txn = self.tm.begin(read_only=True)
            txn.min_snapshot = min_ts
            try:
                self.stats = statstore.reload(txn)
            finally:
                txn.abort()

    def load_snapshot(self, txn: Any, db_oid: int) -> CatalogSnapshot:
        """Returns the catalog as `txn` sees it, its own uncommitted DDL included."""
        return self._build(self._rows(txn), db_oid, -1)

    def bump(self, commit_ts: int | None = None, changed: frozenset[str] | None = None) -> None:
        """Records that a DDL transaction committed (at commit_ts): every cached snapshot is
        stale, here and, once `publish` returns, on the other query engines. `changed`: the
        names of what it changed (`changes_of`), None for anything: the plans that `keeps`."""
        with self._version_lock:
            self._changed[self.version + 1] = changed
            self._changed.pop(self.version + 1 - _CHANGES_KEPT, None)
            self.version += 1
            if commit_ts:  # the reload must see this commit: readable may lag acknowledged
                self.min_ts = max(self.min_ts, commit_ts)
        if self.publish is not None:
            self.publish(commit_ts or 0)

    def changes_of(self, txn: Any, db_oid: int) -> frozenset[str] | None:
        """The names of the catalog objects a DDL transaction about to commit changed (None:
        a change plans may depend on without naming it): for `bump`."""
        return changed_names(self.snapshot(db_oid), self.load_snapshot(txn, db_oid))

    def keeps(self, version: int, deps: frozenset[str] | None) -> bool:
        """True when a plan made at catalog `version` that depends on the names `deps`
        (`plan.deps`) stands at the current version: no DDL since changed one of them."""
        now = self.version
        if deps is None or version < 1 or now - version >= _CHANGES_KEPT:
            return False
        for v in range(version + 1, now + 1):
            names = self._changed.get(v)
            if names is None or not names.isdisjoint(deps):
                return False
        return True

    def remote_bump(self, commit_ts: int) -> None:
        """Another query engine committed DDL at commit_ts: the next read reloads and sees it."""
        with self._version_lock:
            self.min_ts = max(self.min_ts, commit_ts)
            self.version += 1

    # -- writing (inside the caller's transaction) ---------------------------

    def put(self, txn: Any, db_oid: int, obj: Any) -> None:
        """Writes (creates or replaces) one catalog object."""
        kind = KIND_OF[type(obj)]
        dbo = 0 if kind in SHARED else db_oid
        txn.put(CATALOG_SPACE, [(obj_key(kind, dbo, obj.oid), (kind, dbo, obj.oid, _pack(obj)))])
        if kind != "constraint":
            group = "rel" if kind in ("table", "index", "sequence") else kind
            txn.put(NAME_SPACE, [(encode_key((group, dbo, _name_parent(obj), obj.name)),
                                  (obj.oid,))])

    def delete(self, txn: Any, db_oid: int, obj: Any) -> None:
        """Deletes one catalog object."""
        kind = KIND_OF[type(obj)]
        dbo = 0 if kind in SHARED else db_oid
        txn.delete(CATALOG_SPACE, [obj_key(kind, dbo, obj.oid)])

    def set_comment(self, txn: Any, db_oid: int, objoid: int, subid: int, text: str | None) -> None:
        """Sets or (with None) removes the comment of an object."""
        key = comment_key(db_oid, objoid, subid)
        if text is None:
            txn.delete(CATALOG_SPACE, [key])
        else:
            txn.put(CATALOG_SPACE, [(key, ("comment", db_oid, objoid, subid, text))])

    def delete_database_objects(self, txn: Any, db_oid: int) -> list[int]:
        """Deletes every object of a database; returns the KiVi spaces that held its data."""
        spaces = []
        keys = []
        for row in self._rows(txn):
            if row[0] not in SHARED and row[1] == db_oid:
                if row[0] == "comment":
                    keys.append(comment_key(db_oid, row[2], row[3]))
                    continue
                obj = _unpack(row[0], row[3])
                if isinstance(obj, (Table, Index)) and obj.space:
                    spaces.append(obj.space)
                keys.append(obj_key(row[0], db_oid, row[2]))
        if keys:
            txn.delete(CATALOG_SPACE, keys)
        statstore.delete_database(txn, db_oid)
        return spaces

    # -- non-transactional counters -----------------------------------------

    def _autonomous(self, key: tuple[Any, ...], update: Any) -> Any:
        """Reads, updates and commits one counter row in a transaction of its own."""
        k = encode_key(key)
        floor = 0  # NB: a retry must read the winner's commit (another engine's, in a cluster)
        for _ in range(50):
            txn = self.tm.begin()
            txn.min_snapshot = floor
            try:
                old = txn.get(COUNTER_SPACE, [k])[0]
                new = update(None if old is None else old[0])
                txn.put(COUNTER_SPACE, [(k, (new,))])
                txn.commit()
                return new
            except (SerializationFailure, RetryStatement) as e:
                floor = max(floor, txn.min_snapshot, getattr(e, "commit_ts", 0) or 0)
                txn.abort()
            except BaseException:
                txn.abort()
                raise
        raise SerializationFailure("could not advance a catalog counter")

    def allocate_oid(self) -> int:
        """Returns a fresh OID (shared by every kind of object, >= 16384)."""
        with self._lock:
            if self._oid_next >= self._oid_limit:
                limit = self._autonomous(
                    ("oid",), lambda old: (old or FIRST_USER_OID) + OID_BLOCK
                )
                self._oid_next, self._oid_limit = limit - OID_BLOCK, limit
            oid = self._oid_next
            self._oid_next += 1
            return oid

    def allocate_rowids(self, table_oid: int, n: int) -> int:
        """Returns the first of n fresh hidden row ids of a table without a primary key."""
        with self._lock:
            cur = self._rowids.get(table_oid)
            if cur is None or cur[0] + n > cur[1]:
                block = max(n, ROWID_BLOCK)
                limit = self._autonomous(("rowid", table_oid), lambda old: (old or 0) + block)
                cur = [limit - block, limit]
                self._rowids[table_oid] = cur
            start = cur[0]
            cur[0] += n
            return start

    def _seq_state(self, seq: Sequence) -> list[int]:
        st = self._seq.get(seq.oid)
        if st is None:
            if self.seq_marks is not None:
                mark = self.seq_marks.peek(seq.oid)
                row = None if mark is None else (mark,)
            else:
                txn = self.tm.begin(read_only=True)
                try:
                    row = txn.get(COUNTER_SPACE, [encode_key(("seq", seq.oid))])[0]
                finally:
                    txn.abort()
            if row is None:
                st = [seq.start, seq.start - seq.increment, 0]  # nothing handed out yet
            else:
                st = [row[0], row[0], 1]  # resume after the last reserved block
            self._seq[seq.oid] = st
        return st

    def sequence_state(self, seq: Sequence) -> tuple[int, bool]:
        """(last_value, is_called) as `SELECT ... FROM seq` shows them, without advancing."""
        with self._lock:
            st = self._seq_state(seq)
            return st[0], bool(st[2])

    def nextval(self, seq: Sequence) -> int:
        """Returns the sequence's next value (non-transactional, persisted in blocks)."""
        with self._lock:
            st = self._seq_state(seq)
            v = st[0] + seq.increment if st[2] else st[0]
            if v > seq.max_value or v < seq.min_value:
                if not seq.cycle:
                    bound = "maximum" if v > seq.max_value else "minimum"
                    limit = seq.max_value if v > seq.max_value else seq.min_value
                    raise SequenceGeneratorLimitExceeded(
                        f'nextval: reached {bound} value of sequence "{seq.name}" ({limit})'
                    )
                v = seq.min_value if seq.increment > 0 else seq.max_value
            beyond = v > st[1] if seq.increment > 0 else v < st[1]
            if beyond:
                v = self._reserve(seq, v, st)
            st[0], st[2] = v, 1
            return v

    def _reserve(self, seq: Sequence, v: int, st: list[int]) -> int:
        """Reserves the next block of a sequence; returns its first value.

        The block starts at v or just above the stored high-water mark, whichever is
        further: another query engine (or this one before a restart) may have reserved
        blocks since this engine's last one. The read and the write are one transaction,
        so two engines reserving at once conflict and one retries above the other. (With a
        MasterMind, it reserves: `cluster.seqmarks`.)
        """
        inc = seq.increment
        block = self._seq_block(seq)
        for wrapped in (False, True):
            first = [v]

            def update(old: int | None, wrapped: bool = wrapped, v: int = v,
                       first: list[int] = first) -> int:
                start = v
                if old is not None and not wrapped:
                    start = max(v, old + inc) if inc > 0 else min(v, old + inc)
                first[0] = start
                return start + inc * (block - 1)

            if self.seq_marks is not None:
                first[0], hw = self.seq_marks.reserve(seq, v, block, wrapped)
            else:
                hw = self._autonomous(("seq", seq.oid), update)
            if seq.min_value <= first[0] <= seq.max_value or not seq.cycle:
                break
            v = seq.min_value if inc > 0 else seq.max_value  # CYCLE: wrap, as a single engine
        if not seq.min_value <= first[0] <= seq.max_value:
            bound, limit = (("maximum", seq.max_value) if first[0] > seq.max_value
                            else ("minimum", seq.min_value))
            raise SequenceGeneratorLimitExceeded(
                f'nextval: reached {bound} value of sequence "{seq.name}" ({limit})')
        st[1] = hw
        return first[0]

    def _seq_block(self, seq: Sequence) -> int:
        """Values per reservation: the sequence's CACHE, at least SEQ_BLOCK (as PostgreSQL
        logs 32 values ahead). One engine shares its block among its sessions; with several
        engines (cluster mode) each has its own, as a PostgreSQL session with CACHE 32:
        values drawn on two engines interleave out of order (a MasterMind round trip per
        value cost an insert into a serial column ~0.6 ms)."""
        return max(SEQ_BLOCK, seq.cache)

    def reserve_sequence(self, seq: Sequence, n: int) -> None:
        """Reserves the sequence's next n values with one write of its high-water mark, when
        they extend this engine's block (an executemany run about to draw n values; block by
        block, that cost one durable commit per SEQ_BLOCK rows). Values handed out are the
        same as without it; only a restart skips more of them (what was reserved, unused)."""
        inc = seq.increment
        if n <= self._seq_block(seq):
            return
        with self._lock:
            st = self._seq_state(seq)
            last = (st[0] + inc if st[2] else st[0]) + inc * (n - 1)
            hw = st[1]
            if (last <= hw if inc > 0 else last >= hw) or not \
                    seq.min_value <= last <= seq.max_value:
                return
            fresh = seq.start - inc  # NB: the stored mark when nothing was ever reserved

            def update(old: int | None) -> int:
                mine = (fresh if old is None else old) == hw  # nobody reserved past us
                return last if mine else (fresh if old is None else old)

            if self.seq_marks is not None:
                new = self.seq_marks.extend(seq, hw, fresh, last)
            else:
                new = self._autonomous(("seq", seq.oid), update)
            if new == last:
                st[1] = last

    def sequence_mark(self, seq: Sequence) -> tuple[int, int]:
        """The sequence's (last value, is_called), for `rewind_sequence`."""
        with self._lock:
            st = self._seq_state(seq)
            return st[0], st[2]

    def rewind_sequence(self, seq: Sequence, mark: tuple[int, int], last: int) -> bool:
        """Puts the sequence back to `mark` if `last` is still the last value handed out
        (nobody took one since); the reserved block stays reserved. An executemany run
        replayed row by row (`sql.batchexec`) hands out the values the row path would."""
        with self._lock:
            st = self._seq_state(seq)
            if st[0] != last or not st[2]:
                return False
            st[0], st[2] = mark
            return True

    def setval(self, seq: Sequence, value: int, is_called: bool = True) -> int:
        """Sets the sequence's current value (persisted at once)."""
        with self._lock:
            st = self._seq_state(seq)
            st[0], st[2] = value, int(is_called)
            hw = value if is_called else value - seq.increment
            if self.seq_marks is not None:
                self.seq_marks.set(seq, hw)
            else:
                self._autonomous(("seq", seq.oid), lambda _old: hw)
            st[1] = hw
            return value

    def forget_sequence(self, oid: int) -> None:
        """Drops the cached state of a dropped sequence."""
        with self._lock:
            self._seq.pop(oid, None)

    # -- bootstrap -----------------------------------------------------------

    def bootstrap(self) -> None:
        """Creates the initial roles, databases and public schemas on the first start."""
        txn = self.tm.begin()
        try:
            rows = self._rows(txn)
            if any(r[0] == "database" for r in rows):
                txn.abort()
                return
            self.put(txn, 0, Role(BOOTSTRAP_SUPERUSER_OID, "cumulo", superuser=True,
                                  createdb=True, createrole=True))
            self.put(txn, 0, Role(BOOTSTRAP_SUPERUSER_OID + 1, "postgres", superuser=True,
                                  createdb=True, createrole=True))
            for oid, name in ((5, "postgres"), (16383, "cumulo")):
                self.put(txn, 0, Database(oid, name))
                self.put(txn, oid, Schema(PUBLIC_OID, "public"))
            txn.commit()
        except BaseException:
            txn.abort()
            raise
        self.bump()
