"""The doctests of enum_in's label check and record_in's field split (a no-column `()`)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import enums, records


@pytest.mark.parametrize("module", [enums, records])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
