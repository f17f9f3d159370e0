"""Function-call resolution against the shared registry, and coercion of arguments.

The registry (`functions.registry.FUNCTIONS`) is filled by `server.sql.functions`;
this module picks the overload PostgreSQL would pick (exact types first, then
unknown literals and implicit numeric/string promotions), coerces the
arguments, and reports 42883 with PostgreSQL's hint when nothing matches. A
handful of set-returning built-ins the planner depends on (generate_series,
unnest) are supplied here when the registry does not have them yet.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from ...errors import (
    AmbiguousFunction,
    FeatureNotSupported,
    InvalidParameterValue,
    SQLError,
    UndefinedFunction,
)
from ...pgtypes import multiranges, ranges
from ...pgtypes import oids as T
from ...pgtypes.interval import add_to_timestamp
from ...pgtypes.jsonvalue import mark as mark_json
from ..functions.cryptofns import EXTENSION_OF
from ..functions.registry import ANY, FUNCTIONS, FunctionDef
from ..functions.typeslots import bound as bound_slotted
from . import types as ty
from . import usertypes
from .bound import E
from .casts import cast_function, volatile_literal, volatile_value
from .regarrays import REG_PARAMS, reg_coerce, reg_param

_loaded = False


def _ensure_loaded() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        try:
            import importlib

            importlib.import_module("cumulo.server.sql.functions")
        except Exception:  # noqa: BLE001 - the library is optional while it is being written
            pass


_RECORD_TEXTS = (T.TEXT, T.VARCHAR, T.BPCHAR, T.UNKNOWN)


def _anonymous_record_in(v: Any) -> Any:
    """A string read as `record`: PostgreSQL's record_in needs a row type it cannot know
    (it was taken as a record of its characters)."""
    raise FeatureNotSupported("input of anonymous composite types is not implemented")


def coerce(e: E, target: int, typmod: int = -1, params: Any = None, explicit: bool = False) -> E:
    """Returns `e` converted to `target` (unknown literals folded, parameters inferred)."""
    if target == T.RECORD and e.type in _RECORD_TEXTS and e.kind != "param":
        if e.kind == "const" and e.data is None:  # NULL::record, t UNION SELECT NULL
            return E("const", None, [], T.RECORD, -1, e.name)
        return E("cast", _anonymous_record_in, [e], T.RECORD, -1, e.name)
    if target in (0, ANY, T.ANYELEMENT, T.ANYARRAY, T.UNKNOWN, T.RECORD):
        return e
    if e.type == target and (typmod < 0 or typmod == e.typmod):
        return e
    if e.kind == "param" and e.type == T.UNKNOWN:
        if params is not None:
            known = params.get(e.data)
            if known not in (0, T.UNKNOWN, target):  # NB: PG's variable_coerce_param_hook
                raise SQLError(f"inconsistent types deduced for parameter ${e.data}",
                               sqlstate="42P08")
            params.infer(e.data, target)
        inner = E("param", e.data, [], target, -1, e.name)
        if usertypes.is_enum(target):  # enum_in checks a parameter's label too
            return E("cast", usertypes.enum_input(target), [inner], target, -1, e.name)
        if target in REG_PARAMS:  # a name bound for a regclass: looked up
            return reg_param(inner, target)
        if typmod >= 0:
            return E("cast", cast_function(target, target, typmod), [inner], target, typmod, e.name)
        return inner
    reg = reg_coerce(e, target)  # a name to look up in the catalog, or a reg* array
    if reg is not None:
        return reg
    fn = cast_function(e.type, target, typmod)
    if e.kind == "const" and volatile_literal(e.data, target):  # 'now': not folded (casts.py)
        at = E("pyfunc", ("now", volatile_value(e.data, target), True),
               [E("ctxfn", None, [], T.UNKNOWN)], target, -1, e.name)
        rnd = cast_function(target, target, typmod) if typmod >= 0 else None
        return at if rnd is None else E("cast", rnd, [at], target, typmod, e.name)
    if e.kind == "const":
        v = e.data if e.data is None or fn is None else fn(e.data)
        return E("const", v, [], target, typmod, e.name)
    return E("cast", fn, [e], target, typmod, e.name)


def _cost(arg: int, want: int) -> int | None:
    """Returns the cost of passing an `arg` value as `want` (None: impossible implicitly)."""
    if want in (ANY, T.ANYELEMENT) or arg == want:
        return 0
    if arg == T.UNKNOWN:
        return 1
    if want == T.ANYARRAY:
        return 0 if ty.is_array(arg) else None
    if ty.is_string(arg) and ty.is_string(want):
        return 1 if want == T.TEXT else 2
    ra, rw = ty.NUMERIC_RANK.get(arg), ty.NUMERIC_RANK.get(want)
    if ra and rw and ra <= rw:
        return rw - ra
    if arg in ty.OIDLIKE and want in ty.OIDLIKE + ty.INTS:
        return 1
    if arg in ty.INTS and want in ty.OIDLIKE:
        return 2
    if arg == T.DATE and want in (T.TIMESTAMP, T.TIMESTAMPTZ):
        return 2 if want == T.TIMESTAMPTZ else 3  # timestamptz: the category's preferred type
    if arg == T.TIMESTAMP and want == T.TIMESTAMPTZ:
        return 1
    if arg == T.CIDR and want == T.INET:  # cidr is binary-coercible to inet
        return 1
    if arg == T.TIME and want == T.INTERVAL:  # an implicit cast: date_trunc('hour', time)
        return 2
    if ty.is_array(arg) and ty.is_array(want):
        return 3
    return None


# The preferred type of each type category (pg_type.typispreferred)
_PREFERRED = frozenset((T.FLOAT8, T.TEXT, T.TIMESTAMPTZ, T.BOOL, T.INTERVAL, T.OID))


def signature(name: str, types: list[int]) -> str:
    """Formats `name(integer, text)` for error messages."""
    return f"{name}({', '.join(ty.type_name(t) for t in types)})"


def resolve(name: str, args: list[E], params: Any) -> tuple[FunctionDef, list[E]]:
    """Picks the overload of `name` for these arguments and coerces them."""
    _ensure_loaded()
    cands = (FUNCTIONS.get(name) or FALLBACKS.get(name) or []) + _user_range_functions(
        name, [a.type for a in args]) + bound_slotted(name, usertypes.hstore_oid())
    if name in EXTENSION_OF and not usertypes.has_extension(EXTENSION_OF[name]):
        cands = []  # pgcrypto's and uuid-ossp's exist after CREATE EXTENSION only
    types = [a.type for a in args]
    best: list[tuple[int, FunctionDef]] = []
    for fd in cands:
        if fd.args is None:
            best.append((50, fd))
            continue
        if len(fd.args) != len(args):
            continue
        total = 0
        for t, w in zip(types, fd.args, strict=True):
            c = _cost(t, w)
            if c is None:
                break
            total += c
        else:
            best.append((total, fd))
    if not best:
        raise UndefinedFunction(
            f"function {signature(name, types)} does not exist",
            hint="No function matches the given name and argument types. "
            "You might need to add explicit type casts.",
        )
    best.sort(key=lambda p: p[0])
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1].args != best[1][1].args:
        exact = [fd for c, fd in best if c == best[0][0]]
        if T.UNKNOWN in types:  # PostgreSQL: an unknown argument goes to a preferred type
            for i, t in enumerate(types):
                pref = [fd for fd in exact if t == T.UNKNOWN and fd.args
                        and fd.args[i] in _PREFERRED]
                if pref:
                    exact = pref
            if len({fd.args for fd in exact}) == 1:
                best = [(0, exact[0])]
        if len(best) > 1 and (T.UNKNOWN not in types or len({fd.args for fd in exact}) > 1):
            text_pref = [fd for fd in exact if fd.args and T.TEXT in fd.args]
            if not text_pref:
                raise AmbiguousFunction(
                    f"function {signature(name, types)} is not unique",
                    hint="Could not choose a best candidate function. "
                    "You might need to add explicit type casts.",
                )
            best = [(0, text_pref[0])]
    fd = best[0][1]
    if fd.args is None:
        return fd, [_json_marked(a) for a in args]
    out = [coerce(a, w, params=params) if w not in (ANY,) else _json_marked(a)
           for a, w in zip(args, fd.args, strict=True)]
    return fd, _polymorphic_unknowns(fd.args, out, params)


_POLY = (T.ANYARRAY, T.ANYELEMENT)


def _polymorphic_unknowns(wants: tuple[int, ...], args: list[E], params: Any) -> list[E]:
    """Unknown literals (and untyped parameters) in anyarray/anyelement positions take the type
    the other polymorphic arguments fix, text when none does, as PostgreSQL's
    enforce_generic_type_consistency: array_cat(int[], '{9}') appends {9} read as int4[]."""
    if not any(a.type == T.UNKNOWN and w in _POLY for a, w in zip(args, wants, strict=True)):
        return args
    elem = next((T.ELEMENT_OF.get(a.type) if w == T.ANYARRAY else a.type
                 for a, w in zip(args, wants, strict=True)
                 if w in _POLY and a.type not in (T.UNKNOWN, 0)), None) or T.TEXT
    arr = T.ARRAY_OF.get(elem)
    if arr is None:
        return args
    return [coerce(a, arr if w == T.ANYARRAY else elem, params=params)
            if a.type == T.UNKNOWN and w in _POLY else a
            for a, w in zip(args, wants, strict=True)]


_JSON_TYPES = (T.JSON, T.JSONB, T.ARRAY_OF[T.JSON], T.ARRAY_OF[T.JSONB])


def _json_marked(a: E) -> E:
    """A json-typed argument of an `any` parameter, marked so JSON builders embed it as JSON
    (jsonb_build_object('a', '{"b":1}'::jsonb) is {"a": {"b": 1}}, not {"a": "{\\"b\\"..."})."""
    if a.type not in _JSON_TYPES:
        return a
    return E("pyfunc", ("json", mark_json, True), [a], a.type, a.typmod, a.name)


_RANGE_ACCESSORS: dict[str, tuple[Any, bool]] = {  # name -> (impl, returns the subtype)
    "lower": (ranges.lower, True), "upper": (ranges.upper, True),
    "isempty": (lambda r: r.empty, False),
    "lower_inc": (lambda r: bool(r.flags & ranges.LB_INC), False),
    "upper_inc": (lambda r: bool(r.flags & ranges.UB_INC), False),
    "lower_inf": (lambda r: bool(r.flags & ranges.LB_INF), False),
    "upper_inf": (lambda r: bool(r.flags & ranges.UB_INF), False),
}


def _user_range_functions(name: str, types: list[int]) -> list[FunctionDef]:
    """The constructors of a CREATE TYPE ... AS RANGE type and of its multirange type, and
    lower/upper/isempty/... over such a range (the built-in ranges have registered ones)."""
    if name in _RANGE_ACCESSORS and len(types) == 1 and types[0] >= 16384 \
            and types[0] in ranges.SUBTYPE:
        impl, gives_subtype = _RANGE_ACCESSORS[name]
        return [FunctionDef(name, impl, (types[0],),
                            ranges.SUBTYPE[types[0]] if gives_subtype else T.BOOL)]
    spec = usertypes.range_constructor(name)
    if spec is None:
        return []
    kind, oid = spec
    if kind == "multirange":
        return [FunctionDef(name, lambda *rs: multiranges.make(oid, rs), None, oid, strict=False)]
    sub = ranges.SUBTYPE[oid]
    return [FunctionDef(name, lambda a, b: ranges.make(oid, a, b), (sub, sub), oid, strict=False),
            FunctionDef(name, lambda a, b, f: ranges.make(oid, a, b, f), (sub, sub, T.TEXT), oid,
                        strict=False)]


def return_type(fd: FunctionDef, args: list[E]) -> int:
    """Returns a resolved call's result type."""
    if callable(fd.returns):
        return fd.returns([a.type for a in args])
    return fd.returns


# -- fallbacks, used only while the registry lacks them ---------------------------------------


def _generate_series(start: Any, stop: Any, step: Any = 1) -> Iterator[Any]:
    if step == 0:
        raise InvalidParameterValue("step size cannot equal zero")
    if isinstance(start, dt.datetime | dt.date) and not isinstance(step, int | Decimal):
        v = start
        while (v <= stop) if step > dt.timedelta(0) else (v >= stop):
            yield v
            v = add_to_timestamp(v, step) if isinstance(v, dt.datetime) else v + step
        return
    v = start
    if step > 0:
        while v <= stop:
            yield v
            v += step
    else:
        while v >= stop:
            yield v
            v += step


def _series_type(types: list[int]) -> int:
    return ty.common_type([t if t != T.UNKNOWN else T.INT4 for t in types[:2]])


def _unnest(arr: Any) -> Iterator[Any]:
    yield from arr


def _unnest_type(types: list[int]) -> int:
    return T.ELEMENT_OF.get(types[0], T.TEXT)


def _array_position(arr: Any, v: Any) -> int | None:
    if arr is None:
        return None
    for i, x in enumerate(arr):
        if x == v and x is not None:
            return i + 1
    return None


FALLBACKS: dict[str, list[FunctionDef]] = {
    "generate_series": [
        FunctionDef("generate_series", _generate_series, (T.INT4, T.INT4), T.INT4,
                    set_returning=True),
        FunctionDef("generate_series", _generate_series, (T.INT4, T.INT4, T.INT4), T.INT4,
                    set_returning=True),
        FunctionDef("generate_series", _generate_series, (T.INT8, T.INT8), T.INT8,
                    set_returning=True),
        FunctionDef("generate_series", _generate_series, (T.INT8, T.INT8, T.INT8), T.INT8,
                    set_returning=True),
        FunctionDef("generate_series", _generate_series, (T.NUMERIC, T.NUMERIC), T.NUMERIC,
                    set_returning=True),
        FunctionDef("generate_series", _generate_series,
                    (T.TIMESTAMP, T.TIMESTAMP, T.INTERVAL), T.TIMESTAMP, set_returning=True),
    ],
    "unnest": [FunctionDef("unnest", _unnest, (T.ANYARRAY,), _unnest_type, set_returning=True)],
    "array_position": [
        FunctionDef("array_position", _array_position, (T.ANYARRAY, ANY), T.INT4, strict=False)
    ],
    "array_length": [
        FunctionDef("array_length", lambda a, d: (len(a) or None) if d == 1 else None,
                    (T.ANYARRAY, T.INT4), T.INT4)
    ],
    "cardinality": [FunctionDef("cardinality", len, (T.ANYARRAY,), T.INT4)],
    "lower": [FunctionDef("lower", str.lower, (T.TEXT,), T.TEXT)],
    "upper": [FunctionDef("upper", str.upper, (T.TEXT,), T.TEXT)],
    "length": [FunctionDef("length", len, (T.TEXT,), T.INT4)],
    "abs": [FunctionDef("abs", abs, (T.INT4,), T.INT4), FunctionDef("abs", abs, (T.INT8,), T.INT8),
            FunctionDef("abs", abs, (T.NUMERIC,), T.NUMERIC),
            FunctionDef("abs", abs, (T.FLOAT8,), T.FLOAT8)],
}

