"""Doctests of the extension syntax respelling, tsquery's btree key and ts_rewrite (no server)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import pghash, tsqorder, tsrewrite
from cumulo.server.sql import extsyntax
from cumulo.server.sql.functions import tswebsearch


@pytest.mark.parametrize("module", [extsyntax, pghash, tsqorder, tsrewrite, tswebsearch])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_respelling_leaves_quoted_text_and_other_operators_alone():
    """Only hstore's and tsquery's own operators and delete( change; JSON's #> #>> #- stay."""
    sql = "select j #> '{a}', j #>> '{a}', j #- '{a}', 'x #= y', \"%%\", $q$!!$q$ -- #=\n"
    assert extsyntax.rewrite(sql) == sql
    assert extsyntax.rewrite("delete from t where a = 1") == "delete from t where a = 1"
    assert extsyntax.rewrite("select !! q") == "select  NULL OPERATOR(pg_catalog.!!)  q"
