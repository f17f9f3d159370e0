"""The SQL engine: pgwire's `Engine`, one per query-engine process.

It owns what sessions share: the transaction manager, the persistent catalog
(`CatalogStore`, bootstrapped on the first start with the roles `cumulo` and
`postgres`, the databases `cumulo` and `postgres`, and a `public` schema in
each), and the set of open sessions. Everything per-client lives in
`SQLSession`.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..errors import InvalidAuthorizationSpecification, InvalidCatalogName
from ..pgwire.backend import RoleInfo
from . import direct  # noqa: F401  (registers the direct API's functions)
from .autoanalyze import AutoAnalyze
from .catalog.statstore import STATS_SPACE
from .catalog.store import CATALOG_SPACE, COUNTER_SPACE, NAME_SPACE, CatalogStore
from .largeobj import catalog, functions  # noqa: F401  (register the lo_* functions, catalogs)
from .session import SQLSession

if TYPE_CHECKING:
    from .notify import Notifier


# os pid -> the counter of backend pids: one per process, shared by its engines, so that
# two engines in one process (embedded use, tests) never give two sessions one pid (the
# per-session tables keyed by it: cumulo_columnar_runs, cancel keys); keyed by the os pid
# so that a forked worker starts its own
_PIDS: dict[int, Iterator[int]] = {}


def _backend_pids() -> Iterator[int]:
    pid = os.getpid()
    counter = _PIDS.get(pid)
    if counter is None:
        counter = _PIDS[pid] = itertools.count((pid % 1000) * 1000 + 1)
    return counter


class SQLEngine:
    """Implements `pgwire.backend.Engine` over a `TxnManager`."""

    def __init__(self, txn_manager: Any) -> None:
        self.tm = txn_manager
        # NB: catalog reads are not SERIALIZABLE reads: two DDL transactions that each
        # load the catalog must not fail each other (SERIALIZABLE.md, "catalog reads")
        txn_manager.untrack_reads(frozenset({CATALOG_SPACE, COUNTER_SPACE, NAME_SPACE,
                                             STATS_SPACE}))
        self.store = CatalogStore(txn_manager)
        self.store.bootstrap()
        self.autoanalyze = AutoAnalyze(self.store, txn_manager)  # started by the first write
        self._lock = threading.Lock()
        self._sessions: set[SQLSession] = set()
        self._pids = _backend_pids()
        self.notifier: Notifier | None = None  # LISTEN/NOTIFY, created on first use (notify.py)

    def role(self, name: str) -> RoleInfo | None:
        """Looks up a role for authentication."""
        for db in self.store.snapshot(0).roles:
            if db.name == name:
                return RoleInfo(db.name, db.login, db.superuser, db.password)
        return None

    def open_session(self, user: str, database: str, options: dict[str, str]) -> SQLSession:
        """Opens a session on a database (3D000 if it does not exist)."""
        snap = self.store.snapshot(0)
        db = next((d for d in snap.databases if d.name == database), None)
        if db is None:
            raise InvalidCatalogName(f'database "{database}" does not exist')
        role = next((r for r in snap.roles if r.name == user), None)
        if role is None:
            raise InvalidAuthorizationSpecification(f'role "{user}" does not exist')
        session = SQLSession(self, user, db, options, next(self._pids))
        session.settings.values["is_superuser"] = "on" if role.superuser else "off"
        with self._lock:
            self._sessions.add(session)
        return session

    def session_closed(self, session: SQLSession) -> None:
        """Forgets a closed session."""
        with self._lock:
            self._sessions.discard(session)

    def sessions(self) -> list[SQLSession]:
        """The open sessions (for pg_stat_activity)."""
        with self._lock:
            return list(self._sessions)

    def load(self) -> int:
        """The number of open sessions."""
        return len(self._sessions)

    def close(self) -> None:
        """Rolls back open sessions, checkpoints and stops the transaction manager."""
        self.autoanalyze.stop()
        for s in self.sessions():
            s.abort_txn()
        try:
            self.tm.checkpoint()
        finally:
            self.tm.close()
