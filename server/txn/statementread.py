"""A read-only statement outside any transaction block: a snapshot and nothing else.

An autocommit `SELECT abalance FROM pgbench_accounts WHERE aid = $1` under READ
COMMITTED is a whole transaction of one read. A `Transaction` for it builds a
write set, a savepoint token and a commit that finds nothing to log, sequence or
release. None of that can matter to a statement that writes nothing and holds no
row locks, so `StatementRead` keeps only what a read needs:

- the snapshot, taken as `LocalTxnManager.take_snapshot` takes any other (after
  the session's own last commit, registered as active so that garbage collection
  cannot pass it while the read runs);
- cancel: a CancelRequest or statement_timeout wakes a wait for the session's
  snapshot as it wakes a transaction's;
- its end, which unregisters the snapshot and counts a read-only commit.

The SQL layer uses it only for a statement whose plan is nothing but primary-key
gets (`sql/plan/pointread.py`), outside a block, with no transaction open and
READ COMMITTED as the isolation: there the next statement takes a new snapshot
anyway. Anything else keeps the `Transaction`. Most such reads do not even need
this object: when the session's last commit is readable, `LocalTxnManager.read_rows`
reads at the newest snapshot in one call with no read id registered (garbage
collection is detected instead of prevented), and only a read that must wait, or
that a collection overlapped, comes here.

    >>> class Kivi:
    ...     def get_rows(self, space, ts, keys):
    ...         return [(ts, k) for k in keys]
    >>> class Ltm:
    ...     kivi = Kivi()
    ...     ended = []
    ...     def new_tid(self): return 7
    ...     def take_snapshot(self, txn): return 42
    ...     def end_read(self, tid): self.ended.append(tid)
    >>> r = StatementRead(Ltm(), session=None)
    >>> r.get(3, [b"k"])
    [(42, b'k')]
    >>> r.start_ts, len(r.ltm.ended)
    (42, 0)
    >>> r.commit(); r.abort(); r.ltm.ended  # ends once
    [7]
"""

from __future__ import annotations

from typing import Any

from ..errors import ReadOnlySQLTransaction
from ..kivi.api import Row


class StatementRead:
    """A one-statement READ COMMITTED read: a registered snapshot, reads, and `end`."""

    __slots__ = ("ltm", "tid", "session", "_ts", "cancelled", "done")

    isolation = "read committed"
    read_only = True
    has_writes = False
    min_snapshot = 0  # NB: for take_snapshot: no retried statement to wait for
    reads = None  # no SERIALIZABLE read set
    locked: dict[tuple[int, bytes], int] = {}  # noqa: RUF012 - never written: no row locks
    lock_timeout = None

    def __init__(self, ltm: Any, session: Any) -> None:
        self.ltm = ltm
        self.tid = ltm.new_tid()
        self.session = session
        self._ts: int | None = None
        self.cancelled = False
        self.done = False

    @property
    def start_ts(self) -> int | None:
        """The snapshot timestamp, None before the first read."""
        return self._ts

    def new_statement(self) -> None:
        """Nothing to drop: the read is one statement."""

    def get(self, space: int, keys: list[bytes]) -> list[Row | None]:
        """Reads rows by key at the snapshot (taken at the first read)."""
        ts = self._ts
        if ts is None:
            ts = self._ts = self.ltm.take_snapshot(self)
        return self.ltm.kivi.get_rows(space, ts, keys)

    def put(self, space: int, items: list[tuple[bytes, Row]]) -> None:
        """A read writes nothing (the SQL layer never routes a write here)."""
        raise ReadOnlySQLTransaction("cannot write in a read-only statement")

    def cancel(self) -> None:
        """Wakes a wait for the session's snapshot (57014), from another thread."""
        self.ltm.cancel(self)

    def end(self) -> None:
        """Unregisters the snapshot; safe to call twice."""
        if not self.done:
            self.done = True
            self.ltm.end_read(self.tid)

    def commit(self, durable: bool = True) -> None:
        """Ends the read (nothing to make durable)."""
        self.end()

    def abort(self) -> None:
        """Ends the read (nothing to undo)."""
        self.end()
