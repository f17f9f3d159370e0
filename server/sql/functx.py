"""The `FunctionContext` a session hands to SQL functions (`functions.registry`).

Functions such as now(), current_setting(), set_config(), nextval() and the
pg_catalog views need a little of the session: its catalog, settings, user,
sequences. They get this narrow view of it rather than the session itself,
so the function library depends on a small protocol, not on session internals.
Only the session imports this module, so it sits at the session's level: a user
function's body runs through the statement router and the PL/pgSQL runner,
which it imports (the expression evaluator reaches them through this context,
never by importing them).
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import TYPE_CHECKING, Any

from .catalog.model import CatalogSnapshot, Function
from .plpgsql.functions import call
from .plpgsql.interp import Interp
from .plpgsql.triggers import TriggerCall, run_trigger, trigger_depth
from .statement import analyse_tree

if TYPE_CHECKING:
    from .session import SQLSession


class SessionFunctions:
    """The `FunctionContext` handed to SQL functions: a thin view of one session."""

    __slots__ = ("_s",)

    def __init__(self, session: SQLSession) -> None:
        self._s = session

    @property
    def catalog(self) -> CatalogSnapshot:
        """The catalog the running statement sees."""
        return self._s.catalog()

    @property
    def user(self) -> str:
        """The session user."""
        return self._s.user

    @property
    def database(self) -> str:
        """The current database's name."""
        return self._s.database

    @property
    def backend_pid(self) -> int:
        """The session's backend pid."""
        return self._s.backend_pid

    @property
    def statement_timestamp(self) -> dt.datetime:
        """The transaction's start time."""
        return self._s.statement_timestamp

    @property
    def cancel_event(self) -> threading.Event:
        """Set when the running statement is cancelled (CancelRequest, statement_timeout)."""
        return self._s._cancel

    def call_user_function(self, fn: Function, args: tuple[Any, ...], context: str = "") -> Any:
        """Runs a CREATE FUNCTION function's body (see `plpgsql.functions`; `context`:
        `expr.udfinline`'s answer for the call)."""
        return call(self._s, fn, args, analyse_tree, context)

    def query(self, sql: str) -> tuple[list[tuple[Any, ...]], list[Any]]:
        """Runs a query for a function that is given one as text (tablefunc's crosstab, as
        its SPI_execute): its rows and columns (`.name`, `.type_oid`)."""
        rows, columns, _ = Interp(self._s, analyse_tree).run_sql(sql)
        return rows, columns

    def run_trigger(self, fn: Function, call: TriggerCall) -> list[Any] | None:
        """Runs a trigger function for one firing (see `plpgsql.triggers`)."""
        return run_trigger(self._s, fn, call, analyse_tree)

    @property
    def trigger_depth(self) -> int:
        """pg_trigger_depth(): the nesting of running trigger functions."""
        return trigger_depth()

    @property
    def session(self) -> SQLSession:
        """The session itself (for pg_catalog views that list sessions)."""
        return self._s

    def get_setting(self, name: str) -> str | None:
        """Returns a setting's value."""
        return self._s.get_setting(name)

    @property
    def tz(self) -> dt.tzinfo:
        """The session's TimeZone as a tzinfo (what date_trunc, extract, to_char work in)."""
        return self._s.settings.tz

    def set_setting(self, name: str, value: str, is_local: bool) -> str:
        """Sets a setting."""
        return self._s.set_setting(name, value, is_local)

    def search_path(self) -> list[str]:
        """The effective search_path."""
        return self._s.search_path()

    def nextval(self, seq_oid: int) -> int:
        """Advances a sequence."""
        return self._s.nextval(seq_oid)

    def sequence_state(self, seq_oid: int) -> tuple[int, bool]:
        """A sequence's (last_value, is_called)."""
        return self._s.sequence_state(seq_oid)

    def currval(self, seq_oid: int) -> int:
        """The session's last value of a sequence."""
        return self._s.currval(seq_oid)

    def setval(self, seq_oid: int, value: int, is_called: bool) -> int:
        """Sets a sequence's value."""
        return self._s.setval(seq_oid, value, is_called)
