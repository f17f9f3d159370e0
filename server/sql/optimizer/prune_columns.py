"""Rule: the inputs of a join carry only the columns something above them reads.

Why: a join emits the concatenation of its input rows, and the executor builds
each output tuple in Python, so a 9-way join over CH-benCHmark's wide tables
copies ~80 columns per row per join when the query reads five. The rule walks
the plan top-down with the set of columns the parent needs, narrows each join
input to those plus the join's own keys (a Project, which `push_projection`
then turns into a narrower KiVi scan), and renumbers every expression on the
way back up.

It stops (keeps every column, positions unchanged) below nodes whose
expressions run sub-plans, since their `outer` references address the input row
by position, below LATERAL joins for the same reason, below DISTINCT, set
operations, windows and WITH queries, and at a bind join's inner table, which
the executor reads by primary key as whole stored rows. The plan's own output
never changes.

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.prune_columns import prune_columns
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(prune_columns, "select b from t, u where a = x")
    Project b
      Filter (a = x)
        Join inner algo=nested
          Scan t
          Scan u
    =>
    Project b
      Filter (a = x)
        Join inner algo=nested
          Project a, b
            Scan t columns=[0, 1]
          Project x
            Scan u columns=[0]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..expr.bound import E, col
from ..plan import nodes as N
from .push_projection import push_projection, renumber

_SUBPLANS = ("subquery", "exists", "in_sub", "array_sub")

Mapping = dict[int, int]


def _cols(exprs: Sequence[E | None]) -> set[int]:
    return {x.data for e in exprs if e is not None for x in e.walk() if x.kind == "col"}


def _has_sub(exprs: Sequence[E | None]) -> bool:
    return any(x.kind in _SUBPLANS for e in exprs if e is not None for x in e.walk())


def _rn(e: E | None, m: Mapping) -> Any:
    return None if e is None else renumber(e, m)


def _keep(node: N.Node, ctx: Any = None) -> tuple[N.Node, Mapping | None]:
    """Leaves this node's columns as they are; its inputs may still prune inside."""
    for k, v in list(vars(node).items()):
        if isinstance(v, N.Node):
            setattr(node, k, _prune(v, None, ctx)[0])
    return node, None


def _ident(n: int) -> Mapping:
    return {i: i for i in range(n)}


def _input(child: N.Node, need: set[int], ctx: Any, whole: bool = False) -> tuple[N.Node, Mapping]:
    """A join input narrowed to `need` (a Project above it, pushed into a scan if it can be)."""
    if whole:
        new, _ = _keep(child, ctx)
        return new, _ident(len(child.cols))
    if not need and child.cols:
        need = {0}  # NB: keep one column: zero-width rows are not worth the risk
    new, m = _prune(child, need)
    m = m if m is not None else _ident(len(new.cols))
    if len(new.cols) <= len(need):
        return new, m
    keep = sorted(m[i] for i in need)
    proj = N.Project([new.cols[k] for k in keep], child=new,
                     exprs=[col(k, new.cols[k].type, new.cols[k].name, new.cols[k].typmod)
                            for k in keep])
    pos = {old: p for p, old in enumerate(keep)}
    return push_projection(proj, ctx), {i: pos[m[i]] for i in need}


def _join(node: N.Join, req: set[int], ctx: Any) -> tuple[N.Node, Mapping | None]:
    if node.lateral or _has_sub([node.cond, node.residual, *node.left_keys, *node.right_keys]):
        return _keep(node, ctx)
    nl = len(node.left.cols)
    used = _cols([node.cond, node.residual, *node.left_keys])
    used |= {nl + c for c in _cols(list(node.right_keys))}
    need = req | used
    lreq = {i for i in need if i < nl}
    rreq = {i - nl for i in need if i >= nl}
    if len(lreq) == nl and len(rreq) == len(node.right.cols):
        return _keep(node, ctx)
    left, lm = _input(node.left, lreq, ctx)
    right, rm = _input(node.right, rreq, ctx, whole=node.algo in ("bind", "range"))
    nl2 = len(left.cols)
    m = {i: lm[i] for i in lreq} | {nl + j: nl2 + rm[j] for j in rreq}
    node.left, node.right = left, right
    node.cond = _rn(node.cond, m)
    node.residual = _rn(node.residual, m)
    node.left_keys = [renumber(k, lm) for k in node.left_keys]
    node.right_keys = [renumber(k, rm) for k in node.right_keys]
    if node.kind in ("semi", "anti"):
        node.cols = list(left.cols)
        return node, lm
    node.cols = [*left.cols, *right.cols]
    return node, m


def _prune(node: N.Node, req: set[int] | None, ctx: Any = None) -> tuple[N.Node, Mapping | None]:
    """Returns the node with only what is needed for output columns `req` (None: all), and
    where each needed old column now is (None: nowhere moved)."""
    if req is None:
        req = set(range(len(node.cols)))
    if isinstance(node, N.Join):
        return _join(node, req, ctx)
    if isinstance(node, N.Filter):
        if _has_sub([node.pred]):
            return _keep(node, ctx)
        child, m = _prune(node.child, req | _cols([node.pred]), ctx)
        if m is not None:
            node.pred = renumber(node.pred, m)
        node.child, node.cols = child, child.cols
        return node, m
    if isinstance(node, N.Project):
        if _has_sub(list(node.exprs)) or any(x.kind == "srf" for e in node.exprs
                                              for x in e.walk()):
            return _keep(node, ctx)
        kept = sorted(req) or [0][:len(node.exprs)]  # NB: a zero-column view keeps nothing
        exprs = [node.exprs[i] for i in kept]
        child, m = _prune(node.child, _cols(list(exprs)), ctx)
        node.child = child
        node.exprs = [renumber(e, m) for e in exprs] if m is not None else exprs
        node.cols = [node.cols[i] for i in kept]
        return node, {old: new for new, old in enumerate(kept)}
    if isinstance(node, N.Sort):
        if _has_sub([k.expr for k in node.keys]):
            return _keep(node, ctx)
        child, m = _prune(node.child, req | _cols([k.expr for k in node.keys]), ctx)
        if m is not None:  # NB: new SortKeys: the builder may share them with other nodes
            node.keys = [N.SortKey(renumber(k.expr, m), k.desc, k.nulls_first) for k in node.keys]
        node.child, node.cols = child, child.cols
        return node, m
    if isinstance(node, N.Limit) and node.ties is None:
        child, m = _prune(node.child, req, ctx)
        node.child, node.cols = child, child.cols
        return node, m
    if isinstance(node, N.Aggregate) and not node.pushed:
        used: list[E | None] = [*node.groups]
        for a in node.aggs:
            used += [*a.args, a.filter, *(k.expr for k in a.order)]
        if _has_sub(used):
            return _keep(node, ctx)
        child, m = _prune(node.child, _cols(used), ctx)
        if m is not None:  # NB: new AggCalls: GROUPING SETS branches share the template's
            node.groups = [renumber(g, m) for g in node.groups]
            node.aggs = [dataclasses.replace(
                a, args=[renumber(x, m) for x in a.args], filter=_rn(a.filter, m),
                order=[N.SortKey(renumber(k.expr, m), k.desc, k.nulls_first) for k in a.order])
                for a in node.aggs]
        node.child = child
        return node, None
    return _keep(node, ctx)


def prune_columns(plan: N.Node, ctx: Any) -> N.Node:
    """Narrows every join input to the columns read above it."""
    return _prune(plan, None, ctx)[0]
