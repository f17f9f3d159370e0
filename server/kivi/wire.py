"""msgpack encoding of KiVi requests, replies and row values, for sockets and checkpoint files.

msgpack knows ints, floats, str, bytes, lists and maps. Everything else a row
may hold travels as an ext type:

    code  type                payload
    1     Decimal             str(value) (keeps NaN, Infinity and the scale)
    2     date                ordinal, packed
    3     time                [microseconds since midnight, utc offset seconds | nil]
    4     datetime            [microseconds since 0001-01-01 (local), offset seconds | nil]
    5     timedelta           [days, seconds, microseconds]
    6     UUID                16 bytes
    7     tuple               the items, packed (IR trees, AggSpec fields)
    8     message             [class name, field values...] for the dataclasses of kivi.api
    9     int beyond 64 bits  str(value)
    10    interval            [months, days, microseconds] (`pgtypes.interval.Interval`;
                              a code-5 timedelta written before months existed still
                              decodes, as a timedelta)
    11    range               [range type oid, flags, lower, upper] (`pgtypes.ranges.Range`)
    12    multirange          [multirange type oid, [range, ...]] (`pgtypes.multiranges`)
    13    datetime at an edge  as 4, for the real 0001-01-01 00:00:00 and 9999-12-31
                              23:59:59.999999: code 4 with those microseconds is how
                              'infinity' and '-infinity' (`pgtypes.infdate`) were always
                              written, so logs and checkpoints from before keep reading so
    14    date BC or after 9999   days since 2000-01-01 (`pgtypes.fardate.FarDate`)
    15    timestamp BC or after   [microseconds since 2000-01-01 (local), offset seconds | nil]
          9999                  (`pgtypes.fardate.FarTimestamp`)
    16    citext              its text (`pgtypes.citext`)
    17    collated text       [locale, deterministic, text] (`pgtypes.collated`)
    18    array with bounds   [lower bounds, items] (`pgtypes.arraybounds.Bounded`: an
                              array whose lower bounds are not all 1)

Rows are tuples and array values inside them are lists. Packing every row as a
tuple ext would cost a nested `packb` per row, so the row-carrying fields of
messages (ScanReply.rows, GetReply.rows, Write.row, SpaceWrites.rows, RegionData.chains) are
sent as plain lists and turned back into tuples, one level deep, on arrival.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import threading
import uuid
from collections.abc import Sequence
from decimal import Decimal
from operator import itemgetter
from typing import Any

import msgpack

from ..pgtypes.arraybounds import Bounded
from ..pgtypes.citext import CIText
from ..pgtypes.collated import Collated, restore
from ..pgtypes.fardate import FarDate, FarTimestamp, date_of_days, ts_of_us
from ..pgtypes.infdate import (
    DATE_INF,
    DATE_NEG_INF,
    InfiniteDate,
    InfiniteTimestamp,
    Time24,
    time_of_us,
)
from ..pgtypes.interval import Interval
from ..pgtypes.multiranges import MultiRange
from ..pgtypes.ranges import Range
from . import api

EXT_DECIMAL, EXT_DATE, EXT_TIME, EXT_DATETIME, EXT_TIMEDELTA = 1, 2, 3, 4, 5
EXT_UUID, EXT_TUPLE, EXT_MESSAGE, EXT_BIGINT, EXT_INTERVAL = 6, 7, 8, 9, 10
EXT_RANGE, EXT_MULTIRANGE, EXT_DATETIME_EDGE = 11, 12, 13
EXT_FAR_DATE, EXT_FAR_DATETIME = 14, 15
EXT_CITEXT = 16  # pgtypes.citext: stays case-insensitive after a restart
EXT_COLLATED = 17  # pgtypes.collated: [locale, deterministic, text]
EXT_BOUNDED = 18  # pgtypes.arraybounds: [lower bounds, items]

_US = _dt.timedelta(microseconds=1)
_EPOCH = _dt.datetime(1, 1, 1)
_MAX_US = (_dt.datetime.max - _EPOCH) // _US  # code 4's +infinity (and 0 its -infinity)
# msgpack's bytes of [us, off] for us above 32 bits (a uint 64: any time after 0001-01-01
# 01:11) and off nil or 0: a fixarray of two, the uint 64's tag, then nil or a fixint 0
_U32 = 0xFFFFFFFF
_DT_HEAD, _NIL, _ZERO = b"\x92\xcf", b"\xc0", b"\x00"

MESSAGES: dict[str, type] = {
    cls.__name__: cls
    for cls in vars(api).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == api.__name__
}
_FIELDS = {cls: [f.name for f in dataclasses.fields(cls)] for cls in MESSAGES.values()}
for _nt in (api.Write, api.Apply):  # NB: NamedTuples (see their doc), sent as the rest
    MESSAGES[_nt.__name__] = _nt
    _FIELDS[_nt] = list(_nt._fields)


def register_messages(*classes: type) -> None:
    """Lets other components' frozen dataclasses travel too (conflict managers, loggers).

    Messages are sent by class name, so two message classes may not share a name.
    """
    for cls in classes:
        known = MESSAGES.get(cls.__name__)
        if known is not None and known is not cls:
            raise ValueError(f"two message classes are named {cls.__name__}")
        MESSAGES[cls.__name__] = cls
        _FIELDS[cls] = [f.name for f in dataclasses.fields(cls)]


class _BigInt:
    __slots__ = ("v",)

    def __init__(self, v: int) -> None:
        self.v = v


def _rows_out(rows: list[Any]) -> list[Any]:
    return [None if r is None else list(r) for r in rows]


def _rows_in(rows: list[Any]) -> list[Any]:
    return [None if r is None else tuple(r) for r in rows]


def _chains_out(chains: Sequence[Any]) -> Any:
    """Packs version chains; a region of one live version per key, as a bulk load leaves it,
    goes as a map {"ts": [ts...], "cols": [column...]} (rows transposed: a few lists in all,
    values with their exact types, instead of a list and a tuple ext per key)."""
    if isinstance(chains, dict):
        return chains  # NB: already in that form (`VersionStore.export_later(packed=True)`)
    if chains and set(map(len, chains)) == {1}:
        versions = list(map(_first, chains))
        rows = list(map(_second, versions))
        if None not in rows and rows[0] and len(set(map(len, rows))) == 1:
            return {"ts": list(map(_first, versions)), "cols": list(map(list, zip(*rows, strict=True)))}
    return [[(ts, None if r is None else list(r)) for ts, r in c] for c in chains]


def _chains_in(chains: Any) -> list[Any]:
    """Unpacks `_chains_out` (the map form as the store's tuples, built in C)."""
    if isinstance(chains, dict):
        return list(zip(zip(chains["ts"], zip(*chains["cols"], strict=True), strict=True)))
    return [[(v[0], None if v[1] is None else tuple(v[1])) for v in c] for c in chains]


_first = itemgetter(0)
_second = itemgetter(1)


def _fields_out(obj: Any) -> list[Any]:
    vals = [getattr(obj, f) for f in _FIELDS[type(obj)]]
    if isinstance(obj, api.ScanReply | api.GetReply):
        vals[0] = _rows_out(vals[0])
    elif isinstance(obj, api.Write):
        vals[2] = None if obj.row is None else list(obj.row)
    elif isinstance(obj, api.RegionData):
        vals[4] = _chains_out(obj.chains)
    elif isinstance(obj, api.SpaceWrites):
        vals[2] = _rows_out(obj.rows)
    elif isinstance(obj, api.Apply):
        vals[1] = list(obj.writes)
        vals[2] = list(obj.spaces)
    return vals


def _message_in(name: str, vals: list[Any]) -> Any:
    cls = MESSAGES[name]
    if cls is api.ScanReply or cls is api.GetReply:
        vals[0] = _rows_in(vals[0])
    elif cls is api.Write:
        vals[2] = None if vals[2] is None else tuple(vals[2])
    elif cls is api.SpaceWrites:
        vals[2] = _rows_in(vals[2])
    elif cls is api.RegionData:
        vals[4] = _chains_in(vals[4])
    return cls(*vals)


def _offset(v: Any) -> int | None:
    off = v.utcoffset()
    return None if off is None else off // _US // 1_000_000


def _default(obj: Any) -> msgpack.ExtType:
    t = type(obj)
    if t is tuple:
        return msgpack.ExtType(EXT_TUPLE, _pack(list(obj)))
    if t is Decimal:
        return msgpack.ExtType(EXT_DECIMAL, str(obj).encode())
    if t is _dt.datetime:
        tz = obj.tzinfo
        us = ((obj if tz is None else obj.replace(tzinfo=None)) - _EPOCH) // _US
        if us > _U32 and us != _MAX_US:
            off = None if tz is None else _offset(obj)
            if off is None or off == 0:
                # NB: what `_pack([us, off])` makes, without a nested packer: every OLTP
                # commit of a timestamp column comes here (pgbench's history row), and the
                # packer's setup cost more than the rest of the record (~2 -> ~0.6 us)
                return msgpack.ExtType(EXT_DATETIME, b"".join(
                    (_DT_HEAD, us.to_bytes(8, "big"), _NIL if off is None else _ZERO)))
            return msgpack.ExtType(EXT_DATETIME, _pack([us, off]))
        code = EXT_DATETIME_EDGE if us == 0 or us == _MAX_US else EXT_DATETIME
        return msgpack.ExtType(code, _pack([us, _offset(obj)]))
    if t is InfiniteTimestamp:
        return msgpack.ExtType(EXT_DATETIME, _pack([_MAX_US if obj.sign > 0 else 0, _offset(obj)]))
    if t is _dt.date:
        return msgpack.ExtType(EXT_DATE, _pack(obj.toordinal()))
    if t is InfiniteDate:  # ordinals start at 1: 0 is -infinity, -1 is +infinity
        return msgpack.ExtType(EXT_DATE, _pack(0 if obj.sign < 0 else -1))
    if t is _dt.time or t is Time24:  # NB: Time24 (24:00:00) counts a whole day
        us = ((obj.hour * 60 + obj.minute) * 60 + obj.second) * 1_000_000 + obj.microsecond
        return msgpack.ExtType(EXT_TIME, _pack([us, _offset(obj)]))
    if t is _dt.timedelta:
        return msgpack.ExtType(EXT_TIMEDELTA, _pack([obj.days, obj.seconds, obj.microseconds]))
    if t is Interval:
        return msgpack.ExtType(EXT_INTERVAL, _pack([obj.months, obj.day, obj.time]))
    if t is uuid.UUID:
        return msgpack.ExtType(EXT_UUID, obj.bytes)
    if t is Range:
        return msgpack.ExtType(EXT_RANGE, _pack([obj.oid, obj.flags, obj.lower, obj.upper]))
    if t is MultiRange:  # its ranges, each as a code-11 range
        return msgpack.ExtType(EXT_MULTIRANGE, _pack([obj.oid, list(obj.ranges)]))
    if t is _BigInt:
        return msgpack.ExtType(EXT_BIGINT, str(obj.v).encode())
    if t is FarDate:
        return msgpack.ExtType(EXT_FAR_DATE, _pack(obj.days))
    if t is FarTimestamp:
        return msgpack.ExtType(EXT_FAR_DATETIME, _pack([obj.us, _offset(obj)]))
    if t is CIText:
        return msgpack.ExtType(EXT_CITEXT, obj.encode())
    if isinstance(obj, Collated):
        return msgpack.ExtType(EXT_COLLATED, _pack([obj.locale, obj.deterministic, str(obj)]))
    if t is Bounded:
        return msgpack.ExtType(EXT_BOUNDED, _pack([list(obj.lower), list(obj)]))
    if t in _FIELDS:
        return msgpack.ExtType(EXT_MESSAGE, _pack([t.__name__, *_fields_out(obj)]))
    # Subclasses (IntEnum, OrderedDict...; strict_types sends them here) travel as their base
    # type: msgpack packs whatever `default` returns.
    if isinstance(obj, tuple):  # a tuple subclass (pgtypes.records.Record): a plain tuple
        return msgpack.ExtType(EXT_TUPLE, _pack(list(obj)))
    bases: tuple[type[Any], ...] = (int, float, str, bytes, list, dict, tuple)
    for base in bases:
        if isinstance(obj, base):
            return base(obj)
    if isinstance(obj, bytearray | memoryview):
        return bytes(obj)
    if isinstance(obj, _dt.datetime):
        return _default(_dt.datetime.combine(obj.date(), obj.timetz()))
    if isinstance(obj, _dt.date):
        return _default(_dt.date.fromordinal(obj.toordinal()))
    raise TypeError(f"cannot send a {t.__name__} to a KiVi node")


def _tz(off: int | None) -> _dt.tzinfo | None:
    if off is None:
        return None
    return _dt.UTC if off == 0 else _dt.timezone(_dt.timedelta(seconds=off))


def _ext_hook(code: int, data: bytes) -> Any:
    if code == EXT_TUPLE:
        return tuple(_unpack(data))
    if code == EXT_MESSAGE:
        name, *vals = _unpack(data)
        return _message_in(name, vals)
    if code == EXT_DECIMAL:
        return Decimal(data.decode())
    if code == EXT_DATETIME:
        us, off = _unpack(data)
        if us == 0 or us == _MAX_US:
            return InfiniteTimestamp(1 if us else -1, _tz(off))
        return (_EPOCH + us * _US).replace(tzinfo=_tz(off))
    if code == EXT_DATETIME_EDGE:
        us, off = _unpack(data)
        return (_EPOCH + us * _US).replace(tzinfo=_tz(off))
    if code == EXT_DATE:
        n = _unpack(data)
        return _dt.date.fromordinal(n) if n > 0 else DATE_NEG_INF if n == 0 else DATE_INF
    if code == EXT_TIME:
        us, off = _unpack(data)
        return time_of_us(us, _tz(off))
    if code == EXT_TIMEDELTA:
        d, s, us = _unpack(data)
        return _dt.timedelta(d, s, us)
    if code == EXT_INTERVAL:
        return Interval(*_unpack(data))
    if code == EXT_UUID:
        return uuid.UUID(bytes=data)
    if code == EXT_RANGE:
        oid, flags, lower, upper = _unpack(data)
        return Range(oid, lower, upper, flags)
    if code == EXT_MULTIRANGE:
        oid, items = _unpack(data)
        return MultiRange(oid, tuple(items))
    if code == EXT_BIGINT:
        return int(data.decode())
    if code == EXT_FAR_DATE:
        return date_of_days(_unpack(data))
    if code == EXT_FAR_DATETIME:
        us, off = _unpack(data)
        return ts_of_us(us, _tz(off))
    if code == EXT_CITEXT:
        return CIText(data.decode())
    if code == EXT_COLLATED:
        return restore(*_unpack(data))
    if code == EXT_BOUNDED:
        lower, items = _unpack(data)
        return Bounded(items, tuple(lower))
    return msgpack.ExtType(code, data)


# NB: msgpack's Packer starts with a 256 KiB buffer. A message inside a message (an Apply's
# Writes, a `Led` or `Fenced` envelope, an IR tuple in a Scan) packs through a nested
# Packer, and malloc/free of that buffer at the top of the heap cost a brk() pair per
# message: 25 us CPU for an engine's `Led(PollSnapshot)` against 6 us with a small start
# (the buffer still grows as needed, by doubling).
_BUF = 1024


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, default=_default, strict_types=True, use_bin_type=True,
                         buf_size=_BUF)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)


def _wrap_big(obj: Any) -> Any:
    """Replaces ints that msgpack cannot hold by markers (the slow path, rarely taken)."""
    t = type(obj)
    if t is int:
        return obj if -(1 << 63) <= obj < (1 << 64) else _BigInt(obj)
    if t is list:
        return [_wrap_big(v) for v in obj]
    if t is tuple:
        return tuple(_wrap_big(v) for v in obj)
    if t is dict:
        return {k: _wrap_big(v) for k, v in obj.items()}
    if t in _FIELDS:
        return t(*[_wrap_big(getattr(obj, f)) for f in _FIELDS[t]])
    return obj


# One packer kept for `packb`: making one (what `msgpack.packb` does per call) was ~0.3 us
# of a TPC-B commit's 1 us redo record. Whoever takes the lock uses it; a caller finding
# it taken (another thread; `_default`'s nested messages use `_pack` anyway) makes its own.
# It is replaced after a message above _KEEP bytes, so that it keeps no large buffer.
_KEEP = 1 << 16
_shared = {"packer": msgpack.Packer(default=_default, strict_types=True, use_bin_type=True,
                                    buf_size=_BUF)}
_shared_lock = threading.Lock()


def packb(obj: Any) -> bytes:
    """Serialises a message or value (rows, IR, requests, replies) to bytes."""
    if _shared_lock.acquire(False):
        try:
            out = _shared["packer"].pack(obj)  # NB: on an error it drops what it had packed
            if len(out) > _KEEP:
                _shared["packer"] = msgpack.Packer(default=_default, strict_types=True,
                                                   use_bin_type=True, buf_size=_BUF)
            return out
        except OverflowError:
            return _pack(_wrap_big(obj))
        finally:
            _shared_lock.release()
    try:
        return _pack(obj)
    except OverflowError:
        return _pack(_wrap_big(obj))


def unpackb(data: bytes) -> Any:
    """Deserialises bytes made by `packb`."""
    return _unpack(data)
