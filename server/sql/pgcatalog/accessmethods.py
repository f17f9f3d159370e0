"""Index access methods: the names CREATE INDEX ... USING accepts, their pg_am rows, and
what each refuses, as PostgreSQL 15 does.

Cumulo keeps every index as an ordered KiVi space whatever its method, so a hash, GiST,
GIN, SP-GiST or BRIN index answers as a btree one would; what the method changes is what
the catalog says (pg_class.relam, pg_am, pg_indexes.indexdef: clients and ORMs read the
method back, Django's introspection among them) and what CREATE INDEX refuses.

>>> [m.oid for m in (method("btree"), method("GIN"))]
[403, 2742]
>>> try:
...     method("rtree")
... except UndefinedObject as e:
...     print(e.sqlstate, e.message)
42704 access method "rtree" does not exist

Each method indexes only the types it has a default operator class for (PostgreSQL's
`pg_opclass.opcdefault` rows); any other key type is 42704 with PostgreSQL's hint:

>>> has_default(method("gin"), T.INT4), has_default(method("gin"), T.ARRAY_OF[T.INT4])
(False, True)
>>> has_default(method("gist"), T.INET), has_default(method("spgist"), T.CIDR)
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import FeatureNotSupported, UndefinedObject
from ...pgtypes import hstore, multiranges, ranges
from ...pgtypes import oids as T
from ..expr import usertypes
from ..expr.types import is_array, type_name


@dataclass(frozen=True)
class AccessMethod:
    oid: int
    name: str
    handler: str
    unique: bool = False  # amcanunique
    multicolumn: bool = True  # amcanmulticol
    order: bool = False  # amcanorder: ASC/DESC and NULLS FIRST/LAST
    include: bool = False  # amcaninclude


INDEX_METHODS = {m.name: m for m in (
    AccessMethod(403, "btree", "bthandler", unique=True, order=True, include=True),
    AccessMethod(405, "hash", "hashhandler", multicolumn=False),
    AccessMethod(783, "gist", "gisthandler", include=True),
    AccessMethod(2742, "gin", "ginhandler"),
    AccessMethod(3580, "brin", "brinhandler"),
    AccessMethod(4000, "spgist", "spghandler", multicolumn=False, include=True),
    # CREATE EXTENSION bloom's (PostgreSQL numbers it per database; one fixed OID here)
    AccessMethod(1000001, "bloom", "blhandler"),
)}
BY_OID = {m.oid: m for m in INDEX_METHODS.values()}
EXTENSION_METHODS = {"bloom": "bloom"}  # method -> the extension that makes it


def installed(m: AccessMethod) -> bool:
    """Tells whether the method exists in this database (an extension's once it is made)."""
    ext = EXTENSION_METHODS.get(m.name)
    return ext is None or usertypes.has_extension(ext)


def method(name: str) -> AccessMethod:
    """The index access method `name` (case-insensitive); 42704 when there is none."""
    found = INDEX_METHODS.get(name.lower())
    if found is None or not installed(found):
        raise UndefinedObject(f'access method "{name.lower()}" does not exist')
    return found


def check(m: AccessMethod, unique: bool, keys: int, descending: bool, nulls_first: bool,
          included: bool) -> None:
    """Refuses what the method cannot do, with PostgreSQL's 0A000 messages."""
    if unique and not m.unique:
        raise FeatureNotSupported(f'access method "{m.name}" does not support unique indexes')
    if keys > 1 and not m.multicolumn:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support multicolumn indexes')
    if included and not m.include:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support included columns')
    if descending and not m.order:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support ASC/DESC options')
    if nulls_first and not m.order:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support NULLS FIRST/LAST options')


def _named(*names: str) -> frozenset[int]:
    return frozenset(T.BY_NAME[n].oid for n in names if n in T.BY_NAME)


# btree_gin's default GIN classes (CREATE EXTENSION btree_gin, 1.3): scalars (enums by kind)
BTREE_GIN = _named("int2", "int4", "int8", "float4", "float8", "numeric", "oid", "money",
                   "text", "varchar", "bpchar", "bytea", "bit", "varbit", "uuid", "name",
                   "char", "date", "time", "timetz", "timestamp", "timestamptz", "interval",
                   "inet", "cidr", "macaddr", "macaddr8")
# NB: PostgreSQL 15's default operator classes of the non-btree methods, by input type
# (`select amname, opcintype from pg_opclass ... where opcdefault`); arrays, ranges,
# multiranges, enums and hstore are matched by kind in `has_default`.
_DEFAULTS: dict[str, frozenset[int]] = {
    "gin": _named("jsonb", "tsvector"),
    "gist": _named("box", "circle", "point", "polygon", "tsquery", "tsvector"),
    "spgist": _named("box", "inet", "point", "polygon", "text"),
    "brin": _named("char", "int8", "bit", "varbit", "box", "bytea", "bpchar", "date", "float8",
                   "inet", "int4", "interval", "macaddr", "macaddr8", "name", "numeric", "oid",
                   "pg_lsn", "float4", "int2", "text", "tid", "timetz", "time", "timestamptz",
                   "timestamp", "uuid"),
    "bloom": _named("int4", "text"),  # bloom 1.0's int4_ops and text_ops
    "hash": _named("char", "aclitem", "int8", "bool", "bytea", "bpchar", "cid", "date", "float8",
                   "inet", "int4", "interval", "jsonb", "macaddr", "macaddr8", "name", "numeric",
                   "oid", "oidvector", "pg_lsn", "float4", "record", "int2", "text", "tid",
                   "timetz", "time", "timestamptz", "timestamp", "uuid", "xid", "xid8"),
}
# what a key type is binary-coercible to: its class serves it (varchar -> text's classes)
_COERCIBLE = {T.VARCHAR: T.TEXT, T.CIDR: T.INET}
# kinds with a default class per method (anyarray, anyrange, anymultirange, anyenum, hstore)
_BY_KIND = {"gin": "ah", "gist": "rmh", "spgist": "r", "brin": "r", "hash": "armeh",
            "bloom": ""}


def _kind(type_oid: int) -> str:
    if is_array(type_oid):
        return "a"
    if type_oid in ranges.SUBTYPE:
        return "r"
    if type_oid in multiranges.RANGE_OF:
        return "m"
    if type_oid in hstore.OIDS:
        return "h"
    return "e" if usertypes.is_enum(type_oid) else ""


def has_default(m: AccessMethod, type_oid: int) -> bool:
    """Tells whether `m` has a default operator class for keys of `type_oid`."""
    defaults = _DEFAULTS.get(m.name)
    if defaults is None:  # btree: every type Cumulo stores orders
        return True
    while type_oid in T.DOMAIN_BASE:
        type_oid = T.DOMAIN_BASE[type_oid]
    if type_oid in defaults or _COERCIBLE.get(type_oid) in defaults:
        return True
    if m.name == "gin" and type_oid in BTREE_GIN and usertypes.has_extension("btree_gin"):
        return True
    kind = _kind(type_oid)
    if kind == "e" and m.name == "gin" and usertypes.has_extension("btree_gin"):
        return True
    return bool(kind) and kind in _BY_KIND[m.name]


# btree_gist's default GiST classes (CREATE EXTENSION btree_gist, 1.7): scalars and enums
BTREE_GIST = _named("int2", "int4", "int8", "float4", "float8", "numeric", "oid", "money",
                    "text", "varchar", "bpchar", "bytea", "bit", "varbit", "bool", "uuid",
                    "date", "time", "timetz", "timestamp", "timestamptz", "interval", "inet",
                    "cidr", "macaddr", "macaddr8")


def check_key_types(m: AccessMethod, types: list[int], btree_gist: bool = False) -> None:
    """Refuses a key type `m` has no default operator class for (42704), as PostgreSQL does
    (`btree_gist`: that extension is in the database, giving GiST the scalar types)."""
    for t in types:
        if btree_gist and m.name == "gist" and (t in BTREE_GIST or usertypes.is_enum(t)):
            continue
        if t and not has_default(m, t):
            raise UndefinedObject(
                f'data type {type_name(t)} has no default operator class for access method '
                f'"{m.name}"',
                hint="You must specify an operator class for the index or define a default "
                     "operator class for the data type.")
