r"""`\u0000` in an escape string: PostgreSQL's lexer refuses it before any cast sees it.

PostgreSQL rejects a Unicode escape of code point 0 in `E'...'` with 42601
`invalid Unicode escape value at or near "\u0000"`, positioned on the escape,
while `\0` and `\x00` reach the string's encoding check (22021). sqlglot decodes
every escape to the same NUL, so the difference has to be found in the text.

>>> try:
...     check_unicode_nul(r"select E'ab\u0000'")
... except SyntaxError_ as e:
...     print(e.sqlstate, e.message, e.position)
42601 invalid Unicode escape value at or near "\u0000" 12
>>> check_unicode_nul(r"select 'a\u0000', E'a\\u0000', E'\0'") is None
True
"""

from __future__ import annotations

import re

from ..errors import SyntaxError_

# An escape string: E'...' with \-escapes and '' inside (not part of a longer identifier).
_ESTRING = re.compile(r"(?<![\w$])[eE]'((?:[^'\\]|\\.|'')*)'", re.S)
_NUL_ESCAPE = re.compile(r"\\(?:u0000|U00000000)|\\.", re.S)


def check_unicode_nul(sql: str) -> None:
    """Raises PG's 42601 when an escape string of `sql` holds `\\u0000` or `\\U00000000`."""
    for m in _ESTRING.finditer(sql):
        for esc in _NUL_ESCAPE.finditer(m.group(1)):
            if len(esc.group()) > 2:
                raise SyntaxError_(f'invalid Unicode escape value at or near "{esc.group()}"',
                                   position=m.start(1) + esc.start() + 1)
