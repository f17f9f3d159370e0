"""INSERT, UPDATE and DELETE on a view: its INSTEAD OF triggers, else the automatic rewrite.

As PostgreSQL: when the view has a row-level INSTEAD OF trigger for the
statement's event, the statement writes nothing itself. It computes the rows
it would write, as the view's columns, and hands each one to the triggers (NEW
for INSERT and UPDATE, OLD for UPDATE and DELETE). A trigger that returns NULL
skips the row: it is not counted in the command tag and RETURNING does not see
it. RETURNING is computed over the row the trigger returned (NEW as the
trigger left it; OLD for DELETE). The view's statement-level triggers fire
around it. A view without such a trigger is rewritten onto its base relation
when it is automatically updatable (`viewrewrite`), else 55000.

Each part is an ordinary query, analysed once: the rows to hand over (`SELECT
... FROM (VALUES ...)` for INSERT, `SELECT old columns, new values FROM view
WHERE ...` for UPDATE and DELETE), and RETURNING as a query over one row given
as parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import SQLError, UndefinedColumn
from ...pgwire.backend import Result
from ..catalog.model import Table
from ..ddl.names import find_relation, get_relation, ident, table_name
from ..parse import parse_sql
from ..pgcatalog.typetext import format_type
from ..pgcatalog.updatable import not_updatable, view_default, view_query
from ..querystmt import analyse_query
from ..stmt import Stmt
from .firetriggers import TableTriggers, with_statement_triggers
from .viewcheck import ViewCheck, bare, enforcing
from .viewrewrite import refuse, rewrite

if TYPE_CHECKING:
    from ..session import SQLSession

Route = Callable[[Any, str, exp.Expression, list[int], int], Any]


def view_target(s: SQLSession, tree: exp.Expression) -> Table | None:
    """The view an INSERT, UPDATE or DELETE writes to, or None for a table."""
    target = tree.this
    if isinstance(target, exp.Schema):
        target = target.this
    if not isinstance(target, exp.Table) or not isinstance(target.this, exp.Identifier):
        return None
    schema, name = table_name(target)
    rel = find_relation(s.catalog(), schema, name, s.search_path())
    return rel if rel is not None and rel.kind == "v" else None


def _op(tree: exp.Expression) -> str:
    return "INSERT" if isinstance(tree, exp.Insert) else \
        "UPDATE" if isinstance(tree, exp.Update) else "DELETE"


def analyse_view_dml(s: SQLSession, sql: str, tree: exp.Expression, view: Table,
                     param_oids: list[int], version: int, route: Route) -> Stmt:
    """A statement on a view: through its INSTEAD OF triggers, or rewritten onto its table."""
    op = _op(tree)
    trig = TableTriggers.of(s.catalog(), view)
    if trig is not None and trig.groups.get(("INSTEAD OF", "ROW", op)):
        return with_statement_triggers(s, tree, _instead(s, sql, tree, view, op, param_oids,
                                                         version))
    q = view_query(view.view_sql or "")
    why = not_updatable(q)
    if why is not None:
        raise refuse(view, op, why)
    bschema, bname = table_name(q.args["from_"].this)
    base = get_relation(s.catalog(), bschema, bname, s.search_path())
    new = rewrite(tree, view, op, [c.name for c in base.live_columns])  # type: ignore[arg-type]
    stmt = route(s, _overriding_kept(sql, new), new, param_oids, version)
    checks = new.meta.get("view_checks")
    if base.kind != "r" or not checks:
        return stmt
    in_force = [ViewCheck(v, bare(c)) for v, c in checks]
    inner = stmt.run

    def run(sess: SQLSession, values: list[Any]) -> Result:
        with enforcing(base.oid, in_force):
            res = inner(sess, values)
            if res.rows is not None and not res.done:  # NB: RETURNING rows are written lazily
                rows = res.fetch()
                return Result(res.tag, res.columns, iter(rows), done=False)
            return res

    stmt.run = run
    stmt.many = None  # NB: pipelined runs of one INSERT would bypass the checks
    return stmt


_OVERRIDING = re.compile(r"\bOVERRIDING\s+(?:SYSTEM|USER)\s+VALUE\b", re.I)


def _overriding_kept(sql: str, new: exp.Expression) -> str:
    """The rewritten statement's text, with the INSERT's OVERRIDING clause (which sqlglot
    does not read, so `dml.insert` reads it from the text) after its target."""
    text = new.sql("postgres")
    m = _OVERRIDING.search(sql) if isinstance(new, exp.Insert) else None
    if m is None:
        return text
    target = new.this.sql("postgres")
    at = text.index(target) + len(target)
    return f"{text[:at]} {m.group()}{text[at:]}"


def _cast(e: exp.Expression, oid: int, typmod: int) -> exp.Expression:
    return exp.Cast(this=e, to=exp.DataType.build(format_type(oid, typmod) or "text",
                                                  dialect="postgres"))


def _rows_query(tree: exp.Expression, view: Table, op: str
                ) -> tuple[exp.Expression, list[int], list[int]]:
    """The query of the rows to hand to the triggers, the view positions of its old columns
    (UPDATE, DELETE) and of its new values."""
    cols = view.live_columns
    by_name = {c.name: i for i, c in enumerate(cols)}
    if op == "INSERT":
        listed = [ident(e) for e in tree.this.expressions] \
            if isinstance(tree.this, exp.Schema) else [c.name for c in cols]
        for n in listed:
            if n not in by_name:
                raise UndefinedColumn(f'column "{n}" of relation "{view.name}" does not exist')
        own = {c.name: d for c in cols if (d := view_default(c)) is not None}
        src = tree.args.get("expression")
        if src is None:  # DEFAULT VALUES: the view's defaults, NULL elsewhere
            names = list(own) or [cols[0].name]
            return exp.select(*[_cast(own[n].copy() if n in own else exp.Null(),
                                      cols[by_name[n]].type_oid, cols[by_name[n]].typmod)
                                for n in names]), [], [by_name[n] for n in names]
        if isinstance(src, exp.Values):
            width = len(src.expressions[0].expressions) if src.expressions else 0
            src = src.copy()
            for tup in src.expressions:  # NB: typed as the columns they go to ($1 too)
                for i, e in enumerate(tup.expressions[:len(listed)]):
                    c = cols[by_name[listed[i]]]
                    if isinstance(e, exp.Var) and e.name.upper() == "DEFAULT":
                        e = own[c.name].copy() if c.name in own else exp.Null()
                    tup.expressions[i] = _cast(e, c.type_oid, c.typmod)
            src = exp.select("*").from_(exp.Subquery(
                this=src, alias=exp.TableAlias(
                    this=exp.to_identifier("_v"),
                    columns=[exp.to_identifier(f"c{i}") for i in range(width)])))
        else:
            width = len(listed)
        listed = listed[:width]
        names = [f"c{i}" for i in range(len(listed))]
        sub = exp.Subquery(this=src.copy(), alias=exp.TableAlias(
            this=exp.to_identifier("_s"), columns=[exp.to_identifier(n) for n in names]))
        pos = [by_name[n] for n in listed]
        sel = [_cast(exp.column(n, "_s"), cols[p].type_oid, cols[p].typmod)
               for n, p in zip(names, pos, strict=True)]
        for n, d in own.items():  # the view's defaults for the columns left out
            if n not in listed:
                pos.append(by_name[n])
                sel.append(_cast(d.copy(), cols[by_name[n]].type_oid, cols[by_name[n]].typmod))
        return exp.select(*sel).from_(sub), [], pos
    target = tree.this
    alias = ident(target.args["alias"].this) if target.args.get("alias") else view.name
    olds: list[exp.Expression] = [exp.column(c.name, alias) for c in cols]
    pos = []
    for item in tree.expressions if op == "UPDATE" else ():
        left = item.this
        n = ident(left.this if isinstance(left, exp.Column) else left)
        if n not in by_name:
            raise UndefinedColumn(f'column "{n}" of relation "{view.name}" does not exist')
        c = cols[by_name[n]]
        pos.append(by_name[n])
        olds.append(_cast(item.expression.copy(), c.type_oid, c.typmod))
    q = exp.select(*olds).from_(target.copy())
    extra = tree.args.get("from_") if op == "UPDATE" else None
    for t in (extra.expressions or [extra.this]) if extra is not None else ():
        q = q.join(t.copy(), join_type="cross")
    for t in (tree.args.get("using") or ()) if op == "DELETE" else ():
        q = q.join(t.copy(), join_type="cross")
    if tree.args.get("where") is not None:
        q = q.where(tree.args["where"].this.copy())
    return q, list(range(len(cols))), pos


def _instead(s: SQLSession, sql: str, tree: exp.Expression, view: Table, op: str,
             param_oids: list[int], version: int) -> Stmt:
    q, old_pos, new_pos = _rows_query(tree, view, op)
    rows_stmt = analyse_query(s, q.sql("postgres"), parse_sql(q.sql("postgres")),
                              list(param_oids), s.catalog_version())
    nuser = len(rows_stmt.param_oids)
    ret_stmt = None
    ret = tree.args.get("returning")
    cols = view.live_columns
    if ret is not None:
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        alias = ident(target.args["alias"].this) if target.args.get("alias") else view.name
        one = exp.select(*[exp.alias_(_cast(exp.Parameter(this=exp.Literal.number(nuser + i + 1)),
                                             c.type_oid, c.typmod), c.name, quoted=True)
                           for i, c in enumerate(cols)])
        rq = exp.select(*[e.copy() for e in ret.expressions]).from_(
            exp.Subquery(this=one, alias=exp.TableAlias(this=exp.to_identifier(alias))))
        text = rq.sql("postgres")
        ret_stmt = analyse_query(s, text, parse_sql(text),
                                 list(rows_stmt.param_oids) + [c.type_oid for c in cols],
                                 s.catalog_version())
    ncols = len(cols)

    def run(sess: SQLSession, values: list[Any]) -> Result:
        trig = TableTriggers.of(sess.catalog(), view)
        if trig is None:
            raise SQLError(f'cannot {op.lower()} view "{view.name}"', sqlstate="55000")
        vals = list(values[:nuser])
        src = rows_stmt.run(sess, vals).fetch()
        done = 0
        out = []
        for r in src:
            old = list(r[:ncols]) if old_pos else None
            new: list[Any] | None = None
            if op != "DELETE":
                new = list(old) if old is not None else [None] * ncols
                for p, v in zip(new_pos, r[len(old_pos):], strict=True):
                    new[p] = v
            got = trig.instead(sess, op, new, old)
            if got is None:
                continue
            done += 1
            if ret_stmt is not None:
                row = got if op != "DELETE" or old is None else old
                out.extend(ret_stmt.run(sess, vals + list(row)).fetch())
        tag = f"INSERT 0 {done}" if op == "INSERT" else f"{op} {done}"
        if ret_stmt is None:
            return Result(tag)
        return Result(tag, ret_stmt.columns, iter(out), done=False)

    return Stmt(sql, "dml", run, ret_stmt.columns if ret_stmt is not None else None,
                list(rows_stmt.param_oids), version, tag=op)
