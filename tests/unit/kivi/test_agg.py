"""Partial aggregates: any split of the input into batches and regions gives the same answer."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cumulo.server.errors import FeatureNotSupported
from cumulo.server.kivi.agg import PartialAgg, merge_partials, partial_aggregate
from cumulo.server.kivi.api import AggSpec

SPEC = AggSpec(
    group_by=(0,),
    aggs=(("count_star", None), ("count", 1), ("sum", 1), ("min", 1), ("max", 1)),
)

# No example database in the repo, no flaky health checks on a loaded CI machine.
PROPS = dict(database=None, suppress_health_check=list(HealthCheck), deadline=None)


def reference(spec, rows):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[i] for i in spec.group_by), []).append(r)
    if not spec.group_by and not groups:
        groups[()] = []
    out = []
    for k, rs in groups.items():
        vals = []
        for fn, j in spec.aggs:
            nn = [r[j] for r in rs if j is not None and r[j] is not None]
            vals.append(
                {
                    "count_star": len(rs),
                    "count": len(nn),
                    "sum": sum(nn) if nn else None,
                    "min": min(nn) if nn else None,
                    "max": max(nn) if nn else None,
                }[fn]
            )
        out.append(k + tuple(vals))
    return sorted(out, key=repr)


rows_st = st.lists(
    st.tuples(st.sampled_from(["a", "b", None]), st.one_of(st.none(), st.integers(-50, 50))),
    max_size=40,
)


@settings(max_examples=200, **PROPS)
@given(rows_st, st.lists(st.integers(0, 40), max_size=4), st.booleans())
def test_split_invariance(rows, cuts, grouped):
    spec = SPEC if grouped else AggSpec(aggs=SPEC.aggs)
    cuts = sorted(set(cuts))
    parts = [rows[a:b] for a, b in zip([0, *cuts], [*cuts, len(rows)], strict=True)]
    # Each "region" folds its part in two batches; the merge combines regions.
    partials = []
    for p in parts:
        agg = PartialAgg(spec)
        agg.add(p[: len(p) // 2])
        agg.add(p[len(p) // 2 :])
        partials += agg.rows()
    assert sorted(merge_partials(spec, partials), key=repr) == reference(spec, rows)


def test_empty_input_ungrouped_gives_one_row():
    spec = AggSpec(aggs=(("count_star", None), ("sum", 0), ("max", 0)))
    assert partial_aggregate(spec, []) == [(0, None, None)]
    assert merge_partials(spec, []) == [(0, None, None)]
    assert partial_aggregate(AggSpec(group_by=(0,), aggs=spec.aggs), [[]]) == []


def test_decimal_and_multi_column_groups():
    spec = AggSpec(group_by=(0, 1), aggs=(("sum", 2),))
    rows = [(1, "x", Decimal("1.5")), (1, "x", Decimal("2")), (1, "y", None)]
    assert sorted(partial_aggregate(spec, [rows]), key=repr) == [
        (1, "x", Decimal("3.5")),
        (1, "y", None),
    ]


def test_unknown_function():
    with pytest.raises(FeatureNotSupported):
        PartialAgg(AggSpec(aggs=(("median", 0),)))


def test_nan_is_the_largest_value():
    nan = float("nan")
    spec = AggSpec(aggs=(("min", 0), ("max", 0)))
    for vals in ([nan, 1.0, 2.0], [1.0, nan, 2.0], [2.0, 1.0, nan]):
        lo, hi = partial_aggregate(spec, [[(v,) for v in vals]])[0]
        assert lo == 1.0 and hi != hi
    dnan = Decimal("NaN")
    lo, hi = partial_aggregate(spec, [[(Decimal(3),), (dnan,)], [(Decimal(1),)]])[0]
    assert lo == Decimal(1) and hi.is_nan()
    lo, hi = merge_partials(spec, [(Decimal(2), dnan), (Decimal(1), Decimal(5))])[0]
    assert lo == Decimal(1) and hi.is_nan()
