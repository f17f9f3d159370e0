"""Doctests of the PL/pgSQL and SQL-function modules: compile options, PL/pgSQL's
assignment conversion, variable/column conflicts and which SQL function calls PostgreSQL
inlines (their error CONTEXT)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.expr import udf, udfinline
from cumulo.server.sql.plpgsql import assigncast, conflicts, parser


@pytest.mark.parametrize("module", [assigncast, conflicts, parser, udf, udfinline])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
