"""Declared types read to OIDs and typmods: SQL type names (`varchar(10)`, `int4[]`) and
sqlglot DataType nodes, with the domains they name.

The promotion rules, categories and type names the expression compilers need live in
`typefacts` (which loads no parser: a KiVi node's process imports them); they are
re-exported here for the binder and DDL, which read declared types too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import UndefinedObject
from ...pgtypes import oids as T
from ...pgtypes.interval import RANGES as INTERVAL_RANGES
from ...pgtypes.interval import typmod as interval_typmod
from ...pgtypes.numtypmod import typmod as numeric_typmod
from . import usertypes
from .typefacts import (
    DATETIMES,
    INT_RANGE,
    INTS,
    NUMERIC_RANK,
    OIDLIKE,
    STRINGS,
    category,
    common_type,
    comparable,
    is_array,
    is_numeric,
    is_string,
    numeric_result,
    type_name,
)

if TYPE_CHECKING:
    from ..catalog.model import UserType

# SQL spellings of types (as sqlglot prints them for the postgres dialect) -> OID.
_NAMES = {
    "int": T.INT4, "integer": T.INT4, "int4": T.INT4, "serial": T.INT4,
    "bigint": T.INT8, "int8": T.INT8, "bigserial": T.INT8,
    "smallint": T.INT2, "int2": T.INT2, "smallserial": T.INT2,
    "decimal": T.NUMERIC, "numeric": T.NUMERIC,
    "double precision": T.FLOAT8, "float8": T.FLOAT8, "double": T.FLOAT8, "float": T.FLOAT8,
    "real": T.FLOAT4, "float4": T.FLOAT4,
    "boolean": T.BOOL, "bool": T.BOOL,
    "text": T.TEXT, "varchar": T.VARCHAR, "character varying": T.VARCHAR,
    "char": T.BPCHAR, "character": T.BPCHAR, "bpchar": T.BPCHAR, "nchar": T.BPCHAR,
    "name": T.NAME, '"char"': T.CHAR,
    "bytea": T.BYTEA, "varbinary": T.BYTEA, "binary": T.BYTEA, "blob": T.BYTEA,
    "date": T.DATE, "time": T.TIME, "timetz": T.TIMETZ, "time with time zone": T.TIMETZ,
    "timestamp": T.TIMESTAMP, "timestamp without time zone": T.TIMESTAMP,
    "timestamptz": T.TIMESTAMPTZ, "timestamp with time zone": T.TIMESTAMPTZ,
    "interval": T.INTERVAL, "uuid": T.UUID, "json": T.JSON, "jsonb": T.JSONB,
    "oid": T.OID, "regclass": T.REGCLASS, "regtype": T.REGTYPE, "regproc": T.REGPROC,
    "regprocedure": T.REGPROCEDURE, "regnamespace": T.REGNAMESPACE, "regrole": T.REGROLE,
    "regoper": T.REGOPER, "regoperator": T.REGOPERATOR, "regconfig": T.REGCONFIG, "xid": T.XID, "cid": T.CID, "tid": T.TID,
    "record": T.RECORD, "void": T.VOID, "inet": T.INET, "money": T.MONEY,
    "int2vector": T.INT2VECTOR, "oidvector": T.OIDVECTOR, "unknown": T.UNKNOWN,
    "anyarray": T.ANYARRAY, "anyelement": T.ANYELEMENT, "cstring": T.CSTRING,
    "pg_node_tree": T.PG_NODE_TREE, "bit": T.BIT, "varbit": T.VARBIT, "pg_lsn": T.PG_LSN,
    "bit varying": T.VARBIT, "time without time zone": T.TIME,
}
_PAREN = re.compile(r"\s*\(([^)]*)\)")


def type_by_name(text: str) -> tuple[int, int]:
    """Returns (oid, typmod) for a SQL type name such as `varchar(10)` or `pg_catalog.int4[]`."""
    s = text.strip().lower()
    if s.startswith("pg_catalog."):
        s = s[len("pg_catalog.") :]
    if s.endswith("[]"):
        try:
            oid, typmod = type_by_name(s[:-2])
        except UndefinedObject as err:  # NB: a shell type has no array type yet
            if err.message.endswith("is only a shell"):
                raise UndefinedObject(f'type "{s}" does not exist') from None
            raise
        if oid in T.ELEMENT_OF:  # int[][] is int[]
            return oid, typmod
        arr = T.ARRAY_OF.get(oid) or _user_array(oid)
        if not arr:
            raise UndefinedObject(f'type "{text}[]" does not exist')
        return arr, typmod  # NB: an array keeps its element's typmod, as atttypmod does
    typmod = -1
    m = _PAREN.search(s)
    if m:
        # NB: a negative numeric scale arrives quoted (parse.py: sqlglot reads no `-3` there)
        mods = [int(x.strip(" '")) for x in m.group(1).split(",")
                if x.strip(" '").lstrip("-").isdigit()]
        s = (s[: m.start()] + s[m.end() :]).strip()
        oid = _NAMES.get(s) or (T.BY_NAME[s].oid if s in T.BY_NAME else 0)
        if oid in (T.VARCHAR, T.BPCHAR) and mods:
            typmod = mods[0] + 4
        elif oid == T.INTERVAL and mods:  # PostgreSQL's INTERVAL_TYPMOD(precision, full range)
            typmod = interval_typmod(0x7FFF, min(max(mods[0], 0), 6))
        elif oid in (T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME, T.TIMETZ) and mods:
            typmod = min(max(mods[0], 0), 6)  # fractional-second precision
        elif oid in (T.BIT, T.VARBIT) and mods:
            typmod = mods[0]  # the length in bits
        elif oid == T.NUMERIC and mods:
            typmod = numeric_typmod(mods[0], mods[1] if len(mods) > 1 else 0)
    else:
        oid = _NAMES.get(s) or (T.BY_NAME[s].oid if s in T.BY_NAME else 0)
        if oid == T.BPCHAR and s in ("char", "character"):
            typmod = 5
        elif oid == T.BIT:  # `bit` is bit(1), as char is char(1)
            typmod = 1
    if not oid and s.startswith("interval ") and s[9:].strip().upper() in INTERVAL_RANGES:
        # `interval day to second(3)` (regtype input, a cast's text): the range, then (p)
        precision = min(max(mods[0], 0), 6) if m and mods else 0xFFFF
        return T.INTERVAL, interval_typmod(INTERVAL_RANGES[s[9:].strip().upper()], precision)
    if not oid:
        bare = s.replace('"', "")
        user = usertypes.by_oid(usertypes.lookup_oid(bare)) or \
            usertypes.lookup(bare)
        if user is not None and user.kind == "p":  # CREATE TYPE name: not defined yet
            raise UndefinedObject(f'type "{text if chr(34) in text else text.lower()}" is only a shell')
        if user is not None and user.kind == "d":  # a domain is its base type (plus checks)
            return user.subtype, user.typmod
        user_oid = usertypes.lookup_oid(bare)
        if user_oid:
            return user_oid, -1
        if user is not None:
            return user.oid, -1
        user = usertypes.lookup(bare.replace("._", ".")[1:] if bare.startswith("_") else "")
        if user is not None and user.array_oid:  # `_mood`: the array type's own name
            return user.array_oid, -1
        shown = text if '"' in text else text.lower()  # an unquoted name folds to lower case
        raise UndefinedObject(f'type "{shown}" does not exist')
    return oid, typmod


def _user_array(oid: int) -> int:
    t = usertypes.by_oid(oid)
    return t.array_oid if t is not None else 0


def datatype_oid(dt: exp.Expression) -> tuple[int, int]:
    """Returns (oid, typmod) for a sqlglot DataType (or ObjectIdentifier) node."""
    if isinstance(dt, exp.DataType) and dt.this == exp.DataType.Type.ARRAY and dt.expressions:
        # NB: the typmod is the element's (varchar(10)[] -> 14), as PostgreSQL's atttypmod
        oid, typmod = datatype_oid(dt.expressions[0])
        if oid in T.ELEMENT_OF:  # NB: int[][] is int[]: PostgreSQL ignores declared dimensions
            return oid, typmod
        return T.ARRAY_OF.get(oid, T.ANYARRAY), typmod
    if isinstance(dt, exp.DataType) and dt.this == exp.DataType.Type.USERDEFINED:
        kind = dt.args.get("kind")
        if isinstance(kind, exp.Identifier) and kind.quoted and kind.name == "char":
            return T.CHAR, -1  # "char": the one-byte type, not char(1)
        name = kind.name if isinstance(kind, exp.Expression) else kind or dt.sql("postgres")
        if dt.expressions:  # varbit(5): sqlglot keeps the modifiers apart
            name += "(" + ",".join(p.sql("postgres") for p in dt.expressions) + ")"
        return type_by_name(name)
    text = dt.sql("postgres")
    m = re.match(r"(?i)^INTERVAL\s+(\d+|([A-Z ]+?)\s*(\(\d+\))?)$", text)
    if m:  # `interval(9)` and `interval day to second` as sqlglot prints them
        digits = re.findall(r"\d+", text)
        precision = min(int(digits[0]), 6) if digits else 0xFFFF
        rng = INTERVAL_RANGES.get((m.group(2) or "").upper(), 0x7FFF)
        return T.INTERVAL, interval_typmod(rng, precision)
    return type_by_name(text)


def regtype_oid(text: str) -> int:
    """The OID `text` names as a regtype: a domain's own (type_by_name gives its base type)."""
    name = text.strip().lower().replace('"', "")
    user = usertypes.by_oid(usertypes.lookup_oid(name)) or \
        usertypes.lookup(name)
    if user is not None and user.kind == "d":
        return user.oid
    return type_by_name(text)[0]


def domain_of(dt: exp.Expression) -> UserType | None:
    """The CREATE DOMAIN type a declared type names (None for any other type).

    `datatype_oid` resolves a domain to its base type and typmod, so casts, columns and
    operators work on the base type; callers that enforce the domain's NOT NULL and CHECK
    constraints (casts, table columns) ask for it here.
    """
    if not isinstance(dt, exp.DataType) or dt.this != exp.DataType.Type.USERDEFINED:
        return None
    kind = dt.args.get("kind")
    name = (kind.name if isinstance(kind, exp.Expression) else kind or "").lower()
    if not name:
        return None
    if name.startswith("pg_catalog."):
        return None
    user = usertypes.by_oid(usertypes.lookup_oid(name)) or \
        usertypes.lookup(name)
    return user if user is not None and user.kind == "d" else None


def array_domain_of(dt: exp.Expression) -> UserType | None:
    """The domain `d` of a declared `d[]` (any number of dimensions), else None.

    `datatype_oid` resolves `d[]` to its base type's array, so storage, operators and
    subscripts work on the base type; casts and columns check each element against `d`
    and go out typed `d[]` (its own array type, as PostgreSQL sends them).
    """
    if not isinstance(dt, exp.DataType) or dt.this != exp.DataType.Type.ARRAY or \
            not dt.expressions:
        return None
    elem = dt.expressions[0]
    while isinstance(elem, exp.DataType) and elem.this == exp.DataType.Type.ARRAY and \
            elem.expressions:
        elem = elem.expressions[0]
    dom = domain_of(elem)
    return dom if dom is not None and dom.array_oid else None


def declared_domain(dt: exp.Expression) -> int:
    """pg_attribute.atttypid's domain part for a column declared `dt`: a domain's OID, the
    array type's of a `d[]`, else 0 (Column.domain; the column stores the base type)."""
    dom = domain_of(dt)
    if dom is not None:
        return dom.oid
    arr = array_domain_of(dt)
    return arr.array_oid if arr is not None else 0


def array_ndims(dt: exp.Expression) -> int:
    """Returns how many dimensions a declared type has (`int[][]` -> 2), as pg_attribute.attndims.

    PostgreSQL records the declared count but does not enforce it.
    """
    n = 0
    while isinstance(dt, exp.DataType) and dt.this == exp.DataType.Type.ARRAY and dt.expressions:
        n, dt = n + 1, dt.expressions[0]
    return n


__all__ = [
    "DATETIMES", "INT_RANGE", "INTS", "NUMERIC_RANK", "OIDLIKE", "STRINGS", "array_domain_of",
    "array_ndims", "category", "common_type", "comparable", "datatype_oid", "declared_domain",
    "domain_of", "is_array", "is_numeric", "is_string", "numeric_result", "regtype_oid",
    "type_by_name", "type_name",
]
