"""Redo records: the commit ts, the write set and the dropped spaces, as msgpack.

The values are encoded by `kivi.wire`, the same encoding KiVi uses on sockets
and in checkpoints, so Decimal, dates, times with their UTC offsets, UUIDs
and integers beyond 64 bits come back as they went in, and rows come back as
tuples. A record is `[commit_ts, [[space, key, row_or_nil], ...], drops,
bulk]`: single writes, then bulk writes (`kivi.api.SpaceWrites`, a COPY's
write set, a space at a time). Single rows are plain arrays turned back into
tuples one level deep (packing each row as kivi.wire's tuple ext would cost a
nested packb per row). A bulk item is `[space, [key, ...], nil, [column, ...]]`
when every row has the same width and none is a delete: the rows transposed,
so that a million rows cost a few column lists rather than a list each (and
values keep their exact types, tuples included); otherwise it is
`[space, [key, ...], [row_or_nil, ...], nil]`. The ts comes first so that a
logger can read it without decoding the write set. Records written before
bulk writes existed have three items.

A transposed bulk item carries a fifth item, each column's encoding
(`kivi.wirecols`): a column of Decimals, datetimes or dates is packed as
strings or ints by C-level passes, not through msgpack's per-value `default`
callback (which cost more than the COPY it logged). Bulk items of four items,
written before, still decode.

A record with bulk writes can also be made a piece at a time (`record_pieces`: the
same bytes as `pack_record`, cut between and within its lists), so that the logger
writes a COPY's record in parts (`logger.RedoLog.log_pieces`) without the whole
packed record, and every column's packed form, in memory at once.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from operator import itemgetter
from typing import Any

import msgpack

from ..kivi.api import Row, SpaceWrites, Write
from ..kivi.wire import packb, unpackb
from ..kivi.wirecols import PLAIN, Encoded, decode_column, encode_column


def _rows_out(rows: list[Row | None]) -> list[Any]:
    if None in rows:
        return [None if r is None else list(r) for r in rows]
    return list(map(list, rows))  # type: ignore[arg-type]  # NB: no None: one C-level pass


def _rows_in(rows: list[Any]) -> list[Row | None]:
    if None in rows:
        return [None if r is None else tuple(r) for r in rows]
    return list(map(tuple, rows))


def _bulk_out(sw: SpaceWrites, cols: list[list[Any]] | None = None) -> list[Any]:
    rows = sw.rows
    if cols is None and rows and None not in rows and rows[0] and len(set(map(len, rows))) == 1:  # type: ignore[arg-type]
        # NB: a map of itemgetter per column transposes about 4x faster than zip(*rows)
        cols = [list(map(itemgetter(i), rows)) for i in range(len(rows[0]))]  # type: ignore[arg-type]
    if cols:
        kinds, encoded = zip(*map(encode_column, cols), strict=True)
        return [sw.space, sw.keys, None, list(encoded), list(kinds)]
    return [sw.space, sw.keys, _rows_out(rows), None]


def _bulk_in(item: list[Any]) -> SpaceWrites:
    space, keys, rows, cols, *kinds = item  # NB: no kinds: written before wirecols
    if cols is None:
        return SpaceWrites(space, keys, _rows_in(rows))
    if kinds:
        cols = list(map(decode_column, kinds[0], cols))
    return SpaceWrites(space, keys, list(zip(*cols, strict=True)))


def pack_record(
    ts: int, writes: list[Write], drops: Sequence[int] = (), spaces: Sequence[SpaceWrites] = (),
    columns: Mapping[int, list[list[Any]]] | None = None,
) -> bytes:
    """Encodes one redo record (commit ts, write set, dropped spaces).

    `columns`: a bulk space's rows already as columns (`WriteSet.columns`: a direct-API
    batch arrives column-wise), so that they need not be transposed back.
    """
    rows = [[s, k, None if r is None else list(r)] for s, k, r in writes]
    cols = columns or {}
    return packb([ts, rows, list(drops), [_bulk_out(sw, cols.get(sw.space)) for sw in spaces]])


CHUNK = 1 << 15  # list items packed per piece by `record_pieces`
# the types `encode_column` converts (any other column is PLAIN, packed as it is)
_SPECIAL = frozenset((Decimal, datetime.date, datetime.datetime))


def record_pieces(
    ts: int, writes: list[Write], drops: Sequence[int] = (), spaces: Sequence[SpaceWrites] = (),
    columns: Mapping[int, list[list[Any]]] | None = None,
) -> Iterator[bytes]:
    """`pack_record`'s bytes, as pieces made one after another (msgpack is a stream: an
    array is its header followed by its items). A bulk write's columns are encoded one at
    a time as their turn comes, and long lists (keys, columns) are packed `CHUNK` items
    at a time.

    >>> sw = SpaceWrites(3, [b"a", b"b", b"c"], [(1, "x"), (2, "y"), (3, "z")])
    >>> b"".join(record_pieces(5, [Write(1, b"k", (7,))], [], [sw])) == pack_record(
    ...     5, [Write(1, b"k", (7,))], [], [sw])
    True
    """
    rows = [[s, k, None if r is None else list(r)] for s, k, r in writes]
    cols = columns or {}
    yield _header(4) + packb(ts) + packb(rows) + packb(list(drops)) + _header(len(spaces))
    for sw in spaces:
        yield from _bulk_pieces(sw, cols.get(sw.space))


def _header(n: int) -> bytes:
    return msgpack.Packer().pack_array_header(n)


def _list_pieces(values: list[Any]) -> Iterator[bytes]:
    """A list packed `CHUNK` items at a time (each chunk's own array header cut off)."""
    if len(values) <= CHUNK:
        yield packb(values)
        return
    yield _header(len(values))
    for i in range(0, len(values), CHUNK):
        chunk = values[i:i + CHUNK]
        yield packb(chunk)[len(_header(len(chunk))):]


def _bulk_pieces(sw: SpaceWrites, cols: list[list[Any]] | None) -> Iterator[bytes]:
    """A bulk item's pieces. Without `cols` the rows are transposed one column at a time
    as its turn comes, so that at most one column (and its packed chunks) is held beside
    the rows: transposing every column first held 8 bytes per cell (a COPY of lineitem at
    SF 1: 768 MB) until the record was written."""
    rows = sw.rows
    width = 0
    if cols is None and rows and None not in rows and rows[0] and len(set(map(len, rows))) == 1:  # type: ignore[arg-type]
        width = len(rows[0])
    if not cols and not width:
        yield packb(_bulk_out(sw))
        return
    yield _header(5) + packb(sw.space)
    yield from _list_pieces(sw.keys)
    yield packb(None) + _header(len(cols) if cols else width)
    kinds: list[int] = []
    for i in range(len(cols) if cols else width):
        yield from _column_pieces(cols[i] if cols else list(map(itemgetter(i), rows)), kinds)  # type: ignore[arg-type]
    yield packb(kinds)


def _column_pieces(col: list[Any], kinds: list[int]) -> Iterator[bytes]:
    """One column's encoded pieces (its kind appended to `kinds`). A long column is encoded
    `CHUNK` values at a time and kept packed, not as a second list of a Python object per
    value (a Decimal column's strings: ~330 MB for 6M rows); when the chunks disagree on
    the kind (say one of NULLs only), the whole column is encoded as one. A column with
    no value of a type `encode_column` converts is packed as it is, a chunk at a time."""
    if type(col) is not Encoded and len(col) > CHUNK and _SPECIAL.isdisjoint(map(type, col)):
        kinds.append(PLAIN)  # NB: what `encode_column` says of it: packed as it is
        yield from _list_pieces(col)
        return
    if type(col) is Encoded or len(col) <= CHUNK:
        kind, encoded = encode_column(col)
        kinds.append(kind)
        yield from _list_pieces(encoded)
        return
    packed: list[bytes] = []
    first: int | None = None
    for i in range(0, len(col), CHUNK):
        kind, encoded = encode_column(col[i:i + CHUNK])
        if first is None:
            first = kind
        elif kind != first:
            kind, encoded = encode_column(col)
            kinds.append(kind)
            yield from _list_pieces(encoded)
            return
        packed.append(packb(encoded)[len(_header(len(encoded))):])
    kinds.append(first)  # type: ignore[arg-type]  # NB: a long column has a chunk
    yield _header(len(col))
    yield from packed


def unpack_bulk(data: bytes) -> tuple[int, list[Write], list[int], list[SpaceWrites]]:
    """Decodes a redo record, its bulk writes kept a space at a time."""
    ts, writes, drops, *rest = unpackb(data)
    spaces = list(map(_bulk_in, rest[0])) if rest else []
    return ts, [Write(s, k, None if r is None else tuple(r)) for s, k, r in writes], drops, spaces


def unpack_record(data: bytes) -> tuple[int, list[Write], list[int]]:
    """Decodes a redo record, every write (bulk ones too) as a `Write`."""
    ts, writes, drops, spaces = unpack_bulk(data)
    for sw in spaces:
        writes += [Write(sw.space, k, r) for k, r in zip(sw.keys, sw.rows, strict=True)]
    return ts, writes, drops
