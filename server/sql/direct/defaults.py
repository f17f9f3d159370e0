"""Columns a direct-API batch leaves out: their DEFAULT, as INSERT gives them.

A batch that names only some columns stands for `INSERT INTO t (those
columns) ...`: every other column takes its DEFAULT (a constant, an
expression such as `now()`, `nextval(...)` of a serial, or the sequence of
an identity column), and NULL only when it has none. Upsert is the same
INSERT followed by ON CONFLICT (pk) DO UPDATE SET every column =
EXCLUDED.column: it replaces the whole row, so a left-out column of a
replaced row gets its default too, never a leftover of the stored row.

The default functions are the ones INSERT and COPY compile
(`dml.values.compile_default`); they run once per row (a sequence hands
out one value per row), but only for the columns the batch lacks.

Naming a column the user may not write fails as INSERT does (428C9): a
generated column, or an identity column GENERATED ALWAYS (the API has no
OVERRIDING SYSTEM VALUE).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...errors import SQLError
from ..catalog.model import Table
from ..dml.values import compile_default

if TYPE_CHECKING:
    from ..session import SQLSession


def check_writable(table: Table, positions: Sequence[int]) -> None:
    """Raises 428C9 for a named generated or GENERATED ALWAYS identity column (as INSERT)."""
    for pos in positions:
        c = table.columns[pos]
        if c.generated:
            raise SQLError(f'cannot insert a non-DEFAULT value into column "{c.name}"',
                           sqlstate="428C9", detail=f'Column "{c.name}" is a generated column.')
        if c.identity == "a":
            raise SQLError(
                f'cannot insert a non-DEFAULT value into column "{c.name}"', sqlstate="428C9",
                detail=f'Column "{c.name}" is an identity column defined as GENERATED ALWAYS.',
                hint="Use a batch without this column: the identity gives its values.")


def default_columns(s: SQLSession, table: Table, positions: Sequence[int], n: int
                    ) -> dict[int, list[Any]]:
    """The values of the columns missing from a batch of `n` rows, by stored position.

    Only columns with a DEFAULT or an identity appear; the others stay NULL
    (the writer then checks NOT NULL as for INSERT).
    """
    present = set(positions)
    missing = [c for c in table.live_columns if c.attnum - 1 not in present
               and (c.default is not None or c.identity) and not c.generated]
    if not missing or n == 0:
        return {}
    ctx = s.exec_context([])
    out: dict[int, list[Any]] = {}
    for c in missing:
        fn = compile_default(s, c, table)
        out[c.attnum - 1] = [fn(None, ctx) for _ in range(n)]
    return out
