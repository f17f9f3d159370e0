"""Rule: conjuncts of a Filter above an inner or cross join that read only one side move into
that side, so they can reach its scan (and become KiVi filters, key ranges or point gets).

Conjuncts over both sides join the join condition, where the join algorithm
rule can turn equalities into hash, merge or bind-join keys. Outer joins keep
their filters above (pushing into the nullable side would change results),
except that conjuncts on the preserved (left) side of a LEFT join move down.
Conjuncts of a join's own ON condition that read one input move into it
where that input is not preserved (`_push_on`).

Example (the builder's plan of a query, then the plan after this rule alone):
    >>> from cumulo.server.sql.optimizer.pushdown_join_filters import pushdown_join_filters
    >>> from cumulo.server.sql.optimizer.doctest_plans import show
    >>> show(pushdown_join_filters, "select * from t join u on a = x where b = 'x' and y = 'z'")
    Project a, b, c, x, y
      Filter ((b = 'x') AND (y = 'z'))
        Join inner algo=nested on=(a = x)
          Scan t
          Scan u
    =>
    Project a, b, c, x, y
      Join inner algo=nested on=(a = x)
        Filter (b = 'x')
          Scan t
        Filter (y = 'z')
          Scan u
"""

from __future__ import annotations

from typing import Any

from ..expr.bound import E
from ..expr.codegen import conjuncts
from ..plan import nodes as N
from .push_projection import renumber

_OPAQUE = ("outer", "subquery", "exists", "in_sub", "array_sub", "srf")


def side_of(e: E, nl: int) -> str | None:
    """'l' or 'r' if `e` reads only the left/right input of a join, None if both or opaque."""
    cols = []
    for x in e.walk():
        if x.kind in _OPAQUE or (x.kind == "call" and x.data.volatile):
            return None
        if x.kind == "col":
            cols.append(x.data)
    if not cols:
        return None
    if all(c < nl for c in cols):
        return "l"
    if all(c >= nl for c in cols):
        return "r"
    return None


def shift(e: E, by: int) -> E:
    """Returns `e` with every column index lowered by `by` (to address the right input)."""
    if e.kind == "col":
        return E("col", e.data - by, [], e.type, e.typmod, e.name)
    return E(e.kind, e.data, [shift(a, by) for a in e.args], e.type, e.typmod, e.name)


def conj(preds: list[E]) -> E | None:
    """ANDs predicates together (None for none)."""
    return conj_all(preds) if preds else None


def conj_all(preds: list[E]) -> E:
    """ANDs one or more predicates together."""
    return preds[0] if len(preds) == 1 else E("and", None, list(preds), 16)


def _push(child: N.Node, preds: list[E]) -> N.Node:
    if not preds:
        return child
    if isinstance(child, N.Filter):
        child.pred = conj_all([*conjuncts(child.pred), *preds])
        return child
    return N.Filter(child.cols, child=child, pred=conj_all(preds))


def filter_below_project(node: N.Node) -> N.Node:
    """Filter(Project of plain columns) becomes Project(Filter): the builder puts such a
    Project between an explicit JOIN ... ON tree and its WHERE, where it would stop the
    conjuncts from reaching the join. Conjuncts with sub-plans stay (their `outer`
    references address the Filter's own row)."""
    if not (isinstance(node, N.Filter) and isinstance(node.child, N.Project)):
        return node
    proj = node.child
    mapping = {i: e.data for i, e in enumerate(proj.exprs) if e.kind == "col"}
    if len(mapping) < len(proj.exprs):  # NB: a FULL JOIN USING's COALESCE(a.id, b.id)
        below = [c for c in conjuncts(node.pred) if _reads(c, mapping)]
        if below:
            proj.child = N.Filter(proj.child.cols, child=proj.child,
                                  pred=renumber(conj_all(below), mapping))
            rest = [c for c in conjuncts(node.pred) if not _reads(c, mapping)]
            if not rest:
                return proj
            node.pred = conj_all(rest)
        return node
    if any(x.kind in _OPAQUE for x in node.pred.walk()):
        return node
    proj.child = N.Filter(proj.child.cols, child=proj.child, pred=renumber(node.pred, mapping))
    return proj


def _reads(c: E, plain: dict[int, int]) -> bool:
    """True if conjunct `c` reads only columns in `plain` and holds no sub-plan."""
    return all(x.kind not in _OPAQUE and (x.kind != "col" or x.data in plain) for x in c.walk())


def _push_on(join: N.Join, fn: Any) -> None:
    """ON conjuncts that read one input only restrict that input, where it is not preserved:
    `customer LEFT JOIN oorder ON ... AND o_carrier_id > 8` (CH-benCHmark Q13) filters
    oorder's scan instead of testing every candidate pair, as PostgreSQL does. Left-only
    conjuncts stay in a LEFT join's condition (they decide padding, not which rows exist)."""
    if join.lateral or join.cond is None or join.null_aware:
        return
    into_left = join.kind in ("inner", "right")
    into_right = join.kind in ("inner", "left", "semi", "anti")
    if not (into_left or into_right):
        return
    nl = len(join.left.cols)
    left, right, keep = [], [], []
    for c in conjuncts(join.cond):
        s = side_of(c, nl)
        if s == "l" and into_left:
            left.append(c)
        elif s == "r" and into_right:
            right.append(shift(c, nl))
        else:
            keep.append(c)
    if not (left or right):
        return
    join.left = fn(_push(join.left, left)) if left else join.left
    join.right = fn(_push(join.right, right)) if right else join.right
    join.cond = conj(keep)


def pushdown_join_filters(plan: N.Node, ctx: Any) -> N.Node:
    """Moves single-side conjuncts below joins and cross-side ones into the join condition."""

    def fn(node: N.Node) -> N.Node:
        if isinstance(node, N.Join):
            _push_on(node, fn)
        lifted = filter_below_project(node)
        if lifted is not node:
            lifted.child = fn(lifted.child)  # type: ignore[attr-defined]
            return lifted
        if not (isinstance(node, N.Filter) and isinstance(node.child, N.Join)):
            return node
        join = node.child
        if join.lateral or join.kind not in ("inner", "left"):
            return node
        nl = len(join.left.cols)
        left, right, both, keep = [], [], [], []
        for c in conjuncts(node.pred):
            s = side_of(c, nl)
            if s == "l":
                left.append(c)
            elif s == "r" and join.kind == "inner":
                right.append(shift(c, nl))
            elif s is None and join.kind == "inner" and not any(
                x.kind in _OPAQUE for x in c.walk()
            ):
                both.append(c)
            else:
                keep.append(c)
        if not (left or right or both):
            return node
        join.left = fn(_push(join.left, left)) if left else join.left
        join.right = fn(_push(join.right, right)) if right else join.right
        if both:
            join.cond = conj([*conjuncts(join.cond), *both])
        return N.Filter(join.cols, child=join, pred=conj_all(keep)) if keep else join

    return N.transform(plan, fn)
