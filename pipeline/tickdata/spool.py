"""A replayable Structured Streaming source over an Avro spool folder (a Kafka topic stand-in).

    spark.readStream.format("cumulo_avro_spool").option("path", spool)
         .option("maxFilesPerTrigger", 4).load()

The offset is `{"files": n}`: the first n files in name order, so offsets
mean the same thing after a restart and Spark can replay any micro-batch
from its checkpointed offsets, as with Kafka. Each micro-batch reads at most
`maxFilesPerTrigger` files (Spark's `ReadMaxFiles` limit), grouped into
about one partition per core (a small micro-batch into one); `availableNow`
triggers stop at the files present when the query starts. The schema is the Avro writer schema of the
spool's first file, mapped to Spark types (`long` with `timestamp-millis`
-> timestamp, `["null", X]` -> nullable X).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import fastavro
import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxFiles,
    SupportsTriggerAvailableNow,
)

from ..sparkhome import forget_spark_jar
from ..sparktypes import arrow_schema
from .avrocols import read_batches

# A micro-batch is split into parallel tasks only when each gets this many files: decoding
# is about 1 us per tick, so a live trigger's file or two costs less than a second task's
# start (a Python worker each for its read and its write, Spark's task set-up).
MIN_PART_FILES = 4
BATCH_ROWS = 10_000  # Spark's own Arrow batch size (spark.sql.execution.arrow.maxRecordsPerBatch)
_AVRO = {"string": st.StringType(), "double": st.DoubleType(), "float": st.FloatType(),
         "long": st.LongType(), "int": st.IntegerType(), "boolean": st.BooleanType(),
         "bytes": st.BinaryType()}


def spark_type(avro: Any) -> tuple[st.DataType, bool]:
    """The Spark type of an Avro field type, and whether it is nullable."""
    if isinstance(avro, list):
        rest = [t for t in avro if t != "null"]
        if len(rest) != 1:
            raise ValueError(f"unsupported Avro union {avro}")
        return spark_type(rest[0])[0], True
    if isinstance(avro, dict):
        logical = avro.get("logicalType")
        if logical in ("timestamp-millis", "timestamp-micros"):
            return st.TimestampType(), False
        if logical == "date":
            return st.DateType(), False
        return spark_type(avro["type"])
    if avro in _AVRO:
        return _AVRO[avro], False
    raise ValueError(f"unsupported Avro type {avro}")


def spool_files(path: str) -> list[str]:
    """The spool's complete files, in offset order."""
    try:
        return sorted(n for n in os.listdir(path) if n.endswith(".avro"))
    except FileNotFoundError:
        return []


def avro_schema(path: str) -> st.StructType:
    """The Spark schema of the spool's records (from its first file)."""
    files = spool_files(path)
    if not files:
        raise ValueError(f"the spool {path} holds no .avro file to take the schema from")
    with open(os.path.join(path, files[0]), "rb") as f:
        schema = fastavro.reader(f).writer_schema
    fields = []
    for field in schema["fields"]:
        t, nullable = spark_type(field["type"])
        fields.append(st.StructField(field["name"], t, nullable))
    return st.StructType(fields)


@dataclass
class Files(InputPartition):
    """One partition of a micro-batch: some spool files."""

    index: int
    names: list[str]

    def __post_init__(self) -> None:
        InputPartition.__init__(self, self.index)


class SpoolReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets are file counts; a micro-batch is the files between two offsets."""

    def __init__(self, path: str, max_files: int, schema: st.StructType, groups: int) -> None:
        self.path = path
        self.max_files = max_files
        self.arrow = arrow_schema(schema)
        self.groups = groups
        self.cap: int | None = None

    def initialOffset(self) -> dict:  # noqa: N802 (Spark's names)
        return {"files": 0}

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802
        return ReadMaxFiles(self.max_files) if self.max_files > 0 else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802
        self.cap = len(spool_files(self.path))

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:  # noqa: N802
        n = len(spool_files(self.path))
        if self.cap is not None:
            n = min(n, self.cap)
        if isinstance(limit, ReadMaxFiles):
            n = min(n, start["files"] + limit.max_files)
        return {"files": max(n, start["files"])}

    def partitions(self, start: dict, end: dict) -> list[Files]:
        names = spool_files(self.path)[start["files"]:end["files"]]
        k = max(1, min(self.groups, len(names) // MIN_PART_FILES))
        return [Files(i, names[i::k]) for i in range(k) if names[i::k]]

    def read(self, partition: Files) -> Iterator[pa.RecordBatch]:  # type: ignore[override]
        """Yields the partition's records in batches of about BATCH_ROWS, not one per file
        (each batch costs Spark a message and a conversion set-up), decoded column-wise
        (`avrocols`)."""
        forget_spark_jar()
        yield from read_batches([os.path.join(self.path, n) for n in partition.names],
                                self.arrow, BATCH_ROWS)

    def commit(self, end: dict) -> None:
        """Nothing to acknowledge: the spool keeps its files (it is replayable)."""


class AvroSpoolSource(DataSource):
    """The `cumulo_avro_spool` streaming source (register it: spark.dataSource.register)."""

    @classmethod
    def name(cls) -> str:
        return "cumulo_avro_spool"

    def schema(self) -> st.StructType:
        return avro_schema(self.options["path"])

    def streamReader(self, schema: st.StructType) -> SpoolReader:  # noqa: N802
        return SpoolReader(self.options["path"], int(self.options.get("maxFilesPerTrigger", 0)),
                           schema, int(self.options.get("partitions", 2)))
