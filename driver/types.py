"""Codecs between Python values and PostgreSQL's text and binary wire formats.

Results: `decoders_for(columns)` picks one function per column from the type
OID, and `result_formats(columns)` asks for binary exactly for the columns
whose OID has a binary decoder here (everything else comes as text and
decodes to str). Parameters: `encode(value)` returns (type oid, format,
bytes). Types whose Python value says what they are go in binary with their
OID (bool, int, float, bytes, date/time, UUID, dict as jsonb, lists as
arrays); str and None go as text with OID 0, so the server infers the type
from context, as psycopg 3 does. Arrays live in `driver/arrays.py`.
"""

from __future__ import annotations

import json
import re
import struct
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal

from cumulo.driver.errors import DataError, ProgrammingError

# Type OIDs (PostgreSQL 15's pg_type).
BOOL, BYTEA, CHAR, NAME, INT8, INT2, INT4, REGPROC, TEXT, OID = 16, 17, 18, 19, 20, 21, 23, 24, 25, 26
JSON, XML, FLOAT4, FLOAT8, UNKNOWN, BPCHAR, VARCHAR = 114, 142, 700, 701, 705, 1042, 1043
DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL, TIMETZ = 1082, 1083, 1114, 1184, 1186, 1266
NUMERIC, UUID, JSONB, REGTYPE, REGCLASS = 1700, 2950, 3802, 2206, 2205
INT4_MIN, INT4_MAX = -(2**31), 2**31 - 1
INT8_MIN, INT8_MAX = -(2**63), 2**63 - 1

Decoder = Callable[[bytes], object]
EPOCH = datetime(2000, 1, 1)
EPOCH_UTC = datetime(2000, 1, 1, tzinfo=UTC)
EPOCH_DATE_ORD = date(2000, 1, 1).toordinal()
_US = timedelta(microseconds=1)


class Json:
    """Wraps a value to send as jsonb even when it is a list or a str."""

    __slots__ = ("obj",)

    def __init__(self, obj: object):
        self.obj = obj


# ---------------------------------------------------------------- text decoders


def _text(b: bytes) -> str:
    return b.decode()


TEXT_DECODE = _text  # the plain UTF-8 decoder: `driver/rows.py` inlines it

def _bool_text(b: bytes) -> bool:
    return b == b"t"


def _bytea_text(b: bytes) -> bytes:
    if b[:2] == b"\\x":
        return bytes.fromhex(b[2:].decode())
    # Escape format (bytea_output = escape): backslash octal escapes.
    return b.decode("unicode_escape" if b"\\" in b else "latin-1").encode("latin-1")


def _date_text(b: bytes) -> date:
    s = b.decode()
    if s == "infinity":
        return date.max
    if s == "-infinity":
        return date.min
    return date.fromisoformat(s)


def _ts_text(b: bytes) -> datetime:
    s = b.decode()
    if s == "infinity":
        return datetime.max
    if s == "-infinity":
        return datetime.min
    return datetime.fromisoformat(s)


def _time_text(b: bytes) -> time:
    return time.fromisoformat(b.decode())


_INTERVAL_PART = re.compile(r"(-?\d+) (year|mon|day)s?|(-?)(\d+):(\d+):(\d+(?:\.\d+)?)")


def _interval_text(b: bytes) -> timedelta:
    days, secs = 0, Decimal(0)
    for m in _INTERVAL_PART.finditer(b.decode()):
        if m.group(2):
            n = int(m.group(1))
            days += n * {"year": 365, "mon": 30, "day": 1}[m.group(2)]
        else:
            s = int(m.group(4)) * 3600 + int(m.group(5)) * 60 + Decimal(m.group(6))
            secs += -s if m.group(3) else s
    return timedelta(days=days, microseconds=int(secs * 1_000_000))


def _json_text(b: bytes) -> object:
    return json.loads(b)


def _uuid_text(b: bytes) -> uuid.UUID:
    return uuid.UUID(b.decode())


TEXT_DECODERS: dict[int, Decoder] = {
    BOOL: _bool_text, BYTEA: _bytea_text, INT2: int, INT4: int, INT8: int, OID: int,
    FLOAT4: float, FLOAT8: float, NUMERIC: lambda b: Decimal(b.decode()),
    DATE: _date_text, TIME: _time_text, TIMETZ: _time_text, TIMESTAMP: _ts_text,
    TIMESTAMPTZ: _ts_text, INTERVAL: _interval_text, UUID: _uuid_text,
    JSON: _json_text, JSONB: _json_text,
}

# ---------------------------------------------------------------- binary decoders

_h, _i, _q = struct.Struct("!h"), struct.Struct("!i"), struct.Struct("!q")
_f, _d = struct.Struct("!f"), struct.Struct("!d")
_qi, _qii = struct.Struct("!qi"), struct.Struct("!qii")
_hhHh = struct.Struct("!hhHh")


_NUMERIC_DIGITS: dict[int, struct.Struct] = {}


def _numeric_bin(b: bytes) -> Decimal:
    ndigits, weight, sign, dscale = _hhHh.unpack_from(b)
    if sign == 0xC000:
        return Decimal("NaN")
    if sign in (0xD000, 0xF000):
        return Decimal("Infinity" if sign == 0xD000 else "-Infinity")
    st = _NUMERIC_DIGITS.get(ndigits)
    if st is None:
        st = _NUMERIC_DIGITS.setdefault(ndigits, struct.Struct(f"!{ndigits}h"))
    n = 0
    for d in st.unpack_from(b, 8):  # base-10000 digits
        n = n * 10000 + d
    exp = (weight - ndigits + 1) * 4  # value = n * 10**exp; the result has dscale decimals
    if exp > -dscale:
        n *= 10 ** (exp + dscale)
    elif exp < -dscale:
        n //= 10 ** (-dscale - exp)
    return Decimal(f"{'-' if sign == 0x4000 else ''}{n}E-{dscale}")


def _date_bin(b: bytes) -> date:
    (days,) = _i.unpack(b)
    if days == INT4_MAX:
        return date.max
    if days == INT4_MIN:
        return date.min
    return date.fromordinal(days + EPOCH_DATE_ORD)


def _ts_bin(b: bytes) -> datetime:
    (us,) = _q.unpack(b)
    if us in (INT8_MAX, INT8_MIN):
        return datetime.max if us > 0 else datetime.min
    return EPOCH + timedelta(0, 0, us)


def _tstz_bin(b: bytes) -> datetime:
    (us,) = _q.unpack(b)
    if us in (INT8_MAX, INT8_MIN):
        return (datetime.max if us > 0 else datetime.min).replace(tzinfo=UTC)
    return EPOCH_UTC + timedelta(0, 0, us)


def tstz_decoder(tz: tzinfo) -> Decoder:
    """Returns a binary timestamptz decoder giving datetimes in the session's time zone."""

    def decode(b: bytes) -> datetime:
        v = _tstz_bin(b)
        return v if v.year in (1, 9999) else v.astimezone(tz)

    return decode


def _us_to_time(us: int, tz: timezone | None = None) -> time:
    s, us = divmod(us, 1_000_000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    if h == 24:  # PostgreSQL allows 24:00:00; Python does not.
        return time.max.replace(tzinfo=tz)
    return time(h, m, s, us, tzinfo=tz)


def _time_bin(b: bytes) -> time:
    return _us_to_time(_q.unpack(b)[0])


def _timetz_bin(b: bytes) -> time:
    us, west = _qi.unpack(b)
    return _us_to_time(us, timezone(timedelta(seconds=-west)))


def _interval_bin(b: bytes) -> timedelta:
    """A timedelta, as psycopg 3 reads one: a year is 365 days and a month 30 (as in text)."""
    us, days, months = _qii.unpack(b)
    years, mons = divmod(abs(months), 12)
    sign = -1 if months < 0 else 1
    return timedelta(days=days + sign * (365 * years + 30 * mons), microseconds=us)


def _jsonb_bin(b: bytes) -> object:
    if b[:1] != b"\x01":
        raise DataError(f"unknown jsonb binary version {b[:1]!r}")
    return json.loads(b[1:])


def _char_bin(b: bytes) -> str:
    # "char" is one byte; PostgreSQL shows the zero byte as '' (attgenerated, attidentity).
    return "" if b == b"\x00" else b.decode("utf-8", "replace")


BINARY_DECODERS: dict[int, Decoder] = {
    BOOL: lambda b: b == b"\x01", BYTEA: bytes, CHAR: _char_bin, NAME: _text, TEXT: _text,
    BPCHAR: _text, VARCHAR: _text, UNKNOWN: _text, XML: _text,
    INT2: lambda b: _h.unpack(b)[0], INT4: lambda b: _i.unpack(b)[0],
    INT8: lambda b: _q.unpack(b)[0], OID: lambda b: struct.unpack("!I", b)[0],
    FLOAT4: lambda b: _f.unpack(b)[0], FLOAT8: lambda b: _d.unpack(b)[0],
    NUMERIC: _numeric_bin, DATE: _date_bin, TIME: _time_bin, TIMETZ: _timetz_bin,
    TIMESTAMP: _ts_bin, TIMESTAMPTZ: _tstz_bin, INTERVAL: _interval_bin,
    UUID: lambda b: uuid.UUID(bytes=bytes(b)), JSON: _json_text, JSONB: _jsonb_bin,
}

# ---------------------------------------------------------------- encoders

Encoded = tuple[int, int, bytes | None]  # (type oid, format 0 text / 1 binary, data)


def _enc_int(v: int) -> Encoded:
    if INT4_MIN <= v <= INT4_MAX:
        return INT4, 1, _i.pack(v)
    if INT8_MIN <= v <= INT8_MAX:
        return INT8, 1, _q.pack(v)
    return NUMERIC, 0, str(v).encode()


def _enc_datetime(v: datetime) -> Encoded:
    if v.tzinfo is None or v.utcoffset() is None:
        return TIMESTAMP, 1, _q.pack((v - EPOCH) // _US)
    return TIMESTAMPTZ, 1, _q.pack((v - EPOCH_UTC) // _US)


def _enc_time(v: time) -> Encoded:
    us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    off = v.utcoffset()
    if off is None:
        return TIME, 1, _q.pack(us)
    return TIMETZ, 1, _qi.pack(us, -int(off.total_seconds()))


def _enc_timedelta(v: timedelta) -> Encoded:
    return INTERVAL, 1, _qii.pack(v.seconds * 1_000_000 + v.microseconds, v.days, 0)


def _enc_decimal(v: Decimal) -> Encoded:
    return NUMERIC, 0, str(v).encode()


def _enc_json(v: object) -> Encoded:
    obj = v.obj if isinstance(v, Json) else v
    return JSONB, 1, b"\x01" + json.dumps(obj).encode()


ENCODERS: dict[type, Callable[[object], Encoded]] = {
    bool: lambda v: (BOOL, 1, b"\x01" if v else b"\x00"),
    int: _enc_int,  # type: ignore[dict-item]
    float: lambda v: (FLOAT8, 1, _d.pack(v)),
    str: lambda v: (0, 0, v.encode()),  # type: ignore[attr-defined]
    bytes: lambda v: (BYTEA, 1, bytes(v)),  # type: ignore[call-overload]
    bytearray: lambda v: (BYTEA, 1, bytes(v)),  # type: ignore[call-overload]
    memoryview: lambda v: (BYTEA, 1, bytes(v)),  # type: ignore[call-overload]
    Decimal: _enc_decimal,  # type: ignore[dict-item]
    datetime: _enc_datetime,  # type: ignore[dict-item]
    date: lambda v: (DATE, 1, _i.pack(v.toordinal() - EPOCH_DATE_ORD)),  # type: ignore[attr-defined]
    time: _enc_time,  # type: ignore[dict-item]
    timedelta: _enc_timedelta,  # type: ignore[dict-item]
    uuid.UUID: lambda v: (UUID, 1, v.bytes),  # type: ignore[attr-defined]
    dict: _enc_json,
    Json: _enc_json,
}


def encode(value: object) -> Encoded:
    """Encodes one parameter as (type oid, format, bytes); None becomes an untyped NULL."""
    if value is None:
        return 0, 0, None
    enc = ENCODERS.get(type(value))
    if enc is None:
        if isinstance(value, list | tuple):
            return _arrays.encode_array(value)
        for typ, e in ENCODERS.items():  # subclasses (IntEnum, str subclasses, ...)
            if isinstance(value, typ):
                enc = e
                break
        else:
            raise ProgrammingError(f"cannot send a {type(value).__name__} as a parameter")
    return enc(value)


_WIDTHS = {INT2: _h, INT4: _i, INT8: _q}


def _as_text(value: object) -> bytes:
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, bytes | bytearray | memoryview):
        return b"\\x" + bytes(value).hex().encode()
    if isinstance(value, timedelta):
        return f"{value.days} days {value.seconds} seconds {value.microseconds} us".encode()
    if isinstance(value, dict | Json):
        return json.dumps(value.obj if isinstance(value, Json) else value).encode()
    if isinstance(value, list | tuple):
        return _arrays.text_literal(value) if value else b"{}"  # as encode_array([]) says
    return str(value).encode()


def encode_as(value: object, oid: int) -> Encoded:
    """Encodes a parameter for a statement whose parameter type the server chose."""
    enc = encode(value)
    if enc[0] in (oid, 0) or value is None:
        return enc
    if type(value) is int and oid in _WIDTHS:
        try:
            return oid, 1, _WIDTHS[oid].pack(value)
        except struct.error:
            raise DataError(f"{value} is out of range for parameter type {oid}") from None
    if type(value) in (int, float) and oid == FLOAT8:
        return FLOAT8, 1, _d.pack(value)
    return oid, 0, _as_text(value)


def encode_for(values: Sequence[object], oids: Sequence[int]) -> list[Encoded]:
    """Encodes a row of parameters for a statement prepared without declared types."""
    if len(values) != len(oids):
        raise ProgrammingError(f"the statement expects {len(oids)} arguments, {len(values)} given")
    return [encode_as(v, o) for v, o in zip(values, oids, strict=True)]


def decoder_for(oid: int, fmt: int) -> Decoder:
    """Returns the function that turns a column's wire bytes into a Python value."""
    if fmt == 1:
        dec = BINARY_DECODERS.get(oid)
        if dec is None:
            dec = _arrays.binary_array_decoder(oid)
        return dec or bytes
    dec = TEXT_DECODERS.get(oid)
    if dec is None:
        dec = _arrays.text_array_decoder(oid)
    return dec or _text


def session_decoder(oid: int, fmt: int, tz: tzinfo | None,
                    json_loads: Callable[[str], object] | None) -> Decoder | None:
    """Returns the decoder a session's settings call for instead of the stock one, or None."""
    if oid == TIMESTAMPTZ and fmt == 1 and tz is not None:
        return tstz_decoder(tz)
    if json_loads is not None and oid in (JSON, JSONB):
        if oid == JSONB and fmt == 1:
            def jsonb(b: bytes) -> object:
                if b[:1] != b"\x01":
                    raise DataError(f"unknown jsonb binary version {b[:1]!r}")
                return json_loads(b[1:].decode())

            return jsonb
        return lambda b: json_loads(b.decode())
    return None


# Types whose text form decodes faster than their binary one, and says the same:
# numeric's text goes straight to Decimal's C parser (binary needs Python arithmetic).
TEXT_IS_FASTER = frozenset({NUMERIC})


def wants_binary(oid: int) -> bool:
    """Tells whether results of type `oid` should come in binary: when a binary decoder
    exists here and is the faster one."""
    if oid in TEXT_IS_FASTER:
        return False
    return oid in BINARY_DECODERS or _arrays.ARRAY_ELEMENTS.get(oid, -1) in BINARY_DECODERS


# NB: at the bottom because arrays.py uses this module's codecs (looked up at call time).
from cumulo.driver import arrays as _arrays  # noqa: E402
