"""Type facts that need no parser: PostgreSQL's promotion rules, categories and type names.

PostgreSQL resolves operators by type category and "preferred" types; Cumulo
keeps only the parts clients can observe: integer widths promote
int2 < int4 < int8 < numeric < float8, the string types (text, varchar,
bpchar, name, unknown literals) behave as text, and the reg* and oid types
are integers.

Why apart from `types` (which reads declared types, from SQL text and sqlglot nodes):
the expression compilers a KiVi node runs its pushed filters with (`pushed`, through
`codegen`, `runtime` and `casts`) need these facts and nothing of the SQL front end, so
a node's process loads neither sqlglot nor the catalog. `types` re-exports them.
"""

from __future__ import annotations

from ...pgtypes import citext
from ...pgtypes import oids as T
from . import usertypes

INTS = (T.INT2, T.INT4, T.INT8)
NUMERIC_RANK = {T.INT2: 1, T.INT4: 2, T.INT8: 3, T.NUMERIC: 4, T.FLOAT4: 5, T.FLOAT8: 6}
STRINGS = (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME, T.UNKNOWN, T.CHAR)
OIDLIKE = (T.OID, T.REGCLASS, T.REGTYPE, T.REGPROC, T.REGNAMESPACE, T.REGROLE, T.REGPROCEDURE,
           T.REGOPER, T.REGOPERATOR, T.REGCONFIG, T.REGCOLLATION, T.XID, T.CID)
DATETIMES = (T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME, T.TIMETZ)

INT_RANGE = {T.INT2: (-(2**15), 2**15 - 1), T.INT4: (-(2**31), 2**31 - 1),
             T.INT8: (-(2**63), 2**63 - 1)}


def type_name(oid: int) -> str:
    """Returns the name PostgreSQL uses in messages ("integer", "text", "numeric[]")."""
    info = T.TYPES.get(oid)
    if info:
        return info.sql_name
    user = usertypes.by_oid(oid)
    if user is not None:
        return usertypes.qualified_name(user)
    if oid in T.TYPES or oid < 16384:
        return str(oid)
    rng = usertypes.multirange_owner(oid)
    if rng is not None:
        return rng.multi_name
    elem = T.ELEMENT_OF.get(oid)
    return type_name(elem) + "[]" if elem else str(oid)


def is_numeric(oid: int) -> bool:
    """True for the arithmetic types (integers, numeric, floats)."""
    return oid in NUMERIC_RANK


def is_string(oid: int) -> bool:
    """True for text-like types (and unknown literals); citext is one (category S)."""
    return oid in STRINGS or oid in citext.OIDS


def is_array(oid: int) -> bool:
    """True for array types."""
    return oid in T.ELEMENT_OF or oid == T.ANYARRAY


def category(oid: int) -> str:
    """PostgreSQL's typcategory letter (N numeric, S string, D datetime, ...)."""
    if oid in OIDLIKE:
        return "N"
    info = T.TYPES.get(oid)
    if info is None and usertypes.is_enum(oid):
        return "E"
    if oid in citext.OIDS:
        return "S"
    return info.category if info else "U"


def numeric_result(a: int, b: int) -> int:
    """Returns the type of an arithmetic operator over two numeric types."""
    if a in OIDLIKE:
        a = T.INT8
    if b in OIDLIKE:
        b = T.INT8
    if a == T.FLOAT4 and b == T.FLOAT4:
        return T.FLOAT4
    if a in (T.FLOAT4, T.FLOAT8) or b in (T.FLOAT4, T.FLOAT8):
        return T.FLOAT8
    return a if NUMERIC_RANK.get(a, 0) >= NUMERIC_RANK.get(b, 0) else b


def common_type(types: list[int]) -> int:
    """Resolves the common type of UNION/CASE/COALESCE branches (unknown -> text)."""
    known = [t for t in types if t != T.UNKNOWN]
    if T.RECORD in known:  # NB: an untyped NULL or literal arrives as text: it takes the record
        known = [t for t in known if t != T.TEXT]
    if not known:
        return T.TEXT
    first = known[0]
    if all(t == first for t in known):
        return first
    if all(is_numeric(t) or t in OIDLIKE for t in known):
        out = known[0]
        for t in known[1:]:
            out = numeric_result(out, t)
        return out
    if all(is_string(t) for t in known):
        return T.TEXT
    if all(t in DATETIMES for t in known):
        return T.TIMESTAMPTZ if T.TIMESTAMPTZ in known else T.TIMESTAMP
    if all(t in T.ELEMENT_OF for t in known):  # int[] UNION numeric[] is numeric[]
        return T.ARRAY_OF.get(common_type([T.ELEMENT_OF[t] for t in known]), first)
    return first


def comparable(a: int, b: int) -> bool:
    """True if values of types a and b may be compared with =, <, ... ."""
    if a == b or T.UNKNOWN in (a, b):
        return True
    ca, cb = category(a), category(b)
    if ca == "R" or cb == "R":  # ranges compare only with the same range type
        return False
    if ca == cb:
        return True
    if {a, b} <= set(STRINGS) | {T.CHAR}:
        return True
    return is_array(a) and is_array(b)
