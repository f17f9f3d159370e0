"""A query's `Stmt`: the query is planned once, and its `run` executes the cached plan.

`statement.analyse_tree` routes SELECT and VALUES here; EXPLAIN and DECLARE
CURSOR plan their inner query the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..pgwire.backend import Result
from .context import ParamTypes
from .lockrows import plan_locking, wants_locks
from .plan.compiler import COMPILER
from .plan.paramcheck import check_parameters
from .stmt import Stmt

if TYPE_CHECKING:
    from .session import SQLSession


def analyse_query(session: SQLSession, sql: str, tree: exp.Expression, param_oids: list[int],
                  version: int) -> Stmt:
    """Plans a query once; its `run` executes the cached plan."""
    params = ParamTypes(list(param_oids))
    if wants_locks(tree):  # SELECT ... FOR UPDATE
        plan: Any = plan_locking(session, tree, params, COMPILER)
    else:
        plan = COMPILER.plan_query(tree, session.catalog(), params, session.search_path())
    if params.oids:  # NB: `SELECT $2::int` leaves $1 untyped: 42P18, as PostgreSQL
        check_parameters(tree, param_oids, len(params.oids), params.settled, params.oids)

    def run(s: SQLSession, values: list[Any]) -> Result:
        return s.run_plan(plan, values)

    return Stmt(sql, "query", run, list(plan.columns), params.oids, version, tag="SELECT",
                plan=plan)
