"""Where a COPY FROM failed, said as PostgreSQL says it (the error's CONTEXT field).

COPY converts a block of input a column at a time, so when a conversion
fails the batch code does not know which row it was. These helpers find it
again on the error path only: each value of the failing block is decoded on
its own, in row order and then column order (PostgreSQL's order: it reads a
line, then its fields left to right), and the first error is returned with

    COPY products, line 5002, column price: " "

Line numbers count physical input lines from 1, header included, as
PostgreSQL's `cur_lineno` does (a quoted csv field's line breaks count too).
Shown text is cut at 100 characters with "...", as `limit_printout_length`.

>>> line_context("t", 3, "x" * 120)[-8:]
'xxxx..."'
>>> column_context("products", 5002, "price", " ")
'COPY products, line 5002, column price: " "'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import SQLError

MAX_SHOWN = 100


def shown(text: str) -> str:
    """The text as PostgreSQL prints COPY data in a message: at most 100 characters."""
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def line_context(table: str, line: int, text: str) -> str:
    """CONTEXT of an error about a whole line (field counts, csv quoting)."""
    return f'COPY {table}, line {line}: "{shown(text)}"'


def column_context(table: str, line: int, column: str, value: str) -> str:
    """CONTEXT of an error about one field's value."""
    return f'COPY {table}, line {line}, column {column}: "{shown(value)}"'


def with_context(e: SQLError, where: str) -> SQLError:
    """Sets the error's CONTEXT (keeping one set nearer to its cause) and returns it."""
    if e.where is None:
        e.where = where
    return e


def locate(table: str, names: Sequence[str], decode: Sequence[Callable[[str], Any]],
           columns: Sequence[Sequence[str | None]], lines: Sequence[int]) -> SQLError | None:
    """Finds the first bad value of a block given as raw columns; None if each decodes alone.

    `decode[i]` converts one non-NULL raw value of column i (escapes already undone);
    a None raw value is a NULL. `lines[r]` is row r's line number.
    """
    for r, line in enumerate(lines):
        for i, col in enumerate(columns):
            v = col[r]
            if v is None:
                continue
            try:
                decode[i](v)
            except SQLError as e:
                return with_context(e, column_context(table, line, names[i], v))
    return None
