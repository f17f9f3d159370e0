"""CREATE TABLE … AS a query whose WITH holds INSERT/UPDATE/DELETE (`ctedml`).

    CREATE TABLE archive AS WITH d AS (DELETE FROM t WHERE … RETURNING *) SELECT * FROM d

PostgreSQL runs it as any CREATE TABLE AS: the table takes the query's columns
and is filled with its rows, and the tag is `SELECT n`. The query planner of
CREATE TABLE AS plans a plain query only, so such a statement is taken apart
here into two statements that run one after the other in its transaction:
`CREATE TABLE name (column type, …)` with the query's column names and types
(analysed once, for the shape), then `WITH … INSERT INTO name SELECT …`, which
`ctedml` runs (analysed when it runs, once the table exists). IF NOT EXISTS and
WITH NO DATA keep the plain path (and its 0A000).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...pgtypes import oids as T
from ...pgwire.backend import Result
from ..parse import parse_sql
from ..pgcatalog.typetext import format_type
from ..stmt import AnalyseTree, Stmt
from .ctedml import analyse_dml_with, top_dml_with

if TYPE_CHECKING:
    from ..session import SQLSession


def _plain(tree: exp.Create) -> bool:
    """Tells whether the CREATE TABLE AS has none of the forms left to the plain path."""
    if tree.args.get("exists"):
        return False
    props = tree.args.get("properties")
    return props is None or not any(isinstance(p, exp.WithDataProperty) for p in props.expressions)


def analyse_ctas_dml(session: SQLSession, sql: str, tree: exp.Expression,
                     param_oids: list[int], analyse_tree: AnalyseTree) -> Stmt | None:
    """The Stmt of CREATE TABLE … AS a query with a data-modifying WITH, or None."""
    if not isinstance(tree, exp.Create) or str(tree.args.get("kind") or "").upper() != "TABLE":
        return None
    query = tree.expression
    if not isinstance(query, exp.Select | exp.Union | exp.Intersect | exp.Except) \
            or not _plain(tree) or top_dml_with(query) is None:
        return None
    shape = analyse_dml_with(session, query.sql("postgres"), query, param_oids, analyse_tree)
    if shape is None or not shape.columns:
        return None
    target = tree.this
    table = target.this if isinstance(target, exp.Schema) else target
    names = [e.name for e in target.expressions] if isinstance(target, exp.Schema) else []
    defs = []
    for i, c in enumerate(shape.columns):
        name = names[i] if i < len(names) else c.name
        typ = format_type(T.TEXT if c.type_oid == T.UNKNOWN else c.type_oid, c.typmod)
        defs.append(f"{exp.to_identifier(name).sql('postgres')} {typ}")
    create = tree.copy()
    create.set("expression", None)
    create.set("this", exp.Schema(this=table.copy()))
    head = create.sql("postgres")
    if not head.endswith(table.sql("postgres")):  # NB: options after the name: the plain path
        return None
    create_sql = f"{head} ({', '.join(defs)})"
    body = query.copy()
    with_ = body.args.get("with_")
    body.set("with_", None)
    insert = exp.Insert(this=table.copy(), expression=body, with_=with_)
    insert_sql = insert.sql("postgres")

    def run(s: SQLSession, values: list[Any]) -> Result:
        made = analyse_tree(s, create_sql, parse_sql(create_sql), [])
        made.run(s, [])
        filled = analyse_tree(s, insert_sql, insert.copy(), list(param_oids))
        tag = filled.run(s, list(values)).tag  # INSERT 0 n
        return Result(f"SELECT {tag.rsplit(' ', 1)[-1]}")

    return Stmt(sql, "ddl", run, None, list(param_oids), -1, tag="SELECT")

