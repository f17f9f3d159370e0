"""Locking clauses Cumulo cannot apply: FOR UPDATE/SHARE in a WITH query or a FROM subquery.

PostgreSQL puts a LockRows node inside the CTE or the subquery, so the rows it
reads are locked. Cumulo applies a locking clause at the top of a SELECT
(`lockrows`) and in an UPDATE/DELETE's `WHERE … (SELECT … FOR UPDATE)`
(`dml.locksub`), not inside a CTE, a FROM item, a SELECT's other subqueries or
INSERT … SELECT. Planning such a query
without the lock would silently lock nothing, and a worker queue built on it
would process rows twice: it is 0A000 instead.

>>> import sqlglot
>>> reject_nested_locks(sqlglot.parse_one("select * from q for update", read="postgres"))
>>> try:
...     reject_nested_locks(sqlglot.parse_one(
...         "select * from (select * from q for update) s", read="postgres"))
... except FeatureNotSupported as e:
...     print(e.sqlstate, e)
0A000 FOR UPDATE in a subquery in FROM is not supported
"""

from __future__ import annotations

from sqlglot import exp

from ..errors import FeatureNotSupported


def _word(lock: exp.Lock) -> str:
    key = "KEY " if lock.args.get("key") else ""
    if lock.args.get("update"):
        return "FOR NO KEY UPDATE" if key else "FOR UPDATE"
    return f"FOR {key}SHARE"


def reject_nested_locks(tree: exp.Expression) -> None:
    """0A000 when a WITH query or a FROM/JOIN subquery has a locking clause."""
    writes = isinstance(tree, exp.Update | exp.Delete)  # WHERE … (SELECT … FOR): dml.locksub
    for sel in tree.find_all(exp.Select):
        locks = sel.args.get("locks")
        if not locks or sel is tree or (sel.parent is tree and isinstance(tree, exp.SetOperation)):
            continue  # NB: the statement's own clause: lockrows applies it (or 0A000s a UNION)
        holder = sel.parent
        while isinstance(holder, exp.SetOperation | exp.Paren):
            holder = holder.parent
        if isinstance(holder, exp.CTE):
            where = "a WITH query"
        elif isinstance(holder, exp.Subquery) and isinstance(holder.parent, exp.From | exp.Join):
            where = "a subquery in FROM"
        elif isinstance(holder, exp.Insert):
            where = "INSERT ... SELECT"
        elif not writes:
            where = "a subquery"
        else:
            continue
        raise FeatureNotSupported(f"{_word(locks[0])} in {where} is not supported")
