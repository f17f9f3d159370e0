"""The examples in the DDL name and dependency helpers' docstrings hold (and in those of
the text helpers DDL reads its clauses with)."""

import doctest

import pytest

from cumulo.server.sql import toplevel
from cumulo.server.sql.ddl import depends, names


@pytest.mark.parametrize("module", [depends, names, toplevel],
                         ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_doctests(module) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
