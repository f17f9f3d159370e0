"""Conversions to the reg* types that need the catalog: names in text, and reg* arrays.

`'{pg_class,pg_type}'::regclass[]` reads each element as regclass_in does (a name,
looked up through the catalog and search path; digits are an OID), and
`array[1259]::regclass[]` or `oids::regtype[]` label each OID with its name, so the
array prints as `{pg_class,pg_type}` as in PostgreSQL. The lookups are the
function library's `cast:<type>` / `format:<type>` entries (`functions.regcasts`),
which read the session's catalog at run time (a `ctxfn` argument), the same ones a
scalar `'t'::regclass` uses. An untyped literal coerced to a reg* type (an ARRAY[]
element, an INSERT value) is looked up the same way instead of being read as an
integer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...pgtypes import oids as T
from ..functions.registry import FUNCTIONS
from .bound import E
from .casts import cast_function
from .regcast import RegOid

REG_TYPES = frozenset({T.REGCLASS, T.REGTYPE, T.REGPROC, T.REGPROCEDURE, T.REGNAMESPACE,
                       T.REGROLE, T.REGCONFIG, T.REGCOLLATION})
_TEXTS = frozenset({T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME, T.UNKNOWN})


def _library(elem: int) -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    name = T.TYPES[elem].name
    cast, fmt = FUNCTIONS.get(f"cast:{name}"), FUNCTIONS.get(f"format:{name}")
    return (cast[0].impl, fmt[0].impl) if cast and fmt else None


REG_PARAMS = REG_TYPES | {T.REGOPER, T.REGOPERATOR}  # the ones `reg_param` resolves


def reg_param(e: E, target: int) -> E:
    """A parameter of a reg* type: a name bound in text (`pgtypes.codecs.reg_param_in` keeps
    it) is looked up as `'name'::regclass` would be, an OID labelled with its name, as
    PostgreSQL's input function does at Bind (a name it cannot find: its 42P01/42704/42602)."""
    return E("pyfunc", (f"::{T.TYPES[target].name}", reg_resolver(target), True),
             [E("ctxfn", None, [], T.UNKNOWN), e], target, -1, e.name)


def reg_resolver(target: int) -> Callable[[Any, Any], Any]:
    """(function context, bound value) -> the labelled OID, for `reg_param` and INSERT."""
    lib = _library(target)
    assert lib is not None
    cast_in, fmt = lib

    def conv(fctx: Any, v: Any) -> Any:
        if v is None:
            return None
        oid = cast_in(fctx, v) if isinstance(v, str) else int(v)
        return None if oid is None else RegOid(oid, fmt(fctx, oid))

    return conv


def _each(v: Any, fn: Callable[[Any], Any]) -> Any:
    if v is None:
        return None
    if isinstance(v, list):
        return [_each(x, fn) for x in v]
    return fn(v)


def reg_coerce(e: E, target: int) -> E | None:
    """`e` converted to the reg* type or reg* array `target` through the catalog (None when
    the ordinary integer cast does: a number to a scalar reg* type)."""
    elem = T.ELEMENT_OF.get(target, 0)
    array = elem in REG_TYPES
    if not array and not (target in REG_TYPES and e.type in _TEXTS):
        return None
    reg = elem if array else target
    lib = _library(reg)
    if lib is None:
        return None
    cast_in, fmt = lib
    split = cast_function(e.type, T.ARRAY_OF[T.TEXT]) if array and e.type in _TEXTS else None
    # NB: a text[] (`array['pg_class']::regclass[]`) is read element by element as names
    from_text = e.type in _TEXTS or (array and T.ELEMENT_OF.get(e.type) in _TEXTS)
    if array and not from_text and T.ELEMENT_OF.get(e.type) is None \
            and e.type not in (T.OIDVECTOR, T.INT2VECTOR):  # proargtypes::regtype[]: labelled
        return None

    def one(fctx: Any, x: Any) -> RegOid | None:
        oid = cast_in(fctx, str(x)) if from_text else int(x)
        return None if oid is None else RegOid(oid, fmt(fctx, oid))

    def conv(fctx: Any, v: Any) -> Any:
        if not array:
            return one(fctx, v)
        items = split(v) if split is not None else v
        return _each(items, lambda x: one(fctx, x))

    return E("pyfunc", (f"::{T.TYPES[reg].name}", conv, True),
             [E("ctxfn", None, [], T.UNKNOWN), e], target, -1, e.name)
