"""PostgreSQL's rule that one FROM level names each relation once (42712).

`select a from t, t` is refused by PostgreSQL before any column is looked up:
the two items would be indistinguishable to a qualified reference. Without
the check Cumulo answered 42702 (ambiguous column) or, for `t.x`, silently
picked the first item.

The reference name of an item is its alias, else the table's or function's
name. Two unaliased tables named alike in different explicit schemas may
coexist (PostgreSQL compares relation oids there); subqueries and VALUES
without an alias have no name.

>>> import sqlglot
>>> def names(sql):
...     s = sqlglot.parse_one(sql, read="postgres")
...     return [reference_name(i) for i in from_items(s)]
>>> names("select 1 from t, u x, generate_series(1, 2), lateral (select 1) l")
[('t', None), ('x', None), ('generate_series', None), ('l', None)]
>>> try:
...     check_unique_names(sqlglot.parse_one("select 1 from t a, u a", read="postgres"))
... except DuplicateAlias as e:
...     print(e.sqlstate, e.message)
42712 table name "a" specified more than once
>>> two = {"s": 1, "r": 2}
>>> check_unique_names(sqlglot.parse_one("select 1 from s.t, r.t, t u", read="postgres"),
...                    lambda schema, name: two[schema])
>>> try:
...     check_unique_names(sqlglot.parse_one("select 1 from t, public.t", read="postgres"),
...                        lambda schema, name: 7)
... except DuplicateAlias as e:
...     print(e.message)
table name "t" specified more than once
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ...errors import DuplicateAlias


def from_items(sel: exp.Expression) -> list[exp.Expression]:
    """The items of one SELECT's FROM list and its joins, at that level only."""
    from_ = sel.args.get("from_")
    if from_ is None:
        return []
    return [from_.this, *(j.this for j in sel.args.get("joins") or [])]


def reference_name(item: exp.Expression) -> tuple[str, str | None] | None:
    """(name, explicit schema of an unaliased table) of a FROM item, or None if it has none."""
    if isinstance(item, exp.Lateral):
        alias = item.args.get("alias")
        if alias is not None and alias.name:
            return alias.name, None
        return reference_name(item.this)
    alias = item.args.get("alias")
    if alias is not None and alias.name:
        return alias.name, None
    if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
        return item.name, item.db or None
    if isinstance(item, exp.Table) and isinstance(item.this, exp.Func):
        fn: Any = item.this
        name = fn.name if isinstance(fn, exp.Anonymous) else fn.sql("postgres").split("(")[0]
        return str(name).lower(), None
    return None


def check_unique_names(sel: exp.Expression,
                       relation_id: Callable[[str | None, str], int | None] = lambda s, n: 0
                       ) -> None:
    """Raises 42712 when two items of the FROM level of `sel` share a reference name.

    `relation_id(schema, name)` is the oid of the relation an unaliased table names (0
    for a CTE, None when none exists), so `t, s2.t` passes when they are two tables and
    `t, public.t` fails when they are one. A missing relation is left to the planner's 42P01.
    """
    seen: dict[str, Any] = {}
    aliases = [j.args.get("join_alias") for j in sel.args.get("joins") or []]
    for item, alias in zip(from_items(sel), [None, *aliases], strict=True):
        ref = reference_name(item)
        ident: Any = None
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier) \
                and not item.alias and ref is not None:
            ident = relation_id(ref[1], ref[0])
            ref = None if ident is None else ref
            ident = ident or None  # NB: a CTE conflicts with any other item of its name
        for name in ([ref[0]] if ref is not None else []) + (  # NB: USING (id) AS j too
                [alias.name] if alias is not None else []):
            if name in seen:
                other = seen[name]
                if ident is None or other is None or ident == other:
                    raise DuplicateAlias(f'table name "{name}" specified more than once')
            seen[name] = ident
            ident = None
