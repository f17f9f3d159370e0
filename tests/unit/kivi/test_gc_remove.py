"""Garbage collection drops deleted keys from the sorted base, a few or many at a time.

GC now runs every few hundred commits, so a trickle of deletes in a big base
must not cost a Python pass over the whole base: up to 256 gone keys are cut
out with C-level slices, more with one filtering pass. Both must leave the
same store, and readers holding the old lists must not see them change.
"""

from __future__ import annotations

import random

import pytest

from cumulo.server.kivi.mvcc import VersionStore


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


@pytest.mark.parametrize("deleted", [1, 7, 256, 257, 3000])
def test_collect_removes_deleted_base_keys(deleted):
    n = 5000
    store = VersionStore(cache_limit=64)
    store.apply(1, [(key(i), (i,)) for i in range(n)])
    store.compact()
    rng = random.Random(deleted)
    gone = set(rng.sample(range(n), deleted))
    store.apply(2, [(key(i), None) for i in sorted(gone)])
    store.compact()
    old_keys = store._keys  # a reader's view from before the collection
    old_len = len(old_keys)
    store.collect(low_water=2)
    assert len(old_keys) == old_len  # replaced, not mutated
    assert len(store) == n - deleted
    assert store.read_many([key(i) for i in range(n)], 3) == [
        None if i in gone else (i,) for i in range(n)]
    assert store._keys == sorted(store._keys) and len(store._keys) == len(store._chains)
    assert all(c[0][1] == (int.from_bytes(k, "big"),) for k, c in zip(
        store._keys, store._chains, strict=True))
