"""The doctests of the hstore and full-text search modules (their examples are PostgreSQL 15's
own outputs: canonical hstore and tsvector text, tsquery parentheses, ranks, headlines)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import hstore, tsearch, tsrank
from cumulo.server.sql.functions import tsheadline, tsparser


@pytest.mark.parametrize("module", [hstore, tsearch, tsrank, tsparser, tsheadline],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
