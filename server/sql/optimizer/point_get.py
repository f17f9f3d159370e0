"""Rule: a filter fixing every primary-key column to a value fixed per execution becomes a PointGet.

`SELECT abalance FROM pgbench_accounts WHERE aid = $1` must cost one
`Txn.get`, not a scan. A fixed value is any expression that reads no column of
the scanned row and is not volatile: constants, parameters (PL/pgSQL variables
arrive as parameters, so `a = i % 1000 + 1` in a loop is one get, not a scan of
the table per iteration), the enclosing row of a correlated subquery, and
operators, casts and immutable or stable functions over them. The key code
evaluates it once per execution, as PostgreSQL evaluates an index qual's
comparison value once per scan; NULL matches nothing. The rule also turns `pk IN (...)` on a one-column key
into a multi-key get, and equalities on a proper prefix of the key (or a
range on the next key column) into a key range on the Scan. Conjuncts it
does not use stay in a Filter above.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.point_get import point_get
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(point_get, "select b from t where a in (1, 2)")
    Project b
      Filter in_list(a, 1, 2)
        Scan t
    =>
    Project b
      PointGet t key=(1; 2)
"""

from __future__ import annotations

from typing import Any

from ..expr import types as ty
from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..expr.volatility import volatility
from ..pgcatalog.collations import unkeyable
from ..plan import nodes as N


def _and(preds: list[E]) -> E:
    return preds[0] if len(preds) == 1 else E("and", None, preds, 16)


# Values fixed for one execution of the plan: constants, parameters, and in a correlated
# subquery the enclosing row's columns (`outer`), read when the key is computed.
_FIXED = ("const", "param", "outer")
# Parts that make an expression vary per row (or run a plan of their own).
_PER_ROW = frozenset(("col", "subquery", "exists", "in_sub", "array_sub", "srf", "srf_field"))


def fixed(e: E) -> bool:
    """True if `e` has one value per execution: no column of the row, no volatile call.

    >>> from ...pgtypes import oids as T
    >>> fixed(E("op", "+", [E("param", 1, [], T.INT4), E("const", 1, [], T.INT4)], T.INT4))
    True
    >>> fixed(E("op", "+", [E("col", 0, [], T.INT4), E("const", 1, [], T.INT4)], T.INT4))
    False
    """
    if e.kind in _FIXED:
        return True
    return not any(x.kind in _PER_ROW for x in e.walk()) and volatility(e) != "v"


def _pk_value(c: E, scan: N.Scan) -> tuple[int, str, Any] | None:
    """(column index, op, value expr) for `col op fixed-value` conjuncts on the scan."""
    if c.kind == "op" and c.data in ("=", "<", "<=", ">", ">="):
        a, b = c.args
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
        if a.kind == "col" and fixed(b):
            return a.data, c.data, b
        if b.kind == "col" and fixed(a):
            return b.data, flip[c.data], a
    if c.kind == "in_list" and not c.data and c.args[0].kind == "col" and all(
        fixed(x) and not any(y.kind == "outer" for y in x.walk()) for x in c.args[1:]
    ):
        return c.args[0].data, "in", c.args[1:]
    return None


def compatible(v: E | list, col_type: int) -> bool:
    """True if key values of v's type encode exactly like values of the column's type."""
    if isinstance(v, list):
        return all(compatible(x, col_type) for x in v)
    if v.type == col_type or (v.type in ty.INTS and col_type in ty.INTS):
        return True
    return ty.is_string(v.type) and ty.is_string(col_type) and col_type != 1042


def point_get(plan: N.Node, ctx: Any) -> N.Node:
    """Replaces Filter(Scan) on primary-key equalities with PointGet or a key range."""

    def fn(node: N.Node) -> N.Node:
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Scan)):
            return node
        scan = node.child
        table = scan.table
        if not table.primary_key or scan.lo is not None or scan.hi is not None:
            return node
        pos = {c.attnum: i for i, c in enumerate(sorted(table.columns, key=lambda c: c.attnum))}
        pk_idx = [pos[a] for a in table.primary_key]
        if unkeyable(table).intersection(pk_idx):  # an ICU key: keys are sort keys
            return node
        eq: dict[int, tuple[E, Any]] = {}
        ranges: dict[int, list[tuple[str, Any, E]]] = {}
        for c in conjuncts(node.pred):
            hit = _pk_value(c, scan)
            if hit is None or hit[0] not in pk_idx:
                continue
            i, op, v = hit
            if not compatible(v, scan.cols[i].type):
                continue
            if op == "=" and i not in eq:
                eq[i] = (c, v)
            elif op == "in" and i not in eq and len(pk_idx) == 1:
                eq[i] = (c, v)
            elif op in ("<", "<=", ">", ">="):
                ranges.setdefault(i, []).append((op, v, c))
        if all(i in eq for i in pk_idx):
            used = [eq[i][0] for i in pk_idx]
            vals = [eq[i][1] for i in pk_idx]
            if isinstance(vals[0], list):
                keys = [[v] for v in vals[0]]
            else:
                keys = [vals]
            rest = [c for c in conjuncts(node.pred) if all(c is not u for u in used)]
            get = N.PointGet(scan.cols, table=table, keys=keys, with_keys=scan.with_keys)
            return N.Filter(get.cols, child=get, pred=_and(rest)) if rest else get
        prefix = []
        used = []
        for i in pk_idx:
            if i in eq and not isinstance(eq[i][1], list):
                prefix.append(eq[i][1])
                used.append(eq[i][0])
            else:
                break
        lo, hi = list(prefix), list(prefix)
        lo_strict = hi_strict = False
        nxt = pk_idx[len(prefix)] if len(prefix) < len(pk_idx) else None
        has_lo = has_hi = bool(prefix)
        if nxt is not None and nxt in ranges:
            for op, v, c in ranges[nxt]:
                if op in (">", ">=") and len(lo) == len(prefix):
                    lo.append(v)
                    lo_strict = op == ">"
                    used.append(c)
                    has_lo = True
                elif op in ("<", "<=") and len(hi) == len(prefix):
                    hi.append(v)
                    hi_strict = op == "<"
                    used.append(c)
                    has_hi = True
        if not used:
            return node
        scan.lo = lo if has_lo else None
        scan.hi = hi if has_hi else None
        scan.lo_strict, scan.hi_strict = lo_strict, hi_strict
        rest = [c for c in conjuncts(node.pred) if all(c is not u for u in used)]
        return N.Filter(scan.cols, child=scan, pred=_and(rest)) if rest else scan

    return N.transform(plan, fn)
