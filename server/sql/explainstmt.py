"""The EXPLAIN statement: options, ANALYZE runs, and PostgreSQL's output formats.

`EXPLAIN [ (option, ...) | ANALYZE | VERBOSE ] statement` plans the statement
as it would run (the same cached plan), and with ANALYZE runs it, counting
rows, loops and time per plan node (`exec.runner` keeps the figures while the
context asks for them). The plan is printed by `plan.pgexplain` in TEXT,
JSON, YAML or XML; a query with a set operation (UNION, INTERSECT, EXCEPT)
is a query like any other here. INSERT / UPDATE / DELETE print PostgreSQL's
`Update on t` head over the plan that finds their rows; with ANALYZE they
run (in the caller's transaction, as PostgreSQL does).

Nothing here runs unless EXPLAIN is asked for: the optimizer keeps no plan
text of its own (`optimizer.rules.optimize(trace=False)`).
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..pgtypes import oids as T
from ..pgwire.backend import Column, Result
from .exec.vector.explain import view as columnar_view
from .exec.vector.run import SETTING
from .explainable import check_explainable
from .parse import parse_sql, unquote_ident, utility
from .plan import pgexplain
from .plan.compiler import CompiledPlan
from .plan.explainopts import ExplainOptions, parse
from .prepstmts import bind_prepared, custom_plan_next
from .querystmt import analyse_query
from .stmt import ANY_VERSION, AnalyseTree, Stmt

if TYPE_CHECKING:
    from .session import SQLSession


def _column(o: ExplainOptions) -> list[Column]:
    return [Column("QUERY PLAN", T.JSON if o.format == "json" else T.TEXT)]


def _result(lines: list[str], o: ExplainOptions) -> Result:
    return Result("EXPLAIN", _column(o), iter([(x,) for x in lines]), done=False)


def _rendered(tree: Any, o: ExplainOptions, planning: float, ms: float) -> Result:
    """The plan tree as EXPLAIN's result, with its Planning Time and (ANALYZE) Execution
    Time when SUMMARY is on."""
    summary = {"Planning Time": planning, "Execution Time": ms} if o.show_summary else None
    if summary is not None and not o.analyze:
        summary.pop("Execution Time")
    return _result(pgexplain.render(tree, o.format, costs=o.costs, timing=o.show_timing,
                                    summary=summary), o)


def _tree(plan: Any, s: SQLSession, p: list[Any], o: ExplainOptions,
          query: bool = True, custom: bool = True) -> tuple[Any, float]:
    """Builds PostgreSQL's plan tree; with ANALYZE runs the plan first. Returns (tree, ms).
    A `custom` plan shows the parameters' values where the generic one shows `$n`."""
    stats: dict[int, list[Any]] | None = None
    ms = 0.0
    ctx = s.exec_context(p)  # NB: also what runtime pruning decides (Subplans Removed)
    if o.analyze:
        stats = {}
        ctx.analyze = stats
        start = time.perf_counter()
        try:
            for _ in plan.execute(ctx):
                pass
        finally:
            ctx.analyze = None
        ms = (time.perf_counter() - start) * 1000
    shown = columnar_view(s.settings.values.get(SETTING, "auto"), stats)
    tree = pgexplain.build(plan.root, stats, costs=o.costs, verbose=o.verbose, view=shown,
                           pruned=lambda g: bool(g.skip(ctx)), params=p if custom else None)
    if query and not isinstance(plan, CompiledPlan):  # the other QueryPlan: SELECT ... FOR UPDATE
        locked = pgexplain.PNode("LockRows", "LockRows", rows=tree.rows, width=tree.width,
                                 cost=tree.cost, stats=tree.stats, analyze=tree.analyze)
        locked.children.append(("Outer", tree))
        tree = locked
    return tree, ms


def analyse_explain(session: SQLSession, sql: str, m: re.Match[str], param_oids: list[int],
                    analyse_tree: AnalyseTree) -> Stmt:
    """Plans `EXPLAIN ...` (the match of `parse`'s explain pattern) into a statement
    (`analyse_tree`: `statement`'s, for an explained INSERT, UPDATE, DELETE ...)."""
    check_explainable(sql, m.start("query"))
    o = parse(m.group("opts"))
    inner = m.group("query").strip()
    u = utility(inner)
    if u is not None and u[0] == "execute":
        return _explain_execute(sql, unquote_ident(u[1].group("name")), u[1].group("args"), o)
    tree = parse_sql(inner)
    if not isinstance(tree, exp.Query | exp.Values):
        return _explain_other(session, sql, inner, tree, param_oids, o, analyse_tree)
    start = time.perf_counter()
    q = analyse_query(session, inner, tree, param_oids, session.catalog_version())
    planning = (time.perf_counter() - start) * 1000
    plan = q.plan

    def run(s: SQLSession, p: list[Any]) -> Result:
        pt, ms = _tree(plan, s, p, o)
        return _rendered(pt, o, planning, ms)

    return Stmt(sql, "utility", run, _column(o), q.param_oids, q.version, tag="EXPLAIN")


def _explain_other(session: SQLSession, sql: str, inner: str, tree: exp.Expression,
                   param_oids: list[int], o: ExplainOptions, analyse_tree: AnalyseTree) -> Stmt:
    start = time.perf_counter()
    target = analyse_tree(session, inner, tree, param_oids)
    planning = (time.perf_counter() - start) * 1000

    def run(s: SQLSession, p: list[Any]) -> Result:
        return _explain_target(s, target, tree, p, o, planning=planning)

    return Stmt(sql, "utility", run, _column(o), target.param_oids, target.version, tag="EXPLAIN")


def _explain_target(s: SQLSession, target: Stmt, tree: exp.Expression, p: list[Any],
                    o: ExplainOptions, custom: bool = True, planning: float = 0.0) -> Result:
    """EXPLAIN of a statement other than a query: its head (`Update on t`) over the plan that
    finds its rows (`Result` / `Values Scan` for INSERT ... VALUES); with ANALYZE it runs.

    As PostgreSQL's ModifyTable the head returns no rows but RETURNING's (rows=0 without
    RETURNING); with ANALYZE the plan under it runs once for its figures, then the
    statement (its own run of that plan)."""
    head = target.tag.title() if target.tag else "Utility"
    if isinstance(tree, exp.Insert | exp.Update | exp.Delete | exp.Merge):
        table = tree.this.find(exp.Table)
        head = f"{target.tag.title()} on {table.name if table is not None else '?'}"
    returns = target.columns is not None
    top = pgexplain.PNode(head.split(" on ")[0], head, min_rows=0)
    sub = None
    if target.plan is not None:
        sub, _ = _tree(target.plan, s, p, ExplainOptions(costs=o.costs, format=o.format,
                                                         analyze=o.analyze, timing=o.timing),
                       query=False, custom=custom)
    elif isinstance(tree, exp.Insert) and isinstance(tree.expression, exp.Values):
        n = len(tree.expression.expressions)
        sub = pgexplain.PNode("Result", "Result") if n == 1 else \
            pgexplain.PNode("Values Scan", 'Values Scan on "*VALUES*"', rows=n, cost=n)
    if sub is not None:
        top.children.append(("Outer", sub))
        top.rows, top.cost = (sub.rows if returns else 0), sub.cost
    start = time.perf_counter()
    if o.analyze:
        res = target.run(s, p)
        got = res.fetch() if res.rows is not None else []
        ms = (time.perf_counter() - start) * 1000
        top.analyze, top.stats = True, [len(got) if returns else 0, ms / 1000, 1]
        if sub is not None and target.plan is None:
            sub.analyze, sub.stats = True, [sub.rows, 0.0, 1]
    return _rendered(top, o, planning, (time.perf_counter() - start) * 1000)


def _explain_execute(sql: str, name: str, args: str | None, o: ExplainOptions) -> Stmt:
    """`EXPLAIN EXECUTE name(args)`: the plan of PREPARE's statement for those values, custom
    (values as constants) for its first executions and generic (`$1`) after, as PostgreSQL's
    plan cache chooses; with ANALYZE it runs. Both count as an execution."""

    def run(s: SQLSession, p: list[Any]) -> Result:
        custom = custom_plan_next(s, name)
        stmt, values = bind_prepared(s, name, args)
        if stmt.kind != "query" or stmt.plan is None:
            return _explain_target(s, stmt, parse_sql(stmt.sql), values, o, custom)
        pt, ms = _tree(stmt.plan, s, values, o, custom=custom)
        return _rendered(pt, o, 0.0, ms)

    return Stmt(sql, "utility", run, _column(o), [], ANY_VERSION, tag="EXPLAIN")
