"""Routes an INSERT, UPDATE or DELETE to its analyser (`insert`, `update`).

A statement on a view goes to the view's INSTEAD OF triggers (`viewdml`) or,
when the view is automatically updatable, is rewritten onto its base relation
(`viewrewrite`) and routed again.
"""

from __future__ import annotations

from typing import Any, cast

from sqlglot import exp

from .firetriggers import with_statement_triggers
from .insert import analyse_insert
from .update import analyse_modify
from .viewdml import analyse_view_dml, view_target


def analyse_dml(session: Any, sql: str, tree: exp.Expression, param_oids: list[int],
                version: int) -> Any:
    """Routes INSERT / UPDATE / DELETE to their analysers (statement triggers: around them)."""
    view = view_target(session, tree)
    if view is not None:
        return analyse_view_dml(session, sql, tree, view, param_oids, version, analyse_dml)
    if isinstance(tree, exp.Insert):
        stmt = analyse_insert(session, sql, tree, param_oids, version)
    else:
        stmt = analyse_modify(session, sql, cast("exp.Update | exp.Delete", tree), param_oids,
                              version)
    return with_statement_triggers(session, tree, stmt)
