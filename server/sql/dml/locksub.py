"""A locking subquery in an UPDATE or DELETE: the job-queue statement.

    DELETE FROM q WHERE id = (SELECT id FROM q ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
    UPDATE q SET taken = true WHERE id IN (SELECT id FROM q ... FOR UPDATE SKIP LOCKED LIMIT 5)

PostgreSQL runs the subquery with its LockRows node, so concurrent workers each
get a row nobody holds. Here an uncorrelated subquery with a locking clause in
the WHERE clause (`= (SELECT ...)` or `IN (SELECT ...)`) runs first, through
`lockrows` (locking and skipping as PostgreSQL), and the statement then runs
with its rows as a parameter: `= $n` (NULL for no row, 21000 for several) or
`= ANY($n)`. A correlated subquery (one that reads the outer row) cannot run
alone: its statement keeps the plain plan, where the writes' own locks still
serialize workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import SQLError
from ...pgtypes import oids as T
from ...pgwire.backend import Result
from ..context import ParamTypes
from ..lockrows import plan_locking
from ..plan.compiler import COMPILER
from ..stmt import Stmt

if TYPE_CHECKING:
    from ..session import SQLSession


def _targets(tree: exp.Expression) -> list[tuple[exp.Expression, exp.Select, bool]]:
    """(node to replace, locking subquery, scalar?) for each `= (SELECT ... FOR ...)` and
    `IN (SELECT ... FOR ...)` of the WHERE clause."""
    where = tree.args.get("where")
    if where is None:
        return []
    out: list[tuple[exp.Expression, exp.Select, bool]] = []
    for node in where.find_all(exp.EQ, exp.In):
        if isinstance(node, exp.EQ) and isinstance(node.expression, exp.Subquery):
            sub = node.expression.this
            if isinstance(sub, exp.Select) and sub.args.get("locks"):
                out.append((node.expression, sub, True))
        elif isinstance(node, exp.In) and node.args.get("query") is not None:
            q = node.args["query"]
            sub = q.this if isinstance(q, exp.Subquery) else q
            if isinstance(sub, exp.Select) and sub.args.get("locks"):
                out.append((node, sub, False))
    return out


def analyse_locking_dml(session: SQLSession, sql: str, tree: exp.Expression,
                        param_oids: list[int], inner: Any) -> Stmt | None:
    """The Stmt of an UPDATE/DELETE whose WHERE has locking subqueries, or None (none, or a
    correlated one). `inner(session, sql, tree, param_oids)` analyses the rewritten DML."""
    found = _targets(tree)
    if not found:
        return None
    params = ParamTypes(list(param_oids))
    plans = []
    for _, sub, _ in found:
        try:
            plans.append(plan_locking(session, sub, params, COMPILER))
        except SQLError as e:
            if e.sqlstate in ("42703", "42P01"):  # reads the outer row: not runnable alone
                return None
            raise
    numbers = [int(p.this.name) for p in tree.find_all(exp.Parameter)
               if isinstance(p.this, exp.Literal) and p.this.name.isdigit()]
    base = max([len(param_oids), len(params.oids), *numbers])
    rewritten = tree.copy()
    targets = _targets(rewritten)
    oids = list(params.oids) + [0] * (base - len(params.oids))
    for i, ((node, _, scalar), plan) in enumerate(zip(targets, plans, strict=True)):
        if len(plan.columns) != 1:
            raise SQLError("subquery has too many columns", sqlstate="42601")
        t = plan.columns[0].type_oid
        p = exp.Parameter(this=exp.Literal.number(base + i + 1))
        if scalar:
            node.replace(p)
            oids.append(t)
        else:
            arr = T.ARRAY_OF.get(t)
            if arr is None:
                return None
            node.replace(exp.EQ(this=node.this.copy(), expression=exp.Any(this=p)))
            oids.append(arr)
    stmt = inner(session, sql, rewritten, oids)
    nparams = base

    def run(s: SQLSession, values: list[Any]) -> Result:
        extra = []
        for (_, _, scalar), plan in zip(found, plans, strict=True):
            rows = [r[0] for b in plan.execute(s.exec_context(values[:nparams])) for r in b]
            if scalar:
                if len(rows) > 1:
                    raise SQLError("more than one row returned by a subquery used as an "
                                   "expression", sqlstate="21000")
                extra.append(rows[0] if rows else None)
            else:
                extra.append(rows)
        return stmt.run(s, list(values[:nparams]) + extra)

    return Stmt(sql, stmt.kind, run, stmt.columns, list(stmt.param_oids[:base]), stmt.version,
                tag=stmt.tag, plan=stmt.plan)
