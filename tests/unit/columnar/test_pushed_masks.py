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
