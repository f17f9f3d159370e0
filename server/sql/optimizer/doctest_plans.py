"""A tiny catalog and a before/after printer for the optimizer rules' doctests.

Each rule's docstring shows what the rule does to a real plan rather than
that it exists: `show(rule, sql)` plans `sql` with the builder (no rules
applied), prints that plan, applies the one rule, and prints the result, both
in EXPLAIN's text (`plan.explain`). Only doctests import this module.

The catalog: `t(a int primary key, b text, c numeric)`, `u(x int, y text)`
with a hidden row id, `s(k int primary key, v text)`, a secondary index
`u_y_idx` on `u(y)` and an expression index `u_lower_idx` on `u(lower(y))`.
(Rules are imported by their `cumulo.` names in the doctests: pytest's
`--doctest-modules` loads a second copy of the package as `server.`, whose
node classes the `cumulo.` builder's plans are not instances of.)

>>> print(render(plan("select b from t where a = 1")))
Project b
  Filter (a = 1)
    Scan t
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import sqlglot
from sqlglot import exp

from ..catalog.model import CatalogSnapshot, Column, Database, Index, Role, Schema, Table
from ..context import ParamTypes
from ..plan import nodes as N
from ..plan.builder import Planner
from ..plan.explain import explain_lines
from .rules import OptContext

_T = Table(16384, "t", 2200, (Column("a", 23, attnum=1, not_null=True), Column("b", 25, attnum=2),
                              Column("c", 1700, attnum=3)), primary_key=(1,), space=1)
_U = Table(16390, "u", 2200, (Column("x", 23, attnum=1), Column("y", 25, attnum=2)), space=2)
_S = Table(16400, "s", 2200, (Column("k", 23, attnum=1, not_null=True), Column("v", 25, attnum=2)),
           primary_key=(1,), space=3)
_U_Y = Index(16420, "u_y_idx", _U.oid, (2,), space=4)
_U_LOWER = Index(16421, "u_lower_idx", _U.oid, (0,), space=5, exprs=("lower(y)",))

CATALOG = CatalogSnapshot(
    database=Database(5, "postgres"),
    databases=(Database(5, "postgres"),),
    roles=(Role(10, "postgres", superuser=True),),
    schemas=(Schema(11, "pg_catalog"), Schema(2200, "public")),
    tables=(_T, _U, _S),
    indexes=(_U_Y, _U_LOWER),
)


def plan(sql: str) -> N.Node:
    """The builder's plan of `sql` against CATALOG, before any optimizer rule."""
    planner = Planner(CATALOG, ParamTypes([]), ["public"])
    return planner.plan_query(cast(exp.Expression, sqlglot.parse_one(sql, read="postgres")))


def render(node: N.Node) -> str:
    """The plan as EXPLAIN prints it (without estimates)."""
    return "\n".join(explain_lines(node))


def show(rule: Callable[[N.Node, Any], N.Node], sql: str) -> None:
    """Prints the builder's plan of `sql`, then the plan after `rule` alone."""
    before = plan(sql)
    print(render(before))
    print("=>")
    print(render(rule(before, OptContext(CATALOG))))
