"""Whether a cursor declared without SCROLL may move backward: PostgreSQL decides by its plan.

A cursor declared neither SCROLL nor NO SCROLL is scrollable in PostgreSQL when its plan
can run backward (`ExecSupportsBackwardScan`: scans, sorts, VALUES, function scans,
Append, Limit, a subquery scan of such a plan); a plan topped by an aggregate, a
DISTINCT's Unique, a join, a window function, a set operation's hashing or LockRows
cannot, and moving such a cursor backward is 55000 `cursor can only scan forward`.
Cumulo keeps the rows a cursor has read (`cursors.Cursor`), so any cursor could go back;
it refuses where PostgreSQL's plan would. That plan is guessed here from the query's
shape, the way PostgreSQL 15 plans these on small tables: an ORDER BY puts a Sort on
top (backward-capable), except where the rows already come sorted out of a GROUP BY's
GroupAggregate, a DISTINCT's Unique, a merge join on the ordering key or a window
function's own ordering.

>>> import sqlglot
>>> def q(sql): return backward_capable(sqlglot.parse_one(sql, read="postgres"))
>>> q("select * from t where id > 3"), q("select * from t order by v limit 3")
(True, True)
>>> q("select count(*) from t"), q("select distinct v from t order by v")
(False, False)
>>> q("select v, count(*) from t group by v order by 2"), q("select v, count(*) from t group by v order by v")
(True, False)
>>> q("select t.id from t join u on t.id = u.id order by 1"), q("select 1")
(False, False)
>>> q("select id from t union all select id from u"), q("select id from t union select id from u")
(True, False)
"""

from __future__ import annotations

from sqlglot import exp


def backward_capable(tree: exp.Expr, ctes: dict[str, exp.Expr] | None = None
                     ) -> bool:
    """Tells whether PostgreSQL's plan of query `tree` could run backward."""
    ctes = dict(ctes or {})
    with_ = tree.args.get("with_") or tree.args.get("with")
    for cte in (with_.expressions if with_ is not None else ()):
        materialized = cte.args.get("materialized")
        ctes[cte.alias_or_name] = exp.Values() if materialized else cte.this  # NB: CteScan
    if isinstance(tree, exp.Values):
        return True
    if isinstance(tree, exp.Subquery):
        return backward_capable(tree.this, ctes)
    if isinstance(tree, exp.Union | exp.Intersect | exp.Except):
        if tree.args.get("order"):
            return True  # NB: a Sort on top
        if isinstance(tree, exp.Union) and not tree.args.get("distinct"):
            return backward_capable(tree.left, ctes) and backward_capable(tree.right, ctes)
        return False
    if not isinstance(tree, exp.Select):
        return False
    if tree.args.get("locks"):
        return False  # NB: LockRows
    order = tree.args.get("order")
    keys = {o.this.sql() for o in order.expressions} if order is not None else set()
    if tree.args.get("distinct"):
        return False  # NB: Unique (or a hash aggregate) on top, sorted for ORDER BY below it
    group = tree.args.get("group")
    if group is not None or _aggregates(tree):
        if order is None:
            return False
        grouped = {g.sql() for g in group.expressions} if group is not None else set()
        names = _output_names(tree)
        return not all(k in grouped or names.get(k) in grouped for k in keys)
    windows = [w for e in tree.expressions for w in e.find_all(exp.Window)]
    if windows:
        if order is None:
            return False
        w_keys = {o.this.sql() for w in windows if w.args.get("order")
                  for o in w.args["order"].expressions}
        return not keys <= w_keys
    joins = tree.args.get("joins") or []
    where = tree.args.get("where")
    if joins or (where is not None and where.find(exp.Subquery, exp.Exists, exp.In)):
        if order is None:
            return False
        on_keys = {c.sql() for j in joins for c in j.find_all(exp.Column)}
        names = _output_names(tree)
        return not all(k in on_keys or names.get(k) in on_keys or k.isdigit() for k in keys)
    source = tree.args.get("from_") or tree.args.get("from")
    if source is None:
        return False  # NB: a Result without a subplan
    if order is not None:
        return True
    item = source.this
    if isinstance(item, exp.Subquery):
        return backward_capable(item.this, ctes)
    if isinstance(item, exp.Table) and item.name in ctes and not item.args.get("db"):
        return backward_capable(ctes[item.name], ctes)
    return True  # NB: a table, a function or VALUES


def _aggregates(tree: exp.Select) -> bool:
    """Tells whether the select list or HAVING calls an aggregate (outside a window)."""
    for e in [*tree.expressions, tree.args.get("having")]:
        if e is None:
            continue
        for f in e.find_all(exp.AggFunc):
            if f.find_ancestor(exp.Window) is None:
                return True
    return False


def _output_names(tree: exp.Select) -> dict[str, str]:
    """ORDER BY's output names and positions -> the expression's text."""
    out: dict[str, str] = {}
    for n, e in enumerate(tree.expressions, 1):
        inner = e.this if isinstance(e, exp.Alias) else e
        out[str(n)] = inner.sql()
        out[e.alias_or_name] = inner.sql()
    return out
