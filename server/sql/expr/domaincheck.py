"""A domain's NOT NULL and CHECK constraints on one value, with PostgreSQL's errors.

Both places that enforce a domain (a cast to it in `binder`, a write to a
column of it in `dml.domaincheck`) evaluate the CHECK expressions over the
value first and hand the results here: a CHECK fails only when it is false
(NULL passes, as in PostgreSQL), and NULL fails only a NOT NULL domain.

>>> checked("posint", False, ("posint_check",), 5, True)
5
>>> try:
...     checked("posint", False, ("posint_check",), -1, False)
... except CheckViolation as e:
...     print(e.sqlstate, e)
23514 value for domain posint violates check constraint "posint_check"
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from ...errors import CheckViolation, NotNullViolation
from ..catalog.model import UserType

VALUE = "_cumulo_domain_value"  # the column VALUE becomes: binder and the writer bind it


def parse_check(text: str, value: str = VALUE) -> exp.Expression:
    """A domain CHECK's SQL with VALUE as the column `value` names.

    >>> parse_check("VALUE > 0", "p").sql()
    '"p" > 0'
    """
    def sub(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column | exp.Var) and n.name.lower() == "value" and \
                not (isinstance(n, exp.Column) and n.table):
            return exp.column(value, quoted=value != VALUE)
        return n

    return sqlglot.parse_one(text, read="postgres").transform(sub)


def checked(name: str, not_null: bool, check_names: tuple[str, ...], v: Any, *results: Any) -> Any:
    """`v` itself when it satisfies the domain; 23502 / 23514 as PostgreSQL words them."""
    if v is None and not_null:
        raise NotNullViolation(f"domain {name} does not allow null values")
    for cname, ok in zip(check_names, results, strict=True):
        if ok is False:
            raise CheckViolation(f'value for domain {name} violates check constraint "{cname}"',
                                 constraint=cname)
    return v


def elements_checked(name: str, not_null: bool, check_names: tuple[str, ...],
                     checks: tuple[Callable[..., Any], ...], functions: Any, v: Any) -> Any:
    """`v`, an array of a domain's base type (`d[]`), when every element satisfies the
    domain, as PostgreSQL checks each element of a `d[]`: `checks` are the CHECKs compiled
    over a one-field row (the element); `functions` the statement's function context.

    >>> elements_checked("posint", False, ("posint_check",), (lambda r, c: r[0] is None or r[0] > 0,),
    ...                  None, [[1, 2], [3, None]])
    [[1, 2], [3, None]]
    >>> try:
    ...     elements_checked("nn", True, (), (), None, [1, None])
    ... except NotNullViolation as e:
    ...     print(e.sqlstate, e)
    23502 domain nn does not allow null values
    """
    if v is None:
        return v
    ctx = _ElementContext(functions)
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, list | tuple):
            stack.extend(reversed(x))
            continue
        row = (x,)
        checked(name, not_null, check_names, x, *(f(row, ctx) for f in checks))
    return v


@dataclasses.dataclass
class _ElementContext:
    """What a domain CHECK compiled over one element may read at run time: the functions
    context (`now()`, settings); a CHECK holds no parameters or subqueries."""

    functions: Any
    params: tuple = ()


def flattened(t: UserType, by_oid: Callable[[int], UserType | None]) -> UserType:
    """`t` with the NOT NULL and CHECKs of every domain it is built on (`CREATE DOMAIN d2 AS
    d1`), the base-most domain's CHECKs first, as PostgreSQL checks them; errors still name
    `t`, as PostgreSQL's do (`value for domain d2 violates check constraint "d1_check"`)."""
    names, checks, not_null = list(t.check_names), list(t.checks), t.not_null
    seen, p = {t.oid}, by_oid(t.parent) if t.parent else None
    while p is not None and p.oid not in seen:
        seen.add(p.oid)
        names[:0], checks[:0] = p.check_names, p.checks
        not_null = not_null or p.not_null
        p = by_oid(p.parent) if p.parent else None
    if len(checks) == len(t.checks) and not_null == t.not_null:
        return t
    return dataclasses.replace(t, not_null=not_null, check_names=tuple(names),
                               checks=tuple(checks))
