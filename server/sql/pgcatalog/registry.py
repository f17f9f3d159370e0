"""The registry of virtual system tables (pg_catalog, information_schema), computed per statement.

`VIRTUAL_TABLES[(schema, name)]` describes each one; the query compiler scans
them like ordinary tables (with no pushdown), calling `rows(ctx)` with the
statement's `FunctionContext` (whose `.catalog` is the snapshot). Nothing is
stored: every scan recomputes its rows from the snapshot, so the views can
never disagree with what the engine itself uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .shapes import SHAPES


@dataclass(frozen=True)
class VirtualTable:
    schema: str
    name: str
    columns: tuple[tuple[str, int], ...]  # (column name, type OID)
    rows: Callable[[Any], Iterable[tuple[Any, ...]]]
    oid: int = 0  # PostgreSQL's pg_class OID for this relation (e.g. pg_class is 1259)
    kind: str = "r"  # pg_class.relkind: "r" for catalogs, "v" for system views


VIRTUAL_TABLES: dict[tuple[str, str], VirtualTable] = {}
VIRTUAL_BY_OID: dict[int, VirtualTable] = {}


def virtual_table(
    schema: str, name: str, columns: list[tuple[str, int]], oid: int = 0, kind: str = "r"
) -> Callable[[Callable[[Any], Iterable[tuple[Any, ...]]]], Callable[[Any], Any]]:
    """Registers a function `rows(ctx)` as the contents of schema.name."""

    def wrap(fn: Callable[[Any], Iterable[tuple[Any, ...]]]) -> Callable[[Any], Any]:
        table = VirtualTable(schema, name, tuple(columns), fn, oid, kind)
        VIRTUAL_TABLES[(schema, name)] = table
        if oid:
            VIRTUAL_BY_OID[oid] = table
        return fn

    return wrap


def pg_relation(
    schema: str, name: str
) -> Callable[[Callable[[Any], Iterable[tuple[Any, ...]]]], Callable[[Any], Any]]:
    """Registers `rows(ctx)` as schema.name with PostgreSQL 15's own columns, OID and relkind."""
    oid, kind, columns = SHAPES[(schema, name)]
    return virtual_table(schema, name, list(columns), oid, kind)


def empty(schema: str, name: str) -> None:
    """Registers schema.name as a correctly shaped relation that never has rows."""
    pg_relation(schema, name)(lambda ctx: ())
