"""Keys of dates and timestamps over PostgreSQL's whole range (issue 16, item 6).

PostgreSQL orders a date by its int32 day count and a timestamp by its int64
microseconds, with '-infinity' below and 'infinity' above every value. The oracle
here is that order, computed from the integers; the keys of real dates, of
`pgtypes.fardate` values (BC, after 9999) and of the infinities must sort the same
way by their bytes, ascending and descending, and decode to the same values. Keys
written before far dates existed keep decoding.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from cumulo.server.kivi import wire, wirecols
from cumulo.server.kivi.keycodec import decode_key, encode_key, encode_key_desc
from cumulo.server.pgtypes import fardate as F
from cumulo.server.pgtypes.infdate import (
    DATE_INF,
    DATE_NEG_INF,
    TS_INF,
    TS_NEG_INF,
    TSTZ_INF,
    TSTZ_NEG_INF,
    InfiniteDate,
    InfiniteTimestamp,
)

_EDGE_DAYS = [F.DATE_MIN_DAYS, F.DATE_MAX_DAYS, -730119, -730120, 2921939, 2921940, 0, -1]
_EDGE_US = [F.TS_MIN_US, F.TS_END_US - 1, -63082281600000000, -63082281600000001,
            252455615999999999, 252455616000000000, 0, -1]

dates = st.one_of(
    st.integers(F.DATE_MIN_DAYS, F.DATE_MAX_DAYS),  # mostly far
    st.integers(-730119, 2921939),  # Python's own range
    st.sampled_from(_EDGE_DAYS),
).map(F.date_of_days) | st.sampled_from([DATE_INF, DATE_NEG_INF])


def _stamps(tz: dt.tzinfo | None, inf: InfiniteTimestamp, neg: InfiniteTimestamp) -> st.SearchStrategy:
    finite = st.one_of(st.integers(F.TS_MIN_US, F.TS_END_US - 1),
                       st.integers(-63082281600000000, 252455615999999999),
                       st.sampled_from(_EDGE_US))
    return finite.map(lambda us: F.ts_of_us(us, tz)) | st.sampled_from([inf, neg])


def pg_order(v: object) -> tuple[int, int]:
    """PostgreSQL's order of a date or timestamp: the infinities at the ends, else its integer."""
    if isinstance(v, InfiniteDate | InfiniteTimestamp):
        return (v.sign, 0)
    if isinstance(v, dt.datetime):
        return (0, F.utc_us_of(v) if v.tzinfo is not None else F.us_of(v))
    assert isinstance(v, dt.date)
    return (0, F.days_of(v))


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.lists(dates, min_size=2, max_size=12),
                 st.lists(_stamps(None, TS_INF, TS_NEG_INF), min_size=2, max_size=12),
                 st.lists(_stamps(dt.UTC, TSTZ_INF, TSTZ_NEG_INF), min_size=2, max_size=12)),
       st.integers(0, 3))
def test_key_order_is_postgres_order(values, tail):
    """Byte order of keys (value, tail int) = PostgreSQL's order; DESC reverses it; round trip."""
    want = sorted(values, key=pg_order)
    keys = sorted(values, key=lambda v: encode_key([v, tail]))
    assert [pg_order(v) for v in keys] == [pg_order(v) for v in want]
    desc = sorted(values, key=lambda v: encode_key_desc([v, tail], [True, False]))
    assert [pg_order(v) for v in desc] == [pg_order(v) for v in reversed(want)]
    for v in values:
        assert decode_key(encode_key([v, tail])) == (v, tail)
        assert decode_key(encode_key_desc([v, tail], [True]), [True]) == (v, tail)
        back = decode_key(encode_key([v]))[0]
        assert type(back) is type(v) and pg_order(back) == pg_order(v)


def test_far_values_and_real_ones_meet_exactly_at_pythons_edges():
    """The day before 0001-01-01 and after 9999-12-31 are far values, next to real ones."""
    before, first = F.date_of_days(-730120), F.date_of_days(-730119)
    last, after = F.date_of_days(2921939), F.date_of_days(2921940)
    assert (type(before), type(first), type(last), type(after)) == (
        F.FarDate, dt.date, dt.date, F.FarDate)
    ks = [encode_key([v]) for v in (DATE_NEG_INF, before, first, last, after, DATE_INF)]
    assert ks == sorted(ks) and len(set(ks)) == 6


def test_keys_written_before_far_dates_still_decode():
    """The infinities' old places (ordinal 0 and one past date.max, -1 us and one past
    datetime.max) and ordinary keys of before decode as they did."""
    bias = 1 << 63
    ts_max = (dt.datetime.max - dt.datetime(1, 1, 1)) // dt.timedelta(microseconds=1)
    old = {
        b"\x31" + (0).to_bytes(4, "big"): DATE_NEG_INF,
        b"\x31" + (dt.date.max.toordinal() + 1).to_bytes(4, "big"): DATE_INF,
        b"\x31" + dt.date(2024, 2, 29).toordinal().to_bytes(4, "big"): dt.date(2024, 2, 29),
        b"\x33" + (bias - 1).to_bytes(8, "big"): TS_NEG_INF,
        b"\x33" + (ts_max + 1 + bias).to_bytes(8, "big"): TS_INF,
        b"\x34" + (bias - 1).to_bytes(8, "big"): TSTZ_NEG_INF,
        b"\x34" + (ts_max + 1 + bias).to_bytes(8, "big"): TSTZ_INF,
    }
    for key, value in old.items():
        got = decode_key(key)[0]
        assert got == value and type(got) is type(value)
    # an ordinary date's and timestamp's key is the same bytes as before
    assert encode_key([dt.date(2024, 2, 29)]) == b"\x31" + dt.date(2024, 2, 29).toordinal(
        ).to_bytes(4, "big")
    assert encode_key([dt.datetime(1, 1, 1)]) == b"\x33" + bias.to_bytes(8, "big")


def test_stored_rows_and_copy_batches_keep_far_values():
    """Rows on the wire, in the redo log and checkpoints (`kivi.wire`), and a COPY's typed
    column batches (`kivi.wirecols`) bring far values back exactly, next to real ones."""
    paris = dt.timezone(dt.timedelta(minutes=9, seconds=21))
    row = (F.date_of_days(-746117), F.date_of_days(F.DATE_MAX_DAYS), dt.date(2024, 2, 29),
           F.ts_of_us(F.TS_MIN_US), F.ts_of_us(F.TS_END_US - 1, dt.UTC),
           F.FarTimestamp(-64464463503500000, paris), DATE_NEG_INF, TSTZ_INF, None)
    back = wire.unpackb(wire.packb(row))
    assert back == row and [type(v) for v in back] == [type(v) for v in row]
    assert back[5].utcoffset() == paris.utcoffset(None)
    col = [row[0], dt.date(2024, 2, 29), None]
    kind, enc = wirecols.encode_column(col)
    assert wirecols.decode_column(kind, wire.unpackb(wire.packb(enc))) == col
