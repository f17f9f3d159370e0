"""Operator classes on index keys (`CREATE INDEX … (col varchar_pattern_ops)`, `USING gin (j jsonb_path_ops)`).

An index key may name its operator class. Django's `_like` indexes use
`varchar_pattern_ops`/`text_pattern_ops` so that `LIKE 'abc%'` can use them, and
its GinIndex may name `jsonb_path_ops`. Cumulo keeps every index ordered by code
point (the "C" order the pattern classes exist for), so the class changes no
behaviour; it is stored on the `Index` (`Index.opclasses`, "" for the type's
default) so that pg_index.indclass, pg_get_indexdef and psql's \\d show it as
PostgreSQL does. A default class named explicitly is stored as "" because
PostgreSQL's deparse omits it too. The classes are PostgreSQL 15's pg_opclass rows
(`operators.OPCLASS_ROWS`), per access method; a key's default class is found as
PostgreSQL's GetDefaultOpClass does: the default class of its type, else of a type
it is binary-coercible to (varchar to text, cidr to inet, a domain to its base, an
array to anyarray, a range to anyrange ...).

>>> resolve("varchar_pattern_ops", 1043), resolve("text_ops", 1043), resolve("int4_ops", 23)
('varchar_pattern_ops', '', '')
>>> oid_of("text_pattern_ops", 25), oid_of("", 25), oid_of("", 1043)
(4217, 3126, 3126)
>>> oid_of("", T.JSONB, "gin"), oid_of("jsonb_path_ops", T.JSONB, "gin"), oid_of("", 1007, "gin")
(10090, 10091, 10064)
>>> resolve("jsonb_path_ops", T.JSONB, "gin"), resolve("jsonb_ops", T.JSONB, "gin")
('jsonb_path_ops', '')
"""

from __future__ import annotations

from ...errors import DatatypeMismatch, UndefinedObject
from ...pgtypes import hstore, multiranges, ranges
from ...pgtypes import oids as T
from ..expr import usertypes
from ..expr.types import is_array
from .accessmethods import INDEX_METHODS
from .ddltext import format_type
from .extopclasses import CLASSES, DEFAULTS
from .operators import OPCLASS_ROWS
from .systypes import opclass_of

_ANYARRAY, _ANYENUM, _ANYRANGE, _ANYMULTIRANGE = 2277, 3500, 3831, 4537
# (access method OID, class name) -> (class OID, input type, default?)
_BY_NAME = {(r[1], r[2]): (r[0], r[6], r[7]) for r in OPCLASS_ROWS.values()}
# (access method OID, input type) -> the default class's OID
_DEFAULT = {(r[1], r[6]): r[0] for r in OPCLASS_ROWS.values() if r[7]}
_COERCIBLE = {T.VARCHAR: T.TEXT, T.CIDR: T.INET}  # binary-coercible without a function


def _serving(type_oid: int) -> list[int]:
    """The input types whose classes serve keys of `type_oid`, the most specific first."""
    while type_oid in T.DOMAIN_BASE:
        type_oid = T.DOMAIN_BASE[type_oid]
    out = [type_oid]
    if type_oid in _COERCIBLE:
        out.append(_COERCIBLE[type_oid])
    if is_array(type_oid):
        out.append(_ANYARRAY)
    elif type_oid in ranges.SUBTYPE:
        out.append(_ANYRANGE)
    elif type_oid in multiranges.RANGE_OF:
        out.append(_ANYMULTIRANGE)
    elif usertypes.is_enum(type_oid):
        out.append(_ANYENUM)
    return out


def default_oid(type_oid: int, method: str = "btree") -> int:
    """The default class of `method` for keys of `type_oid` (0 when there is none)."""
    am = INDEX_METHODS[method].oid
    for t in _serving(type_oid):
        found = _DEFAULT.get((am, t))
        if found:
            return found
    for t in _serving(type_oid):  # NB: btree_gist's classes are GiST's defaults once it exists
        ext = DEFAULTS.get((method, t))
        if ext is not None and usertypes.has_extension(ext.extension):
            return ext.oid
    if method == "btree" and type_oid not in hstore.OIDS:
        return opclass_of(type_oid)
    return 0


def _by_name(method: str, name: str) -> tuple[int, int, bool] | None:
    """(class OID, input type, default?) of a class of `method` by name: PostgreSQL's, or
    one an extension of this database made (`extopclasses`)."""
    hit = _BY_NAME.get((INDEX_METHODS[method].oid, name))
    if hit is None:
        ext = CLASSES.get((method, name))
        if ext is not None and usertypes.has_extension(ext.extension):
            return ext.oid, ext.input_type, ext.default
    return hit


def resolve(name: str, type_oid: int, method: str = "btree") -> str:
    """The class to store for a key of `type_oid` ("" for the default); 42704/42804 as PG."""
    hit = _by_name(method, name)
    if hit is None:
        raise UndefinedObject(f'operator class "{name}" does not exist for access method '
                              f'"{method}"')
    oid, class_type, _ = hit
    if class_type not in _serving(type_oid):
        raise DatatypeMismatch(f'operator class "{name}" does not accept data type '
                               f'{format_type(type_oid, None)}')
    return "" if oid == default_oid(type_oid, method) else name


def oid_of(name: str, type_oid: int, method: str = "btree") -> int:
    """pg_index.indclass for one key: the named class, else the type's default."""
    hit = _by_name(method, name) if name else None
    return hit[0] if hit is not None else default_oid(type_oid, method)
