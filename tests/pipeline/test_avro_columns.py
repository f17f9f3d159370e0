"""The spool's column-wise Avro decoding (DuckDB's avro extension) against fastavro's records.

No Spark here: both decoders read the same container files, written by
fastavro with every field type the spool source maps (nullable unions with
NULLs, `timestamp-millis` and `-micros`, `date`, the extremes of `int` and
`long`, non-ASCII text, empty bytes), plus an empty file in the middle; the
batches must be equal value for value, in file and record order, and carry
exactly the Arrow schema Spark checks a Python source's batches against.
"""

from __future__ import annotations

import datetime as dt
import os

import fastavro
import pyarrow as pa
import pytest

from cumulo.pipeline.sparktypes import arrow_schema
from cumulo.pipeline.tickdata import avrocols
from cumulo.pipeline.tickdata.spool import avro_schema

SCHEMA = fastavro.parse_schema({
    "type": "record", "name": "Every", "fields": [
        {"name": "s", "type": "string"},
        {"name": "ns", "type": ["null", "string"]},
        {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "us", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
        {"name": "d", "type": {"type": "int", "logicalType": "date"}},
        {"name": "x", "type": "double"}, {"name": "f", "type": "float"},
        {"name": "l", "type": ["null", "long"]}, {"name": "i", "type": "int"},
        {"name": "b", "type": "boolean"}, {"name": "y", "type": "bytes"},
    ]})
UTC = dt.UTC


def _record(k: int) -> dict:
    return {
        "s": f"é{k}" * (k % 3), "ns": None if k % 4 == 0 else f"n{k}",
        "ms": dt.datetime(2026, 1, 5, 8, 0, tzinfo=UTC) + dt.timedelta(milliseconds=7 * k),
        "us": None if k % 5 == 0 else
        dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC) + dt.timedelta(microseconds=k),
        "d": dt.date(1970, 1, 1) + dt.timedelta(days=k - 50), "x": k / 3.0 - 10,
        "f": float(k) / 4, "l": None if k % 6 == 0 else (-2 ** 63 if k == 1 else k * 10 ** 12),
        "i": 2 ** 31 - 1 if k == 2 else -k, "b": k % 2 == 0, "y": bytes(range(k % 4)),
    }


@pytest.fixture(scope="module")
def spool(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("spool"))
    k = 0
    for seq, n in enumerate((300, 0, 7, 450)):  # NB: an empty file between full ones
        with open(os.path.join(folder, f"tick-{seq:08d}.avro"), "wb") as f:
            fastavro.writer(f, SCHEMA, [_record(k + j) for j in range(n)])
        k += n
    return folder


def test_column_wise_decoding_equals_fastavro_records(spool):
    conn = avrocols.decoder()
    assert conn is not None, "DuckDB's avro extension is missing: pip install duckdb-extension-avro"
    paths = [os.path.join(spool, n) for n in sorted(os.listdir(spool))]
    schema = arrow_schema(avro_schema(spool))

    columns = list(avrocols.column_batches(conn, paths, schema, 200))
    records = list(avrocols.records_to_batches(paths, schema, 200))
    assert all(b.schema == schema for b in columns)
    assert max(b.num_rows for b in columns) <= 200
    assert pa.Table.from_batches(columns).equals(pa.Table.from_batches(records))
    assert pa.Table.from_batches(columns).num_rows == 757
    assert pa.Table.from_batches(columns).column("ns").null_count == 190

    # a projection in another order (a user-given schema), and the public entry point
    sub = pa.schema([schema.field("y"), schema.field("us"), schema.field("s")])
    got = pa.Table.from_batches(list(avrocols.read_batches(paths[2:], sub, 10_000)))
    assert got.schema == sub
    assert got.to_pylist() == [{"y": r["y"], "us": r["us"], "s": r["s"]}
                               for r in (_record(k) for k in range(300, 757))]
    assert list(avrocols.read_batches([], schema, 10)) == []


def test_micro_batches_split_into_tasks_only_when_each_gets_several_files(spool, tmp_path):
    """A live trigger's file or two is one task; a backlog batch one task per core (here 2),
    every file of the offset range in exactly one of them."""
    from cumulo.pipeline.tickdata.spool import MIN_PART_FILES, SpoolReader

    for seq in range(4 * MIN_PART_FILES):
        with open(tmp_path / f"tick-{seq:08d}.avro", "wb") as f:
            fastavro.writer(f, SCHEMA, [_record(seq)])
    reader = SpoolReader(str(tmp_path), 0, avro_schema(spool), 2)
    small = reader.partitions({"files": 1}, {"files": MIN_PART_FILES + 2})
    assert [p.names for p in small] == [[f"tick-{s:08d}.avro" for s in range(1, MIN_PART_FILES + 2)]]
    big = reader.partitions({"files": 0}, {"files": 4 * MIN_PART_FILES})
    assert len(big) == 2
    assert sorted(n for p in big for n in p.names) == sorted(os.listdir(tmp_path))
