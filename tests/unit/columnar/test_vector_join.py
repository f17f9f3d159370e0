"""Unit tests of the vectorized join kernels: key normalisation (PostgreSQL's `=`), the hash
match, frames padding LEFT-join rows, columns concatenated across packs, and the doctests of
the join modules."""

from __future__ import annotations

import doctest
from decimal import Decimal

import numpy as np
import pytest

from cumulo.server.kivi.columnar import encode
from cumulo.server.kivi.columnar.aggregate import Selected
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.exec.vector import distinct, frame, join, memcap, reduce, rowexpr, run
from cumulo.server.sql.exec.vector.frame import Frame, Materialized, Stored, concat
from cumulo.server.sql.exec.vector.join import _pair, match
from cumulo.server.sql.expr.bound import E
from cumulo.server.sql.expr.vectorize import Fallback, V
from cumulo.server.sql.optimizer import columnar_joins


@pytest.mark.parametrize("module", [frame, join, rowexpr, columnar_joins, distinct, reduce,
                                    memcap, run])
def test_doctests(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted and not result.failed


def _v(values: list) -> V:
    return V.of(encode(values))


def _pairs(a: list, b: list) -> list[tuple[int, int]]:
    va, vb = _v(a), _v(b)
    x, y = _pair(va, vb)
    li, ri = match([x], va.valid, [y], vb.valid)
    return sorted(zip(li.tolist(), ri.tolist(), strict=True))


def test_null_keys_never_match_and_duplicates_multiply() -> None:
    assert _pairs([1, None, 2, 2], [2, None, 2, 3]) == [(2, 0), (2, 2), (3, 0), (3, 2)]


def test_float_keys_nan_equals_nan_and_minus_zero_is_zero() -> None:
    nan = float("nan")
    assert _pairs([0.0, nan, 1.5], [-0.0, nan, 2.5]) == [(0, 0), (1, 1)]


def test_numeric_keys_at_different_scales_and_against_integers() -> None:
    assert _pairs([Decimal("1.50"), Decimal("2.00")], [Decimal("1.5"), Decimal("2.0")]) == \
        [(0, 0), (1, 1)]
    assert _pairs([1, 2, 3], [Decimal("2.00"), Decimal("3.50")]) == [(1, 0)]


def test_text_keys_with_different_dictionaries() -> None:
    assert _pairs(["b", "a", "c", None], ["c", "zz", "a"]) == [(1, 2), (2, 0)]


def test_kinds_that_cannot_be_compared_fall_back() -> None:
    with pytest.raises(Fallback):
        _pair(_v(["a"]), _v([1]))


def test_multi_column_keys() -> None:
    a0, a1 = np.array([1, 1, 2]), np.array([5, 6, 5])
    b0, b1 = np.array([1, 2, 2]), np.array([6, 5, 6])
    li, ri = match([a0, a1], None, [b0, b1], None)
    assert sorted(zip(li.tolist(), ri.tolist(), strict=True)) == [(1, 0), (2, 1)]


def test_frames_pad_and_concatenate() -> None:
    left = Frame.of(Materialized([encode([10, 20, 30])], [T.INT4]))
    right = Frame.of(Materialized([encode(["x", "y"])], [T.TEXT]))
    out = left.take(np.array([0, 1, 2])).beside(right.pad(np.array([1, -1, 0])))
    assert [out.column(j).to_pylist() for j in range(out.width)] == \
        [[10, 20, 30], ["y", None, "x"]]
    empty = Frame.of(Materialized([encode([])], [T.INT4]))
    assert empty.pad(np.array([-1, -1])).column(0).to_pylist() == [None, None]


def test_concat_reconciles_pack_kinds() -> None:
    c = concat([encode(["b", "a"]), encode([None, None]), encode(["c", "a"])], T.TEXT)
    assert c.kind == "str" and c.to_pylist() == ["b", "a", None, None, "c", "a"]
    d = concat([encode([Decimal("1.5")]), encode([Decimal("2.25")])], T.NUMERIC)
    assert d.kind == "dec" and d.to_pylist() == [Decimal("1.50"), Decimal("2.25")]


def test_count_distinct_kernel_matches_the_pairs_path() -> None:
    """Arrow's count of distinct x per group (`vector.distinct`) equals counting the distinct
    (keys, x) pairs (`run.count_pairs`), over seeded random columns with NULL keys, NULL x,
    text, numeric and date keys; a float column is left to the general path."""
    import datetime as dt
    import random

    rnd = random.Random(7)
    n = 500
    raw = {
        0: [rnd.choice(["a", "b", "é", None]) for _ in range(n)],
        1: [rnd.choice([Decimal("1.50"), Decimal("2.25"), None]) for _ in range(n)],
        2: [rnd.choice([dt.date(2020, 1, d) for d in (1, 2, 3)] + [None]) for _ in range(n)],
        3: [rnd.choice([1, 2, 3, 4, 5, None]) for _ in range(n)],
    }
    cols = {j: encode(v) for j, v in raw.items()}
    pairs = {tuple(raw[j][i] for j in (0, 1, 2, 3)) for i in range(n)}
    want = sorted(run.count_pairs(list(pairs), 3, 2), key=repr)
    got = distinct.count_distinct(cols.__getitem__, n, (0, 1, 2), 3, 2)
    assert sorted(got, key=repr) == want
    with pytest.raises(distinct.Unhandled):
        distinct.count_distinct({0: encode([1.5, float("nan")]), 1: encode([1, 2])}.__getitem__,
                                2, (0,), 1, 1)


class _Pack:
    """A pack of encoded columns (what `reduce.by_pack` reads)."""

    def __init__(self, *cols: list) -> None:
        self.cols = [encode(c) for c in cols]
        self.n = len(cols[0])

    def column(self, j: int):  # type: ignore[no-untyped-def]
        return self.cols[j]


def test_by_pack_keeps_the_rows_whose_key_the_small_side_holds() -> None:
    """Pack by pack (NULL keys, a key absent from the table) equals `keep` over the
    concatenated column, and the frame it cuts reads the same rows; a filtered scan's
    packs are left to the plain path (their keys are gathered either way)."""
    packs = [_Pack([1, None, 3, 4], ["a", "b", "c", "d"]), _Pack([2, 3], ["e", "f"])]
    sels = [Selected(packs[0], None), Selected(packs[1], None)]  # type: ignore[arg-type]
    f = Frame.of(Stored(sels, [T.INT8, T.TEXT], [-1, -1], 2))
    key = E("col", 0, [], T.INT8)
    vals = np.array([3, 2, 9])
    pos = reduce.by_pack(f, key, vals)
    assert pos is not None and pos.tolist() == [2, 4, 5]
    whole = f.column(0)
    assert pos.tolist() == reduce.keep(vals, None, whole.values, whole.valid).tolist()
    assert f.take(pos).column(1).to_pylist() == ["c", "e", "f"]
    assert reduce.by_pack(f, key, vals) is None  # concatenated now: the plain path
    assert reduce.by_pack(f, E("col", 1, [], T.TEXT), vals) is None
    filtered = Frame.of(Stored([Selected(packs[0], np.array([1, 2])), Selected(packs[1], None)],  # type: ignore[arg-type]
                               [T.INT8, T.TEXT], [-1, -1], 2))
    assert reduce.by_pack(filtered, key, vals) is None
