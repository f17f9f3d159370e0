"""Geometric and jsonpath operators sqlglot does not read, respelled before parsing.

PostgreSQL's lexer reads any run of operator characters as one operator, so
`a ~= b`, `a <^ b`, `a |&> b`, `a ?-| b`, `@-@ s`, `# path`, `?- lseg`, `j @? p`
are operators there. sqlglot fails on them (or, for `?-`, reads `a ? -b`). Each
is respelled PostgreSQL's explicit way, `a OPERATOR(pg_catalog.~=) b`, which
sqlglot reads with Op's precedence; a prefix one (`@@`, `#`, `?-`, `?|` with no
left operand) gets NULL as its left operand, which the binder reads as "none".
Strings, quoted names, comments and dollar quotes are left alone, and so is
every operator sqlglot already reads (`<->`, `@>`, `&&`, `#` between operands).

>>> print(rewrite("select a ~= b, @-@ s, # p, a ?-| b from t where x = '~='"))
select a  OPERATOR(pg_catalog.~=)  b,  NULL OPERATOR(pg_catalog.@-@)  s,  NULL OPERATOR(pg_catalog.#)  p, a  OPERATOR(pg_catalog.?-|)  b from t where x = '~='
>>> print(rewrite("select a # b, (@@ c), x ?| y"))
select a # b, ( NULL OPERATOR(pg_catalog.@@)  c), x ?| y
"""

from __future__ import annotations

import re

# binary-only spellings sqlglot cannot read
BINARY = frozenset(("~=", "<^", ">^", "<<|", "|>>", "&<|", "|&>", "?#", "##", "?-|", "?||", "@?",
                    "<->",  # NB: sqlglot reads <-> but binds it tighter than + and *
                    "<%", "%>", "<<%", "%>>", "<<->", "<->>", "<<<->", "<->>>"))  # pg_trgm's
# spellings that are prefix operators when nothing stands on their left
PREFIX = frozenset(("@-@", "@@", "#", "?-", "?|"))
NAMES = BINARY | PREFIX
_TOKENS = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*"
    r"|/\*.*?\*/|\$(?P<tag>(?:[A-Za-z_]\w*)?)\$.*?\$(?P=tag)\$)"
    r"|(?P<op>[~!@#%^&|`?+*/<>=-]+)", re.S)
_OPERAND_END = re.compile(r"(?:[\w\"')\]]|\$\d+)\s*$")
_KEYWORD_END = re.compile(
    r"\b(?:select|where|and|or|not|when|then|else|by|on|having|returning|in|is|distinct|all"
    r"|values|set|as|from|case|between|like|array|any|some)\s*$", re.I)


_NEEDED = re.compile("|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True)))


def needed(sql: str) -> bool:
    """A cheap test: might `sql` hold one of these spellings?"""
    return _NEEDED.search(sql) is not None


def _prefix_position(before: str) -> bool:
    """Nothing that ends an operand stands left of the operator (a keyword does not)."""
    return _OPERAND_END.search(before) is None or _KEYWORD_END.search(before) is not None


def rewrite(sql: str) -> str:
    """`sql` with those operators spelled OPERATOR(pg_catalog.op)."""
    out: list[str] = []
    pos = 0
    for m in _TOKENS.finditer(sql):
        op = m.group("op")
        if op is None or op not in NAMES:
            continue
        before = sql[max(0, m.start() - 40):m.start()]
        if op in PREFIX and _prefix_position(before):
            repl = f" NULL OPERATOR(pg_catalog.{op}) "
        elif op in BINARY:
            repl = f" OPERATOR(pg_catalog.{op}) "
        elif op == "?-":  # binary point ?- point (horizontal): sqlglot reads `a ? -b`
            repl = f" OPERATOR(pg_catalog.{op}) "
        else:
            continue
        out.append(sql[pos:m.start()])
        out.append(repl)
        pos = m.end()
    out.append(sql[pos:])
    return "".join(out)
