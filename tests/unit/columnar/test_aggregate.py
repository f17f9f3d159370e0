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


MINMAX = (("count_star", None), ("min", 2), ("max", 2), ("min", 3), ("max", 3), ("sum", 2),
          ("count", 2))


@pytest.mark.parametrize("seed", range(4))
def test_dense_min_max_equal_rows_and_hash(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """MIN/MAX by dense scatter (ints with NULLs, floats with ±inf, a group whose values are
    all NULL) equal the hash path and the row-at-a-time fold."""
    rows = rows_for(seed, 3000)
    rnd = random.Random(seed)
    rows = [(i, g, None if g == 19 else x, rnd.choice([f, f, float("inf"), -float("inf")]), d)
            for i, g, x, f, d in rows]
    spec = AggSpec((1,), MINMAX)
    agg = PartialAgg(spec)
    agg.add(rows)
    want = sorted(agg.rows(), key=repr)
    scattered = []
    real = kagg._dense_extreme

    def counted(*args):  # type: ignore[no-untyped-def]
        out = real(*args)
        scattered.append(out is not None)
        return out

    monkeypatch.setattr(kagg, "_dense_extreme", counted)
    dense = kernel(rows, spec)
    assert scattered and all(scattered)  # the dense path ran
    monkeypatch.setattr(kagg, "_DENSE", 0)
    hashed = kernel(rows, spec)
    assert repr(dense) == repr(hashed) == repr(want)


def test_dense_min_max_over_nan_falls_back() -> None:
    rows = [(i, i % 3, float("nan") if i == 7 else float(i)) for i in range(100)]
    spec = AggSpec((1,), (("min", 2),))
    with pytest.raises(kagg.Unsafe):
        kernel(rows, spec)


@pytest.mark.parametrize("seed", range(3))
def test_dense_runs_of_ordered_keys_equal_rows_and_hash(seed: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys that follow the row order (one run per group: the reduceat path), with NULL keys
    last, an all-NULL group, ±inf floats and numerics, equal the hash path and the rows."""
    rnd = random.Random(seed)
    rows = [(i, None if i >= 2900 else i // 250 - 3, None if i // 250 == 5 else x,
             rnd.choice([f, float("inf"), -float("inf")]), d)
            for i, _, x, f, d in rows_for(seed, 3000)]
    spec = AggSpec((1,), AGGS + MINMAX[1:5])
    agg = PartialAgg(spec)
    agg.add(rows)
    want = sorted(agg.rows(), key=repr)
    ran = []
    real = kagg._runs
    monkeypatch.setattr(kagg, "_runs", lambda *a: ran.append(1) or real(*a))
    dense = kernel(rows, spec)
    assert ran  # the ordered path ran
    monkeypatch.setattr(kagg, "_DENSE", 0)
    assert repr(dense) == repr(kernel(rows, spec)) == repr(want)


@pytest.mark.parametrize("seed", range(4))
def test_runs_kept_with_the_pack_less_left_out_rows_equal_rows(seed: int) -> None:
    """A built pack whose key follows the row order answers from per-run totals kept with
    the pack, less the rows its snapshot leaves out (superseded, deleted, newer): equal to
    the row-at-a-time fold at snapshots before, between and after updates and deletes,
    with MIN / MAX ties held by left-out rows, numerics and (past a quarter left out) the
    ordinary path."""
    rnd = random.Random(seed)
    pick = [-7, 0, 0, 3, 9] if seed % 2 else list(range(-500, 500))
    rows = [(i, i // 300, rnd.choice(pick), Decimal(rnd.randrange(-999, 999)).scaleb(-2))
            for i in range(3000)]
    s = VersionStore()
    s.apply(1, [(i.to_bytes(4, "big"), r) for i, r in enumerate(rows)])
    assert s.columnar(1) is not None  # built: the later writes stamp its pack
    for ts in range(2, 12):
        writes = []
        for i in rnd.sample(range(3000), 60 if ts < 11 else 900):
            new = None if rnd.random() < 0.2 else (i, i // 300, rnd.choice(pick), rows[i][3])
            writes.append((i.to_bytes(4, "big"), new))
        s.apply(ts, writes)
    spec = AggSpec((1,), (("count_star", None), ("sum", 2), ("min", 2), ("max", 2),
                          ("count", 2), ("sum", 3)))
    used = []
    real = kagg._by_runs

    def by_runs(*args):  # type: ignore[no-untyped-def]
        out = real(*args)
        used.append(out is not None)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kagg, "_by_runs", by_runs)
        for ts in (1, 2, 5, 10, 11, 12):
            snap = s.columnar(ts)
            assert snap is not None
            agg = PartialAgg(spec)
            agg.add(snap.rows())
            got = kagg.partial_aggregate(kagg.visible(snap), spec.group_by, spec.aggs)
            assert sorted(got, key=repr) == sorted(agg.rows(), key=repr), ts
    assert any(used) and not all(used)  # the kept totals answered, and the ordinary path too
