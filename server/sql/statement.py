"""The statement router: `analyse` turns one statement's text into a runnable `Stmt`.

`analyse` routes the text: first the pre-parser's utility statements
(`parse.utility`), then sqlglot, then by AST type to the module that owns the
statement (DDL, DML, queries, COPY, cursors). Every one of them sits below
this module and builds a `stmt.Stmt`; those that analyse a statement they
contain (PREPARE, EXPLAIN, PL/pgSQL) get `analyse` or `analyse_tree` as a
parameter instead of importing this module back.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from ..errors import FeatureNotSupported
from . import txnctl, utility
from .ddl import dispatch, owned
from .ddl.altersplit import analyse_multi_alter
from .ddl.attach import analyse_attach
from .ddl.constraints import analyse_validate
from .ddl.matviews import analyse_matview
from .ddl.physical import analyse_physical
from .ddl.pkeys import analyse_identity
from .ddl.renamecon import analyse_rename_constraint
from .ddl.routines import analyse_routine_alter
from .ddl.schemastmt import analyse_create_schema, is_schema_with_elements
from .ddl.triggers import analyse_trigger_ddl, is_trigger_ddl
from .ddl.viewalter import analyse_reset, analyse_set_schema
from .dml.analyse import analyse_dml
from .dml.ctasdml import analyse_ctas_dml
from .dml.ctedml import analyse_dml_with
from .dml.locksub import analyse_locking_dml
from .dml.merge import analyse_merge, refuse_merge
from .nestedlocks import reject_nested_locks
from .parse import parse_sql, strip_leading_comments
from .parse import utility as utility_statement
from .plpgsql import analyse_do
from .plpgsql.functions import analyse_function_ddl
from .plpgsql.interp import register_router
from .plpgsql.procedures import analyse_call
from .privileges.defaults import analyse as analyse_default_privileges
from .privileges.owner import analyse_owner
from .privileges.statements import guard
from .querystmt import analyse_query
from .stmt import ANY_VERSION, Stmt, syntax_error_at

if TYPE_CHECKING:
    from .session import SQLSession

__all__ = ["ANY_VERSION", "Stmt", "analyse", "analyse_tree", "syntax_error_at"]

_NULLS_DISTINCT = re.compile(r"(?<=\))\s*NULLS\s+(NOT\s+)?DISTINCT\b", re.I)
_MATVIEW = re.compile(r"(?:CREATE|REFRESH)\s+MATERIALIZED\s+VIEW\b", re.I)
_FUNCTION_DDL = re.compile(r"(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)|DROP\s+"
                           r"(?:FUNCTION|PROCEDURE|ROUTINE))\b", re.I)


def analyse(session: SQLSession, sql: str, param_oids: list[int]) -> Stmt:
    """Analyses one statement's text into a runnable `Stmt`."""
    text = strip_leading_comments(sql)
    u = utility_statement(text)
    if u is not None:
        return utility.analyse_utility(session, text, u[0], u[1], param_oids, analyse,
                                       analyse_tree)
    if _MATVIEW.match(text):  # CREATE / REFRESH MATERIALIZED VIEW (ddl.matviews)
        matview = analyse_matview(session, text)
        if matview is not None:
            return matview
    if owned.OWNED.match(text):  # REASSIGN OWNED / DROP OWNED: sqlglot reads neither
        return owned.analyse(session, text)
    if _FUNCTION_DDL.match(text):  # CREATE FUNCTION / DROP FUNCTION: sqlglot reads neither
        return analyse_function_ddl(session, text)
    if text[:5].upper() == "ALTER":  # ALTER TABLE t ADD c int, RESET (...): one by one
        multi = analyse_multi_alter(session, text, analyse)
        if multi is not None:
            return multi
    if is_trigger_ddl(text):  # CREATE / DROP TRIGGER, ALTER TABLE ... ENABLE | DISABLE TRIGGER
        return analyse_trigger_ddl(session, text)
    tree = parse_sql(text)
    return analyse_tree(session, text, tree, param_oids)


register_router(analyse)  # NB: PL/pgSQL runs DDL and SET through it

_CREATE_MODIFIERS = {"OR", "REPLACE", "TEMP", "TEMPORARY", "UNLOGGED", "GLOBAL", "LOCAL",
                     "UNIQUE", "TRUSTED", "PROCEDURAL", "DEFAULT", "MATERIALIZED", "RECURSIVE"}

# Object kinds of more than one word, named whole as PostgreSQL's command tags name them
# (CREATE TEXT SEARCH CONFIGURATION).
_CREATE_NOUNS = (("TEXT", "SEARCH", "CONFIGURATION"), ("TEXT", "SEARCH", "DICTIONARY"),
                 ("TEXT", "SEARCH", "PARSER"), ("TEXT", "SEARCH", "TEMPLATE"),
                 ("FOREIGN", "DATA", "WRAPPER"), ("FOREIGN", "TABLE"), ("EVENT", "TRIGGER"),
                 ("CONSTRAINT", "TRIGGER"), ("USER", "MAPPING"), ("ACCESS", "METHOD"),
                 ("OPERATOR", "CLASS"), ("OPERATOR", "FAMILY"))


def object_noun(words: list[str]) -> str:
    """The kind of object an upper-cased CREATE, ALTER or DROP statement names, as
    PostgreSQL's command tags name it.

    >>> object_noun("CREATE TEXT SEARCH DICTIONARY D (TEMPLATE = SIMPLE)".split())
    'TEXT SEARCH DICTIONARY'
    >>> object_noun("CREATE OR REPLACE RULE R AS".split()), object_noun(["CREATE"])
    ('RULE', '')
    """
    rest = words[1:]
    while rest and rest[0] in _CREATE_MODIFIERS:
        rest = rest[1:]
    for noun in _CREATE_NOUNS:
        if tuple(rest[:len(noun)]) == noun:
            return " ".join(noun)
    return rest[0] if rest else ""


def analyse_tree(session: SQLSession, sql: str, tree: exp.Expression,
                 param_oids: list[int]) -> Stmt:
    """Analyses a parsed statement."""
    version = session.catalog_version()
    reject_nested_locks(tree)  # FOR UPDATE in a CTE or FROM subquery: 0A000, never no lock
    if isinstance(tree, exp.Query | exp.DML):  # WITH d AS (DELETE ... RETURNING *) ...
        with_dml = analyse_dml_with(session, sql, tree, param_oids, analyse_tree)
        if with_dml is not None:
            return with_dml  # NB: its parts were each analysed (and guarded) as statements
    if isinstance(tree, exp.Merge):  # an UPDATE, DELETE, INSERT per action (dml.merge)
        return analyse_merge(session, sql, tree, param_oids, analyse_tree)
    if isinstance(tree, exp.Create):  # CREATE TABLE ... AS WITH d AS (DELETE ...) SELECT ...
        ctas = analyse_ctas_dml(session, sql, tree, param_oids, analyse_tree)
        if ctas is not None:
            return ctas
    if isinstance(tree, exp.Query | exp.Values):
        return guard(analyse_query(session, sql, tree, param_oids, version), tree)
    if isinstance(tree, exp.Insert | exp.Update | exp.Delete):
        if isinstance(tree, exp.Update | exp.Delete):  # WHERE ... (SELECT ... FOR UPDATE)
            locking = analyse_locking_dml(
                session, sql, tree, param_oids,
                lambda se, text, t, oids: analyse_dml(se, text, t, oids, version))
            if locking is not None:
                return guard(locking, tree)
        return guard(analyse_dml(session, sql, tree, param_oids, version), tree)
    if isinstance(tree, exp.Create | exp.Drop | exp.Alter | exp.TruncateTable | exp.Comment):
        stmt = dispatch.analyse_ddl(session, sql, tree, param_oids, version)
        return guard(stmt, tree) if isinstance(tree, exp.TruncateTable) else stmt
    if isinstance(tree, exp.Transaction | exp.Commit | exp.Rollback):
        return txnctl.analyse_sqlglot_txn(session, sql, tree)
    if isinstance(tree, exp.Set):
        return utility.analyse_set_tree(session, sql, tree)
    if isinstance(tree, exp.Command):
        word = str(tree.this).upper()
        nulls = _NULLS_DISTINCT.search(sql) if word == "CREATE" else None
        if nulls is not None:  # CREATE UNIQUE INDEX ... NULLS [NOT] DISTINCT (PostgreSQL 15)
            inner = parse_sql(_NULLS_DISTINCT.sub(" ", sql, count=1))
            if isinstance(inner, exp.Create) and str(inner.args.get("kind")).upper() == "INDEX":
                inner.meta["nulls_not_distinct"] = bool(nulls.group(1))
                return analyse_tree(session, sql, inner, param_oids)
        if word == "DO":  # an anonymous PL/pgSQL block
            return analyse_do(session, sql, analyse_tree)
        if word == "CALL":  # a procedure
            return analyse_call(session, sql, param_oids, analyse_tree)
        if word == "CREATE" and is_schema_with_elements(sql):  # ... AUTHORIZATION r CREATE ...
            return analyse_create_schema(session, sql, analyse)
        if word == "ALTER":  # ALTER COLUMN ... DROP IDENTITY / ADD GENERATED ... AS IDENTITY
            identity = analyse_identity(session, sql)
            if identity is not None:
                return identity
            owner = analyse_owner(session, sql)  # ALTER ... OWNER TO
            if owner is not None:
                return owner
            routine = analyse_routine_alter(session, sql)  # ALTER PROCEDURE ... RENAME TO
            if routine is not None:
                return routine
            defaults = analyse_default_privileges(sql)
            if defaults is not None:
                return defaults
            validate = analyse_validate(sql) or analyse_rename_constraint(sql)
            if validate is not None:
                return validate
            physical = analyse_physical(session, sql)  # SET STATISTICS, REPLICA IDENTITY ...
            if physical is not None:
                return physical
            attach = analyse_attach(session, sql)  # ATTACH / DETACH PARTITION
            if attach is not None:
                return attach
            reset = analyse_reset(sql) or analyse_set_schema(sql)  # ALTER VIEW v RESET (...)
            if reset is not None:
                return reset
            word = " ".join(sql.split()[:2]).upper()  # NB: name the statement: ALTER VIEW, ALTER TYPE
        verb = word.split()[0] if word else ""
        if verb in ("CREATE", "ALTER", "DROP"):  # NB: TEXT SEARCH DICTIONARY, not TEXT
            kind = object_noun(sql.upper().split())
            word = "CREATE TABLE ... ON COMMIT" if verb == "CREATE" and re.search(
                r"\bON\s+COMMIT\b", sql, re.I) else f"{verb} {kind}".strip()
        raise FeatureNotSupported(f"{word} is not supported")
    if not isinstance(tree, exp.DDL | exp.DML | exp.Command):  # a bare word or expression
        raise syntax_error_at(sql)
    if isinstance(tree, exp.Merge):  # NB: into a view, as PG 15: 0A000 with its DETAIL
        refuse_merge(session, tree)
    raise FeatureNotSupported(f"statement not supported: {sql[:60]}")

