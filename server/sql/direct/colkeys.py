"""KiVi keys of a batch straight from its Arrow primary-key column, no Python int per row.

A table keyed by one integer column (the common bulk-load shape) has keys
`0x11 || (v + 2**63)` big-endian (`dml.writer.int_keys`, `kivi.keycodec`).
numpy builds them for the whole column in one pass, and tells whether the
batch repeats a key with one comparison pass (one sort when the keys are
not ascending) instead of a set of a million bytes.

    >>> import pyarrow as pa
    >>> from ..dml.writer import int_keys
    >>> int_column_keys(pa.chunked_array([[3, -1]])) == int_keys([3, -1])
    True
    >>> has_duplicates(pa.chunked_array([[3, 5, 3]]))
    True
    >>> type(int_column_keys(pa.chunked_array([[-1, 3]]))).__name__  # in key order
    'AscendingKeys'
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ...kivi.ascending import AscendingKeys

_TAG = 0x11  # kivi.keycodec's tag of an integer
_BIAS = np.uint64(1 << 63)
_KEY = np.dtype([("t", "u1"), ("v", ">u8")])


def _int64(col: Any) -> np.ndarray | None:
    """The column as int64 values, or None if it has NULLs or is not integral."""
    if col.null_count or not pa.types.is_integer(col.type) or pa.types.is_uint64(col.type):
        return None
    return np.asarray(col.cast(pa.int64()).to_numpy(), dtype=np.int64)


def int_column_keys(col: Any) -> list[bytes] | None:
    """The keys of a one-integer primary key, in row order; None when the column cannot give them."""
    v = _int64(col)
    if v is None:
        return None
    rec = np.empty(len(v), dtype=_KEY)
    rec["t"] = _TAG
    rec["v"] = v.view(np.uint64) ^ _BIAS
    keys = np.frombuffer(rec.tobytes(), dtype="V9").tolist()  # NB: V9 items are bytes
    if len(v) < 2 or bool((v[1:] > v[:-1]).all()):  # ascending values, ascending keys
        return AscendingKeys(keys)  # NB: spares the layers above a comparison pass each
    return keys


def has_duplicates(col: Any) -> bool:
    """Whether an integer key column repeats a value (True when it cannot tell)."""
    v = _int64(col)
    if v is None:
        return True
    if len(v) < 2 or bool((v[1:] > v[:-1]).all()):  # ascending: the usual bulk load
        return False
    v = np.sort(v)  # NB: numpy 2's np.unique hashes, many times slower than this sort
    return bool((v[1:] == v[:-1]).any())
