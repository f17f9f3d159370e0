"""CREATE TEMP TABLE ... ON COMMIT DROP / DELETE ROWS / PRESERVE ROWS.

`parse.parse_sql` takes the clause out of the statement (sqlglot does not read
it) and leaves the action in the tree's `meta["on_commit"]`; CREATE TABLE then
refuses it on a table that is not temporary (42P16, as PostgreSQL) and
registers the table with the session. Just before each COMMIT of the session,
`oncommitrun.before_commit` runs the actions inside the committing transaction, as
PostgreSQL's PreCommit_on_commit_actions does: DROP drops the table (once: it
is then forgotten), DELETE ROWS empties it (at every commit, as TRUNCATE
would). A table whose creating transaction rolled back is no longer in the
catalog and is forgotten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import InvalidTableDefinition

if TYPE_CHECKING:
    from ..session import SQLSession

ACTIONS = {"DROP": "drop", "DELETE ROWS": "delete", "PRESERVE ROWS": "preserve"}


def register(s: SQLSession, schema: str, name: str, action: str, temporary: bool) -> None:
    """Remembers the ON COMMIT action of the table just made (`action` from ACTIONS)."""
    if not temporary:
        raise InvalidTableDefinition("ON COMMIT can only be used on temporary tables")
    if action == "preserve":
        return
    table = next((t for t in s.catalog().tables if t.name == name and any(
        sc.oid == t.schema_oid and sc.name == schema for sc in s.catalog().schemas)), None)
    if table is not None:
        s.on_commit[table.oid] = action

