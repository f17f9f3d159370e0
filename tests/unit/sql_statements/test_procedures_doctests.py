"""Doctests of the procedure modules: CALL's argument splitting, a procedure's shape,
BEGIN ATOMIC bodies and CREATE SCHEMA's elements."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.ddl import schemastmt
from cumulo.server.sql.plpgsql import procedures, procshape


@pytest.mark.parametrize("module", [procedures, procshape, schemastmt])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
