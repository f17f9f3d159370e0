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

The function lives with the transaction layer because it reads the LTM's
wait-for graph; it registers itself in the SQL function registry when this
module is imported (the function package imports it).
"""

from __future__ import annotations

from typing import Any

from ..pgtypes import oids as T
from ..sql.functions.registry import register


def _ltm(engine: Any) -> Any:
    tm = getattr(engine, "tm", None)
    return getattr(tm, "ltm", tm)


def session_is_blocked(sessions: list[Any], ltm: Any, pid: int, pids: list[int]) -> bool:
    """Tells whether the session with backend `pid` waits for a lock held by one of `pids`."""
    by_pid = {getattr(s, "backend_pid", None): s for s in sessions}
    target = by_pid.get(pid)
    txn = getattr(target, "txn", None)
    waiting_for = getattr(ltm, "waiting_for", None)
    if txn is None or waiting_for is None:
        return False
    holder = waiting_for(txn)
    if holder is None:
        return False
    for p in pids:
        s = by_pid.get(p)
        if s is not None and p != pid and getattr(getattr(s, "txn", None), "tid", None) == holder:
            return True
    return False


@register("pg_isolation_test_session_is_blocked", args=[T.INT4, T.ARRAY_OF[T.INT4]],
          returns=T.BOOL, needs_context=True, volatile=True, oid=3378)
def pg_isolation_test_session_is_blocked(ctx: Any, pid: int, pids: list[int | None]) -> bool:
    """PostgreSQL's isolation-test probe (see the module docstring)."""
    engine = getattr(getattr(ctx, "session", None), "engine", None)
    if engine is None or not hasattr(engine, "sessions"):
        return False
    return session_is_blocked(engine.sessions(), _ltm(engine), pid,
                              [p for p in pids if p is not None])
