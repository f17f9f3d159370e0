"""Doctests of pg_trgm's and unaccent's functions and of cast bounds (Django's contrib.postgres)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql import castsizes
from cumulo.server.sql.functions import trgmfns, unaccentfns


@pytest.mark.parametrize("module", [trgmfns, unaccentfns])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_cast_bounds_doctests():
    """Bounds in a cast's array type are dropped before parsing (sql.castsizes)."""
    result = doctest.testmod(castsizes)
    assert result.attempted and not result.failed
