"""Explicit btree operator classes on index keys (`CREATE INDEX … (col varchar_pattern_ops)`).

An index key may name its operator class. Django's `_like` indexes use
`varchar_pattern_ops`/`text_pattern_ops` so that `LIKE 'abc%'` can use them.
Cumulo's btree compares text by code point already (the "C" order the pattern
classes exist for), so the class changes no behaviour; it is stored on the
`Index` (`Index.opclasses`, "" for the type's default) so that pg_index.indclass,
pg_get_indexdef and psql's \\d show it as PostgreSQL does. A default class named
explicitly is stored as "" because PostgreSQL's deparse omits it too.

>>> resolve("varchar_pattern_ops", 1043), resolve("text_ops", 1043), resolve("int4_ops", 23)
('varchar_pattern_ops', '', '')
>>> oid_of("text_pattern_ops", 25), oid_of("", 25)
(4217, 3126)
"""

from __future__ import annotations

from ...errors import DatatypeMismatch, UndefinedObject
from ...pgtypes import oids as T
from .ddltext import format_type
from .systypes import BTREE_OPCLASSES, PATTERN_OPCLASSES, opclass_of

_BY_NAME = {name: (oid, typ) for oid, name, _, typ in BTREE_OPCLASSES + PATTERN_OPCLASSES}
_TEXT_LIKE = (T.TEXT, T.VARCHAR)  # varchar is binary-coercible to text's classes


def _accepts(class_type: int, type_oid: int) -> bool:
    return class_type == type_oid or (class_type == T.TEXT and type_oid in _TEXT_LIKE)


def resolve(name: str, type_oid: int) -> str:
    """The class to store for a key of `type_oid` ("" for the default); 42704/42804 as PG."""
    hit = _BY_NAME.get(name)
    if hit is None:
        raise UndefinedObject(f'operator class "{name}" does not exist for access method "btree"')
    oid, class_type = hit
    if not _accepts(class_type, type_oid):
        raise DatatypeMismatch(f'operator class "{name}" does not accept data type '
                               f'{format_type(type_oid, None)}')
    return "" if oid == opclass_of(type_oid) else name


def oid_of(name: str, type_oid: int) -> int:
    """pg_index.indclass for one key: the named class, else the type's default."""
    hit = _BY_NAME.get(name) if name else None
    return hit[0] if hit is not None else opclass_of(type_oid)
