"""What the pg_catalog views read of the server's sessions, as protocols.

pg_stat_activity, pg_stat_database, pg_prepared_statements, pg_cursors and
pg_settings list sessions and read their state through the function context
(`functions.registry.FunctionContext.session`). The function library and
pg_catalog sit below the session layer (`sql.session` imports them, not the
other way round), so this module names exactly what they read; `SQLSession`,
its `Settings`, `SQLEngine` and the transaction layer's `Transaction` satisfy
these protocols, and mypy checks that where a session is handed over
(`functx.SessionFunctions.session`). A function context without a session (the
unit tests' own) gives `None`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Protocol


class LockWaits(Protocol):
    """The transaction manager's row-lock waits."""

    def waiting_for(self, txn: Any) -> int | None:
        """The id of the transaction `txn` waits for (a row lock), or None."""


class TxnView(Protocol):
    """A session's open transaction, as pg_stat_activity shows its xid and xmin."""

    tid: int
    isolation: str
    done: bool

    @property
    def has_writes(self) -> bool: ...

    @property
    def start_ts(self) -> int | None: ...

    @property
    def ltm(self) -> LockWaits: ...


class SettingsView(Protocol):
    """A session's settings: every row of SHOW ALL, and what the client sent at startup."""

    session_defaults: dict[str, str]

    def all_rows(self) -> list[tuple[str, str, str]]: ...


class NotifierView(Protocol):
    """LISTEN/NOTIFY's registry of listening sessions."""

    def channels_of(self, session: Any) -> list[str]: ...


class EngineView(Protocol):
    """The server: its open sessions, and LISTEN's registry once a session has listened."""

    @property
    def notifier(self) -> NotifierView | None: ...

    def sessions(self) -> Sequence[SessionView]: ...


class SessionView(Protocol):
    """One session, as the activity, statistics and per-session views read it."""

    user: str
    database: str
    backend_pid: int
    running: bool  # from a statement's start until its Query or Sync ends
    terminated: bool  # pg_terminate_backend ended it
    txn_started_at: dt.datetime | None
    client_addr: str | None
    client_port: int | None
    backend_start: float
    query_start: float | None
    state_change: float
    last_query: str
    wait_event: tuple[str, str] | None  # what pg_stat_activity shows a waiting function do

    @property
    def engine(self) -> EngineView: ...

    @property
    def txn(self) -> TxnView | None: ...

    @property
    def settings(self) -> SettingsView: ...

    @property
    def prepared_sql(self) -> dict[str, Any]: ...

    @property
    def prepared_info(self) -> Any: ...

    @property
    def cursors(self) -> dict[str, Any]: ...

    @property
    def transaction_status(self) -> str: ...

    def get_setting(self, name: str) -> str | None: ...

    def notice(self, message: str, severity: str = "NOTICE", sqlstate: str = "00000",
               detail: str | None = None) -> None: ...

    def notify(self, channel: str, payload: str) -> None:
        """NOTIFY: now outside a transaction block, else at COMMIT."""

    def cancel(self) -> None:
        """pg_cancel_backend: cancels the running statement."""

    def terminate(self) -> None:
        """pg_terminate_backend: ends the session (57P01) at once or at its next message."""
