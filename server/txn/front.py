"""What every transaction manager the SQL layer holds does the same way: delegate to its LTM.

The embedded manager (every role in process) and the cluster manager (roles
over RPC) differ in how they wire and checkpoint the components; beginning a
transaction, dropping a space, collecting garbage and reporting counters all
go through the local transaction manager alike, so they live here once.
"""

from __future__ import annotations

from typing import Any

from ..kivi.api import Row
from .statementread import StatementRead
from .transaction import Transaction


class LtmFront:
    """A transaction manager's calls that go straight to `self.ltm` (and `self.log`)."""

    ltm: Any
    log: Any

    def begin(
        self, *, isolation: str = "read committed", read_only: bool = False, session: Any = None
    ) -> Transaction:
        """Begins a transaction (snapshot taken lazily at its first data access)."""
        return self.ltm.begin(isolation=isolation, read_only=read_only, session=session)

    def statement_read(self, session: Any = None) -> StatementRead:
        """A one-statement READ COMMITTED read outside a block: a snapshot and nothing else
        (`statementread`)."""
        return StatementRead(self.ltm, session)

    def read_rows(self, session: Any, space: int, keys: list[bytes]) -> list[Row | None] | None:
        """`statement_read`'s get and end in one call, no read id registered; None when the
        caller must take a `statement_read` (`LocalTxnManager.read_rows`)."""
        return self.ltm.read_rows(session, space, keys)

    def drop_space(self, space: int) -> None:
        """Drops a space's data for good (logged, so that replay cannot resurrect it)."""
        self.ltm.drop_space(space)

    def untrack_reads(self, spaces: frozenset[int]) -> None:
        """`TxnManager.untrack_reads`: the LTM's read sets skip these spaces."""
        self.ltm.untracked_spaces = spaces

    def collect(self) -> int:
        """Garbage-collects old versions now; returns the low-water mark used."""
        return self.ltm.collect()

    @property
    def stats(self) -> dict[str, Any]:
        """Returns the LTM's counters, plus the snapshot and the loggers' fsyncs."""
        out = dict(self.ltm.stats)
        out["snapshot"] = self.ltm.snapshots.snapshot
        out["fsyncs"] = self.log.fsyncs if self.log is not None else 0
        return out
