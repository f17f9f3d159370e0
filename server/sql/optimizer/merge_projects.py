"""Rule: drop projections that only rename, and fold a column-only projection into the one above.

Why: every Project runs once per row in Python, and the rules before this one
leave many that do nothing: `prune_columns` narrows a join input with a
Project whose columns `push_projection` then moved into the KiVi scan (the
Project above `Scan order_line columns=[0, 1, 2]` now maps column i to
column i), and `join_order` / `join_algorithm` restore column order with a
Project right under another one. On CH-benCHmark at scale 1 each such pass
over order_line copies 300,000 tuples for nothing.

- A Project whose expressions are its input's columns 0..n-1 in order, as
  many as its input has, is replaced by its input.
- A Project over a Project whose expressions are all plain column references
  reads through it (the lower one is a reorder or a subset).

The plan's root is never replaced (its columns name the result), and a
Project whose expressions run sub-plans is left alone: their `outer`
references address its input row by position.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.merge_projects import merge_projects
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(merge_projects, "select b from (select b, a from t) s")
    Project b
      Project b, a
        Scan t
    =>
    Project b
      Scan t
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..plan import nodes as N
from .push_projection import renumber

_SUBPLANS = ("subquery", "exists", "in_sub", "array_sub", "outer")


def _plain(exprs: list[E]) -> bool:
    return all(e.kind == "col" for e in exprs)


def _opaque(exprs: list[E]) -> bool:
    return any(x.kind in _SUBPLANS for e in exprs for x in e.walk())


def _simplify(node: N.Node) -> N.Node:
    while type(node) is N.Project and not _opaque(node.exprs):
        below = node.child
        if type(below) is N.Project and _plain(below.exprs) and not _opaque(below.exprs):
            mapping = {i: e.data for i, e in enumerate(below.exprs)}
            node.exprs = [renumber(e, mapping) for e in node.exprs]
            node.child = below.child
            continue
        if (len(node.exprs) == len(below.cols) and _plain(node.exprs)
                and all(e.data == i for i, e in enumerate(node.exprs))):
            return below
        break
    return node


def merge_projects(plan: N.Node, ctx: Any) -> N.Node:
    """Removes identity projections and folds column-only ones into their parent."""

    def fn(node: N.Node) -> N.Node:
        for k, v in list(vars(node).items()):
            if isinstance(v, N.Node):
                setattr(node, k, _simplify(v))
        return node

    root = N.transform(plan, fn)
    _simplify(root)  # NB: the root stays (its columns name the result); it may read through
    return root
