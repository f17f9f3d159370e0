"""ALTER VIEW: the renames PostgreSQL allows on a view, through ALTER TABLE's code.

A view's column names live in the catalog (CREATE VIEW v (a, b) may rename its
query's columns), and the planner expands a view under those names, so renaming
a view's column is a catalog change like renaming a table's, and so is a view
column's default (`ALTER COLUMN c SET DEFAULT`), which an INSERT through the
view uses before the table's (`dml.viewrewrite`), and `SET (option [= value], ...)`
(check_option, security_barrier, security_invoker: `catalog.viewoptions`), and
`RESET (option, ...)` (on ALTER TABLE too) which drops the
named options from reloptions (RESET (check_option) makes it a plain view again;
an option the relation lacks is ignored, as in PostgreSQL). SET SCHEMA moves a view,
or a table with what it owns (`ddl.tablemove`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DuplicateTable,
    FeatureNotSupported,
    InsufficientPrivilege,
    InvalidSchemaName,
    SyntaxError_,
    UndefinedTable,
    WrongObjectType,
)
from ...pgwire.backend import Result
from ..catalog.tableoptions import option_item
from ..catalog.viewoptions import merge_options, option_value
from ..parse import unquote_ident
from ..pgcatalog.updatable import not_updatable, view_query
from ..privileges.check import current_role, has_privileges, must_own, relation_noun
from ..stmt import Stmt
from .alter import alter_table, relation_to_alter
from .depends import move_table_in_views
from .names import (
    find_index,
    find_relation,
    parse_qualified,
    relation_name_taken,
    schema_by_name,
    skip_or_raise,
    table_name,
)
from .tablemove import move_table

if TYPE_CHECKING:
    from ..session import SQLSession


def alter_view(s: SQLSession, tree: exp.Alter) -> str:
    """ALTER VIEW [IF EXISTS] name RENAME TO new | RENAME [COLUMN] old TO new |
    ALTER [COLUMN] c SET DEFAULT e | DROP DEFAULT | SET (option [= value], ...)."""
    view = relation_to_alter(s, tree)
    if view is None:
        return "ALTER VIEW"
    if view.kind != "v":
        raise WrongObjectType(f'"{view.name}" is not a view')
    rest: list[exp.Expression] = []
    for action in tree.args.get("actions") or []:
        given = {k for k, v in action.args.items() if v is not None and k != "this"}
        if isinstance(action, exp.AlterSet) and action.expressions:
            set_view_options(s, view.oid, action)
            continue
        if isinstance(action, exp.AlterColumn) and given in ({"default"}, {"drop"}):
            rest.append(action)  # SET / DROP DEFAULT: what an INSERT through the view fills in
            continue
        if not isinstance(action, exp.AlterRename | exp.RenameColumn):
            raise FeatureNotSupported(
                f"ALTER VIEW action is not supported: {action.sql('postgres')[:60]}")
        rest.append(action)
    if rest:
        tree = tree.copy()
        tree.set("actions", [a.copy() for a in rest])
        alter_table(s, tree)
    return "ALTER VIEW"


def alter_table_options(s: SQLSession, tree: exp.Alter) -> str | None:
    """ALTER TABLE v SET (...) on a view sets the view's options, as ALTER VIEW does (None:
    not that statement)."""
    actions = tree.args.get("actions") or []
    if not actions or not all(isinstance(a, exp.AlterSet) and a.expressions for a in actions):
        return None
    schema, name = table_name(tree.this)
    rel = find_relation(s.catalog(), schema, name, s.search_path())
    if rel is None or rel.kind != "v":
        return None
    for action in actions:
        set_view_options(s, rel.oid, action)
    return "ALTER TABLE"


def set_view_options(s: SQLSession, oid: int, action: exp.AlterSet) -> None:
    """SET (security_barrier, check_option = local, ...): checked and merged into reloptions
    as PostgreSQL does (`catalog.viewoptions`); a check option needs an updatable view."""
    view = s.catalog().existing_table(oid)
    options = merge_options(view.options, [option_item(e) for e in action.expressions])
    if option_value(options, "check_option") is not None:
        why = not_updatable(view_query(view.view_sql or ""))
        if why is not None:  # as CREATE VIEW ... WITH CHECK OPTION
            raise FeatureNotSupported("WITH CHECK OPTION is supported only on "
                                      "automatically updatable views", hint=why)
    if options != view.options:
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(view, options=options))
        s.catalog_changed()


_RESET = re.compile(r"\s*ALTER\s+(?P<kind>VIEW|TABLE|INDEX)\s+(?P<ie>IF\s+EXISTS\s+)?(?:ONLY\s+)?"
                    r"(?P<rel>\S+?)\s+RESET\s*\((?P<opts>[^()]*)\)\s*;?\s*$", re.I | re.S)


def analyse_reset(sql: str) -> Stmt | None:
    """ALTER VIEW | TABLE [IF EXISTS] name RESET (option [, ...]) (a bare command to
    sqlglot); None for any other statement."""
    m = _RESET.match(sql)
    if m is None:
        return None
    tag = f"ALTER {m.group('kind').upper()}"
    names = [o.strip() for o in m.group("opts").split(",")]
    if any("=" in o for o in names):
        raise SyntaxError_("RESET must not include values for parameters")
    drop = {unquote_ident(o) for o in names if o}

    def run(s: SQLSession, p: list[Any]) -> Result:
        schema, name = parse_qualified(m.group("rel"))
        if tag == "ALTER INDEX":
            return _reset_index(s, schema, name, bool(m.group("ie")), drop)
        rel = find_relation(s.catalog(), schema, name, s.search_path())
        if rel is None:
            skip_or_raise(s, f'relation "{name}"', bool(m.group("ie")), UndefinedTable)
            return Result(tag)
        if tag == "ALTER VIEW" and rel.kind != "v":
            raise WrongObjectType(f'"{rel.name}" is not a view')
        cat = s.catalog()
        must_own(cat, current_role(s, cat), rel.owner, relation_noun(rel), rel.name)
        kept = tuple(o for o in rel.options if o.split("=", 1)[0] not in drop)
        if kept != rel.options:
            s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(rel, options=kept))
            s.catalog_changed()
        return Result(tag)

    return Stmt(sql, "ddl", run, None, [], -1, tag=tag)


def _reset_index(s: SQLSession, schema: str | None, name: str, if_exists: bool,
                 drop: set[str]) -> Result:
    """ALTER INDEX [IF EXISTS] name RESET (option [, ...])."""
    cat = s.catalog()
    idx = find_index(cat, schema, name, s.search_path())
    if idx is None:
        skip_or_raise(s, f'relation "{name}"', if_exists, UndefinedTable)
        return Result("ALTER INDEX")
    kept = tuple(o for o in idx.options if o.split("=", 1)[0] not in drop)
    if kept != idx.options:
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(idx, options=kept))
        s.catalog_changed()
    return Result("ALTER INDEX")


_SET_SCHEMA = re.compile(r"\s*ALTER\s+(?P<kind>VIEW|TABLE)\s+(?P<ie>IF\s+EXISTS\s+)?"
                         r"(?P<rel>\S+?)\s+SET\s+SCHEMA\s+(?P<to>\S+?)\s*;?\s*$", re.I | re.S)


def analyse_set_schema(sql: str) -> Stmt | None:
    """ALTER VIEW [IF EXISTS] v SET SCHEMA s (and ALTER TABLE on a view): moves the view, and
    the views that read it name it in its new schema; None for any other statement."""
    m = _SET_SCHEMA.match(sql)
    if m is None:
        return None
    tag = f"ALTER {m.group('kind').upper()}"

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        schema, name = parse_qualified(m.group("rel"))
        rel = find_relation(cat, schema, name, s.search_path())
        if rel is None:
            skip_or_raise(s, f'relation "{name}"', bool(m.group("ie")), UndefinedTable)
            return Result(tag)
        if tag == "ALTER TABLE" and rel.kind not in ("v", "r"):
            raise FeatureNotSupported("ALTER TABLE is not supported")
        if rel.kind != "v" and tag == "ALTER VIEW":
            raise WrongObjectType(f'"{rel.name}" is not a view')
        role = current_role(s, cat)
        must_own(cat, role, rel.owner, relation_noun(rel), rel.name)
        to_name = unquote_ident(m.group("to"))
        to = schema_by_name(cat, to_name)
        if to is None and not to_name.startswith("pg_temp"):
            raise InvalidSchemaName(f'schema "{to_name}" does not exist')
        old = cat.schema_by_oid(rel.schema_oid)
        if to is None or any(x is not None and x.name.startswith("pg_temp") for x in (old, to)):
            raise FeatureNotSupported("cannot move objects into or out of temporary schemas")
        if role is not None and not role.superuser and not has_privileges(
                cat, role, "schema", to, "C"):
            raise InsufficientPrivilege(f"permission denied for schema {to.name}")
        if to.oid == rel.schema_oid:
            return Result(tag)
        if rel.kind == "r":  # NB: with its indexes, constraints, row type and sequences
            move_table(s, rel, to)
            return Result(tag)
        if relation_name_taken(cat, to.oid, rel.name):
            raise DuplicateTable(f'relation "{rel.name}" already exists in schema "{to.name}"')
        move_table_in_views(s, rel, to.name)
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(rel, schema_oid=to.oid))
        s.catalog_changed()
        return Result(tag)

    return Stmt(sql, "ddl", run, None, [], -1, tag=tag)
