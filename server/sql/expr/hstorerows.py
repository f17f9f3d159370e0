"""hstore's functions and operators that need more than a registry entry (hstore--1.8).

Why here and not in `functions.hstorefns`: `hstore(record)`, `populate_record(r, h)` and
`r #= h` need the record's field names and types, which only the bound argument knows
(the runtime value is a bare tuple); and `#=`, `%%`, `%#` and `#<#`-style comparisons
are operators sqlglot does not read, which `sql.extsyntax` spells `OPERATOR(pg_catalog.op)`
(a prefix one with a NULL left operand). Everything else of hstore is in
`functions.hstorefns` and `expr.extops`.
"""

from __future__ import annotations

from typing import Any

from ...errors import DatatypeMismatch, SQLError, UndefinedFunction
from ...pgtypes import hstore
from ...pgtypes import oids as T
from ...pgtypes.records import Record
from ...pgtypes.text import text_encoder
from ...pgtypes.tsearch import TSQUERY
from ..functions.registry import FunctionDef
from . import usertypes
from .bound import E
from .functions import coerce, resolve, return_type
from .rowpopulate import record_fields, target
from .types import type_name

ROW_FUNCTIONS = frozenset(("hstore", "populate_record"))
NAMED_OPERATORS = frozenset(("#=", "%%", "%#", "#<#", "#<=#", "#>#", "#>=#", "!!"))
_COMPARE = {"#<#": lambda a, b: a < b, "#<=#": lambda a, b: a <= b,
            "#>#": lambda a, b: a > b, "#>=#": lambda a, b: a >= b}


def undefined(op: str, a: E | None, b: E) -> SQLError:
    """42883 for an operator PostgreSQL's hstore does not have (`h > h`, `h ~ h`)."""
    return _undefined(op, a, b)


def _undefined(op: str, a: E | None, b: E) -> SQLError:
    left = "" if a is None else type_name(a.type) + " "
    return UndefinedFunction(
        f"operator does not exist: {left}{op} {type_name(b.type)}",
        hint="No operator matches the given name and argument types. "
        "You might need to add explicit type casts.")


def _to_hstore(e: E) -> E | None:
    """hstore(record): each field as a key, its text output as the value."""
    fields = record_fields(e)
    if fields is None:
        return None
    names = [n for n, _ in fields]
    types = [t for _, t in fields]

    def impl(r: Any) -> str:  # NB: the output functions, read per call (DateStyle may change)
        vals = (None,) * len(names) if r is None else tuple(r)
        return hstore.canonical((n, None if v is None else text_encoder(t)(v))
                                for n, v, t in zip(names, vals, types, strict=True))

    return E("pyfunc", ("hstore", impl, False), [e], usertypes.hstore_oid(), -1, "hstore")


def _populate(r: E, h: E, params: Any, name: str) -> E:
    """populate_record(r, h) and r #= h: r's fields replaced by h's values of their names."""
    ho = usertypes.hstore_oid()
    if h.type == T.UNKNOWN:
        h = coerce(h, ho, params=params)
    fields, names, types, ins = target(
        r, SQLError("record type has not been registered", sqlstate="42809"),
        DatatypeMismatch("first argument must be a rowtype"))

    def impl(rec: Any, hv: Any) -> Any:
        old = (None,) * len(names) if rec is None else tuple(rec)
        if hv is None:
            return rec
        d = hstore.as_dict(hv)
        vals = tuple(old[i] if n not in d else None if d[n] is None else ins[i](d[n])
                     for i, n in enumerate(names))
        return Record(vals, types)

    out = r.rowtype or r.type
    if name == "#=":
        return E("pyfunc", (name, impl, False), [r, h], out, -1, "?column?", r.fields, r.rowtype)
    # NB: a call with out_columns, so that FROM populate_record(...) has the record's columns
    fd = FunctionDef(name, impl, (r.type, h.type), out, strict=False, out_columns=fields)
    return E("call", fd, [r, h], out, -1, name, r.fields, r.rowtype)


def row_function(name: str, args: list[E], params: Any) -> E | None:
    """`hstore(record)` and `populate_record(record, hstore)` (None: not this form)."""
    if not usertypes.hstore_oid():
        return None
    if name == "hstore" and len(args) == 1 and args[0].type == T.UNKNOWN:
        return coerce(args[0], usertypes.hstore_oid(), params=params)  # a function-style cast
    if name == "hstore" and len(args) == 1 and args[0].type != T.TEXT \
            and not T.ELEMENT_OF.get(args[0].type):
        return _to_hstore(args[0])
    if name == "populate_record" and len(args) == 2:
        return _populate(args[0], args[1], params, "populate_record")
    return None


def named_operator(op: str, a: E | None, b: E, params: Any) -> E:
    """`r #= h`, `%% h`, `%# h`, hstore's btree operators `#<#` `#<=#` `#>#` `#>=#`, and
    tsquery's `!! q`."""
    if op == "!!":  # tsquery's NOT, the one prefix operator here that is not hstore's
        if a is not None or b.type not in (TSQUERY, T.UNKNOWN):
            raise _undefined(op, a, b)
        fd, args = resolve("tsquery_not", [b], params)
        return E("call", fd, args, TSQUERY, -1, "?column?")
    ho = usertypes.hstore_oid()
    if op in ("%%", "%#"):
        if a is not None or not ho:
            raise _undefined(op, a, b)
        fd, args = resolve("hstore_to_array" if op == "%%" else "hstore_to_matrix", [b], params)
        return E("call", fd, args, return_type(fd, args), -1, "?column?")
    if a is None or not ho:
        raise _undefined(op, a, b)
    if op == "#=":
        if b.type not in (ho, T.UNKNOWN):
            raise _undefined(op, a, b)
        return _populate(a, b, params, "#=")
    if a.type == T.UNKNOWN:
        a = coerce(a, ho, params=params)
    if b.type == T.UNKNOWN:
        b = coerce(b, ho, params=params)
    if a.type != ho or b.type != ho:
        raise _undefined(op, a, b)
    cmp = _COMPARE[op]
    return E("pyfunc", (op, lambda x, y: cmp(hstore.sort_key(x), hstore.sort_key(y)), True),
             [a, b], T.BOOL, -1, "?column?")
