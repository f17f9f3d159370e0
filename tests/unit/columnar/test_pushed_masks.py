"""Pushed filters as vector code over a node's columnar copy (`sql.expr.pushed.mask`: the
KiVi IR compiled by `expr.vectorize`, run by the node through `kivi.filters`).

The row code (`sql.expr.pushed.rows`, `codegen`) is the reference: for every filter here,
the rows the mask selects must be exactly the rows the row code keeps, and a node's
filtered pushed aggregate (which runs on the columnar copy) must equal the aggregate
folded from the filtered rows. NULLs everywhere, three-valued NOT, IN with a NULL, text
compared through dictionary codes, decimals on and off the scale, NaN.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import numpy as np
import pytest

from cumulo.server.kivi.agg import merge_partials, partial_aggregate
from cumulo.server.kivi.api import AggSpec, Apply, Scan, Write
from cumulo.server.kivi.columnar.aggregate import Unsafe
from cumulo.server.kivi.columnar.encode import encode
from cumulo.server.kivi.filters import selected
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.sql.expr import pushed

SPACE = 5
N = 3000


def _row(i: int, rng: random.Random) -> tuple:
    def maybe(v):
        return None if rng.random() < 0.1 else v

    return (i, maybe(rng.randrange(7)), maybe(rng.uniform(-50, 50)),
            Decimal("12.34") if i % 50 == 0 else maybe(Decimal(rng.randrange(-10000, 10000))
                                                         .scaleb(-2)),
            maybe(rng.choice(["apple", "banana", "cherry", "date", "élan", "Zed"])),
            maybe(dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(60))),
            maybe(dt.datetime(2024, 1, 1, 12) + dt.timedelta(minutes=rng.randrange(5000))))


@pytest.fixture(scope="module")
def node():
    rng = random.Random(42)
    n = KiviNode()
    n.apply(Apply(1, [Write(SPACE, encode_key((i,)), _row(i, rng)) for i in range(N)]))
    n.apply(Apply(2, [Write(SPACE, encode_key((i,)), _row(i, rng)) for i in range(0, N, 3)]))
    n.apply(Apply(3, [Write(SPACE, encode_key((i,)), None) for i in range(0, N, 11)]))
    return n


TYPES = (20, 20, 701, 1700, 25, 1082, 1114)  # the columns' SQL types, as the optimizer sends them


def c(i):
    return ("col", i, TYPES[i])


def k(v):
    return ("const", v)


FILTERS = [
    ("cmp", ">", c(1), k(3)),
    ("cmp", "<=", k(3), c(1)),  # constant first
    ("or", [("cmp", "=", c(1), k(None)), ("cmp", "=", c(1), k(2))]),  # NULL or x
    ("cmp", "<", c(2), k(0.5)),
    ("cmp", ">=", c(2), k(-10)),
    ("cmp", "=", c(3), k(Decimal("12.34"))),
    ("cmp", ">", c(3), k(Decimal("0"))),
    ("cmp", "<>", c(4), k("cherry")),
    ("cmp", "<", c(4), k("c")),  # not in the dictionary
    ("cmp", ">=", c(4), k("date")),
    ("cmp", "<=", c(4), k("zzz")),
    ("not", ("cmp", "=", c(4), k("nope"))),  # not in the dictionary: every non-NULL
    ("cmp", ">", c(5), k(dt.date(2024, 2, 1))),
    ("cmp", "<", c(6), k(dt.datetime(2024, 1, 3, 8, 30))),
    ("is_null", c(4)),
    ("is_not_null", c(3)),
    ("in", c(1), [1, 4, 6]),
    ("in", c(4), ["apple", "Zed", None]),
    ("not", ("in", c(4), ["apple", None])),
    ("not", ("in", c(4), ["apple", "Zed"])),
    ("not", ("cmp", ">", c(1), k(3))),
    ("and", [("cmp", ">", c(1), k(1)), ("cmp", "<", c(2), k(10)), ("is_not_null", c(4))]),
    ("or", [("cmp", "=", c(1), k(2)), ("cmp", "=", c(4), k("banana"))]),
    ("not", ("or", [("cmp", "=", c(1), k(2)), ("is_null", c(5))])),
    ("not", ("and", [("cmp", ">", c(2), k(0)), ("cmp", "<", c(3), k(Decimal("5")))])),
]
SPECS = [
    AggSpec((), (("count_star", None), ("sum", 1), ("min", 4), ("max", 3))),
    AggSpec((1,), (("count_star", None), ("count", 2), ("sum", 3))),
    AggSpec((4,), (("count", 1), ("min", 5), ("max", 6))),
]


def _norm(rows):
    out = []
    for r in rows:
        out.append(tuple(round(v, 6) if isinstance(v, float) else v for v in r))
    return sorted(out, key=repr)


def compile_filter(ir):
    fn = pushed.rows(ir)
    return lambda batch: fn(batch, ())


def _visible_rows(node):
    return [r for b in node.scan(Scan(SPACE, 10, batch_size=10**6)).rows for r in [b]]


@pytest.mark.parametrize("ir", FILTERS, ids=range(len(FILTERS)))
def test_mask_selects_what_the_row_filter_keeps(node, ir):
    vector = pushed.mask(ir)
    assert vector is not None
    (snap,) = node.columnar(SPACE, 10)
    got = [snap_row for sel in selected(snap, vector, ()) for snap_row in
           (sel.pack.rows[i] for i in sel.idx.tolist())]
    want = compile_filter(ir)(_visible_rows(node))
    assert sorted(got) == sorted(want)
    assert len(want) < len(_visible_rows(node))  # every filter here drops something
    if ir[0] != "not" or ir[1][0] != "in" or None not in ir[1][2]:
        assert want  # and keeps something (but NOT IN (..., NULL), which keeps nothing)


@pytest.mark.parametrize("spec", SPECS, ids=range(len(SPECS)))
@pytest.mark.parametrize("ir", FILTERS[::3], ids=range(len(FILTERS[::3])))
def test_node_filtered_aggregate_equals_the_row_fold(node, ir, spec):
    rows = compile_filter(ir)(_visible_rows(node))
    want = merge_partials(spec, partial_aggregate(spec, [rows]))
    got = node.scan(Scan(SPACE, 10, filter=ir, aggregate=spec)).rows
    assert _norm(got) == _norm(want)


def test_what_the_kernels_cannot_decide_is_left_to_the_row_code():
    cols = {0: encode([1.0, float("nan"), None]), 1: encode([Decimal("1.25"), Decimal("2.50"),
                                                             None]),
            2: encode([1, 2, None]), 3: encode(["a", "b", None])}
    rows = list(zip(*([cols[j].to_pylist(None) for j in range(4)] if False else
                      [[1.0, float("nan"), None], [Decimal("1.25"), Decimal("2.50"), None],
                       [1, 2, None], ["a", "b", None]]), strict=True))
    for ir in (("cmp", "<", c(0), k(1.5)),  # NaN in the column: above every number
               ("cmp", ">", c(0), k(float("nan"))),
               ("cmp", "=", c(1), k(Decimal("1.255"))),  # off the scale
               ("cmp", "=", c(1), k(Decimal("2.5"))),
               ("cmp", "=", c(2), k("1")),  # text against integers
               ("like", c(3), "a%", False),
               ("cmp", "<", c(2), c(1))):
        want = [i for i, r in enumerate(rows) if r in compile_filter(ir)(rows)]
        vector = pushed.mask(ir)
        if vector is None:
            continue  # no vector form: the node folds rows
        try:
            got = vector(cols.__getitem__, 3, ())
        except Unsafe:
            continue  # the node folds rows
        assert isinstance(got, np.ndarray) and np.flatnonzero(got).tolist() == want, ir


def test_parameters_travel_beside_the_filter(node):
    ir = ("cmp", ">", ("col", 1, 23), ("param", 1, 23))
    spec = SPECS[0]
    for v in (0, 3, 5):
        rows = pushed.rows(ir)(_visible_rows(node), [v])
        want = merge_partials(spec, partial_aggregate(spec, [rows]))
        got = node.scan(Scan(SPACE, 10, filter=ir, aggregate=spec, params=[v])).rows
        assert _norm(got) == _norm(want)
        assert node.scan(Scan(SPACE, 10, filter=ir, params=[v], batch_size=10**6)).rows == rows


def test_a_filter_that_keeps_nothing_gives_the_empty_aggregate(node):
    nothing = ("cmp", ">", c(1), k(100))
    assert node.scan(Scan(SPACE, 10, filter=nothing, aggregate=SPECS[0])).rows == [
        (0, None, None, None)]
    assert node.scan(Scan(SPACE, 10, filter=nothing, aggregate=SPECS[1])).rows == []


# Integer, numeric and float columns against constants and parameters at the edges of
# int64, of float precision and of the numeric scale: `bigint_key = 9223372036854775808`
# (a numeric parameter of the cached plan) once found the int8 maximum in the vector code,
# because 2**63 compared as a float. Each value as a constant and as a parameter, typed
# as the optimizer types it.
_EDGE_INTS = [-2**63, -2**63 + 1, -2**53 - 1, -1, 0, 1, 2**31 - 1, 2**53, 2**53 + 1,
              2**63 - 1, None]
_EDGE_COLUMNS = [
    (20, _EDGE_INTS),
    (23, [-2**31, -1, 0, 7, 2**31 - 1, None]),
    (1700, [Decimal("-92233720368547758.08"), Decimal("-0.01"), Decimal("0"), Decimal("0.50"),
            Decimal("92233720368547758.07"), Decimal("NaN"), None]),
    (701, [float("-inf"), -1.5, 0.0, 2.0**53, 9.223372036854776e18, float("inf"), None]),
]
_EDGE_VALUES = [2**63, 2**63 - 1, -2**63, -2**63 - 1, 2**64, -2**64, 2**53 + 1, 0,
                Decimal(2**63), Decimal(-2**63 - 1), Decimal("9223372036854775807.5"),
                Decimal("-9223372036854775808.5"), Decimal("1e30"), Decimal("-1e30"),
                Decimal("0.5"), Decimal("0.005"), Decimal("NaN"), Decimal("Infinity"),
                Decimal("-Infinity"), 9.223372036854776e18, 1e30, -1e30, 0.5, float("nan"),
                float("inf")]


def _typed(v):
    """The type the optimizer gives a literal: int8 within range, numeric past it."""
    if isinstance(v, float):
        return 701
    if isinstance(v, int) and -2**63 <= v < 2**63:
        return 20
    return 1700


@pytest.mark.parametrize("col_type,values", _EDGE_COLUMNS, ids=lambda x: str(x)[:8])
def test_masks_agree_with_the_row_code_at_the_edges_of_int64(col_type, values):
    column = encode(values)
    rows = [(v,) for v in values]
    decided = 0
    for v in _EDGE_VALUES:
        if (col_type == 701) != isinstance(v, float):
            continue  # NB: the binder casts the other side to float8 (int_vs_float)
        t = _typed(v)
        for op in ("=", "<>", "<", "<=", ">", ">="):
            for leaf, params in ((("const", v, t), ()), (("param", 1, t), [v])):
                ir = ("cmp", op, ("col", 0, col_type), leaf)
                want = pushed.positions(ir)(rows, params)
                vector = pushed.mask(ir)
                assert vector is not None, ir
                try:
                    got = np.flatnonzero(vector(lambda j: column, len(rows), params)).tolist()
                except Unsafe:
                    continue  # the node folds these rows with the row code
                assert got == want, (ir, v)
                decided += 1
        if col_type in (20, 23) and not (isinstance(v, Decimal) and v.is_nan()) and \
                not -2**63 <= v < 2**63:
            ir = ("cmp", "=", ("col", 0, col_type), ("param", 1, t))
            assert pushed.positions(ir)(rows, [v]) == []  # nothing equals a value past int64
    for v in [x for x in _EDGE_VALUES if isinstance(x, int) and col_type != 701]:
        ir = ("in", ("col", 0, col_type), [v, 5])
        want = pushed.positions(ir)(rows, ())
        try:
            got = np.flatnonzero(pushed.mask(ir)(lambda j: column, len(rows), ())).tolist()
        except Unsafe:
            continue
        assert got == want, ir
    assert decided > 50  # NB: the kernels decided most of these, not the fallback
