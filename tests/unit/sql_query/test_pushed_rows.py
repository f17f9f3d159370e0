"""Pushed filters (`sql.expr.pushed`: the KiVi IR read back as bound expressions and compiled
by `codegen`) agree with a tree-walking three-valued-logic interpreter."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cumulo.server.errors import FeatureNotSupported
from cumulo.server.sql.expr import pushed
from cumulo.server.sql.expr.pushed import positions
from cumulo.server.sql.expr.pushed import rows as keep_rows

# No example database in the repo, no flaky health checks on a loaded CI machine.
PROPS = dict(database=None, suppress_health_check=list(HealthCheck), deadline=None)


def compile_filter(ir):
    """The rows kept, as a function of the rows (no parameters)."""
    fn = keep_rows(ir)
    return lambda batch, params=(): fn(batch, params)


def compile_selector(ir):
    fn = positions(ir)
    return lambda batch, params=(): fn(batch, params)


def ref(e, r):
    """The reference: a direct reading of SQL's rules, one node at a time."""
    k = e[0]
    if k == "col":
        return r[e[1]]
    if k == "const":
        return e[1]
    if k == "cmp":
        a, b = ref(e[2], r), ref(e[3], r)
        if a is None or b is None:
            return None
        return {"=": a == b, "<>": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e[1]]
    if k == "and":
        vals = [ref(x, r) for x in e[1]]
        if False in vals:
            return False
        return None if None in vals else True
    if k == "or":
        vals = [ref(x, r) for x in e[1]]
        if True in vals:
            return True
        return None if None in vals else False
    if k == "not":
        v = ref(e[1], r)
        return None if v is None else not v
    if k == "is_null":
        return ref(e[1], r) is None
    if k == "is_not_null":
        return ref(e[1], r) is not None
    if k == "in":
        v = ref(e[1], r)
        if v is None:
            return None
        if any(v == c for c in e[2] if c is not None):
            return True
        return None if None in e[2] else False
    if k == "like":
        v = ref(e[1], r)
        if v is None:
            return None
        rx = "".join(
            ".*" if c == "%" else "." if c == "_" else re.escape(c) for c in e[2]
        )  # the generated patterns below use no escapes
        return re.fullmatch(rx, v, re.S | (re.I if e[3] else 0)) is not None
    raise AssertionError(e)


ints = st.one_of(st.none(), st.integers(-3, 3))
texts = st.one_of(st.none(), st.sampled_from(["", "a", "ab", "Abc", "b%", "x_y"]))
rows = st.lists(st.tuples(ints, ints, texts, st.one_of(st.none(), st.booleans())), max_size=12)

int_expr = st.one_of(st.sampled_from([("col", 0), ("col", 1)]), ints.map(lambda v: ("const", v)))


def preds(sub):
    return st.one_of(
        st.tuples(st.just("and"), st.lists(sub, max_size=3)),
        st.tuples(st.just("or"), st.lists(sub, max_size=3)),
        st.tuples(st.just("not"), sub),
    )


atom = st.one_of(
    st.tuples(
        st.just("cmp"), st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), int_expr, int_expr
    ),
    st.tuples(
        st.sampled_from(["is_null", "is_not_null"]), st.one_of(int_expr, st.just(("col", 2)))
    ),
    st.tuples(st.just("in"), int_expr, st.lists(ints, max_size=3)),
    st.tuples(
        st.just("like"),
        st.just(("col", 2)),
        st.sampled_from(["a%", "%b%", "_", "", "A_c"]),
        st.booleans(),
    ),
    st.just(("col", 3)),
    st.sampled_from([("const", True), ("const", False), ("const", None)]),
)
pred = st.recursive(atom, preds, max_leaves=8)


@settings(max_examples=200, **PROPS)
@given(pred, rows)
def test_filter_matches_reference(ir, batch):
    expect = [r for r in batch if ref(ir, r) is True]
    assert compile_filter(ir)(batch) == expect
    assert compile_selector(ir)(batch) == [i for i, r in enumerate(batch) if ref(ir, r) is True]


def typed(ir):
    """The tree with its columns typed as the optimizer sends them (ints, text, bool): the
    row code then runs its comparisons in truth mode (`codegen.truth`)."""
    if isinstance(ir, tuple) and ir and ir[0] == "col":
        return ("col", ir[1], (23, 23, 25, 16)[ir[1]])
    if isinstance(ir, tuple):
        return tuple(typed(x) if isinstance(x, tuple | list) else x for x in ir)
    if isinstance(ir, list) and all(isinstance(x, tuple) for x in ir):
        return [typed(x) for x in ir]
    return ir


@settings(max_examples=200, **PROPS)
@given(pred, rows)
def test_typed_filter_matches_reference(ir, batch):
    ir = typed(ir)
    assert compile_selector(ir)(batch) == [i for i, r in enumerate(batch) if ref(ir, r) is True]


def test_null_logic_by_hand():
    rows = [(1, None), (None, None), (2, 2), (None, 3)]
    c0, c1 = ("col", 0), ("col", 1)
    # NOT (a = b) keeps only rows where both are non-null and differ.
    f = compile_filter(("not", ("cmp", "=", c0, c1)))
    assert f(rows) == []
    f = compile_filter(("or", [("cmp", "=", c0, ("const", 1)), ("is_null", c1)]))
    assert f(rows) == [(1, None), (None, None)]
    # x NOT IN (1, NULL) is never TRUE; x IN (1, NULL) is TRUE for 1.
    assert compile_filter(("not", ("in", c0, [1, None])))(rows) == []
    assert compile_filter(("in", c0, [1, None]))(rows) == [(1, None)]
    assert compile_filter(("not", ("in", c0, [1])))(rows) == [(2, 2)]
    for ir in (("not", ("in", c0, [1, None])), ("cmp", "<", c0, ("const", None))):
        assert compile_filter(ir)([(2, 0)]) == compile_filter(("not", ir))([(2, 0)]) == []
    assert compile_filter(("not", ("and", [("const", None), ("const", False)])))([()]) == [()]
    assert compile_filter(("or", [("const", None), ("const", True)]))([()]) == [()]


def test_like_escapes_and_ilike():
    rows = [("100%",), ("100x",), ("a_b",), ("axb",), ("Ab\nc",), (None,)]
    assert compile_filter(("like", ("col", 0), "100\\%", False))(rows) == [("100%",)]
    assert compile_filter(("like", ("col", 0), "a\\_b", False))(rows) == [("a_b",)]
    assert compile_filter(("like", ("col", 0), "a_b", False))(rows) == [("a_b",), ("axb",)]
    assert compile_filter(("like", ("col", 0), "ab%", True))(rows) == [("Ab\nc",)]
    assert compile_filter(("not", ("like", ("col", 0), "a%", False)))(rows) == [
        ("100%",),
        ("100x",),
        ("Ab\nc",),
    ]
    assert compile_filter(("like", ("col", 0), "a.b*", False))([("a.b*",), ("axbb",)]) == [
        ("a.b*",)]


def test_constants_of_other_types():
    rows = [(Decimal("1.5"), float("inf")), (Decimal("3"), 1.0)]
    ir = (
        "and",
        [
            ("cmp", ">", ("col", 0), ("const", Decimal("2"))),
            ("cmp", "<", ("col", 1), ("const", float("inf"))),
        ],
    )
    assert compile_filter(ir)(rows) == [(Decimal("3"), 1.0)]


def test_cache_by_shape_and_lists_from_msgpack():
    ir = ("cmp", "=", ("col", 0), ("const", 1))
    compile_filter(ir)
    cached = len(pushed._shapes)
    for v in range(2, 50):  # another constant: the same shape, no new code
        assert compile_filter(("cmp", "=", ("col", 0), ("const", v)))([(v,), (1,)]) == [(v,)]
    assert len(pushed._shapes) == cached
    assert compile_filter(("cmp", "=", ("col", 0), ("const", None)))([(None,), (1,)]) == []
    assert compile_filter(("in", ("col", 0), ["const", 1]))([("const",), (1,), (2,)]) == [
        ("const",), (1,)]  # NB: IN values are raw, even when they look like a tree
    as_lists = ["and", [["cmp", "=", ["col", 0], ["const", 1]], ["is_not_null", ["col", 1]]]]
    assert compile_filter(as_lists)([(1, 2), (1, None), (2, 2)]) == [(1, 2)]


def test_parameters_and_constants_share_the_slots():
    ir = ("and", [("cmp", ">", ("col", 0, 23), ("param", 2, 23)),
                  ("cmp", "<", ("col", 0, 23), ("const", 9, 23))])
    sel = positions(ir)
    batch = [(1,), (4,), (8,), (9,), (None,)]
    assert sel(batch, [None, 3]) == [1, 2]
    assert sel(batch, ["unused", 7]) == [2]
    assert sel(batch, [None, None]) == []


def test_rejects_unknown():
    with pytest.raises(FeatureNotSupported):
        compile_filter(("cmp", "~~", ("col", 0), ("const", 1)))
    with pytest.raises(FeatureNotSupported):
        compile_filter(("frob", 1))


def test_nan_orders_above_numbers_as_in_postgres():
    nan = Decimal("NaN")
    rows = [(Decimal("1"),), (nan,), (None,), (Decimal("5"),)]
    assert compile_filter(("cmp", ">", ("col", 0), ("const", Decimal("2"))))(rows) == [
        (nan,),
        (Decimal("5"),),
    ]
    assert compile_filter(("cmp", "=", ("col", 0), ("const", nan)))(rows) == [(nan,)]
    assert compile_filter(("not", ("cmp", "<", ("col", 0), ("const", Decimal(3)))))(rows) == [
        (nan,),
        (Decimal("5"),),
    ]
    frows = [(1.0,), (float("nan"),), (float("inf"),)]
    got = compile_filter(("cmp", ">=", ("col", 0), ("const", float("nan"))))(frows)
    assert len(got) == 1 and got[0][0] != got[0][0]
    assert compile_filter(("cmp", "<", ("const", float("inf")), ("const", float("nan"))))([()])
    # a NaN parameter (typed by the optimizer) is NaN-aware too
    sel = positions(("cmp", "<", ("col", 0, 1700), ("param", 1, 1700)))
    assert sel(rows, [nan]) == [0, 3] and sel(rows, [Decimal(2)]) == [0]
