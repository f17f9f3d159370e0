"""`pg_isolation_test_session_is_blocked(pid, pids[])`: lets PostgreSQL's isolationtester drive Cumulo.

isolationtester (src/test/isolation) prepares

    SELECT pg_catalog.pg_isolation_test_session_is_blocked($1, '{pids}')

and calls it while a step has not returned, to print `<waiting ...>` once the
step's session waits for a lock held by another session of the test. In
Cumulo the only such wait is a writer blocked behind an active writer of the
same key, inside the LTM (`LocalTxnManager.waiting_for`), so the function
answers whether `pid`'s transaction waits for a transaction owned by one of
`pids`. A session waiting for its own last commit to become visible (session
consistency) waits for no other session and is not "blocked" here, as a
PostgreSQL backend waiting on I/O is not.

Serializable transactions never wait for a safe snapshot in Cumulo (DEFERRABLE
is accepted and ignored: every snapshot is safe under write-snapshot
isolation), so that part of PostgreSQL's function always answers false.

The function reads the wait-for graph through the session's open transaction
(`sessionview.TxnView.ltm`, a `LockWaits`), so the transaction layer knows
nothing of SQL functions or sessions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ...pgtypes import oids as T
from ..sessionview import TxnView
from .registry import FunctionContext, register


class BlockableSession(Protocol):
    """What the probe reads of a session: its backend pid and its open transaction."""

    @property
    def backend_pid(self) -> int: ...

    @property
    def txn(self) -> TxnView | None: ...


def session_is_blocked(sessions: Sequence[BlockableSession], pid: int, pids: list[int]) -> bool:
    """Tells whether the session with backend `pid` waits for a lock held by one of `pids`."""
    by_pid = {s.backend_pid: s for s in sessions}
    target = by_pid.get(pid)
    txn = target.txn if target is not None else None
    if txn is None:
        return False
    holder = txn.ltm.waiting_for(txn)
    if holder is None:
        return False
    for p in pids:
        s = by_pid.get(p)
        if s is None or p == pid:
            continue
        other = s.txn
        if other is not None and other.tid == holder:
            return True
    return False


@register("pg_isolation_test_session_is_blocked", args=[T.INT4, T.ARRAY_OF[T.INT4]],
          returns=T.BOOL, needs_context=True, volatile=True, oid=3378)
def pg_isolation_test_session_is_blocked(ctx: FunctionContext, pid: int,
                                         pids: list[int | None]) -> bool:
    """PostgreSQL's isolation-test probe (see the module docstring)."""
    if ctx.session is None:  # a context outside any session (unit tests): nothing waits
        return False
    return session_is_blocked(ctx.session.engine.sessions(), pid,
                              [p for p in pids if p is not None])
