"""The vector joins' memory cap (`exec.vector.memcap`): the pair count equals a brute-force
count under NULL keys and duplicates, and a join whose result would not fit in the memory
still allowed hands the statement to the row plan (`Fallback`) instead of building it."""

from __future__ import annotations

import numpy as np
import pytest

from cumulo.server.sql.exec import memguard
from cumulo.server.sql.exec.vector import memcap
from cumulo.server.sql.expr.vectorize import Fallback


class _Ctx:
    cancels = 0

    def check_cancel(self) -> None:
        self.cancels += 1


def _brute(lk, lv, rk, rv) -> int:
    n = 0
    for i in range(len(lk[0])):
        if lv is not None and not lv[i]:
            continue
        for j in range(len(rk[0])):
            if rv is not None and not rv[j]:
                continue
            n += all(a[i] == b[j] for a, b in zip(lk, rk, strict=True))
    return n


@pytest.mark.parametrize("seed", range(8))
def test_pair_count_is_exact(seed: int) -> None:
    rng = np.random.default_rng(seed)
    nl, nr, keys = int(rng.integers(0, 60)), int(rng.integers(0, 60)), int(rng.integers(1, 3))
    lk = [rng.integers(0, 6, nl) for _ in range(keys)]
    rk = [rng.integers(0, 6, nr) for _ in range(keys)]
    lv = rng.random(nl) > 0.2 if seed % 2 else None
    rv = rng.random(nr) > 0.2 if seed % 3 else None
    if nl and nr:
        assert memcap.pair_count(lk, lv, rk, rv) == _brute(lk, lv, rk, rv)


def test_no_match_and_all_null() -> None:
    a, b = [np.array([1, 2])], [np.array([3, 4])]
    assert memcap.pair_count(a, None, b, None) == 0
    assert memcap.pair_count(a, np.array([False, False]), a, None) == 0


def test_a_join_too_big_falls_back(monkeypatch) -> None:
    # 2000 x 2000 rows on one key: 4M pairs, 8 bytes x (2 + 4) each, about 192 MB
    k = [np.zeros(2000, np.int64)]
    monkeypatch.setattr(memguard, "headroom", lambda: 100 << 20)
    with pytest.raises(Fallback, match="4000000 rows"):
        memcap.check(k, None, k, None, 2, _Ctx())
    # distinct keys: 2000 pairs fit, though the worst case (4M) would not: counted, passes
    ctx = _Ctx()
    memcap.check([np.arange(2000)], None, [np.arange(2000)], None, 2, ctx)
    assert ctx.cancels == 1
    # a bound from the keys (a primary key covered) skips the count
    ctx = _Ctx()
    memcap.check(k, None, k, None, 2, ctx, bound=2000)
    assert ctx.cancels == 0
    monkeypatch.setattr(memguard, "headroom", lambda: None)  # no limit known: never capped
    memcap.check(k, None, k, None, 2, _Ctx())


def test_headroom_is_the_memory_left() -> None:
    room = memguard.headroom()
    assert room is None or room >= 0
