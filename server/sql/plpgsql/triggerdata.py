"""What a trigger function is told when it fires: PL/pgSQL's TG_* variables, NEW and OLD.

The write path (`dml.firetriggers`) builds one `TriggerCall` per row (or per
statement) and the runner (`plpgsql.triggers`) turns it into the function's
special variables. It is a plain record, so neither side imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class TriggerCall:
    """One firing of a trigger: its name and kind, the table, and the row(s) it sees.

    Rows are the writer's full-width rows (dropped columns included); `columns`
    lists the live ones as (position, name, type OID, typmod).
    """

    name: str
    when: str  # BEFORE | AFTER | INSTEAD OF
    level: str  # ROW | STATEMENT
    op: str  # INSERT | UPDATE | DELETE | TRUNCATE
    table_oid: int
    table_name: str
    schema_name: str
    args: tuple[str, ...]
    columns: tuple[tuple[int, str, int, int], ...]
    new: tuple[Any, ...] | list[Any] | None = None
    old: tuple[Any, ...] | list[Any] | None = None
    condition: str = ""  # WHEN (...): the firing is skipped unless it is true
