"""Redo records of bulk writes: typed columns round-trip exactly, older records still decode."""

from __future__ import annotations

import datetime as dt
import doctest
import uuid
from decimal import Decimal

import pytest

from cumulo.server.kivi import wirecols
from cumulo.server.kivi.api import SpaceWrites
from cumulo.server.kivi.wire import packb
from cumulo.server.kivi.wirecols import (
    DATE,
    DATETIME,
    DECIMAL,
    NAIVE_US,
    PLAIN,
    UTC_US,
    decode_column,
    encode_column,
)
from cumulo.server.pgtypes.infdate import DATE_INF
from cumulo.server.txn.codec import pack_record, unpack_bulk, unpack_record

CET = dt.timezone(dt.timedelta(hours=1), "CET")
ODD = dt.timezone(dt.timedelta(hours=-3, minutes=-30, seconds=-7, microseconds=-5))


class MyDecimal(Decimal):
    pass


COLUMNS = [
    (DECIMAL, [Decimal("1.50"), Decimal("-0"), Decimal("NaN"), Decimal("1E+3"), Decimal("-Infinity"),
               Decimal("12345678901234567890.000000001")]),
    (DECIMAL, [None, Decimal("0.00"), None]),
    # The real datetime.min / .max go as PLAIN: in kinds 4 and 5 they are an old record's
    # infinities (wirecols' docstring).
    (PLAIN, [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
             dt.datetime(2024, 2, 29, 12, 0, 0, 1), dt.datetime(1969, 12, 31, 23, 59, 59, 1)]),
    (NAIVE_US, [dt.datetime(1, 1, 1, 0, 0, 0, 1), dt.datetime(2024, 2, 29, 12, 0, 0, 1),
                dt.datetime(1969, 12, 31, 23, 59, 59, 1), dt.datetime(9999, 12, 31, 23, 59, 59)]),
    (PLAIN, [None, dt.datetime(1, 1, 1), None, dt.datetime(9999, 12, 31, 23, 59, 59, 999999)]),
    (PLAIN, [dt.datetime(1, 1, 1, tzinfo=dt.UTC), dt.datetime(2024, 1, 1, 5, 6, 7, 8, tzinfo=dt.UTC),
             dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC)]),
    (UTC_US, [dt.datetime(1, 1, 2, tzinfo=dt.UTC), dt.datetime(2024, 1, 1, 5, 6, 7, 8, tzinfo=dt.UTC)]),
    (UTC_US, [dt.datetime(2024, 1, 1, tzinfo=dt.UTC), None]),
    (DATETIME, [dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
                dt.datetime(2024, 1, 1, tzinfo=dt.timezone(dt.timedelta(0), "Z0"))]),
    (DATETIME, [dt.datetime(2024, 1, 1, tzinfo=dt.UTC), None,
                dt.datetime(2024, 1, 1, 5, tzinfo=CET), dt.datetime(1999, 1, 1, tzinfo=ODD)]),
    (DATE, [dt.date(1, 1, 1), None, dt.date(9999, 12, 31)]),
    (PLAIN, [1, None, 3]),
    (PLAIN, ["a", None]),
    (PLAIN, [Decimal("1"), 2]),  # mixed types: wire's own rules
    (PLAIN, [dt.date(2020, 1, 1), DATE_INF]),
    (PLAIN, [dt.datetime(2020, 1, 1), dt.date(2020, 1, 1)]),
    (PLAIN, [uuid.UUID(int=5)]),
    (PLAIN, [None, None]),
]


def _same(v):
    """Decimal NaN equals nothing, itself included: compare its text."""
    if isinstance(v, tuple):
        return tuple(map(_same, v))
    return repr(v) if isinstance(v, Decimal) else v


@pytest.mark.parametrize("kind,col", COLUMNS)
def test_columns_round_trip_with_their_types(kind, col):
    got_kind, enc = encode_column(list(col))
    assert got_kind == kind
    back = decode_column(got_kind, enc)
    assert list(map(_same, back)) == list(map(_same, col))
    assert [type(v) for v in back] == [type(v) for v in col] or kind == PLAIN
    for a, b in zip(back, col, strict=True):
        if isinstance(b, dt.datetime):
            assert a.utcoffset() == b.utcoffset()
            assert a.tzinfo is b.tzinfo or kind == DATETIME


def test_subclasses_keep_the_plain_form():
    assert encode_column([MyDecimal("1"), Decimal("2")])[0] == PLAIN
    assert encode_column([MyDecimal("1")])[0] == PLAIN


def test_a_bulk_record_round_trips_every_column():
    rows = [tuple(c[i % len(c)] for _, c in COLUMNS) for i in range(200)]
    keys = [i.to_bytes(4, "big") for i in range(200)]
    ts, writes, drops, spaces = unpack_bulk(pack_record(7, [], [3], [SpaceWrites(9, keys, rows)]))
    assert (ts, writes, drops) == (7, [], [3])
    (sw,) = spaces
    assert (sw.space, sw.keys) == (9, keys)
    assert list(map(_same, sw.rows)) == list(map(_same, rows))
    assert [list(map(type, r)) for r in sw.rows] == [list(map(type, r)) for r in rows]


def test_bulk_items_written_before_column_kinds_still_decode():
    """A record as the previous codec wrote it: transposed columns with no kinds, values
    through wire's ext types; and rows with a delete."""
    cols = [[1, 2], [Decimal("1.5"), None], [dt.datetime(2020, 1, 1), dt.datetime(2021, 1, 1)]]
    old = packb([5, [[2, b"s", [1]]], [], [[9, [b"a", b"b"], None, cols],
                                          [8, [b"x", b"y"], [[1, "q"], None], None]]])
    ts, writes, _, spaces = unpack_bulk(old)
    assert ts == 5 and writes[0].row == (1,)
    assert spaces[0].rows == [(1, Decimal("1.5"), dt.datetime(2020, 1, 1)),
                              (2, None, dt.datetime(2021, 1, 1))]
    assert spaces[1].rows == [(1, "q"), None]
    three = packb([4, [[2, b"k", None]], [6]])  # before bulk items existed
    assert unpack_record(three)[1][0].row is None


def test_rows_of_different_widths_and_deletes_keep_the_row_form():
    rows = [(Decimal("1"),), (Decimal("2"), 3), None]
    sw = SpaceWrites(1, [b"a", b"b", b"c"], rows)
    (got,) = unpack_bulk(pack_record(1, [], (), [sw]))[3]
    assert got.rows == rows


def test_wirecols_doctests():
    # among them: a column that is its own wire form holds no reference to itself, so a
    # COPY's columns are freed by reference counting even after `bulkgc` froze them
    assert doctest.testmod(wirecols).failed == 0
