"""Routes a parsed DDL statement to the module that executes it.

DDL is analysed at execution time, against the catalog as the transaction
sees it then, and is never cached (`version=-1`): its effect depends on the
catalog, and it changes the catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import FeatureNotSupported
from ...pgwire.backend import Result
from ..privileges.ddlchecks import check_ddl
from ..stmt import Stmt
from . import alter, indexes, matviews, misc, sequences, tables, viewalter
from .routines import analyse_routine_alter

if TYPE_CHECKING:
    from ..session import SQLSession


def _execute(s: SQLSession, tree: exp.Expression) -> str:

    if isinstance(tree, exp.Create):
        kind = str(tree.args.get("kind") or "").upper()
        if kind == "TABLE":
            return tables.create_table(s, tree)
        if kind == "INDEX":
            return indexes.create_index(s, tree)
        if kind == "VIEW":
            return misc.create_view(s, tree)
        if kind == "SCHEMA":
            return misc.create_schema(s, tree)
        if kind == "SEQUENCE":
            return sequences.create_from_tree(s, tree)
        raise FeatureNotSupported(f"CREATE {kind} is not supported")
    if isinstance(tree, exp.Drop):
        kind = str(tree.args.get("kind") or "").upper()
        if kind == "VIEW" and tree.args.get("materialized"):
            return matviews.drop_matviews(s, tree)
        if kind in ("TABLE", "VIEW"):
            return tables.drop_relations(s, tree, kind)
        if kind == "INDEX":
            return indexes.drop_index(s, tree)
        if kind == "SCHEMA":
            return misc.drop_schema(s, tree)
        if kind == "SEQUENCE":
            return sequences.drop_sequences(s, tree)
        raise FeatureNotSupported(f"DROP {kind} is not supported")
    if isinstance(tree, exp.Alter):
        kind = str(tree.args.get("kind") or "").upper()
        if kind == "TABLE":
            return viewalter.alter_table_options(s, tree) or alter.alter_table(s, tree)
        if kind == "SEQUENCE":
            return sequences.alter_from_tree(s, tree)
        if kind == "INDEX":
            return indexes.alter_index(s, tree)
        if kind == "VIEW":
            return viewalter.alter_view(s, tree)
        raise FeatureNotSupported(f"ALTER {kind} is not supported")
    if isinstance(tree, exp.TruncateTable):
        return tables.truncate(s, tree)
    raise FeatureNotSupported(f"statement not supported: {tree.sql('postgres')[:60]}")


def analyse_ddl(session: SQLSession, sql: str, tree: exp.Expression, param_oids: list[int],
                version: int) -> Stmt:
    """Wraps a DDL statement in a Stmt that executes it when run."""
    if isinstance(tree, exp.Alter) and str(tree.args.get("kind") or "").upper() in (
            "FUNCTION", "PROCEDURE", "ROUTINE"):
        routine = analyse_routine_alter(session, sql)  # NB: ... SET work_mem = '1MB'
        if routine is not None:
            return routine

    def run(s: SQLSession, params: list[Any]) -> Result:
        check_ddl(s, tree)
        return Result(_execute(s, tree))

    kind = str(tree.args.get("kind") or "").upper()
    tag = f"{type(tree).__name__.upper()} {kind}".strip()
    return Stmt(sql, "ddl", run, None, list(param_oids), -1, tag=tag)
