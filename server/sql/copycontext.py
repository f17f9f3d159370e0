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


def row_context(table: str, line: int, text: str | None) -> str:
    """CONTEXT of an error about a row the writer refuses (NOT NULL, CHECK, a partition
    bound): its line, and the line's text when it is known (PostgreSQL leaves it out of
    binary input, which has no lines).

    >>> row_context("t", 3, "3\\t\\\\N"), row_context("t", 2, None)
    ('COPY t, line 3: "3\\t\\\\N"', 'COPY t, line 2')
    """
    return f"COPY {table}, line {line}" if text is None else line_context(table, line, text)


class LineTexts:
    """The input text of the batch being loaded, by line number, for `row_context`.

    PostgreSQL checks NOT NULL and CHECK as it reads each line, so its CONTEXT shows the
    line; Cumulo's writer checks a whole batch after its blocks were parsed. Only the
    blocks' texts are kept (references, no copies), until the batch is written; a line is
    cut out of its block on the error path only.

    >>> texts = LineTexts()
    >>> texts.add_block(0, 2, "1\\ta\\n2\\tb")
    >>> texts.add_record(3, '3,"x\\ny"')
    >>> texts.text(2), texts.text(3), texts.text(4)
    ('2\\tb', '3,"x\\ny"', None)
    """

    def __init__(self) -> None:
        self.blocks: list[tuple[int, int, str]] = []  # (line before it, lines, block text)
        self.records: dict[int, str] = {}  # csv records read one at a time, by line

    def add_block(self, before: int, count: int, text: str) -> None:
        """A block of `count` lines (newline-separated, one row each: the caller counted
        them) numbered before + 1, ...."""
        self.blocks.append((before, count, text))

    def add_record(self, line: int, record: str) -> None:
        """One csv record (its line breaks kept), numbered as its row is."""
        self.records[line] = record

    def text(self, line: int) -> str | None:
        """The text of line `line`, if the batch came from kept text."""
        if line in self.records:
            return self.records[line]
        for before, count, text in self.blocks:
            if before < line <= before + count:
                return text.split("\n")[line - before - 1]
        return None

    def clear(self) -> None:
        """Drops the texts of a batch that was written."""
        self.blocks = []
        self.records = {}


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
