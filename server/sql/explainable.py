"""Which statements EXPLAIN and PREPARE take: PostgreSQL's grammar, not our planner's reach.

PostgreSQL 15's ExplainableStmt is a query (SELECT, VALUES, TABLE, WITH, a parenthesised
query), INSERT, UPDATE, DELETE, MERGE, DECLARE, EXECUTE, CREATE TABLE AS, CREATE
MATERIALIZED VIEW and REFRESH MATERIALIZED VIEW; its PreparableStmt only the query and the
four DML statements. Anything else — `EXPLAIN CALL p()`, `PREPARE x AS VACUUM t` — is a
syntax error at the statement's first word (we planned or prepared them).

>>> try:
...     check_explainable("explain call p()", 8)
... except SyntaxError_ as e:
...     print(e.sqlstate, e.message, e.position)
42601 syntax error at or near "call" 9
>>> check_preparable("prepare x as (select 1)", 13) is None
True
"""

from __future__ import annotations

import re

from ..errors import SyntaxError_

_WORD = re.compile(r"\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*([A-Za-z_][A-Za-z_0-9$]*|\S)", re.S)
_PREPARABLE = frozenset({"select", "values", "table", "with", "(", "insert", "update",
                         "delete", "merge"})
_EXPLAINABLE = _PREPARABLE | {"declare", "execute", "create", "refresh"}
_CREATE_PREFIX = frozenset({"temp", "temporary", "unlogged", "local", "global"})


def _refuse(sql: str, pos: int, allowed: frozenset[str]) -> None:
    m = _WORD.match(sql, pos)
    if m is None:
        return  # NB: nothing follows: the caller's own parse reports the end of input
    word = m.group(1)
    if word.lower() not in allowed:
        raise SyntaxError_(f'syntax error at or near "{word}"', position=m.start(1) + 1)
    if word.lower() == "create":  # only CREATE [TEMP ...] TABLE ... AS / MATERIALIZED VIEW
        m = _WORD.match(sql, m.end())
        while m is not None and m.group(1).lower() in _CREATE_PREFIX:
            m = _WORD.match(sql, m.end())
        if m is not None and m.group(1).lower() not in ("table", "materialized"):
            raise SyntaxError_(f'syntax error at or near "{m.group(1)}"',
                               position=m.start(1) + 1)


def check_explainable(sql: str, pos: int) -> None:
    """Raises PostgreSQL's 42601 unless the statement at `sql[pos:]` is one EXPLAIN takes."""
    _refuse(sql, pos, _EXPLAINABLE)


def check_preparable(sql: str, pos: int) -> None:
    """Raises PostgreSQL's 42601 unless the statement at `sql[pos:]` is one PREPARE takes."""
    _refuse(sql, pos, _PREPARABLE)
