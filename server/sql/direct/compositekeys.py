"""KiVi keys of a batch with a multi-column primary key, built column-wise by Arrow and numpy.

`colkeys` covers a one-integer key. A tick stream is keyed by
`(product text, datetime timestamptz)`, and encoding such keys one row at a
time (`encode_key` of a tuple per row) was the direct write's largest Python
cost per row. Each key element of `kivi.keycodec` is a tag and a body, and a
key is their concatenation, so a column of elements can be built at once:

- an int64 element is `0x11 || (v + 2**63)` big-endian (a numpy record array);
- a timestamp is `0x33` (naive) or `0x34` (UTC) `|| (µs since 0001-01-01 + 2**63)`;
- a text is `0x20 || utf-8 with 0x00 -> 0x00 0xff || 0x00 0x01` (Arrow string kernels);

and `binary_join_element_wise` concatenates them row by row in C. Columns the
row path would change (a typmod converter, bpchar padding, a generated or
domain column) or values it would treat specially (NULL, a timestamp outside
Python's datetime range) return None: the caller then takes the row path, so
the two paths cannot disagree (tests/pipeline/test_direct_compositekeys.py
checks byte identity on random and edge values).

    >>> import datetime as dt
    >>> import pyarrow as pa
    >>> from cumulo.server.kivi.keycodec import encode_key
    >>> cols = [pa.chunked_array([["EURUSD", ""]]),
    ...         pa.chunked_array([[0, -5]], pa.timestamp("us", tz="UTC"))]
    >>> keys = element_keys(cols, ["text", "timestamptz"])
    >>> keys[0] == encode_key(("EURUSD", dt.datetime(1970, 1, 1, tzinfo=dt.UTC)))
    True
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...pgtypes import oids as T

_BIAS = np.uint64(1 << 63)
_EPOCH_US = (dt.datetime(1970, 1, 1) - dt.datetime(1, 1, 1)) // dt.timedelta(microseconds=1)
_TS_MIN = -_EPOCH_US  # 0001-01-01 00:00 in µs since 1970
_TS_MAX = (dt.datetime.max - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_ELEM = np.dtype([("t", "u1"), ("v", ">u8")])
_TAGS = {"int": 0x11, "timestamp": 0x33, "timestamptz": 0x34}
_KIND: dict[int, str] = {
    T.INT2: "int", T.INT4: "int", T.INT8: "int", T.TEXT: "text", T.VARCHAR: "text",
    T.TIMESTAMP: "timestamp", T.TIMESTAMPTZ: "timestamptz",
}
_ARROW = {"int": pa.int64(), "text": pa.string(), "timestamp": pa.timestamp("us"),
          "timestamptz": pa.timestamp("us", tz="UTC")}
_ESC = (b"\x00", b"\x00\xff")
# NB: bytes, not pa.scalar constants: pa.scalar imports pandas (~0.5 s), which no server
# start should wait for (the server loads it in the background, cli.BACKGROUND_MODULES)
_STR_HEAD, _STR_TAIL = b"\x20", b"\x00\x01"


def key_kinds(oids: Sequence[int], plain: Sequence[bool]) -> list[str] | None:
    """The element kinds of a primary key's column types, or None if one has no column encoder.

    `plain[i]` says the row path stores column i's values unchanged (no typmod
    converter, no generated value); only then may the keys come from the batch.
    """
    kinds = [_KIND.get(o) for o in oids]
    if not all(plain) or None in kinds:
        return None
    return [k for k in kinds if k is not None]


def _fixed(tag: int, v: np.ndarray) -> pa.Array:
    rec = np.empty(len(v), dtype=_ELEM)
    rec["t"] = tag
    rec["v"] = v.view(np.uint64) ^ _BIAS
    buf = pa.py_buffer(rec.tobytes())
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(9), len(v), [None, buf]).cast(pa.binary())


def _element(col: Any, kind: str) -> pa.Array | None:
    """One key element per row of `col`, as a binary array; None when the row path must decide."""
    if col.null_count:
        return None
    want = _ARROW[kind]
    if kind == "text":
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            return None  # NB: the row path casts other types to text; it owns those rules
        raw = pc.replace_substring(col.cast(pa.binary()), *_ESC)
        return pc.binary_join_element_wise(_STR_HEAD, raw, _STR_TAIL, b"")
    if kind == "int":
        if not pa.types.is_integer(col.type) or pa.types.is_uint64(col.type):
            return None
        v = np.asarray(col.cast(want).to_numpy(), dtype=np.int64)
        return _fixed(_TAGS[kind], v)
    if not pa.types.is_timestamp(col.type) or (col.type.tz is None) != (want.tz is None):
        return None  # NB: the row path's naive <-> aware conversion stays its own
    us = np.asarray(col.cast(want).cast(pa.int64()).to_numpy(), dtype=np.int64)
    if len(us) and (int(us.min()) < _TS_MIN or int(us.max()) > _TS_MAX):
        return None
    return _fixed(_TAGS[kind], us + np.int64(_EPOCH_US))


def element_keys(cols: Sequence[Any], kinds: Sequence[str]) -> list[bytes] | None:
    """The keys of the rows whose primary-key columns are `cols` (Arrow), in row order.

    None when a column cannot give its elements here (see the module doc).
    """
    parts = []
    for col, kind in zip(cols, kinds, strict=True):
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        part = _element(col, kind)
        if part is None:
            return None
        parts.append(part)
    if not parts:
        return None
    joined = parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, b"")
    keys: list[bytes] = joined.to_pylist()
    return keys
