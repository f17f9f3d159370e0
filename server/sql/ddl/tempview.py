"""Whether a view's query reads a temporary relation, so the view must be temporary too.

PostgreSQL's `isQueryUsingTempRelation`: a CREATE VIEW (not TEMPORARY) whose
query reads a temporary table or view, anywhere (subqueries, CTEs, sublinks),
becomes a temporary view with the NOTICE `view "v" will be a temporary view`;
in a schema named explicitly that is not the temporary one it is 42P16.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from .names import find_relation, ident, table_name

if TYPE_CHECKING:
    from ..session import SQLSession


def reads_temp_relation(s: SQLSession, query: exp.Expression) -> bool:
    """Whether `query` names a relation of a temporary schema (CTE names aside)."""
    cat = s.catalog()
    ctes = {ident(c.args["alias"].this) for c in query.find_all(exp.CTE)
            if c.args.get("alias") is not None}
    for t in query.find_all(exp.Table):
        if not isinstance(t.this, exp.Identifier):
            continue  # NB: a function in FROM
        schema, name = table_name(t)
        if schema is None and name in ctes:
            continue
        rel = find_relation(cat, schema, name, s.search_path())
        if rel is None:
            continue
        sch = cat.schema_by_oid(rel.schema_oid)
        if sch is not None and sch.name.startswith("pg_temp"):
            return True
    return False
