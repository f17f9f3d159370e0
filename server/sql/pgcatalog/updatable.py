"""Which views PostgreSQL can write through, and which of their columns: the analysis of a view's query.

A view is automatically updatable when its query selects from one table or
view, without DISTINCT, GROUP BY, HAVING, set operations, WITH, LIMIT or
OFFSET, aggregates, window or set-returning functions in its select list
(PostgreSQL's view_query_is_auto_updatable, whose DETAIL texts `not_updatable`
returns). A column is writable when it is a plain column of that relation.
`relation_events` is pg_relation_is_updatable's answer (what
information_schema.views and .columns report); the write itself is
`dml.viewrewrite`'s.

    >>> q = view_query("SELECT t.id, t.a AS b, t.n + 1 AS m FROM t WHERE t.id > 0")
    >>> cols = column_map(q, ["id", "b", "m"], ["id", "a", "n"])
    >>> {k: v.sql() if v is not None else None for k, v in cols.items()}
    {'id': 't.id', 'b': 't.a', 'm': None}
    >>> not_updatable(view_query("SELECT DISTINCT a FROM t"))
    'Views containing DISTINCT are not automatically updatable.'
"""

from __future__ import annotations

import functools
from typing import Any, cast

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from ..catalog import model as M

UPDATE, INSERT, DELETE = 1 << 2, 1 << 3, 1 << 4  # 1 << CmdType, as pg_relation_is_updatable
ALL_EVENTS = UPDATE | INSERT | DELETE
_TG_ROW, _TG_INSERT, _TG_DELETE, _TG_UPDATE, _TG_INSTEAD = 1, 4, 8, 16, 64


def ident(node: Any) -> str:
    """An identifier's name as PostgreSQL folds it."""
    if node is None:
        return ""
    if isinstance(node, exp.Identifier):
        return node.name if node.quoted else node.name.lower()
    inner = node.this if isinstance(node, exp.Expression) else None
    return ident(inner) if isinstance(inner, exp.Identifier) else str(node.name).lower()


def relation_of(q: exp.Select) -> tuple[str | None, str]:
    """(schema or None, name) of the view's one relation."""
    t = q.args["from_"].this
    return (ident(t.args.get("db")) or None), ident(t.this)


def view_query(sql: str) -> exp.Expression:
    """The view's stored query, parsed, with identifiers folded as PostgreSQL does (a copy:
    the caller may change it)."""
    return _parsed(sql).copy()


@functools.lru_cache(maxsize=512)
def _parsed(sql: str) -> exp.Expression:
    """NB: information_schema.columns asks once per view column: parse each text once."""
    return cast(exp.Expression, normalize_identifiers(sqlglot.parse_one(sql, read="postgres"),
                                                      dialect="postgres"))


def not_updatable(q: exp.Expression) -> str | None:
    """Why the view is not automatically updatable (PostgreSQL's DETAIL), or None."""
    if not isinstance(q, exp.Select):
        if isinstance(q, exp.SetOperation):
            return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable."
        return "Views that do not select from a single table or view are not automatically " \
               "updatable."
    if q.args.get("distinct"):
        return "Views containing DISTINCT are not automatically updatable."
    if q.args.get("group"):
        return "Views containing GROUP BY are not automatically updatable."
    if q.args.get("having"):
        return "Views containing HAVING are not automatically updatable."
    if q.args.get("with_"):
        return "Views containing WITH are not automatically updatable."
    if q.args.get("limit") or q.args.get("offset"):
        return "Views containing LIMIT or OFFSET are not automatically updatable."
    items = q.expressions
    if any(e.find(exp.AggFunc) for e in items):
        return "Views that return aggregate functions are not automatically updatable."
    if any(e.find(exp.Window) for e in items):
        return "Views that return window functions are not automatically updatable."
    if any(e.find(exp.Explode, exp.Unnest) or _calls(e, "generate_series") for e in items):
        return "Views that return set-returning functions are not automatically updatable."
    frm = q.args.get("from_")
    if frm is None or q.args.get("joins") or not isinstance(frm.this, exp.Table) \
            or isinstance(frm.this.this, exp.Func):
        return "Views that do not select from a single table or view are not automatically " \
               "updatable."
    return None


def _calls(e: exp.Expression, name: str) -> bool:
    return any(f.name.lower() == name for f in e.find_all(exp.Anonymous))


def base_alias(q: exp.Select) -> str:
    """The name the view's query knows its one relation by (its alias, else its name)."""
    t = q.args["from_"].this
    return ident(t.args["alias"].this) if t.args.get("alias") else relation_of(q)[1]


def selected(q: exp.Select, base_cols: list[str]) -> list[tuple[exp.Expression, bool]]:
    """What the view selects, one entry per output column (stars expanded): the expression
    over the base relation and whether it is one of its columns (so writable)."""
    alias = base_alias(q)
    out: list[tuple[exp.Expression, bool]] = []
    for e in q.expressions:
        inner = e.this if isinstance(e, exp.Alias) else e
        if isinstance(inner, exp.Star) or (isinstance(inner, exp.Column)
                                           and isinstance(inner.this, exp.Star)):
            out.extend((exp.column(c, alias), True) for c in base_cols)
        elif isinstance(inner, exp.Column) and ident(inner.this) in base_cols \
                and (not inner.table or ident(inner.args.get("table")) == alias):
            out.append((exp.column(ident(inner.this), alias), True))
        else:
            out.append((inner, False))
    return out


def column_map(q: exp.Select, names: list[str], base_cols: list[str]
               ) -> dict[str, exp.Column | None]:
    """View column name -> the base column it selects (qualified by the query's name for the
    relation), or None when the column is an expression (readable, not writable)."""
    got = selected(q, base_cols)
    return {n: (got[i][0] if i < len(got) and got[i][1] else None)  # type: ignore[misc]
            for i, n in enumerate(names)}


def view_default(c: M.Column) -> exp.Expression | None:
    """A view column's own default (ALTER VIEW ... SET DEFAULT), parsed, or None."""
    if c.default is None:
        return None
    return cast(exp.Expression, sqlglot.parse_one(c.default, read="postgres"))


def check_option(view: M.Table) -> str | None:
    """The view's WITH CHECK OPTION ("local" or "cascaded"), or None."""
    for o in view.options:
        if o.startswith("check_option="):
            return o.split("=", 1)[1].lower()  # NB: kept as written ('LOCAL') in reloptions
    return None


def _relation(cat: M.CatalogSnapshot, schema: str | None, name: str,
              search_path: list[str]) -> M.Table | None:
    for sname in [schema] if schema else search_path:
        sch = next((x for x in cat.schemas if x.name == sname), None)
        t = None if sch is None else next(
            (t for t in cat.tables if t.schema_oid == sch.oid and t.name == name), None)
        if t is not None:
            return t
    return None


def relation_events(cat: M.CatalogSnapshot, table: M.Table, search_path: list[str],
                    include_triggers: bool, columns: set[int] | None = None,
                    depth: int = 0) -> int:
    """pg_relation_is_updatable: the bits of the events (UPDATE 4, INSERT 8, DELETE 16) the
    relation takes; with `columns` (attnums), what a statement writing them may do."""
    if table.kind == "r":
        return ALL_EVENTS
    events = 0
    if include_triggers:
        for t in cat.triggers:
            if t.table_oid == table.oid and t.tgtype & _TG_INSTEAD and t.tgtype & _TG_ROW:
                events |= (UPDATE if t.tgtype & _TG_UPDATE else 0) | \
                    (INSERT if t.tgtype & _TG_INSERT else 0) | \
                    (DELETE if t.tgtype & _TG_DELETE else 0)
        if events == ALL_EVENTS:
            return events
    if table.kind != "v" or not table.view_sql or depth > 32:
        return events
    try:
        q = _parsed(table.view_sql)  # NB: read only
    except sqlglot.errors.ParseError:
        return events
    if not_updatable(q) is not None:
        return events
    base = _relation(cat, *relation_of(cast(exp.Select, q)), search_path)
    if base is None:
        return events
    names = [c.name for c in table.live_columns]
    base_names = [c.name for c in base.live_columns]
    got = selected(cast(exp.Select, q), base_names)
    writable = [i + 1 for i, (_, plain) in enumerate(got[:len(names)]) if plain]
    auto = DELETE
    wanted = columns if columns is not None else set(range(1, len(names) + 1))
    chosen = [a for a in writable if a in wanted]
    if chosen and (columns is None or all(a in writable for a in wanted)):
        auto |= UPDATE | INSERT
    by_name = {c.name: c.attnum for c in base.live_columns}
    base_cols = {by_name[cast(exp.Column, got[a - 1][0]).name] for a in chosen}
    auto &= relation_events(cat, base, search_path, True,
                            base_cols if columns is not None else None, depth + 1)
    return events | auto
