"""Expression partition keys (`PARTITION BY RANGE (date_trunc('month', ts))`, `LIST
(lower(name))`): each expression compiled over the partitioned table's row.

`partitions.members` routes rows without compiling SQL (the planner, a layer above,
imports it); this module compiles for it and installs itself there when imported
(`ddl.partitions` imports it, so before any such key exists). An expression is
compiled once per (catalog snapshot, table, text) and run with a context of no
session: its functions are IMMUTABLE (CREATE TABLE checks, as PostgreSQL does), so
they read no setting, no transaction, no parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from ...waits import Flag
from ..catalog.model import Table
from ..context import ExecContext, ParamTypes
from ..dml.values import table_scope
from ..expr.binder import Binder, Scope
from ..expr.bound import E
from ..expr.codegen import row_function
from ..parse import parse_sql
from ..plan import nodes as N
from ..plan.builder import Planner
from .members import compile_key_exprs_with


def compiled(cat: Any, table: Table, exprs: tuple[str, ...]
             ) -> tuple[list[int], list[int], list[Callable[[Any], Any]], list[E]]:
    """(types, attnums read, row functions, bound trees) of a key's expression items (bind
    errors raise: CREATE TABLE reports them). A tree reads the row's slots by attnum - 1,
    as a Filter over the partitioned table's scan does: pruning matches it there."""
    cache = cat.derived.setdefault("partition_key_exprs", {})
    hit = cache.get((table.oid, exprs))
    if hit is not None and hit[0] is table:
        return hit[1]
    schema = cat.schema_by_oid(table.schema_oid)
    path = ["pg_catalog"] + ([schema.name] if schema is not None else [])
    cols = [N.PCol(c.name, c.type_oid, c.typmod, table.name) for c in table_scope(table)]
    ctx = ExecContext(cat, None, None, [], Flag())  # type: ignore[arg-type]
    by_name = {c.name: c.attnum for c in table.live_columns}
    types, reads, fns, trees = [], set(), [], []
    for sql in exprs:
        tree = normalize_identifiers(parse_sql(f"SELECT {sql}").expressions[0],
                                     dialect="postgres")
        reads |= {by_name[c.name] for c in tree.find_all(exp.Column) if c.name in by_name}
        e = Binder(Planner(cat, ParamTypes(), path), Scope(cols)).bind(tree)
        types.append(e.type)
        trees.append(e)
        fns.append(_bound(row_function(e), ctx))
    out = (types, sorted(reads), fns, trees)
    cache[(table.oid, exprs)] = (table, out)
    return out


def _bound(fn: Callable[[Any, Any], Any], ctx: ExecContext) -> Callable[[Any], Any]:
    return lambda row: fn(row, ctx)


compile_key_exprs_with(compiled)
