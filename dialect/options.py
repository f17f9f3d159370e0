"""`cumulo_*` dialect keyword arguments as aliases of the `postgresql_*` ones.

SQLAlchemy keys dialect-specific options by dialect name: on our dialect a
user writes `Index("ix", t.c.x, cumulo_include=["y"])`, and reflection is
expected to answer with `cumulo_include`. The SQL they stand for is
PostgreSQL's, compiled by PostgreSQL's DDL compiler, which only reads the
`postgresql` options and only reflects `postgresql_*` keys. So:

- before DDL is compiled, `cumulo` options are copied onto the `postgresql`
  ones of the same element (what the user wrote wins over nothing, and
  `postgresql_*` spellings keep working unchanged);
- reflected `dialect_options` (and table options) are keyed by this
  dialect's name only (`cumulo_include`), as every SQLAlchemy dialect keys
  them by its own: SQLAlchemy's suite compares the dict exactly, and a
  reflected Table then round-trips through `Index(**dialect_options)` and
  our DDL compiler.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.postgresql.base import PGDDLCompiler
from sqlalchemy.sql import ddl

NAME = "cumulo"
_PG = "postgresql_"
_OURS = NAME + "_"


def share_options(element: Any) -> None:
    """Copies the element's `cumulo` options onto its `postgresql` ones."""
    opts = getattr(element, "dialect_options", None)
    if opts is None or NAME not in opts:
        return
    ours = opts[NAME]._non_defaults
    if ours:
        pg = opts["postgresql"]
        for key, value in ours.items():
            pg[key] = value


def _elements_of(statement: Any) -> list:
    """The schema items whose options a DDL statement compiles."""
    element = getattr(statement, "element", None)
    if element is None:
        return []
    items = [element]
    items.extend(getattr(element, "constraints", ()))
    if isinstance(statement, ddl.CreateTable):
        items.extend(getattr(element, "indexes", ()))
    return items


class CumuloDDLCompiler(PGDDLCompiler):
    """PostgreSQL's DDL compiler, reading `cumulo_*` options as `postgresql_*` ones."""

    def __init__(self, dialect: Any, statement: Any, *args: Any, **kw: Any):
        for item in _elements_of(statement):
            share_options(item)
        super().__init__(dialect, statement, *args, **kw)


def alias_keys(options: dict) -> dict:
    """Renames each reflected `postgresql_x` key to `cumulo_x` (in place)."""
    for key in [k for k in options if k.startswith(_PG)]:
        options[_OURS + key[len(_PG):]] = options.pop(key)
    return options


def alias_reflected(items: Any) -> list:
    """Applies `alias_keys` to the `dialect_options` of reflected constraints and indexes."""
    out = []
    for key, entries in items:
        if isinstance(entries, list):
            for entry in entries:
                if entry.get("dialect_options"):
                    alias_keys(entry["dialect_options"])
        elif isinstance(entries, dict) and entries.get("dialect_options"):
            alias_keys(entries["dialect_options"])
        out.append((key, entries))
    return out
