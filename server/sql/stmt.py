"""The analysed statement (`Stmt`): what the plan cache holds and what `Prepared.handle` carries.

A `Stmt` is the result of analysing one statement's text once: which kind it
is, its row shape and parameter types, and a `run(session, params)` closure
that executes it. The closure captures everything that can be computed
ahead of time (the compiled plan, the resolved table, compiled expressions),
so running a cached pgbench statement is one call plus the actual work.

This is a leaf module: every analyser (DDL, DML, queries, COPY, cursors,
utility statements) builds a `Stmt`, and `statement.analyse` routes a text to
them, so the type lives below both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import SQLError, SyntaxError_
from ..pgwire.backend import Column, Result

if TYPE_CHECKING:
    from .session import SQLSession

ANY_VERSION = -2  # a statement whose analysis does not depend on the catalog (BEGIN, SET ...)


@dataclass
class Stmt:
    """One analysed statement."""

    sql: str
    kind: str  # "query", "dml", "ddl", "txn", "utility", "copy", "cursor"
    run: Callable[[SQLSession, list[Any]], Result]
    columns: list[Column] | None = None
    param_oids: list[int] = field(default_factory=list)
    version: int = 0  # catalog version it was analysed against (-1: never cache; ANY: always valid)
    in_txn: bool = True  # runs inside the (implicit or explicit) transaction
    no_block: bool = False  # 25001 inside a transaction block
    allowed_when_failed: bool = False  # COMMIT / ROLLBACK / ROLLBACK TO in a failed block
    tag: str = ""
    plan: Any = None  # for queries: the compiled QueryPlan
    search_path: str = ""  # the search_path it was analysed under (replanned when it changes)
    timezone: tuple[str, ...] = ()  # TimeZone, DateStyle, IntervalStyle it was analysed under
    many: Any = None  # a one-row INSERT's bulk runner for pipelined executions (dml.batchinsert)
    # the privilege check `run` makes first (`privileges.statements.guard`; None: none, or
    # not known), for a caller that runs the plan itself (the session's `read_point` lane)
    check: Callable[[SQLSession], None] | None = None
    # the names whose change drops the plan (`plan.deps`; None: any DDL commit does)
    deps: frozenset[str] | None = None
    # the result columns as the session stands now, for a statement whose shape is not fixed
    # at Parse (FETCH: its cursor's); pgwire describes each Bind's portal with it
    describe: Callable[[SQLSession], list[Column] | None] | None = None


Analyse = Callable[["SQLSession", str, list[int]], Stmt]
"""`statement.analyse`: text to Stmt. Analysers that recurse (PREPARE) take it as a parameter."""

AnalyseTree = Callable[["SQLSession", str, exp.Expression, list[int]], Stmt]
"""`statement.analyse_tree`: a parsed statement to Stmt (EXPLAIN, PL/pgSQL take it so)."""


def syntax_error_at(sql: str, offset: int = 0) -> SQLError:
    """PostgreSQL's 42601 for text that starts no statement: at its first word (`offset`:
    where `sql` starts in the statement's text)."""
    word = (sql.split() or [""])[0].rstrip(";")
    return SyntaxError_(f'syntax error at or near "{word}"',
                        position=offset + sql.find(word) + 1)
