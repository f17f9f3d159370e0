"""Rule: GROUP BY over a single table scan, with plain-column keys and count/sum/min/max/avg
over plain columns, is computed inside KiVi (`ScanSpec.aggregate`); the Aggregate above only
merges the partials, and computes AVG as the global SUM over the global COUNT.

DISTINCT, FILTER and ORDER BY inside aggregates, expressions or arrays as keys or
arguments, and filters KiVi cannot evaluate keep the aggregation in the SQL
layer. So do MIN and MAX over a user-made type (an enum, a composite): KiVi
orders stored values by their Python value, an enum's label text, while
PostgreSQL orders an enum by its declared label order.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.push_aggregate import push_aggregate
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(push_aggregate, "select b, count(*) from t group by b")
    Project b, count
      Aggregate group=[b] aggs=[count_star()]
        Scan t
    =>
    Project b, count
      Aggregate (merge partials) group=[b] aggs=[count_star()]
        Scan t aggregate=(1,):(('count_star', None),)
"""

from __future__ import annotations

from typing import Any

from ...kivi.api import AggSpec
from ...pgtypes import oids as T
from ..catalog.model import FIRST_USER_OID
from ..plan import nodes as N
from ..plan.partscan import union_scans

_PUSHABLE = ("count_star", "count", "sum", "min", "max", "avg")


def push_aggregate(plan: N.Node, ctx: Any) -> N.Node:
    """Pushes partial aggregation into the scan under an Aggregate."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Aggregate) or node.pushed:
            return node
        scans = union_scans(node.child)  # NB: a partitioned table's too (plan.partscan)
        if not scans or any(scan.limit is not None or scan.with_keys
                            or scan.aggregate is not None for scan in scans):
            return node
        if any(g.kind != "col" or g.type in T.ELEMENT_OF for g in node.groups):
            return node  # NB: an array key is a list, which KiVi's group dict cannot hash
        specs: list[tuple[str, int | None]] = []
        for a in node.aggs:
            if a.func not in _PUSHABLE or a.distinct or a.order or a.filter is not None:
                return node
            if a.func == "count_star":
                specs.append(("count_star", None))
                continue
            if len(a.args) != 1 or a.args[0].kind != "col":
                return node
            c = a.args[0].data
            if a.func in ("min", "max") and a.args[0].type >= FIRST_USER_OID:
                return node  # KiVi's order is not the type's declared order
            if a.func == "avg":
                specs += [("sum", c), ("count", c)]
            else:
                specs.append((a.func, c))
        for scan in scans:
            scan.aggregate = AggSpec(tuple(g.data for g in node.groups), tuple(specs))
        node.pushed = True
        return node

    return N.transform(plan, fn)

