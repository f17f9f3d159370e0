"""ATTACH PARTITION of a table whose columns sit at other attribute numbers than the
parent's: the table is laid out again as the parent is.

A partition's row is its parent's row here (`ddl.partitions`: the same attnums, dropped
slots too), so routing and the UNION ALL read need no column map. PostgreSQL keeps the
attached table's own attnums and maps each tuple instead. The common case is a parent that
lost a column (its dropped slot stays) and a new table made with `LIKE parent` (which has
no such slot): the columns are in the same order, only the numbers differ, and after the
relayout the table reads exactly as in PostgreSQL. A table whose columns are in another
order takes its parent's order: `SELECT *` on the partition itself lists them so.

What names a column by number follows it: the primary key, indexes and INCLUDE lists,
constraints (and foreign keys of other tables that reference this one), UPDATE OF
triggers, column privileges, the sequences its columns own and column comments. The rows
are rewritten in batches, each one's values moved to their new slots (keys are values, so
they stay).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...errors import FeatureNotSupported
from ..catalog.model import Column, Table
from .alter import rewrite_rows

if TYPE_CHECKING:
    from ..session import SQLSession


def parent_columns(parent: Table, table: Table) -> tuple[tuple[Column, ...], dict[int, int]]:
    """`table`'s columns at `parent`'s attnums (its dropped slots the parent's) and the map
    old attnum -> new attnum; both tables have the same live column names.

    >>> from cumulo.server.sql.catalog.model import Column as C, Table as T
    >>> p = T(1, "m", 2, (C("a", 23, attnum=1), C("x", 23, attnum=2, dropped=True),
    ...                   C("b", 25, attnum=3)))
    >>> t = T(3, "m1", 2, (C("b", 25, attnum=1), C("a", 23, attnum=2)))
    >>> cols, moved = parent_columns(p, t)
    >>> [(c.name, c.attnum, c.dropped) for c in cols], moved
    ([('a', 1, False), ('x', 2, True), ('b', 3, False)], {2: 1, 1: 3})
    """
    mine = {c.name: c for c in table.live_columns}
    cols = tuple(dataclasses.replace(p, default=None, not_null=False) if p.dropped
                 else dataclasses.replace(mine[p.name], attnum=p.attnum)
                 for p in parent.columns)
    return cols, {mine[p.name].attnum: p.attnum for p in parent.columns if not p.dropped}


def relayout(s: SQLSession, parent: Table, table: Table) -> Table:
    """Lays `table` out as `parent` (catalog and rows); returns the new table."""
    if table.partkey:
        raise FeatureNotSupported(f'partitioned table "{table.name}" has its columns at other '
                                  f'positions than "{parent.name}"')
    cols, moved = parent_columns(parent, table)

    def num(a: int) -> int:
        return moved.get(a, a)  # NB: 0 is an expression key

    def nums(attnums: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(num(a) for a in attnums)

    cat, txn, db = s.catalog(), s.ensure_txn(), s.db.oid
    put = s.store.put
    after = dataclasses.replace(
        table, columns=cols, primary_key=nums(table.primary_key),
        column_acls=tuple(f"{num(int(a.partition(':')[0]))}:{a.partition(':')[2]}"
                          for a in table.column_acls))
    put(txn, db, after)
    for i in cat.indexes_of(table.oid):
        put(txn, db, dataclasses.replace(i, columns=nums(i.columns), include=nums(i.include)))
    for k in cat.constraints:
        if k.table_oid == table.oid or k.ref_table_oid == table.oid:
            put(txn, db, dataclasses.replace(
                k, columns=nums(k.columns) if k.table_oid == table.oid else k.columns,
                ref_columns=nums(k.ref_columns) if k.ref_table_oid == table.oid
                else k.ref_columns))
    for t in cat.triggers:
        if t.table_oid == table.oid and t.columns:
            put(txn, db, dataclasses.replace(t, columns=nums(t.columns)))
    for q in cat.sequences:
        if q.owned_by is not None and q.owned_by[0] == table.oid:
            put(txn, db, dataclasses.replace(q, owned_by=(table.oid, num(q.owned_by[1]))))
    notes = {sub: text for (oid, sub), text in cat.comments.items()
             if oid == table.oid and sub > 0}
    for sub in notes:
        s.store.set_comment(txn, db, table.oid, sub, None)
    for sub, text in notes.items():
        s.store.set_comment(txn, db, table.oid, num(sub), text)
    s.catalog_changed()
    slots = [(old - 1, new - 1) for old, new in moved.items()]
    width = len(cols)

    def fill(r: tuple, ctx: object) -> tuple:
        out: list[object] = [None] * width
        for old, new in slots:
            out[new] = r[old]
        return tuple(out)

    rewrite_rows(s, after, fill)
    return s.catalog().existing_table(table.oid)
