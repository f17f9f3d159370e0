"""The versioned columnar copy of KiVi regions (issue 11; design in docs: COLUMNAR).

`encode` turns a list of Python values into a typed `Column` (numpy arrays,
validity mask, zone map, sorted dictionary for strings); `copy` keeps, per
region, every version as a row with begin/end commit timestamps, in frozen
packs plus a live tail, so a scan at any snapshot is a vector compare. The
version store (`kivi.mvcc`) feeds it on every apply; nodes hand snapshots of
it to the SQL layer's vectorized operators (`sql.exec.vector`).
"""

from .copy import INF, ColumnarCopy, Pack, PackView, Snapshot
from .encode import Column, encode

__all__ = ["INF", "Column", "ColumnarCopy", "Pack", "PackView", "Snapshot", "encode"]
