"""Pushed filters bound to parameters: one tree per plan node and parameter values
(`exec.scan.bound_ir`), compiled once per tree object by KiVi (`kivi.expr`)."""

from __future__ import annotations

from cumulo.server.kivi.expr import compile_selector
from cumulo.server.sql.exec.scan import bound_ir


class Node:
    """A scan node's stand-in: weak-referenceable (the compiled cache), with a pushed filter."""

    def __init__(self, ir):
        self.ir = ir


class Ctx:
    def __init__(self, params):
        self.params = params


def test_one_bound_tree_per_parameter_values():
    node = Node(("and", [("cmp", "<", ("col", 0), ("param", 2)), ("is_not_null", ("col", 1))]))
    five = bound_ir(node, Ctx([9, 5]))
    assert five == ("and", [("cmp", "<", ("col", 0), ("const", 5)), ("is_not_null", ("col", 1))])
    assert bound_ir(node, Ctx([8, 5])) is five  # $1 is not read by the filter
    assert bound_ir(node, Ctx([9, 6]))[1][0][3] == ("const", 6)
    assert bound_ir(node, Ctx([9, 5])) is five
    assert bound_ir(node, Ctx([9, True]))[1][0][3] == ("const", True)  # 1 == True: typed keys
    listed = bound_ir(node, Ctx([9, [1, 2]]))  # an array value: bound, not kept
    assert listed[1][0][3] == ("const", [1, 2]) and bound_ir(node, Ctx([9, [1, 2]])) is not listed


def test_filter_without_parameters_is_bound_once():
    node = Node(("cmp", "=", ("col", 1), ("const", 3)))
    assert bound_ir(node, Ctx([])) is bound_ir(node, Ctx([7]))


def test_kivi_compiles_a_tree_object_once():
    tree = ("cmp", ">", ("col", 0), ("const", 2))
    select = compile_selector(tree)
    assert compile_selector(tree) is select
    assert select([(1,), (3,), (None,), (5,)]) == [1, 3]
    assert compile_selector(("cmp", ">", ("col", 0), ("const", 4)))([(3,), (5,)]) == [1]
