"""DataRows from whole batches: rows or columns in, one encoding pass per column out.

The executor produces batches; the columnar path produces column batches (a
dict of numpy arrays, a pyarrow RecordBatch). `append_batch` takes either and
appends one DataRow per row, encoding column by column: the common text
encodings (strings, integers) become one C-level pass over the whole column
(`str.join` and `bytes.split`), others one `map` of the column's encoder, and
hidden columns are dropped once per batch (`keep`), not per row. Small batches
(a point lookup's single row) take the per-row path, which is cheaper for them.

    >>> from cumulo.server.pgtypes.codecs import column_encoders
    >>> out = bytearray()
    >>> append_batch(out, {"a": [1, 2], "b": ["x", None]}, column_encoders([23, 25], [0, 0]))
    2
    >>> bytes(out[:7])
    b'D\\x00\\x00\\x00\\x10\\x00\\x02'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from ..pgtypes.codecs import ColumnEncoders, _int_bytes, _text_bytes
from ..pgtypes.coded import values
from ..pgtypes.vectext import text_array
from .colframe import binary_fields, data_rows, fields, fits
from .messages import _ROW_HEAD, I32, NULL_FIELD, append_rows

SMALL = 16  # below this many rows, the per-row path is cheaper
ARROW_ROWS = 64  # from this many rows, whole columns through Arrow (ColumnEncoders only)

Encoder = Callable[[Any], bytes]


def append_batch(out: bytearray, batch: Any, encoders: Sequence[Encoder],
                 keep: Sequence[int] | None = None) -> int:
    """Appends DataRows for a row batch (a list of row tuples) or a column batch (a dict of
    sequences or numpy arrays, or a pyarrow RecordBatch); `keep` lists the column positions
    to send. Returns the number of rows."""
    if isinstance(batch, list):
        rows: list[Sequence[Any]] = batch
        if keep is not None:
            if not keep:
                rows = [() for _ in rows]
            elif len(keep) == 1:
                rows = [(r[keep[0]],) for r in rows]
            else:
                pick = itemgetter(*keep)
                rows = [pick(r) for r in rows]
        if len(rows) < SMALL or not encoders:
            append_rows(out, rows, encoders)
            return len(rows)
        cols: list[Sequence[Any]] = [list(map(itemgetter(i), rows)) for i in range(len(rows[0]))]
        if (len(rows) >= ARROW_ROWS and isinstance(encoders, ColumnEncoders)
                and _append_arrow(out, cols, encoders)):
            return len(rows)
        return _append_columns(out, cols, encoders, len(rows))
    cols = _columns(batch)
    if keep is not None:
        cols = [cols[i] for i in keep]
    n = len(cols[0]) if cols else 0
    if n >= ARROW_ROWS and isinstance(encoders, ColumnEncoders) and _append_arrow(
            out, cols, encoders):
        return n
    return _append_columns(out, cols, encoders, n)


def append_columns(out: bytearray, cols: list[Any], n: int, encoders: Sequence[Encoder]) -> int:
    """Appends the DataRows of n rows given as their columns (value lists, or columns in
    their stored form, `pgtypes.coded.Coded`, from a table's cold segments: the Arrow
    encoders read those directly). Returns n."""
    if n >= ARROW_ROWS and isinstance(encoders, ColumnEncoders) and _append_arrow(
            out, cols, encoders):
        return n
    return _append_columns(out, [values(c) for c in cols], encoders, n)


def _columns(batch: Any) -> list[Sequence[Any]]:
    """The batch's columns as Python sequences (numpy and Arrow give Python values)."""
    if isinstance(batch, dict):
        values = list(batch.values())
    else:  # a pyarrow RecordBatch
        values = [c.to_pylist() for c in batch.columns]
    return [v.tolist() if hasattr(v, "tolist") else v for v in values]


def _append_arrow(out: bytearray, cols: list[Sequence[Any]], encoders: ColumnEncoders) -> bool:
    """Appends the DataRows of the columns through Arrow (`pgtypes.vectext` forms of whole
    columns, `colframe` joins and frames them); False when the batch is too big for one
    pass (then nothing was appended)."""
    if not cols:
        return False
    arrays = []
    for i, col in enumerate(cols):
        oid, enc = encoders.oids[i], encoders[i]
        if encoders.formats[i] == 1:
            arrays.append(binary_fields(col, oid, enc))
        else:
            arrays.append(fields(text_array(col, oid, enc, encoders.iso)))
    if not fits(arrays):
        return False
    out += data_rows(arrays)
    return True


def _append_columns(out: bytearray, cols: list[Sequence[Any]], encoders: Sequence[Encoder],
                    n: int) -> int:
    ncols = len(cols)
    head = _ROW_HEAD.pack
    if ncols == 0:
        empty = head(b"D", 6, 0)
        out += empty * n
        return n
    cells = [_cells(col, enc) for col, enc in zip(cols, encoders, strict=True)]
    join = b"".join
    for row in zip(*cells, strict=True):
        body = join(row)
        out += head(b"D", len(body) + 6, ncols)
        out += body
    return n


def _cells(col: Sequence[Any], enc: Encoder) -> list[bytes]:
    """One column's cells, each with its length prefix (NULL: -1)."""
    pack = I32.pack
    fast = _fast_text(col, enc)
    if fast is not None:
        return [pack(len(b)) + b for b in fast]
    null = NULL_FIELD
    return [null if v is None else pack(len(b)) + b
            for v, b in zip(col, map(lambda v: b"" if v is None else enc(v), col), strict=True)]


def _fast_text(col: Sequence[Any], enc: Encoder) -> list[bytes] | None:
    """Text-format strings and integers of a column without NULLs, in one C-level pass."""
    if enc is _text_bytes:
        kinds = set(map(type, col))
        if kinds != {str}:
            return None
        parts = "\0".join(col).encode().split(b"\0")
    elif enc is _int_bytes:
        kinds = set(map(type, col))
        if kinds != {int}:
            return None
        parts = "\0".join(map(str, col)).encode().split(b"\0")
    else:
        return None
    return parts if len(parts) == len(col) else None  # NB: a NUL inside a string
