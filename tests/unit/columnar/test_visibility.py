"""MVCC visibility of the columnar copy: at every snapshot it holds exactly the rows the
row path (`VersionStore.scan`) sees, under inserts, updates, deletes, freezes, garbage
collection with an old snapshot open, replays, splits and rebuilds (seeded, randomized)."""

from __future__ import annotations

import random

import pytest

from cumulo.server.kivi.columnar import copy as ccopy
from cumulo.server.kivi.mvcc import VersionStore


def row_path(store: VersionStore, ts: int) -> list[tuple]:
    return sorted(r for _, r in store.scan(None, None, ts))


def col_path(store: VersionStore, ts: int) -> list[tuple]:
    snap = store.columnar(ts)
    assert snap is not None
    return sorted(snap.rows())


@pytest.fixture
def small_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 16)  # many freezes and packs
    monkeypatch.setattr(ccopy, "SCAN_FREEZE", 8)


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def test_golden_versions() -> None:
    s = VersionStore()
    s.apply(2, [(key(1), (1, "a")), (key(2), (2, "b")), (key(3), (3, None))])
    assert col_path(s, 1) == []  # built now, before any later write
    s.apply(5, [(key(2), (2, "b2"))])
    s.apply(7, [(key(1), None)])
    s.apply(9, [(key(4), (4, "d"))])
    assert col_path(s, 2) == [(1, "a"), (2, "b"), (3, None)]
    assert col_path(s, 5) == [(1, "a"), (2, "b2"), (3, None)]
    assert col_path(s, 7) == [(2, "b2"), (3, None)]
    assert col_path(s, 9) == [(2, "b2"), (3, None), (4, "d")]


@pytest.mark.parametrize("seed", range(12))
def test_randomized_against_row_path(seed: int, small_packs: None) -> None:
    rnd = random.Random(seed)
    s = VersionStore(cache_limit=8)
    live: set[int] = set()
    ts = 1
    built_at = rnd.randrange(0, 30)
    snapshots: list[int] = []
    low_water = 0
    for step in range(80):
        ts += 1
        writes = []
        for k in rnd.sample(range(60), rnd.randrange(1, 6)):
            if k in live and rnd.random() < 0.3:
                writes.append((key(k), None))
                live.discard(k)
            else:
                v = rnd.choice([None, rnd.random(), float("nan"), rnd.randrange(-5, 5)])
                writes.append((key(k), (k, v, rnd.choice(["x", "y", None]), step)))
                live.add(k)
        if rnd.random() < 0.1:  # a bulk load of new keys
            base = 1000 + step * 100
            s.apply_lists(ts, [key(base + i) for i in range(20)],
                          [(base + i, float(i), "bulk", step) for i in range(20)])
        else:
            s.apply(ts, writes)
        if step == built_at:
            s.columnar(ts)
        snapshots.append(ts)
        if rnd.random() < 0.15 and len(snapshots) > 10:
            # GC with an old snapshot still open: everything at or above low_water must stay
            low_water = max(low_water, rnd.choice(snapshots[-10:]))  # it never goes back
            s.collect(low_water)
        for t in rnd.sample(snapshots, min(4, len(snapshots))):
            if t >= low_water:
                assert repr(col_path(s, t)) == repr(row_path(s, t)), (seed, step, t)
    for t in snapshots:
        if t >= low_water:
            assert repr(col_path(s, t)) == repr(row_path(s, t))


def test_replay_rebuilds(small_packs: None) -> None:
    s = VersionStore()
    s.apply(3, [(key(1), (1,)), (key(2), (2,))])
    s.columnar(3)
    s.apply(5, [(key(1), (10,))])
    s.apply(5, [(key(1), (10,))])  # a redo replay of the same commit: marks the copy broken
    s.apply(4, [(key(2), (20,))])  # an older ts arriving late (a checkpoint + replay)
    for t in (3, 4, 5, 6):
        assert col_path(s, t) == row_path(s, t)


def test_below_the_gc_watermark_only_the_row_path_answers() -> None:
    s = VersionStore()
    s.apply(2, [(key(1), (1,))])
    s.apply(4, [(key(1), (2,))])
    s.collect(3)
    assert s.columnar(2) is None
    assert col_path(s, 3) == row_path(s, 3) == [(1,)]


def test_split_and_reload() -> None:
    s = VersionStore()
    s.apply(2, [(key(i), (i,)) for i in range(10)])
    s.columnar(2)
    upper = s.split_off(key(5))
    assert col_path(s, 2) == [(i,) for i in range(5)]
    assert col_path(upper, 2) == [(i,) for i in range(5, 10)]
    keys, chains = s.export()
    t = VersionStore()
    t.load(keys, chains)  # a restart: the copy is rebuilt from the checkpointed chains
    assert col_path(t, 2) == row_path(t, 2)


def test_scan_holds_old_packs_during_freeze_and_gc(small_packs: None) -> None:
    s = VersionStore()
    s.apply(2, [(key(i), (i, "a")) for i in range(40)])
    snap = s.columnar(2)  # a scan in flight holds these packs
    assert snap is not None
    for t in range(3, 10):
        s.apply(t, [(key(i), (i, f"v{t}")) for i in range(0, 40, 2)])
    s.collect(9)  # rewrites mostly-dead packs; the scan's packs are untouched
    assert sorted(snap.rows()) == [(i, "a") for i in range(40)]
    assert col_path(s, 9) == row_path(s, 9)


def test_memory_bytes_per_row() -> None:
    s = VersionStore()
    n = 50_000
    s.apply_lists(2, [key(i) for i in range(n)], [(i, i * 0.5, f"s{i % 100}") for i in range(n)])
    snap = s.columnar(2)
    assert snap is not None
    for v in snap.views:
        for j in range(3):
            v.column(j)
    per_row = s.columnar_bytes / n
    # int64 + float64 + int32 codes + begin/end stamps + a key pointer: about 44 bytes a row
    assert 30 < per_row < 60, per_row


def test_small_packs_merge_at_collect(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 64)
    monkeypatch.setattr(ccopy, "SCAN_FREEZE", 1)  # every scan freezes the tail it meets
    s = VersionStore()
    s.apply(2, [(key(i), (i, 0)) for i in range(200)])
    s.columnar(2)
    ts = 2
    for i in range(40):  # OLTP: one update, one scan
        ts += 1
        s.apply(ts, [(key(i * 3), (i * 3, ts))])
        assert col_path(s, ts) == row_path(s, ts)
    col = s._col  # noqa: SLF001  # the copy's pack count is what this test is about
    assert col is not None
    before = len(col.packs)
    s.collect(ts - 5)  # an old snapshot (ts - 5) is still open
    assert len(col.packs) < before
    for t in range(ts - 5, ts + 1):
        assert col_path(s, t) == row_path(s, t)
    s.apply(ts + 1, [(key(3), None), (key(6), (6, -1))])  # stamps land in merged packs
    assert col_path(s, ts + 1) == row_path(s, ts + 1)
    assert col_path(s, ts) == row_path(s, ts)
