"""Compact packs (`kivi.columnar.compact`): keys in one blob and rows decoded from the
pack's own columns give exactly what the row path gives, for every column kind, under
updates, deletes, collection and snapshots in between (seeded random data)."""

from __future__ import annotations

import datetime as dt
import doctest
import random
import threading
from bisect import bisect_left
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from cumulo.server.kivi.columnar import compact
from cumulo.server.kivi.columnar import copy as ccopy
from cumulo.server.kivi.columnar.build import snapshots
from cumulo.server.kivi.columnar.compact import KeyBlob
from cumulo.server.kivi.mvcc import VersionStore

UTC2 = dt.timezone(dt.timedelta(hours=2))


def _value(kind: str, r: random.Random) -> Any:
    """One random value of a column kind (None now and then)."""
    if r.random() < 0.1:
        return None
    i = r.randint(-10**6, 10**6)
    return {
        "int": i,
        "bigint": i * 10**15 if r.random() < 0.5 else i * 10**14,  # some past int64: obj
        "float": r.choice([i / 7, float("nan"), -0.0, 0.0, float("inf"), -float("inf")]),
        "bool": r.random() < 0.5,
        "str": r.choice(["", "a", "é€", "b\x00c", f"s{i % 13}", "Z" * 40]),
        "bytes": bytes([i & 255, 0]),
        "date": dt.date(2000, 1, 1) + dt.timedelta(days=i % 20000),
        "ts": dt.datetime(2000, 1, 1) + dt.timedelta(microseconds=i * 997_003),
        "tstz": dt.datetime(2000, 1, 1, tzinfo=UTC2) + dt.timedelta(seconds=i),
        "dec": Decimal(i).scaleb(-2),
        "decmix": Decimal(i).scaleb(-r.randint(0, 3)),
        "negzero": r.choice([Decimal("-0.00"), Decimal("1.50"), Decimal("0.00")]),
        "mixed": r.choice([i, str(i), i / 3]),
        "null": None,
    }[kind]


KINDS = ["int", "bigint", "float", "bool", "str", "bytes", "date", "ts", "tstz", "dec",
         "decmix", "negzero", "mixed", "null"]


def _row(r: random.Random, kinds: list[str]) -> tuple[Any, ...]:
    return tuple(_value(k, r) for k in kinds)


def _key(i: int, fixed: bool) -> bytes:
    """Fixed width (trailing NUL bytes included) or variable width keys, both sorted."""
    if fixed:
        return b"\x11" + (i * 256).to_bytes(8, "big")
    return b"k" + str(i).encode() + (b"\x00" * (i % 3))


def _same(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]]) -> None:
    # repr: tells 1 from True, -0.0 from 0.0, Decimal scales and types apart, and NaN = NaN
    assert sorted(map(repr, got)) == sorted(map(repr, want))


def _row_path(s: VersionStore, ts: int) -> list[tuple[Any, ...]]:
    return [r for _, r in s.scan(None, None, ts)]


@pytest.mark.parametrize("seed,fixed", [(1, True), (2, False)])
def test_compact_packs_read_what_the_row_path_reads(monkeypatch: pytest.MonkeyPatch,
                                                    seed: int, fixed: bool) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 128)
    r = random.Random(seed)
    kinds = r.sample(KINDS, len(KINDS))
    n = 700
    s = VersionStore()
    rows = [_row(r, kinds) for _ in range(n)]
    # rows from before an ADD COLUMN are shorter: read as NULLs past their width
    rows[5:40] = [row[:-2] for row in rows[5:40]]
    s.apply_lists(2, sorted(_key(i, fixed) for i in range(n)), rows)
    snap = s.columnar(2)
    assert snap is not None
    packs = [v.pack for v in snap.views]
    assert packs and all(p.compact for p in packs)
    _same(snap.rows(), [row + (None,) * (len(kinds) - len(row)) for row in _row_path(s, 2)])
    for p in packs:  # one row at a time, a slice, and the columns agree
        assert repr(p.rows[3]) == repr(p.rows_at(np.array([3]))[0])
        assert repr(p.rows[-1]) == repr(p.rows.take([p.n - 1])[0])
    ts = 2
    for _ in range(4):
        ts += 1
        keys = sorted(_key(i, fixed) for i in r.sample(range(n), 60))
        writes = [(k, None if r.random() < 0.3 else _row(r, kinds)) for k in keys]
        s.apply(ts, writes)
        for at in range(2, ts + 1):
            got = s.columnar(at)
            assert got is not None
            _same(got.rows(), [row + (None,) * (len(kinds) - len(row))
                               for row in _row_path(s, at)])
    s.collect(ts - 1)  # packs a quarter dead are rewritten, compact ones stay compact
    for at in (ts - 1, ts):
        got = s.columnar(at)
        assert got is not None
        _same(got.rows(), [row + (None,) * (len(kinds) - len(row)) for row in _row_path(s, at)])


def test_decimal_negative_zero_keeps_its_sign() -> None:
    s = VersionStore()
    s.apply_lists(2, [b"a", b"b"], [(Decimal("-0.00"),), (Decimal("1.25"),)])
    got = s.columnar(2)
    assert got is not None
    assert sorted(map(repr, got.rows())) == ["(Decimal('-0.00'),)", "(Decimal('1.25'),)"]


@pytest.mark.parametrize("fixed", [True, False])
def test_key_blob_finds_as_a_list_bisect(fixed: bool) -> None:
    r = random.Random(7)
    keys = sorted(_key(r.randrange(5000), fixed) for _ in range(900))  # duplicates: versions
    kb = KeyBlob.of(keys)
    assert kb.tolist() == keys and list(kb) == keys and kb[-1] == keys[-1]
    probes = keys[::7] + [_key(i, fixed) for i in range(0, 5100, 13)] + [
        b"", b"\x11", b"\x11" + b"\x00" * 9, b"\xff" * 12, b"k", keys[0][:-1], keys[-1] + b"\x00"]
    for k in probes:
        want = bisect_left(keys, k)
        assert kb.bisect_left(k) == want, k
        found = kb.find(k)
        assert found == (want if want < len(keys) and keys[want] == k else None), k
    idx = np.array(sorted(r.sample(range(len(keys)), 300)))
    taken = kb.take(idx)
    assert taken.tolist() == [keys[i] for i in idx.tolist()]
    assert taken.width == kb.width
    assert kb[10:20] == keys[10:20]


def test_doctests() -> None:
    result = doctest.testmod(compact)
    assert result.attempted and not result.failed


def test_ascending_loads_after_the_build_become_compact_sorted_packs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 256)
    r = random.Random(5)
    kinds = ["int", "str", "dec", "float", "null"]
    s = VersionStore()
    lock = threading.RLock()
    s.apply_lists(2, [_key(i, True) for i in range(10)], [_row(r, kinds) for _ in range(10)])
    assert snapshots(lock, lambda: [s], 2)[0] is not None  # built: 10 rows
    ts = 2
    for lo in range(10, 1500, 300):  # ascending loads: frozen from the tail, tracked
        ts += 1
        s.apply_lists(ts, [_key(i, True) for i in range(lo, lo + 300)],
                      [_row(r, kinds) for _ in range(300)])
    ts += 1  # and one descending load: its packs stay tracked
    s.apply_lists(ts, [_key(i, True) for i in range(3000, 2000, -1)],
                  [_row(r, kinds) for _ in range(1000)])
    for _ in range(4):  # each read adopts up to ADOPT_PACKS packs
        snap = snapshots(lock, lambda: [s], ts)[0]
    assert snap is not None and snap.source is not None
    copy = snap.source
    assert len(copy.sorted) >= 5 and all(p.compact for p in copy.sorted)
    assert not any(k in copy.latest for k in copy.sorted[-1].keys)
    assert any(not p.compact for p in copy.packs.values())  # the descending ones
    _same(snap.rows(), _row_path(s, ts))
    for _ in range(3):
        ts += 1
        keys = sorted(_key(i, True) for i in r.sample(range(3000), 200))
        s.apply(ts, [(k, None if r.random() < 0.3 else _row(r, kinds)) for k in keys])
        for at in (ts - 1, ts):
            got = snapshots(lock, lambda: [s], at)[0]
            assert got is not None
            _same(got.rows(), _row_path(s, at))
    s.collect(ts)
    got = snapshots(lock, lambda: [s], ts)[0]
    assert got is not None
    _same(got.rows(), _row_path(s, ts))
