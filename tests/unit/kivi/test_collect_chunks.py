"""Garbage collection in chunks: the node lock is released between them, and writers that
come in between (updates, deletes, new keys, a cache merge, a split) leave the store
exactly as a collection in one piece would.

The store is compared with a model that keeps every version: each key must read the
same at every snapshot at or above the watermark, and `_gc` must still mark every key
a later collection has to visit.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from cumulo.server.kivi import mvcc
from cumulo.server.kivi.mvcc import VersionStore


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


class Model:
    """Every version of every key, newest last: what a read at ts must see."""

    def __init__(self) -> None:
        self.versions: dict[bytes, list[tuple[int, Any]]] = {}

    def apply(self, ts: int, writes: list[tuple[bytes, Any]]) -> None:
        for k, row in writes:
            self.versions.setdefault(k, []).append((ts, row))

    def read(self, k: bytes, ts: int) -> Any:
        row = None
        for vts, r in self.versions.get(k, []):
            if vts <= ts:
                row = r
        return row


class InterleavingLock:
    """A lock stand-in that counts its holds and runs a writer before some of them
    (the writes a real node would let in while the collector waits for the lock)."""

    def __init__(self, between: Any) -> None:
        self.holds = 0
        self.held = False
        self.between = between

    def __enter__(self) -> None:
        assert not self.held, "collect re-entered its own lock"
        self.between(self.holds)
        self.holds += 1
        self.held = True

    def __exit__(self, *exc: Any) -> None:
        self.held = False


def _writes(rng: random.Random, n: int, count: int) -> list[tuple[bytes, Any]]:
    """Distinct random keys of 0..n*2 (half of them new), a quarter deleted."""
    ks = rng.sample(range(n * 2), count)
    return [(key(i), None if rng.random() < 0.25 else (i, rng.random())) for i in ks]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chunked_collect_with_writes_between_chunks(seed, monkeypatch):
    monkeypatch.setattr(mvcc, "COLLECT_CHUNK", 7)
    rng = random.Random(seed)
    n = 600
    store, model = VersionStore(cache_limit=32), Model()
    ts = 1
    store.apply(ts, [(key(i), (i, 0.0)) for i in range(n)])
    model.apply(ts, [(key(i), (i, 0.0)) for i in range(n)])
    for _ in range(6):  # several versions and tombstones, in the base and the cache
        ts += 1
        ws = _writes(rng, n, 90)
        store.apply(ts, ws)
        model.apply(ts, ws)
    low_water = ts - 2
    split_at = key(n // 2)
    uppers: list[VersionStore] = []

    def between(hold: int) -> None:
        nonlocal ts
        if hold and hold % 3 == 0:  # writes routed as a node does: to the store of the key
            ts += 1
            ws = _writes(rng, n, 15)
            model.apply(ts, ws)
            store.apply(ts, [w for w in ws if not uppers or w[0] < split_at])
            if uppers:
                uppers[0].apply(ts, [w for w in ws if w[0] >= split_at])
        if hold == 10:
            store.compact()
        if hold == 20:
            uppers.append(store.split_off(split_at))

    lock = InterleavingLock(between)
    dropped = store.collect(low_water, lock)
    assert lock.holds > 21 and dropped > 0 and uppers  # in chunks; it dropped versions
    uppers[0].collect(low_water)  # the keys the split moved were left to their new store
    for i in range(n * 2):
        k = key(i)
        part = store if k < split_at else uppers[0]
        for at in range(low_water, ts + 1):
            assert part.read(k, at) == model.read(k, at), (i, at)
    for part in (store, uppers[0]):
        _check_gc_marks(part)


def _check_gc_marks(store: VersionStore) -> None:
    """Every key with several versions or a tombstone is marked for the next collection."""
    store.compact()
    for k, chain in zip(store._keys, store._chains, strict=True):
        assert chain, k
        if len(chain) > 1 or chain[0][1] is None:
            assert k in store._gc, k


def test_chunked_collect_equals_one_piece(monkeypatch):
    """With no writer in between, chunks leave the same store as one pass, deleted keys
    removed from the base and the write cache alike."""
    monkeypatch.setattr(mvcc, "COLLECT_CHUNK", 5)
    rng = random.Random(7)
    stores = [VersionStore(cache_limit=16), VersionStore(cache_limit=16)]
    ts = 0
    for _ in range(8):
        ts += 1
        ws = _writes(rng, 300, 60)
        for s in stores:
            s.apply(ts, list(ws))
    lock = InterleavingLock(lambda hold: None)
    a = stores[0].collect(ts - 1, lock)
    b = stores[1].collect(ts - 1)
    assert a == b > 0 and lock.holds > 3
    assert list(stores[0].items()) == list(stores[1].items())
    assert stores[0]._gc == stores[1]._gc


@pytest.mark.parametrize("n", [20, 2000])  # the removal's identity pass, and its bisections
def test_a_key_deleted_then_written_between_chunks_is_not_removed(monkeypatch, n):
    """A base key left as a lone old tombstone for the final removal, then written again
    before it, keeps its new version."""
    monkeypatch.setattr(mvcc, "COLLECT_CHUNK", 1)
    store = VersionStore(cache_limit=4)
    store.apply(1, [(key(i), (i,)) for i in range(n)])
    store.compact()
    store.apply(2, [(key(i), None) for i in range(10)])  # ten tombstones in the base
    done: list[int] = []

    def between(hold: int) -> None:
        if hold == 11:  # after the ten chunks (one key each), before the final removal
            store.apply(3, [(key(3), ("back",))])
            done.append(hold)

    store.collect(2, InterleavingLock(between))
    assert done
    assert store.read(key(3), 3) == ("back",) and store.latest_commit(key(3)) == 3
    assert [store.latest_commit(key(i)) for i in range(10) if i != 3] == [None] * 9
    assert len(store) == n - 9
    assert [store.read(key(i), 3) for i in range(10, n)] == [(i,) for i in range(10, n)]
