"""The registry of SQL functions: one table that the expression compiler resolves calls against.

Each function is registered with its argument and return types (PostgreSQL
OIDs). The compiler picks an overload by the argument types, casts the
arguments, and calls `impl` with Python values. Functions are plain Python so
that compiled expressions call them directly, with no per-row dispatch.

    @register("lower", args=[TEXT], returns=TEXT)
    def lower(s): return s.lower()

`strict` functions return NULL for any NULL argument without calling `impl`
(PostgreSQL's STRICT). `needs_context` functions get a `FunctionContext` as
their first argument (catalog, settings, sequences, the transaction's clock).
`set_returning` functions return an iterable of values (one column) or of
tuples (several `out_columns`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ...pgtypes import oids as T
from ..sessionview import SessionView

ANY = 2276  # pgtypes.oids.ANY: matches every argument type


@dataclass(frozen=True)
class FunctionDef:
    name: str
    impl: Callable[..., Any]
    args: tuple[int, ...] | None  # None: variadic, any types
    returns: int | Callable[[list[int]], int]  # a fixed OID, or computed from the arg OIDs
    strict: bool = True
    volatile: bool = False  # never constant-folded (now(), random(), nextval())
    needs_context: bool = False
    set_returning: bool = False
    out_columns: tuple[tuple[str, int], ...] | None = None  # for set-returning functions
    oid: int = 0  # pg_proc.oid, for regproc
    out_column: str | None = None  # a single OUT / TABLE column's name: its name in FROM


FUNCTIONS: dict[str, list[FunctionDef]] = {}


def _void_result(impl: Callable[..., Any]) -> Callable[..., Any]:
    """A void function's value is '' (void's text output), not NULL: `pg_sleep(0)::text`."""

    @functools.wraps(impl)
    def call(*args: Any, **kwargs: Any) -> str:
        impl(*args, **kwargs)
        return ""

    return call


def register(
    name: str,
    *,
    args: list[int] | None,
    returns: int | Callable[[list[int]], int],
    strict: bool = True,
    volatile: bool = False,
    needs_context: bool = False,
    set_returning: bool = False,
    out_columns: list[tuple[str, int]] | None = None,
    oid: int = 0,
    out_column: str | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers `impl` under `name` (lower case, without schema) as one overload."""

    def wrap(impl: Callable[..., Any]) -> Callable[..., Any]:
        FUNCTIONS.setdefault(name, []).append(
            FunctionDef(
                name,
                _void_result(impl) if returns == T.VOID and not set_returning else impl,
                None if args is None else tuple(args),
                returns,
                strict,
                volatile,
                needs_context,
                set_returning,
                None if out_columns is None else tuple(out_columns),
                oid,
                out_column,
            )
        )
        return impl

    return wrap


class FunctionContext(Protocol):
    """What context-needing functions may use; the SQL session provides it.

    Optional extras, read with getattr when present: `txid` (the transaction's id, for
    txid_current()).
    """

    @property
    def cancel_event(self) -> threading.Event:
        """Set when the running statement is cancelled (CancelRequest, statement_timeout)."""

    @property
    def session(self) -> SessionView | None:
        """The session, for the views that list sessions (pg_stat_activity) or read its
        prepared statements and cursors; None outside a session."""

    @property
    def catalog(self) -> Any:
        """The `catalog.model.CatalogSnapshot` the statement runs against."""

    @property
    def user(self) -> str: ...

    @property
    def database(self) -> str: ...

    @property
    def backend_pid(self) -> int: ...

    @property
    def statement_timestamp(self) -> Any:
        """The transaction's start time (aware datetime): what now() returns."""

    def get_setting(self, name: str) -> str | None: ...

    def query(self, sql: str) -> tuple[list[tuple[Any, ...]], list[Any]]:
        """Runs a query given as text (tablefunc's crosstab): its rows and columns."""

    def set_setting(self, name: str, value: str, is_local: bool) -> str: ...

    def search_path(self) -> list[str]: ...

    def nextval(self, seq_oid: int) -> int: ...

    def currval(self, seq_oid: int) -> int: ...

    def sequence_state(self, seq_oid: int) -> tuple[int, bool]: ...

    def setval(self, seq_oid: int, value: int, is_called: bool) -> int: ...
