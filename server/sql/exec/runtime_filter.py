"""Runtime filters: a hash join's build keys, pushed into the probe side's KiVi scan as IN.

Why: CH-benCHmark joins order_line (300,000 rows at scale 1) to a few dozen
items or a few thousand stock rows; the hash join used to pull every order line
through the scan, the Project and the probe in Python to keep a few hundred.
Once the (small) build side is in memory, its distinct keys are exact: a probe
row whose key is not among them cannot match. So the probe side's scan gets
`key IN (build keys)` added to its pushed filter, and KiVi drops the other rows
in its compiled filter, before they become Python tuples of the join. This is
the "sideways information passing" of semi-join reduction; PostgreSQL does not
do it, but its index scans get the same effect.

It applies to inner and semi hash joins (a missing key means no output row)
whose left input is a base-table scan, and the other way round to semi and anti
joins that hash their (smaller) left input (`Join.build_left`): their right scan
then returns only rows whose key some left row has. The scan must have no LIMIT
(a filter would change which rows a LIMIT keeps); it may sit under a column-only
Project. Every join key that is a plain column is filtered when the build side
has at most `MAX_KEYS` distinct values of it (with statistics: at most half the
column's distinct values, up to `MAX_KEYS_KNOWN`). The join still checks all keys and
the residual, so the filter only has to be implied by them. NULL keys never
match, and IN never keeps one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from ...pgtypes import oids as T
from ..optimizer.stats import table_stats
from ..plan import nodes as N
from .runner import Batch, run

MAX_KEYS = 4096  # distinct build keys sent, without statistics on the probe column
MAX_KEYS_KNOWN = 32768  # with statistics: up to half the column's distinct values, and this


def target(node: N.Join) -> tuple[N.Scan, list[tuple[int, int]]] | bool:
    """The probe side's scan and (join key position, stored-row slot) pairs to filter on;
    False when the join does not qualify."""
    if node.kind not in ("inner", "semi") or node.lateral or node.null_aware:
        return False
    return scan_keys(node.left, node.left_keys)


def scan_keys(child: N.Node, keys: list) -> tuple[N.Scan, list[tuple[int, int]]] | bool:
    """`child`'s base-table scan (bare or under a column-only Project) and, for each of
    `keys` (over child's rows) that is a plain column, (its position, the stored slot)."""
    mapping: list[int] | None = None
    if type(child) is N.Project and all(e.kind == "col" for e in child.exprs):
        mapping = [e.data for e in child.exprs]
        child = child.child
    if (not isinstance(child, N.Scan) or child.aggregate is not None or child.limit is not None
            or child.with_keys):
        return False
    pairs = []
    for i, k in enumerate(keys):
        if k.kind != "col" or k.type in T.ELEMENT_OF:  # NB: KiVi's IN-set cannot hash a list
            continue
        if k.type == T.BPCHAR:  # NB: char(6) keys against char(4) values differ by padding
            continue
        c = mapping[k.data] if mapping is not None else k.data
        pairs.append((i, child.projection[c] if child.projection is not None else c))
    return (child, pairs) if pairs else False


def key_sets(keys: Any, n_keys: int, pairs: list[tuple[int, int]],
             scan: N.Scan | None = None) -> list[tuple[int, set]]:
    """(slot, distinct values) for each filterable key, from the build side's key set or
    table (single keys are bare values, several are tuples); none that are too large, nor
    (with ANALYZE statistics on the scanned table) any with over half as many values as
    the column has distinct ones: `ol_w_id IN (1)` on one warehouse would test every row
    for nothing, and a long IN list that keeps most rows costs more than it saves."""
    ts = table_stats(scan.table) if scan is not None else None
    out = []
    for i, slot in pairs:
        vals = set(keys) if n_keys == 1 else {k[i] for k in keys}
        if any(v != v for v in vals):  # NB: a NaN key (`codegen._NAN_KEY`) is no IN value:
            continue  # the scan's NaNs are other objects, equal to nothing
        cs = ts.columns.get(slot) if ts is not None else None
        if cs is not None and cs.ndistinct:
            # with statistics: worth it while the values are at most half the column's
            if len(vals) > min(MAX_KEYS_KNOWN, cs.ndistinct / 2):
                continue
        elif len(vals) > MAX_KEYS:
            continue
        out.append((slot, vals))
    return out


def run_filtered(left: N.Node, scan: N.Scan, sets: list[tuple[int, set]],
                 ctx: Any) -> Iterator[Batch]:
    """Runs the probe side with `slot IN (values)` added to its scan's pushed filter.

    NB: the plan is cached and shared, so the scan is copied, never changed; EXPLAIN
    ANALYZE's counts are credited to the original nodes."""
    if not sets:
        yield from run(left, ctx)
        return
    # NB: the IN tests go first: they are usually the most selective, and KiVi's compiled
    # AND stops at the first false conjunct
    # NB: the column leaf carries the column's type, as the optimizer's pushed filters do
    # (`expr.pushed` compiles the test as SQL over that type: NaN, char(n), numerics)
    cols = scan.table.columns
    conds: list[Any] = [("in", ("col", slot, cols[slot].type_oid), sorted(vals, key=repr))
                        for slot, vals in sets]
    if scan.ir is not None:
        conds.append(scan.ir)
    scan2 = copy.copy(scan)
    scan2.ir = ("and", conds) if len(conds) > 1 else conds[0]
    top: N.Node = scan2
    if left is not scan:
        top = copy.copy(left)
        top.child = scan2  # type: ignore[attr-defined]  # a Project (see `target`)
    try:
        yield from run(top, ctx)
    finally:
        stats = ctx.analyze
        if stats is not None:
            for new, old in ((top, left), (scan2, scan)):
                got = stats.pop(id(new), None)
                if got is not None and new is not old:
                    entry = stats.setdefault(id(old), [0, 0.0, 0])
                    for j in range(3):
                        entry[j] += got[j]
