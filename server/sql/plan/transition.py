"""Transition tables: the relations `REFERENCING OLD TABLE AS o NEW TABLE AS n` names.

An AFTER trigger with transition tables sees the rows its statement changed
as relations, queried from its body like any table (`SELECT count(*) FROM n`).
PostgreSQL calls them ephemeral named relations: an unqualified name finds one
after the query's CTEs and before the catalog's tables. The firing
(`dml.firetriggers`) sets them for the length of the trigger's run
(`bound`); the planner plans a name it finds here as a scan that reads the
rows at run time, so a PL/pgSQL body's cached plan serves every firing.

>>> from ...pgtypes import oids as T
>>> with bound({"n": Transition((("id", T.INT4, -1),), [(1,), (2,)])}):
...     [r for r in rows_of("n")]
[(1,), (2,)]
>>> lookup("n") is None
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ...errors import UndefinedTable


@dataclass
class Transition:
    """One transition table: the table's live columns (name, type, typmod) and the rows."""

    columns: tuple[tuple[str, int, int], ...]
    rows: list[tuple[Any, ...]]


_BOUND: ContextVar[dict[str, Transition] | None] = ContextVar("transition_tables", default=None)


@contextlib.contextmanager
def bound(tables: dict[str, Transition]) -> Iterator[None]:
    """The transition tables a trigger's body sees while it runs (the outer ones hidden)."""
    token = _BOUND.set(tables)
    try:
        yield
    finally:
        _BOUND.reset(token)


def lookup(name: str) -> Transition | None:
    """The transition table of that name in the running trigger, if there is one."""
    tables = _BOUND.get()
    return tables.get(name) if tables else None


def rows_of(name: str) -> list[tuple[Any, ...]]:
    """The rows at run time (a cached plan outliving its trigger finds none: 42P01)."""
    t = lookup(name)
    if t is None:
        raise UndefinedTable(f'relation "{name}" does not exist')
    return t.rows
