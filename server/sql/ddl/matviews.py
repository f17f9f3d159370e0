"""Materialized views as PostgreSQL 15 has them: a table filled from a stored query.

`CREATE MATERIALIZED VIEW mv [(cols)] AS query` makes what `CREATE TABLE mv AS query`
makes (`tables.create_table_as`: the query's columns, its rows, the tag `SELECT n`), as
relkind "m" with the query kept as its definition (`Table.view_sql`, stars frozen as a
view's are), so pg_class, pg_matviews, pg_get_viewdef and psql's `\\d`/`\\dm` show it as
PostgreSQL does. It is read like a table (it may have indexes) and holds the rows of its
last refresh: `REFRESH MATERIALIZED VIEW [CONCURRENTLY] mv` replaces them with the query's
rows now, in the transaction (CONCURRENTLY asks, as PostgreSQL, for a unique index without
a WHERE clause: 55000 otherwise). INSERT, UPDATE and DELETE are 42809 "cannot change
materialized view" (`dml`), DROP TABLE / DROP VIEW of one 42809 with PostgreSQL's HINT
(`tables.drop_relations`), and `DROP MATERIALIZED VIEW` drops it with its indexes.

`WITH NO DATA` (in CREATE or REFRESH) leaves it unpopulated (`Table.populated`,
pg_class.relispopulated): a read is then 55000 until a REFRESH fills it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    FeatureNotSupported,
    ObjectNotInPrerequisiteState,
    SyntaxError_,
    UndefinedTable,
    WrongObjectType,
)
from ...pgwire.backend import Result
from ...txn.api import ScanSpec
from ..context import ParamTypes
from ..dml.writer import writer_for
from ..parse import parse_sql
from ..plan.compiler import COMPILER
from ..stmt import Stmt
from .depends import report_cascade
from .names import find_relation, get_relation, parse_qualified, skip_or_raise, table_name
from .tables import create_table, drop_table_objects

if TYPE_CHECKING:
    from ..session import SQLSession

_CREATE = re.compile(r"CREATE\s+MATERIALIZED\s+VIEW\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?"
                     r"(?P<rest>.+?)(?:\s+WITH\s+(?P<no>NO\s+)?DATA)?\s*;?\s*$", re.I | re.S)
_REFRESH = re.compile(r"REFRESH\s+MATERIALIZED\s+VIEW\s+(?P<conc>CONCURRENTLY\s+)?"
                      r"(?P<name>.+?)(?:\s+WITH\s+(?P<no>NO\s+)?DATA)?\s*;?\s*$", re.I | re.S)


def analyse_matview(session: SQLSession, text: str) -> Stmt | None:
    """CREATE MATERIALIZED VIEW and REFRESH MATERIALIZED VIEW; None for other statements."""
    m = _CREATE.match(text)
    if m is not None:
        no_data = bool(m.group("no"))
        tree = parse_sql(f"CREATE TABLE {m.group('ine') or ''}{m.group('rest')}"
                         + (" WITH NO DATA" if no_data else ""))
        if not isinstance(tree, exp.Create) or tree.expression is None:
            raise FeatureNotSupported("CREATE MATERIALIZED VIEW of this form is not supported")
        return Stmt(text, "ddl", lambda s, p: Result(_create(s, tree, no_data)), None, [], -1,
                    tag="CREATE MATERIALIZED VIEW")
    m = _REFRESH.match(text)
    if m is not None:
        schema, name = parse_qualified(m.group("name").strip())
        conc, fill = bool(m.group("conc")), not m.group("no")
        return Stmt(text, "ddl", lambda s, p: Result(_refresh(s, schema, name, conc, fill)),
                    None, [], -1, tag="REFRESH MATERIALIZED VIEW")
    return None


def _create(s: SQLSession, tree: exp.Create, no_data: bool) -> str:
    for sel in tree.expression.find_all(exp.Select):  # NB: as a view's: today's columns
        sel.meta["freeze_stars"] = True
    schema, name = table_name(tree.this.this if isinstance(tree.this, exp.Schema) else tree.this)
    if find_relation(s.catalog(), schema, name, s.search_path()) is not None:
        create_table(s, tree)  # NB: IF NOT EXISTS: its NOTICE; else 42P07
        return "CREATE MATERIALIZED VIEW"
    tag = create_table(s, tree)
    query = tree.expression
    if isinstance(tree.this, exp.Schema) and isinstance(query, exp.Select):
        for i, col in enumerate(tree.this.expressions[:len(query.expressions)]):
            e = query.expressions[i]  # NB: the column list renames: the definition says AS
            query.expressions[i] = exp.alias_(e.this if isinstance(e, exp.Alias) else e,
                                              exp.to_identifier(col.name, quoted=col.quoted))
    table = find_relation(s.catalog(), schema, name, s.search_path())
    assert table is not None
    s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(
        table, kind="m", view_sql=query.sql("postgres"), populated=not no_data))
    s.catalog_changed()
    return "CREATE MATERIALIZED VIEW" if no_data else tag


def _refresh(s: SQLSession, schema: str | None, name: str, concurrently: bool,
             fill: bool) -> str:
    cat = s.catalog()
    mv = get_relation(cat, schema, name, s.search_path())
    if mv.kind != "m":
        raise FeatureNotSupported(f'"{mv.name}" is not a materialized view')
    if concurrently and not mv.populated:
        raise FeatureNotSupported("CONCURRENTLY cannot be used when the materialized view is "
                                  "not populated")
    if concurrently and not fill:
        raise SyntaxError_("CONCURRENTLY and WITH NO DATA options cannot be used together")
    if concurrently and not any(i.unique and i.predicate is None and not i.exprs
                                for i in cat.indexes_of(mv.oid)):
        raise ObjectNotInPrerequisiteState(
            f'cannot refresh materialized view "{_qualified(s, mv)}" concurrently',
            hint="Create a unique index with no WHERE clause on one or more columns of the "
                 "materialized view.")
    plan = COMPILER.plan_query(parse_sql(mv.view_sql or ""), cat, ParamTypes(),
                               s.search_path())
    txn = s.ensure_txn()
    writer = writer_for(s, mv)
    for batch in txn.scan(ScanSpec(mv.space, batch_size=4096, with_keys=True)):
        writer.delete(s, [e[0] for e in batch], [tuple(e[1:]) for e in batch])
    if fill:
        ctx = s.exec_context([])
        for batch in plan.execute(ctx):
            writer.insert(s, [list(r) for r in batch], check_unique=True)
    if mv.populated != fill:
        s.store.put(txn, s.db.oid, dataclasses.replace(mv, populated=fill))
        s.catalog_changed()
    return "REFRESH MATERIALIZED VIEW"


def _qualified(s: SQLSession, mv: Any) -> str:
    sch = next((x for x in s.catalog().schemas if x.oid == mv.schema_oid), None)
    return f"{sch.name if sch is not None else 'public'}.{mv.name}"


def drop_matviews(s: SQLSession, tree: exp.Drop) -> str:
    """DROP MATERIALIZED VIEW [IF EXISTS] a, b [CASCADE]."""
    for t in tree.args.get("tables") or [tree.this]:
        schema, name = table_name(t)
        rel = find_relation(s.catalog(), schema, name, s.search_path())
        if rel is None:
            skip_or_raise(s, f'materialized view "{name}"', bool(tree.args.get("exists")),
                          UndefinedTable)
            continue
        if rel.kind != "m":
            raise WrongObjectType(f'"{name}" is not a materialized view',
                                  hint=f"Use DROP {'VIEW' if rel.kind == 'v' else 'TABLE'} to "
                                  "remove a " + ("view." if rel.kind == "v" else "table."))
        report_cascade(s, drop_table_objects(s, rel, bool(tree.args.get("cascade"))))
        s.catalog_changed()
    return "DROP MATERIALIZED VIEW"
