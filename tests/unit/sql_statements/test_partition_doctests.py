"""The doctests of the declarative partitioning modules (bounds, PostgreSQL's hash, keys
tagged with their partition, ATTACH's syntax and relayout)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.sql.ddl import attach, relayout
from cumulo.server.sql.dml import partrouter
from cumulo.server.sql.partitions import bounds, hashing


@pytest.mark.parametrize("module", [bounds, hashing, partrouter, attach, relayout],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted and not result.failed
