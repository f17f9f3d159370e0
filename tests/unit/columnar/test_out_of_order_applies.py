"""The columnar copy under commits applied out of timestamp order.

Concurrent commits reach a KiVi node in any order (each session applies its own, and
in cluster mode each query engine commits from its own block of timestamps), so the
copy's tail is not sorted by begin. A snapshot must still see exactly what the row
path (`VersionStore.scan`) sees, at every timestamp the snapshot server can hand out
(all commits at or below it applied, any above it possibly applied already).
The tail used to be read whole when its *last* row began at or below the snapshot: a
row applied earlier with a higher timestamp showed up, next to the version it replaced
(`sum(b), count(*)` one row too high in the cluster bank test).
"""

from __future__ import annotations

import random

import pytest

from cumulo.server.kivi.columnar.copy import ColumnarCopy
from cumulo.server.kivi.mvcc import VersionStore


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def test_a_higher_timestamp_applied_first_is_not_visible_below_it() -> None:
    c = ColumnarCopy()
    c.apply(5, [b"a", b"b"], [(1,), (2,)])
    c.freeze()  # the old versions in a pack, the new ones in the tail
    c.apply(8, [b"a"], [(10,)])  # ts 8 reaches the node first,
    c.apply(7, [b"b"], [(20,)])  # then ts 7: the snapshot may now be 7
    assert sorted(c.snapshot(7).rows()) == [(1,), (20,)]
    assert sorted(c.snapshot(8).rows()) == [(10,), (20,)]
    c.apply(9, [b"c"], [(3,)])
    c.apply(6, [b"d"], [(4,)])  # inserts only: no end stamp in the tail at all
    assert sorted(c.snapshot(6).rows()) == [(1,), (2,), (4,)]


@pytest.mark.parametrize("seed", range(4))
def test_randomized_against_row_path(seed: int) -> None:
    """Bank-like commits (two updates, one insert) applied in shuffled windows of
    timestamps; after each apply, every snapshot the prefix allows matches the rows."""
    rng = random.Random(seed)
    s = VersionStore()
    s.apply(1, [(key(i), (i, 100)) for i in range(20)])
    assert s.columnar(1) is not None  # built now: later commits go to the tail
    ts, applied, ledger = 1, {1}, 1000
    for _ in range(40):
        window = list(range(ts + 1, ts + 1 + rng.randint(2, 5)))
        ts = window[-1]
        # Commits in one window touch different accounts (their locks overlap in time).
        accounts = rng.sample(range(20), 2 * len(window))
        order = window[:]
        rng.shuffle(order)
        for t in order:
            a, b = accounts[2 * (t - window[0])], accounts[2 * (t - window[0]) + 1]
            ledger += 1
            s.apply(t, [(key(a), (a, rng.randint(0, 99))), (key(b), (b, rng.randint(0, 99))),
                        (key(ledger), (ledger, 0))])
            applied.add(t)
            snap = max(x for x in range(1, ts + 1) if all(y in applied for y in range(1, x + 1)))
            for at in range(max(1, snap - 6), snap + 1):
                col = s.columnar(at)
                assert col is not None
                assert sorted(col.rows()) == sorted(r for _, r in s.scan(None, None, at)), at
