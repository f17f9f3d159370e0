"""Rule: equality (and a trailing range) on a secondary index's leading columns turns a table
scan into an IndexLookup: a scan of the index space for primary keys, then one batched get.

Index entries are `encode_key(index columns + primary key) -> primary key tuple`
(`Index.space`). The rule runs after `point_get`, so a usable primary key wins.
Partial indexes (with a predicate) are skipped. The used conjuncts are kept
in a Filter above the lookup only when the index cannot prove them (never:
equality on the index prefix is exact), so only unused conjuncts remain.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.index_lookup import index_lookup
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(index_lookup, "select x from u where y = 'a'")
    Project x
      Filter (y = 'a')
        Scan u
    =>
    Project x
      IndexLookup u index=u_y_idx range=['a' .. 'a']
"""

from __future__ import annotations

from typing import Any

from ..expr.codegen import conjuncts
from ..pgcatalog.collations import unkeyable
from ..plan import nodes as N
from .point_get import _pk_value, compatible
from .pushdown_join_filters import conj_all


def index_lookup(plan: N.Node, ctx: Any) -> N.Node:
    """Replaces Filter(Scan) with Filter(IndexLookup) when an index prefix is fixed."""

    def fn(node: N.Node) -> N.Node:
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Scan)):
            return node
        scan = node.child
        if scan.ir is not None:
            return node
        table = scan.table
        pos = {c.attnum: i for i, c in enumerate(sorted(table.columns, key=lambda c: c.attnum))}
        fixed = _key_equalities(scan, [pos[a] for a in table.primary_key])
        if fixed is None:
            return node
        indexes = [i for i in ctx.catalog.indexes_of(table.oid)
                   if i.space and not i.predicate and not any(i.descending)
                   and not i.exprs and not unkeyable(table).intersection(
                       a - 1 for a in i.columns)]  # NB: an ICU column keys by sort key
        if not indexes:
            return node
        preds = conjuncts(node.pred)
        hits = [(c, _pk_value(c, scan)) for c in preds]
        best = None
        for idx in indexes:
            cols = [pos[a] for a in idx.columns]
            used, prefix = [], []
            for ci in cols:
                if ci in fixed:  # fixed by the scan's primary-key range
                    prefix.append(fixed[ci])
                    continue
                hit = next(((c, h) for c, h in hits if h and h[0] == ci and h[1] == "="
                            and compatible(h[2], scan.cols[ci].type)), None)
                if hit is None:
                    break
                used.append(hit[0])
                prefix.append(hit[1][2])
            if (used and all(ci in cols[:len(prefix)] for ci in fixed)
                    and (best is None or len(prefix) > len(best[1]))):
                best = (idx, prefix, used)
        if best is None:
            return node
        idx, prefix, used = best
        look = N.IndexLookup(scan.cols, table=table, index=idx, lo=list(prefix), hi=list(prefix),
                             with_keys=scan.with_keys)
        rest = [c for c in preds if all(c is not u for u in used)]
        return N.Filter(look.cols, child=look, pred=conj_all(rest)) if rest else look

    return N.transform(plan, fn)


def _key_equalities(scan: N.Scan, pk: list[int]) -> dict[int, Any] | None:
    """The primary-key columns the scan's key range fixes by equality (`point_get` turned
    `c_w_id = $1 AND c_d_id = $2` into lo = hi = [$1, $2]), by slot; {} for a whole-table
    scan, None for any other range. An index whose prefix holds them and more columns
    serves the scan better: TPC-C Payment's customer by name (`c_last = $3`) reads a few
    entries of idx_customer_name instead of the district's 3,000 customers."""
    if scan.lo is None and scan.hi is None:
        return {}
    lo, hi = scan.lo, scan.hi
    if (lo is None or hi is None or len(lo) != len(hi) or scan.lo_strict or scan.hi_strict
            or len(lo) >= len(pk)
            or not all(map(N.same_bound, lo, hi))):
        return None
    return dict(zip(pk, lo, strict=False))
