"""Redo records: the commit ts, the write set and the dropped spaces, as msgpack.

The values are encoded by `kivi.wire`, the same encoding KiVi uses on sockets
and in checkpoints, so Decimal, dates, times with their UTC offsets, UUIDs
and integers beyond 64 bits come back as they went in, and rows come back as
tuples. A record is `[commit_ts, [[space, key, row_or_nil], ...], drops]`,
rows as plain arrays turned back into tuples one level deep (packing each row
as kivi.wire's tuple ext would cost a nested packb per row); the ts comes
first so that a logger can read it without decoding the write set.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kivi.api import Write
from ..kivi.wire import packb, unpackb


def pack_record(ts: int, writes: list[Write], drops: Sequence[int] = ()) -> bytes:
    """Encodes one redo record (commit ts, write set, dropped spaces)."""
    rows = [[w.space, w.key, None if w.row is None else list(w.row)] for w in writes]
    return packb([ts, rows, list(drops)])


def unpack_record(data: bytes) -> tuple[int, list[Write], list[int]]:
    """Decodes a redo record."""
    ts, writes, drops = unpackb(data)
    return ts, [Write(s, k, None if r is None else tuple(r)) for s, k, r in writes], drops
