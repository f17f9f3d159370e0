"""MERGE: PostgreSQL 15's refusals, before the statement itself (not yet implemented).

PostgreSQL 15 runs MERGE only into a table: into a view (automatically
updatable or not; 16 allows it), a sequence or a materialized view it is
0A000 "cannot execute MERGE on relation" with a DETAIL naming the kind, and a
target that does not exist is 42P01, both before anything else is looked at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import FeatureNotSupported
from ..ddl.names import find_sequence, get_relation, table_name

if TYPE_CHECKING:
    from ..session import SQLSession

_KIND_DETAIL = {"v": "views", "S": "sequences", "m": "materialized views", "c": "composite types",
                "f": "foreign tables", "i": "indexes"}


def refuse_merge(s: SQLSession, tree: exp.Merge) -> None:
    """42P01 / 0A000 for a MERGE target PostgreSQL 15 refuses; returns for a table."""
    target = tree.this
    if not isinstance(target, exp.Table) or not isinstance(target.this, exp.Identifier):
        return
    schema, name = table_name(target)
    seq = find_sequence(s.catalog(), schema, name, s.search_path())
    kind = "S" if seq is not None else get_relation(s.catalog(), schema, name,
                                                    s.search_path()).kind
    what = _KIND_DETAIL.get(kind)
    if what is not None:
        raise FeatureNotSupported(f'cannot execute MERGE on relation "{name}"',
                                  detail=f"This operation is not supported for {what}.")
