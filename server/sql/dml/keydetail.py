"""How a key is named in a constraint violation's DETAIL: `Key (a, lower(b))=(1, x)`.

A duplicate key (23505) and an exclusion conflict (23P01) both name the index's keys
and their values as PostgreSQL's BuildIndexValueDescription does.
"""

from __future__ import annotations

from typing import Any

from ..catalog.model import Table
from ..ddl.indexkeys import expr_display
from ..expr.casts import to_text


def key_text(table: Table, cols: tuple[int, ...], vals: tuple[Any, ...],
             exprs: tuple[str, ...] = ()) -> str:
    """`Key (a, b)=(1, x)`: an expression key as PostgreSQL deparses it (`lower(name)`)."""
    it = iter(exprs)
    names = ", ".join(table.columns[a - 1].name if a else expr_display(table, next(it))
                      for a in cols)
    shown = ", ".join("null" if v is None else value_text(v) for v in vals)
    return f"Key ({names})=({shown})"


def key_detail(table: Table, cols: tuple[int, ...], vals: tuple[Any, ...],
               exprs: tuple[str, ...] = ()) -> str:
    """PostgreSQL's DETAIL for a duplicate key: `Key (a, b)=(1, x) already exists.`."""
    return f"{key_text(table, cols, vals, exprs)} already exists."


def value_text(v: Any) -> str:
    """A value as its type's output function prints it (boolout: t/f; casts give true/false)."""
    return ("t" if v else "f") if isinstance(v, bool) else to_text(v)
