"""The contract inside the SQL layer between the statement layer and the query compiler.

Two halves of the SQL layer are built side by side:

- the *statement layer* (`session.py`, `engine.py`, `catalog/store.py`, `ddl/`,
  `dml/`, `copy.py`, ...) owns sessions, transactions, settings, the persistent
  catalog, DDL, INSERT/UPDATE/DELETE, COPY and cursors;
- the *query compiler* (`plan/`, `expr/`, `exec/`, `optimizer/`) turns a SELECT
  (any sqlglot query expression: SELECT, UNION, VALUES, WITH ...) into a cached,
  executable plan, and compiles scalar expressions for the statement layer.

The statement layer calls only the two functions below, through these types.
DML reuses the compiler: UPDATE and DELETE become a SELECT of the target's
`ctid` pseudo-column (the row's encoded KiVi key, bytes) plus the old row and
the new values, and SET/DEFAULT/CHECK/RETURNING expressions are compiled with
`compile_scalar` over a described row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from time import monotonic
from typing import Any, Protocol

from ..errors import QueryCanceled
from ..kivi.columnar.pace import LONG, give_way
from ..pgwire.backend import Column
from ..txn.api import Txn
from ..waits import SLICE, THREAD, Flag, maybe_yield
from .catalog.model import CatalogSnapshot
from .functions.registry import FunctionContext

Batch = list[tuple[Any, ...]]


@dataclass
class ParamTypes:
    """Parameter types: declared by the client (0 = unknown) and filled in by inference.

    Shared by every compile call for one statement, so that `$1` inferred in a
    WHERE clause and used again in SET agree. `oids[i]` is the type of `$(i+1)`.
    """

    oids: list[int] = field(default_factory=list)
    settled: list[int] = field(default_factory=list)  # the $n nothing typed, made text

    def get(self, n: int) -> int:
        """Returns the type of $n (1-based), 0 while unknown."""
        return self.oids[n - 1] if n <= len(self.oids) else 0

    def infer(self, n: int, oid: int) -> None:
        """Records $n's type if it is still unknown."""
        while len(self.oids) < n:
            self.oids.append(0)
        if self.oids[n - 1] == 0:
            self.oids[n - 1] = oid


class MemoryAccount:
    """A statement's memory budget and guard checks (`exec.memguard`)."""

    __slots__ = ("budget", "checks")

    def __init__(self, budget: int | None) -> None:
        self.budget = budget  # bytes an operator may keep (cumulo.statement_mem); None: any
        self.checks = 0


@dataclass(init=False)
class ExecContext:
    """Everything a running plan may touch. One per statement execution.

    NB: `__init__` is written out: the generated one made each container through its
    `default_factory` (a call per field) and ran for every keyed UPDATE and INSERT."""

    catalog: CatalogSnapshot
    txn: Txn
    functions: FunctionContext
    params: list[Any]
    cancel_event: Flag  # NB: the session's; `check_cancel` reads its `up` without a call
    settings: dict[str, str] = field(default_factory=dict)
    # EXPLAIN ANALYZE's figures while it runs the plan: [rows, secs, loops, startup secs] by
    # id(plan node) (`exec.runner`), and what the columnar path chose (`exec.vector.explain`)
    analyze: dict[Any, list[Any]] | None = None
    memory: MemoryAccount | None = None  # made by exec.memguard at its first check
    # the rows of the enclosing queries a correlated subquery reads, innermost last
    outer: list[tuple[Any, ...]] = field(default_factory=list)
    # uncorrelated subqueries' and CTEs' results, computed once per execution (exec.runner)
    plan_cache: dict[Any, Any] = field(default_factory=dict)
    # the keys INSERT ... ON CONFLICT DO UPDATE changed: a second change is 21000 (dml.insert)
    on_conflict_touched: set[Any] = field(default_factory=set)
    started: float = field(default_factory=monotonic)  # when the execution began

    def __init__(self, catalog: CatalogSnapshot, txn: Txn, functions: FunctionContext,
                 params: list[Any], cancel_event: Flag, settings: dict[str, str] | None = None,
                 analyze: dict[Any, list[Any]] | None = None, memory: MemoryAccount | None = None,
                 outer: list[tuple[Any, ...]] | None = None,
                 plan_cache: dict[Any, Any] | None = None,
                 on_conflict_touched: set[Any] | None = None,
                 started: float | None = None) -> None:
        self.catalog = catalog
        self.txn = txn
        self.functions = functions
        self.params = params
        self.cancel_event = cancel_event
        self.settings = {} if settings is None else settings
        self.analyze = analyze
        self.memory = memory
        self.outer = [] if outer is None else outer
        self.plan_cache = {} if plan_cache is None else plan_cache
        self.on_conflict_touched = set() if on_conflict_touched is None else on_conflict_touched
        self.started = monotonic() if started is None else started

    def check_cancel(self) -> None:
        """Raises QueryCanceled (57014) if the client cancelled; call once per batch."""
        now = monotonic()  # NB: one clock read for both tests (every keyed write runs one)
        if now - self.started >= LONG:  # NB: `give_way` passes shorter ones
            txn = self.txn  # NB: None in some utility statements (ANALYZE's loop)
            # on the event loop, a long read-only statement keeps to its share beside OLTP
            give_way(txn is not None and txn.has_writes, self.started)
            now = monotonic()  # NB: it may have parked
        hub = THREAD.hub  # NB: `maybe_yield`'s own first test, inline: no call while under it
        if hub is not None and now - hub.switched_at >= SLICE:
            maybe_yield()  # NB: and any long statement lets the others run here
        if self.cancel_event.up:
            self.cancel_event.clear()
            raise QueryCanceled("canceling statement due to user request")


class QueryPlan(Protocol):
    """A compiled, cacheable query: the same object serves every execution."""

    columns: list[Column]
    point: Any  # a `plan.pointread.PointRead` when the plan is only primary-key gets, else None
    constant: bool  # one row of constants and parameters, no table (`pointread.tableless`)

    def execute(self, ctx: ExecContext) -> Iterator[Batch]:
        """Runs the query and yields batches of result rows."""

    def execute_columns(self, ctx: ExecContext) -> Iterator[tuple[list[Any], int]] | None:
        """`execute` as column batches ((columns, row count)) when the plan can read its
        rows so (a whole table's scan); None otherwise."""

    def explain(self, ctx: ExecContext | None = None, analyze: bool = False) -> list[str]:
        """Returns EXPLAIN's lines (with ANALYZE: runs the plan and adds actual row counts)."""


@dataclass(frozen=True)
class ScopeColumn:
    """One column of the row a scalar expression is evaluated over."""

    qualifier: str | None  # table name or alias ("excluded" for ON CONFLICT), None if anonymous
    name: str
    type_oid: int
    typmod: int = -1
    # the table column it is (0: none): an expression naming the table by its name where
    # an alias hides it gets PostgreSQL's hint (`expr.binder.missing_from`)
    table_oid: int = 0
    attnum: int = 0


@dataclass(frozen=True)
class CompiledScalar:
    """A scalar expression compiled once: `fn(row, ctx)` evaluates it over one row tuple."""

    fn: Callable[[tuple[Any, ...], ExecContext], Any]
    type_oid: int
    typmod: int = -1


class QueryCompiler(Protocol):
    """The query compiler's two entry points (implemented in `sql/plan/`)."""

    def plan_query(
        self,
        ast: Any,  # sqlglot.exp.Expression: Select, Union, Values, With ...
        catalog: CatalogSnapshot,
        params: ParamTypes,
        search_path: list[str],
    ) -> QueryPlan: ...

    def compile_scalar(
        self,
        ast: Any,  # sqlglot.exp.Expression
        scope: list[ScopeColumn],
        catalog: CatalogSnapshot,
        params: ParamTypes,
        search_path: list[str],
        expected_type: int = 0,  # the target column's OID: drives parameter inference and casts
    ) -> CompiledScalar: ...
