"""Array bounds in a cast's type (`x::integer[3]`, `CAST(x AS float8[2][2])`), respelled `[]`.

PostgreSQL's typename takes array bounds and ignores them (an array's size is never
checked), so `'{1,2}'::double precision[3]` is a double precision[]; Django's ArrayField
with a `size` casts its values that way. sqlglot reads `::integer[3]` as a subscript of
the cast (`cannot cast integer[] to integer`); in a column definition it reads them
itself. The bounds after `::` and `AS` are dropped before parsing; strings, quoted names,
comments and dollar quotes are left alone.

>>> rewrite("select '{1,2}'::double precision[3], x::int[2][2], cast(y as text[5]), a[3]")
"select '{1,2}'::double precision[], x::int[][], cast(y as text[]), a[3]"
>>> rewrite("select '::int[3]', $$::int[3]$$") == "select '::int[3]', $$::int[3]$$"
True
"""

from __future__ import annotations

import re

_TYPE = (r"(?:::|\bAS\s+)\s*[A-Za-z_][\w.]*(?:\s+(?:precision|varying|with(?:out)?\s+time\s+"
         r"zone))?(?:\s*\([^()]*\))?")
_TOKENS = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*"
    r"|/\*.*?\*/|\$(?P<tag>(?:[A-Za-z_]\w*)?)\$.*?\$(?P=tag)\$)"
    rf"|(?P<type>{_TYPE})(?P<bounds>(?:\s*\[\s*\d*\s*\])*\s*\[\s*\d+\s*\](?:\s*\[\s*\d*\s*\])*)",
    re.I | re.S)
_BOUND = re.compile(r"\[\s*\d*\s*\]")
_NEEDED = re.compile(r"\[\s*\d+\s*\]")


def needed(sql: str) -> bool:
    """A cheap test: might `sql` hold a sized array type?"""
    return ("::" in sql or "as" in sql.lower()) and _NEEDED.search(sql) is not None


def _respell(m: re.Match[str]) -> str:
    if m.group("skip") is not None:
        return m.group(0)
    return m.group("type") + "[]" * len(_BOUND.findall(m.group("bounds")))


def rewrite(sql: str) -> str:
    """`sql` with the bounds of its cast types dropped."""
    return _TOKENS.sub(_respell, sql)
