"""`#variable_conflict`: a PL/pgSQL variable named like a column the statement can see.

PostgreSQL's parser asks PL/pgSQL about every unqualified column reference whose name is
also a variable's (plpgsql_post_column_ref). With `error`, the default, a name that also
resolves to a column of a table in scope is 42702 "column reference is ambiguous";
`use_variable` takes the variable and `use_column` the column. Cumulo binds variables
before analysis (`Interp._bind`), so it finds the columns in scope here, from the
statement's tree and the catalog: the FROM items of each enclosing SELECT, an UPDATE's
or DELETE's target and FROM / USING, an INSERT's target for its RETURNING and ON
CONFLICT, a CTE's or a sub-SELECT's output names.

>>> import sqlglot
>>> tree = sqlglot.parse_one("insert into t(a) values (a) returning a", read="postgres")
>>> value, returned = tree.expression.find(sqlglot.exp.Column), tree.args["returning"].find(sqlglot.exp.Column)
>>> [n.name for n in _sources(value)], [n.name for n in _sources(returned)]
([], ['t'])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlglot import exp

from ...errors import SQLError
from ..catalog.model import CatalogSnapshot


class AmbiguousColumn(SQLError):
    """42702 for a name both a variable and a column have (its CONTEXT names the line)."""

    def __init__(self, name: str) -> None:
        super().__init__(f'column reference "{name}" is ambiguous', sqlstate="42702",
                         detail="It could refer to either a PL/pgSQL variable or a table "
                         "column.")


def _sources(col: exp.Column) -> Iterator[exp.Expression]:
    """The FROM items (tables, sub-SELECTs) whose columns `col` could name."""
    child: Any = col
    node: Any = col.parent
    while node is not None:
        if isinstance(node, exp.Select):
            if node.args.get("from_") is not None and child is not node.args.get("from_"):
                yield from _items(node.args["from_"])
                for j in node.args.get("joins") or []:
                    yield from _items(j)
        elif isinstance(node, exp.Update | exp.Delete):
            yield node.this
            for key in ("from_", "using"):
                extra = node.args.get(key)
                for item in extra if isinstance(extra, list) else [extra] if extra else []:
                    yield from _items(item)
        elif isinstance(node, exp.Insert) and child is not node.this and \
                child is not node.args.get("expression"):  # NB: RETURNING, ON CONFLICT
            target = node.this
            yield target.this if isinstance(target, exp.Schema) else target
        child, node = node, node.parent


def _items(node: exp.Expression) -> Iterator[exp.Expression]:
    for x in node.walk():
        if isinstance(x, exp.Table | exp.Subquery) and x is not node:
            yield x
            continue
    if isinstance(node, exp.Table | exp.Subquery):
        yield node


def _ctes(col: exp.Column) -> dict[str, exp.Expression]:
    out: dict[str, exp.Expression] = {}
    node = col.parent
    while node is not None:
        with_ = node.args.get("with_") or node.args.get("with")
        if isinstance(with_, exp.With):
            for cte in with_.expressions:
                out.setdefault(cte.alias_or_name.lower(), cte)
        node = node.parent
    return out


def column_in_scope(col: exp.Column, name: str, cat: CatalogSnapshot,
                    search_path: Sequence[str]) -> bool:
    """Whether `name` (unqualified) names a column of something `col` can see."""
    ctes = None
    for src in _sources(col):
        if isinstance(src, exp.Subquery):
            inner = src.this
            if isinstance(inner, exp.Query) and name in _output_names(src, inner):
                return True
            continue
        if not isinstance(src, exp.Table) or not isinstance(src.this, exp.Identifier):
            continue
        if ctes is None:
            ctes = _ctes(col)
        tname = src.name if src.this.args.get("quoted") else src.name.lower()
        cte = ctes.get(tname) if not src.db else None
        if cte is not None:
            if isinstance(cte.this, exp.Query) and name in _output_names(cte, cte.this):
                return True
            continue
        if name in _table_columns(cat, src.db.lower() if src.db else None, tname, search_path):
            return True
    return False


def _output_names(node: exp.Expression, query: exp.Query) -> set[str]:
    alias = node.args.get("alias")
    declared = alias.columns if isinstance(alias, exp.TableAlias) else []
    if declared:
        return {c.name for c in declared}
    return {n.lower() for n in query.named_selects}


def _table_columns(cat: CatalogSnapshot, schema: str | None, name: str,
                   search_path: Sequence[str]) -> set[str]:
    by_oid = {s.oid: s.name for s in cat.schemas}
    for sch in [schema] if schema else [*search_path, "pg_catalog"]:
        t = next((t for t in cat.tables if t.name == name and by_oid.get(t.schema_oid) == sch),
                 None)
        if t is not None:
            return {c.name for c in t.columns if not c.dropped}
    return set()
