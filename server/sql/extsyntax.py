"""Extension syntax sqlglot does not read, respelled before parsing (hstore--1.8's).

PostgreSQL's lexer reads any run of operator characters as one operator, so hstore's
`r #= h`, `%% h`, `%# h` and `a #<# b` (and tsquery's prefix `!!`) are operators there; sqlglot knows none of them
(`#=` is a syntax error, `%% h` a modulo of nothing). It does read PostgreSQL's explicit
`a OPERATOR(pg_catalog.op) b`, so each is respelled that way; a prefix one gets NULL as
its left operand, which `expr.hstorerows` reads as "no left operand". And `delete(h, k)`
is hstore's function, where sqlglot sees the DELETE statement's keyword: it is quoted.
Strings, quoted names, comments and dollar quotes are left alone.

>>> print(rewrite("select r #= h, %% h, x #<=# y from t where '%%' = '#='"))
select r  OPERATOR(pg_catalog.#=)  h,  NULL OPERATOR(pg_catalog.%%)  h, x  OPERATOR(pg_catalog.#<=#)  y from t where '%%' = '#='
>>> print(rewrite("select delete(h, 'a'), $$#=$$ from t"))
select "delete"(h, 'a'), $$#=$$ from t
"""

from __future__ import annotations

import re

_OPCHARS = r"[<>=!~@#%^&|`?+*/-]"
_TOKENS = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*"
    r"|/\*.*?\*/|\$(?P<tag>(?:[A-Za-z_]\w*)?)\$.*?\$(?P=tag)\$)"
    rf"|(?<!{_OPCHARS})(?P<op>#=|#<#|#<=#|#>#|#>=#|%%|%#|!!)(?!{_OPCHARS})"
    r"|(?<![\w.\"$])(?P<delete>delete)(?=\s*\()", re.I | re.S)
_PREFIX = frozenset(("%%", "%#", "!!"))


def _respell(m: re.Match[str]) -> str:
    if m.group("skip") is not None:
        return m.group(0)
    if m.group("delete") is not None:
        return '"delete"'
    op = m.group("op")
    return f" {'NULL ' if op in _PREFIX else ''}OPERATOR(pg_catalog.{op}) "


def needed(sql: str) -> bool:
    """A cheap test: might `sql` hold one of these spellings?"""
    return "#" in sql or "%%" in sql or "!!" in sql or "elete" in sql or "ELETE" in sql


def rewrite(sql: str) -> str:
    """`sql` with hstore's operators spelled OPERATOR(pg_catalog.op) and delete( quoted."""
    return _TOKENS.sub(_respell, sql)
