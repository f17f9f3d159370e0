"""Long IN lists of literals become one array literal before sqlglot sees them.

`WHERE id IN (1, 2, ..., 100000)` costs sqlglot a node per item and the
binder a bound expression per item, and the compiled filter then compares
against each in turn: seconds for 100,000 items. PostgreSQL turns such a list
into a `ScalarArrayOpExpr` over one constant array, hashed when it is long.
We do the same: `x IN (<literals>)` becomes `x = ANY('{...}'::type[])`, one
token for the parser and one constant for the binder, and the code generator
probes a frozenset for `= ANY` over a long constant array (`codegen.g_any`).

Only lists that keep PostgreSQL's typing are rewritten:

- all integers: an `int8[]` (or `numeric[]` past int8), compared as the IN list is;
- all strings: an untyped array literal, which takes the left side's array type,
  as the untyped literals of the list take the left side's type.

Anything else (NULLs, decimals, mixed kinds, expressions, parameters, short
lists) is left as written.

>>> rewrite("SELECT 1 WHERE x IN (" + ", ".join(map(str, range(70))) + ")")[:44]
"SELECT 1 WHERE x = ANY('{0,1,2,3,4,5,6,7,8,9"
>>> print(rewrite("SELECT 1 WHERE x NOT IN (" + ", ".join(["'a''b'"] * 70) + ")")[:39])
SELECT 1 WHERE x <> ALL('{"a''b","a''b"
>>> s = "SELECT 1 WHERE x IN (1, 2)"
>>> rewrite(s) == s
True
"""

from __future__ import annotations

import re

MIN_ITEMS = 64
_LIT = r"(?:[+-]?\d+|'(?:[^']|'')*')"
_LONG_IN = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\""
    r"|--[^\n]*|/\*.*?\*/)"
    r"|\b(?P<not>NOT\s+)?IN\s*\(\s*(?P<items>" + _LIT + r"(?:\s*,\s*" + _LIT + r"){"
    + str(MIN_ITEMS - 1) + r",})\s*\)", re.I | re.S)
_ITEM = re.compile(_LIT)
INT8_MAX = 2**63 - 1


def might_have(sql: str) -> bool:
    """A cheap test that lets most statements skip `rewrite`."""
    return sql.count(",") >= MIN_ITEMS - 1 and ("IN" in sql or "in" in sql or "In" in sql
                                                  or "iN" in sql)


def has_long_list(sql: str) -> bool:
    """Tells whether `rewrite` would change the statement."""
    return might_have(sql) and any(m.group("items") for m in _LONG_IN.finditer(sql))


def _array(m: re.Match[str]) -> str:
    if m.group("skip") is not None:
        return m.group(0)
    items = _ITEM.findall(m.group("items"))
    op = "<> ALL" if m.group("not") else "= ANY"
    if all(x[0] == "'" for x in items):
        elems = ",".join('"' + x[1:-1].replace("''", "'").replace("\\", "\\\\")
                         .replace('"', '\\"').replace("'", "''") + '"' for x in items)
        return f"{op}('{{{elems}}}')"
    if any(x[0] == "'" for x in items):
        return m.group(0)  # NB: mixed kinds: the list's own type resolution decides
    ints = [int(x) for x in items]
    kind = "int8" if all(-INT8_MAX - 1 <= v <= INT8_MAX for v in ints) else "numeric"
    return f"{op}('{{{','.join(map(str, ints))}}}'::{kind}[])"


def rewrite(sql: str) -> str:
    """Returns the statement with each long literal IN list as one array constant."""
    if not might_have(sql):
        return sql
    return _LONG_IN.sub(_array, sql)
