"""Virtual system tables (pg_catalog, information_schema), computed from the catalog snapshot.

`VIRTUAL_TABLES[(schema, name)]` describes each one; the query compiler scans
them like ordinary tables (with no pushdown), calling `rows(ctx)` with the
statement's `FunctionContext` (whose `.catalog` is the snapshot).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class VirtualTable:
    schema: str
    name: str
    columns: tuple[tuple[str, int], ...]  # (column name, type OID)
    rows: Callable[[Any], Iterable[tuple[Any, ...]]]
    oid: int = 0  # PostgreSQL's pg_class OID for this relation (e.g. pg_class is 1259)


VIRTUAL_TABLES: dict[tuple[str, str], VirtualTable] = {}


def virtual_table(
    schema: str, name: str, columns: list[tuple[str, int]], oid: int = 0
) -> Callable[[Callable[[Any], Iterable[tuple[Any, ...]]]], Callable[[Any], Any]]:
    """Registers a function `rows(ctx)` as the contents of schema.name."""

    def wrap(fn: Callable[[Any], Iterable[tuple[Any, ...]]]) -> Callable[[Any], Any]:
        VIRTUAL_TABLES[(schema, name)] = VirtualTable(schema, name, tuple(columns), fn, oid)
        return fn

    return wrap
