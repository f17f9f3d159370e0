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

import dataclasses
from collections.abc import Callable
from typing import Any

from ...errors import AmbiguousFunction, SQLError
from ...pgtypes import oids as T
from ...pgtypes import records
from ..catalog.model import CatalogSnapshot, Function
from ..catalog.routineparams import declared_args
from ..functions.registry import FunctionDef
from .bound import E
from .commontype import PREFERRED, implicit
from .functions import coerce, signature
from .types import category, type_name
from .udfinline import call_context


def _impl(fn: Function, context: str) -> Any:
    def call(ctx: Any, *args: Any) -> Any:
        return ctx.call_user_function(fn, args, context)

    return call


_ELEMENTS = frozenset({T.ANYELEMENT, 2776, 5077})  # anyelement, anynonarray, anycompatible
_ARRAYS = frozenset({T.ANYARRAY, 5078})  # anyarray, anycompatiblearray


def _instantiated(fn: Function, args: list[E]) -> Function:
    """`fn` with its polymorphic parameters and result (anyelement, anyarray ...) as this
    call's argument types make them, as PostgreSQL resolves them for each call.

    >>> from ..catalog.model import Function
    >>> f = Function(1, "f", 2200, (T.ANYELEMENT, T.INT4), ("x", "n"), T.ANYARRAY, "sql", "")
    >>> g = _instantiated(f, [E("const", 3, [], T.INT8), E("const", 1, [], T.INT4)])
    >>> g.arg_types, g.returns
    ((20, 23), 1016)
    """
    poly = _ELEMENTS | _ARRAYS
    if not any(t in poly for t in (*fn.arg_types, fn.returns)):
        return fn
    element = next((a.type for a, t in zip(args, fn.arg_types, strict=True)
                    if t in _ELEMENTS and a.type not in (T.UNKNOWN, 0)), None)
    if element is None:
        element = next((T.ELEMENT_OF.get(a.type) for a, t in zip(args, fn.arg_types,
                                                                   strict=True)
                        if t in _ARRAYS and a.type in T.ELEMENT_OF), None)
    if element is None and any(t in poly and a.type in (T.UNKNOWN, 0)
                               for a, t in zip(args, fn.arg_types, strict=True)):
        raise SQLError("could not determine polymorphic type because input has type unknown",
                       sqlstate="42804")
    if element is None:
        return fn  # NB: nothing to resolve from: as declared
    array = T.ARRAY_OF.get(element, T.ANYARRAY)

    def of(t: int) -> int:
        return element if t in _ELEMENTS else array if t in _ARRAYS else t

    return dataclasses.replace(fn, arg_types=tuple(of(t) for t in fn.arg_types),
                               returns=of(fn.returns),
                               out_types=tuple(of(t) for t in fn.out_types))


def _in_defaults(fn: Function) -> list[str]:
    """The printed DEFAULT of each of `fn`'s arguments ("" for none), in order."""
    modes = fn.param_modes or ("i",) * len(fn.arg_types)
    defaults = fn.param_defaults or ("",) * len(modes)
    return [d for m, d in zip(modes, defaults, strict=True) if m in ("i", "b", "v")]


def user_parameters(cat: CatalogSnapshot | None, name: str
                    ) -> tuple[tuple[str, str | None], ...] | None:
    """A user function's arguments as (name, DEFAULT or None), for a call in named
    notation (`namedargs.arrange`); None when no function has that name."""
    fn = next((f for f in (cat.functions if cat is not None else ()) if f.name == name
               and f.kind != "p"), None)
    if fn is None:
        return None
    return tuple((n, d or None) for n, d in zip(fn.arg_names, _in_defaults(fn), strict=True))


# Pseudo-types a parameter may be declared as: any argument fits (polymorphism, `_instantiated`)
_PSEUDO = frozenset({T.ANY, T.ANYELEMENT, T.ANYARRAY, T.RECORD, 2776, 3500, 3831, 4537, 4538,
                     5077, 5078, 5079, 5080})


def _fits(arg: int, want: int) -> bool:
    """Whether an argument of type `arg` may be passed as `want` without an explicit cast."""
    return arg in (T.UNKNOWN, 0) or want in _PSEUDO or implicit(arg, want)


def _select(cat: CatalogSnapshot, name: str, args: list[E],
            default: Callable[[str], E] | None, domains: list[int] | None = None
            ) -> Function | None:
    """The user function `name(args)` calls, as PostgreSQL's func_get_detail picks it: one
    declared with exactly the arguments' types (`domains`: an argument's domain, 0 for
    none), else as func_select_candidate does: the candidates each argument reaches by an
    implicit cast (none: None, for 42883), then the most exact matches of the arguments'
    base types, the most preferred types where a cast is needed, and for an untyped
    literal a string (else the preferred) type of its category; several left: 42725. A
    parameter declared as a domain matches no base type exactly and is not preferred, so
    `f(int)` and `f(d)` are told apart by `5` and `5::d`, and `f('5')` is ambiguous."""
    types = [a.type for a in args]
    given = tuple(d or t for t, d in zip(types, domains, strict=True)) if domains else \
        tuple(types)
    cands = [f for f in cat.functions if f.name == name and f.kind != "p" and (
        len(f.arg_types) == len(args) or default is not None and len(args) < len(f.arg_types)
        and all(_in_defaults(f)[len(args):]))]
    cands = [f for f in cands if all(_fits(a, t) for a, t in zip(types, f.arg_types, strict=False))]
    exact = [f for f in cands if declared_args(f)[:len(args)] == given]
    if len(exact) == 1 and len(exact[0].arg_types) == len(args):  # NB: else with DEFAULTs: 42725
        return exact[0]
    decl = {f.oid: declared_args(f) for f in cands}
    if len(cands) > 1:
        cands = _best(cands, lambda f: sum(a == t for a, t in zip(types, decl[f.oid], strict=False)))
    if len(cands) > 1:
        cands = _best(cands, lambda f: sum(a != t and t in PREFERRED
                                           for a, t in zip(types, decl[f.oid], strict=False)))
    for i, a in enumerate(types):
        if len(cands) > 1 and a == T.UNKNOWN:
            cats = {category(f.arg_types[i]) for f in cands}
            if "S" in cats:
                cands = [f for f in cands if category(f.arg_types[i]) == "S"]
            elif len(cats) == 1:
                cands = [f for f in cands if decl[f.oid][i] in PREFERRED] or cands
    if len({decl[f.oid] for f in cands}) > 1 or len(cands) > 1 and any(
            len(f.arg_types) != len(args) for f in cands):
        raise AmbiguousFunction(f"function {signature(name, list(given))} is not unique",
                                hint="Could not choose a best candidate function. "
                                "You might need to add explicit type casts.")
    return cands[0] if cands else None  # NB: the same types twice: the first, as before


def _best(cands: list[Function], score: Callable[[Function], int]) -> list[Function]:
    top = max(score(f) for f in cands)
    return [f for f in cands if score(f) == top]


def bind_user_function(cat: CatalogSnapshot | None, name: str, args: list[E],
                       params: Any, checked: Callable[[E, int], E] | None = None,
                       default: Callable[[str], E] | None = None,
                       domains: list[int] | None = None) -> E | None:
    """The bound call of a user function `name(args)`, or None when there is none;
    `checked(e, domain)` checks a value against a domain's constraints (the binder's), for
    parameters and a result declared as domains, as PostgreSQL checks them; `default(sql)`
    binds a parameter's DEFAULT, for a call that leaves trailing arguments out; `domains`:
    each argument's domain (0: none), which the choice between overloads sees."""
    if cat is None or not cat.functions:
        return None
    fn = next((f for f in cat.functions if f.name == name and f.kind == "p"
               and len(f.arg_types) == len(args)), None) or _select(cat, name, args, default,
                                                                    domains)
    if fn is not None and len(fn.arg_types) > len(args) and default is not None:
        args = [*args, *(default(text) for text in _in_defaults(fn)[len(args):])]
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
    fn = _instantiated(fn, args)
    coerced = [coerce(a, t, params=params) for a, t in zip(args, fn.arg_types, strict=True)]
    if checked is not None and fn.arg_domains:
        coerced = [checked(a, d) if d else a
                   for a, d in zip(coerced, fn.arg_domains, strict=True)]
    fields = tuple(zip(fn.out_names, fn.out_types, strict=True)) or None
    fd = FunctionDef(name, _impl(fn, call_context(fn, coerced)), fn.arg_types, fn.returns,
                     strict=fn.strict, volatile=True,  # NB: never folded: its body reads data
                     needs_context=True, set_returning=fn.retset, out_columns=fields,
                     out_column=fn.out_column or None)
    t = T.RECORD if fields else fn.returns  # NB: RETURNS t: a record of t's row type
    rowtype = fn.returns if fields and fn.returns != T.RECORD else 0
    if rowtype:
        records.ROW_TYPES.add(rowtype)  # NB: its Records encode as `record` does
    call = E("srf" if fn.retset else "call", fd, coerced, t, -1, name, fields, rowtype)
    if checked is not None and fn.returns_domain and not fn.retset:
        return checked(call, fn.returns_domain)
    return call
