"""`(x).*` in a select list: one output column per field of the composite value `x`.

PostgreSQL expands `(t).*`, `((t)).*`, `(sub.x).*` and `(ROW(1, 2)).*` at parse time into
`(x).f1, (x).f2, ...`, so each field is its own column, named after the field (a row
constructor's fields are f1, f2, ...). Here the select item is rewritten the same way before
binding; `(t).a` on a table's whole row is then the column `t.a` itself (the binder's
field selection), with its table and attribute number in the RowDescription, as PG's.

>>> import sqlglot
>>> [x.sql() for x in row_constructor_fields(sqlglot.parse_one("SELECT (ROW(1, 'a')).*").expressions[0])]
['1 AS f1', "'a' AS f2"]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from sqlglot import exp

from ...errors import FeatureNotSupported, WrongObjectType
from ...pgtypes import oids as T
from ..expr import usertypes
from ..expr.bound import E
from ..expr.types import type_name


def is_field_star(it: exp.Expression) -> bool:
    """`(x).*`"""
    return isinstance(it, exp.Dot) and isinstance(it.expression, exp.Star)


def _base(it: exp.Expression) -> exp.Expression:
    x = it.this
    while isinstance(x, exp.Paren):
        x = x.this
    return x


def row_constructor_fields(it: exp.Expression) -> list[exp.Expression] | None:
    """`(ROW(a, b)).*` / `((a, b)).*`: its arguments, named f1, f2, ...; else None."""
    x = _base(it)
    if isinstance(x, exp.Anonymous) and str(x.this).upper() == "ROW" or isinstance(x, exp.Tuple):
        return [cast(exp.Expression, exp.alias_(a.copy(), f"f{i + 1}"))
                for i, a in enumerate(x.expressions)]
    return None


def expand(it: exp.Expression, bind: Callable[[exp.Expression], E]) -> list[exp.Expression]:
    """The select items `(x).*` stands for; `bind` types `x` to learn its fields."""
    direct = row_constructor_fields(it)
    if direct is not None:
        return direct
    base = bind(it.this)
    fields = base.fields or usertypes.composite_fields(base.type)
    if fields is None and base.type == T.RECORD:
        raise FeatureNotSupported("record type has not been registered")
    if fields is None:
        raise WrongObjectType(f"type {type_name(base.type)} is not composite")
    return [exp.Dot(this=it.this.copy(), expression=exp.to_identifier(name, quoted=True))
            for name, _ in fields]
