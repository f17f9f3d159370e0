"""The direct API's scan filters as KiVi filter IR (`sql.direct.scan`): typed leaves, and
the key range a filter on the leading primary-key column narrows.

A request's values arrive as JSON scalars and are converted to the column's stored value;
the IR carries the column's type on both leaves, as the binder types a literal compared
with a column, so the node compiles the comparison the SQL path would (`expr.pushed`):
`k = 1.5` on a numeric key compares numerics, not a float against Decimals.
"""

from __future__ import annotations

from decimal import Decimal

from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.sql.catalog.model import Column, Table
from cumulo.server.sql.direct.scan import _narrow, compile_filter
from cumulo.server.sql.dml.writer import prefix_end
from cumulo.server.sql.expr import pushed

NUM = Table(16500, "dn", 2200, (Column("k", 1700, attnum=1), Column("v", 20, attnum=2),
                                Column("s", 25, attnum=3)), primary_key=(1,), space=9)
ICU = Table(16501, "di", 2200, (Column("s", 25, attnum=1, collation="und-x-icu"),),
            primary_key=(1,), space=10)


def test_both_leaves_carry_the_columns_type():
    assert compile_filter(NUM, ["cmp", "=", "k", "1.5"]) == (
        "cmp", "=", ("col", 0, 1700), ("const", Decimal("1.5"), 1700))
    assert compile_filter(NUM, ["cmp", "<", "v", 7]) == (
        "cmp", "<", ("col", 1, 20), ("const", 7, 20))
    assert compile_filter(NUM, ["in", "k", ["2", None]]) == (
        "in", ("col", 0, 1700), [Decimal(2), None])


def test_the_node_compiles_them_as_the_sql_path_would():
    rows = [(Decimal("1.5"), 1, "a"), (Decimal("NaN"), 2, "b"), (Decimal("2"), None, "c")]
    for f, want in ((["cmp", "=", "k", "1.50"], [0]), (["cmp", ">", "k", "1.5"], [1, 2]),
                    (["cmp", "<>", "k", "2"], [0, 1]), (["in", "k", ["2", "1.5"]], [0, 2]),
                    (["not", ["cmp", "<", "v", 2]], [1])):
        assert pushed.positions(compile_filter(NUM, f))(rows, ()) == want, f


def test_the_leading_key_narrows_the_range():
    five = encode_key((Decimal(5),))
    eq = compile_filter(NUM, ["cmp", "=", "k", "5"])
    assert _narrow(NUM, [eq], None, None) == (five, prefix_end(five))
    assert _narrow(NUM, [compile_filter(NUM, ["cmp", ">=", "k", "5"])], None, None) == (
        five, None)
    # not the leading key, not a bound, a NULL: the range stays
    for f in (["cmp", "=", "v", 5], ["cmp", "<>", "k", "5"], ["cmp", "=", "k", None]):
        assert _narrow(NUM, [compile_filter(NUM, f)], None, None) == (None, None), f
    # an ICU column's keys are sort keys, not its values' encoding
    assert _narrow(ICU, [compile_filter(ICU, ["cmp", "=", "s", "x"])], None, None) == (
        None, None)
