"""`WriteSet.counts` (automatic ANALYZE's per-space write counts at every commit): its
dict-only way, built by C-level passes, counts as the definition does, a space emptied
by a savepoint rollback left out."""

from __future__ import annotations

import random

import pytest

from cumulo.server.txn.writeset import WriteSet


@pytest.mark.parametrize("seed", range(4))
def test_counts_are_the_keys_written_per_space(seed: int) -> None:
    rnd = random.Random(seed)
    ws = WriteSet()
    for _ in range(60):
        token = ws.savepoint() if rnd.random() < 0.2 else None
        for _ in range(rnd.randint(1, 4)):
            ws.put(rnd.randrange(5), b"k%d" % rnd.randrange(6), None if rnd.random() < 0.2 else (1,))
        if token is not None and rnd.random() < 0.5:
            ws.rollback_to(token)
        want = {s: n for s in set(ws.spaces) | set(ws.runs) if (n := ws.count(s))}
        assert ws.counts() == want
        assert 0 not in ws.counts().values()
