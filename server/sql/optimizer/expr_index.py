"""Rule: `WHERE lower(name) = $1` reads an index on `(lower(name))` instead of the whole table.

An expression index stores `encode_key(expression values + primary key)`
(`ddl.indexkeys`), so equality of its leading key expression with a constant
or parameter is a prefix of the index space, exactly as for a column index
(`index_lookup`). The index's expression text is bound over the scan's
columns once, and a WHERE conjunct matches when one side is the same bound
expression (compared structurally: operator, function, column positions,
constants) and the other is fixed for the execution. Only the leading key
is used; the conjunct stays in a Filter above the lookup, which keeps the
rule trivially correct for expressions whose equality is not the index's
(e.g. numeric scale).

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.expr_index import expr_index
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(expr_index, "select x from u where lower(y) = 'a'")
    Project x
      Filter (lower(y) = 'a')
        Scan u
    =>
    Project x
      Filter (lower(y) = 'a')
        IndexLookup u index=u_lower_idx range=['a' .. 'a']
"""

from __future__ import annotations

from typing import Any

import sqlglot

from ..expr.binder import Binder, Scope
from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from ..plan.builder import Planner
from .point_get import compatible

_FIXED = ("const", "param")


def expr_index(plan: N.Node, ctx: Any) -> N.Node:
    """Replaces Filter(Scan) with Filter(IndexLookup) on an expression index's leading key."""

    def fn(node: N.Node) -> N.Node:
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Scan)):
            return node
        scan = node.child
        if scan.lo is not None or scan.hi is not None or scan.ir is not None:
            return node
        table = scan.table
        indexes = [i for i in ctx.catalog.indexes_of(table.oid)
                   if i.space and i.exprs and i.columns[0] == 0 and not i.predicate]
        if not indexes:
            return node
        preds = conjuncts(node.pred)
        for idx in indexes:
            key = _bind(ctx, scan, idx.exprs[0])
            if key is None:
                continue
            want = _shape(key)
            for c in preds:
                if c.kind != "op" or c.data != "=":
                    continue
                a, b = c.args
                value = (b if _shape(a) == want and b.kind in _FIXED else
                         a if _shape(b) == want and a.kind in _FIXED else None)
                if value is None or not compatible(value, key.type):
                    continue
                look = N.IndexLookup(scan.cols, table=table, index=idx, lo=[value], hi=[value],
                                     with_keys=scan.with_keys)
                return N.Filter(look.cols, child=look, pred=node.pred)
        return node

    return N.transform(plan, fn)


def _bind(ctx: Any, scan: N.Scan, sql: str) -> E | None:
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
        return Binder(Planner(ctx.catalog, None, []), Scope(scan.cols)).bind(tree)
    except Exception:  # noqa: BLE001 - an expression that no longer binds is not usable
        return None


def _shape(e: E) -> Any:
    """A structural key of a bound expression (what it computes, not where it came from)."""
    data = e.data
    if e.kind == "call":
        data = data.name
    elif e.kind == "pyfunc":
        data = data[0]
    elif e.kind in ("subquery", "exists", "in_sub", "array_sub", "srf"):
        return object()  # never equal
    elif not isinstance(data, str | int | float | bool | type(None)):
        data = repr(data)
    return (e.kind, data, e.type, tuple(_shape(x) for x in e.args))
