"""append_batch encodes row and column batches exactly as the per-row append_rows does."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.codecs import column_encoders
from cumulo.server.pgwire.batchenc import append_batch
from cumulo.server.pgwire.messages import append_rows

OIDS = [T.INT4, T.TEXT, T.INT8, T.BOOL, T.FLOAT8, T.NUMERIC, T.TIMESTAMP, T.VARCHAR]


def _rows(n: int) -> list[tuple]:
    out = []
    for i in range(n):
        out.append((
            i if i % 7 else None, f"t{i}é" if i % 5 else None, i * 1_000_000_007, i % 2 == 0,
            i / 3 if i % 11 else float("inf"), Decimal(i) / 4,
            dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i), "x" * (i % 4),
        ))
    return out


def _reference(rows, encoders, keep=None) -> bytes:
    out = bytearray()
    if keep is not None:
        rows = [tuple(r[i] for i in keep) for r in rows]
    append_rows(out, rows, encoders)
    return bytes(out)


@pytest.mark.parametrize("n", [0, 1, 15, 16, 100, 1000])
@pytest.mark.parametrize("fmt", [0, 1])
def test_row_batches_match_append_rows(n, fmt):
    rows = _rows(n)
    encoders = column_encoders(OIDS, [fmt] * len(OIDS))
    out = bytearray()
    assert append_batch(out, rows, encoders) == n
    assert bytes(out) == _reference(rows, encoders)


@pytest.mark.parametrize("keep", [[0, 2], [1], [], [7, 0, 3]])
def test_hidden_columns_are_dropped_per_batch(keep):
    rows = _rows(50)
    encoders = column_encoders([OIDS[i] for i in keep], [0] * len(keep))
    out = bytearray()
    append_batch(out, rows, encoders, keep)
    assert bytes(out) == _reference(rows, encoders, keep)


def test_column_batches_numpy_and_arrow():
    rows = [(i, f"s{i}", None if i % 3 == 0 else i * 2) for i in range(40)]
    encoders = column_encoders([T.INT8, T.TEXT, T.INT4], [0, 0, 0])
    want = _reference(rows, encoders)
    cols = list(zip(*rows, strict=True))
    as_numpy = {"a": np.array(cols[0], dtype=np.int64), "b": np.array(cols[1], dtype=object),
                "c": list(cols[2])}
    out = bytearray()
    assert append_batch(out, as_numpy, encoders) == 40
    assert bytes(out) == want
    rb = pa.RecordBatch.from_pydict({"a": list(cols[0]), "b": list(cols[1]),
                                     "c": list(cols[2])})
    out = bytearray()
    assert append_batch(out, rb, encoders) == 40
    assert bytes(out) == want
    out = bytearray()
    append_batch(out, rb, encoders[1:], keep=[1, 2])
    assert bytes(out) == _reference(rows, encoders[1:], [1, 2])


def test_strings_with_nul_and_zero_column_rows():
    encoders = column_encoders([T.TEXT], [0])
    rows = [("a\0b",)] + [(f"r{i}",) for i in range(30)]
    out = bytearray()
    append_batch(out, rows, encoders)
    assert bytes(out) == _reference(rows, encoders)
    out = bytearray()
    assert append_batch(out, [()] * 20, []) == 20
    assert bytes(out) == _reference([()] * 20, [])
