"""COUNT(DISTINCT x) per group by sorting (`distinct._by_sorting`) gives Arrow's hash
`count_distinct` counts: NULL keys as one group, NULL x not counted, groups whose every x is
NULL counted 0, negative and wide-ranged keys."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from cumulo.server.sql.exec.vector.distinct import _by_sorting


def _arr(rng: np.random.Generator, n: int, lo: int, hi: int, nulls: float) -> pa.Array:
    v = rng.integers(lo, hi, n)
    return pa.array(v, mask=rng.random(n) < nulls)


@pytest.mark.parametrize("seed", range(8))
def test_sorting_matches_arrow(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    keys = [_arr(rng, n, -50, 50, 0.1), _arr(rng, n, 10**9, 10**9 + 7, 0.05 * (seed % 2))]
    xs = _arr(rng, n, -3, 9, 0.3)
    got = _by_sorting(keys, xs)
    assert got is not None
    at, counts = got
    mine = {tuple(k[int(i)].as_py() for k in keys): c for i, c in zip(at, counts, strict=True)}
    t = pa.table({"k0": keys[0], "k1": keys[1], "x": xs})
    ref = t.group_by(["k0", "k1"]).aggregate([("x", "count_distinct")]).to_pylist()
    want = {(r["k0"], r["k1"]): r["x_count_distinct"] for r in ref}
    assert mine == want


def test_too_wide_a_combination_is_refused() -> None:
    wide = pa.array([0, 2**40])
    assert _by_sorting([wide, wide], pa.array([1, 2])) is None
