"""How pg_catalog spells a type and a literal: format_type, cast names, quoted literals.

The lowest of the text printers: `checktext` (the expression deparser),
`exprtext` (column defaults) and `ddltext` (index and constraint definitions)
all print types and literals through these, so none of them needs another's
module for it.
"""

from __future__ import annotations

from ...pgtypes import oids as T
from ...pgtypes.interval import typmod as interval_typmod
from ...pgtypes.intervaltext import typmod_text
from ...pgtypes.numtypmod import precision_scale
from ..expr import usertypes

_INT4 = (-(2**31), 2**31 - 1)
_INT8 = (-(2**63), 2**63 - 1)
_TIME_TYPES = {
    T.TIMESTAMP: ("timestamp", " without time zone"),
    T.TIMESTAMPTZ: ("timestamp", " with time zone"),
    T.TIME: ("time", " without time zone"),
    T.TIMETZ: ("time", " with time zone"),
}


def format_type(oid: int | None, typmod: int | None) -> str | None:
    """Returns PostgreSQL's format_type(oid, typmod) text ("character varying(50)", "integer[]")."""
    if oid is None:
        return None
    if oid == 0:
        return "-"
    elem = T.ELEMENT_OF.get(oid)
    if elem is not None and oid not in (T.INT2VECTOR, T.OIDVECTOR):
        base = format_type(elem, typmod)
        return None if base is None else base + "[]"
    info = T.TYPES.get(oid)
    if info is None:
        user = usertypes.by_oid(oid)
        if user is None:
            owner = usertypes.multirange_owner(oid)
            return "???" if owner is None else owner.multi_name
        return usertypes.qualified_name(user)
    mod = -1 if typmod is None else typmod
    if oid == T.BIT and typmod is not None and typmod < 0:  # NB: bare `bit` would be bit(1)
        return '"bit"'
    if oid == T.BPCHAR:
        if typmod is None:
            return "character"
        return f"character({mod - 4})" if mod >= 4 else "bpchar"
    if oid in (T.VARCHAR, T.BIT, T.VARBIT) and mod >= (4 if oid == T.VARCHAR else 0):
        return f"{info.sql_name}({mod - 4 if oid == T.VARCHAR else mod})"
    if oid == T.NUMERIC and mod >= 4:
        return "numeric({},{})".format(*precision_scale(mod))
    if oid in _TIME_TYPES:
        head, tail = _TIME_TYPES[oid]
        return f"{head}({mod}){tail}" if mod >= 0 else head + tail
    if oid == T.INTERVAL and mod >= 0:  # 'interval year to month', 'interval(3)'
        return "interval" + typmod_text(mod if mod > 0xFFFF else interval_typmod(0x7FFF, mod))
    return info.sql_name


def quote_literal(s: str) -> str:
    """A string as an SQL literal (`'it''s'`)."""
    return "'" + s.replace("'", "''") + "'"


def cast_name(oid: int) -> str:
    """The type name a coercion prints: format_type without typmod, `bpchar` for character."""
    if oid == T.BPCHAR:
        return "bpchar"
    return format_type(oid, None) or "text"


def number_type(text: str) -> int:
    """The type PostgreSQL gives a numeric literal: int4, int8 if larger, else numeric."""
    try:
        v = int(text)
    except ValueError:
        return T.NUMERIC
    if _INT4[0] <= v <= _INT4[1]:
        return T.INT4
    return T.INT8 if _INT8[0] <= v <= _INT8[1] else T.NUMERIC
