"""The Spark <-> Cumulo type map (PIPELINE.md §3), for schemas, casts and CREATE TABLE.

Reading, a table's Arrow schema (as `cumulo_describe` reports it) becomes a
Spark schema; writing with `createTable`, a Spark schema becomes a CREATE
TABLE statement:

| Spark | Cumulo (PostgreSQL) |
|---|---|
| string | text |
| timestamp / timestamp_ntz | timestamptz / timestamp |
| double / float | double precision / real |
| bigint / int / smallint, tinyint | bigint / integer / smallint |
| boolean, date, binary | boolean, date, bytea |
| decimal(p,s) | numeric(p,s) |

    >>> from pyspark.sql.types import StructType, StructField, StringType, LongType
    >>> create_table_sql("t", StructType([StructField("k", StringType()),
    ...                                   StructField("n", LongType())]), ["k"])
    'CREATE TABLE IF NOT EXISTS "t" ("k" text NOT NULL, "n" bigint, PRIMARY KEY ("k"))'
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.pandas.types import to_arrow_schema

_SCALARS: list[tuple[type, str]] = [
    (st.StringType, "text"), (st.TimestampNTZType, "timestamp"),
    (st.TimestampType, "timestamptz"), (st.DoubleType, "double precision"),
    (st.FloatType, "real"), (st.LongType, "bigint"), (st.IntegerType, "integer"),
    (st.ShortType, "smallint"), (st.ByteType, "smallint"), (st.BooleanType, "boolean"),
    (st.DateType, "date"), (st.BinaryType, "bytea"),
]


def quote_ident(name: str) -> str:
    """Quotes an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def quote_table(name: str) -> str:
    """Quotes a possibly schema-qualified table name (`a.b` -> `"a"."b"`)."""
    return ".".join(quote_ident(p) for p in name.split("."))


def sql_type(t: st.DataType) -> str:
    """The column type that stores a Spark type."""
    if isinstance(t, st.DecimalType):
        return f"numeric({t.precision},{t.scale})"
    for cls, name in _SCALARS:
        if isinstance(t, cls):
            return name
    raise ValueError(f"no Cumulo column type for Spark type {t.simpleString()}")


def create_table_sql(table: str, schema: st.StructType, primary_key: Sequence[str]) -> str:
    """CREATE TABLE IF NOT EXISTS for a Spark schema (PK columns NOT NULL)."""
    missing = [k for k in primary_key if k not in schema.names]
    if missing:
        raise ValueError(f"primaryKey names {missing[0]!r}, which the data does not have")
    cols = [f"{quote_ident(f.name)} {sql_type(f.dataType)}"
            + (" NOT NULL" if f.name in primary_key or not f.nullable else "")
            for f in schema.fields]
    if primary_key:
        cols.append("PRIMARY KEY (" + ", ".join(quote_ident(k) for k in primary_key) + ")")
    return f"CREATE TABLE IF NOT EXISTS {quote_table(table)} ({', '.join(cols)})"


def spark_type(t: pa.DataType) -> st.DataType:
    """The Spark type of an Arrow type as the direct API carries it."""
    if pa.types.is_timestamp(t):
        return st.TimestampType() if t.tz is not None else st.TimestampNTZType()
    if pa.types.is_decimal(t):
        return st.DecimalType(t.precision, t.scale)
    simple = {
        pa.bool_(): st.BooleanType(), pa.int16(): st.ShortType(), pa.int32(): st.IntegerType(),
        pa.int64(): st.LongType(), pa.float32(): st.FloatType(), pa.float64(): st.DoubleType(),
        pa.string(): st.StringType(), pa.binary(): st.BinaryType(), pa.date32(): st.DateType(),
    }
    if t in simple:
        return simple[t]
    raise ValueError(f"no Spark type for Arrow type {t}")


def spark_schema(schema: pa.Schema) -> st.StructType:
    """The Spark schema of a described table."""
    return st.StructType([st.StructField(f.name, spark_type(f.type), f.nullable) for f in schema])


def arrow_schema(schema: st.StructType) -> pa.Schema:
    """The Arrow schema Spark expects batches of `schema` in (timestamps in UTC)."""
    return to_arrow_schema(schema, timezone="UTC")
