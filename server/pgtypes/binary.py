"""PostgreSQL's binary formats (typsend/typrecv) for the types clients send and ask for in binary.

asyncpg asks for binary for everything and sends binary parameters (even an
`oid[]` for its introspection); psycopg 3 sends ints, floats and bools in
binary; JDBC sends int4 and numeric in binary and asks for binary results from
a statement's 6th execution. The layouts are PostgreSQL's own:

- integers, floats, oid: network byte order; bool is one byte;
- numeric: ndigits, weight, sign (0x0000, 0x4000 negative, 0xC000 NaN,
  0xD000 +Infinity, 0xF000 -Infinity), dscale, then base-10000 digits;
- date: days since 2000-01-01; time: microseconds; timetz adds the zone as
  seconds *west* of UTC; timestamp[tz]: microseconds since 2000-01-01 (UTC);
- interval: microseconds, days, months (an `interval.Interval` keeps all three);
- jsonb: a version byte 1, then the JSON text;
- arrays: ndim, has-null flag, element oid, (size, lower bound) per
  dimension, then each element as a length-prefixed value (-1 for NULL).

`binary_encoder(oid)` / `binary_decoder(oid)` return one function per column
or parameter, chosen once; `encode_binary` / `decode_binary` are per value.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import struct
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ..errors import DatetimeFieldOverflow, InvalidBinaryRepresentation, ProtocolViolation
from . import (
    arraybounds,
    bits,
    enums,
    extcodecs,
    geometry,
    money,
    multiranges,
    network,
    ranges,
    records,
    xmlvalue,
)
from . import oids as T
from .fardate import FarTimestamp, date_of_days, ts_of_us, utc_us_of
from .infdate import (
    DATE_INF,
    DATE_NEG_INF,
    TS_INF,
    TS_NEG_INF,
    InfiniteDate,
    InfiniteTimestamp,
    time_of_us,
)
from .interval import Interval, as_interval
from .text import format_generic, text_decoder
from .utf8check import decode_utf8

Encoder = Callable[[Any], bytes]
Decoder = Callable[[bytes], Any]

_H = struct.Struct("!h")
_I = struct.Struct("!i")
_UI = struct.Struct("!I")
_Q = struct.Struct("!q")
_F = struct.Struct("!f")
_D = struct.Struct("!d")
_TIMETZ = struct.Struct("!qi")
_INTERVAL = struct.Struct("!qii")
_NUMHEAD = struct.Struct("!hhHh")
_ARRHEAD = struct.Struct("!iii")
_DIM = struct.Struct("!ii")

EPOCH = dt.datetime(2000, 1, 1)
EPOCH_TZ = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
EPOCH_ORDINAL = dt.date(2000, 1, 1).toordinal()
_US = dt.timedelta(microseconds=1)
_INF_TS = (2**63 - 1, -(2**63))
NUMERIC_NEG, NUMERIC_NAN, NUMERIC_PINF, NUMERIC_NINF = 0x4000, 0xC000, 0xD000, 0xF000


# -- numeric -------------------------------------------------------------------


def encode_numeric(v: Any) -> bytes:
    """Encodes a Decimal (or int/float) in PostgreSQL's base-10000 numeric format."""
    if not isinstance(v, Decimal):
        v = Decimal(repr(v)) if isinstance(v, float) and math.isfinite(v) else Decimal(str(v))
    if not v.is_finite():
        if v.is_nan():
            return _NUMHEAD.pack(0, 0, NUMERIC_NAN, 0)
        # NB: PG 15 sends dscale 32 for +-Infinity: numeric_send reads it from the short
        # header's dscale bits, which 0xD000 / 0xF000 happen to set (NaN's 0xC000 does not).
        return _NUMHEAD.pack(0, 0, NUMERIC_PINF if v > 0 else NUMERIC_NINF, 32)
    sign, digits, exp = v.as_tuple()
    s = "".join(map(str, digits))
    exp = int(exp)
    dscale = max(0, -exp)
    if exp > 0:
        s += "0" * exp
        exp = 0
    cut = len(s) + exp
    if cut < 0:
        s = "0" * -cut + s
        cut = 0
    ip, fp = s[:cut], s[cut:]
    ip = ip.zfill(-(-len(ip) // 4) * 4) if ip else ""
    fp = fp.ljust(-(-len(fp) // 4) * 4, "0")
    groups = [int(ip[i : i + 4]) for i in range(0, len(ip), 4)]
    weight = len(groups) - 1
    groups += [int(fp[i : i + 4]) for i in range(0, len(fp), 4)]
    lead = 0
    while lead < len(groups) and groups[lead] == 0:
        lead += 1
    weight -= lead
    groups = groups[lead:]
    while groups and groups[-1] == 0:
        groups.pop()
    if not groups:
        weight = 0
    head = _NUMHEAD.pack(len(groups), weight, NUMERIC_NEG if sign and groups else 0, dscale)
    return head + struct.pack(f"!{len(groups)}H", *groups)


_CACHED_GROUPS = 32  # numerics of up to 124 digits: every bound parameter in practice
_GROUP_UNPACK = [struct.Struct(f"!{n}H").unpack_from for n in range(_CACHED_GROUPS)]
_GROUP_TEXT = ["%04d" * n for n in range(_CACHED_GROUPS)]


def decode_numeric(data: bytes) -> Decimal:
    """Decodes PostgreSQL's binary numeric into a Decimal with the sent display scale."""
    ndigits, weight, sign, dscale = _NUMHEAD.unpack_from(data)
    if sign == NUMERIC_NAN:
        return Decimal("NaN")
    if sign == NUMERIC_PINF:
        return Decimal("Infinity")
    if sign == NUMERIC_NINF:
        return Decimal("-Infinity")
    if sign not in (0, NUMERIC_NEG) or len(data) != 8 + 2 * ndigits:
        raise InvalidBinaryRepresentation("invalid sign in external \"numeric\" value")
    if ndigits < _CACHED_GROUPS:  # NB: no format string built and looked up per value
        digits = _GROUP_TEXT[ndigits] % _GROUP_UNPACK[ndigits](data, 8) or "0"
    else:
        digits = ("%04d" * ndigits) % struct.unpack_from(f"!{ndigits}H", data, 8) or "0"
    exp = 4 * (weight - ndigits + 1)
    if exp > -dscale:
        digits += "0" * (exp + dscale)
    elif exp < -dscale:
        digits = digits[: len(digits) - (-dscale - exp)] or "0"
    # NB: Decimal's own parser (C) builds the same value as a digit tuple, several times faster
    return Decimal(f"{'-' if sign == NUMERIC_NEG else ''}{digits}E{-dscale}")


# -- date and time -------------------------------------------------------------


def _enc_date(v: dt.date) -> bytes:
    if isinstance(v, InfiniteDate):  # DATEVAL_NOEND / DATEVAL_NOBEGIN
        return _I.pack(2**31 - 1 if v.sign > 0 else -(2**31))
    return _I.pack(v.toordinal() - EPOCH_ORDINAL)  # NB: FarDate's toordinal counts its days


def _dec_date(b: bytes) -> dt.date:
    n = _I.unpack(b)[0]
    if n in (2**31 - 1, -(2**31)):
        return DATE_INF if n > 0 else DATE_NEG_INF
    try:
        return dt.date.fromordinal(n + EPOCH_ORDINAL)
    except (ValueError, OverflowError):  # BC or after 9999 (pgtypes.fardate)
        return date_of_days(n)


def _time_us(v: dt.time) -> int:
    return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond


def _enc_time(v: dt.time) -> bytes:
    return _Q.pack(_time_us(v))


def _us_time(us: int, tz: dt.tzinfo | None = None) -> dt.time:
    if not 0 <= us <= 86_400_000_000:
        raise DatetimeFieldOverflow("time out of range")
    return time_of_us(us, tz)  # NB: 86,400,000,000 is '24:00:00' (infdate.Time24)


def _dec_time(b: bytes) -> dt.time:
    return _us_time(_Q.unpack(b)[0])


def _enc_timetz(v: dt.time) -> bytes:
    off = v.utcoffset()
    west = -int(off.total_seconds()) if off else 0
    return _TIMETZ.pack(_time_us(v), west)


def _dec_timetz(b: bytes) -> dt.time:
    us, west = _TIMETZ.unpack(b)
    return _us_time(us, dt.timezone(dt.timedelta(seconds=-west)))


def _enc_timestamp(v: dt.datetime) -> bytes:
    if type(v) is InfiniteTimestamp:  # PostgreSQL's DT_NOEND / DT_NOBEGIN
        return _Q.pack(_INF_TS[0] if v.sign > 0 else _INF_TS[1])
    if type(v) is FarTimestamp:
        return _Q.pack(v.us if v.tzinfo is None else utc_us_of(v))
    if v.tzinfo is not None:
        v = v.astimezone(dt.UTC).replace(tzinfo=None)
    d = v - EPOCH
    return _Q.pack((d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds)


def _enc_timestamptz(v: dt.datetime) -> bytes:
    if v.tzinfo is None:
        v = v.replace(tzinfo=dt.UTC)
    if type(v) is InfiniteTimestamp or type(v) is FarTimestamp:
        return _enc_timestamp(v)
    d = v - EPOCH_TZ
    return _Q.pack((d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds)


_Q_UNPACK = _Q.unpack
_FROM_EPOCH = EPOCH.__add__
_TIMEDELTA = dt.timedelta


def _dec_timestamp(b: bytes) -> dt.datetime:
    # NB: bound methods and a positional timedelta: asyncpg sends every timestamp of an
    # executemany through here, and the keyword/attribute look-ups were half its cost
    (us,) = _Q_UNPACK(b)
    if us in _INF_TS:  # 'infinity' / '-infinity': the sentinels of infdate.py
        return TS_INF if us > 0 else TS_NEG_INF
    try:
        return _FROM_EPOCH(_TIMEDELTA(0, 0, us))
    except OverflowError:  # BC or after 9999 (pgtypes.fardate)
        return ts_of_us(us)


def _dec_timestamptz(b: bytes) -> dt.datetime:
    return _dec_timestamp(b).replace(tzinfo=dt.UTC)


def _enc_interval(v: dt.timedelta) -> bytes:
    iv = as_interval(v)
    return _INTERVAL.pack(iv.time, iv.day, iv.months)


def _dec_interval(b: bytes) -> dt.timedelta:
    us, days, months = _INTERVAL.unpack(b)
    return Interval(months, days, us)


# -- scalars -------------------------------------------------------------------


def _enc_text(v: Any) -> bytes:
    return (v if isinstance(v, str) else str(v)).encode()


def _dec_text(b: bytes) -> str:
    return decode_utf8(b)  # NB: text_recv verifies the encoding: 22021, a NUL included


def _enc_json(v: Any) -> bytes:
    return (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)).encode()


def _enc_jsonb(v: Any) -> bytes:
    return b"\x01" + _enc_json(v)


def _dec_jsonb(b: bytes) -> str:
    if b[:1] != b"\x01":
        raise InvalidBinaryRepresentation(f"unsupported jsonb version number {b[:1]!r}")
    return text_decoder(T.JSONB)(_dec_text(b[1:]))  # checked and normalised, as text input


def _enc_bool(v: Any) -> bytes:
    return b"\x01" if v else b"\x00"


def _dec_bool(b: bytes) -> bool:
    if len(b) != 1:
        raise InvalidBinaryRepresentation("insufficient data left in message")
    return b != b"\x00"


def _fixed(st: struct.Struct, conv: Callable[[Any], Any] = int) -> tuple[Encoder, Decoder]:
    pack, unpack, size = st.pack, st.unpack, st.size

    def enc(v: Any) -> bytes:
        try:
            return pack(conv(v))
        except struct.error:
            raise InvalidBinaryRepresentation(f"value out of range: {v!r}") from None

    def dec(b: bytes) -> Any:
        if len(b) != size:
            # NB: PostgreSQL's recv functions read with pq_getmsg*: too few bytes is a
            # malformed message, too many a bad value
            if len(b) < size:
                raise ProtocolViolation("insufficient data left in message")
            raise InvalidBinaryRepresentation("incorrect binary data format")
        return unpack(b)[0]

    return enc, dec


def _enc_char(v: Any) -> bytes:
    """"char" sends exactly one byte, as charsend: an empty value is a NUL."""
    return (v.encode() if isinstance(v, str) else bytes(v))[:1] or b"\x00"


def _dec_char(b: bytes) -> str:
    """charrecv takes one byte, a NUL too (the empty "char", as charsend sends it back), where
    text_recv refuses a NUL with 22021."""
    return "" if b == b"\x00" else _dec_text(b)


def _enc_uuid(v: Any) -> bytes:
    return v.bytes if isinstance(v, uuid.UUID) else uuid.UUID(str(v)).bytes


def _dec_uuid(b: bytes) -> uuid.UUID:
    if len(b) != 16:
        raise InvalidBinaryRepresentation("incorrect binary data format for uuid")
    return uuid.UUID(bytes=bytes(b))


_CODECS: dict[int, tuple[Encoder, Decoder]] = {
    T.BOOL: (_enc_bool, _dec_bool),
    T.INT2: _fixed(_H), T.INT4: _fixed(_I), T.INT8: _fixed(_Q), T.OID: _fixed(_UI),
    T.FLOAT4: _fixed(_F, float), T.FLOAT8: _fixed(_D, float),
    T.NUMERIC: (encode_numeric, decode_numeric),
    T.BYTEA: (bytes, bytes),
    T.CHAR: (_enc_char, _dec_char),
    T.DATE: (_enc_date, _dec_date), T.TIME: (_enc_time, _dec_time),
    T.TIMETZ: (_enc_timetz, _dec_timetz),
    T.TIMESTAMP: (_enc_timestamp, _dec_timestamp),
    T.TIMESTAMPTZ: (_enc_timestamptz, _dec_timestamptz),
    T.INTERVAL: (_enc_interval, _dec_interval),
    T.UUID: (_enc_uuid, _dec_uuid),
    T.JSON: (_enc_json, _dec_text), T.JSONB: (_enc_jsonb, _dec_jsonb),
    T.INET: (network.encode_inet, network.decode_inet),
    T.CIDR: (lambda v: network.encode_inet(v, True), network.decode_inet),
    T.MACADDR: (network.encode_mac, network.mac_decoder(6)),
    T.MONEY: (money.send_money, money.recv_money),
    T.MACADDR8: (network.encode_mac, network.mac_decoder(8)),
    T.BIT: (bits.encode_bit, bits.decode_bit), T.VARBIT: (bits.encode_bit, bits.decode_bit),
    **geometry.codecs(),
}
for _oid in (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME, T.UNKNOWN):
    _CODECS[_oid] = (_enc_text, _dec_text)
_CODECS[T.XML] = (xmlvalue.send, xmlvalue.recv)
for _oid in (T.REGPROC, T.REGCLASS, T.REGTYPE, T.REGNAMESPACE, T.REGROLE, T.REGPROCEDURE,
             T.REGOPER, T.REGOPERATOR, T.REGCONFIG, T.REGCOLLATION, T.XID, T.CID):
    _CODECS[_oid] = _CODECS[T.OID]
_VECTORS = {T.INT2VECTOR: T.INT2, T.OIDVECTOR: T.OID}


# -- arrays --------------------------------------------------------------------


def _shape(v: list[Any]) -> list[int]:
    dims = []
    while isinstance(v, list | tuple) and not isinstance(v, records.Record):
        dims.append(len(v))
        if not v:
            break
        v = v[0]
    return dims if dims != [0] else []


def _array_encoder(elem_oid: int, lbound: int = 1) -> Encoder:
    elem = binary_encoder(elem_oid)
    null = _I.pack(-1)

    def enc(v: list[Any]) -> bytes:
        dims = _shape(v)
        flat: list[Any] = list(v)
        for _ in range(len(dims) - 1):
            flat = [x for sub in flat for x in sub]
        parts = [b""]
        has_null = 0
        for x in flat:
            if x is None:
                parts.append(null)
                has_null = 1
            else:
                b = elem(x)
                parts.append(_I.pack(len(b)))
                parts.append(b)
        lower = v.lower if type(v) is arraybounds.Bounded else (lbound,) * len(dims)
        parts[0] = _ARRHEAD.pack(len(dims), has_null, elem_oid) + b"".join(
            _DIM.pack(n, lb) for n, lb in zip(dims, lower, strict=True))
        return b"".join(parts)

    return enc


def _array_decoder(elem_oid: int, vector: bool = False) -> Decoder:
    """array_recv; a `vector` (int2vector, oidvector: lbound 0) stays a plain list."""
    cache: dict[int, Decoder] = {}

    def dec(b: bytes) -> list[Any]:
        try:
            ndim, _flags, sent_elem = _ARRHEAD.unpack_from(b)
            dims_lbs = [_DIM.unpack_from(b, 12 + 8 * i) for i in range(ndim)]
        except struct.error:
            raise InvalidBinaryRepresentation("insufficient data left in message") from None
        if ndim == 0:
            return []
        dims = [n for n, _ in dims_lbs]
        oid = sent_elem or elem_oid
        elem = cache.get(oid) or cache.setdefault(oid, binary_decoder(oid))
        pos = 12 + 8 * ndim
        flat: list[Any] = []
        mv = memoryview(b)
        for _ in range(math.prod(dims)):
            (n,) = _I.unpack_from(b, pos)
            pos += 4
            if n < 0:
                flat.append(None)
            else:
                flat.append(elem(bytes(mv[pos : pos + n])))
                pos += n
        if pos != len(b):
            raise InvalidBinaryRepresentation("incorrect binary data format in array")
        for n in reversed(dims[1:]):
            flat = [flat[i : i + n] for i in range(0, len(flat), n)]
        return flat if vector else arraybounds.bounded(flat, [lb for _, lb in dims_lbs])

    return dec


def _generic_encoder(v: Any) -> bytes:
    """Encodes a value of a type pgtypes has no binary codec for, as its text (like unknown)."""
    return format_generic(v).encode()


def binary_encoder(oid: int) -> Encoder:
    """Returns the send function for a type: value -> PostgreSQL binary bytes."""
    codec = _CODECS.get(oid) or extcodecs.binary_codec(oid)
    if codec is not None:
        return codec[0]
    if oid in _VECTORS:  # NB: int2vector and oidvector count from 0
        return _array_encoder(_VECTORS[oid], 0)
    if oid in ranges.SUBTYPE:
        return ranges.binary_encoder(binary_encoder(ranges.SUBTYPE[oid]))
    if oid in multiranges.RANGE_OF:
        return multiranges.binary_encoder(binary_encoder(multiranges.RANGE_OF[oid]))
    if oid == T.RECORD or oid in records.ROW_TYPES:
        return records.binary_encoder(binary_encoder)
    if oid in records.COMPOSITES:
        renc, fields = records.binary_encoder(binary_encoder), records.COMPOSITES[oid]
        return lambda v: renc(records.typed(fields, v))
    if oid in T.DOMAIN_BASE:  # an element of `d[]`: its base type's output
        return binary_encoder(T.DOMAIN_BASE[oid])
    elem = T.ELEMENT_OF.get(oid)
    if elem is not None:
        return _array_encoder(elem)
    return _generic_encoder


def binary_decoder(oid: int) -> Decoder:
    """Returns the receive function for a type: PostgreSQL binary bytes -> value."""
    codec = _CODECS.get(oid) or extcodecs.binary_codec(oid)
    if codec is not None:
        return codec[1]
    if oid in _VECTORS:
        return _array_decoder(_VECTORS[oid], vector=True)
    if oid in ranges.SUBTYPE:
        return ranges.binary_decoder(oid, binary_decoder(ranges.SUBTYPE[oid]))
    if oid in multiranges.RANGE_OF:
        return multiranges.binary_decoder(oid, binary_decoder(multiranges.RANGE_OF[oid]))
    if oid in records.COMPOSITES:
        return records.binary_decoder(records.COMPOSITES[oid], binary_decoder)
    elem = T.ELEMENT_OF.get(oid)
    if elem is not None:
        return _array_decoder(elem)
    if oid in enums.LABELS:  # enum_recv: the label's text, checked as enum_in checks it
        enum_in = enums.input_function(oid)
        return lambda b: enum_in(_dec_text(b))
    return _dec_text


def has_binary(oid: int) -> bool:
    """Tells whether pgtypes has a binary codec for `oid` (else text bytes are used)."""
    return oid in _CODECS or oid in _VECTORS or oid in T.ELEMENT_OF or oid in ranges.SUBTYPE \
        or extcodecs.binary_codec(oid) is not None \
        or oid == T.RECORD or oid in multiranges.RANGE_OF


def encode_binary(oid: int, value: Any) -> bytes:
    """Encodes one value in PostgreSQL's binary format for `oid`."""
    return binary_encoder(oid)(value)


def decode_binary(oid: int, data: bytes) -> Any:
    """Decodes one value from PostgreSQL's binary format for `oid`."""
    return binary_decoder(oid)(data)
