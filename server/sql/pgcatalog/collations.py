"""Column collations: the built-in "C", "POSIX" and "default" (`COLLATE "C"`, Django's db_collation).

Cumulo compares text by code point, which is what "C" and "POSIX" mean, so a
column declared with either behaves as PostgreSQL's; the name is kept on the
column (`Column.collation`, "" for the database default) so that
pg_attribute.attcollation and information_schema.columns.collation_* report it.
Other collations (ICU, OS locales) would need a collation library Cumulo does
not have: a column naming one is 42704, as in a PostgreSQL without that locale,
and CREATE COLLATION is 0A000 (see `ddl.collationstmt`).

>>> column_collation("C", 25), column_collation("default", 1043), COLLATION_OIDS["POSIX"]
('C', '', 951)
"""

from __future__ import annotations

from ...errors import DatatypeMismatch, SQLError, UndefinedObject
from ...pgtypes import oids as T
from .ddltext import format_type

COLLATION_OIDS = {"default": 100, "C": 950, "POSIX": 951}
COLLATABLE = (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME)


def unknown(name: str) -> SQLError:
    return UndefinedObject(f'collation "{name}" for encoding "UTF8" does not exist')


def column_collation(name: str, type_oid: int) -> str:
    """What a column's COLLATE stores ("" for the default); 42704/42804 as PostgreSQL."""
    if name not in COLLATION_OIDS:
        raise unknown(name)
    base = T.ELEMENT_OF.get(type_oid, type_oid)
    if base not in COLLATABLE:
        raise DatatypeMismatch(f"collations are not supported by type {format_type(type_oid, None)}")
    return "" if name == "default" else name


def info_schema(database: str, collation: str) -> tuple[str | None, str | None, str | None]:
    """information_schema's collation_catalog, _schema, _name: set for a non-default one."""
    return (database, "pg_catalog", collation) if collation else (None, None, None)
