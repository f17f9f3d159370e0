"""Doctests of the xml type's input checks, the SQL/XML respelling and the XML helpers (no server)."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.pgtypes import xmlvalue
from cumulo.server.sql import xmlsyntax
from cumulo.server.sql.expr import xmltable
from cumulo.server.sql.functions import xmlfns


@pytest.mark.parametrize("module", [xmlvalue, xmlsyntax, xmlfns, xmltable])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_respelling_leaves_strings_and_other_calls_alone():
    """Only the five forms change; their words inside strings, names and comments stay."""
    sql = "select 'xmlparse(document x)', \"xmlpi\", xmlelement(name a) -- xmlroot(x, version 1)\n"
    assert xmlsyntax.rewrite(sql) == sql


def test_content_and_document_follow_xmloption():
    """xml_in reads the session's xmloption, published per thread as settings publish it."""
    assert xmlvalue.well_formed("a<b/>")
    xmlvalue.use_xmloption("document")
    try:
        assert not xmlvalue.well_formed("a<b/>")
        assert xmlvalue.well_formed("<b/>")
    finally:
        xmlvalue.use_xmloption("content")
