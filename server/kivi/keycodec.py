"""Order-preserving key encoding: `encode_key(t1) < encode_key(t2)` exactly when t1 < t2 in SQL.

Regions are byte ranges, index lookups are bisections and scans are slices, so
every key must be bytes whose memcmp order is the SQL order of the tuple it
came from. Each element is a tag byte followed by a self-delimiting body, which
makes the encoding of a tuple prefix a byte prefix of the full key: a prefix
sorts first and can serve as a range bound (`prefix_upper_bound` gives the
other end).

    tag   type                  body
    0x10  int < -2**63          0xff - len, then ~magnitude (big-endian)
    0x11  int64                 8 bytes, value + 2**63
    0x12  int >= 2**63          len, then magnitude
    0x14  float                 IEEE bits, sign-flipped; -0.0 -> 0.0, every NaN
                                -> one NaN above +inf (PostgreSQL's order)
    0x15  Decimal               class byte (-inf, neg, zero, pos, +inf, NaN), then
                                exponent and digits (inverted when negative)
    0x20  str                   UTF-8, 0x00 escaped as 0x00 0xff, ended by 0x00 0x01
    0x21  bytes                 as str
    0x30  bool                  0x00 / 0x01
    0x31  date                  4 bytes, ordinal
    0x32  time                  8 bytes, microseconds since midnight
    0x33  datetime (naive)      8 bytes, microseconds since 0001-01-01, + 2**63
    0x34  datetime (aware)      the same, after conversion to UTC
                                (keys written before far dates existed put '-infinity'
                                and 'infinity' of date and timestamp[tz] just outside
                                the real range: ordinal 0 and one past date.max's, -1us
                                and one past datetime.max's; they still decode so)
    0x35  timedelta             total microseconds, encoded as an int element (an
                                interval's span, months as 30 days: interval_cmp's order,
                                so '1 mon' and '30 days' are one key, as in a PG index)
    0x36  uuid                  16 bytes
    0x37  time with time zone   8 bytes, UTC microseconds + 2**63 (may leave 0..24h), then
                                4 bytes, -offset + 2**31 (PostgreSQL's timetz order)
    0x22 / 0x39                 date '-infinity' / 'infinity' (no body)
    0x23 / 0x38                 date before 0001-01-01 / after 9999-12-31
                                (`pgtypes.fardate`): 4 bytes, days since 2000-01-01 + 2**31
    0x24, 0x25 / 0x3a, 0x3b     timestamp: '-infinity', before year 1 / after 9999,
                                'infinity'; far ones 8 bytes, µs since 2000-01-01 + 2**63
    0x26, 0x27 / 0x3c, 0x3d     timestamptz: the same, in UTC
    0x40  range                 4 bytes, its type's OID; then 0x00 if empty, else 0x01,
                                the lower bound (0x00 infinite, else 0x01, the element,
                                0x00 inclusive / 0x01 exclusive), the upper bound (0x01,
                                the element, 0x00 exclusive / 0x01 inclusive; 0x02
                                infinite): range_cmp's order (EXCLUDE constraints' index)
    0xff  NULL                  (none): after every value, as ASC NULLS LAST

A column's values share a type, so only the tags of one type meet at a position,
and each type's tags are in its SQL order: -infinity, values before Python's
year 1, the ordinary values, values after 9999, infinity.

Each SQL column has one type, so values of different types never meet at the
same position of two keys; the SQL layer coerces constants to the column's type
before it encodes a bound (NB: int 1 and Decimal 1 encode differently).

A descending column (`desc` flags) stores the bitwise complement of the
element, which reverses its order and puts NULLs first, as PostgreSQL's DESC
does by default. Keys decode losing only what SQL equality ignores: -0.0,
NaN payloads, a Decimal's trailing zeros, and a timestamptz's offset (it comes
back in UTC).
"""

from __future__ import annotations

import datetime as _dt
import struct
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from ..errors import FeatureNotSupported
from ..pgtypes.citext import CIText, fold
from ..pgtypes.collated import Collated
from ..pgtypes.fardate import FarDate, FarTimestamp, date_of_days, ts_of_us, utc_us_of
from ..pgtypes.infdate import (
    DATE_INF,
    DATE_NEG_INF,
    TS_INF,
    TS_NEG_INF,
    TSTZ_INF,
    TSTZ_NEG_INF,
    InfiniteDate,
    InfiniteTimestamp,
    time_of_us,
)
from ..pgtypes.interval import Interval
from ..pgtypes.ranges import EMPTY, LB_INC, LB_INF, UB_INC, UB_INF, Range

__all__ = ["encode_key", "decode_key", "encode_key_desc", "prefix_upper_bound", "successor"]

_INT_NEG_BIG, _INT64, _INT_POS_BIG = 0x10, 0x11, 0x12
_FLOAT, _DECIMAL = 0x14, 0x15
_STR, _BYTES = 0x20, 0x21
_BOOL, _DATE, _TIME, _TS, _TSTZ, _INTERVAL, _UUID = 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36
_TIMETZ = 0x37
_RANGE = 0x40
_COLLATED, _COLLATED_ND = 0x28, 0x29  # pgtypes.collated: ICU sort key (then the text)
_NULL = 0xFF

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_BIAS = 1 << 63
_pack_q = struct.Struct(">Q").pack
_unpack_q = struct.Struct(">Q").unpack_from
_pack_d = struct.Struct(">d").pack
_unpack_d = struct.Struct(">d").unpack
_NAN_BITS = 0xFFF8000000000000  # above the encoding of +inf (0xFFF0...)
_TS_EPOCH = _dt.datetime(1, 1, 1)
_TSTZ_EPOCH = _dt.datetime(1, 1, 1, tzinfo=_dt.UTC)
_US = _dt.timedelta(microseconds=1)
_TS_MAX = (_dt.datetime.max - _TS_EPOCH) // _US
_DATE_MAX = _dt.date.max.toordinal()
_BIAS32 = 1 << 31
# naive / aware: -infinity, before year 1, after 9999, +infinity (one byte each)
_FAR_TS_TAGS = ((b"\x24", b"\x25", b"\x3a", b"\x3b"), (b"\x26", b"\x27", b"\x3c", b"\x3d"))
_FAR_DECODE: dict[int, Any] = {0x22: DATE_NEG_INF, 0x39: DATE_INF, 0x24: TS_NEG_INF,
                               0x3b: TS_INF, 0x26: TSTZ_NEG_INF, 0x3d: TSTZ_INF}

# Decimal classes, in SQL order.
_D_NEG_INF, _D_NEG, _D_ZERO, _D_POS, _D_POS_INF, _D_NAN = 1, 2, 3, 4, 5, 6


def _enc_int(v: int) -> bytes:
    if _I64_MIN <= v <= _I64_MAX:
        return b"\x11" + _pack_q(v + _BIAS)
    mag = -v if v < 0 else v
    raw = mag.to_bytes((mag.bit_length() + 7) // 8, "big")
    if v < 0:
        return bytes((_INT_NEG_BIG, 0xFF - len(raw))) + bytes(b ^ 0xFF for b in raw)
    return bytes((_INT_POS_BIG, len(raw))) + raw


def _enc_float(v: float) -> bytes:
    if v != v:
        return b"\x14" + _pack_q(_NAN_BITS)
    if v == 0.0:
        v = 0.0  # NB: -0.0 == 0.0 in SQL, so they must share one key
    bits = int.from_bytes(_pack_d(v), "big")
    bits = bits ^ 0xFFFFFFFFFFFFFFFF if bits >> 63 else bits | _BIAS
    return b"\x14" + _pack_q(bits)


def _enc_decimal(v: Decimal) -> bytes:
    if v.is_nan():
        return bytes((_DECIMAL, _D_NAN))
    if v.is_infinite():
        return bytes((_DECIMAL, _D_NEG_INF if v < 0 else _D_POS_INF))
    if not v:
        return bytes((_DECIMAL, _D_ZERO))
    sign, digits, exp = v.as_tuple()
    assert isinstance(exp, int)  # NaN and infinities were handled above
    # Strip trailing zeros so that equal values (1.5, 1.50) share one key.
    n = len(digits)
    while digits[n - 1] == 0:
        n -= 1
    exp += len(digits) - n
    # value = 0.d1d2...dn * 10**e
    e = exp + n
    body = bytes(0x30 + d for d in digits[:n])
    if sign:
        return (
            bytes((_DECIMAL, _D_NEG))
            + (0x7FFFFFFF - e).to_bytes(4, "big")
            + bytes(b ^ 0xFF for b in body)
            + b"\xff"
        )
    return bytes((_DECIMAL, _D_POS)) + (e + 0x80000000).to_bytes(4, "big") + body + b"\x00"


def _enc_str(v: str) -> bytes:
    raw = v.encode("utf-8", "surrogatepass")
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"\x00\xff")
    return b"\x20" + raw + b"\x00\x01"


def _enc_citext(v: str) -> bytes:
    """A citext value keys as its case-folded text: 'A@x' and 'a@x' are one key (unique
    indexes and primary keys over citext, pgtypes.citext); it decodes as that text."""
    return _enc_str(fold(v))


def _enc_collated(v: Collated) -> bytes:
    """Text under an ICU collation keys by its ICU sort key (bytes with no NUL, in the
    collator's order), so an index orders as the collation does. A deterministic one
    adds the text to break ties by code point and to decode; a nondeterministic one keys
    by the sort key alone, so a UNIQUE index refuses values the collator calls equal."""
    if not v.deterministic:
        return b"\x29" + v.sort_key() + b"\x00"
    raw = str(v).encode("utf-8", "surrogatepass")
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"\x00\xff")
    return b"\x28" + v.sort_key() + b"\x00" + raw + b"\x00\x01"


def _enc_bytes(v: bytes) -> bytes:
    raw = bytes(v)
    if b"\x00" in raw:
        raw = raw.replace(b"\x00", b"\x00\xff")
    return b"\x21" + raw + b"\x00\x01"


def _enc_bool(v: bool) -> bytes:
    return b"\x30\x01" if v else b"\x30\x00"


def _enc_date(v: _dt.date) -> bytes:
    if type(v) is InfiniteDate:
        return b"\x39" if v.sign > 0 else b"\x22"
    if type(v) is FarDate:
        return (b"\x38" if v.days > 0 else b"\x23") + (v.days + _BIAS32).to_bytes(4, "big")
    return b"\x31" + v.toordinal().to_bytes(4, "big")


def _enc_time(v: _dt.time) -> bytes:
    us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    off = v.utcoffset() if v.tzinfo is not None else None
    if off is None:
        return b"\x32" + _pack_q(us + _BIAS)
    # NB: PostgreSQL orders timetz by UTC time, then by zone (seconds west of UTC); equal
    # instants with different offsets are different values.
    off_s = off // _US // 1_000_000
    return (
        b"\x37" + _pack_q(us - off_s * 1_000_000 + _BIAS) + (-off_s + (1 << 31)).to_bytes(4, "big")
    )


def _enc_datetime(v: _dt.datetime) -> bytes:
    if type(v) is InfiniteTimestamp:
        return _FAR_TS_TAGS[v.tzinfo is not None][3 if v.sign > 0 else 0]
    if type(v) is FarTimestamp:
        aware = v.tzinfo is not None
        us = utc_us_of(v) if aware else v.us
        return _FAR_TS_TAGS[aware][2 if us > 0 else 1] + _pack_q(us + _BIAS)
    if v.tzinfo is None:
        return b"\x33" + _pack_q((v - _TS_EPOCH) // _US + _BIAS)
    return b"\x34" + _pack_q((v - _TSTZ_EPOCH) // _US + _BIAS)


def _enc_timedelta(v: _dt.timedelta) -> bytes:
    return b"\x35" + _enc_int(v // _US)


def _enc_uuid(v: uuid.UUID) -> bytes:
    return b"\x36" + v.bytes


def _enc_none(v: None) -> bytes:
    return b"\xff"


def _enc_range(v: Range) -> bytes:
    head = b"\x40" + v.oid.to_bytes(4, "big")
    f = v.flags
    if f & EMPTY:
        return head + b"\x00"
    lo = b"\x00" if f & LB_INF else (
        b"\x01" + encode_element(v.lower) + (b"\x00" if f & LB_INC else b"\x01"))
    hi = b"\x02" if f & UB_INF else (
        b"\x01" + encode_element(v.upper) + (b"\x01" if f & UB_INC else b"\x00"))
    return head + b"\x01" + lo + hi


def _decode_range(buf: bytes, pos: int) -> tuple[Range, int]:
    oid = int.from_bytes(buf[pos : pos + 4], "big")
    pos += 4
    if buf[pos] == 0:
        return Range(oid, None, None, EMPTY), pos + 1
    lower, lo_inf, lo_inc, pos = _decode_bound(buf, pos + 1, 0, 0)
    upper, hi_inf, hi_inc, pos = _decode_bound(buf, pos, 2, 1)
    flags = (LB_INF if lo_inf else 0) | (LB_INC if lo_inc else 0) | \
        (UB_INF if hi_inf else 0) | (UB_INC if hi_inc else 0)
    return Range(oid, lower, upper, flags), pos


def _decode_bound(buf: bytes, pos: int, infinite: int, inclusive: int
                  ) -> tuple[Any, bool, bool, int]:
    """One range bound: (value, infinite?, inclusive?, the position after it); `infinite`
    and `inclusive` are the bytes that say so for this end (`_enc_range`)."""
    if buf[pos] == infinite:
        return None, True, False, pos + 1
    value, pos = _decode_one(buf, pos + 1)
    return value, False, buf[pos] == inclusive, pos + 1


_ENCODERS: dict[type, Any] = {
    int: _enc_int,
    float: _enc_float,
    Decimal: _enc_decimal,
    str: _enc_str,
    CIText: _enc_citext,
    bytes: _enc_bytes,
    bytearray: _enc_bytes,
    memoryview: _enc_bytes,
    bool: _enc_bool,
    _dt.date: _enc_date,
    _dt.time: _enc_time,
    _dt.datetime: _enc_datetime,
    _dt.timedelta: _enc_timedelta,
    Interval: _enc_timedelta,
    uuid.UUID: _enc_uuid,
    type(None): _enc_none,
    Range: _enc_range,
}
# Subclasses (IntEnum, pendulum's datetime...) are matched by isinstance, most specific first.
_FALLBACK = (
    (bool, _enc_bool),
    (int, _enc_int),
    (float, _enc_float),
    (Decimal, _enc_decimal),
    (str, _enc_str),
    ((bytes, bytearray, memoryview), _enc_bytes),
    (_dt.datetime, _enc_datetime),
    (_dt.date, _enc_date),
    (_dt.time, _enc_time),
    (_dt.timedelta, _enc_timedelta),
    (uuid.UUID, _enc_uuid),
)


def _encoder(v: Any) -> Any:
    if isinstance(v, Collated):
        _ENCODERS[type(v)] = _enc_collated  # NB: a class per collation, made at run time
        return _enc_collated
    for cls, fn in _FALLBACK:
        if isinstance(v, cls):
            return fn
    raise FeatureNotSupported(f"values of type {type(v).__name__} cannot be part of a key")


# The encoder of a value of exactly this type, or None (then `encode_element`): a point read
# of a one-column key encodes it in one call (`sql.dml.keyed`), as `encode_key` would
element_encoder: Callable[[type], Callable[[Any], bytes] | None] = _ENCODERS.get


def encode_element(v: Any) -> bytes:
    """Encodes one value as an ascending key element."""
    fn = _ENCODERS.get(type(v))
    return fn(v) if fn is not None else _encoder(v)(v)


def encode_key(values: Sequence[Any]) -> bytes:
    """Encodes a tuple into bytes whose byte order is the tuples' SQL order."""
    get = _ENCODERS.get
    if type(values) is tuple and len(values) == 1:  # NB: a one-column key (most primary
        # keys): no list to join (a tuple: any sequence or iterable may come here)
        v = values[0]
        fn = get(type(v))
        return fn(v) if fn is not None else _encoder(v)(v)
    out = []
    for v in values:
        fn = get(type(v))
        out.append(fn(v) if fn is not None else _encoder(v)(v))
    return b"".join(out)


def _invert(b: bytes) -> bytes:
    return (int.from_bytes(b, "big") ^ ((1 << (8 * len(b))) - 1)).to_bytes(len(b), "big")


def encode_key_desc(values: Sequence[Any], desc: Sequence[bool]) -> bytes:
    """Encodes a tuple with per-column direction: desc[i] inverts column i's order (NULLs first)."""
    out = []
    for v, d in zip(values, desc, strict=False):
        e = encode_element(v)
        out.append(_invert(e) if d else e)
    for v in values[len(desc) :]:
        out.append(encode_element(v))
    return b"".join(out)


def prefix_upper_bound(key_prefix: bytes) -> bytes | None:
    """Returns the smallest key above every key that starts with `key_prefix` (None: no bound)."""
    p = key_prefix.rstrip(b"\xff")
    if not p:
        return None
    return p[:-1] + bytes((p[-1] + 1,))


def successor(key: bytes) -> bytes:
    """Returns the smallest key greater than `key`."""
    return key + b"\x00"


# --- decoding -------------------------------------------------------------------------------


def _find_end(buf: bytes, pos: int, term: bytes) -> int:
    """Finds the terminator of an escaped string body starting at pos."""
    esc = term[:1]
    while True:
        i = buf.find(esc, pos)
        if i < 0 or i + 1 >= len(buf):
            raise ValueError("truncated key")
        if buf[i + 1] == term[1]:
            return i
        pos = i + 2


def _decode_one(buf: bytes, pos: int) -> tuple[Any, int]:
    tag = buf[pos]
    pos += 1
    if tag == _INT64:
        return _unpack_q(buf, pos)[0] - _BIAS, pos + 8
    if tag == _STR or tag == _BYTES:
        end = _find_end(buf, pos, b"\x00\x01")
        raw = buf[pos:end]
        if b"\x00" in raw:
            raw = raw.replace(b"\x00\xff", b"\x00")
        return (raw.decode("utf-8", "surrogatepass") if tag == _STR else bytes(raw)), end + 2
    if tag == _NULL:
        return None, pos
    if tag == _COLLATED:  # the text after the sort key (as a plain str)
        start = buf.index(b"\x00", pos) + 1
        end = _find_end(buf, start, b"\x00\x01")
        raw = buf[start:end]
        if b"\x00" in raw:
            raw = raw.replace(b"\x00\xff", b"\x00")
        return raw.decode("utf-8", "surrogatepass"), end + 2
    if tag == _COLLATED_ND:
        raise ValueError("a nondeterministic collation's key holds no text")
    if tag == _FLOAT:
        bits = _unpack_q(buf, pos)[0]
        bits = bits ^ _BIAS if bits >> 63 else bits ^ 0xFFFFFFFFFFFFFFFF
        return _unpack_d(bits.to_bytes(8, "big"))[0], pos + 8
    if tag == _DECIMAL:
        return _decode_decimal(buf, pos)
    if tag == _BOOL:
        return buf[pos] == 1, pos + 1
    if tag == _DATE:
        n = int.from_bytes(buf[pos : pos + 4], "big")
        if n == 0 or n > _DATE_MAX:
            return DATE_INF if n else DATE_NEG_INF, pos + 4
        return _dt.date.fromordinal(n), pos + 4
    if tag == _TIME:
        return _time_of(_unpack_q(buf, pos)[0] - _BIAS), pos + 8
    if tag == _TIMETZ:
        off_s = (1 << 31) - int.from_bytes(buf[pos + 8 : pos + 12], "big")
        us = _unpack_q(buf, pos)[0] - _BIAS + off_s * 1_000_000
        tz = _dt.timezone(_dt.timedelta(seconds=off_s))
        return _time_of(us, tz), pos + 12
    if tag == _TS or tag == _TSTZ:
        us = _unpack_q(buf, pos)[0] - _BIAS
        zone = None if tag == _TS else _dt.UTC
        if us < 0 or us > _TS_MAX:
            return InfiniteTimestamp(1 if us > 0 else -1, zone), pos + 8
        return (_TS_EPOCH + us * _US).replace(tzinfo=zone), pos + 8
    if tag == _INTERVAL:
        us, pos = _decode_one(buf, pos)
        return us * _US, pos
    if tag == _UUID:
        return uuid.UUID(bytes=bytes(buf[pos : pos + 16])), pos + 16
    if tag == _RANGE:
        return _decode_range(buf, pos)
    if tag in _FAR_DECODE:
        return _FAR_DECODE[tag], pos
    if tag == 0x23 or tag == 0x38:
        return date_of_days(int.from_bytes(buf[pos : pos + 4], "big") - _BIAS32), pos + 4
    if tag in (0x25, 0x3A, 0x27, 0x3C):
        return ts_of_us(_unpack_q(buf, pos)[0] - _BIAS, None if tag in (0x25, 0x3A) else _dt.UTC), \
            pos + 8
    if tag == _INT_POS_BIG:
        n = buf[pos]
        return int.from_bytes(buf[pos + 1 : pos + 1 + n], "big"), pos + 1 + n
    if tag == _INT_NEG_BIG:
        n = 0xFF - buf[pos]
        mag = int.from_bytes(_invert(buf[pos + 1 : pos + 1 + n]), "big")
        return -mag, pos + 1 + n
    raise ValueError(f"bad key tag 0x{tag:02x} at {pos - 1}")


def _time_of(us: int, tz: _dt.tzinfo | None = None) -> _dt.time:
    return time_of_us(us, tz)  # NB: a whole day is 24:00:00 (infdate.Time24)


def _decode_decimal(buf: bytes, pos: int) -> tuple[Decimal, int]:
    cls = buf[pos]
    pos += 1
    if cls == _D_ZERO:
        return Decimal(0), pos
    if cls == _D_NAN:
        return Decimal("NaN"), pos
    if cls == _D_POS_INF:
        return Decimal("Infinity"), pos
    if cls == _D_NEG_INF:
        return Decimal("-Infinity"), pos
    e = int.from_bytes(buf[pos : pos + 4], "big")
    pos += 4
    if cls == _D_POS:
        e -= 0x80000000
        end = buf.index(b"\x00", pos)
        digits = tuple(b - 0x30 for b in buf[pos:end])
        sign = 0
    else:
        e = 0x7FFFFFFF - e
        end = buf.index(b"\xff", pos)
        digits = tuple((b ^ 0xFF) - 0x30 for b in buf[pos:end])
        sign = 1
    return Decimal((sign, digits, e - len(digits))), end + 1


def _element_end(buf: bytes, pos: int) -> int:
    """Returns where the ascending element at pos ends (used to find inverted elements)."""
    return _decode_one(buf, pos)[1]


def decode_key(key: bytes, desc: Sequence[bool] = ()) -> tuple[Any, ...]:
    """Decodes a key made by `encode_key` (or `encode_key_desc` with the same flags)."""
    out: list[Any] = []
    pos, n, i = 0, len(key), 0
    while pos < n:
        if i < len(desc) and desc[i]:
            # Inverted elements are self-delimiting once inverted; bodies are short, so
            # inverting the rest of the key and decoding one element is cheap enough.
            rest = _invert(key[pos:])
            v, used = _decode_one(rest, 0)
            out.append(v)
            pos += used
        else:
            v, pos = _decode_one(key, pos)
            out.append(v)
        i += 1
    return tuple(out)
