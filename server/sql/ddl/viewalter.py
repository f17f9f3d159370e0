"""ALTER VIEW: the renames PostgreSQL allows on a view, through ALTER TABLE's code.

A view's column names live in the catalog (CREATE VIEW v (a, b) may rename its
query's columns), and the planner expands a view under those names, so renaming
a view's column is a catalog change like renaming a table's, and so is a view
column's default (`ALTER COLUMN c SET DEFAULT`), which an INSERT through the
view uses before the table's (`dml.viewrewrite`), and `SET (check_option =
local | cascaded)`. Other ALTER VIEW forms (SET SCHEMA, RESET, other options)
fail with 0A000 rather than do nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import FeatureNotSupported, WrongObjectType
from ..pgcatalog.updatable import not_updatable, view_query
from .alter import alter_table, relation_to_alter

if TYPE_CHECKING:
    from ..session import SQLSession


def alter_view(s: SQLSession, tree: exp.Alter) -> str:
    """ALTER VIEW [IF EXISTS] name RENAME TO new | RENAME [COLUMN] old TO new |
    ALTER [COLUMN] c SET DEFAULT e | DROP DEFAULT."""
    view = relation_to_alter(s, tree)
    if view is None:
        return "ALTER VIEW"
    if view.kind != "v":
        raise WrongObjectType(f'"{view.name}" is not a view')
    for action in tree.args.get("actions") or []:
        given = {k for k, v in action.args.items() if v is not None and k != "this"}
        if isinstance(action, exp.AlterColumn) and given in ({"default"}, {"drop"}):
            continue  # SET / DROP DEFAULT: what an INSERT through the view fills in
        if isinstance(action, exp.AlterSet) and action.expressions and all(
                isinstance(e, exp.EQ) and e.this.name.lower() == "check_option"
                for e in action.expressions):
            why = not_updatable(view_query(view.view_sql or ""))
            if why is not None:  # SET (check_option = ...): as CREATE VIEW ... WITH it
                raise FeatureNotSupported("WITH CHECK OPTION is supported only on "
                                          "automatically updatable views", hint=why)
            continue
        if not isinstance(action, exp.AlterRename | exp.RenameColumn):
            raise FeatureNotSupported(
                f"ALTER VIEW action is not supported: {action.sql('postgres')[:60]}")
    alter_table(s, tree)
    return "ALTER VIEW"
