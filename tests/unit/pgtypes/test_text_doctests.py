"""The doctests of the text-form input module (PostgreSQL 15's readings of timestamps and
integers, on the fast path and the general one)."""

from __future__ import annotations

import doctest

from cumulo.server.pgtypes import text


def test_doctests():
    result = doctest.testmod(text)
    assert result.attempted > 0 and result.failed == 0
