"""Doctests of the small SQL-front modules (FROM names, and the others added beside it)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import infdate, network, numlimits, numtypmod, records, utf8check
from cumulo.server.sql import (
    copyencoding,
    errpos,
    mergesyntax,
    parse,
    prepstmts,
    statement,
    usingalias,
)
from cumulo.server.sql.ddl import altersplit, depends
from cumulo.server.sql.dml import exclpending
from cumulo.server.sql.expr import (
    constfold,
    fuzzycols,
    setoptypes,
    specialforms,
    userexprs,
    wholerow,
)
from cumulo.server.sql.pgcatalog import accessmethods
from cumulo.server.sql.plan import fromnames, joinusing, nullmark, paramcheck
from cumulo.server.sql.plpgsql import functions as plpgsql_functions
from cumulo.server.sql.privileges import acl, defaults


@pytest.mark.parametrize("module", [fromnames, utf8check, copyencoding, numtypmod, network,
                                    acl, defaults, depends, infdate, records, wholerow,
                                    nullmark, statement, setoptypes, parse, errpos,
                                    accessmethods, plpgsql_functions, constfold, numlimits,
                                    prepstmts, paramcheck, joinusing, usingalias,
                                    altersplit, mergesyntax, fuzzycols, exclpending,
                                    specialforms, userexprs])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
