"""msgpack encoding of redo records: rows of PostgreSQL-typed Python values.

Why our own ext types: msgpack knows None, bool, int, float, str, bytes, list
and dict, but rows also carry Decimal, date, time, datetime, timedelta and
UUID values, which must come back as the same types after a crash. Each gets a
small ext code. A row is a tuple; msgpack writes tuples as arrays, so the
decoder turns each row back into a tuple while array *values* stay lists.

A redo record is `[commit_ts, [[space, key, row_or_nil], ...], drops]`, where
`drops` lists the spaces dropped at that timestamp (DROP TABLE / TRUNCATE).
"""

from __future__ import annotations

import datetime
import uuid
from decimal import Decimal
from typing import Any

import msgpack

_DECIMAL, _DATE, _DATETIME, _TIME, _TIMEDELTA, _UUID = 1, 2, 3, 4, 5, 6


def _default(v: Any) -> msgpack.ExtType:
    if isinstance(v, Decimal):
        return msgpack.ExtType(_DECIMAL, str(v).encode())
    if isinstance(v, datetime.datetime):  # NB: before date: datetime is a date subclass
        return msgpack.ExtType(_DATETIME, v.isoformat().encode())
    if isinstance(v, datetime.date):
        return msgpack.ExtType(_DATE, v.isoformat().encode())
    if isinstance(v, datetime.time):
        return msgpack.ExtType(_TIME, v.isoformat().encode())
    if isinstance(v, datetime.timedelta):
        return msgpack.ExtType(_TIMEDELTA, msgpack.packb([v.days, v.seconds, v.microseconds]))
    if isinstance(v, uuid.UUID):
        return msgpack.ExtType(_UUID, v.bytes)
    raise TypeError(f"cannot encode {type(v).__name__} in a redo record")


def _ext_hook(code: int, data: bytes) -> Any:
    if code == _DECIMAL:
        return Decimal(data.decode())
    if code == _DATETIME:
        return datetime.datetime.fromisoformat(data.decode())
    if code == _DATE:
        return datetime.date.fromisoformat(data.decode())
    if code == _TIME:
        return datetime.time.fromisoformat(data.decode())
    if code == _TIMEDELTA:
        days, seconds, micros = msgpack.unpackb(data)
        return datetime.timedelta(days=days, seconds=seconds, microseconds=micros)
    if code == _UUID:
        return uuid.UUID(bytes=data)
    return msgpack.ExtType(code, data)


def pack_record(ts: int, writes: list[tuple[int, bytes, Any]], drops: list[int] = ()) -> bytes:
    """Encodes one redo record (commit ts, write set, dropped spaces)."""
    return msgpack.packb([ts, writes, list(drops)], default=_default, use_bin_type=True)


def unpack_record(data: bytes) -> tuple[int, list[tuple[int, bytes, Any]], list[int]]:
    """Decodes a redo record; rows come back as tuples."""
    ts, writes, drops = msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
    return ts, [(s, k, None if r is None else tuple(r)) for s, k, r in writes], drops


def pack_value(v: Any) -> bytes:
    """Encodes any row-like value (used by the in-memory node's checkpoints)."""
    return msgpack.packb(v, default=_default, use_bin_type=True)


def unpack_value(data: bytes) -> Any:
    """Decodes a value written by `pack_value` (arrays come back as lists)."""
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
