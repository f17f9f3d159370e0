"""Bound expressions: sqlglot nodes after name resolution and typing, before code generation.

A bound expression is a small typed tree (`E`) that the optimizer can inspect
(a pushable `col = $1` is `E("op", "=", [E("col", 3), E("param", 1)])`) and
that `codegen` turns into Python source once per plan. Column references are
positions in the input row of the plan node that evaluates the expression;
`outer` references reach the rows of enclosing queries (correlation, LATERAL).

Kinds and their `data`:

    col (index)  outer ((depth, index))  const (value)  param (n, 1-based)
    op (symbol: + - * / % ^ || = <> < <= > >=)  neg  not  and  or
    isnull / notnull  istrue / isfalse (data: negate)  distinct (data: negate)
    cast (converter or None)  call (FunctionDef)  pyfunc ((name, callable, strict))
    case (has_else)  coalesce  nullif  greatest  least  array  subscript  row
    like ((case_insensitive, negate))  regex ((case_insensitive, negate))
    in_list (negate)  any ((op, is_all))  subquery / exists / in_sub ((plan, correlated))
    window_ref / agg_ref are never built: aggregates and window results are `col`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...pgtypes import oids as T
from .typefacts import type_name


@dataclass(eq=False)
class E:
    kind: str
    data: Any = None
    args: list[E] = field(default_factory=list)
    type: int = T.UNKNOWN
    typmod: int = -1
    name: str = "?column?"  # the output column name PostgreSQL would give
    fields: tuple[tuple[str, int], ...] | None = None  # a record's (field name, type OID)s
    rowtype: int = 0  # a whole table row's pg_type OID (its reltype): the wire type PG sends

    def walk(self):
        """Yields this node and every descendant, depth first."""
        yield self
        for a in self.args:
            yield from a.walk()

    def __repr__(self) -> str:
        return render(self)


def col(index: int, type_oid: int, name: str = "?column?", typmod: int = -1) -> E:
    """Returns a reference to column `index` of the input row."""
    return E("col", index, [], type_oid, typmod, name)


def const(value: Any, type_oid: int) -> E:
    """Returns a typed constant."""
    return E("const", value, [], type_oid)


def is_const(e: E) -> bool:
    """True for constants and parameters: values fixed for one execution."""
    return e.kind in ("const", "param")


def render(e: E) -> str:
    """Returns a compact SQL-like rendering, used by EXPLAIN."""
    k = e.kind
    if k == "col":
        return e.name if e.name != "?column?" else f"#{e.data}"
    if k == "outer":
        return f"outer.{e.name}"
    if k == "const":
        if e.data is None:
            return "NULL"
        return repr(e.data) if isinstance(e.data, str) else str(e.data)
    if k == "param":
        return f"${e.data}"
    if k == "op":
        return f"({render(e.args[0])} {e.data} {render(e.args[1])})"
    if k == "and" or k == "or":
        return "(" + f" {k.upper()} ".join(render(a) for a in e.args) + ")"
    if k == "not":
        return f"NOT {render(e.args[0])}"
    if k == "neg":
        return f"-{render(e.args[0])}"
    if k in ("isnull", "notnull"):
        return f"({render(e.args[0])} IS {'NOT ' if k == 'notnull' else ''}NULL)"
    if k == "cast":
        return f"{render(e.args[0])}::{type_name(e.type)}"
    if k in ("call", "pyfunc"):
        name = e.data.name if k == "call" else e.data[0]
        return f"{name}({', '.join(render(a) for a in e.args)})"
    if k in ("subquery", "exists", "in_sub"):
        return f"{k}(...)"
    return f"{k}({', '.join(render(a) for a in e.args)})"
