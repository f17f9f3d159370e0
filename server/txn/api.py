"""The narrow interface between the SQL layer and the transaction layer.

The SQL layer sees a `TxnManager` (one per query engine: the local transaction
manager, LTM) and the `Txn` objects it hands out. Everything is synchronous and
thread-safe: each session executes its statements in its own worker thread, so
a writer that must wait for another writer simply blocks its thread (with
deadlock detection, 40P01) and a commit blocks until its redo record is durable.

Snapshot isolation, as in PostgreSQL:

- The snapshot is taken lazily, at the first `get`/`scan`/`put`/`delete`, not at
  `begin`. Under READ COMMITTED the SQL layer calls `new_statement()` before each
  statement, which drops the snapshot so that the next read takes a fresh one.
- Reads see the newest version committed at or before the snapshot, merged with
  the transaction's own private writes.
- Writes go to a private write set. Writing a key that another active
  transaction has written blocks until that one ends; if it committed (or if
  the key was committed after our snapshot), REPEATABLE READ and SERIALIZABLE
  raise 40001 and READ COMMITTED raises `RetryStatement`, on which the SQL layer
  rolls back to the statement's savepoint, takes a new snapshot and reruns the
  statement (UPDATE and DELETE over the rows the first snapshot matched), as
  PostgreSQL's EvalPlanQual does. SELECT FOR UPDATE avoids the rerun: it
  `lock_row`s the rows it found, which under READ COMMITTED locks a changed row
  in its newest version and says so, and rechecks only those in `fresh_snapshot`.
- Session consistency: after a session's update commit at c, its next snapshot
  waits until the snapshot server covers c.

Keys are `kivi.keycodec.encode_key(tuple)` bytes; rows are tuples; a `space`
is a table's or an index's id (see `kivi.api`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import SQLError
from ..kivi.api import IR, AggSpec, Row


class RetryStatement(SQLError):
    """READ COMMITTED met a concurrently committed write: rerun the statement on a new snapshot.

    `space`, `key` and `commit_ts` name the row that was updated concurrently, so a
    caller can instead do what PostgreSQL's EvalPlanQual does: `Txn.lock` that row,
    recheck the statement's predicate on its newest version, and carry on. `locked`: the
    transaction holds that row's lock already, taken in its newest version (kept across
    the rerun by `Txn.rollback_to(..., keep_locks=True)`; if the rerun finds the row
    deleted, the caller drops the lock, `Txn.unlock_row`, as PostgreSQL locks no row then).
    """

    sqlstate = "40001"
    space: int | None = None
    key: bytes | None = None
    commit_ts: int | None = None
    locked = False


# Spaces a READ ONLY transaction may still write, registered by their owners: large
# objects (PostgreSQL 15 lets lo_create / lowrite / lo_unlink run in one, and so
# does Cumulo; a table's rows stay 25006).
READ_ONLY_EXEMPT: set[int] = set()


@dataclass(frozen=True)
class ScanSpec:
    """What `Txn.scan` reads: the fields mean what they mean in `kivi.api.Scan`."""

    space: int
    lo: bytes | None = None
    hi: bytes | None = None
    projection: tuple[int, ...] | None = None
    filter: IR | None = None
    limit: int | None = None
    aggregate: AggSpec | None = None
    with_keys: bool = False
    reverse: bool = False
    batch_size: int = 1024
    params: Sequence[Any] = ()  # the values of the filter's ("param", n) leaves


class Txn(Protocol):
    """One transaction. Created by `TxnManager.begin`; finished by `commit` or `abort`."""

    isolation: str  # "read committed" | "repeatable read" | "serializable"
    read_only: bool
    locks_first: bool  # a keyed READ COMMITTED write may lock its rows before writing them

    @property
    def start_ts(self) -> int | None:
        """The snapshot timestamp, or None while no statement has touched data."""

    @property
    def has_writes(self) -> bool: ...

    def new_statement(self) -> None:
        """Marks a statement boundary; READ COMMITTED drops its snapshot here."""

    def get(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """Reads rows by key: own writes first, then the snapshot."""

    def get_unread(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """`get` that a SERIALIZABLE transaction does not record as a read: an INSERT's
        primary-key check, whose write of the same keys is conflict-checked anyway (and
        PostgreSQL takes no SIREAD lock for it, so a rival's insert is 23505, not 40001)."""

    def scan(self, spec: ScanSpec) -> Iterator[list[Row]]:
        """Yields batches of rows in key order (or partial-aggregate rows), own writes merged in."""

    def put(self, space: int, items: list[tuple[bytes, Row]]) -> None:
        """Inserts or replaces rows in the private write set (conflict-checked)."""

    def put_bulk(self, space: int, keys: list[bytes], rows: list[Row],
                 cols: list[list[Any]] | None = None) -> None:
        """`put` of a batch as parallel lists of keys and rows (a repeated key: its last row);
        `cols`, when given, are the same rows as columns (the redo record uses them)."""

    def delete(self, space: int, keys: list[bytes]) -> None:
        """Deletes rows (tombstones) in the private write set (conflict-checked)."""

    def lock(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """Takes the write locks of keys (SELECT ... FOR UPDATE; EvalPlanQual) and returns the rows.

        It blocks behind active writers as `put` does. READ COMMITTED returns each
        key's newest committed version (own writes first), so a concurrently updated
        row can be rechecked and then written; REPEATABLE READ and SERIALIZABLE raise
        40001 for a key committed after the snapshot and otherwise return the snapshot's rows.
        Locks are held until the transaction ends.
        """

    def lock_row(self, space: int, keys: list[bytes], mode: int = 3, wait: int = 0,
                 latest: bool = False) -> int:
        """Locks rows in a PostgreSQL row-lock mode (`rowlocks`: KEY_SHARE 0, SHARE 1,
        NO_KEY_UPDATE 2, UPDATE 3) for SELECT ... FOR <mode>, waiting as `wait` says
        (`rowlocks.WAIT`, `NOWAIT`: 55P03, `SKIP`). Returns 0 when locked as the snapshot
        saw them; -1 when SKIP met a holder (nothing locked); under READ COMMITTED, the
        commit ts of a newer version it locked instead (recheck it in `fresh_snapshot`).
        REPEATABLE READ and SERIALIZABLE raise 40001 for a row changed since the snapshot,
        unless `latest`: then keys are locked in their newest version at any isolation
        (waiting for their writers; returns 0), so that txn may write them. An INSERT
        uses it for a key whose row a concurrent transaction deleted: PostgreSQL's
        inserter finds that entry dead and succeeds at REPEATABLE READ too."""

    def unlock_row(self, space: int, keys: list[bytes]) -> None:
        """Drops the row locks `lock_row` took on keys that txn has not written: READ
        COMMITTED's recheck found those rows deleted, and PostgreSQL locks no deleted row
        (the caller passes only keys it locked afresh)."""

    def fresh_snapshot(self, latest: bool = False) -> AbstractContextManager[int]:
        """A block that reads at a new snapshot (covering the rows `lock_row` locked in
        newer versions; with `latest`, every applied commit), then at the statement's
        snapshot again."""

    def savepoint(self) -> Any:
        """Returns a token for the current write-set state (used for statement and SQL savepoints)."""

    def rollback_to(self, token: Any, keep_locks: bool = False) -> None:
        """Undoes the writes made since `savepoint()` returned `token` (and drops the row
        locks taken since, unless `keep_locks`)."""

    def commit(self, durable: bool = True) -> int | None:
        """Makes the writes durable and visible; returns the commit ts (None if read-only).
        `durable=False` (synchronous_commit = off) returns once the redo record is written,
        before its fsync: a crash of the machine may lose it, a crash of the server not."""

    def abort(self) -> None:
        """Discards the transaction. Safe to call twice."""

    def claim_space(self, space: int) -> None:
        """Declares `space` created by this transaction (a new table's, TRUNCATE's or a
        rewrite's): nobody else sees it before the commit, so its writes need no
        conflict checks (bulk loads). Only for spaces allocated by this transaction."""

    # seconds a write or lock may wait before 55P03 (None: no limit); the session sets it
    lock_timeout: float | None

    def cancel(self) -> None:
        """From another thread: makes the current statement's waits raise 57014
        (`new_statement` clears it)."""


class TxnManager(Protocol):
    """The local transaction manager, plus the few non-transactional services the SQL layer needs."""

    def begin(
        self,
        *,
        isolation: str = "read committed",
        read_only: bool = False,
        session: Any = None,
    ) -> Txn:
        """Begins a transaction. `session` is an opaque key for session consistency."""

    def statement_read(self, session: Any = None) -> Any:
        """A one-statement READ COMMITTED read outside a block (`statementread.StatementRead`):
        `get` at a snapshot taken as `begin`'s would be, then `end`; no write set or commit."""

    def read_rows(self, session: Any, space: int, keys: list[bytes]) -> list[Any] | None:
        """`statement_read`'s get and end in one call for a read that need not wait, with no
        read id registered; None (nothing done) when the caller must take a `statement_read`."""

    def drop_space(self, space: int) -> None:
        """Drops a space's data for good (after a committed DROP TABLE / TRUNCATE)."""

    def untrack_reads(self, spaces: frozenset[int]) -> None:
        """Names the spaces whose reads SERIALIZABLE does not validate (the catalog's:
        see `readset`)."""

    def checkpoint(self) -> bool:
        """Checkpoints storage and trims the redo log; False if storage keeps no files (the
        log is then the only copy and stays)."""

    def close(self) -> None:
        """Flushes and stops every component."""
