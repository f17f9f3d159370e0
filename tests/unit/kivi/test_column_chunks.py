"""A version store read by columns (`VersionStore.column_chunks`) gives the rows `chunks` gives.

Why: COPY TO and full-table results read cold segments as columns, with timestamps,
numerics and dates left in their stored form (`pgtypes.coded.Coded`), and chunks with
hot keys merged by rows under MVCC visibility. Every snapshot a reader may hold must see
the same rows both ways: cold rows, keys killed by a delete, keys updated inside a
segment's range (hot again), keys inserted after the freeze, NULLs in every column, and
the values whose stored form has its own spelling (NaN, -0, infinities, year 1).
The encoders must give the same bytes for a `Coded` column as for its values.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from cumulo.server.kivi import freeze, mvcc
from cumulo.server.kivi.colcodec import columns_of, to_marshal
from cumulo.server.kivi.mvcc import VersionStore
from cumulo.server.pgtypes import oids as T
from cumulo.server.pgtypes.binary import binary_encoder
from cumulo.server.pgtypes.coded import Coded, values
from cumulo.server.pgtypes.text import text_encoder
from cumulo.server.pgtypes.vectext import binary_array, text_array
from cumulo.server.pgwire.colframe import binary_fields, fields

WIDTH = 5
OIDS = [T.INT8, T.NUMERIC, T.TIMESTAMP, T.DATE, T.TEXT]
_SPECIAL = [Decimal("NaN"), Decimal("-0.00"), Decimal("1E+5"), Decimal("-12.5")]


def _row(i: int) -> tuple:
    return (i,
            None if i % 13 == 0 else _SPECIAL[i % 4] if i % 17 == 0 else Decimal(i) / 100,
            None if i % 11 == 0 else dt.datetime(2024, 1, 1) + dt.timedelta(seconds=61 * i,
                                                                             microseconds=i % 3),
            None if i % 7 == 0 else dt.date(1, 1, 1) if i == 72 else
            dt.date(1999, 12, 31) + dt.timedelta(days=i),
            None if i % 5 == 0 else f"t\\{i}\t")


def _by_columns(store: VersionStore, lo, hi, ts: int, n: int) -> list[str]:
    rows: list[tuple] = []
    for cols, count, _ in store.column_chunks(lo, hi, ts, WIDTH, n):
        assert all(len(c) == count for c in cols)
        rows += zip(*map(values, cols), strict=True)
    return list(map(repr, rows))  # NB: by repr: NaN is not equal to itself


def _by_rows(store: VersionStore, lo, hi, ts: int) -> list[str]:
    return [repr(r) for _, r in store.scan(lo, hi, ts)]


@pytest.fixture
def store(monkeypatch):
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 3)
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 97)
    s = VersionStore(cache_limit=16)
    keys = [i.to_bytes(4, "big") for i in range(0, 2000, 2)]
    s.apply_lists(5, keys, [_row(i) for i in range(0, 2000, 2)])
    s.collect(10)
    assert len(s._cold) == 1000 and not s._keys
    return s


def test_column_chunks_see_what_chunks_see_at_every_snapshot(store):
    k = lambda i: i.to_bytes(4, "big")  # noqa: E731
    store.apply(11, [(k(10), (10, Decimal("1.5"), None, None, "new")), (k(12), None)]
                + [(k(i), _row(-i)) for i in range(501, 530, 2)])  # inserts inside a segment
    store.apply(12, [(k(600), None), (k(602), (602, None, None, None, None))])
    for ts in (10, 11, 12):
        want = _by_rows(store, None, None, ts)
        for n in (1, 7, 100, 8192):
            assert _by_columns(store, None, None, ts, n) == want, (ts, n)
        lo, hi = k(333), k(1501)
        assert _by_columns(store, lo, hi, ts, 50) == _by_rows(store, lo, hi, ts)


def test_a_coded_column_encodes_as_its_values(store):
    (cols, count, _), *_ = store.column_chunks(None, None, 10, WIDTH, 8192)
    assert count == 1000 and {type(c).__name__ for c in cols[1:4]} == {"Coded"}
    for col, oid in zip(cols, OIDS, strict=True):
        assert text_array(col, oid, text_encoder(oid, None)).equals(
            text_array(values(col), oid, text_encoder(oid, None)))
        assert binary_array(col, oid, binary_encoder(oid)).equals(
            binary_array(values(col), oid, binary_encoder(oid)))
    coded = cols[2]
    assert isinstance(coded, Coded) and coded.kind == "U"


def test_a_float8_column_prints_as_the_value_encoder_does():
    vals = [i / 7 * 10 ** (i % 23 - 8) * (-1) ** i for i in range(400)]
    vals += [0.0, -0.0, 3.0, 1e15, 999999999999999.9, 1e-5, 1e-4, float("nan"), float("-inf"), None]
    enc = text_encoder(T.FLOAT8, None)
    for at in range(0, len(vals), 9):  # NB: pieces with and without exponents or specials
        part = vals[at:at + 9]
        assert text_array(part, T.FLOAT8, enc).to_pylist() == [
            None if v is None else enc(v) for v in part]


def test_hot_keys_alone_by_columns_see_what_chunks_see():
    """Chunks with no cold segment in them (rows not frozen yet: a read right after a
    load) take the heads' rows in C-level passes; deleted keys and versions newer than the
    snapshot, at a chunk's end too, are left out as `chunks` leaves them out."""
    s = VersionStore()
    k = lambda i: i.to_bytes(4, "big")  # noqa: E731
    s.apply_lists(5, [k(i) for i in range(300)], [_row(i) for i in range(300)])
    s.apply(7, [(k(i), None) for i in range(0, 300, 7)] + [(k(299), None)])
    s.apply(9, [(k(i), _row(-i)) for i in range(1, 300, 5)] + [(k(400), _row(400))])
    for ts in (5, 7, 8, 9):
        want = _by_rows(s, None, None, ts)
        for n in (1, 7, 100, 8192):
            assert _by_columns(s, None, None, ts, n) == want, (ts, n)


def test_a_timestamptz_column_stays_coded_and_sends_as_its_values():
    """timestamptz values (UTC, one naive among them as a mixed column may hold) freeze
    as isoformat ('T'), and their binary send form is read from those strings."""
    base = dt.datetime(2026, 3, 29, tzinfo=dt.UTC)
    vals = [base + dt.timedelta(minutes=7 * i, microseconds=i % 3) for i in range(50)]
    vals += [dt.datetime(999, 1, 2, 3, 4, 5, tzinfo=dt.UTC), dt.datetime(2001, 2, 3)]
    for col in (vals, [*vals, None]):
        stored, conv = to_marshal([(v,) for v in col], 1)
        (coded,) = columns_of(stored, conv)
        assert type(coded) is Coded and coded.kind == "T"
        enc = binary_encoder(T.TIMESTAMPTZ)
        assert binary_fields(coded, T.TIMESTAMPTZ, enc).equals(
            fields(binary_array(values(coded), T.TIMESTAMPTZ, enc)))
        assert binary_array(coded, T.TIMESTAMPTZ, enc).to_pylist() == [
            None if v is None else enc(v) for v in col]
