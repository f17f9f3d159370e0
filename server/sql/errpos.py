"""Positions for errors about a literal's text, found in the statement afterwards.

PostgreSQL reports `invalid input syntax for type integer: "abc"` (22P02, 22007,
22008, 22003) with the position of the offending literal, so psql prints
`LINE 1:` and a caret under it. Cumulo converts literals in many places (casts,
constant folding, INSERT coercion, comparisons), so rather than thread a position
through each, the statement's error handler asks this module once: the message
quotes the literal's text, and the first string literal in the statement with
that text is where PostgreSQL points.

>>> e = SQLError('invalid input syntax for type integer: "abc"', sqlstate="22P02")
>>> locate_literal(e, "select 1, 'abc'::int")
>>> e.position
11
"""

from __future__ import annotations

import re

from ..errors import SQLError

_LITERAL_STATES = {"22P02", "22007", "22008", "22003"}
_QUOTED = re.compile(r'(?:: |^value )"((?:[^"]|"")*)"')  # NB: the input value PG quotes


def locate_literal(e: BaseException, sql: str, offset: int = 0) -> None:
    """Sets `e.position` (1-based) to the literal its message quotes, when it has none.

    `offset` is where `sql` starts in the whole Query message.
    """
    if not isinstance(e, SQLError) or e.position is not None or e.sqlstate not in _LITERAL_STATES:
        return
    m = _QUOTED.search(e.message)  # e.g. `...: "abc"`, `value "9e9" is out of range...`
    if m is None:
        return
    quoted = "'" + m.group(1).replace("'", "''") + "'"
    at = _find_outside_comments(sql, quoted)
    if at >= 0:
        e.position = max(offset, 0) + at + 1


def _find_outside_comments(sql: str, quoted: str) -> int:
    """The offset of `quoted` as a whole string literal token, or -1."""
    i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c == "'":
            j = i + 1
            while j < n:
                if sql[j] == "'":
                    if j + 1 < n and sql[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            if sql[i:j + 1] == quoted and (i == 0 or sql[i - 1] not in "eEbBxXuU&"):
                return i
            i = j + 1
        elif c == "-" and sql.startswith("--", i):
            nl = sql.find("\n", i)
            i = n if nl < 0 else nl + 1
        elif c == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == '"':
            end = sql.find('"', i + 1)
            i = n if end < 0 else end + 1
        else:
            i += 1
    return -1


def semicolon_after(e: BaseException, sql: str) -> None:
    """`at end of input` becomes `at or near ";"` when the statement's `;` is what follows.

    Statements are parsed without their terminating semicolon, but PostgreSQL lexes
    the whole Query message, so the token at the error's position is that `;`.

    >>> e = SQLError("syntax error at end of input", sqlstate="42601", position=23)
    >>> semicolon_after(e, "select 1 from ep where;")
    >>> e.message
    'syntax error at or near ";"'
    """
    if not isinstance(e, SQLError) or e.position is None or e.sqlstate != "42601":
        return
    if e.message != "syntax error at end of input":
        return
    rest = sql[e.position - 1:]
    stripped = rest.lstrip()
    if stripped.startswith(";"):
        e.position += len(rest) - len(stripped)
        e.message = 'syntax error at or near ";"'
        e.args = (e.message,)
