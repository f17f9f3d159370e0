"""Routes an INSERT, UPDATE or DELETE to its analyser (`insert`, `update`)."""

from __future__ import annotations

from typing import Any, cast

from sqlglot import exp

from .firetriggers import with_statement_triggers
from .insert import analyse_insert
from .update import analyse_modify


def analyse_dml(session: Any, sql: str, tree: exp.Expression, param_oids: list[int],
                version: int) -> Any:
    """Routes INSERT / UPDATE / DELETE to their analysers (statement triggers: around them)."""
    if isinstance(tree, exp.Insert):
        stmt = analyse_insert(session, sql, tree, param_oids, version)
    else:
        stmt = analyse_modify(session, sql, cast("exp.Update | exp.Delete", tree), param_oids,
                              version)
    return with_statement_triggers(session, tree, stmt)
