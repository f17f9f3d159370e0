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
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import DependentObjectsStillExist
from ..catalog.model import CatalogSnapshot, Sequence, Table
from ..parse import parse_sql
from .coldefs import quote_ident
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
    """The views (and materialized views) whose query names `table` (directly), in catalog
    order."""
    schema = _schema_name(cat, table.schema_oid)
    out = []
    for v in cat.tables:
        if v.kind not in ("v", "m") or v.oid == table.oid:
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


def shown_name(schema: str, name: str, visible: list[str]) -> str:
    """A name as PostgreSQL's dependency messages show it: schema-qualified when its
    schema is not on the search_path (`visible`), quoted where needed.

    >>> shown_name("public", "t", ["public"]), shown_name("s", "Q", ["public"])
    ('t', 's."Q"')
    """
    return quote_ident(name) if not schema or schema in visible \
        else f"{quote_ident(schema)}.{quote_ident(name)}"


def relation_description(cat: CatalogSnapshot, rel: Table | Sequence,
                         visible: list[str]) -> str:
    """PostgreSQL's description of a relation in dependency messages (getObjectDescription):
    `table t`, `view s.v`, `sequence s.q`."""
    noun = "sequence" if isinstance(rel, Sequence) else \
        {"v": "view", "m": "materialized view"}.get(rel.kind, "table")
    return f"{noun} {shown_name(_schema_name(cat, rel.schema_oid), rel.name, visible)}"


def views_depending(cat: CatalogSnapshot, rel: Table, visible: list[str]) -> list[tuple[Table, str]]:
    """The views that read `rel`, directly or through other views (each once, nearest
    first), each with PostgreSQL's DETAIL line (`view v2 depends on view v1`)."""
    out: list[tuple[Table, str]] = []
    todo = [rel]
    while todo:
        parent = todo.pop(0)
        for v in dependent_views(cat, parent):
            if all(v.oid != o.oid for o, _ in out):
                out.append((v, f"{relation_description(cat, v, visible)} depends on "
                               f"{relation_description(cat, parent, visible)}"))
                todo.append(v)
    return out


def report_cascade(s: SQLSession, objects: list[str]) -> None:
    """PostgreSQL's NOTICE for what a DROP ... CASCADE took with it: one object by name,
    more as a count with one DETAIL line each."""
    if len(objects) == 1:
        s.notice(f"drop cascades to {objects[0]}")
    elif objects:
        s.notice(f"drop cascades to {len(objects)} other objects",
                 detail="\n".join(f"drop cascades to {o}" for o in objects))


def _views_reading(s: SQLSession, table: Table
                   ) -> Iterator[tuple[Table, exp.Expression, list[exp.Table], set[str]]]:
    """Each view that reads `table`, with its parsed tree, the references to the table in
    it and the names of the CTEs it defines (what every rewrite below walks)."""
    cat = s.catalog()
    schema = _schema_name(cat, table.schema_oid)
    for v in dependent_views(cat, table):
        tree = _tree(v)
        assert tree is not None
        ctes = _ctes(tree)
        yield v, tree, [t for t in tree.find_all(exp.Table)
                        if _names_table(t, table, schema, ctes)], ctes


def _store_view(s: SQLSession, view: Table, tree: exp.Expression) -> None:
    s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(view, view_sql=tree.sql("postgres")))


def rename_table_in_views(s: SQLSession, table: Table, new_name: str) -> None:
    """Rewrites the views that read `table` after ALTER TABLE ... RENAME TO: they name it by
    its new name, and their `old.col` references say `new.col`, as PostgreSQL's deparse of
    a view (which holds the table's OID) shows them. Where the old or the new name also
    means something else in the view (a CTE, another table or alias), the table keeps its
    old name as an alias instead, which keeps those references valid."""
    schema = _schema_name(s.catalog(), table.schema_oid)
    for v, tree, refs, ctes in _views_reading(s, table):
        taken = {t.alias_or_name for t in tree.find_all(exp.Table) if all(t is not r for r in refs)}
        taken |= {t.alias for t in refs if t.args.get("alias")}
        keep_old = bool({table.name, new_name} & (taken | ctes))
        for t in refs:
            if keep_old and not t.args.get("alias"):
                t.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            if new_name in ctes:  # NB: the bare new name would be the CTE's
                t.set("db", exp.to_identifier(schema))
            t.set("this", exp.to_identifier(new_name))
        if not keep_old:
            for c in tree.find_all(exp.Column):
                if c.table == table.name:
                    c.set("table", exp.to_identifier(new_name))
        _store_view(s, v, tree)


def move_table_in_views(s: SQLSession, table: Table, new_schema: str) -> None:
    """Rewrites the views that read `table` after ALTER ... SET SCHEMA: they name it in its
    new schema (PostgreSQL's views hold the OID; ours hold the name)."""
    for v, tree, refs, _ in _views_reading(s, table):
        for t in refs:
            t.set("db", exp.to_identifier(new_schema))
        _store_view(s, v, tree)


def _rename_columns(tree: exp.Expression, quals: set[str], old: str, new: str) -> None:
    for c in list(tree.find_all(exp.Column)):
        if ident(c.this) == old and (not c.table or c.table in quals):
            c.set("this", exp.to_identifier(new))


def rename_column_in_views(s: SQLSession, table: Table, old: str, new: str) -> None:
    """Rewrites views that read `table` after RENAME COLUMN (their output names stay)."""
    for v, tree, refs, _ in _views_reading(s, table):
        if not isinstance(tree, exp.Select):
            continue  # NB: set operations and CTEs are left alone
        quals = {table.name} | {t.alias for t in refs if t.args.get("alias")}
        projections = []
        for e in tree.expressions:
            if isinstance(e, exp.Column) and ident(e.this) == old and (
                    not e.table or e.table in quals):
                e = exp.alias_(e, old)  # NB: the view's column keeps its name
            projections.append(e)
        tree.set("expressions", projections)
        _rename_columns(tree, quals, old, new)
        _store_view(s, v, tree)


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
