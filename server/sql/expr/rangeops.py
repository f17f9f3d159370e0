"""Range operators: @> <@ && << >> &< &> -|- and + * -, typed as pg_operator types them.

PostgreSQL declares them over anyrange (and anyrange/anyelement for
containment), so both operands must be the same range type, or the range and
exactly its subtype: `int8range @> 3` is 42883, not a cast. An unknown
literal takes the other operand's range type (`r @> '[2,3]'`, and `r @> '3'`
is 22P02, a malformed range literal, as in PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import SQLError, UndefinedFunction
from ...pgtypes import multiranges as M
from ...pgtypes import network
from ...pgtypes import oids as T
from ...pgtypes import ranges as R
from .bound import E
from .functions import coerce
from .types import type_name

_BOOL_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "&&": R.overlaps, "<<": R.before, ">>": R.after, "&<": R.overleft, "&>": R.overright,
    "-|-": R.adjacent,
}
_RANGE_OPS: dict[str, Callable[[Any, Any], Any]] = {"+": R.union, "*": R.intersect, "-": R.minus}


_NETWORKS = (T.INET, T.CIDR)


def involves_range(a: E, b: E) -> bool:
    """True when one operand is a range or multirange, or an inet/cidr for << <<= >> >>= &&
    (network containment): the operator is bound here."""
    return a.type in R.SUBTYPE or b.type in R.SUBTYPE or a.type in _NETWORKS or \
        b.type in _NETWORKS or a.type in M.RANGE_OF or b.type in M.RANGE_OF


def _mr_contains(a: Any, b: Any) -> bool:
    """Containment with a multirange on either side (range @> multirange too)."""
    if isinstance(a, R.Range):
        a = M.make(M.MULTIRANGE_OF[a.oid], [a])
    if isinstance(b, R.Range):
        return M.contains_range(a, b)
    if isinstance(b, M.MultiRange):
        return M.contains(a, b)
    return M.contains_elem(a, b)


def _mr_overlaps(a: Any, b: Any) -> bool:
    if isinstance(a, R.Range):
        a, b = b, a
    return M.overlaps_range(a, b) if isinstance(b, R.Range) else M.overlaps(a, b)


_MR_OPS: dict[str, Callable[[Any, Any], Any]] = {"+": M.union, "*": M.intersect, "-": M.minus}


def multirange_op(op: str, a: E, b: E, params: Any) -> E:
    """Multirange operators: @> <@ (with an element, a range or a multirange), &&, + * -."""
    multi = a.type if a.type in M.RANGE_OF else b.type
    rng = M.RANGE_OF[multi]
    if a.type == T.UNKNOWN:
        a = coerce(a, multi, params=params)
    if b.type == T.UNKNOWN:
        b = coerce(b, multi, params=params)
    allowed = (multi, rng, R.SUBTYPE[rng])
    if a.type not in allowed or b.type not in allowed:
        raise _undefined(op, a, b)
    if op in ("@>", "<@"):
        big, small = (a, b) if op == "@>" else (b, a)
        if big.type == R.SUBTYPE[rng]:
            raise _undefined(op, a, b)
        return E("pyfunc", (op, _mr_contains, True), [big, small], T.BOOL, -1, "?column?")
    if op == "&&" and R.SUBTYPE[rng] not in (a.type, b.type):
        return E("pyfunc", (op, _mr_overlaps, True), [a, b], T.BOOL, -1, "?column?")
    if op in _MR_OPS and a.type == b.type == multi:
        return E("pyfunc", (op, _MR_OPS[op], True), [a, b], multi, -1, "?column?")
    raise _undefined(op, a, b)


_NET_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<<": lambda a, b: network.contained(a, b, False),
    "<<=": lambda a, b: network.contained(a, b, True),
    ">>": lambda a, b: network.contained(b, a, False),
    ">>=": lambda a, b: network.contained(b, a, True),
    "&&": network.overlaps,
}


_INTEGERS = (T.INT2, T.INT4, T.INT8)


_NET_ARITH: dict[str, tuple[Callable[[Any, Any], Any], int]] = {
    "-": (network.minus, T.INT8), "&": (network.bit_and, T.INET), "|": (network.bit_or, T.INET),
}


def network_op(op: str, a: E, b: E, params: Any) -> E:
    """inet/cidr containment, and inet + - & | (an unknown literal is an inet)."""
    if op in ("+", "-") and b.type in _INTEGERS and a.type in _NETWORKS:
        a, b = coerce(a, T.INET, params=params), coerce(b, T.INT8, params=params)
        fn = network.plus if op == "+" else (lambda v, n: network.plus(v, -n))
        return E("pyfunc", (op, fn, True), [a, b], T.INET, -1, "?column?")
    if op == "+" and a.type in _INTEGERS and b.type in _NETWORKS:
        a, b = coerce(a, T.INT8, params=params), coerce(b, T.INET, params=params)
        return E("pyfunc", (op, lambda n, v: network.plus(v, n), True), [a, b], T.INET, -1,
                 "?column?")
    if a.type not in (*_NETWORKS, T.UNKNOWN) or b.type not in (*_NETWORKS, T.UNKNOWN):
        raise _undefined(op, a, b)
    a, b = coerce(a, T.INET, params=params), coerce(b, T.INET, params=params)
    if op in _NET_ARITH:
        fn, t = _NET_ARITH[op]
        return E("pyfunc", (op, fn, True), [a, b], t, -1, "?column?")
    if op not in _NET_OPS:
        raise _undefined(op, a, b)
    return E("pyfunc", (op, _NET_OPS[op], True), [a, b], T.BOOL, -1, "?column?")


def _undefined(op: str, a: E, b: E) -> SQLError:
    return UndefinedFunction(
        f"operator does not exist: {type_name(a.type)} {op} {type_name(b.type)}",
        hint="No operator matches the given name and argument types. "
        "You might need to add explicit type casts.")


def _same_range(op: str, a: E, b: E, params: Any) -> tuple[E, E]:
    if a.type == T.UNKNOWN:
        a = coerce(a, b.type, params=params)
    if b.type == T.UNKNOWN:
        b = coerce(b, a.type, params=params)
    if a.type != b.type or a.type not in R.SUBTYPE:
        raise _undefined(op, a, b)
    return a, b


def range_op(op: str, a: E, b: E, params: Any) -> E:
    """Binds `a op b` where one side is a range (see the module docstring for the typing)."""
    if a.type in _NETWORKS or b.type in _NETWORKS:
        return network_op(op, a, b, params)
    if a.type in M.RANGE_OF or b.type in M.RANGE_OF:
        return multirange_op(op, a, b, params)
    if op in ("@>", "<@"):
        rng, other = (a, b) if op == "@>" else (b, a)
        if rng.type in R.SUBTYPE and other.type == R.SUBTYPE[rng.type]:
            args = [rng, other]
            return E("pyfunc", (op, R.contains_elem, True), args, T.BOOL, -1, "?column?")
        a, b = _same_range(op, a, b, params)
        fn = R.contains if op == "@>" else (lambda x, y: R.contains(y, x))
        return E("pyfunc", (op, fn, True), [a, b], T.BOOL, -1, "?column?")
    a, b = _same_range(op, a, b, params)
    if op in _BOOL_OPS:
        return E("pyfunc", (op, _BOOL_OPS[op], True), [a, b], T.BOOL, -1, "?column?")
    if op in _RANGE_OPS:
        return E("pyfunc", (op, _RANGE_OPS[op], True), [a, b], a.type, -1, "?column?")
    raise _undefined(op, a, b)
