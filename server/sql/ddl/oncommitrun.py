"""The ON COMMIT actions of a session's temporary tables, run as its transaction commits.

See `oncommit` for the clause and its registration; this half needs DROP TABLE's
and TRUNCATE's machinery (`tables`), which imports `oncommit`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from .tables import drop_table_objects, truncate

if TYPE_CHECKING:
    from ..session import SQLSession


def before_commit(s: SQLSession) -> None:
    """Runs the registered actions in the transaction about to commit."""
    schemas = {sc.oid: sc.name for sc in s.catalog().schemas}
    for oid, action in list(s.on_commit.items()):
        table = s.catalog().table_by_oid(oid)
        if table is None:  # its CREATE rolled back, or it was dropped
            del s.on_commit[oid]
            continue
        if action == "drop":
            del s.on_commit[oid]
            drop_table_objects(s, table, cascade=True)
            s.catalog_changed()
        else:
            target = exp.Table(this=exp.to_identifier(table.name),
                               db=exp.to_identifier(schemas.get(table.schema_oid, "")))
            truncate(s, exp.TruncateTable(expressions=[target]))
