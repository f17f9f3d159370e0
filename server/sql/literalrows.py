"""Multi-row INSERT ... VALUES of literals, turned into parameters in C-level passes.

psycopg2's `execute_values`, `pg_dump --inserts --rows-per-insert`, ORMs that
render literals and hand-written loaders send one statement of thousands of
rows of constants:

    INSERT INTO t VALUES (1, 'name1', '2024-01-01 00:00:00', 1.5), (2, ...), ...

`parse.normalize` would replace each literal by a parameter in a Python loop
over a regex scan of the whole text. Here the rows are matched by one regular
expression per row width (one group per cell): a `match` checks that the
whole VALUES list is rows of plain literals, and `findall` hands back every
row's cells as tuples. Each column is then converted as a whole list. The
result is what `normalize` returns (the text with `$n` for every cell, the
values and their declared types), so the statement takes the parameterised
multi-row path (`manyvalues` → `dml.manyrows`): parsed once per shape,
compiled once per column, and cached by shape.

PostgreSQL's literal typing is kept exactly, because a declared parameter type
is the type the literal would have had: an integer is int4, int8 or numeric by
its size (after the sign: `-2147483648` is int4, as the grammar folds the
minus into the constant), a number with a point or exponent is numeric, a
quoted string is unknown (typed by its column, so `'1.5'` into an int column
is 22P02 while `1.5` is rounded by the assignment cast), TRUE/FALSE are
boolean and NULL is an unknown null. Anything else (DEFAULT, casts,
expressions, `- 5`, E'' strings, comments, rows of different widths) returns
None and the statement goes the general way.

>>> ntext, values, oids = normalize(
...     "INSERT INTO t VALUES (1, 'a''b', NULL), (-2147483648, 'c', 1.50), (3e2, 'd', TRUE)")
>>> ntext
'INSERT INTO t VALUES ($1,$2,$3),($4,$5,$6),($7,$8,$9)'
>>> values
(1, "a'b", None, -2147483648, 'c', Decimal('1.50'), Decimal('3E+2'), 'd', True)
>>> oids
(23, 0, 0, 23, 0, 1700, 1700, 0, 16)
>>> normalize("INSERT INTO t VALUES (1, 'a'), (2, now())") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..pgtypes.numlimits import fits_numeric
from .manyvalues import _HEAD, canonical_rows

_INT4_MIN, _INT4_MAX = -(2**31), 2**31 - 1
_INT8_MIN, _INT8_MAX = -(2**63), 2**63 - 1
_NUM = r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_CELL = r"(?:" + _NUM + r"|'[^']*(?:''[^']*)*'(?:::[A-Za-z_][A-Za-z_0-9]*)?|NULL|TRUE|FALSE)"
_TAIL = re.compile(r"\s*(?:;\s*$|$|ON\s+CONFLICT\b|RETURNING\b)", re.I)
_NOT_INT = re.compile(r"[.eE]")
MIN_ROWS = 2
_MAX_BODIES = 16
_bodies: dict[tuple[tuple[str, ...], int], str] = {}


@lru_cache(maxsize=64)
def _patterns(width: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The regexes for rows of `width` cells: one row with a group per cell, and a run of rows."""
    cells = r"\s*,\s*".join([_CELL] * width)
    row = r"\(\s*" + cells + r"\s*\)"
    grouped = r"\(\s*" + r"\s*,\s*".join(["(" + _CELL + ")"] * width) + r"\s*\)"
    return (re.compile(grouped, re.I | re.A),
            re.compile(row + r"(?:\s*,\s*" + row + r")*", re.I | re.A))


_FIRST_ROW = re.compile(r"\(\s*" + _CELL + r"(?:\s*,\s*" + _CELL + r")*\s*\)", re.I | re.A)
_STRING = re.compile(r"'[^']*(?:''[^']*)*'")


def _width(row: str) -> int:
    """The number of cells of one matched row (commas outside quoted strings, plus one)."""
    return _STRING.sub("", row).count(",") + 1


@dataclass(frozen=True)
class LiteralRows:
    """A multi-row VALUES of literals: the text around the rows, and every cell's value and type.

    `shape` is the statement with `MIN_ROWS` rows of parameters when every row declares the
    same types: one plan then serves any row count and any values (`session.lookup_simple`).

    >>> r = split("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL) RETURNING 1")
    >>> r.shape()
    ('INSERT INTO t VALUES ($1,$2),($3,$4) RETURNING 1', (23, 0, 23, 0))
    >>> split("INSERT INTO t VALUES (1, 'a'), (3000000000, 'b')").shape() is None
    True
    """

    head: str
    casts: tuple[str, ...]
    rows: int
    tail: str
    values: tuple[Any, ...]
    oids: tuple[int, ...]

    def text(self) -> str:
        return self.head + _body(self.casts, self.rows) + self.tail

    def shape(self) -> tuple[str, tuple[int, ...]] | None:
        """(text with `MIN_ROWS` rows, their declared types) if all rows declare the same."""
        width = len(self.casts)
        row = self.oids[:width]
        if self.oids != row * self.rows:
            return None
        return self.head + _body(self.casts, MIN_ROWS) + self.tail, row * MIN_ROWS


def normalize(sql: str) -> tuple[str, tuple[Any, ...], tuple[int, ...]] | None:
    """`parse.normalize`'s answer for a multi-row VALUES of literals, or None."""
    r = split(sql)
    return None if r is None else (r.text(), r.values, r.oids)


def split(sql: str) -> LiteralRows | None:
    """The statement's rows of literals as values and types, or None if it is not one."""
    if "\x00" in sql or "$" in sql:
        return None
    head = _HEAD.match(sql)
    if head is None:
        return None
    pos = head.end()
    first = _FIRST_ROW.match(sql, pos)
    if first is None:
        return None
    width = _width(first.group(0))
    grouped, run = _patterns(width)
    body = run.match(sql, pos)
    if body is None:
        return None
    tail = sql[body.end():]
    if not _TAIL.match(tail) or "--" in tail or "/*" in tail:
        return None
    rows = grouped.findall(sql, pos, body.end())
    n = len(rows)
    if n < MIN_ROWS:
        return None
    if width == 1:
        rows = [(r,) for r in rows]
    flat_values: list[Any] = [None] * (n * width)
    flat_oids: list[int] = [0] * (n * width)
    casts: list[str] = []
    for c, col in enumerate(zip(*rows, strict=True)):
        cast = ""
        if col[0][-1] != "'" and col[0][0] == "'":  # `'...'::type`: every row's, or none
            cast = col[0][col[0].rindex("'"):]
            if not all(t.endswith(cast) for t in col):
                return None
            col = tuple(t[:1 - len(cast)] for t in col)
            cast = cast[1:]
        casts.append(cast)
        conv = _column(col)
        if conv is None:
            return None
        flat_values[c::width], flat_oids[c::width] = conv
    return LiteralRows(sql[:pos], tuple(casts), n, tail, tuple(flat_values), tuple(flat_oids))


def _body(casts: tuple[str, ...], rows: int) -> str:
    """`($1,$2),($3,$4),...`: the same text for every statement of this many rows and cells.

    A column of `'...'::type` literals keeps its cast on the parameter (`$2::date`), so the
    string is read by the type's input function and then cast, as the typed literal is.
    """
    key = (casts, rows)
    text = _bodies.get(key)
    if text is None:
        if any(casts):
            row = "(" + ",".join("$%d" + c for c in casts) + ")"
            text = ",".join([row] * rows) % tuple(range(1, len(casts) * rows + 1))
        else:
            text = canonical_rows(len(casts), rows)
        if len(_bodies) >= _MAX_BODIES:
            _bodies.clear()
        _bodies[key] = text
    return text


def _column(col: tuple[str, ...]) -> tuple[list[Any], list[int]] | None:
    """One column's literals as values and declared types; None if one is out of range."""
    firsts = {t[0] for t in col}
    if firsts == {"'"}:
        joined = "\x00".join(col)
        if "''" in joined:
            return [t[1:-1].replace("''", "'") for t in col], [0] * len(col)
        return [t[1:-1] for t in col], [0] * len(col)
    if firsts <= _INT_FIRSTS and not _NOT_INT.search("".join(col)):
        ints = list(map(int, col))
        if _INT4_MIN <= min(ints) and max(ints) <= _INT4_MAX:
            return ints, [23] * len(col)
    if firsts <= _NUM_FIRSTS:
        joined = "".join(col)
        if (joined.count(".") == len(col) and "e" not in joined and "E" not in joined
                and len(joined) < 100_000):
            return list(map(Decimal, col)), [1700] * len(col)  # NB: too short to overflow
    values: list[Any] = []
    oids: list[int] = []
    for t in col:
        v, oid = _literal(t)
        if oid < 0:
            return None
        values.append(v)
        oids.append(oid)
    return values, oids


_INT_FIRSTS = frozenset("-0123456789")
_NUM_FIRSTS = frozenset(".0123456789")


def _literal(tok: str) -> tuple[Any, int]:
    """One literal's value and type OID (0: unknown); type -1 when it is out of range."""
    c = tok[0]
    if c == "'":
        return tok[1:-1].replace("''", "'"), 0
    if c.isalpha():
        low = tok.lower()
        return (None, 0) if low == "null" else (low == "true", 16)
    if _NOT_INT.search(tok):
        d = Decimal(tok)
        if not fits_numeric(d):
            return None, -1  # NB: the general path gives numeric_in's 22003
        return (d.copy_abs() if d.is_zero() else d), 1700
    v = int(tok)
    if _INT4_MIN <= v <= _INT4_MAX:
        return v, 23
    if _INT8_MIN <= v <= _INT8_MAX:
        return v, 20
    return Decimal(v), 1700
