"""SQL/XML syntax sqlglot does not read, respelled as plain calls before parsing.

sqlglot reads XMLELEMENT (with XMLATTRIBUTES), XMLFOREST and `x IS DOCUMENT` itself;
these five it does not, so each becomes a call `expr.xmlforms` binds:

    XMLPARSE(DOCUMENT x)                 -> xmlparse('document', x)
    XMLSERIALIZE(CONTENT x AS varchar)   -> xmlserialize('content', x, CAST(NULL AS varchar))
    XMLEXISTS(p PASSING BY REF x)        -> xmlexists(p, x)
    XMLPI(NAME foo, x)                   -> xmlpi('foo', x)
    XMLROOT(x, VERSION v, STANDALONE no) -> xmlroot(x, v, 1)   (yes 0, no 1, no value 2, none 3)

XMLTABLE sqlglot reads, once its `PATH 'x'` is back from parse.py's geometric path literal.
The call keeps the form's name, so the result column is named as PostgreSQL names it.
Strings, quoted names, comments and dollar quotes are left alone; calls nest.

>>> print(rewrite("select xmlparse(document '<a/>'), xmlpi(name \\"Foo\\", 'x') from t"))
select xmlparse('document', '<a/>'), xmlpi('Foo', 'x') from t
>>> print(rewrite("select xmlserialize(content xmlparse(content 'a' ) as varchar(3))"))
select xmlserialize('content', xmlparse('content', 'a' ), CAST(NULL AS varchar(3)))
>>> print(rewrite("select xmlexists('//a' passing by ref x by value), xmlroot(x, version no value)"))
select xmlexists('//a', x), xmlroot(x, NULL, 3)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import sqlglot
from sqlglot import exp

_SKIP = (r"(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*"
         r"|/\*.*?\*/|\$(?P<tag>(?:[A-Za-z_]\w*)?)\$.*?\$(?P=tag)\$")
_TOKENS = re.compile(rf"(?P<skip>{_SKIP})|(?<![\w.$\"])(?P<head>xmlparse|xmlserialize|xmlexists"
                     r"|xmlpi|xmlroot|xmltable)\s*\(", re.I | re.S)
_NEEDED = re.compile(r"xml(?:parse|serialize|exists|pi|root|table)\s*\(", re.I)
# XMLTABLE's `PATH 'x'`, which parse.py has read as a geometric path literal by then
_PATH_CAST = re.compile(r"CAST\('((?:[^']|'')*)' AS path\)", re.I)
_STRINGISH = re.compile(_SKIP, re.S)


_PG_GENERATOR = sqlglot.Dialect.get_or_raise("postgres").generator_class
_columndef_sql = _PG_GENERATOR.columndef_sql


def _xmltable_columndef_sql(self: Any, expression: exp.ColumnDef, sep: str = " ") -> str:
    """XMLTABLE's `n FOR ORDINALITY`, which sqlglot's generator prints as a bare `n`: a view's
    stored text must read back as the same query."""
    if expression.args.get("ordinality"):
        return f"{self.sql(expression, 'this')} FOR ORDINALITY"
    return str(_columndef_sql(self, expression, sep))


_PG_GENERATOR.columndef_sql = _xmltable_columndef_sql  # type: ignore[method-assign]


def needed(sql: str) -> bool:
    """A cheap test: might `sql` hold one of these forms?"""
    return _NEEDED.search(sql) is not None


def _top_level(s: str) -> Iterator[int]:
    """Indexes of the characters of `s` outside parentheses, strings and comments."""
    depth = 0
    i = 0
    while i < len(s):
        m = _STRINGISH.match(s, i)
        if m is not None and m.end() > i:
            i = m.end()
            continue
        c = s[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            yield i
        i += 1


def _close(s: str, open_at: int) -> int:
    """The index of the parenthesis closing the one at `open_at` (-1 if none)."""
    depth = 0
    i = open_at
    while i < len(s):
        m = _STRINGISH.match(s, i)
        if m is not None and m.end() > i:
            i = m.end()
            continue
        if s[i] in "([":
            depth += 1
        elif s[i] in ")]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _split(s: str, sep: str) -> list[str]:
    """`s` split at the top-level commas (sep ',') or at the first top-level keyword `sep`."""
    if sep == ",":
        cuts = [i for i in _top_level(s) if s[i] == ","]
        bounds = [-1, *cuts, len(s)]
        return [s[a + 1:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    pat = re.compile(rf"(?<![\w$]){sep}(?![\w$])", re.I)
    tops = set(_top_level(s))
    for m in pat.finditer(s):
        if m.start() in tops:
            return [s[:m.start()], s[m.end():]]
    return [s]


def _last_as(s: str) -> int:
    tops = set(_top_level(s))
    found = -1
    for m in re.finditer(r"(?<![\w$])as(?![\w$])", s, re.I):
        if m.start() in tops:
            found = m.start()
    return found


def _name_literal(ident: str) -> str:
    ident = ident.strip()
    name = ident[1:-1].replace('""', '"') if ident.startswith('"') else ident.lower()
    return "'" + name.replace("'", "''") + "'"


_KIND = re.compile(r"\s*(document|content)\s+(.*)$", re.I | re.S)
_BY = re.compile(r"^\s*by\s+(?:ref|value)\b|\bby\s+(?:ref|value)\s*$", re.I)


def _transform(head: str, inner: str) -> str | None:
    """The call's new argument list, or None to leave it as written."""
    if head == "xmltable":  # sqlglot reads XMLTABLE itself (expr.xmltable binds it)
        return _PATH_CAST.sub(r"PATH '\1'", inner)
    if head in ("xmlparse", "xmlserialize"):
        m = _KIND.match(inner)
        if m is None:
            return None
        kind, rest = m.group(1).lower(), m.group(2)
        if head == "xmlparse":
            return f"'{kind}', {rest}"
        at = _last_as(rest)
        if at < 0:
            return None
        return f"'{kind}', {rest[:at].rstrip()}, CAST(NULL AS {rest[at + 2:].strip()})"
    if head == "xmlexists":
        parts = _split(inner, "passing")
        if len(parts) != 2:
            return None
        return f"{parts[0].rstrip()}, {_BY.sub('', _BY.sub('', parts[1])).strip()}"
    if head == "xmlpi":
        m = re.match(r"\s*name\s+(\"(?:[^\"]|\"\")*\"|[^\s,\"]+)\s*(,.*)?$", inner, re.I | re.S)
        if m is None:
            return None
        return _name_literal(m.group(1)) + (m.group(2) or "")
    parts = _split(inner, ",")  # xmlroot
    if len(parts) not in (2, 3):
        return None
    m = re.match(r"\s*version\s+(.*)$", parts[1], re.I | re.S)
    if m is None:
        return None
    version = "NULL" if re.fullmatch(r"no\s+value\s*", m.group(1), re.I) else m.group(1).strip()
    standalone = 3
    if len(parts) == 3:
        s = re.fullmatch(r"\s*standalone\s+(yes|no\s+value|no)\s*", parts[2], re.I)
        if s is None:
            return None
        standalone = {"yes": 0, "no": 1}.get(s.group(1).lower(), 2)
    return f"{parts[0].strip()}, {version}, {standalone}"


def rewrite(sql: str) -> str:
    """`sql` with the five forms spelled as calls."""
    out: list[str] = []
    pos = 0
    for m in _TOKENS.finditer(sql):
        if m.group("head") is None or m.start() < pos:
            continue
        open_at = m.end() - 1
        close = _close(sql, open_at)
        if close < 0:
            continue
        inner = rewrite(sql[open_at + 1:close])
        args = _transform(m.group("head").lower(), inner)
        out.append(sql[pos:open_at + 1])
        out.append(inner if args is None else args)
        out.append(")")
        pos = close + 1
    out.append(sql[pos:])
    return "".join(out)
