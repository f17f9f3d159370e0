"""Rule: choose each join's algorithm from its equi-join keys and its inputs.

- bind join: the inner (right) side is a base-table scan whose whole primary
  key is fixed by the join keys, and the outer side is small (a point get,
  VALUES, a LIMIT, or a key-range scan), or ANALYZE statistics estimate it at
  under a tenth of the inner table's rows; each batch of outer keys becomes
  one batched `Txn.get`.
- merge join: both sides are table scans ordered by the join key (their
  first primary-key column), joined in one pass without a hash table.
- range bind join: the same over a primary-key *prefix* (order_line's w, d,
  o_id of its w, d, o_id, number): one key-range scan per distinct outer
  prefix, when statistics put the outer side at under 1/RANGE_COST of the
  table (`_range_keys`).
- hash join: any other equi-join (build on the right input).
- nested loop: no equality to hash on, or a LATERAL right side.

With ANALYZE statistics on both inputs of an inner join, the sides may swap
(a Project above restores the column order): when the left side could be a
bind join's inner table and the right side is estimated at under a tenth of
it, or, for a hash join, when the right (build) side is estimated at more
than twice the left: the hash table is then built on the smaller input. A semi
or anti join cannot swap (it keeps left rows), so it hashes its left input
instead (`Join.build_left`) when the right one is estimated at over twice it:
CH-benCHmark Q4 hashes 30,000 orders and streams 300,000 order lines through
them, where it used to hash the order lines.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.join_algorithm import join_algorithm
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(join_algorithm, "select * from t join u on a = x")
    Project a, b, c, x, y
      Join inner algo=nested on=(a = x)
        Scan t
        Scan u
    =>
    Project a, b, c, x, y
      Join inner algo=hash keys=a=x
        Scan t
        Scan u
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import col
from ..expr.codegen import conjuncts
from ..pgcatalog.collations import unkeyable
from ..plan import nodes as N
from .cost import has_stats
from .point_get import compatible
from .push_projection import renumber
from .pushdown_join_filters import conj, shift, side_of
from .stats import estimate, key_range_sel, table_stats


def _pk_cols(scan: N.Scan) -> list[int]:
    pos = {c.attnum: i for i, c in enumerate(sorted(scan.table.columns, key=lambda c: c.attnum))}
    return [pos[a] for a in scan.table.primary_key]


def _small(node: N.Node) -> bool:
    if isinstance(node, N.Project | N.Filter):
        return _small(node.child)
    if isinstance(node, N.PointGet | N.Values | N.Limit):
        return True
    return isinstance(node, N.Scan) and (node.lo is not None or node.limit is not None)


def _few(left: N.Node, right: N.Scan) -> bool:
    """ANALYZE says the outer side is far smaller than the rows the inner scan reads (its
    key range, before its filter, which the lookups apply too): lookups beat a scan."""
    ts = table_stats(right.table)
    if ts is None:
        return False
    read = ts.rows * (key_range_sel(right) if right.lo is not None or right.hi is not None
                      else 1.0)
    return estimate(left) * 10 <= max(read, 1.0)


# Types whose Python values compare and hash alike across the family, so an equality between
# them can be a hash key (int4 = int8, int = numeric, text = varchar).
_FAMILIES = ({20, 21, 23, 1700}, {25, 1043, 19})


def hashable_pair(a: int, b: int) -> bool:
    """True if values of types a and b may share one hash table as join keys."""
    return a == b or any(a in f and b in f for f in _FAMILIES)


def _split_keys(node: N.Join) -> None:
    nl = len(node.left.cols)
    lk, rk, rest = [], [], []
    for c in conjuncts(node.cond):
        if c.kind == "op" and c.data == "=":
            a, b = c.args
            sa, sb = side_of(a, nl), side_of(b, nl)
            if sa == "l" and sb == "r" and hashable_pair(a.type, b.type):
                lk.append(a)
                rk.append(shift(b, nl))
                continue
            if sa == "r" and sb == "l" and hashable_pair(a.type, b.type):
                lk.append(b)
                rk.append(shift(a, nl))
                continue
        rest.append(c)
    node.left_keys, node.right_keys, node.residual = lk, rk, conj(rest)


def _swap(node: N.Join) -> tuple[N.Project, N.Join]:
    """The join with its inputs exchanged, under a Project that restores the column order."""
    nl, nr = len(node.left.cols), len(node.right.cols)
    mapping = {i: i + nr for i in range(nl)} | {nl + j: j for j in range(nr)}
    assert node.cond is not None
    j = N.Join([*node.right.cols, *node.left.cols], left=node.right, right=node.left,
               kind=node.kind, cond=renumber(node.cond, mapping))
    exprs = [col(mapping[i], c.type, c.name, c.typmod) for i, c in enumerate(node.cols)]
    return N.Project(list(node.cols), child=j, exprs=exprs), j


def _fixed_prefix(scan: N.Scan) -> list[Any] | None:
    """The values a scan's key range fixes by equality (`s_w_id = $5`: lo = hi = [$5]), each a
    constant or parameter; [] for a whole-table scan, None for any other range."""
    if scan.lo is None and scan.hi is None:
        return []
    lo, hi = scan.lo, scan.hi
    if (lo is None or hi is None or len(lo) != len(hi) or scan.lo_strict or scan.hi_strict
            or not all(N.same_bound(a, b) and a.data is not None
                       for a, b in zip(lo, hi, strict=True))):
        return None
    return list(lo)


def _bind_keys(node: N.Join) -> bool:
    """Makes `node` a bind join if its right side is a table scan whose primary key the join
    keys fix (reordering the keys to the key's order); False if it is not. A leading part of
    the key may be fixed by the scan's own equalities instead: TPC-C Stock-Level's
    `s_w_id = $5 AND s_i_id = ol_i_id` gets each stock row by ($5, ol_i_id), as PostgreSQL's
    index scan on stock_pkey does, where a hash join read the warehouse's 100,000 rows; or
    by its filter's `key column = constant` conjuncts: New-Order's customer row by (w_id,
    $2, $3) from `c_w_id = w_id AND c_d_id = $2 AND c_id = $3`, where it was a scan of all
    customers. The scan's pushed filter then applies to the rows got."""
    right = node.right
    if not (isinstance(right, N.Scan) and right.table.primary_key
            and not _icu_key(right.table)
            and right.aggregate is None and right.limit is None and not right.reverse
            and right.projection is None and not node.null_aware
            and node.kind in ("inner", "left", "semi", "anti")):
        return False
    prefix = _fixed_prefix(right)
    if prefix is None:
        return False
    pk = _pk_cols(right)
    fixed = dict(zip(pk, prefix, strict=False))  # key slot -> its constant or parameter
    for c in right.shown:  # the scan filter's own `key column = constant` conjuncts
        if c.kind == "op" and c.data == "=" and len(c.args) == 2:
            a, b = c.args
            if a.kind != "col":
                a, b = b, a
            if (a.kind == "col" and a.data in pk and b.kind in ("const", "param")
                    and b.data is not None and compatible(b, right.cols[a.data].type)):
                fixed.setdefault(a.data, b)
    rest = [p for p in pk if p not in fixed]
    if not rest:
        return False  # a point get already; nothing to join on
    rk = [k.data if k.kind == "col" else None for k in node.right_keys]
    if not (sorted(x for x in rk if x is not None) == sorted(rest) and len(rk) == len(rest)
            and all(compatible(lk_, right.cols[r].type)  # type: ignore[index]  # no None in rk
                    for lk_, r in zip(node.left_keys, rk, strict=True))
            and all(compatible(v, right.cols[p].type) for p, v in fixed.items())):
        return False
    lks = [node.left_keys[rk.index(p)] if p in rk else fixed[p] for p in pk]
    rks = [node.right_keys[rk.index(p)] if p in rk else col(
        p, right.cols[p].type, right.cols[p].name, right.cols[p].typmod) for p in pk]
    node.left_keys, node.right_keys = lks, rks
    node.algo = "bind"
    return True


def _icu_key(table: Any) -> bool:
    """Whether a primary-key column has an ICU collation (its keys are sort keys)."""
    return bool(unkeyable(table).intersection(a - 1 for a in table.primary_key))


RANGE_COST = 50  # one key-range scan costs about as much as hashing 50 rows (measured)


def _range_keys(node: N.Join) -> bool:
    """Makes `node` a range bind join (an index nested loop over the primary key) if its right
    side is a table scan whose leading primary-key columns the join keys fix, and statistics
    put the outer side at under 1/RANGE_COST of the table; False if not. CH-benCHmark Q7
    reaches ~12,000 of 300,000 order lines from 1,178 orders this way, as PostgreSQL does
    through order_line_pkey, instead of scanning all of them into a hash join. The lookups
    must read less than the whole table: outer rows x (RANGE_COST + rows per prefix, from
    the prefix columns' distinct counts) under the table's rows."""
    right = node.right
    if not (isinstance(right, N.Scan) and right.table.primary_key and right.lo is None
            and not _icu_key(right.table)
            and right.hi is None and right.aggregate is None and right.limit is None
            and not right.with_keys and not right.reverse and not node.null_aware
            and node.kind in ("inner", "left", "semi", "anti") and not node.lateral):
        return False
    ts = table_stats(right.table)
    if ts is None or estimate(node.left) * RANGE_COST > ts.rows:
        return False
    pos = {c.attnum: i for i, c in enumerate(sorted(right.table.columns, key=lambda c: c.attnum))}
    pk = [pos[a] for a in right.table.primary_key]
    slots = []
    for k in node.right_keys:
        c = k.data if k.kind == "col" else None
        if c is not None and right.projection is not None:
            c = right.projection[c]
        slots.append(c)
    prefix: list[int] = []  # key positions, in primary-key order
    for p in pk:
        at = [i for i, sl in enumerate(slots) if sl == p and i not in prefix]
        if not at or not compatible(node.left_keys[at[0]], right.cols[
                node.right_keys[at[0]].data].type):
            break
        prefix.append(at[0])
    if not prefix:
        return False
    # rows one lookup reads: the table over the prefix's distinct values (`ol_w_id` alone
    # is one warehouse: every lookup would read the whole table)
    nd = 1.0
    for i in prefix:
        cs = ts.columns.get(slots[i])  # type: ignore[arg-type]  # prefix slots are set
        nd *= cs.ndistinct if cs is not None and cs.ndistinct else 10.0
    per = ts.rows / max(min(nd, float(ts.rows)), 1.0)
    if estimate(node.left) * (RANGE_COST + per) > ts.rows:
        return False
    order = prefix + [i for i in range(len(slots)) if i not in prefix]
    node.left_keys = [node.left_keys[i] for i in order]
    node.right_keys = [node.right_keys[i] for i in order]
    node.prefix_keys = len(prefix)
    node.algo = "range"
    return True


def join_algorithm(plan: N.Node, ctx: Any) -> N.Node:
    """Sets `Join.algo` (and the key lists) for every join."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Join) or node.lateral or node.cond is None:
            return node
        _split_keys(node)
        if not node.left_keys:
            return node
        right, left = node.right, node.left
        if (isinstance(right, N.Scan) and (_small(left) or _few(left, right))
                and _bind_keys(node)):
            return node
        if isinstance(right, N.Scan) and has_stats(left) and _range_keys(node):
            return node
        stats = node.kind == "inner" and has_stats(left) and has_stats(right)
        if stats and isinstance(left, N.Scan) and _few(right, left):
            proj, swapped = _swap(node)
            _split_keys(swapped)
            if swapped.left_keys and (_bind_keys(swapped) or _range_keys(swapped)):
                return proj  # the small side is the outer of a bind join
        if stats and estimate(right) > 2 * estimate(left) and not _merge_ok(node):
            proj, swapped = _swap(node)
            _split_keys(swapped)
            if swapped.left_keys:
                swapped.algo = "hash"
                return proj  # build the hash table on the smaller side
        if _merge_ok(node):
            node.algo = "merge"
            return node
        node.algo = "hash"
        if (node.kind in ("semi", "anti") and not node.null_aware and has_stats(left)
                and has_stats(right) and estimate(right) > 2 * estimate(left)):
            node.build_left = True  # hash the smaller outer side, stream the inner one
        return node

    return N.transform(plan, fn)


def _merge_ok(node: N.Join) -> bool:
    """Both inputs are primary-key scans ordered on the (single) join key."""
    left, right = node.left, node.right
    return (len(node.left_keys) == 1 and isinstance(left, N.Scan) and isinstance(right, N.Scan)
            and bool(left.table.primary_key) and bool(right.table.primary_key)
            and left.aggregate is None and right.aggregate is None
            and not left.reverse and not right.reverse
            and node.kind in ("inner", "left")
            and node.left_keys[0].kind == "col" and node.right_keys[0].kind == "col"
            and node.left_keys[0].data == _pk_cols(left)[0]
            and node.right_keys[0].data == _pk_cols(right)[0])
