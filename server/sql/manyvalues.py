"""Multi-row INSERT ... VALUES with parameters, recognised by shape before sqlglot sees it.

SQLAlchemy's "insertmanyvalues" executemany (which `pandas.DataFrame.to_sql`
uses) sends one statement per 1,000 rows, each row the same tuple of
parameters with casts:

    INSERT INTO t (a, b) VALUES ($1::BIGINT, $2::VARCHAR), ($3::BIGINT, $4::VARCHAR), ...

Parsing that with sqlglot builds thousands of AST nodes and analysing them
compiles every cell on its own: seconds per batch. Every row has the same
shape, so `split` checks that with regular expressions (one C-level match
per row), and hands back the statement with only its first row, plus how
many rows there are and how many parameters each takes. The INSERT analyser
compiles that one row once, per column, and converts whole columns of
parameters at run time (`dml.manyrows`).

Anything else (literals, DEFAULT, expressions, parameters after VALUES,
rows of different shapes) returns None, and the statement is parsed as
written.

>>> split("INSERT INTO t (a, b) VALUES ($1::INT, $2), ($3::INT, $4), ($5::INT, $6)")
ManyValues(head='INSERT INTO t (a, b) VALUES ($1::INT, $2)', rows=3, stride=2)
>>> split("INSERT INTO t VALUES ($1, $2), ($4, $3)") is None
True
>>> split("INSERT INTO t VALUES ($1, now()), ($2, now())") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_HEAD = re.compile(
    r"\s*INSERT\s+INTO\s+" + _NAME + r"(?:\s*\.\s*" + _NAME + r"){0,2}"
    r"(?:\s+AS\s+" + _NAME + r")?\s*(?:\([^()$;'\"]*\)\s*)?"
    r"(?:OVERRIDING\s+(?:SYSTEM|USER)\s+VALUE\s*)?VALUES\s*", re.I)
# A type name after `::`: words, a typmod, array brackets (`TIMESTAMP(3) WITHOUT TIME ZONE`,
# `NUMERIC(12, 2)`, `FLOAT(53)`, `VARCHAR[]`)
_TYPE = (r"[A-Za-z_][A-Za-z_0-9]*(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?"
         r"(?:\s+(?!\d)[A-Za-z_][A-Za-z_0-9]*(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)*"
         r"(?:\s*\[\s*\])*")
_ELEM = r"\$\d+(?:\s*::\s*" + _TYPE + r")?"
_ROW = re.compile(r"\(\s*" + _ELEM + r"(?:\s*,\s*" + _ELEM + r")*\s*\)")
_SEP = re.compile(r"\s*,\s*")
_PARAM = re.compile(r"\$(\d+)")
_TAIL = re.compile(r"\s*(?:$|ON\s+CONFLICT\b|RETURNING\b)", re.I)
MIN_ROWS = 2


@dataclass(frozen=True)
class ManyValues:
    """A multi-row VALUES insert: its text with the first row only, and the rows' count and width."""

    head: str
    rows: int
    stride: int  # parameters per row: row r uses $(r*stride+1) .. $(r*stride+stride)


def canonical_rows(width: int, rows: int) -> str:
    """`($1,$2),($3,$4),...`: the rows `literalrows` writes, which `split` checks in one compare.

    >>> canonical_rows(2, 3)
    '($1,$2),($3,$4),($5,$6)'
    """
    row = "(" + ",".join(["$%d"] * width) + ")"
    return ",".join([row] * rows) % tuple(range(1, width * rows + 1))


def _canonical(sql: str, pos: int) -> ManyValues | None:
    """`split`'s answer in C-level steps when the rows are exactly `canonical_rows`."""
    end = sql.find(")", pos)
    width = sql.count("$", pos, end)
    total = sql.count("$")
    if width == 0 or total % width or total // width < MIN_ROWS:
        return None
    rows = total // width
    body = canonical_rows(width, rows)
    if not sql.startswith(body, pos):
        return None
    tail = sql[pos + len(body):]
    if not _TAIL.match(tail):
        return None
    return ManyValues(sql[:pos + len(canonical_rows(width, 1))] + tail, rows, width)


def split(sql: str) -> ManyValues | None:
    """Returns the statement's shape if every row is the first one's, parameters shifted."""
    head = _HEAD.match(sql)
    if head is None:
        return None
    pos, n = head.end(), len(sql)
    if sql.startswith("($1,", pos) or sql.startswith("($1)", pos):
        canonical = _canonical(sql, pos)
        if canonical is not None:
            return canonical
    first = _ROW.match(sql, pos)
    if first is None:
        return None
    text0 = first.group(0)
    nums0 = [int(x) for x in _PARAM.findall(text0)]
    stride = len(nums0)
    if sorted(nums0) != list(range(1, stride + 1)):
        return None
    shape0 = _PARAM.sub("$", text0)
    rows, end = 1, first.end()
    while True:
        sep = _SEP.match(sql, end)
        if sep is None or sep.end() >= n or sql[sep.end()] != "(":
            break
        m = _ROW.match(sql, sep.end())
        if m is None:
            return None
        text = m.group(0)
        base = rows * stride
        nums = [int(x) - base for x in _PARAM.findall(text)]
        if nums != nums0 or _PARAM.sub("$", text) != shape0:
            return None
        rows, end = rows + 1, m.end()
    tail = sql[end:]
    if rows < MIN_ROWS or "$" in tail or not _TAIL.match(tail):
        return None
    return ManyValues(sql[:first.end()] + tail, rows, stride)
