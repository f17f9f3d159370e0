"""Rule: a Filter over a partitioned table's Append goes onto each partition, and the
partitions its constants rule out are dropped (PostgreSQL's partition pruning).

`plan.partscan` reads a partitioned table as the UNION ALL of its leaf partitions'
scans. A Filter over that union would see every row of every partition, and the
other rules (point gets, index lookups, filters pushed into KiVi) look for a
Filter right over a Scan. So the Filter's conjuncts over table columns move to
just above each leaf's Scan (those over tableoid, xmin or ctid stay over the
leaf), and a leaf whose bound, or an ancestor partition's, contradicts the
conjuncts that compare a key column with a constant (`=`, `<`, `<=`, `>`, `>=`,
`IN`, `IS NULL`) is left out, so EXPLAIN lists only the partitions read, as
PostgreSQL's Append does. A comparison with a parameter, or with CURRENT_DATE, now()
and the like, keeps every partition in the plan (it is cached, the values change),
each under a Guard that skips it when the values of this execution rule it out:
runtime pruning (EXPLAIN shows PostgreSQL's "Subplans Removed").
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from ...pgtypes import oids as T
from ..expr.bound import E
from ..expr.codegen import conjuncts, row_function
from ..partitions.bounds import MAXVALUE, MINVALUE, VALUE, Bound
from ..partitions.hashing import row_hash
from ..partitions.members import Partitioned, partitioned
from ..plan import nodes as N
from ..plan.partscan import name_leaves, union_all

_SUBPLANS = ("subquery", "exists", "in_sub", "array_sub", "outer")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
_NUMBERS = frozenset({T.INT2, T.INT4, T.INT8, T.NUMERIC, T.FLOAT4, T.FLOAT8})
_NILADICS = frozenset({"current_timestamp", "current_date", "current_time", "localtimestamp",
                       "localtime"})  # `expr.binder._niladic`'s: stable within a statement


def partition_prune(plan: N.Node, ctx: Any) -> N.Node:
    """Pushes a Filter over a partition union onto its leaves, dropping refuted leaves."""

    def fn(node: N.Node) -> N.Node:
        if not isinstance(node, N.Filter):
            return node
        kids = _leaves(node.child)
        if kids is None:
            return node
        conds = conjuncts(node.pred)
        kept, scans = [], []
        for leaf, scan in kids:
            if not _refuted(ctx.catalog, scan.table, conds):
                kept.append(_filtered(leaf, scan, conds))
                scans.append(scan)
        bound = [c for c in conds if any(_at_start(x) for x in c.walk())]
        if bound:
            kept = _guarded(kept, [_chain(ctx.catalog, scan.table) for scan in scans], bound)
        if not kept:
            return N.Values(list(node.cols), rows=[])
        name_leaves(scans, _query_name(node.child))
        return union_all(kept, node.child.cols) if len(kept) > 1 or isinstance(
            node.child, N.SetOp) else kept[0]

    return N.transform(plan, fn)


def _leaves(node: N.Node) -> list[tuple[N.Node, N.Scan]] | None:
    """The leaves of a partition union (each with its Scan), or None for any other node."""
    if isinstance(node, N.SetOp):
        if node.op != "union" or not node.all:
            return None
        left, right = _leaves(node.left), _leaves(node.right)
        return None if left is None or right is None else left + right
    scan = _scan_of(node)
    if scan is None or not scan.table.partof:
        return None
    return [(node, scan)]


def _guarded(kept: list[N.Node], chains: list[list[tuple[Partitioned, Bound]]],
             conds: list[E]) -> list[N.Node]:
    """The leaves under Guards that skip those the parameters' values, put in place of the
    parameters, rule out: decided once per execution for all of them (runtime pruning)."""
    memo = object()  # NB: the execution's plan_cache key of this Append's decision
    # one level, equalities on the whole key (a point query's `k = $1`): the partition is
    # the one the key's values are routed to, found as a row's is
    one = all(len(c) == 1 for c in chains) and len({id(c[0][0]) for c in chains}) == 1
    part = chains[0][0][0] if one and chains else None
    where = [part.members.index(next(m for m in part.members if m.bound is c[0][1]))
             for c in chains] if part is not None else []

    compiled: dict[int, Any] = {}  # NB: CURRENT_DATE & co.'s subexpressions, compiled once

    def decide(ctx: Any) -> list[bool]:
        out = ctx.plan_cache.get(memo)
        if out is None:
            bound = [_bind(c, ctx, compiled) for c in conds]
            key = _equal_key(part, bound) if part is not None else None
            if key is not None:
                try:
                    target = part.find(key)  # type: ignore[union-attr]  # key implies part
                except (TypeError, ValueError):  # NB: as `_outside` for a hash key
                    target = -1
                if target != -1:
                    out = ctx.plan_cache[memo] = [i != target for i in where]
                    return out
            seen: dict[int, Any] = {}
            out = ctx.plan_cache[memo] = [any(_outside(p, b, bound, seen) for p, b in chain)
                                          for chain in chains]
        return out

    return [N.Guard(list(leaf.cols), child=leaf, skip=partial(_skipped, decide, i))
            for i, leaf in enumerate(kept)]


def _equal_key(part: Partitioned, conds: list[E]) -> tuple[Any, ...] | None:
    """The key's values when the conjuncts set every key column equal to one non-NULL
    constant of its type, else None."""
    out = []
    for a, t, tree in zip(part.key.attnums, part.key.types, part.key_trees, strict=True):
        tests, isnull = _constants(conds, a - 1, t, tree)
        eq = [c for op, c in tests if op == "="]
        if isnull or not eq or len(eq) != len(tests):
            return None
        out.append(eq[0])
    return tuple(out)


def _skipped(decide: Any, i: int, ctx: Any) -> bool:
    return decide(ctx)[i]


def _chain(cat: Any, table: Any) -> list[tuple[Partitioned, Bound]]:
    """Each (partitioned table, bound) from a leaf up to the top: what its rows are under."""
    out = []
    t = table
    while t.partof:
        parent = cat.table_by_oid(t.partof)
        if parent is None:
            break
        part = partitioned(cat, parent)
        member = next((m for m in part.members if m.table.oid == t.oid), None)
        if member is not None:
            out.append((part, member.bound))
        t = parent
    return out


def _at_start(e: E) -> bool:
    """A value fixed for one execution that the plan cannot know: a parameter, or the
    transaction's CURRENT_DATE, now() & co. (PostgreSQL's initial pruning)."""
    return e.kind == "param" or (e.kind == "pyfunc" and e.data[0] in _NILADICS)


def _bind(e: E, ctx: Any, compiled: dict[int, Any]) -> E:
    """`e` with each parameter, and each part that reads no row but CURRENT_DATE & co.,
    replaced by its value in this execution as a constant."""
    if e.kind == "param":
        n = e.data
        params = ctx.params
        return E("const", params[n - 1] if 0 < n <= len(params) else None, [], e.type)
    kinds = [x.kind for x in e.walk()]
    if "ctxfn" in kinds and not any(k in ("col", "outer", "param", *_SUBPLANS) for k in kinds) \
            and any(_at_start(x) for x in e.walk()):
        fn = compiled.get(id(e))
        if fn is None:
            fn = compiled[id(e)] = row_function(e)
        return E("const", fn((), ctx), [], e.type, e.typmod)
    return replace(e, args=[_bind(a, ctx, compiled) for a in e.args]) if e.args else e


def _query_name(union: N.Node) -> str:
    """The name the query gives the partitioned table (its columns' qualifier)."""
    return next((c.qualifier for c in union.cols if c.qualifier), "")


def _scan_of(node: N.Node) -> N.Scan | None:
    while isinstance(node, N.Project):
        node = node.child
    return node if isinstance(node, N.Scan) and node.table is not None else None


def _filtered(leaf: N.Node, scan: N.Scan, conds: list[E]) -> N.Node:
    """The leaf with the conjuncts over table columns right above its Scan, the others
    (system columns, subqueries) over the whole leaf."""
    n = len(scan.table.columns)
    below = [c for c in conds if all(x.kind not in _SUBPLANS and (x.kind != "col" or x.data < n)
                                     for x in c.walk())]
    above = [c for c in conds if not any(c is b for b in below)]
    if below:
        pred = below[0] if len(below) == 1 else E("and", None, below, T.BOOL)
        filt = N.Filter(list(scan.cols), child=scan, pred=pred)
        if leaf is scan:
            leaf = filt
        else:
            p = leaf
            while p.child is not scan:  # type: ignore[attr-defined]  # Projects down to it
                p = p.child  # type: ignore[attr-defined]
            p.child = filt  # type: ignore[attr-defined]
    if above:
        pred = above[0] if len(above) == 1 else E("and", None, above, T.BOOL)
        leaf = N.Filter(list(leaf.cols), child=leaf, pred=pred)
    return leaf


def _refuted(cat: Any, table: Any, conds: list[E]) -> bool:
    """Whether the conjuncts rule out every row of partition `table` (by its bound or an
    ancestor's)."""
    return any(_outside(p, b, conds) for p, b in _chain(cat, table))


def _constants(conds: list[E], pos: int, type_oid: int, tree: E | None = None
               ) -> tuple[list[tuple[str, Any]], bool]:
    """The (operator, constant) comparisons of column `pos` (or of the key expression
    `tree`) among the conjuncts (IN lists as one ("in", values)), and whether one says IS
    NULL."""
    def key(e: E) -> bool:
        return e.kind == "col" and e.data == pos if tree is None else same_tree(e, tree)

    out: list[tuple[str, Any]] = []
    isnull = False
    for c in conds:
        if c.kind == "op" and c.data in _FLIP and len(c.args) == 2:
            a, b = c.args
            op = c.data
            if a.kind == "const" and key(b):
                a, b, op = b, a, _FLIP[op]
            if key(a) and b.kind == "const" and b.data is not None \
                    and _comparable(b.type, type_oid):
                out.append((op, b.data))
        elif c.kind == "in_list" and not c.data and key(c.args[0]) \
                and all(x.kind == "const" and _comparable(x.type, type_oid) for x in c.args[1:]):
            out.append(("in", [x.data for x in c.args[1:] if x.data is not None]))
        elif c.kind == "isnull" and key(c.args[0]):
            isnull = True
    return out, isnull


def same_tree(a: E, b: E) -> bool:
    """Whether two bound expressions compute the same thing from the same columns (a
    Filter's `lower(name)` and the key's): kinds, types, data and arguments alike (a
    Python callable in `data` by its name only)."""
    if a.kind != b.kind or a.type != b.type or len(a.args) != len(b.args):
        return False
    if a.data is not b.data:
        da, db = a.data, b.data
        if isinstance(da, tuple) and isinstance(db, tuple) and a.kind == "pyfunc":
            da, db = da[0], db[0]
        try:
            if da != db:
                return False
        except Exception:  # noqa: BLE001 - data that does not compare is not the same
            return False
    return all(same_tree(x, y) for x, y in zip(a.args, b.args, strict=True))


def _comparable(const_type: int, key_type: int) -> bool:
    return const_type == key_type or (const_type in _NUMBERS and key_type in _NUMBERS)


def _admits(v: Any, tests: list[tuple[str, Any]]) -> bool:
    """Whether value `v` passes every comparison."""
    for op, c in tests:
        if op == "in":
            if v not in c:
                return False
        elif not ((op == "=" and v == c) or (op == "<" and v < c) or (op == "<=" and v <= c)
                  or (op == ">" and v > c) or (op == ">=" and v >= c)):
            return False
    return True


def _outside(part: Partitioned, bound: Bound, conds: list[E],
             memo: dict[int, Any] | None = None) -> bool:
    """Whether the conjuncts exclude every row this bound admits (an OR among them does
    when each of its arms, with the other conjuncts, does). `memo` keeps each partitioned
    table's comparisons, read once for all its partitions."""
    per_col = memo.get(id(part)) if memo is not None else None
    if per_col is None:
        key = part.key
        per_col = [_constants(conds, a - 1, t, tree)
                   for a, t, tree in zip(key.attnums, key.types, part.key_trees, strict=True)]
        if memo is not None:
            memo[id(part)] = per_col
    if _outside_and(part, bound, per_col):
        return True
    plain = [c for c in conds if c.kind != "or"]
    return any(all(_outside(part, bound, conjuncts(arm) + plain) for arm in c.args)
               for c in conds if c.kind == "or")


def _outside_and(part: Partitioned, bound: Bound,
                 per_col: list[tuple[list[tuple[str, Any]], bool]]) -> bool:
    """`_outside` for the comparisons of each key column with constants."""
    key = part.key
    if bound.kind == "list":
        tests, isnull = per_col[0]
        if isnull:
            return None not in bound.values
        if not tests:
            return False
        return not any(v is not None and _admits(v, tests) for v in bound.values)
    if bound.kind == "hash":
        values: list[Any] = []
        for (tests, isnull), _ in zip(per_col, key.types, strict=True):
            eq = [c for op, c in tests if op == "="]
            if isnull:
                values.append(None)
            elif eq:
                values.append(eq[0])
            else:
                return False
        try:
            return row_hash(values, list(key.types)) % bound.modulus != bound.remainder
        except (TypeError, ValueError):  # NB: a value of another type (1.0 for an int key)
            return False
    if bound.kind == "range":
        tests, isnull = per_col[0]
        if isnull:
            return True  # NB: a range partition holds no NULL key
        return _range_outside(bound, tests, len(key.attnums) > 1)
    return _default_outside(part, per_col)


def _range_outside(bound: Bound, tests: list[tuple[str, Any]], more: bool) -> bool:
    """Whether the first key column's comparisons miss [lo, hi) (with more key columns,
    the upper bound's first value may still be taken: [lo, hi])."""
    (lo_flag, lo), (hi_flag, hi) = bound.lo[0], bound.hi[0]
    for op, c in tests:
        values = c if op == "in" else [c] if op == "=" else None
        if values is not None:
            if not any((lo_flag == MINVALUE or v >= lo) and (
                    hi_flag == MAXVALUE or v < hi or (more and v == hi)) for v in values):
                return True
        elif op in ("<", "<=") and lo_flag != MINVALUE:
            if c < lo or (op == "<" and c == lo):
                return True
        elif op in (">", ">=") and hi_flag != MAXVALUE:
            if c > hi or (c == hi and not (more and op == ">=")):
                return True
    return False


def _default_outside(part: Partitioned, per_col: list[tuple[list[tuple[str, Any]], bool]]
                     ) -> bool:
    """The default partition is ruled out when the key's possible values are all listed
    by equalities (or IN) and each goes to another partition."""
    if len(per_col) != 1:
        return False
    tests, isnull = per_col[0]
    if isnull:  # NB: a NULL key goes to the default unless a list partition takes it
        return any(m.bound.kind == "list" and None in m.bound.values for m in part.members)
    for op, c in tests:
        values = c if op == "in" else [c] if op == "=" else None
        if values is not None:
            return all(part.find((v,)) not in (None, part.default) for v in values)
    return part.key.strategy == "range" and bool(tests) and _covered(part, tests)


def _covered(part: Partitioned, tests: list[tuple[str, Any]]) -> bool:
    """Whether the range partitions, end to end, cover the interval the comparisons allow
    (so the default partition holds none of its rows)."""
    lo: Any = (MINVALUE, None)
    hi: Any = (MAXVALUE, None)
    hi_open = True
    for op, c in tests:
        if op in (">", ">=", "=") and (lo[0] == MINVALUE or c > lo[1]):
            lo = (VALUE, c)
        if op in ("<", "<=", "=") and (hi[0] == MAXVALUE or c <= hi[1]):
            hi, hi_open = (VALUE, c), op == "<"
    point: tuple[Any, ...] = (lo,)
    for m in part.members:
        b = m.bound
        if b.kind == "range" and b.lo <= point < b.hi:
            point = b.hi
    if point[0][0] == MAXVALUE:
        return True
    return point >= (hi,) if hi_open else point > (hi,)
