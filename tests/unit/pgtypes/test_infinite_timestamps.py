"""The timestamp infinities against the real edge values, in every encoding that stores them.

`InfiniteTimestamp` (pgtypes.infdate) replaced datetime.max / datetime.min as
'infinity' / '-infinity'. The storage encodings must keep the two apart, and
records written before (where datetime.max / min in `kivi.wire`'s code 4 and
in `kivi.wirecols`' kinds 2, 4 and 5 meant the infinities) must still read as
infinities.
"""

from __future__ import annotations

import datetime as dt

import msgpack
import pytest

from cumulo.server.errors import DatetimeFieldOverflow
from cumulo.server.kivi import wire, wirecols
from cumulo.server.kivi.keycodec import decode_key, encode_key
from cumulo.server.pgtypes import binary, text
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.infdate import (
    DATE_INF,
    DATE_NEG_INF,
    TS_INF,
    TS_NEG_INF,
    TSTZ_INF,
    TSTZ_NEG_INF,
    InfiniteTimestamp,
)

UTC = dt.UTC
EDGES = [dt.datetime.min, dt.datetime.max, dt.datetime.min.replace(tzinfo=UTC),
         dt.datetime.max.replace(tzinfo=UTC)]
INFS = [TS_NEG_INF, TS_INF, TSTZ_NEG_INF, TSTZ_INF]


def _same(a: list, b: list) -> bool:
    return all(type(x) is type(y) and x == y and getattr(x, "tzinfo", None) ==
               getattr(y, "tzinfo", None) for x, y in zip(a, b, strict=True))


def test_sentinels_order_and_equality():
    assert sorted([dt.datetime.max, TS_INF, dt.datetime.min, TS_NEG_INF]) == \
        [TS_NEG_INF, dt.datetime.min, dt.datetime.max, TS_INF]
    assert TS_NEG_INF != dt.datetime.min and dt.datetime.max != TS_INF
    assert len({TS_INF, dt.datetime.max, TS_NEG_INF, dt.datetime.min}) == 4
    assert TSTZ_INF > dt.datetime(2024, 1, 1, tzinfo=UTC) and TSTZ_INF.replace(tzinfo=None) is TS_INF
    assert TS_INF + dt.timedelta(days=1) is TS_INF and TS_NEG_INF - dt.timedelta(1) is TS_NEG_INF
    assert TS_INF.date() is DATE_INF and TSTZ_NEG_INF.date() is DATE_NEG_INF
    with pytest.raises(DatetimeFieldOverflow):
        _ = dt.datetime(2024, 1, 1) - TS_INF
    with pytest.raises(DatetimeFieldOverflow):
        _ = TS_INF - dt.datetime(2024, 1, 1)


def test_text_and_binary_io():
    assert [text.format_text(T.TIMESTAMP, v) for v in (dt.datetime.min, TS_NEG_INF)] == \
        ["0001-01-01 00:00:00", "-infinity"]
    assert text.parse_text(T.TIMESTAMP, "0001-01-01 00:00:00") == dt.datetime.min
    assert text.parse_text(T.TIMESTAMP, "-infinity") is TS_NEG_INF
    for oid, vals in ((T.TIMESTAMP, [dt.datetime.min, dt.datetime.max]), (T.TIMESTAMPTZ, EDGES[2:])):
        for v in vals:
            assert type(binary.decode_binary(oid, binary.encode_binary(oid, v))) is dt.datetime
    assert binary.decode_binary(T.TIMESTAMP, binary.encode_binary(T.TIMESTAMP, TS_NEG_INF)) \
        is TS_NEG_INF
    assert binary.encode_binary(T.TIMESTAMPTZ, TSTZ_INF) == b"\x7f" + b"\xff" * 7


def test_wire_round_trip_keeps_types():
    vals = EDGES + INFS + [DATE_INF, DATE_NEG_INF, dt.date.min, dt.date.max]
    assert _same(wire.unpackb(wire.packb(vals)), vals)


def test_wire_reads_old_infinities():
    """Before: code 4 with datetime.max's / min's microseconds was the only spelling."""
    us_max = (dt.datetime.max - dt.datetime(1, 1, 1)) // dt.timedelta(microseconds=1)
    old = [msgpack.ExtType(wire.EXT_DATETIME, msgpack.packb([us_max, None])),
           msgpack.ExtType(wire.EXT_DATETIME, msgpack.packb([0, 0]))]
    assert _same(wire.unpackb(msgpack.packb(old)), [TS_INF, TSTZ_NEG_INF])


@pytest.mark.parametrize("col", [
    [dt.datetime.min, dt.datetime(2024, 1, 1), None],
    [dt.datetime.max.replace(tzinfo=UTC), dt.datetime(2024, 1, 1, tzinfo=UTC)],
    [TS_INF, dt.datetime(2024, 1, 1), TS_NEG_INF],
    [dt.datetime.min.replace(tzinfo=UTC), dt.datetime(2024, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))],
])
def test_wirecols_round_trip(col):
    kind, enc = wirecols.encode_column(col)
    assert _same(wire.unpackb(wire.packb(wirecols.decode_column(kind, enc))), col)


def test_wirecols_reads_old_infinities():
    lo = (dt.datetime.min - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
    hi = (dt.datetime.max - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
    assert _same(wirecols.decode_column(wirecols.NAIVE_US, [lo, 0, hi]),
                 [TS_NEG_INF, dt.datetime(1970, 1, 1), TS_INF])
    assert _same(wirecols.decode_column(wirecols.UTC_US, [hi, None]), [TSTZ_INF, None])
    assert isinstance(wirecols.decode_column(wirecols.DATETIME,
                                             ["9999-12-31T23:59:59.999999+00:00"])[0],
                      InfiniteTimestamp)


def test_keys_order_infinities_outside_the_edges():
    for vals in ([TS_NEG_INF, dt.datetime.min, dt.datetime.max, TS_INF],
                 [TSTZ_NEG_INF, EDGES[2], EDGES[3], TSTZ_INF],
                 [DATE_NEG_INF, dt.date.min, dt.date.max, DATE_INF]):
        keys = [encode_key((v,)) for v in vals]
        assert keys == sorted(keys) and len(set(keys)) == 4
        assert _same([decode_key(k)[0] for k in keys], vals)
