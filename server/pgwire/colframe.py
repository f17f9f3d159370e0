"""Protocol messages for a whole batch of rows from column arrays, in Arrow's C++ kernels.

A result batch arrives as one Arrow array per column (`pgtypes.vectext`); this
module turns the columns into one message per row without a Python step per
row or per cell:

- `fields` puts the int32 length in front of each value (-1 and no bytes for
  NULL), the form a DataRow and a binary COPY row give every column;
- `data_rows` joins a row's fields after the int16 field count and the
  `D`/length head, all rows at once (`binary_join_element_wise`): the lengths
  are known from the fields' lengths before anything is joined;
- `copy_lines` joins text or csv cells with the delimiter and frames each line
  as a CopyData message (`d`, length, the line and its newline), the frame
  of the next row riding after each newline so that a second join does all.

`data_rows` returns a `memoryview` of the joined bytes (no copy), `copy_lines` bytes. Arrow's binary arrays address
their bytes with int32 offsets: `fits` tells whether a batch stays under that
bound (callers cut their batches small enough; a batch that does not fit takes
the per-row path).

    >>> import pyarrow as pa
    >>> bytes(data_rows([fields(pa.array([b"1", None]))]))
    b'D\\x00\\x00\\x00\\x0b\\x00\\x01\\x00\\x00\\x00\\x011D\\x00\\x00\\x00\\n\\x00\\x01\\xff\\xff\\xff\\xff'
    >>> bytes(copy_lines([pa.array(["a", "b"]), pa.array(["1", "2"])], "\\t"))
    b'd\\x00\\x00\\x00\\x08a\\t1\\nd\\x00\\x00\\x00\\x08b\\t2\\n'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..pgtypes.coded import Coded
from ..pgtypes.vectext import binary_array, framed_binary

NULL_FIELD = b"\xff\xff\xff\xff"
LIMIT = 1 << 30  # bytes in one batch's messages: well inside int32 offsets


def _heads(dtype: np.dtype, values: dict[str, object]) -> pa.Array:
    """One fixed-width head per row from a numpy structured array, as Arrow binary."""
    n = len(next(iter(v for v in values.values() if isinstance(v, np.ndarray))))
    rec = np.empty(n, dtype)
    for name, v in values.items():
        rec[name] = v
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(dtype.itemsize), n,
                                                 [None, pa.py_buffer(rec.tobytes())])
    return fixed.cast(pa.binary())


def lengths(arr: pa.Array) -> np.ndarray:
    """Each value's length in bytes (0 for NULL) as int64, from the array's offsets (a NULL
    slot can still own bytes: then by Arrow's kernel)."""
    if arr.type in (pa.binary(), pa.string()):
        offsets = np.frombuffer(arr.buffers()[1], np.int32, len(arr) + 1, arr.offset * 4)
        n = np.diff(offsets).astype(np.int64)
        if not arr.null_count or not n[~np.asarray(arr.is_valid())].any():
            return n
    return pc.fill_null(pc.binary_length(arr), 0).to_numpy().astype(np.int64)


def fits(arrays: Sequence[pa.Array]) -> bool:
    """True when the arrays' bytes together stay under LIMIT."""
    return sum(a.nbytes for a in arrays) < LIMIT


_LEN = np.dtype([("n", ">i4")])


def fields(values: pa.Array) -> pa.Array:
    """Each value with its int32 length in front; NULL becomes the -1 length alone."""
    data = values.cast(pa.binary()) if values.type != pa.binary() else values
    heads = _heads(_LEN, {"n": lengths(data)})
    joined = pc.binary_join_element_wise(heads, data, b"")  # NB: NULL where the value is NULL
    return pc.fill_null(joined, NULL_FIELD) if data.null_count else joined


def binary_fields(col: Sequence[Any] | Coded, oid: int, enc: Callable[[Any], bytes] | None
                  ) -> pa.Array:
    """`fields` of a column's binary send forms: built with the lengths in place when the
    type has such a form (`vectext.framed_binary`), else by `fields(binary_array(...))`."""
    got = framed_binary(col, oid)
    return got if got is not None else fields(binary_array(col, oid, enc))


def _view(arr: pa.Array) -> memoryview:
    """The bytes of all values of a binary array, in order, without a copy."""
    offsets = np.frombuffer(arr.buffers()[1], np.int32, len(arr) + 1, arr.offset * 4)
    data = arr.buffers()[2]
    return memoryview(data)[int(offsets[0]):int(offsets[-1])] if data is not None \
        else memoryview(b"")


_ROW = np.dtype([("k", "S1"), ("n", ">i4"), ("c", ">i2")])


def data_rows(cols: Sequence[pa.Array], kind: bytes = b"D", prefix: bytes = b"") -> memoryview:
    """One message per row (DataRow `D`, or CopyData `d` of a binary COPY row): the head,
    the int16 field count, then the row's `fields`. `prefix` rides in the first message,
    after its head (the binary COPY signature)."""
    n = len(cols[0])
    size = sum((lengths(c) for c in cols), np.full(n, 6, np.int64))
    if prefix:
        size[0] += len(prefix)
    heads = _heads(_ROW, {"k": kind, "n": size, "c": len(cols)})
    if prefix:
        heads = pa.concat_arrays([pa.array([heads[0].as_py()[:5] + prefix + heads[0].as_py()[5:]],
                                           pa.binary()), heads[1:]])
    return _view(pc.binary_join_element_wise(heads, *cols, b""))


_COPY = np.dtype([("k", "S1"), ("n", ">i4")])


def copy_lines(cells: Sequence[pa.Array], delim: str) -> bytes:
    """One CopyData per row: the row's text cells (no NULLs left) joined by the delimiter,
    and a newline. The head of row i+1 is joined after row i's newline, so one join over
    (line, next head) frames the batch; the first head goes in front."""
    line = cells[0] if len(cells) == 1 else pc.binary_join_element_wise(*cells, delim)
    line = line.cast(pa.binary())
    n = len(line)
    heads = _heads(_COPY, {"k": b"d", "n": lengths(line) + 5})
    following = pa.concat_arrays([heads[1:], pa.array([b""], pa.binary())])
    framed = pc.binary_join_element_wise(line, following, b"\n")
    return b"".join((heads[0].as_py(), _view(framed))) if n else b""
