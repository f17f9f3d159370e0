"""Calls of CREATE FUNCTION's functions: found in the catalog, bound like built-ins.

A user function is looked up by name and argument count in the statement's
catalog snapshot; each argument is coerced to its declared type as a built-in's
would be. A SETOF / TABLE function binds as a set-returning call, one with OUT
parameters or a table's row type as a record of those fields. The bound call's implementation hands the values to the session
(`FunctionContext.call_user_function`, with the CONTEXT line PostgreSQL's errors of this
call would carry: `udfinline`), which runs the body in the PL/pgSQL or
SQL runner: this layer knows the catalog row, not how to run it.
"""

from __future__ import annotations

from typing import Any

from ...errors import SQLError
from ...pgtypes import oids as T
from ...pgtypes import records
from ..catalog.model import CatalogSnapshot, Function
from ..functions.registry import FunctionDef
from .bound import E
from .functions import coerce
from .types import type_name
from .udfinline import call_context


def _impl(fn: Function, context: str) -> Any:
    def call(ctx: Any, *args: Any) -> Any:
        return ctx.call_user_function(fn, args, context)

    return call


def bind_user_function(cat: CatalogSnapshot | None, name: str, args: list[E],
                       params: Any) -> E | None:
    """The bound call of a user function `name(args)`, or None when there is none."""
    if cat is None or not cat.functions:
        return None
    fn = next((f for f in cat.functions
               if f.name == name and len(f.arg_types) == len(args)), None)
    proc = fn if fn is not None and fn.kind == "p" else None if fn is not None else next((
        f for f in cat.functions if f.name == name and f.kind == "p"
        and len(f.arg_types) - sum(1 for d in f.param_defaults if d) <= len(args)
        <= len(f.arg_types)), None)
    if proc is not None:
        shown = ",".join(type_name(a.type) for a in args)
        raise SQLError(f"{name}({shown.replace(',', ', ')}) is a procedure", sqlstate="42809",
                       hint="To call a procedure, use CALL.")
    if fn is None:
        return None
    coerced = [coerce(a, t, params=params) for a, t in zip(args, fn.arg_types, strict=True)]
    fields = tuple(zip(fn.out_names, fn.out_types, strict=True)) or None
    fd = FunctionDef(name, _impl(fn, call_context(fn, coerced)), fn.arg_types, fn.returns, strict=fn.strict,
                     volatile=True, needs_context=True,  # NB: never folded: its body reads data
                     set_returning=fn.retset, out_columns=fields,
                     out_column=fn.out_column or None)
    t = T.RECORD if fields else fn.returns  # NB: RETURNS t: a record of t's row type
    rowtype = fn.returns if fields and fn.returns != T.RECORD else 0
    if rowtype:
        records.ROW_TYPES.add(rowtype)  # NB: its Records encode as `record` does
    return E("srf" if fn.retset else "call", fd, coerced, t, -1, name, fields, rowtype)
