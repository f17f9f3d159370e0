"""Doctests of the geometric operators, jsonpath's normalizer and operators, tsquery's comparisons."""

from __future__ import annotations

import doctest

import pytest

import cumulo.server.sql.functions  # noqa: F401  (registers every function)
from cumulo.server.pgtypes import jsonpathtext
from cumulo.server.sql import geosyntax
from cumulo.server.sql.functions import (
    geoconv,
    geomath,
    geoops,
    geopreds,
    jsonpathops,
    tsdebug,
    tsqcmp,
)


@pytest.mark.parametrize("module", [geosyntax, geomath, geoops, geopreds, geoconv, jsonpathtext,
                                    jsonpathops, tsqcmp, tsdebug])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_respelling_leaves_json_tsearch_and_quoted_text_alone():
    """Binary `#`, `@@`, `?|` and JSON's `#>` stay for sqlglot; quoted text never changes."""
    sql = ("select a # b, v @@ q, j ?| array['a'], j #> '{a}', '~= <^', \"?-|\", $q$@-@$q$ "
           "-- ~=\n from t")
    assert geosyntax.rewrite(sql) == sql
    assert geosyntax.rewrite("select x from t where @@ b ~= p") == (
        "select x from t where  NULL OPERATOR(pg_catalog.@@)  b  OPERATOR(pg_catalog.~=)  p")


def test_every_postgres_geometric_operator_has_a_function():
    """157 rows of PostgreSQL 15's pg_operator over the seven geometric types."""
    assert len(geoops.OPERATORS) == 157
    assert all(name in geoops.IMPLS for name in geoops.OPERATORS.values())
