"""ALTER TABLE with several actions that are not all ALTER TABLE actions sqlglot reads.

`ALTER TABLE t ADD COLUMN c int, RESET (fillfactor)`, `... DISABLE TRIGGER ALL, ADD
COLUMN d int` or `... ADD COLUMN e int, OWNER TO r` are one statement in PostgreSQL,
but each such action has a route of its own here (`viewalter.analyse_reset`,
`triggers`, `privileges.owner` ...), which reads it only alone. So the action list is
cut at its top-level commas and each action runs, in the order written, as
`ALTER TABLE [ONLY] name action`, all within this one statement (one transaction: an
error in a later action undoes the earlier ones). The relation is looked up once
first, so IF EXISTS gives one NOTICE for a missing relation, as in PostgreSQL.

Statements whose actions sqlglot reads together (ADD / DROP / ALTER COLUMN, ADD
CONSTRAINT, SET (...)) keep the ordinary path (`alter.alter_table`).

>>> split("ALTER TABLE IF EXISTS s.t ADD c text DEFAULT 'a,b', RESET (x, y)")
('IF EXISTS ', '', 's.t', ["ADD c text DEFAULT 'a,b'", 'RESET (x, y)'])
>>> split("alter table t add column c int") is None
True
>>> try:
...     split("alter table t add column c int, set schema s")
... except SyntaxError_ as e:
...     print(e.sqlstate, e.message, e.position)
42601 syntax error at or near "schema" 37
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from ...errors import SyntaxError_, UndefinedTable
from ...pgwire.backend import Result
from ..parse import parse_sql
from ..stmt import Stmt
from .names import find_relation, parse_qualified, skip_or_raise
from .triggers import is_trigger_ddl

if TYPE_CHECKING:
    from ..session import SQLSession

__all__ = ["analyse_multi_alter", "split"]

_NAME = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z_0-9$]*)'
_HEAD = re.compile(rf"\s*ALTER\s+TABLE\s+(?P<ie>IF\s+EXISTS\s+)?(?P<only>ONLY\s+)?"
                   rf"(?P<name>{_NAME}(?:\s*\.\s*{_NAME})?)(?:\s*\*)?\s+", re.I)


def split(sql: str) -> tuple[str, str, str, list[str]] | None:
    """(IF EXISTS, ONLY, the relation as written, the actions) of an ALTER TABLE with two
    or more actions; None for anything else. RENAME and SET SCHEMA there are 42601."""
    m = _HEAD.match(sql)
    if m is None:
        return None
    body = sql[:len(sql.rstrip().rstrip(";"))]
    try:
        tokens = Postgres().tokenize(body)  # NB: whole: `reset` first would be a COMMAND
    except TokenError:
        return None
    depth, cuts = 0, []
    for t in tokens:
        if t.start < m.end():
            continue
        if t.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
        elif t.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
        elif t.token_type == TokenType.COMMA and depth == 0:
            cuts.append(t.start)
    if not cuts:
        return None
    bounds = [m.end() - 1, *cuts, len(body)]
    actions = [body[a + 1:b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]
    _check_grammar(sql, actions, cuts)
    return m.group("ie") or "", m.group("only") or "", m.group("name"), actions


_ALONE = re.compile(r"(?:RENAME|SET\s+(?P<schema>SCHEMA))\b", re.I)


def _check_grammar(sql: str, actions: list[str], cuts: list[int]) -> None:
    """PostgreSQL's 42601 for RENAME or SET SCHEMA among other actions (its grammar has
    them only alone): at the comma after a first one, else at the word."""
    for i, a in enumerate(actions):
        m = _ALONE.match(a)
        if m is None:
            continue
        at = cuts[0] if i == 0 else sql.index(a, cuts[i - 1]) + (
            m.start("schema") if m.group("schema") else 0)
        word = "," if i == 0 else sql[at:at + 6]  # NB: RENAME and SCHEMA: 6 letters
        raise SyntaxError_(f'syntax error at or near "{word}"', position=at + 1)


def _alone(text: str) -> bool:
    """True if sqlglot reads `text` (one ALTER TABLE action) as an ALTER TABLE action."""
    if is_trigger_ddl(text):
        return False
    try:
        tree = parse_sql(text)
    except (ParseError, TokenError, Exception):  # noqa: BLE001 - any failure: not alone
        return False
    return isinstance(tree, exp.Alter) and not tree.args.get("options")


def analyse_multi_alter(session: SQLSession, sql: str,
                        analyse: Callable[[Any, str, list[int]], Stmt]) -> Stmt | None:
    """The Stmt of an ALTER TABLE whose actions must run one by one; None when the
    statement is not one (`analyse` is the statement router, passed in from above)."""
    parts = split(sql)
    if parts is None:
        return None
    ie, only, name, actions = parts
    texts = [f"ALTER TABLE {only}{name} {a}" for a in actions]
    if all(_alone(t) for t in texts):
        return None

    def run(s: SQLSession, params: list[Any]) -> Result:
        schema, rel = parse_qualified(name)
        if find_relation(s.catalog(), schema, rel, s.search_path()) is None:
            skip_or_raise(s, f'relation "{rel}"', bool(ie), UndefinedTable)
            return Result("ALTER TABLE")
        for text in texts:  # NB: analysed when its turn comes: it sees the earlier ones
            analyse(s, text, []).run(s, [])
        return Result("ALTER TABLE")

    return Stmt(sql, "ddl", run, None, [], -1, tag="ALTER TABLE")
