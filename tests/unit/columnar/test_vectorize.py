"""Vector code equals row code: every predicate compiled by `expr.vectorize` selects exactly the
rows `codegen.filter_function` keeps, over seeded random packs with NULLs, NaN, +-Infinity,
numerics of one scale, strings and dates (or falls back, never answering differently)."""

from __future__ import annotations

import datetime as dt
import math
import random
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cumulo.server.kivi.columnar import encode
from cumulo.server.pgtypes import oids as T
from cumulo.server.sql.expr import codegen as cg
from cumulo.server.sql.expr.bound import E, col, const
from cumulo.server.sql.expr.vectorize import Fallback, filter_mask

TYPES = [T.INT4, T.FLOAT8, T.NUMERIC, T.TEXT, T.DATE, T.INT8]


def value(rnd: random.Random, j: int) -> Any:
    if rnd.random() < 0.15:
        return None
    if j == 0:
        return rnd.randrange(-5, 6)
    if j == 1:
        return rnd.choice([rnd.uniform(-3, 3), math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0])
    if j == 2:
        return Decimal(rnd.randrange(-500, 500)).scaleb(-2)
    if j == 3:
        return rnd.choice(["", "a", "ab", "b", "B", "é", "abc", "zz"])
    if j == 4:
        return dt.date(2020, 1, 1) + dt.timedelta(days=rnd.randrange(0, 10))
    return rnd.randrange(-2**40, 2**40)


CONSTS = {
    0: [0, 3, -5, 10],
    1: [0.0, 1.5, math.nan, math.inf, -math.inf],
    2: [Decimal("0.00"), Decimal("1.5"), Decimal("-2.25"), Decimal("0.125"), Decimal("NaN")],
    3: ["a", "ab", "", "b", "zzz"],
    4: [dt.date(2020, 1, 3), dt.date(2019, 12, 31)],
    5: [0, 2**39],
}


def random_pred(rnd: random.Random, depth: int = 0) -> E:
    r = rnd.random()
    if depth < 2 and r < 0.3:
        kind = rnd.choice(["and", "or"])
        return E(kind, None, [random_pred(rnd, depth + 1) for _ in range(rnd.randrange(2, 4))],
                 T.BOOL)
    if depth < 2 and r < 0.38:
        return E("not", None, [random_pred(rnd, depth + 1)], T.BOOL)
    j = rnd.randrange(len(TYPES))
    c = col(j, TYPES[j])
    if r < 0.48:
        return E(rnd.choice(["isnull", "notnull"]), None, [c], T.BOOL)
    if r < 0.55 and j in (0, 3, 5):
        items = [const(v, TYPES[j]) for v in rnd.sample(CONSTS[j], 2)]
        if rnd.random() < 0.3:
            items.append(const(None, TYPES[j]))
        return E("in_list", rnd.random() < 0.3, [c, *items], T.BOOL)
    if r < 0.6 and j == 3:
        return E("like", (rnd.random() < 0.3, rnd.random() < 0.3),
                 [c, const(rnd.choice(["a%", "%b", "_", "%"]), T.TEXT)], T.BOOL)
    op = rnd.choice(["=", "<>", "<", "<=", ">", ">="])
    other = const(rnd.choice(CONSTS[j] + [None]), TYPES[j])
    if rnd.random() < 0.2 and j in (0, 1, 5):  # column against column
        k = rnd.choice([0, 5]) if j != 1 else 1
        other = col(k, TYPES[k])
    args = [c, other] if rnd.random() < 0.7 else [other, c]
    return E("op", op, args, T.BOOL)


@pytest.mark.parametrize("seed", range(40))
def test_vector_filter_equals_row_filter(seed: int) -> None:
    rnd = random.Random(seed)
    n = 200
    rows = [tuple(value(rnd, j) for j in range(len(TYPES))) for _ in range(n)]
    cols = {j: encode([r[j] for r in rows]) for j in range(len(TYPES))}
    ctx = SimpleNamespace(params=[])
    for _ in range(15):
        pred = random_pred(rnd)
        want = cg.filter_function(pred)(rows, ctx)
        try:
            mask = filter_mask(pred)(cols.__getitem__, ctx)
        except Fallback:
            continue
        mask = np.ones(n, bool) if mask is None else mask
        got = [rows[i] for i in np.flatnonzero(mask)] if len(mask) else []
        assert repr(got) == repr(want), pred


def test_parameters_bind_at_each_execution() -> None:
    f = filter_mask(E("op", "<", [col(0, T.INT4), E("param", 1, [], T.INT4)], T.BOOL))
    c = encode([1, 2, 3, None])
    assert f(lambda j: c, SimpleNamespace(params=[3])).tolist() == [True, True, False, False]
    assert f(lambda j: c, SimpleNamespace(params=[2])).tolist() == [True, False, False, False]


def test_subtrees_of_parameters_and_constants_are_one_value_per_execution() -> None:
    """The simple protocol makes `l_quantity <= 1 + 10` into `l_quantity <= $1 + $2` (TPC-H
    Q19): such a column-free subtree is computed once by the row code, as a constant,
    instead of sending the whole statement to the row path; its error (a division by zero)
    hands the statement to the row plan, which raises it."""
    p1, p2 = E("param", 1, [], T.INT4), E("param", 2, [], T.INT4)
    bound = E("op", "+", [p1, p2], T.INT4)
    f = filter_mask(E("op", "<=", [col(0, T.INT4), bound], T.BOOL))
    c = encode([1, 5, 11, 12, None])
    assert f(lambda j: c, SimpleNamespace(params=[1, 10])).tolist() == \
        [True, True, True, False, False]
    assert f(lambda j: c, SimpleNamespace(params=[1, 3])).tolist() == \
        [True, False, False, False, False]
    null = filter_mask(E("op", "<=", [col(0, T.INT4), E("op", "+", [p1, const(None, T.INT4)],
                                                          T.INT4)], T.BOOL))
    assert not null(lambda j: c, SimpleNamespace(params=[1])).any()
    div = filter_mask(E("op", "<=", [col(0, T.INT4), E("op", "/", [p1, p2], T.INT4)], T.BOOL))
    assert div(lambda j: c, SimpleNamespace(params=[20, 2])).tolist() == \
        [True, True, False, False, False]
    with pytest.raises(Fallback):
        div(lambda j: c, SimpleNamespace(params=[1, 0]))


def test_integer_and_numeric_columns_compare_exactly_at_the_larger_scale() -> None:
    """`ol_quantity < t.a` (an integer against an AVG's numeric, CH-benCHmark Q17) and two
    numerics of different scales compare as the row code does, NULLs included."""
    ints = [1, 2, 3, None, -4, 10**12]
    decs = [Decimal("1.5"), Decimal("2.0"), Decimal("2.9"), Decimal("1.0"), None,
            Decimal("1000000000000.0")]
    other = [Decimal("1.50"), Decimal("1.99"), Decimal("3.00"), None, Decimal("-4.00"),
             Decimal("0.01")]
    rows = list(zip(ints, decs, other, strict=True))
    cols = {0: encode(ints), 1: encode(decs), 2: encode(other)}
    assert (cols[0].kind, cols[1].kind, cols[2].kind) == ("i8", "dec", "dec")
    ctx = SimpleNamespace(params=[])
    for op in ["=", "<>", "<", "<=", ">", ">="]:
        for a, b, ta, tb in ((0, 1, T.INT8, T.NUMERIC), (1, 0, T.NUMERIC, T.INT8),
                             (1, 2, T.NUMERIC, T.NUMERIC), (0, 2, T.INT8, T.NUMERIC)):
            pred = E("op", op, [col(a, ta), col(b, tb)], T.BOOL)
            want = cg.filter_function(pred)(rows, ctx)
            mask = filter_mask(pred)(cols.__getitem__, ctx)
            assert [rows[i] for i in np.flatnonzero(mask)] == want, (op, a, b)
