"""Rule: MIN or MAX of the primary-key column that follows a scan's equality prefix is the
scan's first (MIN) or last (MAX) row: a one-row scan, backwards for MAX, instead of an
aggregate over the whole key range.

PostgreSQL's planner does the same (planagg.c: MIN/MAX over an index becomes an index
scan with LIMIT 1). TPC-C's Delivery asks `SELECT min(no_o_id) FROM new_order WHERE
no_w_id = $1 AND no_d_id = $2` ten times per transaction (900 rows each, aggregated in
full before), and applications ask `SELECT max(id) FROM t`, which read the whole table.

Only for integer, date and timestamp keys, whose stored key order is their SQL order (a
text key's byte order need not be its collation's; a float key has -0 and NaN), for a
single aggregate with no GROUP BY, DISTINCT, FILTER or ORDER BY, over the scan itself.
The Aggregate stays above: MIN of the one row is that row's value, and of no row NULL.
A primary-key column is NOT NULL, so the first row's value is the least non-NULL one.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.minmax_ends import minmax_ends
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(minmax_ends, "select max(a) from t")
    Project max
      Aggregate group=[] aggs=[max(a)]
        Scan t
    =>
    Project max
      Aggregate group=[] aggs=[max(a)]
        Scan t limit=1 reverse
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..expr.bound import E
from ..plan import nodes as N

# the types whose key encoding (`kivi.keycodec`) sorts as SQL compares them
_ORDERED = frozenset((T.INT2, T.INT4, T.INT8, T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ))


def minmax_ends(plan: N.Node, ctx: Any) -> N.Node:
    """Turns MIN/MAX of the next primary-key column of a scan into a one-row scan."""

    def fn(node: N.Node) -> N.Node:
        if (not isinstance(node, N.Aggregate) or node.pushed or node.groups
                or len(node.aggs) != 1 or not isinstance(node.child, N.Scan)):
            return node
        call, scan = node.aggs[0], node.child
        if (call.func not in ("min", "max") or call.distinct or call.order
                or call.filter is not None or len(call.args) != 1):
            return node
        arg = call.args[0]
        if arg.kind != "col" or arg.type not in _ORDERED:
            return node
        if (scan.limit is not None or scan.aggregate is not None or scan.reverse
                or scan.with_keys or scan.projection is not None):
            return node
        if arg.data != _next_key_slot(scan):
            return node
        scan.limit = E("const", 1, type=T.INT8)
        scan.reverse = call.func == "max"
        return node

    return N.transform(plan, fn)


def _next_key_slot(scan: N.Scan) -> int | None:
    """The row slot of the primary-key column after the scan's equality prefix (the one its
    rows come ordered by), None when every key column is fixed or the table has none."""
    table = scan.table
    if not table.primary_key:
        return None
    slot = {c.attnum: i for i, c in enumerate(sorted(table.columns, key=lambda c: c.attnum))}
    lo, hi = scan.lo or [], scan.hi or []
    fixed = 0
    while fixed < min(len(lo), len(hi)) and N.same_bound(lo[fixed], hi[fixed]):
        fixed += 1
    if fixed >= len(table.primary_key):
        return None
    return slot[table.primary_key[fixed]]


__all__ = ["minmax_ends"]
