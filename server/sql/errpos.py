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
from decimal import Decimal, InvalidOperation

from ..errors import SQLError
from ..pgtypes.numlimits import fits_numeric

_LITERAL_STATES = {"22P02", "22007", "22008", "22003"}
# NB: errors about a name: the message quotes it, PostgreSQL points at it (then, what must follow it)
_NAMED = [
    ("42704", re.compile(r'^type "([A-Za-z_][A-Za-z0-9_$]*)" (?:does not exist|is only a shell)$'), ""),
    ("42703", re.compile(r'^column "([A-Za-z_][A-Za-z0-9_$]*)" of relation "[^"]*" does not exist$'), ""),
    ("42883", re.compile(r"^function ([A-Za-z_][A-Za-z0-9_$]*)\("), "("),
    ("42725", re.compile(r"^function ([A-Za-z_][A-Za-z0-9_$]*)\(.*\) is not unique$"), "("),
    ("42P01", re.compile(r'^missing FROM-clause entry for table "([A-Za-z_][A-Za-z0-9_$]*)"$'), "."),
    ("42P01", re.compile(r'^invalid reference to FROM-clause entry for table "([A-Za-z_][A-Za-z0-9_$]*)"$'), "."),
    ("42702", re.compile(r'^column reference "([A-Za-z_][A-Za-z0-9_$]*)" is ambiguous$'), ""),
    ("42803", re.compile(r'^column "[A-Za-z_][A-Za-z0-9_$]*\.([A-Za-z_][A-Za-z0-9_$]*)" must appear'), ""),
    ("22023", re.compile(r"^(NUMERIC) (?:precision|scale) -?\d+ must be between"), "("),
]
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_QUOTED = re.compile(r'(?:: |^value |^)"((?:[^"]|"")*)"')  # NB: the input value PG quotes


def locate_literal(e: BaseException, sql: str, offset: int = 0) -> None:
    """Sets `e.position` (1-based) to the literal its message quotes, when it has none.

    `offset` is where `sql` starts in the whole Query message.
    """
    if not isinstance(e, SQLError) or e.position is not None:
        return
    if e.position is None and e.sqlstate == "42P08":
        _locate_parameter(e, sql, offset)
    if e.position is None:
        _locate_name(e, sql, offset)
    if e.position is None:
        _locate_clause(e, sql, offset)
    if e.position is None and e.message == "value overflows numeric format":
        _locate_numeric(e, sql, offset)
    if e.position is not None or e.sqlstate not in _LITERAL_STATES:
        return
    m = _QUOTED.search(e.message)  # e.g. `...: "abc"`, `value "9e9" is out of range...`
    if m is None:
        return
    quoted = "'" + m.group(1).replace("'", "''") + "'"
    at = _find_outside_comments(sql, quoted)
    if at >= 0:
        e.position = max(offset, 0) + at + 1


_NUMERIC_LITERAL = re.compile(r"'([^']*)'|(?<![\w.$])(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)")


def _locate_numeric(e: SQLError, sql: str, offset: int) -> None:
    """Points at the first literal numeric cannot hold (`'1e1000000'::numeric`, `1e1000000`).

    >>> e = SQLError("value overflows numeric format", sqlstate="22003")
    >>> locate_literal(e, "select 1, '1e1000000'::numeric")
    >>> e.position
    11
    """
    for m in _NUMERIC_LITERAL.finditer(sql):
        try:
            d = Decimal((m.group(1) if m.group(1) is not None else m.group(2)).strip())
        except InvalidOperation:
            continue
        if not fits_numeric(d):
            e.position = max(offset, 0) + m.start() + 1
            return


def _locate_parameter(e: SQLError, sql: str, offset: int) -> None:
    """Points at the first mention of the parameter a 42P08 names (PostgreSQL points at the
    one whose type it could not settle: the first, in the usual `SELECT $1, $1::int`).

    >>> e = SQLError("inconsistent types deduced for parameter $1", sqlstate="42P08")
    >>> locate_literal(e, "select $1, $1::int")
    >>> e.position
    8
    """
    m = re.search(r"parameter \$(\d+)$", e.message)
    hit = re.search(r"\$" + m.group(1) + r"(?!\d)", sql) if m else None
    if hit is not None:
        e.position = max(offset, 0) + hit.start() + 1


def _locate_name(e: SQLError, sql: str, offset: int) -> None:
    """Points at the name an undefined-object error quotes, when that is unambiguous.

    >>> e = SQLError("function nofn(integer) does not exist", sqlstate="42883")
    >>> locate_literal(e, "select nofn(1)")
    >>> e.position
    8
    """
    for state, pattern, follow in _NAMED:
        m = pattern.match(e.message) if e.sqlstate == state else None
        if m is None:
            continue
        name = m.group(1).lower()
        hits = [at for at, word in _words(sql) if word.lower() == name
                and sql[at + len(word):].lstrip().startswith(follow)]
        if state == "42703" and sql.lstrip()[:5].lower() == "alter":
            return  # NB: PostgreSQL gives ALTER TABLE's column errors no position
        if state == "42702":  # NB: only an unqualified reference can be ambiguous
            hits = [at for at in hits if not sql[:at].rstrip().endswith(".")]
        if state in ("42883", "42725"):  # NB: analysis runs left to right: the first fails first
            hits = hits[:1]
        if len(hits) == 1:
            e.position = max(offset, 0) + hits[0] + 1
        return


_OPERATOR = re.compile(r"^operator (?:does not exist|is not unique): (?:[^ ]+(?: [^ ]+)*? )?"
                       r"([-+*/<>=~!@#%^&|`?]+) ")
_ORDER_BY_N = re.compile(r"^ORDER BY position (\d+) is not in select list$")
_AGG_IN = re.compile(r"^aggregate functions are not allowed in WHERE$")
_AGGREGATES = {"sum", "count", "avg", "min", "max", "array_agg", "string_agg", "bool_and",
               "bool_or", "every", "json_agg", "jsonb_agg", "stddev", "variance"}
_OPCHARS = "+-*/<>=~!@#%^&|`?"


def _locate_clause(e: SQLError, sql: str, offset: int) -> None:
    """Points at an operator, an ORDER BY ordinal or an aggregate in WHERE, when unambiguous.

    >>> e = SQLError("operator does not exist: integer + text", sqlstate="42883")
    >>> locate_literal(e, "select a + 'x'::text from ep")
    >>> e.position
    10
    >>> e = SQLError("ORDER BY position 5 is not in select list", sqlstate="42P10")
    >>> locate_literal(e, "select a from ep order by 5")
    >>> e.position
    27
    """
    code = _code_mask(sql)
    hits: list[int] = []
    m = _OPERATOR.match(e.message) if e.sqlstate in ("42883", "42725") else None
    if m is not None:
        op = m.group(1)
        hits = [i for i in range(len(sql)) if code[i] and sql.startswith(op, i)
                and (i == 0 or sql[i - 1] not in _OPCHARS)
                and sql[i + len(op):i + len(op) + 1] not in tuple(_OPCHARS)]
    m = _ORDER_BY_N.match(e.message) if e.sqlstate == "42P10" else None
    if m is not None:
        clause = [w for w in _words(sql) if w[1].lower() == "order"]
        if len(clause) == 1:
            n = re.compile(r"(?<![\w.$])" + m.group(1) + r"(?![\w.])")
            hits = [x.start() for x in n.finditer(sql, clause[0][0]) if code[x.start()]][:1]
    if _AGG_IN.match(e.message) and e.sqlstate == "42803":
        words = _words(sql)
        where = [at for at, w in words if w.lower() == "where"]
        if len(where) == 1:
            hits = [at for at, w in words if at > where[0] and w.lower() in _AGGREGATES
                    and sql[at + len(w):].lstrip().startswith("(")][:1]
    if len(hits) == 1:
        e.position = max(offset, 0) + hits[0] + 1


def _words(sql: str) -> list[tuple[int, str]]:
    """The unquoted words of `sql` outside strings, quoted identifiers and comments."""
    code = _code_mask(sql)
    return [(m.start(), m.group()) for m in _WORD.finditer(sql)
            if code[m.start()] and (m.start() == 0 or not code[m.start() - 1]
                                    or not (sql[m.start() - 1].isalnum() or sql[m.start() - 1] in "_$"))]


def _code_mask(sql: str) -> list[bool]:
    """For each character: is it SQL code (not inside a string, quoted identifier or comment)?"""
    mask = [True] * len(sql)
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c == "'":
            j = i + 1
            while j < n and not (sql[j] == "'" and not sql.startswith("''", j)):
                j += 2 if sql.startswith("''", j) else 1
            end = j + 1
        elif sql.startswith("--", i):
            nl = sql.find("\n", i)
            end = n if nl < 0 else nl + 1
        elif sql.startswith("/*", i):
            close = sql.find("*/", i + 2)
            end = n if close < 0 else close + 2
        elif c == '"':
            close = sql.find('"', i + 1)
            end = n if close < 0 else close + 1
        else:
            i += 1
            continue
        for k in range(i, min(end, n)):
            mask[k] = False
        i = end
    return mask


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
    """`at end of input` becomes `at or near ";"` when the statement's `;` is what follows, and
    points past the Query's trailing blanks when nothing does.

    Statements are parsed without their terminating semicolon, but PostgreSQL lexes
    the whole Query message, so the token at the error's position is that `;`.

    >>> e = SQLError("syntax error at end of input", sqlstate="42601", position=23)
    >>> semicolon_after(e, "select 1 from ep where;")
    >>> e.message
    'syntax error at or near ";"'
    >>> e = SQLError("syntax error at end of input", sqlstate="42601", position=11)
    >>> semicolon_after(e, "select 1 +  ")
    >>> e.position
    13
    """
    if not isinstance(e, SQLError) or e.position is None or e.sqlstate != "42601":
        return
    if e.message != "syntax error at end of input":
        return
    rest = sql[e.position - 1:]
    stripped = rest.lstrip()
    if not stripped:  # NB: the end of the input is after the Query's trailing blanks
        e.position = len(sql) + 1
    elif stripped.startswith(";"):
        e.position += len(rest) - len(stripped)
        e.message = 'syntax error at or near ";"'
        e.args = (e.message,)
