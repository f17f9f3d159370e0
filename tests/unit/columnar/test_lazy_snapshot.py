"""A columnar snapshot is taken under the node lock but read later, outside it: its
visibility masks are computed on the first read of `views` (so that no numpy pass, which
releases the GIL, runs under the lock). Writes, freezes and collections that land between
the two must not change what it returns (seeded, randomized, against the row path read
when the snapshot was taken)."""

from __future__ import annotations

import random

import pytest

from cumulo.server.kivi.columnar import copy as ccopy
from cumulo.server.kivi.mvcc import VersionStore


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


@pytest.mark.parametrize("seed", range(6))
def test_snapshot_read_after_later_writes(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 16)  # many freezes, merges and rewrites
    monkeypatch.setattr(ccopy, "SCAN_FREEZE", 8)
    rnd = random.Random(seed)
    s = VersionStore(cache_limit=8)
    s.apply(1, [(key(k), (k, 0)) for k in range(50)])
    assert s.columnar(1) is not None  # built: every later write goes to the copy too
    ts = 1
    pending: list[tuple[int, object, list[tuple]]] = []  # (ts, unread snapshot, row path)
    for _ in range(60):
        ts += 1
        writes = [(key(k), None if rnd.random() < 0.2 else (k, ts))
                  for k in rnd.sample(range(70), rnd.randrange(1, 8))]
        s.apply(ts, writes)
        if rnd.random() < 0.3:
            snap = s.columnar(ts)
            assert snap is not None
            pending.append((ts, snap, sorted(r for _, r in s.scan(None, None, ts))))
        if pending and rnd.random() < 0.2:
            s.collect(min(t for t, _, _ in pending))  # GC never passes an open snapshot
        if pending and rnd.random() < 0.3:
            t, snap, want = pending.pop(rnd.randrange(len(pending)))
            assert sorted(snap.rows()) == want, f"snapshot at {t}"
    for t, snap, want in pending:
        assert sorted(snap.rows()) == want, f"snapshot at {t}"
