r"""Unicode-escape literals, `U&'...'` and `U&"..."` [UESCAPE 'c'], decoded before sqlglot.

PostgreSQL's lexer reads `U&'d\0061t'` as the string `dat` and `U&"d!0061t" UESCAPE '!'`
as the identifier `dat`; sqlglot keeps such a string as a node no function takes, and
reads `U&"x"` as `U & "x"`. So `rewrite` replaces each one in the statement's text with the
plain literal or quoted identifier it denotes, raising PostgreSQL's 42601 errors (at its
positions) for the escapes it refuses. The escape rules are parser.c's `str_udeescape`:
`\XXXX` or `\+XXXXXX` (the escape character doubled stands for itself), UTF-16 surrogate
pairs joined, code point 0 and values above U+10FFFF refused.

>>> rewrite(r"select U&'d\0061t\+000061', U&'d!0061t' UESCAPE '!' as U&" '"x\\0041"')
'select \'data\', \'dat\' as "xA"'
>>> rewrite("select U&'it''s' || 'U&''x'''")
"select 'it''s' || 'U&''x'''"
>>> try:
...     rewrite(r"select U&'ab\zzzz'")
... except SyntaxError_ as e:
...     print(e.sqlstate, e.message, e.position)
42601 invalid Unicode escape 13
"""

from __future__ import annotations

import re

from ..errors import SyntaxError_

_HINT = "Unicode escapes must be \\XXXX or \\+XXXXXX."
# what may stand between a literal's closing quote and UESCAPE, or a continued literal's parts
_GAP = re.compile(r"(?:\s|--[^\n]*(?:\n|$))*")
# a string continued on the next line: 'a'<newline>'b' is 'ab' (scan.l's quotecontinue)
_CONTINUE = re.compile(r"[ \t\f]*(?:--[^\n]*)?\n(?:\s|--[^\n]*\n)*'")
_UESCAPE = re.compile(r"uescape(?![\w$])", re.I)
_SIMPLE_STRING = re.compile(r"[eE]?'((?:[^'\\]|\\.|'')*)'|'((?:[^']|'')*)'", re.S)
_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")
_NEXT_TOKEN = re.compile(r"[\w$]+|\S")
_SPACES = " \t\n\r\f\v"
_HEX = frozenset("0123456789abcdefABCDEF")


def needed(sql: str) -> bool:
    """Cheap test: could `sql` hold a Unicode-escape literal?"""
    return ("&'" in sql or '&"' in sql) and ("U&" in sql or "u&" in sql)


def rewrite(sql: str) -> str:
    """`sql` with every `U&'...'` / `U&"..."` (and its UESCAPE clause) decoded."""
    out: list[str] = []
    i, n, done = 0, len(sql), 0
    while i < n:
        c = sql[i]
        if c in "uU" and sql.startswith("&", i + 1) and i + 2 < n and sql[i + 2] in "'\"" \
                and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] in "_$")):
            text, end = _literal(sql, i)
            out.append(sql[done:i])
            out.append(text)
            i = done = end
            continue
        if c == "'":
            i = _skip_string(sql, i, i > 0 and sql[i - 1] in "eE"
                             and (i < 2 or not (sql[i - 2].isalnum() or sql[i - 2] == "_")))
        elif c == '"':
            j = sql.find('"', i + 1)
            i = n if j < 0 else j + 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "$" and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] == "_")):
            m = _DOLLAR.match(sql, i)
            if m is None:
                i += 1
            else:
                j = sql.find(m.group(0), m.end())
                i = n if j < 0 else j + len(m.group(0))
        elif c.isalnum() or c == "_":
            while i < n and (sql[i].isalnum() or sql[i] in "_$"):
                i += 1
        else:
            i += 1
    if not out:
        return sql
    out.append(sql[done:])
    return "".join(out)


def _skip_string(sql: str, i: int, backslash: bool) -> int:
    n = len(sql)
    i += 1
    while i < n:
        if backslash and sql[i] == "\\":
            i += 2
            continue
        if sql[i] == "'":
            if sql.startswith("'", i + 1):
                i += 2
                continue
            return i + 1
        i += 1
    return n


def _body(sql: str, start: int, quote: str) -> tuple[str, int]:
    """The quoted text after `U&` at `start` (doubled quotes undone, continued strings joined),
    and where it ends."""
    parts: list[str] = []
    i = start + 1
    while True:
        j = sql.find(quote, i)
        if j < 0:
            what = "quoted identifier" if quote == '"' else "quoted string"
            raise SyntaxError_(f"unterminated {what} at or near \"{sql[start - 2:]}\"",
                               position=start - 1)
        parts.append(sql[i:j])
        if sql.startswith(quote, j + 1):
            parts.append(quote)
            i = j + 2
            continue
        if quote == "'":
            m = _CONTINUE.match(sql, j + 1)
            if m is not None:
                i = m.end()
                continue
        return "".join(parts), j + 1


def _literal(sql: str, at: int) -> tuple[str, int]:
    """The plain literal for the U& literal at `at`, and where it (with UESCAPE) ends."""
    quote = sql[at + 2]
    raw, end = _body(sql, at + 2, quote)
    if quote == '"' and not raw:
        raise SyntaxError_(f'zero-length delimited identifier at or near "{sql[at:end]}"',
                           position=at + 1)
    escape, after = "\\", end
    gap = _GAP.match(sql, end)
    assert gap is not None
    word = _UESCAPE.match(sql, gap.end())
    if word is not None:
        gap = _GAP.match(sql, word.end())
        assert gap is not None
        m = _SIMPLE_STRING.match(sql, gap.end())
        if m is None:
            tok = _NEXT_TOKEN.match(sql, gap.end())
            where = f'at or near "{tok.group()}"' if tok else "at end of input"
            raise SyntaxError_(f"UESCAPE must be followed by a simple string literal {where}",
                               position=(tok.start() if tok else len(sql)) + 1)
        body = m.group(1) if m.group(1) is not None else m.group(2)
        chars = body.replace("''", "'")
        if m.group(0)[0] in "eE":
            chars = chars.encode("latin-1", "backslashreplace").decode("unicode_escape")
        if len(chars) != 1 or chars in _HEX or chars in "+'\"" or chars in _SPACES:
            raise SyntaxError_(f'invalid Unicode escape character at or near "{m.group(0)}"',
                               position=m.start() + 1)
        escape, after = chars, m.end()
    text = _decode(raw, escape, at)
    if quote == '"':
        return '"' + text.replace('"', '""') + '"', after
    return "'" + text.replace("'", "''") + "'", after


def _code_point(value: int, pos: int) -> int:
    if value == 0 or value > 0x10FFFF:
        raise SyntaxError_("invalid Unicode escape value", position=pos)
    return value


def _decode(s: str, escape: str, at: int) -> str:
    """parser.c's str_udeescape over the literal's text `s` (PostgreSQL's error positions:
    the literal's start plus 3 plus the offset in `s`)."""
    out: list[str] = []
    pair_first = 0
    i, n = 0, len(s)
    while i < n:
        pos = at + 3 + i + 1
        if s[i] != escape:
            if pair_first:
                raise SyntaxError_("invalid Unicode surrogate pair", position=pos)
            out.append(s[i])
            i += 1
            continue
        if s.startswith(escape, i + 1):
            if pair_first:
                raise SyntaxError_("invalid Unicode surrogate pair", position=pos)
            out.append(escape)
            i += 2
            continue
        if i + 5 <= n and all(c in _HEX for c in s[i + 1:i + 5]):
            value, width = _code_point(int(s[i + 1:i + 5], 16), pos), 5
        elif s.startswith("+", i + 1) and i + 8 <= n and all(c in _HEX for c in s[i + 2:i + 8]):
            value, width = _code_point(int(s[i + 2:i + 8], 16), pos), 8
        else:
            raise SyntaxError_("invalid Unicode escape", position=pos, hint=_HINT)
        if pair_first:
            if not 0xDC00 <= value <= 0xDFFF:
                raise SyntaxError_("invalid Unicode surrogate pair", position=pos)
            value = 0x10000 + ((pair_first - 0xD800) << 10) + (value - 0xDC00)
            pair_first = 0
        elif 0xDC00 <= value <= 0xDFFF:
            raise SyntaxError_("invalid Unicode surrogate pair", position=pos)
        i += width
        if 0xD800 <= value <= 0xDBFF:
            pair_first = value
        else:
            out.append(chr(value))
    if pair_first:
        raise SyntaxError_("invalid Unicode surrogate pair", position=at + 3 + n + 1)
    return "".join(out)
