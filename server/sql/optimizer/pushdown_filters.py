"""Rule: conjuncts of a Filter over a table Scan that the KiVi filter IR can express move into
the scan, so storage nodes drop rows before they cross to the SQL layer.

The IR is a serializable form of the bound conjuncts (leaves keep their type OIDs), and
the node compiles it back into them with the SQL layer's own compilers (`expr.pushed`).

Expressible: comparisons between columns, constants and parameters, AND / OR /
NOT, IS [NOT] NULL, IN over constants, and LIKE / ILIKE with a constant
pattern. Float and numeric comparisons too: the node runs the SQL layer's NaN-aware row
code and kernels (NaN equal to itself and above every number; integers against numerics
exactly, also past int64: `bigint_key = $1` with $1 = 9223372036854775808 finds nothing).
Parameters stay `("param", n)` leaves in the cached plan and are sent with the
execution's values beside them (`exec.scan.filter_params`). Anything else (casts,
function calls, subqueries) stays in a Filter above the scan.

Example:
    >>> from cumulo.server.sql.optimizer.pushdown_filters import to_ir
    >>> from cumulo.server.sql.expr.bound import E, col, const
    >>> to_ir(E("op", "=", [col(0, 23), const(5, 23)]), 3)
    ('cmp', '=', ('col', 0, 23), ('const', 5, 23))
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..pgcatalog.collations import unkeyable
from ..plan import nodes as N


def to_ir(e: E, ncols: int, skip: frozenset[int] = frozenset()) -> Any:
    """Translates a bound predicate into filter IR, or returns None if it cannot (any
    use of a column in `skip`: an ICU column's LIKE and IN need the SQL layer's checks)."""
    k = e.kind
    if k == "col":
        return ("col", e.data, e.type) if e.data < ncols and e.data not in skip else None
    if k == "const":
        return ("const", e.data, e.type) if isinstance(
            e.data, int | str | bool | float | type(None)) or (
            type(e.data).__name__ in ("Decimal", "date", "datetime")) else None
    if k == "param":
        return ("param", e.data, e.type)
    if k == "op" and e.data in ("=", "<>", "<", "<=", ">", ">="):
        a, b = (to_ir(x, ncols, skip) for x in e.args)
        if a is None or b is None:
            return None
        return ("cmp", e.data, a, b)
    if k in ("and", "or"):
        parts = [to_ir(x, ncols, skip) for x in e.args]
        return None if any(p is None for p in parts) else (k, parts)
    if k == "not":
        inner = to_ir(e.args[0], ncols, skip)
        return None if inner is None else ("not", inner)
    if k in ("isnull", "notnull"):
        inner = to_ir(e.args[0], ncols, skip)
        if inner is None:
            return None
        return ("is_null", inner) if k == "isnull" else ("is_not_null", inner)
    if k == "in_list" and not e.data and e.args[0].kind == "col" and e.args[0].type not in _FLOATS:
        if all(x.kind == "const" for x in e.args[1:]):
            inner = to_ir(e.args[0], ncols, skip)
            return None if inner is None else ("in", inner, [x.data for x in e.args[1:]])
    if k == "like" and not e.data[1] and e.args[1].kind == "const" and e.args[0].kind == "col":
        inner = to_ir(e.args[0], ncols, skip)
        return None if inner is None else ("like", inner, e.args[1].data, e.data[0])
    return None


_FLOATS = (T.FLOAT4, T.FLOAT8)


def pushdown_filters(plan: N.Node, ctx: Any) -> N.Node:
    """Moves IR-expressible conjuncts of Filter(Scan) into the Scan."""

    def fn(node: N.Node) -> N.Node:
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Scan)):
            return node
        scan = node.child
        if scan.aggregate is not None:
            return node
        ncols = len(scan.table.columns)
        skip = unkeyable(scan.table)
        pushed: list[Any] = []
        rest: list[E] = []
        shown: list[E] = []
        for c in conjuncts(node.pred):
            ir = to_ir(c, ncols, skip)
            (pushed if ir is not None else rest).append(ir if ir is not None else c)
            if ir is not None:
                shown.append(c)
        if not pushed:
            return node
        scan.shown = [*scan.shown, *shown]
        if scan.ir is not None:
            pushed.insert(0, scan.ir)
        scan.ir = pushed[0] if len(pushed) == 1 else ("and", pushed)
        if not rest:
            return scan
        node.pred = rest[0] if len(rest) == 1 else E("and", None, rest, 16)
        return node

    return N.transform(plan, fn)
