"""WITH CHECK OPTION: a row written through a view must be one the view shows.

A view made `WITH [CASCADED | LOCAL] CHECK OPTION` refuses an INSERT or UPDATE
through it whose new row fails its WHERE (44000, `new row violates check option
for view "v"`, the base table's row in DETAIL). CASCADED checks the conditions
of the views below it too; LOCAL only its own (a view below with its own check
option still checks). As in PostgreSQL a NULL condition fails, unlike a CHECK
constraint. The rewrite (`viewrewrite`) turns each condition into one over
the table written; the statement runs with them in force (`enforcing`), and
the table's writer checks its rows after its own constraints (`check_rows`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import SQLError
from ..catalog.model import Table
from ..context import ParamTypes
from ..plan.compiler import COMPILER
from .values import table_scope

if TYPE_CHECKING:
    from ..session import SQLSession


@dataclass
class ViewCheck:
    """One view's condition, over the columns of the table written (unqualified)."""

    view: str
    condition: exp.Expression
    compiled: dict[int, Any] = field(default_factory=dict)  # catalog version -> fn


_ACTIVE: ContextVar[tuple[int, list[ViewCheck]] | None] = ContextVar("view_checks",
                                                                      default=None)
# The checks in force (None outside a write through a WITH CHECK OPTION view), as a C call:
# the table writer asks it for every batch and calls `check_rows` only when some are
in_force: Callable[[], tuple[int, list[ViewCheck]] | None] = _ACTIVE.get


@contextlib.contextmanager
def enforcing(table_oid: int, checks: list[ViewCheck]) -> Iterator[None]:
    """The checks in force while a statement rewritten from a view writes `table_oid`."""
    token = _ACTIVE.set((table_oid, checks))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def bare(cond: exp.Expression) -> exp.Expression:
    """The condition with its column qualifiers dropped (it reads one table)."""
    def strip(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and n.table:
            return exp.Column(this=n.this.copy())
        return n
    return cond.copy().transform(strip)


def check_rows(s: SQLSession, table: Table, rows: list[Any],
               row_text: Callable[[Any], str]) -> None:
    """44000 for the first row a view in force would not show (the writer's hook)."""
    active = _ACTIVE.get()
    if active is None or active[0] != table.oid:
        return
    version = s.catalog_version()
    ctx = s.exec_context([])
    for chk in active[1]:
        fn = chk.compiled.get(version)
        if fn is None:
            fn = chk.compiled[version] = COMPILER.compile_scalar(
                chk.condition, table_scope(table), s.catalog(), ParamTypes(), s.search_path(),
                16).fn
        for r in rows:
            if fn(r, ctx) is not True:
                raise SQLError(f'new row violates check option for view "{chk.view}"',
                               sqlstate="44000", detail=f"Failing row contains ({row_text(r)}).")
