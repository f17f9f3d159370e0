"""PostgreSQL's select_common_type for UNION / INTERSECT / EXCEPT and VALUES columns.

The type a set operation's column goes out as is not "the widest": PostgreSQL walks the
inputs in order, keeps the first known type, refuses a type of another category (42804,
`SELECT true UNION SELECT 1`), and moves to a later type only when the kept one is not
its category's preferred type and converts to it implicitly while the reverse does not.
So `varchar UNION text` is varchar, `text UNION varchar` text, `float4 UNION int` float4,
`int UNION oid` oid. Untyped literals (`'(3,4)'`, NULL) count for nothing and take the
resolved type; only when every input is one does the column become text. Each input must
then convert implicitly to the result, else 42846 (`date UNION time`).

>>> select_common_type([T.INT4, T.UNKNOWN], "UNION")
23
>>> select_common_type([T.VARCHAR, T.TEXT], "UNION"), select_common_type([T.TEXT, T.VARCHAR], "UNION")
(1043, 25)
>>> select_common_type([T.INT4, T.OID], "UNION"), select_common_type([T.FLOAT4, T.INT4], "UNION")
(26, 700)
>>> select_common_type([T.UNKNOWN, T.UNKNOWN], "VALUES")
25
>>> select_common_type([T.BOOL, T.INT4], "UNION")
Traceback (most recent call last):
...
cumulo.server.errors.DatatypeMismatch: UNION types boolean and integer cannot be matched
>>> select_common_type([T.DATE, T.TIME], "EXCEPT")
Traceback (most recent call last):
...
cumulo.server.errors.CannotCoerce: EXCEPT could not convert type time without time zone to date
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from ...errors import CannotCoerce, DatatypeMismatch, SQLError
from ...pgtypes import citext
from ...pgtypes import oids as T
from .pgcasts import ASSIGNMENT, IMPLICIT
from .types import OIDLIKE, category, type_name

# pg_type.typispreferred: bool, text, oid, float8, inet, timestamptz, interval, varbit.
PREFERRED = frozenset((T.BOOL, T.TEXT, T.OID, T.FLOAT8, 869, T.TIMESTAMPTZ, T.INTERVAL, 1562))


def implicit(src: int, dst: int) -> bool:
    """can_coerce_type(src, dst, COERCION_IMPLICIT) for the types Cumulo has."""
    if src == dst or src == T.UNKNOWN:
        return True
    if src in citext.OIDS:  # citext -> text / varchar / bpchar are implicit (citext--1.6)
        return dst in (T.TEXT, T.VARCHAR, T.BPCHAR)
    if src in OIDLIKE and dst in OIDLIKE:
        return dst == T.OID or src == T.OID
    if dst in IMPLICIT.get(src, ()):
        return True
    es, ed = T.ELEMENT_OF.get(src), T.ELEMENT_OF.get(dst)
    return es is not None and ed is not None and implicit(es, ed)


def select_common_type(types: Sequence[int], context: str) -> int:
    """The type a column of `types` (T.UNKNOWN: an untyped literal) resolves to, as
    PostgreSQL's select_common_type followed by its coercibility check; raises its errors."""
    ptype = types[0]
    if ptype != T.UNKNOWN and all(t == ptype for t in types):
        return ptype
    pcat = category(ptype)
    for t in types[1:]:
        if t == T.UNKNOWN or t == ptype:
            continue
        cat = category(t)
        if ptype == T.UNKNOWN:
            ptype, pcat = t, cat
        elif cat != pcat:
            raise DatatypeMismatch(f"{context} types {type_name(ptype)} and {type_name(t)} "
                                   "cannot be matched")
        elif ptype not in PREFERRED and implicit(ptype, t) and not implicit(t, ptype):
            ptype, pcat = t, cat
    if ptype == T.UNKNOWN:
        return T.TEXT
    for t in types:
        if not implicit(t, ptype) and not _lenient(t, ptype):
            raise CannotCoerce(f"{context} could not convert type {type_name(t)} to "
                               f"{type_name(ptype)}")
    return ptype


def _lenient(src: int, dst: int) -> bool:
    """Pairs Cumulo's types convert between although pg_cast lists no implicit cast:
    user types (enums, domains, ranges, row types), whose casts the binder knows."""
    return src >= 16384 or dst >= 16384 or T.RECORD in (src, dst) or category(src) in "ERC"


def assignable(src: int, dst: int) -> bool:
    """can_coerce_type(src, dst, COERCION_ASSIGNMENT): what INSERT/UPDATE may store
    without a written cast. Implicit and assignment casts, plus I/O conversion to a
    string type (`true` into a text column); text into xml, integer or json is not one
    (42804 in PostgreSQL, `'a'::text` into an xml column), while an untyped literal is.

    >>> assignable(T.TEXT, T.XML), assignable(T.UNKNOWN, T.XML), assignable(T.INT4, T.BOOL)
    (False, True, False)
    >>> assignable(T.FLOAT8, T.INT4), assignable(T.BOOL, T.VARCHAR), assignable(1016, 1007)
    (True, True, True)
    """
    if category(dst) == "E":  # text into an enum column: explicit only
        return src in (dst, T.UNKNOWN)
    if implicit(src, dst) or _lenient(src, dst) or dst in ASSIGNMENT.get(src, ()):
        return True
    if category(dst) == "S":
        return True
    es, ed = T.ELEMENT_OF.get(src), T.ELEMENT_OF.get(dst)
    return es is not None and ed is not None and assignable(es, ed)


def assignment_mismatch(column: str, src: int, dst: int) -> SQLError:
    """PostgreSQL's 42804 for a value `assignable` refuses."""
    return DatatypeMismatch(
        f'column "{column}" is of type {type_name(dst)} but expression is of type '
        f"{type_name(src)}", hint="You will need to rewrite or cast the expression.")


class AssignCast(exp.Cast):
    """`this` converted to column `column`'s type as an assignment (UPDATE ... SET a = expr):
    binds as a Cast after checking `assignable`, so `SET x = 'b'::text` on an xml column
    is 42804 while `SET x = '<b/>'` is fine."""
    arg_types = {**exp.Cast.arg_types, "column": True, "shown": False}  # shown: the
    # column's declared type (a domain) for the message, else its type


AssignCast.key = "cast"  # NB: prints (EXPLAIN, error text) as the Cast it is
