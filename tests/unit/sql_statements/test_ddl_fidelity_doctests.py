"""Doctests of the DDL fidelity modules: UNLOGGED / TABLESPACE / access method checks,
index storage parameters, ALTER TABLE's physical actions and the reg* literal memo."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.catalog import indexoptions
from cumulo.server.sql.ddl import persistence, physical
from cumulo.server.sql.plan import regresolver


@pytest.mark.parametrize("module", [indexoptions, persistence, physical, regresolver])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
