r"""String-literal continuation as PostgreSQL's lexer does it.

SQL joins two string constants into one only when the whitespace between them holds a
newline (`'a'<newline>'b'` is `'ab'`; a `--` comment may sit in that whitespace, a
`/* */` comment may not). Two constants separated by spaces alone are two tokens, which
PostgreSQL's grammar refuses at the second (42601). sqlglot instead parses any run of
string tokens as `concat(...)`: it accepted `select 'a' 'b'` and named the joined column
`concat` (PostgreSQL: `?column?`). `join_strings` runs on sqlglot's tokens: it merges a
continuation into the token before it and raises PostgreSQL's error for the rest.

>>> from server.sql.parse import parse_sql
>>> parse_sql("select 'a'\n'b'").sql()
"SELECT 'ab'"
>>> try:
...     parse_sql("select 'a' 'b'")
... except SyntaxError_ as e:
...     print(e.sqlstate, e.message, e.position)
42601 syntax error at or near "'b'" 12
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot.tokens import Token, TokenType

from ..errors import SyntaxError_

# PostgreSQL 15's scan.l: {whitespace_with_newline} before a continuing {quote}:
# {horiz_whitespace}* {newline} {special_whitespace}*, where horiz_whitespace is a space,
# tab, form feed or a -- comment, and special_whitespace spaces or a -- comment ending a line.
_CONTINUATION_GAP = re.compile(
    r"(?:[ \t\f]|--[^\n\r]*)*[\n\r](?:[ \t\n\r\f]+|--[^\n\r]*[\n\r])*")
_STRINGS = frozenset({TokenType.STRING, TokenType.BYTE_STRING, TokenType.HEX_STRING,
                      TokenType.BIT_STRING, TokenType.NATIONAL_STRING})


def needed(tokens: list[Token]) -> bool:
    """Whether two string constants follow each other (cheap: most statements have none)."""
    return any(a.token_type in _STRINGS and b.token_type is TokenType.STRING
               for a, b in zip(tokens, tokens[1:], strict=False))


def join_strings(sql: str, tokens: list[Token],
                 escape_text: Callable[[str], str]) -> None:
    """Merges each continuation into the constant before it, in place; two constants not
    separated by a newline are PostgreSQL's syntax error at the second.

    `escape_text(raw)` is the text of `E'raw'` (a continuation of an escape string is read
    with its escapes, as PostgreSQL does)."""
    i = 1
    while i < len(tokens):
        prev, tok = tokens[i - 1], tokens[i]
        if prev.token_type not in _STRINGS or tok.token_type is not TokenType.STRING \
                or sql[tok.start:tok.start + 1] != "'":
            i += 1
            continue
        gap = sql[prev.end + 1:tok.start]
        if not _CONTINUATION_GAP.fullmatch(gap):
            raise SyntaxError_(f'syntax error at or near "{sql[tok.start:tok.end + 1]}"',
                               position=tok.start + 1)
        text = escape_text(sql[tok.start + 1:tok.end]) \
            if prev.token_type is TokenType.BYTE_STRING else tok.text
        prev.text += text
        prev.end = tok.end
        prev.comments.extend(tok.comments)
        del tokens[i]
