"""Which index of a partitioned table a partition's index belongs to.

PostgreSQL attaches a partition's copy of each index of its parent to the parent's
(partitioned, relkind "I") index: pg_inherits lists the pair and the copy is
`relispartition`. Cumulo keeps no link; the copy is the partition's index on the
same key columns and expressions.
"""

from __future__ import annotations

from ..catalog import model as M


def index_parent(cat: M.CatalogSnapshot, idx: M.Index) -> int:
    """The OID of the parent's index a partition's index is the copy of (0: none)."""
    t = cat.table_by_oid(idx.table_oid)
    if t is None or not t.partof:
        return 0
    return next((i.oid for i in cat.indexes_of(t.partof)
                 if (i.columns, i.exprs) == (idx.columns, idx.exprs)), 0)
