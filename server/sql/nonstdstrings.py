r"""`standard_conforming_strings = off`: backslashes escape in ordinary string literals.

With the setting off, PostgreSQL's lexer reads `'a\nb'` as `E'a\nb'` would (a newline),
and `'it\'s'` as one literal; with `escape_string_warning` on it warns once per such
literal (22P06), naming the first escape it met. Cumulo's parser reads the standard
form only, so each ordinary literal holding a backslash is respelled as an escape
string before the text is split and parsed; E'', dollar-quoted strings, quoted names
and comments are left alone. A whole Query message is read so, as PostgreSQL lexes it
before running any of it (a `SET standard_conforming_strings = off` applies from the
next message on).

>>> text, said = rewrite(r"select 'a\nb', 'it\'s', 'plain', e'x\ty', $$p\q$$ -- c'\ x")
>>> print(text)
select E'a\nb', E'it\'s', 'plain', e'x\ty', $$p\q$$ -- c'\ x
>>> [w[0] for w in said]
['nonstandard use of escape in a string literal', "nonstandard use of \\' in a string literal"]
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"""['"$]|--|/\*""")
_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")

# PostgreSQL's warnings (scan.l, check_string_escape_warning / check_escape_warning)
_QUOTE = ("nonstandard use of \\' in a string literal",
          "Use '' to write quotes in strings, or use the escape string syntax (E'...').")
_BACKSLASH = ("nonstandard use of \\\\ in a string literal",
              "Use the escape string syntax for backslashes, e.g., E'\\\\'.")
_ESCAPE = ("nonstandard use of escape in a string literal",
           "Use the escape string syntax for escapes, e.g., E'\\r\\n'.")


def _literal_end(sql: str, i: int) -> int:
    """The index of the quote ending a literal whose text starts at `i`, a backslash
    escaping the next character (len(sql) if none does)."""
    n = len(sql)
    while i < n:
        c = sql[i]
        if c == "\\":
            i += 2
        elif c == "'":
            if i + 1 < n and sql[i + 1] == "'":
                i += 2
            else:
                return i
        else:
            i += 1
    return n


def _warning(body: str, at: int) -> tuple[str, str, int]:
    """The warning of a literal's first escape (message, hint, the literal's position)."""
    nxt = body[body.index("\\") + 1: body.index("\\") + 2]
    message, hint = _QUOTE if nxt == "'" else _BACKSLASH if nxt == "\\" else _ESCAPE
    return message, hint, at


def rewrite(sql: str) -> tuple[str, list[tuple[str, str, int]]]:
    """`sql` with each ordinary literal that holds a backslash made an E'' string, and
    the (message, hint, 1-based position in `sql`) of the warning each one raises."""
    out: list[str] = []
    said: list[tuple[str, str, int]] = []
    start, n = 0, len(sql)
    m = _TOKEN.search(sql)
    while m is not None:
        i = m.start()
        c = sql[i]
        if c == "'":
            prev = sql[i - 1] if i > 0 else ""
            before = sql[i - 2] if i > 1 else ""
            escaped = prev in "eE" and not (before.isalnum() or before == "_")
            typed = prev in "bBxX&" and not (before.isalnum() or before == "_")  # B'' X'' U&''
            end = _literal_end(sql, i + 1)
            body = sql[i + 1:end]
            if not escaped and not typed and "\\" in body:
                out.append(sql[start:i] + "E")
                start = i
                said.append(_warning(body, i + 1))
            i = end + 1
        elif c == '"':
            j = sql.find('"', i + 1)
            i = n if j < 0 else j + 1
        elif c == "-":
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif c == "/":
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:  # $
            d = _DOLLAR.match(sql, i) if i == 0 or not (
                sql[i - 1].isalnum() or sql[i - 1] == "_") else None
            if d is None:
                i += 1
            else:
                j = sql.find(d.group(0), d.end())
                i = n if j < 0 else j + len(d.group(0))
        m = _TOKEN.search(sql, i) if i < n else None
    out.append(sql[start:])
    return "".join(out), said
