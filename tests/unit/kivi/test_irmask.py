"""Pushed filters as numpy masks over a node's columnar copy (`kivi.columnar.irmask`).

The row filter (`kivi.expr.compile_filter`) is the reference: for every filter here,
the rows the mask selects must be exactly the rows the row filter keeps, and a node's
filtered pushed aggregate (which now runs on the columnar copy) must equal the
aggregate folded from the filtered rows. NULLs everywhere, three-valued NOT, IN with
a NULL, text compared through dictionary codes, decimals on and off the scale.
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
from cumulo.server.kivi.columnar.irmask import mask, selected, vectorizable
from cumulo.server.kivi.expr import compile_filter
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode

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


def c(i):
    return ("col", i)


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


def _visible_rows(node):
    return [r for b in node.scan(Scan(SPACE, 10, batch_size=10**6)).rows for r in [b]]


@pytest.mark.parametrize("ir", FILTERS, ids=range(len(FILTERS)))
def test_mask_selects_what_the_row_filter_keeps(node, ir):
    assert vectorizable(ir)
    (snap,) = node.columnar(SPACE, 10)
    got = [snap_row for sel in selected(snap, ir) for snap_row in
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


def test_what_is_not_vectorized():
    assert not vectorizable(("like", c(4), "a%", False))
    assert not vectorizable(("cmp", "<", c(1), c(2)))
    assert not vectorizable(("and", [("cmp", "<", c(1), k(2)), ("like", c(4), "a%", False)]))
    from cumulo.server.kivi.columnar.encode import encode

    cols = {0: encode([1.0, float("nan")]), 1: encode([Decimal("1.25"), Decimal("2.50")]),
            2: encode([1, 2])}
    for ir in (("cmp", "<", c(0), k(1.0)),  # NaN in the column
               ("cmp", "=", c(1), k(Decimal("1.255"))),  # off the scale
               ("cmp", "=", c(2), k("1")),  # text against integers
               ("cmp", "=", c(2), k(True))):  # a boolean constant
        with pytest.raises(Unsafe):
            mask(ir, cols.__getitem__, 2)
    ok = mask(("cmp", "=", c(1), k(Decimal("2.5"))), cols.__getitem__, 2)
    assert isinstance(ok, np.ndarray) and ok.tolist() == [False, True]


def test_a_filter_that_keeps_nothing_gives_the_empty_aggregate(node):
    nothing = ("cmp", ">", c(1), k(100))
    assert node.scan(Scan(SPACE, 10, filter=nothing, aggregate=SPECS[0])).rows == [
        (0, None, None, None)]
    assert node.scan(Scan(SPACE, 10, filter=nothing, aggregate=SPECS[1])).rows == []
