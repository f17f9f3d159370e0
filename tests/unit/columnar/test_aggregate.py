"""The partial-aggregate kernel: the dense bincount path and Arrow's hash aggregate give the
same partials, and both equal the node's row-at-a-time `PartialAgg` (NULL keys and arguments,
negative keys, numeric scales, floats, empty input)."""

from __future__ import annotations

import random
from decimal import Decimal

import numpy as np
import pytest

from cumulo.server.kivi.agg import PartialAgg, merge_partials
from cumulo.server.kivi.api import AggSpec
from cumulo.server.kivi.columnar import aggregate as kagg
from cumulo.server.kivi.mvcc import VersionStore

AGGS = (("count_star", None), ("count", 2), ("sum", 2), ("sum", 3), ("sum", 4), ("count", 4))


def rows_for(seed: int, n: int) -> list[tuple]:
    rnd = random.Random(seed)
    return [(i, None if rnd.random() < 0.05 else rnd.randrange(-3, 20),
             None if rnd.random() < 0.1 else rnd.randrange(-10**6, 10**6),
             float(rnd.randrange(-100, 100)) / 4,
             None if rnd.random() < 0.1 else Decimal(rnd.randrange(-9999, 9999)).scaleb(-2))
            for i in range(n)]


def kernel(rows: list[tuple], spec: AggSpec) -> list[tuple]:
    s = VersionStore()
    s.apply(1, [(i.to_bytes(4, "big"), r) for i, r in enumerate(rows)])
    snap = s.columnar(1)
    assert snap is not None
    return sorted(merge_partials(spec, kagg.partial_aggregate(kagg.visible(snap), spec.group_by,
                                                              spec.aggs)), key=repr)


@pytest.mark.parametrize("seed", range(6))
def test_dense_and_hash_paths_equal_rows(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = rows_for(seed, 3000)
    spec = AggSpec((1,), AGGS)
    agg = PartialAgg(spec)
    agg.add(rows)
    want = sorted(agg.rows(), key=repr)
    dense = kernel(rows, spec)
    monkeypatch.setattr(kagg, "_DENSE", 0)  # every pack through Arrow's hash aggregate
    hashed = kernel(rows, spec)
    assert repr(dense) == repr(hashed) == repr(want)


def test_empty_and_ungrouped() -> None:
    spec = AggSpec((), AGGS)
    assert kernel([], spec) == [(0, 0, None, None, None, 0)]
    rows = rows_for(1, 500)
    agg = PartialAgg(spec)
    agg.add(rows)
    assert repr(kernel(rows, spec)) == repr(agg.rows())


def test_empty_selection_of_a_pack_with_null_keys() -> None:
    """A filter that keeps no row of a pack gives no partial group (the dense path used to
    index the empty list of present groups when the key column has NULLs)."""
    rows = rows_for(2, 400)
    assert any(r[1] is None for r in rows)
    s = VersionStore()
    s.apply(1, [(i.to_bytes(4, "big"), r) for i, r in enumerate(rows)])
    snap = s.columnar(1)
    assert snap is not None
    empty = [kagg.Selected(v.pack, np.zeros(0, dtype=np.int64)) for v in snap.views]
    spec = AggSpec((1,), AGGS)
    assert merge_partials(spec, kagg.partial_aggregate(empty, spec.group_by, spec.aggs)) == []
