"""The rows of a multi-row INSERT ... VALUES whose rows all share one shape.

`sql.manyvalues.split` recognised the statement and left only its first row
in the tree. Here each column of that row is compiled once per parameter
type the client declared for it (usually one), and at run time whole columns
of parameters are converted: row r's value for a column is parameter
`r * stride + p`. The compiled value is the same `compile_value` an ordinary
INSERT uses, so casts, typmods, inference and errors are exactly the same;
it runs against a context whose parameter list holds one row's values.

Why per declared type: clients declare each parameter's type from its value
(psycopg sends a small int as int2 and a big one as int8, None as unknown),
so one column may arrive under a few types, each decoded, cast and checked
on its own, as PostgreSQL does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...pgtypes import oids as T
from ..catalog.model import Column
from ..context import ExecContext, ParamTypes
from ..expr.regarrays import REG_PARAMS
from ..expr.types import datatype_oid
from .values import ValueFn, compile_value

if TYPE_CHECKING:
    from ..session import SQLSession

ColumnFn = Callable[[ExecContext], list[Any]]


def param_number(node: exp.Expression) -> int:
    """The n of `$n` (or `$n::type`), 0 if the node is neither."""
    if isinstance(node, exp.Cast):
        node = node.this
    if isinstance(node, exp.Parameter | exp.Placeholder):
        inner = node.this
        text = inner.name if isinstance(inner, exp.Expression) else node.name
        return int(text) if text and text.isdigit() else 0
    return 0


_STRINGS = frozenset((T.TEXT, T.VARCHAR))
# declared integer type -> the integer types that hold every one of its values unchanged
# (a Python int is the same value as int2, int4 or int8: the widening cast is the identity)
_WIDENS = {T.INT2: frozenset((T.INT2, T.INT4, T.INT8)), T.INT4: frozenset((T.INT4, T.INT8)),
           T.INT8: frozenset((T.INT8,))}


def _passes_through(node: exp.Expression, declared: int, col: Column) -> bool:
    """Tells whether `$n` (or `$n::type`) stores the parameter's value unchanged.

    So it is when the client declared the type the cast names and the column has (text and
    varchar alike hold the same strings; a narrower integer is the same wider one), with no
    typmod on the cast: the driver's values, already decoded as that type, go to the writer
    as they are (which applies the column's own typmod). SQLAlchemy's `%(x)s::BIGINT` sent
    by a driver that declares int4 or int8 (by the value's size) is one; so is a string
    sent untyped (`declared` is then the type inferred for it) for `::VARCHAR`.
    """
    if declared == 0 or col.type_oid in REG_PARAMS:  # NB: a reg* name needs the catalog
        return False
    target, typmod = col.type_oid, -1
    if isinstance(node, exp.Cast):
        target, typmod = datatype_oid(node.args["to"])
    if typmod >= 0:
        return False

    def same(a: int, b: int) -> bool:
        return a == b or (a in _STRINGS and b in _STRINGS) or b in _WIDENS.get(a, ())

    return same(declared, target) and same(target, col.type_oid)


def compile_rows(s: SQLSession, exprs: list[exp.Expression], targets: list[Column],
                 rows: int, stride: int, params: ParamTypes
                 ) -> Callable[[ExecContext], list[list[Any]]] | None:
    """Compiles `rows` rows shaped like `exprs` into `fn(ctx) -> [[value per target]...]`.

    Returns None when an element is not a parameter (the caller then needs the full tree,
    which it does not have: split only leaves parameters, so that is a bug guard). Fills in
    `params.oids` for every row's parameters.
    """
    total = rows * stride
    while len(params.oids) < total:
        params.oids.append(0)
    columns: list[ColumnFn] = []
    for node, col in zip(exprs, targets, strict=True):
        p = param_number(node)
        if p == 0:
            return None
        columns.append(_column(s, node, col, p, rows, stride, params))

    def build(ctx: ExecContext) -> list[list[Any]]:
        cols = [f(ctx) for f in columns]
        return [list(r) for r in zip(*cols, strict=True)] if cols else [[] for _ in range(rows)]

    return build


def _column(s: SQLSession, node: exp.Expression, col: Column, p: int, rows: int, stride: int,
            params: ParamTypes) -> ColumnFn:
    """One column: its values are parameters p, p + stride, ... converted to `col`."""
    first = p - 1
    declared = params.oids[first:rows * stride:stride]
    fns: dict[int, ValueFn] = {}
    sent_as: dict[int, int] = {}  # declared type -> the type its values are decoded as
    for d in dict.fromkeys(declared):
        small = ParamTypes([0] * (p - 1) + [d])
        fns[d] = compile_value(s, node, col, [], small)
        inferred = small.get(p) or T.TEXT
        sent_as[d] = d or inferred
        if d == 0:
            for r in range(rows):
                if params.oids[first + r * stride] == 0:
                    params.oids[first + r * stride] = inferred
    if all(_passes_through(node, t, col) for t in sent_as.values()):

        def as_sent(ctx: ExecContext) -> list[Any]:
            return ctx.params[first::stride]

        return as_sent
    if len(fns) == 1:
        fn = next(iter(fns.values()))

        def one_type(ctx: ExecContext) -> list[Any]:
            vals = ctx.params[first::stride]
            buf: list[Any] = [None] * p
            sub = dataclasses.replace(ctx, params=buf)
            out = []
            for v in vals:
                buf[first] = v
                out.append(fn(None, sub))
            return out

        return one_type
    by_row = [fns[d] for d in declared]

    def mixed(ctx: ExecContext) -> list[Any]:
        vals = ctx.params[first::stride]
        buf: list[Any] = [None] * p
        sub = dataclasses.replace(ctx, params=buf)
        out = []
        for f, v in zip(by_row, vals, strict=True):
            buf[first] = v
            out.append(f(None, sub))
        return out

    return mixed

