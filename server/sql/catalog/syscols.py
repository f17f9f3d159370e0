"""The system column names a table's own columns may not take, as in PostgreSQL.

Every PostgreSQL table has `tableoid`, `cmax`, `xmax`, `cmin`, `xmin` and `ctid` (attnum
-6 .. -1 in pg_attribute); CREATE TABLE, ADD COLUMN, CREATE TABLE AS and RENAME COLUMN
refuse a column named like one with 42701, so a schema that loads here loads there.

>>> try:
...     check_column_name("xmin")
... except DuplicateColumn as e:
...     print(e.sqlstate, e.message)
42701 column name "xmin" conflicts with a system column name
"""

from __future__ import annotations

from ...errors import DuplicateColumn
from ...pgtypes import oids as T

# (name, attnum, type OID), PostgreSQL's order of pg_attribute rows
SYSTEM_COLUMNS = (("tableoid", -6, T.OID), ("cmax", -5, T.CID), ("xmax", -4, T.XID),
                  ("cmin", -3, T.CID), ("xmin", -2, T.XID), ("ctid", -1, T.TID))
_NAMES = frozenset(name for name, _, _ in SYSTEM_COLUMNS)


def check_column_name(name: str) -> None:
    """42701 for a column named like a system column."""
    if name in _NAMES:
        raise DuplicateColumn(f'column name "{name}" conflicts with a system column name')
