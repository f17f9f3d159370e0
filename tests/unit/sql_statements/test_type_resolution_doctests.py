"""Doctests of the type-resolution modules (set operations, column names, `(x).*`, SQL
function result shapes, untyped parameters)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.expr import colnames, commontype
from cumulo.server.sql.plan import fieldstar, paramcheck, setoptyping
from cumulo.server.sql.plpgsql import results


@pytest.mark.parametrize("module", [commontype, colnames, setoptyping, fieldstar, paramcheck,
                                    results])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
