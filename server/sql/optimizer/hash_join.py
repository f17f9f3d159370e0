"""Rule: joins whose condition has column equalities across the two sides become hash joins.

The equalities become `left_keys` / `right_keys`; what remains of the
condition is the residual, checked on each matching pair. LATERAL joins stay
nested loops (their right side depends on the left row).

Example:
    >>> from cumulo.server.sql.optimizer.hash_join import hash_join
    >>> callable(hash_join)
    True
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..plan import nodes as N


def _side(e: E, nl: int) -> str | None:
    cols = [x.data for x in e.walk() if x.kind == "col"]
    if any(x.kind in ("outer", "subquery", "exists", "in_sub", "array_sub") for x in e.walk()):
        return None
    if not cols:
        return None
    if all(c < nl for c in cols):
        return "l"
    if all(c >= nl for c in cols):
        return "r"
    return None


def _shift(e: E, by: int) -> E:
    if e.kind == "col":
        return E("col", e.data - by, [], e.type, e.typmod, e.name)
    return E(e.kind, e.data, [_shift(a, by) for a in e.args], e.type, e.typmod, e.name)


def hash_join(plan: N.Node, ctx: Any) -> N.Node:
    """Chooses the hash algorithm for equi-joins."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Join) or node.lateral or node.cond is None or node.left_keys:
            return node
        nl = len(node.left.cols)
        lk, rk, rest = [], [], []
        for c in conjuncts(node.cond):
            if c.kind == "op" and c.data == "=":
                a, b = c.args
                sa, sb = _side(a, nl), _side(b, nl)
                if sa == "l" and sb == "r":
                    lk.append(a)
                    rk.append(_shift(b, nl))
                    continue
                if sa == "r" and sb == "l":
                    lk.append(b)
                    rk.append(_shift(a, nl))
                    continue
            rest.append(c)
        if not lk:
            return node
        node.left_keys, node.right_keys = lk, rk
        node.residual = rest[0] if len(rest) == 1 else (E("and", None, rest, 16) if rest else None)
        node.algo = "hash"
        return node

    return N.transform(plan, fn)
