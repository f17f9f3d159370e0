"""Rule: `WHERE ctid = <value>` on a table without a primary key reads that one row (Tid Scan).

A table without a primary key keeps its rows under hidden row ids, and its ctid is one
to one with the row id (`catalog.syscols.heap_tid`). `SELECT ctid ...` followed by
`UPDATE ... WHERE ctid = $1`, or a loop that visits rows by ctid, would otherwise scan the
whole table per statement; PostgreSQL fetches the tuple directly (its Tid Scan). Here the
Scan under the ctid Project becomes a PointGet of the row id the value names (`tid_rowid`:
NULL, and a ctid no row id maps to, match nothing); the row it finds is the one row whose
ctid is that value, so the comparison itself goes.

Example (the builder's plan of a query, then the plan after `filters_below_syscols` and
this rule):
    >>> from cumulo.server.sql.optimizer.filters_below_syscols import filters_below_syscols
    >>> from cumulo.server.sql.optimizer.tid_scan import tid_scan
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(lambda p, c: tid_scan(filters_below_syscols(p, c), c),
    ...      "select y from u where ctid = '(0,2)' and x > 1")
    Project y
      Filter ((ctid = '(0,2)') AND (x > 1))
        Project x, y, __cumulo_rowkey, ctid(#2)
          Scan u keys
    =>
    Project y
      Project x, y, __cumulo_rowkey, ctid(#2)
        Filter (x > 1)
          PointGet u key=(tid_rowid('(0,2)'))

>>> tid_rowid("(0,1)"), tid_rowid("(2,5)"), tid_rowid("(0,0)"), tid_rowid("(0,292)")
(0, 586, None, None)
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog.syscols import HEAP_ROWS, heap_tid
from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from .point_get import fixed


def tid_rowid(tid: str) -> int | None:
    """The row id whose ctid is `tid` ('(block,offset)'), or None when none has it."""
    block, _, offset = tid.strip("()").partition(",")
    b, o = int(block), int(offset)
    return b * HEAP_ROWS + o - 1 if 1 <= o <= HEAP_ROWS else None


def _tid_value(c: E, project: N.Project) -> E | None:
    """The value `c` compares the heap ctid with (`ctid = v`, v fixed per execution)."""
    if c.kind != "op" or c.data != "=":
        return None
    for a, b in (c.args, c.args[::-1]):
        if a.kind == "col" and a.data < len(project.exprs) and fixed(b) and b.type == T.TID:
            e = project.exprs[a.data]
            if e.kind == "pyfunc" and e.data[1] is heap_tid:
                return b
    return None


def tid_scan(plan: N.Node, ctx: Any) -> N.Node:
    """Turns the Scan under Filter(ctid = v) over a ctid Project into a PointGet by row id."""

    def fn(node: N.Node) -> N.Node:
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Project)):
            return node
        project = node.child
        below = project.child.child if isinstance(project.child, N.Filter) else project.child
        if not (isinstance(below, N.Scan) and not below.table.primary_key and below.with_keys
                and below.lo is None and below.hi is None):
            return node
        found = [(c, v) for c in conjuncts(node.pred) if (v := _tid_value(c, project)) is not None]
        if not found:
            return node
        used, v = found[0]
        key = E("pyfunc", ("tid_rowid", tid_rowid, False), [v], T.INT8)
        get = N.PointGet(below.cols, table=below.table, keys=[[key]], with_keys=True)
        above = project.child
        if isinstance(above, N.Filter):
            above.child = get
        else:
            project.child = get
        rest = [c for c in conjuncts(node.pred) if c is not used]
        if not rest:
            return project
        node.pred = rest[0] if len(rest) == 1 else E("and", None, rest, 16)
        return node

    return N.transform(plan, fn)
