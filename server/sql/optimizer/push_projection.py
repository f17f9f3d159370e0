"""Rule: a scan feeding a projection (directly or through a Filter) reads only the columns
the projection and filter use (`ScanSpec.projection`), so KiVi ships narrower rows.

The scan's output columns shrink to the used ones and every column reference
above it (in the Filter and the Project) is renumbered. The pushed filter IR
keeps addressing the stored row, as KiVi evaluates it before projecting.
Scans that return keys (ctid) or partial aggregates are left alone, as are
scans whose columns are nearly all used.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.push_projection import push_projection
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(push_projection, "select b from t")
    Project b
      Scan t
    =>
    Project b
      Scan t columns=[1]
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..plan import nodes as N


def _used(exprs: list[E]) -> set[int] | None:
    """Column positions the expressions read; None when a sub-plan needs the whole row."""
    out: set[int] = set()
    for e in exprs:
        for x in e.walk():
            if x.kind == "col":
                out.add(x.data)
            elif x.kind in ("subquery", "exists", "in_sub", "array_sub"):
                return None  # sub-plans see the whole row as their outer row
    return out


def renumber(e: E, mapping: dict[int, int]) -> E:
    """Returns `e` with column references renumbered through `mapping`."""
    if e.kind == "col":
        return E("col", mapping[e.data], [], e.type, e.typmod, e.name, e.fields)
    if not e.args:
        return e
    return E(e.kind, e.data, [renumber(a, mapping) for a in e.args], e.type, e.typmod, e.name,
             e.fields, e.rowtype)


def push_projection(plan: N.Node, ctx: Any) -> N.Node:
    """Narrows Project(Scan) and Project(Filter(Scan)) to the used columns."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Project):
            return node
        filt = node.child if isinstance(node.child, N.Filter) else None
        scan = filt.child if filt is not None else node.child
        if not isinstance(scan, N.Scan) or scan.with_keys or scan.aggregate is not None:
            return node
        if scan.projection is not None:
            return node
        used = _used(node.exprs + ([filt.pred] if filt is not None else []))
        width = len(scan.cols)
        if used is None or len(used) * 4 > width * 3 or any(i >= width for i in used):
            return node
        keep = sorted(used)
        mapping = {old: new for new, old in enumerate(keep)}
        scan.projection = tuple(keep)
        scan.cols = [scan.cols[i] for i in keep]
        if filt is not None:
            filt.pred = renumber(filt.pred, mapping)
            filt.cols = scan.cols
        node.exprs = [renumber(e, mapping) for e in node.exprs]
        return node

    return N.transform(plan, fn)
