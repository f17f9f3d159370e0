"""The examples in the DDL name and dependency helpers' docstrings hold."""

import doctest

import pytest

from cumulo.server.sql.ddl import depends, names, typealter


@pytest.mark.parametrize("module", [depends, names, typealter], ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_doctests(module) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
