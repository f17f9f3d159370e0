"""Table columns as Arrow: the type of each column, rows to record batches and back.

The direct API moves whole column batches, so each conversion is one
pyarrow call per column (`pa.array(values, type)`, `cast`, `to_pylist`),
never a Python call per value. Types without an Arrow counterpart that
clients agree on (interval, json, uuid, arrays...) travel as text in
PostgreSQL's output format and are parsed by the type's input function on
the way in, so nothing is lost, only made textual.

    >>> from ...pgtypes import oids as T
    >>> str(arrow_type(T.TIMESTAMPTZ, -1)), str(arrow_type(T.NUMERIC, (10 << 16 | 2) + 4))
    ('timestamp[us, tz=UTC]', 'decimal128(10, 2)')
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pyarrow as pa

from ...errors import (
    DatatypeMismatch,
    InvalidBinaryRepresentation,
    InvalidParameterValue,
    InvalidTextRepresentation,
    NumericValueOutOfRange,
    UndefinedColumn,
)
from ...pgtypes import oids as T
from ...pgtypes.fardate import FarDate, FarTimestamp
from ...pgtypes.infdate import InfiniteDate, InfiniteTimestamp
from ...pgtypes.numtypmod import precision_scale
from ...pgtypes.text import text_decoder
from ..catalog.model import Table
from ..expr.casts import to_text
from . import fararrow

_FIXED: dict[int, pa.DataType] = {
    T.BOOL: pa.bool_(), T.INT2: pa.int16(), T.INT4: pa.int32(), T.INT8: pa.int64(),
    T.FLOAT4: pa.float32(), T.FLOAT8: pa.float64(), T.TEXT: pa.string(),
    T.VARCHAR: pa.string(), T.BPCHAR: pa.string(), T.NAME: pa.string(),
    T.BYTEA: pa.binary(), T.DATE: pa.date32(), T.TIMESTAMP: pa.timestamp("us"),
    T.TIMESTAMPTZ: pa.timestamp("us", tz="UTC"), T.OID: pa.int64(),
}
_NUMERIC_DEFAULT = (38, 18)  # what Spark's JDBC source reads an unconstrained numeric as


def arrow_type(oid: int, typmod: int) -> pa.DataType:
    """Returns the Arrow type a column of PostgreSQL type `oid` (with `typmod`) travels as."""
    t = _FIXED.get(oid)
    if t is not None:
        return t
    if oid == T.NUMERIC:
        if typmod >= 4:
            p, s = precision_scale(typmod)
            if s < 0:  # numeric(5, -2) holds integers of up to 7 digits
                p, s = p - s, 0
            if 0 < p <= 38 and 0 <= s <= p:
                return pa.decimal128(p, s)
        return pa.decimal128(*_NUMERIC_DEFAULT)
    return pa.string()


def textual(oid: int) -> bool:
    """Whether a column of type `oid` travels as text (no Arrow type of its own)."""
    return oid not in _FIXED and oid != T.NUMERIC



def table_schema(table: Table, positions: Sequence[int] | None = None) -> pa.Schema:
    """The Arrow schema of a table's live columns (or of `positions`); PK names in metadata."""
    cols = table.live_columns if positions is None else [table.columns[i] for i in positions]
    fields = [pa.field(c.name, arrow_type(c.type_oid, c.typmod), nullable=not c.not_null)
              for c in cols]
    pk = ",".join(table.columns[a - 1].name for a in table.primary_key)
    return pa.schema(fields, metadata={b"cumulo.primary_key": pk.encode(),
                                       b"cumulo.pg_types": ",".join(
                                           str(c.type_oid) for c in cols).encode()})


def rows_to_batch(table: Table, positions: Sequence[int], rows: list[tuple[Any, ...]],
                  schema: pa.Schema) -> pa.RecordBatch:
    """Turns scanned rows (already projected to `positions`) into one record batch."""
    if not rows:
        return pa.RecordBatch.from_pylist([], schema=schema)
    columns = list(zip(*rows, strict=True)) if len(positions) else []
    arrays = [values_array(table.columns[pos].type_oid, schema.field(j).type, columns[j])
              for j, pos in enumerate(positions)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def values_array(oid: int, typ: pa.DataType, vals: Sequence[Any]) -> pa.Array:
    """One column's stored Python values as an Arrow array of its API type `typ`."""
    if textual(oid):
        vals = [None if v is None else to_text(v, oid) for v in vals]
    elif oid in (T.TIMESTAMPTZ, T.TIMESTAMP, T.DATE):
        vals = _clamp_infinite(vals)
    try:
        return pa.array(vals, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        if pa.types.is_decimal(typ):  # more digits than the default scale: round
            q = Decimal(1).scaleb(-typ.scale)
            return pa.array([None if v is None or not v.is_finite() else v.quantize(q)
                             for v in vals], type=typ)
        raise


def _clamp_infinite(vals: Sequence[Any]) -> Sequence[Any]:
    """'infinity' timestamps and dates have no Arrow value: they travel as NULL (the real
    0001-01-01 and 9999-12-31 are values: the sentinels are types of their own)."""
    if not any(isinstance(v, _SPECIAL) for v in vals):
        return vals
    # NB: a date BC or after 9999 goes as Arrow's own integer (fararrow), not a NULL
    return [None if isinstance(v, _INFINITE) else fararrow.arrow_int(v)
            if isinstance(v, _FAR) else v for v in vals]


_INFINITE = (InfiniteDate, InfiniteTimestamp)
_FAR = (FarDate, FarTimestamp)
_SPECIAL = _INFINITE + _FAR


def resolve_columns(table: Table, names: Sequence[str]) -> list[int]:
    """Maps column names to positions in the stored row; 42703 names the unknown one."""
    by_name = {c.name: c.attnum - 1 for c in table.live_columns}
    out = []
    for n in names:
        pos = by_name.get(n)
        if pos is None:
            raise UndefinedColumn(f'column "{n}" of relation "{table.name}" does not exist')
        out.append(pos)
    return out


def column_values(table: Table, pos: int, col: pa.ChunkedArray | pa.Array) -> list[Any]:
    """Converts one incoming Arrow column to the Python values stored for the table's column.

    The column is first cast to the table column's Arrow type (so an int64 batch
    loads an integer column, with 22003 on overflow), then turned into Python
    values in one call; text-carried types go through their input function.
    """
    c = table.columns[pos]
    want = arrow_type(c.type_oid, c.typmod)
    if textual(c.type_oid):
        dec = text_decoder(c.type_oid)
        if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
            col = _cast(col, pa.string(), c.name)
        if dec is str:  # text, varchar, name...: Arrow's str values are the stored ones
            return col.to_pylist()
        return [None if v is None else dec(v) for v in col.to_pylist()]
    if col.type != want:
        if pa.types.is_timestamp(want) and pa.types.is_timestamp(col.type):
            if want.tz is None and col.type.tz is not None:  # timestamptz -> timestamp: UTC wall
                col = _cast(col, pa.timestamp(col.type.unit), c.name)
        col = _cast(col, want, c.name)
    if col.null_count == 0 and (pa.types.is_integer(want) or pa.types.is_floating(want)):
        return col.to_numpy().tolist()  # NB: several times faster than to_pylist
    if pa.types.is_date32(want) or pa.types.is_timestamp(want):
        far = fararrow.values_of(col, want)  # NB: years Python's types cannot hold
        if far is not None:
            return far
    if pa.types.is_timestamp(want) and col.null_count == 0:
        return _datetimes(col, want.tz is not None)
    if pa.types.is_string(want):  # NB: numpy's object array (None for NULL): ~2x to_pylist
        return col.to_numpy(zero_copy_only=False).tolist()
    return col.to_pylist()


def _datetimes(col: Any, aware: bool) -> list[Any]:
    """Timestamps as datetimes through numpy (to_pylist builds each aware one slowly).

    NB: numpy's datetime64[us] -> object conversion makes naive datetimes in C;
    out-of-range years (numpy gives ints for them) fall back to to_pylist.
    """
    if aware:  # NB: epoch + timedelta: about twice as fast as naive.replace(tzinfo=...)
        epoch, td = _UTC_EPOCH, dt.timedelta
        try:
            return [epoch + td(microseconds=v)
                    for v in col.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()).to_numpy().tolist()]
        except OverflowError:
            return col.to_pylist()
    naive = col.cast(pa.timestamp("us")).to_numpy(zero_copy_only=False).astype(object)
    if len(naive) and not isinstance(naive[0], dt.datetime):
        return col.to_pylist()
    return naive.tolist()


_UTC_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _cast(col: Any, typ: pa.DataType, name: str) -> Any:
    try:
        return col.cast(typ)
    except pa.ArrowInvalid as e:
        msg = str(e)
        low = msg.lower()
        if "overflow" in low or "out of bounds" in low or "not in range" in low:
            raise NumericValueOutOfRange(f'value out of range for column "{name}": {msg}') from None
        raise InvalidTextRepresentation(f'invalid value for column "{name}": {msg}') from None
    except pa.ArrowNotImplementedError:
        raise DatatypeMismatch(f'column "{name}" is of type {typ} but the batch has {col.type}'
                               ) from None


def batch_rows(table: Table, data: pa.Table, need_all_pk: bool = True,
               fill: dict[int, list[Any]] | None = None) -> list[tuple[Any, ...]]:
    """Turns an Arrow table into full stored rows, in row order.

    Absent columns take their values from `fill` (by position: the defaults,
    see `defaults.py`), or are NULL.
    """
    return columns_rows(batch_columns(table, data, need_all_pk, fill), data.num_rows)


def columns_rows(cols: list[list[Any]], n: int) -> list[tuple[Any, ...]]:
    """The rows of full stored columns (`batch_columns`), in one C-level pass."""
    return list(zip(*cols, strict=True)) if cols else [()] * n


def batch_columns(table: Table, data: pa.Table, need_all_pk: bool = True,
                  fill: dict[int, list[Any]] | None = None) -> list[list[Any]]:
    """`batch_rows`, as one list of values per stored column (the redo record takes
    them as they are: `WriteSet.columns`)."""
    if data.num_columns and len(set(data.column_names)) != data.num_columns:
        raise InvalidParameterValue("the batch names a column twice")
    positions = resolve_columns(table, data.column_names)
    n = data.num_rows
    if need_all_pk:
        missing = [table.columns[a - 1].name for a in table.primary_key
                   if a - 1 not in positions]
        if missing:
            raise InvalidParameterValue(
                f'the batch lacks primary key column "{missing[0]}" of "{table.name}"')
    cols: list[Any] = [None] * len(table.columns)
    for pos, name in zip(positions, data.column_names, strict=True):
        cols[pos] = column_values(table, pos, data.column(name))
    for pos, vals in (fill or {}).items():
        if cols[pos] is None:
            cols[pos] = vals
    nones = [None] * n
    return [c if c is not None else nones for c in cols]


def read_ipc(data: bytes) -> pa.Table:
    """Reads an Arrow IPC stream; 22P03 when it is not one."""
    try:
        return pa.ipc.open_stream(pa.py_buffer(data)).read_all()
    except (pa.ArrowInvalid, OSError) as e:
        raise InvalidBinaryRepresentation(f"invalid Arrow IPC stream: {e}") from None


def write_ipc(batch: pa.RecordBatch | pa.Table, schema: pa.Schema) -> bytes:
    """Serialises a batch (or table) as one Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as w:
        w.write(batch)
    return sink.getvalue().to_pybytes()

