"""Pushed filters keep their parameter slots: the scan sends its plan node's tree with
the execution's values beside it (`exec.scan.filter_params`), and the node compiles a
shape once (`expr.pushed`, through `kivi.filters`), whatever the values."""

from __future__ import annotations

from decimal import Decimal

from cumulo.server.kivi.filters import positions as compile_selector
from cumulo.server.sql.exec.scan import filter_params


class Node:
    """A scan node's stand-in: weak-referenceable (the compiled cache), with a pushed filter."""

    def __init__(self, ir):
        self.ir = ir


class Ctx:
    def __init__(self, params):
        self.params = params


def test_only_the_values_the_filter_reads_are_sent():
    node = Node(("and", [("cmp", "<", ("col", 0), ("param", 2)), ("is_not_null", ("col", 1))]))
    assert filter_params(node, Ctx([[1, 2], 5])) == [None, 5]  # $1 (an array) stays behind
    both = Node(("cmp", "<", ("param", 1), ("param", 2)))
    values = [3, 4]
    assert filter_params(both, Ctx(values)) is values
    assert filter_params(Node(("cmp", "=", ("col", 1), ("const", 3))), Ctx([7])) == ()


def test_kivi_compiles_a_tree_once_for_every_value():
    tree = ("cmp", ">", ("col", 0), ("param", 1))
    select = compile_selector(tree)
    rows = [(1,), (3,), (None,), (5,)]
    assert select(rows, [2]) == [1, 3]
    assert select(rows, [4]) == [3]
    assert select(rows, [None]) == []  # NULL compares to nothing


def test_a_nan_parameter_takes_the_nan_aware_comparisons():
    # PostgreSQL orders NaN above every number and equal to itself
    tree = ("cmp", "<", ("col", 0, 1700), ("param", 1, 1700))  # numeric: typed by the optimizer
    rows = [(Decimal(1),), (Decimal("NaN"),), (None,)]
    assert compile_selector(tree)(rows, [Decimal("NaN")]) == [0]
    ge = ("cmp", ">=", ("col", 0, 1700), ("param", 1, 1700))
    assert compile_selector(ge)(rows, [Decimal("NaN")]) == [1]
    assert compile_selector(tree)(rows, [Decimal(2)]) == [0]
