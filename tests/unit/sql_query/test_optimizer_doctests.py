"""Doctests of the optimizer rules: each shows a query's plan before and after its rule."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.optimizer import (
    columnar,
    doctest_plans,
    expr_index,
    index_lookup,
    join_algorithm,
    join_order,
    merge_projects,
    minmax_ends,
    point_get,
    prune_columns,
    push_aggregate,
    push_limit,
    push_projection,
    pushdown_join_filters,
    semijoin,
)


@pytest.mark.parametrize("module", [doctest_plans, columnar, expr_index, index_lookup,
                                    join_algorithm, join_order, merge_projects, minmax_ends,
                                    point_get,
                                    prune_columns, push_aggregate, push_limit, push_projection,
                                    pushdown_join_filters, semijoin],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
