"""The error-position helpers on their own: their doctests and the cases PostgreSQL points at."""

from __future__ import annotations

import doctest

from cumulo.server.errors import SQLError
from cumulo.server.sql import errpos


def test_doctests():
    assert doctest.testmod(errpos).failed == 0


def _located(message: str, sql: str, state: str = "22P02") -> int | None:
    e = SQLError(message, sqlstate=state)
    errpos.locate_literal(e, sql)
    return e.position


def test_skips_comments_identifiers_and_escape_strings():
    msg = 'invalid input syntax for type integer: "abc"'
    assert _located(msg, "select /* 'abc' */ \"'abc'\", E'abc', 'abc'::int") == 37
    assert _located(msg, "select 'x'") is None
    assert _located("division by zero", "select 'abc'", "22012") is None


def test_keeps_a_position_already_set():
    e = SQLError('invalid input syntax for type integer: "abc"', sqlstate="22P02", position=3)
    errpos.locate_literal(e, "select 'abc'::int")
    assert e.position == 3


def test_semicolon_only_when_it_follows():
    e = SQLError("syntax error at end of input", sqlstate="42601", position=11)
    errpos.semicolon_after(e, "select 1 +")
    assert e.message == "syntax error at end of input" and e.position == 11


def test_an_ambiguous_name_gets_no_position():
    e = SQLError('type "t" does not exist', sqlstate="42704")
    errpos.locate_literal(e, "select 1::t, 2::t")
    assert e.position is None
    e = SQLError('column reference "a" is ambiguous', sqlstate="42702")
    errpos.locate_literal(e, "select x.a, a from x, y")
    assert e.position == 13
