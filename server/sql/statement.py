"""Analysed statements: what the plan cache holds and what `Prepared.handle` carries.

A `Stmt` is the result of analysing one statement's text once: which kind it
is, its row shape and parameter types, and a `run(session, params)` closure
that executes it. The closure captures everything that can be computed
ahead of time (the compiled plan, the resolved table, compiled expressions),
so running a cached pgbench statement is one call plus the actual work.

`analyse` routes the text: first the pre-parser's utility statements
(`parse.utility`), then sqlglot, then by AST type to the module that owns the
statement (DDL, DML, queries, COPY, cursors).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import FeatureNotSupported, SQLError, SyntaxError_
from ..pgwire.backend import Column, Result
from .context import ParamTypes
from .lockrows import plan_locking, wants_locks
from .nestedlocks import reject_nested_locks
from .parse import parse_sql, strip_leading_comments, utility
from .privileges.statements import guard

if TYPE_CHECKING:
    from .session import SQLSession


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


_NULLS_DISTINCT = re.compile(r"(?<=\))\s*NULLS\s+(NOT\s+)?DISTINCT\b", re.I)
_FUNCTION_DDL = re.compile(r"(?:CREATE\s+(?:OR\s+REPLACE\s+)?|DROP\s+)FUNCTION\b", re.I)
ANY_VERSION = -2  # a statement whose analysis does not depend on the catalog (BEGIN, SET ...)


def compiler() -> Any:
    """Returns the query compiler (imported lazily: it is built alongside this layer)."""
    try:
        from .plan.compiler import COMPILER
    except ImportError as e:  # pragma: no cover - until the compiler exists
        raise FeatureNotSupported(f"the query compiler is not available: {e}") from None
    return COMPILER


def analyse(session: SQLSession, sql: str, param_oids: list[int]) -> Stmt:
    """Analyses one statement's text into a runnable `Stmt`."""
    text = strip_leading_comments(sql)
    u = utility(text)
    if u is not None:
        from . import utility as util

        return util.analyse_utility(session, text, u[0], u[1], param_oids)
    if _FUNCTION_DDL.match(text):  # CREATE FUNCTION / DROP FUNCTION: sqlglot reads neither
        from .plpgsql.functions import analyse_function_ddl

        return analyse_function_ddl(session, text)
    tree = parse_sql(text)
    return analyse_tree(session, text, tree, param_oids)


_CREATE_MODIFIERS = {"OR", "REPLACE", "TEMP", "TEMPORARY", "UNLOGGED", "GLOBAL", "LOCAL",
                     "UNIQUE", "TRUSTED", "PROCEDURAL", "DEFAULT", "MATERIALIZED", "RECURSIVE"}


def analyse_tree(session: SQLSession, sql: str, tree: exp.Expression,
                 param_oids: list[int]) -> Stmt:
    """Analyses a parsed statement."""
    version = session.catalog_version()
    reject_nested_locks(tree)  # FOR UPDATE in a CTE or FROM subquery: 0A000, never no lock
    if isinstance(tree, exp.Query | exp.Values):
        return guard(analyse_query(session, sql, tree, param_oids, version), tree)
    if isinstance(tree, exp.Insert | exp.Update | exp.Delete):
        from .dml import analyse_dml

        if isinstance(tree, exp.Update | exp.Delete):  # WHERE ... (SELECT ... FOR UPDATE)
            from .dml.locksub import analyse_locking_dml

            locking = analyse_locking_dml(
                session, sql, tree, param_oids,
                lambda se, text, t, oids: analyse_dml(se, text, t, oids, version))
            if locking is not None:
                return guard(locking, tree)
        return guard(analyse_dml(session, sql, tree, param_oids, version), tree)
    if isinstance(tree, exp.Create | exp.Drop | exp.Alter | exp.TruncateTable | exp.Comment):
        from .ddl import dispatch

        stmt = dispatch.analyse_ddl(session, sql, tree, param_oids, version)
        return guard(stmt, tree) if isinstance(tree, exp.TruncateTable) else stmt
    if isinstance(tree, exp.Transaction | exp.Commit | exp.Rollback):
        from . import txnctl

        return txnctl.analyse_sqlglot_txn(session, sql, tree)
    if isinstance(tree, exp.Set):
        from . import utility as util

        return util.analyse_set_tree(session, sql, tree)
    if isinstance(tree, exp.Command):
        word = str(tree.this).upper()
        nulls = _NULLS_DISTINCT.search(sql) if word == "CREATE" else None
        if nulls is not None:  # CREATE UNIQUE INDEX ... NULLS [NOT] DISTINCT (PostgreSQL 15)
            inner = parse_sql(_NULLS_DISTINCT.sub(" ", sql, count=1))
            if isinstance(inner, exp.Create) and str(inner.args.get("kind")).upper() == "INDEX":
                inner.meta["nulls_not_distinct"] = bool(nulls.group(1))
                return analyse_tree(session, sql, inner, param_oids)
        if word == "DO":  # an anonymous PL/pgSQL block
            from .plpgsql import analyse_do

            return analyse_do(session, sql)
        if word == "ALTER":  # ALTER COLUMN ... DROP IDENTITY / ADD GENERATED ... AS IDENTITY
            from .ddl.pkeys import analyse_identity

            identity = analyse_identity(session, sql)
            if identity is not None:
                return identity
            from .privileges.owner import analyse_owner  # ALTER ... OWNER TO

            owner = analyse_owner(session, sql)
            if owner is not None:
                return owner
            from .privileges.defaults import analyse as analyse_default_privileges

            defaults = analyse_default_privileges(sql)
            if defaults is not None:
                return defaults
            from .ddl.constraints import analyse_validate

            validate = analyse_validate(sql)
            if validate is not None:
                return validate
            word = " ".join(sql.split()[:2]).upper()  # NB: name the statement: ALTER VIEW, ALTER TYPE
        if word == "CREATE":
            words = sql.upper().split()
            kind = next((w for w in words[1:] if w not in _CREATE_MODIFIERS), "")
            word = "CREATE TABLE ... ON COMMIT" if re.search(r"\bON\s+COMMIT\b", sql, re.I) \
                else f"CREATE {kind}".strip()
        raise FeatureNotSupported(f"{word} is not supported")
    if not isinstance(tree, exp.DDL | exp.DML | exp.Command):  # a bare word or expression
        raise syntax_error_at(sql)
    raise FeatureNotSupported(f"statement not supported: {sql[:60]}")


def syntax_error_at(sql: str, offset: int = 0) -> SQLError:
    """PostgreSQL's 42601 for text that starts no statement: at its first word (`offset`:
    where `sql` starts in the statement's text)."""
    word = (sql.split() or [""])[0].rstrip(";")
    return SyntaxError_(f'syntax error at or near "{word}"',
                        position=offset + sql.find(word) + 1)


def analyse_query(session: SQLSession, sql: str, tree: exp.Expression, param_oids: list[int],
                  version: int) -> Stmt:
    """Plans a query once; its `run` executes the cached plan."""
    params = ParamTypes(list(param_oids))
    if wants_locks(tree):  # SELECT ... FOR UPDATE
        plan: Any = plan_locking(session, tree, params, compiler())
    else:
        plan = compiler().plan_query(tree, session.catalog(), params, session.search_path())

    def run(s: SQLSession, values: list[Any]) -> Result:
        return s.run_plan(plan, values)

    return Stmt(sql, "query", run, list(plan.columns), params.oids, version, tag="SELECT",
                plan=plan)
