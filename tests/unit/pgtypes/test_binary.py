"""Binary send/receive: bytes captured from PostgreSQL 15.18, plus hypothesis round-trips."""

from __future__ import annotations

import datetime as dt
import struct
import uuid
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cumulo.server.errors import InvalidBinaryRepresentation, ProtocolViolation, SQLError
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.binary import decode_binary, encode_binary
from cumulo.server.pgtypes.codecs import column_encoders, wire_decoder

# (oid, value, PostgreSQL 15's binary output for it, hex)
PG15_BINARY = [
    (T.NUMERIC, Decimal("0"), "0000000000000000"),
    (T.NUMERIC, Decimal("12345.678"), "0003000100000003000109291a7c"),
    (T.NUMERIC, Decimal("1e20"), "00010005000000000001"),
    (T.NUMERIC, Decimal("0.00001"), "0001fffe0000000503e8"),
    (T.NUMERIC, Decimal("-99990000.1000"), "0003000140000004270f000003e8"),
    (T.NUMERIC, Decimal("NaN"), "00000000c0000000"),
    (T.INTERVAL, -dt.timedelta(days=1, hours=1), "ffffffff296c5c00ffffffff00000000"),
    (T.INTERVAL, dt.timedelta(hours=-23), "ffffffecb8bc44000000000000000000"),
    (T.DATE, dt.date(1999, 12, 31), "ffffffff"),
    (1007, [[1, 2], [3, None]],
     "00000002000000010000001700000002000000010000000200000001"
     "000000040000000100000004000000020000000400000003ffffffff"),
    (1009, [], "000000000000000000000019"),
    (T.INT2VECTOR, [1, 2], "0000000100000000000000150000000200000000000000020001000000020002"),
    (T.JSONB, '{"a": 1}', "017b2261223a20317d"),
    (T.CHAR, "a", "61"),
    (T.UUID, uuid.UUID("12345678-1234-5678-1234-567812345678"),
     "12345678123456781234567812345678"),
    (T.TIMETZ, dt.time(3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))),
     "0000000292555340ffffb2a8"),
]


@pytest.mark.parametrize(("oid", "value", "hexed"), PG15_BINARY)
def test_binary_matches_pg15(oid, value, hexed):
    raw = bytes.fromhex(hexed)
    assert encode_binary(oid, value) == raw
    back = decode_binary(oid, raw)
    assert back == value or (isinstance(value, Decimal) and value.is_nan() and back.is_nan())


def test_numeric_keeps_display_scale():
    back = decode_binary(T.NUMERIC, encode_binary(T.NUMERIC, Decimal("-1234.5600")))
    assert str(back) == "-1234.5600"
    assert decode_binary(T.NUMERIC, bytes.fromhex("00000000f0000020")) == Decimal("-Infinity")
    assert decode_binary(T.NUMERIC, encode_binary(T.NUMERIC, Decimal("Infinity"))).is_infinite()


def test_timestamptz_is_utc_and_aware():
    v = dt.datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    back = decode_binary(T.TIMESTAMPTZ, encode_binary(T.TIMESTAMPTZ, v))
    assert back == v and back.tzinfo == dt.UTC


def test_bad_binary_inputs_like_postgresql():
    """Too few bytes is a malformed message (08P01), too many or a bad value 22P03, as PG's
    recv functions report them (checked against PG 15 in test_wire_malformed.py)."""
    with pytest.raises(ProtocolViolation, match="insufficient data left in message"):
        decode_binary(T.INT4, b"\x00\x01")
    with pytest.raises(InvalidBinaryRepresentation, match="incorrect binary data format"):
        decode_binary(T.INT4, b"\x00\x01\x02\x03\x04")
    with pytest.raises(InvalidBinaryRepresentation):
        decode_binary(T.JSONB, b"\x02{}")
    dec = wire_decoder(T.DATE, 1)
    with pytest.raises(SQLError) as ei:
        dec(b"\x00")
    assert ei.value.sqlstate == "08P01"
    with pytest.raises(SQLError) as ei:
        dec(b"\x00" * 5)
    assert ei.value.sqlstate == "22P03"


def test_oid_array_parameter_like_asyncpg():
    raw = struct.pack("!iiiii", 1, 0, 26, 2, 1) + struct.pack("!iIiI", 4, 16384, 4, 25)
    assert wire_decoder(1028, 1)(raw) == [16384, 25]


def test_column_encoders_mix_formats():
    encs = column_encoders([T.INT4, T.TEXT, T.BOOL], [1, 0, 0])
    assert [e(v) for e, v in zip(encs, [7, "é", True], strict=True)] == [
        b"\x00\x00\x00\x07", "é".encode(), b"t"]


ROUND_TRIPS = [
    (T.BOOL, st.booleans()),
    (T.INT2, st.integers(-(2**15), 2**15 - 1)),
    (T.INT4, st.integers(-(2**31), 2**31 - 1)),
    (T.INT8, st.integers(-(2**63), 2**63 - 1)),
    (T.OID, st.integers(0, 2**32 - 1)),
    (T.FLOAT8, st.floats(allow_nan=False)),
    (T.FLOAT4, st.floats(width=32, allow_nan=False)),
    (T.NUMERIC, st.decimals(allow_nan=False, allow_infinity=True)),
    (T.TEXT, st.text(st.characters(codec="utf-8", exclude_characters="\x00"))),
    (T.BYTEA, st.binary()),
    (T.DATE, st.dates()),
    (T.TIME, st.times()),
    (T.TIMESTAMP, st.datetimes()),
    (T.TIMESTAMPTZ, st.datetimes(timezones=st.just(dt.UTC))),
    (T.INTERVAL, st.timedeltas(min_value=dt.timedelta(days=-10**6),
                               max_value=dt.timedelta(days=10**6))),
    (T.UUID, st.uuids()),
    (T.JSON, st.text(st.characters(codec="utf-8", exclude_characters="\x00"))),
    (1016, st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)))),
    (1009, st.lists(st.one_of(st.none(), st.text(st.characters(codec="utf-8", exclude_characters="\x00"))))),
    (1231, st.lists(st.decimals(allow_nan=False, allow_infinity=False))),
    (1115, st.lists(st.datetimes())),
]


@pytest.mark.parametrize(("oid", "strategy"), ROUND_TRIPS, ids=[str(o) for o, _ in ROUND_TRIPS])
def test_round_trip(oid, strategy):
    @given(strategy)
    def check(v):
        back = decode_binary(oid, encode_binary(oid, v))
        assert back == v
        if isinstance(v, Decimal):
            assert v.is_infinite() or back.as_tuple().exponent == min(0, v.as_tuple().exponent)

    check()
