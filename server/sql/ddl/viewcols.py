"""The column rules of CREATE [OR REPLACE] VIEW, as PostgreSQL checks them.

A view's columns must have distinct names (42701). Replacing a view may add
columns at the end, but not drop, rename or retype the ones it has (42P16):
other views and queries were planned against them.

>>> from ..catalog.model import Column
>>> check_view_columns((Column("a", 23, -1, 1), Column("b", 23, -1, 2)), None)
>>> check_view_columns((Column("a", 23, -1, 1), Column("a", 25, -1, 2)), None)
... # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
DuplicateColumn: column "a" specified more than once
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import DuplicateColumn, InvalidTableDefinition
from ..catalog.model import Column, Table
from ..expr.types import type_name


def check_view_columns(cols: Sequence[Column], existing: Table | None) -> None:
    """Raises PostgreSQL's error for duplicate names or an incompatible replacement."""
    seen: set[str] = set()
    for c in cols:
        if c.name in seen:
            raise DuplicateColumn(f'column "{c.name}" specified more than once')
        seen.add(c.name)
    if existing is None:
        return
    old = [c for c in existing.columns if not c.dropped]
    if len(cols) < len(old):
        raise InvalidTableDefinition("cannot drop columns from view")
    for o, n in zip(old, cols, strict=False):
        if o.name != n.name:
            raise InvalidTableDefinition(
                f'cannot change name of view column "{o.name}" to "{n.name}"',
                hint="Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
        if o.type_oid != n.type_oid:
            raise InvalidTableDefinition(
                f'cannot change data type of view column "{o.name}" from '
                f"{type_name(o.type_oid)} to {type_name(n.type_oid)}")
