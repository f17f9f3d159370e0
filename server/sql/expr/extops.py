"""Operators of hstore, tsvector and tsquery, bound to the functions that implement them.

sqlglot reads these operators as its JSON, array and match nodes (`->` is
JSONExtract, `?` JSONBContainsTopKey, `@>` ArrayContainsAll, `&&`
ArrayOverlaps, `@@` MatchAgainst); the binder's methods for those nodes ask
`bind_operator` first, which answers when an operand is of one of these types
(else None, and the node keeps its JSON or array meaning). An untyped operand
takes the type PostgreSQL's operator resolution gives it: hstore for `h - 'a'`
and `h || '...'` (an hstore operator of the same type wins), text for `h -> 'a'`.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ...errors import AmbiguousFunction, SQLError, UndefinedFunction
from ...pgtypes import hstore
from ...pgtypes import oids as T
from ...pgtypes.tsearch import TSQUERY, TSVECTOR
from .. import geosyntax
from ..functions import tsqcmp
from ..functions.geoops import GEO_TYPES, OPERATORS
from .bound import E
from .functions import coerce, resolve, return_type
from .types import type_name

_TEXTS = T.ARRAY_OF[T.TEXT]
_HSTORE_OPS = {"->": "fetchval", "?": "exist", "?|": "exists_any", "?&": "exists_all",
               "@>": "hs_contains", "<@": "hs_contained", "||": "hs_concat", "-": "delete"}
_TS = (TSVECTOR, TSQUERY)
JSONPATH = 4072
GEO_NAMES = geosyntax.NAMES  # the operators parse.py respells (binder.b_Operator binds them)


def _call(name: str, args: list[E], params: Any) -> E:
    fd, args = resolve(name, args, params)
    return E("call", fd, args, return_type(fd, args), -1, "?column?")


def _undefined(op: str, a: E, b: E) -> SQLError:
    return UndefinedFunction(
        f"operator does not exist: {type_name(a.type)} {op} {type_name(b.type)}",
        hint="No operator matches the given name and argument types. "
        "You might need to add explicit type casts.")


def _raise(e: SQLError) -> E:
    raise e


def arrow_key(node: exp.Expression) -> E | None:
    """`h -> 'a'` arrives as a JSON path of one key: the key as a text constant."""
    if not isinstance(node, exp.JSONPath):
        return None
    parts = [x for x in node.expressions if not isinstance(x, exp.JSONPathRoot)]
    if len(parts) != 1 or not isinstance(parts[0], exp.JSONPathKey):
        return None
    return E("const", str(parts[0].this), [], T.TEXT)


def geo_operator(op: str, a: E | None, b: E, params: Any) -> E | None:
    """`a op b` (`op b` when a is None) when an operand is geometric (else None).

    This is the binder's hook for the extension-like types: a jsonpath operand goes to
    `jsonpath_operator`, a comparison of tsqueries to tsquery_eq/_lt/... (by tree).
    PostgreSQL's resolution: an untyped operand first takes the other one's type;
    failing that, the one operator of that name with the known side's type.
    """
    if (a is not None and a.type == JSONPATH) or b.type == JSONPATH or op == "@?":
        return jsonpath_operator(op, a, b, params)
    if a is not None and TSQUERY in (a.type, b.type) and op in tsqcmp.OPERATORS:
        return _tsquery_compare(op, a, b, params)
    if (a is None or a.type not in GEO_TYPES) and b.type not in GEO_TYPES:
        if op == "<->" and a is not None:  # respelled (sql.geosyntax): tsquery's phrase operator
            if a.type == b.type == T.UNKNOWN:
                raise AmbiguousFunction(
                    "operator is not unique: unknown <-> unknown",
                    hint="Could not choose a best candidate operator. "
                    "You might need to add explicit type casts.")
            return bind_operator(op, a, b, params) or _raise(_undefined(op, a, b))
        return None
    if a is None:
        name = OPERATORS.get((op, None, b.type))
        if name is None:
            raise UndefinedFunction(
                f"operator does not exist: {op} {type_name(b.type)}",
                hint="No operator matches the given name and argument type. "
                "You might need to add an explicit type cast.")
        return _call(name, [b], params)
    lt, rt = a.type, b.type
    if lt == T.UNKNOWN or rt == T.UNKNOWN:
        known = rt if lt == T.UNKNOWN else lt
        if (op, known, known) in OPERATORS:
            lt = rt = known
        else:
            fits = [k for k in OPERATORS if k[0] == op and k[1] is not None
                    and (k[1] == lt or lt == T.UNKNOWN) and (k[2] == rt or rt == T.UNKNOWN)]
            if len(fits) == 1:
                lt, rt = fits[0][1] or T.UNKNOWN, fits[0][2]
        if lt == T.UNKNOWN or rt == T.UNKNOWN:
            raise _undefined(op, a, b)
        a, b = coerce(a, lt, params=params), coerce(b, rt, params=params)
    name = OPERATORS.get((op, lt, rt))
    if name is None:
        raise _undefined(op, a, b)
    return _call(name, [a, b], params)


def _tsquery_compare(op: str, a: E, b: E, params: Any) -> E | None:
    if a.type == T.UNKNOWN:
        a = coerce(a, TSQUERY, params=params)
    if b.type == T.UNKNOWN:
        b = coerce(b, TSQUERY, params=params)
    if a.type != TSQUERY or b.type != TSQUERY:
        return None
    return _call(tsqcmp.OPERATORS[op], [a, b], params)


def jsonpath_operator(op: str, a: E | None, b: E, params: Any) -> E | None:
    """`jsonb @? jsonpath` / `jsonb @@ jsonpath` (an untyped side takes jsonb / jsonpath);
    jsonpath has no other operator. None when neither side is jsonpath nor a jsonb @?/@@."""
    if a is None:
        if b.type == JSONPATH:
            raise UndefinedFunction(f"operator does not exist: {op} jsonpath")
        return None
    if op in ("@?", "@@") and a.type in (T.JSONB, T.UNKNOWN) and b.type in (JSONPATH, T.UNKNOWN) \
            and (a.type, b.type) != (T.UNKNOWN, T.UNKNOWN):
        a, b = coerce(a, T.JSONB, params=params), coerce(b, JSONPATH, params=params)
        return _call("jsonb_path_exists_opr" if op == "@?" else "jsonb_path_match_opr", [a, b],
                     params)
    if a.type == JSONPATH or b.type == JSONPATH:
        raise _undefined(op, a, b)
    return None


def bind_operator(op: str, a: E, b: E, params: Any) -> E | None:
    """`a op b` when an operand is an hstore, tsvector, tsquery or geometric (else None)."""
    if a.type in GEO_TYPES or b.type in GEO_TYPES:
        return geo_operator(op, a, b, params)
    jp = jsonpath_operator(op, a, b, params)  # jsonb @@ jsonpath
    if jp is not None:
        return jp
    if a.type in hstore.OIDS or b.type in hstore.OIDS:
        return hstore_op(op, a, b, params)
    if a.type in _TS or b.type in _TS or op == "@@":
        return _tsearch(op, a, b, params)
    return None


def hstore_op(op: str, a: E, b: E, params: Any) -> E:
    h = a.type if a.type in hstore.OIDS else b.type
    if op not in _HSTORE_OPS or a.type != h:
        if op in ("@>", "<@", "||") and a.type == T.UNKNOWN:
            a = coerce(a, h, params=params)
        else:
            raise _undefined(op, a, b)
    if b.type == T.UNKNOWN:
        b = coerce(b, T.TEXT if op in ("->", "?") else _TEXTS if op in ("?|", "?&") else h,
                   params=params)
    if op == "->" and b.type == _TEXTS:
        return _call("slice_array", [a, b], params)
    return _call(_HSTORE_OPS[op], [a, b], params)


def _tsearch(op: str, a: E, b: E, params: Any) -> E | None:
    if op == "@@":
        if a.type == T.UNKNOWN and b.type in _TS:
            a = coerce(a, TSVECTOR if b.type == TSQUERY else TSQUERY, params=params)
        if b.type == T.UNKNOWN and a.type in _TS:
            b = coerce(b, TSQUERY if a.type == TSVECTOR else TSVECTOR, params=params)
        kinds = {TSVECTOR: "v", TSQUERY: "q", T.TEXT: "t", T.VARCHAR: "t", T.UNKNOWN: "t"}
        ka, kb = kinds.get(a.type), kinds.get(b.type)
        name = {("v", "q"): "ts_match_vq", ("q", "v"): "ts_match_qv", ("t", "q"): "ts_match_tq",
                ("t", "t"): "ts_match_tt"}.get((ka or "", kb or ""))
        if name is None:
            raise _undefined(op, a, b)
        return _call(name, [a, b], params)
    t = a.type if a.type in _TS else b.type
    if a.type == T.UNKNOWN:
        a = coerce(a, t, params=params)
    if b.type == T.UNKNOWN:
        b = coerce(b, t, params=params)
    if a.type != b.type:
        return None
    name = {(TSVECTOR, "||"): "tsvector_concat", (TSQUERY, "||"): "tsquery_or",
            (TSQUERY, "&&"): "tsquery_and", (TSQUERY, "<->"): "tsquery_phrase",
            (TSQUERY, "@>"): "tsq_mcontains", (TSQUERY, "<@"): "tsq_mcontained"}.get((t, op))
    if name is None:
        return None
    return _call(name, [a, b], params)
