"""Rule: reorder a tree of inner joins so that each table joins one it has a predicate with.

FROM lists are joined in the order written, so `FROM a, b, c WHERE a.x = c.y
AND c.z = b.w` would first build the cross product a x b. The rule flattens a
maximal tree of inner (and comma) joins with the Filter above it into its
relations and conjuncts, then builds a left-deep tree greedily: it starts
from the relation with the most constant-restricted columns and keeps adding
a relation connected to those already joined by a conjunct (equalities
first), falling back to the written order. When every relation has ANALYZE
statistics, `cost.dp_order` picks the order instead, by estimated rows and
work (dynamic programming over subsets). A Project on top restores the
original column order, so nothing above the join tree changes; the
conjuncts sit in one Filter for `pushdown_join_filters` to distribute.
Outer and LATERAL joins are kept as they are (each is one relation here).

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.join_order import join_order
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(join_order, "select b from t, u, s where a = k and v = y")
    Project b
      Filter ((a = k) AND (v = y))
        Join inner algo=nested
          Join inner algo=nested
            Scan t
            Scan u
          Scan s
    =>
    Project b
      Project a, b, c, x, y, k, v
        Filter ((a = k) AND (v = y))
          Join inner algo=nested
            Join inner algo=nested
              Scan t
              Scan s
            Scan u
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E, col
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from ..plan.normalize import factor_or
from .cost import dp_order, has_stats, join_selectivity, leaf_rows
from .push_projection import renumber
from .pushdown_join_filters import conj, conj_all, filter_below_project

_OPAQUE = ("outer", "subquery", "exists", "in_sub", "array_sub", "srf")


def _flatten(node: N.Node, offset: int, leaves: list, preds: list[E]) -> None:
    if isinstance(node, N.Join) and node.kind == "inner" and not node.lateral and not node.left_keys:
        _flatten(node.left, offset, leaves, preds)
        _flatten(node.right, offset + len(node.left.cols), leaves, preds)
        if node.cond is not None:
            shift = {i: i + offset for i in range(len(node.cols))}
            preds.extend(renumber(c, shift) for c in conjuncts(node.cond))
        return
    leaves.append((offset, node))


def _leaf_of(index: int, spans: list[tuple[int, int]]) -> int:
    for k, (lo, hi) in enumerate(spans):
        if lo <= index < hi:
            return k
    raise AssertionError(index)


def _disjuncts(e: E) -> list[E]:
    """The branches of an OR, nested ORs flattened (`a OR b OR c` binds as (a OR b) OR c)."""
    if e.kind != "or":
        return [e]
    return [d for a in e.args for d in _disjuncts(a)]


def _or_restrictions(p: E, refs: set[int], spans: list[tuple[int, int]]) -> list[E]:
    """Single-relation conditions implied by an OR over several relations, as PostgreSQL's
    extract_restriction_or_clauses finds them: from `(n1.name = 'A' AND n2.name = 'B') OR
    (n1.name = 'B' AND n2.name = 'A')`, `n1.name = 'A' OR n1.name = 'B'` for n1 (and the same
    for n2), which can then filter n1's scan. The OR itself stays."""
    if p.kind != "or" or len(refs) < 2:
        return []
    out = []
    for k in sorted(refs):
        parts = []
        for d in _disjuncts(p):
            mine = [c for c in conjuncts(d)
                    if {_leaf_of(x.data, spans) for x in c.walk() if x.kind == "col"} == {k}]
            if not mine:
                break
            parts.append(conj_all(mine))
        else:
            out.append(E("or", None, parts, 16))
    return out


def _by_predicates(n: int, preds: list[E], refs: list[set[int]]) -> list[int]:
    """The heuristic order: the most constant-restricted relation, then connected ones."""
    score = [0] * n
    for p, r in zip(preds, refs, strict=True):
        if len(r) == 1:
            k = next(iter(r))
            score[k] += 3 if p.kind == "op" and p.data == "=" else 1
    order = [max(range(n), key=lambda k: (score[k], -k))]
    chosen = set(order)
    while len(order) < n:
        best, best_rank = -1, None  # always replaced: some k is not chosen yet
        for k in range(n):
            if k in chosen:
                continue
            eq = sum(1 for p, r in zip(preds, refs, strict=True)
                     if k in r and len(r) > 1 and r - {k} <= chosen
                     and p.kind == "op" and p.data == "=")
            anyc = sum(1 for r in refs if k in r and len(r) > 1 and r - {k} <= chosen)
            rank = (eq, anyc, score[k], -k)
            if best_rank is None or rank > best_rank:
                best, best_rank = k, rank
        order.append(best)
        chosen.add(best)
    return order


def _by_cost(leaves: list[tuple[int, N.Node]], spans: list[tuple[int, int]], preds: list[E],
             refs: list[set[int]]) -> list[int]:
    """The order of least estimated work, from ANALYZE statistics (`cost.dp_order`)."""
    n = len(leaves)
    local: list[list[E]] = [[] for _ in range(n)]
    multi: list[tuple[E, set[int]]] = []
    for p, r in zip(preds, refs, strict=True):
        if len(r) == 1:
            k = next(iter(r))
            lo, hi = spans[k]
            local[k].append(renumber(p, {i: i - lo for i in range(lo, hi)}))
        elif len(r) > 1:
            multi.append((p, r))
    nodes = [leaf for _, leaf in leaves]
    rows = [leaf_rows(nodes[k], local[k]) for k in range(n)]

    def locate(i: int) -> tuple[int, int]:
        k = _leaf_of(i, spans)
        return k, i - spans[k][0]

    jpreds = []
    for p, r in multi:
        sel, key = join_selectivity(p, locate, nodes, rows)
        jpreds.append((r, sel, key))
    bind_ok = [_pk_slots(nodes[k]) if not local[k] else None for k in range(n)]
    return dp_order(rows, jpreds, bind_ok)


def _pk_slots(node: N.Node) -> list[int] | None:
    """The primary-key columns of a bare table scan (a possible bind-join inner side)."""
    if not isinstance(node, N.Scan) or not node.table.primary_key or node.projection is not None:
        return None
    pos = {c.attnum: i for i, c in enumerate(sorted(node.table.columns, key=lambda c: c.attnum))}
    return [pos[a] for a in node.table.primary_key]


def _rebuild(join: N.Join, leaves: list[tuple[int, N.Node]], order: list[int],
             preds: list[E]) -> N.Node:
    """The left-deep tree in `order`, the conjuncts in one Filter, a Project restoring columns."""
    mapping: dict[int, int] = {}
    pos = 0
    tree: N.Node | None = None
    for k in order:
        off, leaf = leaves[k]
        for i in range(len(leaf.cols)):
            mapping[off + i] = pos + i
        pos += len(leaf.cols)
        tree = leaf if tree is None else N.Join([*tree.cols, *leaf.cols], left=tree,
                                                 right=leaf, kind="inner")
    assert tree is not None
    pred = conj([renumber(p, mapping) for p in preds])
    body = N.Filter(tree.cols, child=tree, pred=pred) if pred is not None else tree
    orig = join.cols
    exprs = [col(mapping[i], c.type, c.name, c.typmod) for i, c in enumerate(orig)]
    return N.Project(list(orig), child=body, exprs=exprs)


def join_order(plan: N.Node, ctx: Any) -> N.Node:
    """Reorders inner-join trees of three or more relations: by cost with statistics, else
    by their join predicates."""

    def fn(node: N.Node) -> N.Node:
        lifted = filter_below_project(node)
        if lifted is not node:  # WHERE above an explicit JOIN tree's Project: join them
            lifted.child = fn(lifted.child)  # type: ignore[attr-defined]
            return lifted
        top_filter = node if isinstance(node, N.Filter) and isinstance(node.child, N.Join) else None
        join = top_filter.child if top_filter is not None else node
        if not isinstance(join, N.Join) or join.kind != "inner" or join.lateral:
            return node
        leaves: list[tuple[int, N.Node]] = []
        preds: list[E] = []
        _flatten(join, 0, leaves, preds)
        if len(leaves) < 2:
            return node
        if top_filter is not None:
            preds.extend(conjuncts(top_filter.pred))
        if any(x.kind in _OPAQUE for p in preds for x in p.walk()):
            return node
        factored = [q for p in preds for q in conjuncts(factor_or(p))]  # ON clauses too
        implied = len(factored) - len(preds)
        preds = factored
        spans = [(off, off + len(n.cols)) for off, n in leaves]
        refs = [{_leaf_of(x.data, spans) for x in p.walk() if x.kind == "col"} for p in preds]
        for p, r in list(zip(preds, refs, strict=True)):
            for extra in _or_restrictions(p, r, spans):
                implied += 1
                preds.append(extra)
                refs.append({_leaf_of(x.data, spans) for x in extra.walk() if x.kind == "col"})
        n = len(leaves)
        if n < 3:  # nothing to reorder; implied conditions are still worth adding
            return _rebuild(join, leaves, list(range(n)), preds) if implied else node
        if all(has_stats(leaf) for _, leaf in leaves):
            order = _by_cost(leaves, spans, preds, refs)
        else:
            order = _by_predicates(n, preds, refs)
        if order == list(range(n)) and not implied:
            return node
        return _rebuild(join, leaves, order, preds)

    def descend(node: N.Node) -> N.Node:
        for k, v in list(vars(node).items()):
            if isinstance(v, N.Node):
                setattr(node, k, top_down(v))
        return node

    def top_down(node: N.Node) -> N.Node:
        out = fn(node)
        if out is node:
            return descend(node)
        # the leaves are below the new Project/Filter/Join spine: reorder inside them too
        spine = out
        while isinstance(spine, N.Project | N.Filter):
            spine = spine.child
        if not isinstance(spine, N.Join):
            descend(spine)
            return out
        while isinstance(spine, N.Join):
            spine.right = top_down(spine.right)
            if not isinstance(spine.left, N.Join):
                spine.left = top_down(spine.left)
            spine = spine.left
        return out

    return top_down(plan)
