"""Rule: reorder a tree of inner joins so that each table joins one it has a predicate with.

FROM lists are joined in the order written, so `FROM a, b, c WHERE a.x = c.y
AND c.z = b.w` would first build the cross product a x b. The rule flattens a
maximal tree of inner (and comma) joins with the Filter above it into its
relations and conjuncts, then builds a left-deep tree greedily: it starts
from the relation with the most constant-restricted columns and keeps adding
a relation connected to those already joined by a conjunct (equalities
first), falling back to the written order. A Project on top restores the
original column order, so nothing above the join tree changes; the
conjuncts sit in one Filter for `pushdown_join_filters` to distribute.
Outer and LATERAL joins are kept as they are (each is one relation here).

Example:
    >>> from cumulo.server.sql.optimizer.join_order import join_order
    >>> callable(join_order)
    True
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E, col
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from .push_projection import renumber
from .pushdown_join_filters import conj

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


def join_order(plan: N.Node, ctx: Any) -> N.Node:
    """Reorders inner-join trees of three or more relations by their join predicates."""

    def fn(node: N.Node) -> N.Node:
        top_filter = node if isinstance(node, N.Filter) and isinstance(node.child, N.Join) else None
        join = node.child if top_filter is not None else node
        if not isinstance(join, N.Join) or join.kind != "inner" or join.lateral:
            return node
        leaves: list[tuple[int, N.Node]] = []
        preds: list[E] = []
        _flatten(join, 0, leaves, preds)
        if len(leaves) < 3:
            return node
        if top_filter is not None:
            preds.extend(conjuncts(top_filter.pred))
        if any(x.kind in _OPAQUE for p in preds for x in p.walk()):
            return node
        spans = [(off, off + len(n.cols)) for off, n in leaves]
        refs = [{_leaf_of(x.data, spans) for x in p.walk() if x.kind == "col"} for p in preds]
        n = len(leaves)
        score = [0] * n
        for p, r in zip(preds, refs, strict=True):
            if len(r) == 1:
                k = next(iter(r))
                score[k] += 3 if p.kind == "op" and p.data == "=" else 1
        order = [max(range(n), key=lambda k: (score[k], -k))]
        chosen = set(order)
        while len(order) < n:
            best, best_rank = None, None
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
        if order == list(range(n)):
            return node
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

    def top_down(node: N.Node) -> N.Node:
        out = fn(node)
        if out is not node:
            # the leaves are below the new Project/Filter/Join spine: reorder inside them too
            spine = out.child if isinstance(out, N.Project) else out
            spine = spine.child if isinstance(spine, N.Filter) else spine
            while isinstance(spine, N.Join):
                spine.right = top_down(spine.right)
                if not isinstance(spine.left, N.Join):
                    spine.left = top_down(spine.left)
                spine = spine.left
            return out
        for k, v in list(vars(node).items()):
            if isinstance(v, N.Node):
                setattr(node, k, top_down(v))
        return node

    return top_down(plan)
