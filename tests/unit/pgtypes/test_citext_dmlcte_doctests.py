"""The doctests of citext's value type (case-folded equality, hash and order; the folding is
ASCII-only, as PostgreSQL 15's C locale) and of the data-modifying WITH analyser's checks."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import citext
from cumulo.server.sql.dml import ctedml


@pytest.mark.parametrize("module", [citext, ctedml], ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
