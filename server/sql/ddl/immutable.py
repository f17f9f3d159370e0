"""What CREATE TABLE, ALTER TABLE ADD COLUMN and CREATE INDEX check of an expression that is
stored or indexed: it must be immutable, as PostgreSQL requires.

A stored generated column is computed once, when its row is written; an index entry once,
when its row is indexed. An expression whose value could change afterwards (`now()`, a
`timestamp::text` that follows DateStyle, a `timestamptz::date` that follows TimeZone)
would leave them stale, so PostgreSQL refuses it with 42P17. The check binds the
expression over the table's columns and asks `expr.volatility` about the bound tree, so
the casts the binder inserts count, not only the functions named.

A generation expression may not read another generated column (42P17), run a subquery
(0A000) or an aggregate or window function (42803, 42P20).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import FeatureNotSupported, GroupingError, SQLError, WindowingError
from ..catalog.model import Column, Table
from ..context import ParamTypes
from ..expr.binder import Binder, Scope
from ..expr.bound import E
from ..expr.volatility import volatility
from ..parse import parse_sql
from ..plan import nodes as N
from ..plan.builder import Planner

if TYPE_CHECKING:
    from ..session import SQLSession


def _bind(s: SQLSession, qualifier: str, columns: Sequence[Column], tree: exp.Expression) -> E:
    cols = [N.PCol(c.name, c.type_oid, c.typmod, qualifier) for c in columns if not c.dropped]
    planner = Planner(s.catalog(), ParamTypes(), s.search_path())
    return Binder(planner, Scope(cols)).bind(tree)


def check_index_exprs(s: SQLSession, table: Table, exprs: Sequence[str], what: str) -> None:
    """Rejects an index expression or predicate that is not immutable (42P17)."""
    for sql in exprs:
        e = _bind(s, table.name, table.columns, parse_sql(f"SELECT {sql}").expressions[0])
        if volatility(e) != "i":
            raise SQLError(f"functions in {what} must be marked IMMUTABLE", sqlstate="42P17")


def check_generated(s: SQLSession, qualifier: str, columns: Sequence[Column],
                    only: Column | None = None) -> None:
    """Checks the generation expressions of `columns` (or of `only`) over those columns."""
    generated = {c.name for c in columns if c.generated and not c.dropped}
    for c in [only] if only is not None else columns:
        if not c.generated or c.dropped:
            continue
        tree = parse_sql(f"SELECT {c.generated}").expressions[0]
        for node in tree.walk():
            if isinstance(node, (exp.Subquery, exp.Select, exp.Exists)):
                raise FeatureNotSupported("cannot use subquery in column generation expression")
            if isinstance(node, exp.Window):
                raise WindowingError(
                    "window functions are not allowed in column generation expressions")
            if isinstance(node, exp.AggFunc):
                raise GroupingError(
                    "aggregate functions are not allowed in column generation expressions")
            if isinstance(node, exp.Column) and node.name in generated:
                raise SQLError(f'cannot use generated column "{node.name}" in column '
                               "generation expression", sqlstate="42P17",
                               detail="A generated column cannot reference another "
                                      "generated column.")
        if volatility(_bind(s, qualifier, columns, tree)) != "i":
            raise SQLError("generation expression is not immutable", sqlstate="42P17")
