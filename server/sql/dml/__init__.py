"""DML: INSERT, UPDATE and DELETE, with constraint checks and index maintenance."""

from __future__ import annotations

from typing import Any, cast

from sqlglot import exp


def analyse_dml(session: Any, sql: str, tree: exp.Expression, param_oids: list[int],
                version: int) -> Any:
    """Routes INSERT / UPDATE / DELETE to their analysers."""
    if isinstance(tree, exp.Insert):
        from .insert import analyse_insert

        return analyse_insert(session, sql, tree, param_oids, version)
    from .update import analyse_modify

    return analyse_modify(session, sql, cast("exp.Update | exp.Delete", tree), param_oids,
                          version)
