"""A sequence read as a relation: `SELECT last_value, is_called FROM seq`.

PostgreSQL stores a sequence as a one-row relation, and pg_dump reads its
state that way to write `setval(...)`. Cumulo keeps the state in the catalog
store, so the planner scans this one-row virtual relation instead.
"""

from __future__ import annotations

import functools
from typing import Any

from ...pgtypes import oids as T
from ..catalog.model import Sequence
from .registry import VirtualTable

_COLUMNS = (("last_value", T.INT8), ("log_cnt", T.INT8), ("is_called", T.BOOL))


def sequence_relation(seq: Sequence) -> VirtualTable:
    """The relation `FROM seq` scans: one row of (last_value, log_cnt, is_called)."""
    return VirtualTable("", seq.name, _COLUMNS, functools.partial(_row, seq.oid), seq.oid, "S")


def _row(seq_oid: int, ctx: Any) -> list[tuple[int, int, bool]]:
    last, called = ctx.sequence_state(seq_oid)
    return [(last, 0, called)]
