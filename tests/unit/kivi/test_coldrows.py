"""Cold rows (`kivi.coldrows`) and the version store that freezes into them.

The store is driven by seeded random interleavings of writes, deletes, bulk loads,
collections that freeze (with writers let in between the freeze's lock holds),
splits, exports and reloads, and compared after every step with a model that keeps
every version: every read path (read, read_many, latest_commit, chunk forward and
reverse, rows only, scan, export, export_range, middle_key) must agree at every
snapshot at or above the watermark. Keys come in one width or several (with trailing
NUL bytes, which a padded comparison would confuse); rows hold values marshal keeps
(ints, floats, str, bytes, None, bools, lists) and values it does not (Decimal, UUID,
aware datetimes, an int subclass), which a segment pickles.
"""

from __future__ import annotations

import bisect
import datetime
import random
import threading
import uuid
from decimal import Decimal
from typing import Any

import pytest

from cumulo.server.kivi import coldrows, freeze, mvcc, storesample
from cumulo.server.kivi.api import RegionData
from cumulo.server.kivi.ascending import AscendingKeys
from cumulo.server.kivi.coldrows import ColdRows, Merged, Segment
from cumulo.server.kivi.columnar.build import PendingBuild, snapshots
from cumulo.server.kivi.mvcc import VersionStore
from cumulo.server.kivi.storesample import rows_of
from cumulo.server.kivi.wire import packb, unpackb


@pytest.fixture(autouse=True)
def _cold_rows_on(monkeypatch):
    """Collections freeze settled rows here, as under `cumulo serve --cold-rows`."""
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)


class Flag(int):
    """An int subclass: marshal would hand back a plain int."""


def _value(rng: random.Random, i: int, kinds: str) -> Any:
    pick = rng.randrange(9 if kinds == "all" else 5)
    if pick == 0:
        return i
    if pick == 1:
        return rng.random() * 1e6
    if pick == 2:
        return None
    if pick == 3:
        return f"s{i}\u00e9" * rng.randrange(3)
    if pick == 4:
        return [i, b"\x00b", [1.5, None]]
    if pick == 5:
        return Decimal(i) / 7
    if pick == 6:
        return uuid.UUID(int=i)
    if pick == 7:
        return datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    return Flag(i)


def _row(rng: random.Random, i: int, kinds: str) -> tuple:
    return (i, _value(rng, i, kinds), bool(i & 1), b"\x00" * (i % 3))


def _key(i: int, width: str) -> bytes:
    if width == "fixed":
        return i.to_bytes(4, "big")
    # several widths; keys with trailing NULs and keys that prefix others
    return i.to_bytes(2, "big") + b"\x00" * (i % 3)


class Model:
    """Every version of every key."""

    def __init__(self) -> None:
        self.versions: dict[bytes, list[tuple[int, Any]]] = {}

    def apply(self, ts: int, writes: list[tuple[bytes, Any]]) -> None:
        for k, row in writes:
            vs = self.versions.setdefault(k, [])
            vs[:] = [v for v in vs if v[0] != ts] + [(ts, row)]
            vs.sort(key=lambda v: v[0])

    def read(self, k: bytes, ts: int) -> Any:
        row = None
        for vts, r in self.versions.get(k, []):
            if vts <= ts:
                row = r
        return row

    def latest(self, k: bytes) -> int | None:
        vs = self.versions.get(k)
        return vs[-1][0] if vs else None

    def visible(self, ts: int, lo: bytes | None = None, hi: bytes | None = None
                ) -> list[tuple[bytes, Any]]:
        out = []
        for k in sorted(self.versions):
            if (lo is None or k >= lo) and (hi is None or k < hi):
                r = self.read(k, ts)
                if r is not None:
                    out.append((k, r))
        return out

    def split_off(self, key: bytes) -> Model:
        other = Model()
        for k in [k for k in self.versions if k >= key]:
            other.versions[k] = self.versions.pop(k)
        return other


def _scan(store: VersionStore, lo, hi, ts, reverse, max_keys, rows_only=False):
    keys, rows = [], []
    for ks, rs, _ in store.chunks(lo, hi, ts, reverse, max_keys, rows_only=rows_only):
        keys += ks
        rows += rs
        assert len(rs) <= 2 * max_keys  # the base's share and the cache's
    return keys, rows


def _check_sample(store: VersionStore, model: Model, s: int) -> None:
    """ANALYZE's positional sample (`kivi.storesample`): the count is exact and the
    positions 0..n-1 are the visible rows, each once."""
    want = [r for _, r in model.visible(s)]
    cut = store.sample_cut(s)
    assert cut is not None and cut.n == len(want), (s, cut and cut.n, len(want))
    got = rows_of(cut, range(cut.n)) if cut.n else []
    assert got is not None and sorted(map(repr, got)) == sorted(map(repr, want))


def _check(store: VersionStore, model: Model, rng: random.Random, ts: int, lw: int,
           universe: list[bytes]) -> None:
    snaps = sorted({lw, rng.randint(lw, ts)})
    for s in snaps:
        want = model.visible(s)
        got = list(store.scan(None, None, s))
        assert got == want, (s, len(got), len(want))
        _check_sample(store, model, s)
        ks = rng.sample(universe, min(40, len(universe)))
        assert store.read_many(ks, s) == [model.read(k, s) for k in ks]
        for k in ks[:10]:
            assert store.read(k, s) == model.read(k, s)
        lo, hi = sorted(rng.sample(universe, 2))
        mk = rng.choice([1, 3, 7, 64])
        inside = model.visible(s, lo, hi)
        assert _scan(store, lo, hi, s, False, mk) == ([k for k, _ in inside], [r for _, r in inside])
        rk, rr = _scan(store, lo, None, s, True, mk)
        wk = [k for k, _ in model.visible(s, lo)][::-1]
        assert rk == wk
        assert rr == [r for _, r in model.visible(s, lo)][::-1]
        _, rows = _scan(store, None, hi, s, False, mk, rows_only=True)
        assert rows == [r for _, r in model.visible(s, None, hi)]
    for k in rng.sample(universe, min(20, len(universe))):
        got, want = store.latest_commit(k), model.latest(k)
        if want is not None and want > lw:
            assert got == want
        else:  # collected, or cold: any answer <= the watermark conflicts with no one
            assert got is None or got <= lw
    # export: every key with a version readable at or above the watermark
    keys, chains = store.export()
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert len(store) == len(keys)
    for k, c in zip(keys, chains, strict=True):
        assert mvcc._visible(c, ts) == model.read(k, ts)
    assert [k for k, _ in model.visible(ts)] == [k for k, c in zip(keys, chains, strict=True)
                                                  if mvcc._visible(c, ts) is not None]
    for t in (None, lw, ts - 1):  # a checkpoint's export, its cold rows decoded unlocked
        finish = store.export_later(t)
        assert finish() == store.export(t)
        # a checkpoint's file: the column map when it applies, read back as the chains
        packed = RegionData(1, b"", None, *store.export_later(t, packed=True)(), 0)
        plain = RegionData(1, b"", None, *store.export(t), 0)
        assert unpackb(packb(packed)) == unpackb(packb(plain))
    after = rng.choice([None, *rng.sample(universe, 2)])
    rk, rc = store.export_range(after, 17)
    i = 0 if after is None else sum(1 for k in keys if k <= after)
    assert rk == keys[i:i + 17] and rc == chains[i:i + 17]
    assert store.middle_key() == (keys[len(keys) // 2] if keys else None)


@pytest.mark.parametrize("seed,width,kinds", [(1, "fixed", "marshal"), (2, "var", "all"),
                                              (3, "fixed", "all"), (4, "var", "marshal")])
def test_store_with_cold_rows_matches_a_model(seed, width, kinds, monkeypatch):
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 3)
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 11)
    monkeypatch.setattr(mvcc, "COLLECT_CHUNK", 5)
    monkeypatch.setattr(freeze, "FREE_CHUNK", 7)
    monkeypatch.setattr(storesample, "WINDOW", 7)
    rng = random.Random(seed)
    n = 160 if width == "fixed" else 120
    universe = [_key(i, width) for i in range(n + 40)]
    top = universe[n:]  # keys above every other, written in order (a row id's appends)
    appended = 0  # of them, those written while their store's write cache was empty
    stores = [(VersionStore(cache_limit=16), Model())]
    ts, lw = 1, 0
    writer: list[Any] = []  # the store a lock stand-in lets a write into between holds
    collecting: list[Any] = []  # the store being collected, and its model

    class Between:
        """A lock stand-in: before some holds, a write comes in (as a node would let it),
        or a sample is taken of the store being collected (ANALYZE beside the GC)."""

        def __enter__(self) -> None:
            if writer and rng.random() < 0.3:
                write(*writer[0])
            if collecting and rng.random() < 0.3:
                _check_sample(*collecting[0], rng.randint(lw, ts))

        def __exit__(self, *exc: Any) -> None:
            pass

    def write(store: VersionStore, model: Model) -> None:
        nonlocal ts, appended
        ts += 1
        if top and rng.random() < 0.3:
            ks = top[:rng.randrange(1, 4)]
            del top[:len(ks)]
            appended += not store._cache
        else:
            ks = rng.sample(universe[:n], rng.randrange(1, 12))
        ws = [(k, None if rng.random() < 0.2 else _row(rng, ts, kinds)) for k in ks]
        store.apply(ts, ws)
        model.apply(ts, ws)

    # a bulk load in key order (the `_append` path), of part of the keys
    first = sorted(rng.sample(universe, n // 2))
    rows = [_row(rng, i, kinds) for i in range(len(first))]
    stores[0][0].apply_lists(ts, first, rows)
    stores[0][1].apply(ts, list(zip(first, rows, strict=True)))
    for _ in range(45):
        store, model = rng.choice(stores)
        op = rng.random()
        if op < 0.45:
            write(store, model)
        elif op < 0.55:  # a big write set: the bulk merge path, run by run
            ts += 1
            ks = rng.sample(universe, min(len(universe), 40))
            ws = [(k, None if rng.random() < 0.1 else _row(rng, ts, kinds)) for k in ks]
            if rng.random() < 0.5:
                store.apply(ts, ws)
            else:  # a commit's ascending lists (a COPY's, a Spark task's)
                ws.sort()
                keys = [k for k, _ in ws]
                store.apply_lists(ts, AscendingKeys(keys) if rng.random() < 0.5 else keys,
                                  [r for _, r in ws])
            model.apply(ts, ws)
        elif op < 0.8:
            lw = max(lw, rng.randint(max(lw, ts - 3), ts))
            writer[:] = [(store, model)]
            for s, m in stores:
                collecting[:] = [(s, m)]
                s.collect(lw, Between())
            writer.clear()
            collecting.clear()
        elif op < 0.88 and len(stores) < 3:
            at = rng.choice(universe)
            other = store.split_off(at)
            stores.append((other, model.split_off(at)))
        elif op < 0.94:  # a reload from an export (a checkpoint, a move)
            keys, chains = store.export()
            store.load(keys, chains)
            store.collect(lw)
        else:
            store.compact()
        for s, m in stores:
            _check(s, m, rng, ts, lw, universe)
    assert any(len(s._cold) for s, _ in stores), "nothing went cold: the test tests nothing"
    assert appended, "no key was appended to a base: the test misses `apply`'s append path"


def test_a_freeze_waits_between_windows_while_readers_run(monkeypatch):
    """`freeze.readers` (the transaction manager's test) is asked between windows; the
    freeze waits while it says a transaction runs, and freezes the same rows."""
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 64)
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 8)
    monkeypatch.setattr(freeze, "READER_POLL", 0.0)
    store = VersionStore()
    keys = [i.to_bytes(4, "big") for i in range(1000)]
    store.apply_lists(1, keys, [(i, "x") for i in range(1000)])
    store.compact()
    asked: list[int] = []

    def running() -> bool:  # busy twice, then free, and again
        asked.append(1)
        return len(asked) % 3 != 0

    token = freeze.readers.set(running)
    try:
        assert store.freeze(5, threading.Lock()) == 1000
    finally:
        freeze.readers.reset(token)
    assert len(asked) >= 1000 // 64  # asked between every two windows
    assert list(store.scan(None, None, 5)) == [(k, (i, "x")) for i, k in enumerate(keys)]


def test_freeze_in_chunks_keeps_writes_that_come_in_between(monkeypatch):
    """Keys written between the freeze's read and its install stay hot with their new
    versions; the others go cold and the base keeps only the hot ones."""
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 64)
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 8)
    store = VersionStore()
    keys = [i.to_bytes(4, "big") for i in range(1000)]
    store.apply_lists(1, keys, [(i, "x") for i in range(1000)])
    store.compact()  # only the base freezes
    holds = 0

    class Lock:
        def __enter__(self) -> None:
            nonlocal holds
            holds += 1
            if holds == 5:  # after some windows were read: write two keys read already
                store.apply(2, [(keys[3], (3, "new")), (keys[700], None)])

        def __exit__(self, *exc: Any) -> None:
            pass

    store.freeze(1, Lock())
    assert store.read(keys[3], 2) == (3, "new") and store.read(keys[700], 2) is None
    assert store.read(keys[3], 1) == (3, "x")
    # keys[3] was frozen, then written: hot again, in the write cache; keys[700] was
    # written before its window was read: never frozen
    assert len(store._cold) == 998 and store._keys == [keys[700]] and list(store._cache) == [keys[3]]
    assert [r[0] for _, r in store.scan(None, None, 2)] == [i for i in range(1000) if i != 700]


def test_keys_appended_during_a_freeze_stay_hot_and_in_order(monkeypatch):
    """A new key above every key goes to the end of the base (`apply`'s append path), also
    while a freeze runs between its holds: the install keeps the appended keys, hot."""
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 64)
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 8)
    store = VersionStore()
    keys = [i.to_bytes(4, "big") for i in range(1003)]
    store.apply_lists(1, keys[:1000], [(i, "x") for i in range(1000)])
    store.compact()
    holds = 0

    class Lock:
        def __enter__(self) -> None:
            nonlocal holds
            holds += 1
            if holds == 5:
                store.apply(2, [(keys[1000], (1000, "new")), (keys[1001], None)])
                assert store._keys[-2:] == keys[1000:1002] and not store._cache

        def __exit__(self, *exc: Any) -> None:
            pass

    store.freeze(1, Lock())
    assert len(store._cold) == 1000 and store._keys == keys[1000:1002] and not store._cache
    store.apply(3, [(keys[1002], (1002, "y"))])  # above the cold rows: appended
    assert store._keys == keys[1000:] and not store._cache
    store.apply(4, [(keys[5], (5, "hot"))])  # a cold key: into the write cache
    store.apply(5, [(keys[1002], (1002, "z"))])
    assert list(store._cache) == [keys[5]] and store._keys == keys[1000:]
    want = [(k, (i, "x")) for i, k in enumerate(keys[:1000])]
    want[5] = (keys[5], (5, "hot"))
    assert list(store.scan(None, None, 5)) == [*want, (keys[1000], (1000, "new")),
                                                (keys[1002], (1002, "z"))]
    assert store.read(keys[1002], 3) == (1002, "y") and store.read(keys[1002], 2) is None
    assert store.read(keys[1001], 5) is None and keys[1001] in store._gc


def test_a_cold_key_read_then_written_is_found_once(monkeypatch):
    """An UPDATE reads a cold row, its commit kills it: the kill takes the read's position
    and version (`ColdRows._read`) unless the segment changed meanwhile."""
    store = VersionStore(cache_limit=16)
    keys = [i.to_bytes(4, "big") for i in range(600)]
    store.apply_lists(5, keys, [(i,) for i in range(600)])
    assert store.collect(10) == 0 and len(store._cold) == 600
    found: list[bytes] = []
    find = coldrows.Segment.find
    monkeypatch.setattr(coldrows.Segment, "find", lambda seg, key: found.append(key) or find(seg, key))
    assert store.read(keys[7], 10) == (7,) and found == [keys[7]]
    store.apply(11, [(keys[7], (70,))])
    assert found == [keys[7]]  # the kill found it through the read's hint
    assert store.read(keys[7], 10) == (7,) and store.read(keys[7], 11) == (70,)
    cold = store._cold
    assert cold.version(keys[9]) == (5, (9,)) and cold.version(keys[300]) == (5, (300,))
    s = bisect.bisect_right(cold.firsts, keys[9]) - 1
    seg = cold.segs[s]
    cold.replace(s, seg.cut(0, seg.n))  # a rewrite: the hint names a segment no longer held
    found.clear()
    assert cold.kill(keys[9]) == (5, (9,)) and found == [keys[9]]
    assert cold.get(keys[9]) is None and cold.kill(keys[9]) is None
    assert cold.kill(keys[300]) == (5, (300,)) and cold.kill(keys[300]) is None
    assert len(cold) == 597
    for i in range(2 * coldrows.READ_MEMO):  # the hints stay few
        cold.version(keys[400 + i])
    assert len(cold._read) <= coldrows.READ_MEMO


def test_a_write_to_a_cold_key_moves_it_hot():
    store = VersionStore(cache_limit=16)
    keys = [i.to_bytes(4, "big") for i in range(600)]
    store.apply_lists(5, keys, [(i,) for i in range(600)])
    assert store.collect(10) == 0 and len(store._cold) == 600 and not store._keys
    store.apply(11, [(keys[7], (70,)), (keys[8], None), (b"\x00\x00\x00\x07\x00", (1,))])
    assert len(store._cold) == 598 and len(store) == 601
    assert store.read(keys[7], 10) == (7,) and store.read(keys[7], 11) == (70,)
    assert store.read(keys[8], 10) == (8,) and store.read(keys[8], 11) is None
    assert store.latest_commit(keys[9]) == 5 and store.latest_commit(keys[7]) == 11
    store.collect(11)  # keys 7 and 8 lie inside a segment's range: they stay hot
    assert store.read(keys[8], 11) is None and len(store) == 600


def test_segment_keeps_types_and_finds_keys_of_any_width():
    rows = [(1, 2.5, "é", b"\x00", None, True, [1, [None]]),
            (Decimal("1.10"), uuid.UUID(int=5),
             datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC), Flag(3))]
    for rs, pickled in (([rows[0]] * 20, False), (rows * 10, True)):
        keys = sorted({bytes([i]) + b"\x00" * (i % 4) for i in range(20)})
        seg = Segment.encode(keys, rs, 9)
        assert seg.pickled == pickled
        assert seg.rows(0, seg.n) == rs
        got = seg.rows(0, seg.n)
        assert [list(map(type, r)) for r in got] == [list(map(type, r)) for r in rs]
        for i, k in enumerate(keys):
            assert seg.find(k) == i and seg.bisect(k) == i
            assert seg.find(k + b"\x00") == (keys.index(k + b"\x00") if k + b"\x00" in keys else -1)
        assert seg.find(b"") == -1 and seg.find(b"\xff") == -1
        assert seg.keys(0, seg.n) == keys


def test_cold_rows_take_split_and_merged_view():
    cold = ColdRows()
    keys = [i.to_bytes(2, "big") for i in range(0, 200, 2)]
    for lo in range(0, 100, 25):
        cold.add(Segment.encode(keys[lo:lo + 25], [(i,) for i in range(lo, lo + 25)], 3))
    with pytest.raises(ValueError):
        cold.add(Segment.encode(keys[10:11], [(0,)], 3))
    cold.kill(keys[30])
    assert cold.take(None, None, 3, True) == (keys[97:], [(97,), (98,), (99,)])
    ks, _ = cold.take(keys[28], keys[33], 100, False)
    assert ks == [keys[28], keys[29], keys[31], keys[32]]
    ks, _ = cold.take(keys[20], None, 6, False)
    assert ks == keys[20:26]
    hot = [b"\x00\x01", keys[30], b"\x01\x00\x01", b"\xff"]
    m = Merged(hot, [((9, (h,)),) for h in hot], cold.snapshot())
    mk, mc = m.all()
    assert mk == sorted(keys[:30] + keys[31:] + hot) and len(m) == len(mk)
    assert m.keys[5:40] == mk[5:40] and m.chains[7] == mc[7] and list(m.chains) == mc
    for k in mk[::7] + [b"", b"\xff\xff"]:
        assert m.bisect_right(k) == sum(1 for x in mk if x <= k)
    upper = cold.split_off(keys[60])
    assert len(cold) + len(upper) == 99 and cold.take(None, None, 1000, False)[0][-1] == keys[59]
    assert upper.take(None, None, 1, False)[0] == [keys[60]]


def test_columnar_copy_built_over_cold_rows_sees_what_the_rows_see(monkeypatch):
    """A copy built after a freeze (under the lock, or unlocked from a snapshot while
    writers go on) reads the cold rows, decoded a pack at a time."""
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 4)
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 64)
    keys = [i.to_bytes(4, "big") for i in range(0, 3000, 3)]

    def loaded() -> VersionStore:
        s = VersionStore(cache_limit=8)
        s.apply_lists(1, keys, [(i, i % 7, f"r{i}") for i in range(len(keys))])
        s.collect(2)
        s.apply(3, [(keys[5], (5, 0, "new")), (keys[9], None), (b"\x00\x00\x00\x01", (-1, 0, "in"))])
        return s

    def rows(snaps: list) -> list[tuple]:
        return sorted(r for snap in snaps for r in snap.rows())

    s = loaded()
    assert len(s._cold) == len(keys) - 2
    want = sorted(r for _, r in s.scan(None, None, 3))
    assert rows([s.columnar(3)]) == want
    s = loaded()
    lock = threading.RLock()
    pending = s.columnar_begin(3)
    assert isinstance(pending, PendingBuild)
    s.apply(4, [(keys[20], None), (keys[21], (21, 1, "later"))])  # logged, caught up at install
    copy = pending.finish()
    with lock:
        s.columnar_install(pending, copy)
    assert rows([s.columnar(4)]) == sorted(r for _, r in s.scan(None, None, 4))
    assert rows(snapshots(lock, lambda: [s], 4)) == sorted(r for _, r in s.scan(None, None, 4))


def test_keys_gone_hot_in_a_segment_go_cold_again_once_left_alone(monkeypatch):
    """A rewrite folds the hot keys of a segment's range back into it, but only those not
    written since the previous pass; a scan decodes segments read over and over once."""
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 8)
    monkeypatch.setattr(coldrows, "DECODED", coldrows.DecodedRows(10_000))
    store = VersionStore(cache_limit=8)
    keys = [i.to_bytes(4, "big") for i in range(400)]
    store.apply_lists(1, keys, [(i, "x") for i in range(400)])
    store.collect(1)
    assert len(store._cold) == 400 and len(store._cold.segs) == 1
    store.apply(2, [(k, (i, "y")) for i, k in enumerate(keys) if i % 4 == 0])  # 100 go hot
    store.compact()
    store.collect(2)  # written after the previous pass: they stay hot
    assert len(store._cold) == 300 and len(store._keys) == 100
    store.apply(3, [(keys[8], (8, "z"))])
    store.collect(3)  # 99 sat out a pass: back into the segment; keys[8] stays hot
    assert len(store._cold) == 399 and store._keys == [keys[8]] and len(store._cold.segs) == 1
    seg = store._cold.segs[0]
    assert seg.dead == 0 and seg.n == 399
    want = [(k, (i, "z" if i == 8 else "y" if i % 4 == 0 else "x")) for i, k in enumerate(keys)]
    for _ in range(2):
        assert list(store.scan(None, None, 3)) == want
    assert seg.decoded is not None and coldrows.DECODED.rows == 399
    assert store.read(keys[12], 3) == (12, "y") and store.read(keys[8], 2) is None
    store.apply(4, [(keys[4], None)])  # a write to a decoded cold key
    assert store.read(keys[4], 4) is None and store.read(keys[4], 3) == (4, "y")
    assert list(store.scan(keys[3], keys[6], 4)) == [(keys[3], (3, "x")), (keys[5], (5, "x"))]


def test_fixed_width_find_agrees_with_bisect():
    """`find` over fixed-width keys (numpy's searchsorted) as `bytes` order says: NULs and
    0xff at either end, keys absent, keys of another width (never in the segment)."""
    rnd = random.Random(7)
    keys = sorted({bytes(rnd.choice((0, 1, 127, 128, 255)) for _ in range(3)) for _ in range(60)})
    keys = keys[::2]
    seg = Segment.encode(keys, [(i,) for i in range(len(keys))], 3)
    assert seg.width == 3
    for probe in sorted({bytes((a, b, c)) for a in (0, 1, 255) for b in (0, 128, 255)
                         for c in (0, 1, 255)} | set(keys)):
        want = keys.index(probe) if probe in keys else -1
        assert seg.find(probe) == want, probe
    for other in (keys[1][:2], keys[1] + b"\x00", b""):
        assert seg.find(other) == -1
