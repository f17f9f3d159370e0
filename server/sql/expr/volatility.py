"""Volatility of a bound expression: PostgreSQL's provolatile ('i', 's', 'v') of its worst part.

PostgreSQL asks this of index expressions and predicates ("functions in index expression
must be marked IMMUTABLE"), of stored generation expressions ("generation expression is
not immutable") and, when planning, of every function call over constants: only an
immutable one is folded. The answer comes from the bound tree, so it sees what the
binder chose: the overload called (its pg_proc row's volatility, PROC_FACTS), the casts
inserted (a cast through text calls the type's output or input function, and those of
date, timestamp, timestamptz, interval, arrays, ranges, enums and records are stable,
since they read DateStyle, IntervalStyle or the catalog) and anything that reads the
session (a `ctxfn` argument).

>>> from ...pgtypes import oids as T
>>> volatility(E("cast", None, [E("col", 0, [], T.TIMESTAMP)], T.TEXT))
's'
>>> volatility(E("cast", None, [E("col", 0, [], T.INT4)], T.TEXT))
'i'
>>> volatility(E("cast", None, [E("const", "2020-01-01", [], T.UNKNOWN)], T.DATE))
'i'
"""

from __future__ import annotations

from collections.abc import Sequence

from ...pgtypes import multiranges, ranges
from ...pgtypes import oids as T
from ..functions.registry import FunctionDef
from ..pgcatalog.procfacts import PROC_FACTS  # NB: data tables with no imports of their own
from ..pgcatalog.procoids import PG_PROC_OIDS, PG_PROC_SIGNATURES
from . import usertypes
from .bound import E
from .types import STRINGS, is_array

_RANK = {"i": 0, "s": 1, "v": 2}
_REG = (T.REGPROC, T.REGPROCEDURE, T.REGOPER, T.REGOPERATOR, T.REGCLASS, T.REGTYPE, T.REGCONFIG,
        T.REGNAMESPACE, T.REGROLE, T.REGCOLLATION)
_MONEY, _XML = T.BY_NAME["money"].oid, T.BY_NAME["xml"].oid
# types whose output / input function is stable (pg_type.typoutput / typinput's provolatile)
_STABLE_OUT = frozenset({T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ, T.INTERVAL, _MONEY, *_REG})
_STABLE_IN = frozenset({T.DATE, T.TIME, T.TIMESTAMP, T.TIMESTAMPTZ, T.INTERVAL, T.TIMETZ,
                        _MONEY, _XML, *_REG})
# pg_cast rows whose function is stable (the time zone or lc_monetary decides)
_STABLE_CASTS = frozenset({
    (_MONEY, T.NUMERIC), (T.NUMERIC, _MONEY), (T.INT4, _MONEY), (T.INT8, _MONEY),
    (T.TEXT, T.REGCLASS), (T.VARCHAR, T.REGCLASS), (T.DATE, T.TIMESTAMPTZ),
    (T.TIME, T.TIMETZ), (T.TIMESTAMP, T.TIMESTAMPTZ), (T.TIMESTAMPTZ, T.DATE),
    (T.TIMESTAMPTZ, T.TIME), (T.TIMESTAMPTZ, T.TIMESTAMP), (T.TIMESTAMPTZ, T.TIMETZ),
    (T.TEXT, _XML), (T.VARCHAR, _XML), (T.BPCHAR, _XML)})


def _worst(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


# registered once for every argument type; PostgreSQL's overloads are stable only on
# timestamptz (the session's TimeZone decides), immutable on the other types
_ZONED = frozenset({"extract", "date_part", "date_trunc"})


def function_volatility(fd: FunctionDef, arg_types: Sequence[int] = ()) -> str:
    """One overload's provolatile: PostgreSQL's own pg_proc row for that signature when it
    has one, else what the registry says (volatile; stable when it reads the session),
    else PostgreSQL's row for the name."""
    if fd.volatile:
        return "v"
    oid = fd.oid or (PG_PROC_SIGNATURES.get((fd.name, fd.args), 0) if fd.args is not None else 0)
    facts = PROC_FACTS.get(oid)
    if facts is not None:
        return facts[0]
    if fd.name in _ZONED:
        return "s" if T.TIMESTAMPTZ in arg_types else "i"
    if fd.needs_context:
        return "s"
    facts = PROC_FACTS.get(PG_PROC_OIDS.get(fd.name, 0))
    return facts[0] if facts is not None else "i"


def _generic_io(oid: int) -> bool:
    """Arrays, ranges, multiranges, enums and records: array_out, range_in, enum_in, ... are
    stable (they look up the element type's functions or the catalog)."""
    return (is_array(oid) or oid in ranges.SUBTYPE or oid in multiranges.RANGE_OF
            or usertypes.is_enum(oid) or oid == T.RECORD
            or usertypes.composite_fields(oid) is not None)


def cast_volatility(src: int, dst: int) -> str:
    """The volatility of the conversion `src` -> `dst` PostgreSQL would call."""
    src, dst = T.DOMAIN_BASE.get(src, src), T.DOMAIN_BASE.get(dst, dst)
    if src == dst or src == T.UNKNOWN:
        return "i"
    if (src, dst) in _STABLE_CASTS:
        return "s"
    if src in T.ELEMENT_OF and dst in T.ELEMENT_OF:  # array_coerce: per element
        return cast_volatility(T.ELEMENT_OF[src], T.ELEMENT_OF[dst])
    if dst in STRINGS and src not in STRINGS:  # through the source's output function
        return "s" if src in _STABLE_OUT or _generic_io(src) else "i"
    if src in STRINGS and dst not in STRINGS:  # through the target's input function
        return "s" if dst in _STABLE_IN or _generic_io(dst) else "i"
    return "i"


def volatility(e: E) -> str:
    """The worst provolatile of `e`'s calls, casts and session reads."""
    k = e.kind
    if k == "pyfunc" and e.data[0][:2] == "::" and e.type in _REG \
            and all(a.kind in ("const", "ctxfn") for a in e.args):
        return "i"  # NB: a reg* literal ('english'::regconfig) is a constant after parsing
    if k == "call":
        v = function_volatility(e.data, [a.type for a in e.args])
    elif k == "cast" and e.args and e.args[0].kind != "const":
        v = cast_volatility(e.args[0].type, e.type)
    elif k == "ctxfn" or (k == "pyfunc" and e.data[0] == "now"):  # reads the session
        v = "s"
    else:
        v = "i"
    args = e.args
    if k == "pyfunc" and e.data[0] == "domain":  # NB: a domain's checks read the catalog only
        args = [a for a in args if a.kind != "ctxfn"]
    for a in args:
        if v == "v":
            break
        v = _worst(v, volatility(a))
    return v
