"""Doctests of pg_trgm's and unaccent's functions (CREATE EXTENSION pg_trgm / unaccent)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.functions import trgmfns, unaccentfns


@pytest.mark.parametrize("module", [trgmfns, unaccentfns])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed
