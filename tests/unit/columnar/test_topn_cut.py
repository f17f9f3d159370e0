"""Top-N candidates pack by pack (`exec.vector.topn.pick`) with a filter's mask and the cut
carried from the packs before: whatever the packs, NULLs, NaNs and ties, every row that
belongs to the first k (ties with the k-th included) is a candidate, and no row outside
the mask is."""

from __future__ import annotations

import numpy as np
import pytest

from cumulo.server.sql.exec.vector.topn import Cut, pick
from cumulo.server.sql.expr.vectorize import V


def _rank(vals: np.ndarray, valid: np.ndarray, i: int, desc: bool, nulls_first: bool) -> tuple:
    """PostgreSQL's order of one value: NULLs per NULLS FIRST, NaN above every number."""
    if not valid[i]:
        return (0 if nulls_first else 3, 0.0)
    x = float(vals[i])
    if x != x:
        return (1 if desc else 2, 0.0)
    return (2 if desc else 1, -x if desc else x)


@pytest.mark.parametrize("seed", range(4))
def test_candidates_hold_the_first_k_across_packs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(150):
        k = int(rng.integers(1, 8))
        desc, nulls_first, f8 = (bool(rng.integers(2)) for _ in range(3))
        cut = Cut(k)
        rows: list[tuple] = []
        got: set[tuple[int, int]] = set()
        for p in range(int(rng.integers(1, 5))):
            n = int(rng.integers(0, 40))
            vals = rng.integers(-5, 5, n).astype(np.float64 if f8 else np.int64)
            valid = rng.random(n) > 0.2
            if f8:
                vals[rng.random(n) > 0.85] = np.nan
            vals[~valid] = 0
            among = rng.random(n) > 0.3 if rng.random() > 0.2 else None
            chosen = pick(V("f8" if f8 else "i8", vals, valid), k, desc, nulls_first, among, cut)
            assert among is None or among[chosen].all()
            got |= {(p, int(i)) for i in chosen}
            rows += [(_rank(vals, valid, i, desc, nulls_first), p, i) for i in range(n)
                     if among is None or among[i]]
        if rows:
            kth = sorted(r[0] for r in rows)[min(k, len(rows)) - 1]
            assert {(p, i) for r, p, i in rows if r <= kth} <= got
