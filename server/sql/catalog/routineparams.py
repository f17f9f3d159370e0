"""A routine's parameters in declaration order, as pg_proc's proallargtypes, proargmodes and
proargnames list them.

`Function` keeps the call's arguments (IN, INOUT, VARIADIC) apart from the result's
fields (INOUT, OUT, a RETURNS TABLE's columns); `param_modes` says how they interleave.
"""

from __future__ import annotations

from ...pgtypes import oids as T
from .model import Function


def parameters(fn: Function, declared: bool = False) -> list[tuple[str, str, int]]:
    """Every parameter of a routine in declaration order: (mode letter, name, type), modes as
    proargmodes spells them (i, o, b, v; t a RETURNS TABLE column); `declared`: a domain
    parameter's type is the domain (as pg_proc lists it), else its base type."""
    modes = fn.param_modes or ("i",) * len(fn.arg_types)
    types = tuple(d or t for t, d in zip(fn.arg_types, fn.arg_domains, strict=True)) \
        if declared and fn.arg_domains else fn.arg_types
    out: list[tuple[str, str, int]] = []
    a = o = 0
    outs = list(zip(fn.out_names, fn.out_types, strict=True)) or (
        [(fn.out_column, fn.returns)] if fn.out_column else [])
    for m in modes:
        if m in ("i", "v", "b"):
            out.append((m, fn.arg_names[a] if a < len(fn.arg_names) else "", types[a]))
            a += 1
            o += m == "b"
        else:
            name, typ = outs[o] if o < len(outs) else ("", T.RECORD)
            out.append((m, name if not name.startswith("column") or fn.kind != "p" else "",
                        typ))
            o += 1
    return out


def declared_args(fn: Function) -> tuple[int, ...]:
    """The argument types as declared (pg_proc.proargtypes): a domain parameter's domain.
    A routine's identity is these: `f(int)` and `f(d)` for a domain d over int are two."""
    if not fn.arg_domains:
        return fn.arg_types
    return tuple(d or t for t, d in zip(fn.arg_types, fn.arg_domains, strict=True))


def all_arg_types(fn: Function) -> tuple[int, ...]:
    """proallargtypes: every parameter's type, OUT ones included."""
    return tuple(t for _, _, t in parameters(fn))
