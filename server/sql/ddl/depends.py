"""What depends on a table by name: views and CHECK expressions, kept as SQL text.

PostgreSQL stores views and CHECK constraints as parsed trees that point at
relations and columns by OID and attnum, so renaming a table or a column
carries over, and dropping a table that a view reads is refused (2BP01)
unless CASCADE drops the view too. We keep their SQL text, so this module
finds the views that name a table and rewrites the text of views and CHECK
constraints when a table or column is renamed.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import DependentObjectsStillExist
from ..catalog.model import CatalogSnapshot, Table
from ..parse import parse_sql
from .names import ident

if TYPE_CHECKING:
    from ..session import SQLSession


def _schema_name(cat: CatalogSnapshot, oid: int) -> str:
    return next((s.name for s in cat.schemas if s.oid == oid), "")


def _tree(view: Table) -> exp.Expression | None:
    try:
        return parse_sql(view.view_sql or "")
    except Exception:  # NB: stored text came from sqlglot; unparsable means no known deps
        return None


def _names_table(node: exp.Table, table: Table, schema: str, ctes: set[str]) -> bool:
    if not isinstance(node.this, exp.Identifier) or ident(node.this) != table.name:
        return False
    db = node.args.get("db")
    if db is None:
        return table.name not in ctes
    return ident(db) == schema


def _ctes(tree: exp.Expression) -> set[str]:
    return {ident(c.args["alias"].this) for c in tree.find_all(exp.CTE) if c.args.get("alias")}


def dependent_views(cat: CatalogSnapshot, table: Table) -> list[Table]:
    """The views whose query names `table` (directly), in catalog order."""
    schema = _schema_name(cat, table.schema_oid)
    out = []
    for v in cat.tables:
        if v.kind != "v" or v.oid == table.oid:
            continue
        tree = _tree(v)
        if tree is None:
            continue
        ctes = _ctes(tree)
        if any(_names_table(t, table, schema, ctes) for t in tree.find_all(exp.Table)):
            out.append(v)
    return out


def views_using_column(cat: CatalogSnapshot, table: Table, column: str) -> list[Table]:
    """The views that read `table` and name `column` or expand a `*` over it (conservatively:
    any column reference of that name counts, as the text keeps no attnums)."""
    out = []
    for v in dependent_views(cat, table):
        tree = _tree(v)
        if tree is not None and any(
                isinstance(n, exp.Star) or (isinstance(n, exp.Column) and (
                    isinstance(n.this, exp.Star) or ident(n.this) == column))
                for n in tree.walk()):
            out.append(v)
    return out


def all_dependent_views(cat: CatalogSnapshot, table: Table) -> list[Table]:
    """Views that read `table`, directly or through other views (each once)."""
    out: list[Table] = []
    todo = [table]
    while todo:
        for v in dependent_views(cat, todo.pop()):
            if all(v.oid != o.oid for o in out):
                out.append(v)
                todo.append(v)
    return out


def rename_table_in_views(s: SQLSession, table: Table, new_name: str) -> None:
    """Rewrites the views that read `table` after ALTER TABLE ... RENAME TO."""
    cat = s.catalog()
    schema = _schema_name(cat, table.schema_oid)
    for v in dependent_views(cat, table):
        tree = _tree(v)
        assert tree is not None
        ctes = _ctes(tree)
        for t in list(tree.find_all(exp.Table)):
            if _names_table(t, table, schema, ctes):
                if not t.args.get("alias"):  # NB: keeps `old.col` references valid
                    t.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
                t.set("this", exp.to_identifier(new_name))
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(v, view_sql=tree.sql("postgres")))


def _rename_columns(tree: exp.Expression, quals: set[str], old: str, new: str) -> None:
    for c in list(tree.find_all(exp.Column)):
        if ident(c.this) == old and (not c.table or c.table in quals):
            c.set("this", exp.to_identifier(new))


def rename_column_in_views(s: SQLSession, table: Table, old: str, new: str) -> None:
    """Rewrites views that read `table` after RENAME COLUMN (their output names stay)."""
    cat = s.catalog()
    schema = _schema_name(cat, table.schema_oid)
    for v in dependent_views(cat, table):
        tree = _tree(v)
        if not isinstance(tree, exp.Select):
            continue  # NB: set operations and CTEs are left alone
        ctes = _ctes(tree)
        quals = {table.name}
        for t in tree.find_all(exp.Table):
            if _names_table(t, table, schema, ctes) and t.args.get("alias"):
                quals.add(t.alias)
        projections = []
        for e in tree.expressions:
            if isinstance(e, exp.Column) and ident(e.this) == old and (
                    not e.table or e.table in quals):
                e = exp.alias_(e, old)  # NB: the view's column keeps its name
            projections.append(e)
        tree.set("expressions", projections)
        _rename_columns(tree, quals, old, new)
        s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(v, view_sql=tree.sql("postgres")))


def rename_column_in_checks(s: SQLSession, table: Table, old: str, new: str) -> None:
    """Rewrites the table's CHECK constraints after RENAME COLUMN."""
    for con in s.catalog().constraints_of(table.oid):
        if con.kind != "c" or not con.check:
            continue
        try:
            tree = parse_sql(f"SELECT {con.check}").expressions[0]
        except Exception:  # NB: stored text came from sqlglot
            continue
        _rename_columns(tree, {table.name}, old, new)
        s.store.put(s.ensure_txn(), s.db.oid,
                    dataclasses.replace(con, check=tree.sql("postgres")))


def refuse_dependents(what: str, deps: list[str]) -> None:
    """PostgreSQL's 2BP01 for a DROP without CASCADE that other objects still need,
    with one DETAIL line per dependent ("view v depends on table t").

    >>> refuse_dependents("type mood", [])
    >>> refuse_dependents("type mood", ["column m of table t depends on type mood"])
    Traceback (most recent call last):
    ...
    cumulo.server.errors.DependentObjectsStillExist: cannot drop type mood because other objects depend on it
    """
    if deps:
        raise DependentObjectsStillExist(
            f"cannot drop {what} because other objects depend on it",
            detail="\n".join(deps),
            hint="Use DROP ... CASCADE to drop the dependent objects too.")
