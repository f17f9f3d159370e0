"""The system columns: the names a table's own columns may not take, and their values.

Every PostgreSQL table has `tableoid`, `cmax`, `xmax`, `cmin`, `xmin` and `ctid` (attnum
-6 .. -1 in pg_attribute); CREATE TABLE, ADD COLUMN, CREATE TABLE AS and RENAME COLUMN
refuse a column named like one with 42701, so a schema that loads here loads there.

A query that names one gets it as a hidden column of each table it reads (`*` leaves
them out). `tableoid` is the table's pg_class OID. `xmin` is `row_xmin`: as PostgreSQL's,
the id of the transaction that wrote the row version (`txn.xids.row_xmins`: inside the
writer its `txid_current() % 2^32`, RETURNING xmin too; afterwards the same, from the
version's commit timestamp), and ORMs use it as a version stamp (`UPDATE ... WHERE id =
$1 AND xmin = $2` matches nothing once another transaction has updated the row, even to
the values it had). `xmax`,
`cmin` and `cmax` are 0, as PostgreSQL shows them for a row no live transaction is
deleting or locking, in a transaction's first command (but INSERT ... ON CONFLICT DO
UPDATE's RETURNING xmax, non-zero for an updated row).

`ctid` is PostgreSQL's (block, offset) of the row version. A table without a primary key
keeps its rows under hidden row ids given out in insertion order from 0, as PostgreSQL
fills its heap pages, so its ctid is `heap_tid`: row id n is (n // 291, n % 291 + 1)
(291 = MaxHeapTuplesPerPage): a fresh table's rows are (0,1), (0,2) ... as in PostgreSQL,
ctids order as the rows were inserted (the `DELETE ... USING t b WHERE a.ctid < b.ctid`
dedup keeps the newest copy, as there), and `WHERE ctid = '(0,1)'` finds its row. Unlike
PostgreSQL's, it stays the same after an UPDATE (xmin changes). A table with a primary key
keeps rows by key, so its ctid is `version_tid`: the block a digest of the key and the
offset one of the version's values (1 .. 65535): stable within a snapshot and across them
while the row is unchanged, different for another row, and (but for a 1/65535 chance)
different after an UPDATE, so `SELECT ctid ...` then `UPDATE ... WHERE ctid = $1` finds
the row it saw; its order means nothing. RETURNING ctid gives the written version's, as
`dml.returning` computes it from the key and the stored row (an UPDATE's new version, a
DELETE's old one). Internally the row's KiVi key travels as the
hidden column `ROW_KEY` (bytes), which UPDATE, DELETE and FOR UPDATE select to find the
rows they change.

>>> version_xid((1, "a")) == version_xid((1, "a")) != version_xid((2, "a"))
True
>>> version_tid(b"k1", (1, "a")) == version_tid(b"k1", (1, "a")) != version_tid(b"k1", (2, "a"))
True

>>> from cumulo.server.kivi.keycodec import encode_key
>>> [heap_tid(encode_key((n,))) for n in (0, 1, 290, 291)]
['(0,1)', '(0,2)', '(0,291)', '(1,1)']

>>> try:
...     check_column_name("xmin")
... except DuplicateColumn as e:
...     print(e.sqlstate, e.message)
42701 column name "xmin" conflicts with a system column name
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Any

from ...errors import DuplicateColumn
from ...kivi.wire import packb
from ...pgtypes import oids as T
from ...txn.xids import row_xmins

# (name, attnum, type OID), PostgreSQL's order of pg_attribute rows
SYSTEM_COLUMNS = (("tableoid", -6, T.OID), ("cmax", -5, T.CID), ("xmax", -4, T.XID),
                  ("cmin", -3, T.CID), ("xmin", -2, T.XID), ("ctid", -1, T.TID))
_NAMES = frozenset(name for name, _, _ in SYSTEM_COLUMNS)


def check_column_name(name: str) -> None:
    """42701 for a column named like a system column."""
    if name in _NAMES:
        raise DuplicateColumn(f'column name "{name}" conflicts with a system column name')


VERSION_COLUMNS = frozenset(("xmin", "xmax", "cmin", "cmax", "ctid"))
ROW_KEY = "__cumulo_rowkey"  # the hidden column of a row's KiVi key (bytes)
_FIRST_NORMAL_XID = 3  # 0 is invalid, 1 bootstrap, 2 frozen in PostgreSQL


def row_xmin(space: int) -> Callable[[Any, bytes], int]:
    """xmin of a row of the table stored in `space`: fn(function context, row key)."""

    def xmin(fctx: Any, key: bytes) -> int:
        return row_xmins(fctx.session.ensure_txn(), space, [key])[0]

    return xmin


def version_xid(row: tuple[Any, ...]) -> int:
    """A 32-bit digest of a row version's values (ctid's offset)."""
    digest = zlib.crc32(packb(row))
    return digest if digest >= _FIRST_NORMAL_XID else digest + _FIRST_NORMAL_XID


def version_tid(key: bytes, row: tuple[Any, ...]) -> str:
    """A row version's ctid, as tid's text `(block,offset)` (see above)."""
    return f"({zlib.crc32(key)},{version_xid(row) % 65535 + 1})"


HEAP_ROWS = 291  # PostgreSQL's MaxHeapTuplesPerPage (8 kB pages)
_unpack_q = struct.Struct(">Q").unpack_from


def heap_tid(key: bytes) -> str:
    """The ctid of a row of a table without a primary key, from its row id (see above)."""
    if len(key) != 9 or key[0] != 0x11:  # NB: keycodec's one-integer key (tag, biased value)
        return f"({zlib.crc32(key)},1)"
    n = _unpack_q(key, 1)[0] - (1 << 63)
    return f"({n // HEAP_ROWS},{n % HEAP_ROWS + 1})"
